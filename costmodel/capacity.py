"""Capacity at SLO: the highest throughput of a configuration whose FTL percentile meets the SLO.

Between measured points the curve is interpolated linearly on a monotone (running-maximum)
latency envelope, so a noisy dip in a sweep never makes a higher load look safe; nothing is read
beyond the last measured point. Offline points have no latency and cannot prove an SLO; they
still count for batch capacity, which needs no latency bound.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from costmodel.demand import Slo
from costmodel.option_table import Option, OptionTable
from tokendesk.metrics import PERCENTILES

#: Reason codes for an option that cannot carry interactive traffic.
OK, OFFLINE_ONLY, NO_POINT_MEETS, NO_TPOT, NO_PERCENTILE = 0, 1, 2, 3, 4


def effective_percentile(
    values: dict[str, np.ndarray], percentile: str
) -> tuple[np.ndarray, np.ndarray]:
    """The chosen percentile where published, else the next higher one as an upper bound.

    Returns (values, stand_in) where ``stand_in`` marks points whose figure is a higher
    percentile used as a conservative upper bound (e.g. p99 standing in for p95).
    """
    ladder = [
        q
        for q in PERCENTILES
        if q in values and PERCENTILES.index(q) >= PERCENTILES.index(percentile)
    ]
    out = (
        values[ladder[0]].copy()
        if ladder and ladder[0] == percentile
        else np.full_like(next(iter(values.values())), np.nan)
    )
    stand_in = np.zeros(out.shape, dtype=bool)
    for q in ladder:
        if q == percentile:
            continue
        fill = np.isnan(out) & ~np.isnan(values[q])
        out[fill] = values[q][fill]
        stand_in |= fill
    return out, stand_in


@dataclass(frozen=True)
class CapacityArrays:
    """Per-option capacity at one SLO (vectorised; NaN where infeasible)."""

    slo: Slo
    tok_s: np.ndarray  # unit output tok/s at SLO
    ftl_ms: np.ndarray  # FTL (envelope) at that load
    concurrency: np.ndarray
    interpolated: np.ndarray
    stand_in: np.ndarray  # a higher percentile stood in for the chosen one
    batch_tok_s: np.ndarray  # max unit tok/s over all points, offline included
    reason: np.ndarray  # OK / OFFLINE_ONLY / NO_POINT_MEETS / NO_TPOT
    best_ftl_ms: np.ndarray  # lowest FTL measured (for the reason sentence)
    best_ftl_concurrency: np.ndarray

    @property
    def feasible(self) -> np.ndarray:
        return self.reason == OK


def _group_running_max(values: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """Running maximum restarting at each group (groups sorted ascending, values finite)."""
    if values.size == 0:
        return values
    span = float(np.max(values) - np.min(values)) + 1.0
    shifted = values + groups * span
    return np.maximum.accumulate(shifted) - groups * span


def _segment_reduce(
    ufunc, values: np.ndarray, groups: np.ndarray, n: int, empty: float
) -> np.ndarray:
    """ufunc.reduceat over contiguous, sorted groups; ``empty`` for groups with no element."""
    out = np.full(n, empty, dtype=float)
    if values.size == 0:
        return out
    starts = np.flatnonzero(np.r_[True, groups[1:] != groups[:-1]])
    out[groups[starts]] = ufunc.reduceat(values, starts)
    return out


def capacity_arrays(table: OptionTable, slo: Slo) -> CapacityArrays:
    n = len(table)
    ftl_all, stand_all = effective_percentile(table.pt_ttft, slo.percentile)
    ftl_all = np.where(table.pt_offline, np.nan, ftl_all)
    has_latency = ~np.isnan(ftl_all)
    keep = has_latency
    if slo.tpot_ms is not None:
        tpot_all, tpot_stand = effective_percentile(table.pt_tpot, slo.percentile)
        keep = keep & ~np.isnan(tpot_all)
    idx = np.flatnonzero(keep)
    grp = table.pt_option[idx]
    tok = table.pt_tok_s[idx]
    conc = table.pt_concurrency[idx]
    env = _group_running_max(ftl_all[idx], grp)
    ok = env <= slo.ftl_ms
    if slo.tpot_ms is not None:
        env_tpot = _group_running_max(tpot_all[idx], grp)
        ok &= env_tpot <= slo.tpot_ms
    stand = stand_all[idx] | (tpot_stand[idx] if slo.tpot_ms is not None else False)

    # Best measured point that meets the SLO.
    tok_ok = np.where(ok, tok, -np.inf)
    best = _segment_reduce(np.maximum, tok_ok, grp, n, -np.inf)
    is_best = ok & (tok_ok == best[grp])
    first_best = _segment_reduce(
        np.minimum, np.where(is_best, np.arange(idx.size, dtype=float), np.inf), grp, n, np.inf
    )
    has_ok = np.isfinite(best)
    pick = first_best[has_ok].astype(np.int64)
    out_tok = np.full(n, np.nan)
    out_ftl = np.full(n, np.nan)
    out_conc = np.full(n, np.nan)
    out_interp = np.zeros(n, dtype=bool)
    out_stand = np.zeros(n, dtype=bool)
    out_tok[has_ok] = tok[pick]
    out_ftl[has_ok] = env[pick]
    out_conc[has_ok] = conc[pick]
    out_stand[has_ok] = stand[pick]

    # Interpolate on the segment where the envelope crosses the SLO (the last ok point -> next).
    if idx.size > 1:
        same = grp[1:] == grp[:-1]
        cross = np.flatnonzero(same & ok[:-1] & ~ok[1:])
        if cross.size:
            a, b = cross, cross + 1
            t = np.ones(cross.size)
            over = env[b] > slo.ftl_ms
            t = np.where(over, (slo.ftl_ms - env[a]) / np.maximum(env[b] - env[a], 1e-12), t)
            if slo.tpot_ms is not None:
                over_t = env_tpot[b] > slo.tpot_ms
                t_t = np.where(
                    over_t,
                    (slo.tpot_ms - env_tpot[a]) / np.maximum(env_tpot[b] - env_tpot[a], 1e-12),
                    1.0,
                )
                t = np.minimum(t, t_t)
            t = np.clip(t, 0.0, 1.0)
            tok_i = tok[a] + t * (tok[b] - tok[a])
            g = grp[a]
            better = tok_i > np.nan_to_num(out_tok[g], nan=-np.inf)
            g, a, b, t, tok_i = g[better], a[better], b[better], t[better], tok_i[better]
            out_tok[g] = tok_i
            out_ftl[g] = env[a] + t * (env[b] - env[a])
            out_conc[g] = conc[a] + t * (conc[b] - conc[a])
            out_interp[g] = True
            out_stand[g] = stand[a] | stand[b]

    # Reasons and the best FTL anywhere (for "best is 1,240 ms at concurrency 1").
    reason, best_ftl, best_conc = _reasons(table, slo, ftl_all, has_latency, grp, out_tok)

    batch = _segment_reduce(np.maximum, table.pt_tok_s, table.pt_option, n, np.nan)
    return CapacityArrays(
        slo=slo,
        tok_s=out_tok,
        ftl_ms=out_ftl,
        concurrency=out_conc,
        interpolated=out_interp,
        stand_in=out_stand,
        batch_tok_s=batch,
        reason=reason,
        best_ftl_ms=np.where(np.isfinite(best_ftl), best_ftl, np.nan),
        best_ftl_concurrency=best_conc,
    )


def _reasons(
    table: OptionTable,
    slo: Slo,
    ftl_all: np.ndarray,
    has_latency: np.ndarray,
    grp: np.ndarray,
    out_tok: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per option: why it has no capacity at the SLO (``OK`` where it has), the best FTL it
    reaches anywhere and the concurrency it reaches it at. ``grp`` is the option of each point
    kept for the SLO; ``out_tok`` the capacity found (NaN where none)."""
    n = len(table)
    reason = np.full(n, OK, dtype=np.int64)
    lat_idx = np.flatnonzero(has_latency)
    lat_grp = table.pt_option[lat_idx]
    best_ftl = _segment_reduce(np.minimum, ftl_all[lat_idx], lat_grp, n, np.inf)
    any_latency = np.isfinite(best_ftl)
    at_best = ftl_all[lat_idx] == best_ftl[lat_grp]
    first_at = _segment_reduce(
        np.minimum, np.where(at_best, lat_idx.astype(float), np.inf), lat_grp, n, np.inf
    )
    best_conc = np.full(n, np.nan)
    best_conc[any_latency] = table.pt_concurrency[first_at[any_latency].astype(np.int64)]
    any_ttft = np.zeros(table.n_points, dtype=bool)
    for values in table.pt_ttft.values():
        any_ttft |= ~np.isnan(values)
    has_some = np.zeros(n, dtype=bool)
    has_some[table.pt_option[any_ttft & ~table.pt_offline]] = True
    reason[~any_latency] = OFFLINE_ONLY
    reason[~any_latency & has_some] = NO_PERCENTILE
    if slo.tpot_ms is not None:
        has_tpot_pts = np.zeros(n, dtype=bool)
        has_tpot_pts[np.unique(grp)] = True
        reason[any_latency & ~has_tpot_pts] = NO_TPOT
    reason[(reason == OK) & np.isnan(out_tok)] = NO_POINT_MEETS
    return reason, best_ftl, best_conc


