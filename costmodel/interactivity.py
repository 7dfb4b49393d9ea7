"""The interactivity frontier: what an output token costs at the pace each user receives tokens.

Interactivity is tokens per second per user = 1000 / TPOT (ms): a bigger batch gives an instance
more tokens per second (cheaper tokens) but gives each user fewer. Per configuration and price
quote, the operating points (a concurrency sweep, or a benchmark's server and interactive runs)
trace cost against interactivity. The frontier keeps the points no other point beats on both
(as fast for a user and cheaper); along it the cost only rises with interactivity.

"Cost at a target interactivity" is read off that frontier: linear between the two frontier
points around the target (linear pieces between points whose cost rises keep the curve
monotone), at the cheapest measured point that is at least as fast when the target lies below
the frontier's slowest point, and never beyond the measured range: a target slower or faster
than every measured point has no cost, and says why.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from tokendesk.metrics import latency_with_basis

#: What makes points one curve: the same hardware slice running the same model the same way on
#: the same workload (input/output lengths change both axes, so workloads never share a curve).
#: Runtime versions and submitters may differ: the points are the configuration's measurements.
CURVE_FIELDS = (
    "accelerator_id",
    "accelerators_per_replica",
    "runtime",
    "model",
    "precision",
    "workload",
)
#: What makes a curve's price: one quote (provider, region, instance, pricing model).
PRICE_FIELDS = (
    "provider",
    "region",
    "zone",
    "instance_type",
    "pricing_model",
    "price_basis",
    "price_id",
)

#: Milliseconds per second: tok/s/user = MS_PER_S / TPOT ms.
MS_PER_S = 1000.0


def tok_s_per_user(tpot_ms: object) -> np.ndarray:
    """1000 / TPOT (ms) over an array; NaN where TPOT is missing or not positive."""
    tpot = np.asarray(tpot_ms, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(tpot > 0, MS_PER_S / tpot, np.nan)


def frontier_indices(interactivity: np.ndarray, cost: np.ndarray) -> np.ndarray:
    """Positions of the points no other point beats (at least as fast for a user and cheaper, or
    as cheap and faster), ordered by interactivity ascending. Along them cost strictly rises."""
    x = np.asarray(interactivity, dtype=float)
    y = np.asarray(cost, dtype=float)
    valid = np.flatnonzero(np.isfinite(x) & np.isfinite(y))
    # Fastest first; among equally fast points the cheapest first.
    order = valid[np.lexsort((y[valid], -x[valid]))]
    kept: list[int] = []
    cheapest = np.inf
    for i in order.tolist():
        if y[i] < cheapest:
            kept.append(i)
            cheapest = y[i]
    return np.array(kept[::-1], dtype=np.int64)


@dataclass(frozen=True)
class CostAtTarget:
    """A curve's cost at a target interactivity, or None with the reason it has none."""

    cost: float | None
    how: str

    @property
    def known(self) -> bool:
        return self.cost is not None


def cost_at_target(interactivity: np.ndarray, cost: np.ndarray, target: float) -> CostAtTarget:
    """The cost of one curve at ``target`` tok/s/user, never extrapolated (see the module)."""
    x = np.asarray(interactivity, dtype=float)
    y = np.asarray(cost, dtype=float)
    front = frontier_indices(x, y)
    if front.size == 0:
        return CostAtTarget(None, "no priced point with a time per output token")
    measured = x[np.isfinite(x) & np.isfinite(y)]
    slowest, fastest = float(measured.min()), float(measured.max())
    fx, fy = x[front], y[front]
    if target > fastest:
        return CostAtTarget(
            None,
            f"faster than every measured point (the fastest is {fastest:,.1f} tok/s/user); "
            "not extrapolated",
        )
    if target < slowest:
        return CostAtTarget(
            None,
            f"slower than every measured point (the slowest is {slowest:,.1f} tok/s/user); "
            "not extrapolated",
        )
    if target <= fx[0]:
        if target == fx[0]:
            return CostAtTarget(float(fy[0]), f"at a measured point ({fx[0]:,.1f} tok/s/user)")
        return CostAtTarget(
            float(fy[0]),
            f"at the measured point of {fx[0]:,.1f} tok/s/user: faster than the target and "
            "cheaper than every slower point",
        )
    upper = int(np.searchsorted(fx, target, side="left"))
    if fx[upper] == target:
        return CostAtTarget(float(fy[upper]), f"at a measured point ({fx[upper]:,.1f} tok/s/user)")
    lo_x, hi_x, lo_y, hi_y = fx[upper - 1], fx[upper], fy[upper - 1], fy[upper]
    share = (target - lo_x) / (hi_x - lo_x)
    return CostAtTarget(
        float(lo_y + share * (hi_y - lo_y)),
        f"interpolated between measured points at {lo_x:,.1f} and {hi_x:,.1f} tok/s/user",
    )


@dataclass(frozen=True)
class FrontierPoints:
    """Every priced point with a TPOT, on the interactivity axis, and what was left out."""

    points: pd.DataFrame
    #: Options (rows) left out because their result publishes no TPOT at the percentile or above.
    excluded: int


def frontier_points(options: pd.DataFrame, percentile: str, cost_column: str) -> FrontierPoints:
    """``options`` (the cost join) with ``tok_s_per_user`` (1000 / TPOT at ``percentile``, or at
    the next higher published one, ``tpot_basis`` says which), ``curve`` (configuration × quote)
    and ``on_frontier``; rows without a TPOT or a ``cost_column`` are counted, not kept."""
    tpot, basis = latency_with_basis(options, "tpot_ms", percentile)
    frame = options.assign(
        tpot_ms=tpot.to_numpy(),
        tpot_basis=basis.to_numpy(),
        tok_s_per_user=tok_s_per_user(tpot),
    )
    usable = frame["tok_s_per_user"].notna() & pd.to_numeric(frame[cost_column]).notna()
    kept = frame[usable].copy()
    keys = [*CURVE_FIELDS, *PRICE_FIELDS]
    kept["curve"] = kept.groupby(keys, sort=True, dropna=False).ngroup()
    kept["on_frontier"] = False
    for _, rows in kept.groupby("curve").indices.items():
        front = frontier_indices(
            kept["tok_s_per_user"].to_numpy()[rows], kept[cost_column].to_numpy(dtype=float)[rows]
        )
        kept.iloc[rows[front], kept.columns.get_loc("on_frontier")] = True
    kept = kept.sort_values(["curve", "tok_s_per_user"], kind="stable")
    return FrontierPoints(kept.reset_index(drop=True), int((~usable).sum()))


def costs_at_target(points: pd.DataFrame, target: float, cost_column: str) -> pd.DataFrame:
    """One row per curve of ``frontier_points``: its first row's descriptive columns, the measured
    range, the number of points, and ``cost_at_target`` with ``how`` (or the reason for none)."""
    rows = []
    for _, curve in points.groupby("curve", sort=True):
        x = curve["tok_s_per_user"].to_numpy(dtype=float)
        y = curve[cost_column].to_numpy(dtype=float)
        found = cost_at_target(x, y, target)
        first = curve.iloc[0].to_dict()
        rows.append(
            first
            | {
                "points": len(curve),
                "slowest_tok_s_per_user": float(np.nanmin(x)),
                "fastest_tok_s_per_user": float(np.nanmax(x)),
                "cost_at_target": found.cost if found.known else np.nan,
                "how": found.how,
            }
        )
    return pd.DataFrame(rows)