@dataclass(frozen=True)
class CapacityAtSlo:
    """Capacity of one option at one SLO, with the sentence that explains it."""

    option_id: str
    feasible: bool
    output_tok_s: float | None
    ftl_ms: float | None
    concurrency: float | None
    interpolated: bool
    conservative_bound: bool
    batch_output_tok_s: float | None
    explanation: str


def _fmt_conc(value: float) -> str:
    return "unknown concurrency" if np.isnan(value) else f"concurrency {value:g}"


def explain(arrays: CapacityArrays, i: int, option: Option | None = None) -> str:
    slo = arrays.slo
    code = int(arrays.reason[i])
    label = slo.percentile
    if code == OFFLINE_ONLY:
        return (
            f"only offline (no-latency) points were measured, so nothing proves {slo.describe()};"
            " usable for batch traffic only"
        )
    if code == NO_PERCENTILE:
        return (
            f"FTL was published only below {label}; a lower percentile cannot prove {slo.describe()}"
            " (only a higher one may stand in, as an upper bound)"
        )
    if code == NO_TPOT:
        return f"no point reports TPOT, so {slo.describe()} cannot be shown"
    if code == NO_POINT_MEETS:
        return (
            f"no point meets FTL {label} ≤ {slo.ftl_ms:,.0f} ms; best is {arrays.best_ftl_ms[i]:,.0f} ms"
            f" at {_fmt_conc(arrays.best_ftl_concurrency[i])}"
        )
    how = (
        "interpolated between measured points" if arrays.interpolated[i] else "at a measured point"
    )
    text = (
        f"{arrays.tok_s[i]:,.0f} output tok/s per unit at FTL {arrays.ftl_ms[i]:,.0f} ms"
        f" ({_fmt_conc(arrays.concurrency[i])}, {how})"
    )
    if arrays.stand_in[i]:
        text += (
            f"; the {label} was not published, so a higher percentile (p99) is used as a"
            f" conservative upper bound for {label}"
        )
    if option is not None and option.ttft_basis not in ("", "measured"):
        text += f"; FTL basis: {option.ttft_basis}"
    return text


def capacity_at_slo(option: Option, slo: Slo) -> CapacityAtSlo:
    """Scalar view for one option (the engine uses :func:`capacity_arrays` over all options)."""
    arrays = capacity_arrays(OptionTable((option,)), slo)
    feasible = bool(arrays.feasible[0])

    def val(a):
        return None if np.isnan(a[0]) else float(a[0])

    return CapacityAtSlo(
        option_id=option.option_id,
        feasible=feasible,
        output_tok_s=val(arrays.tok_s) if feasible else None,
        ftl_ms=val(arrays.ftl_ms) if feasible else None,
        concurrency=val(arrays.concurrency) if feasible else None,
        interpolated=bool(arrays.interpolated[0]),
        conservative_bound=bool(arrays.stand_in[0]),
        batch_output_tok_s=val(arrays.batch_tok_s),
        explanation=explain(arrays, 0, option),
    )
