"""Whole-unit plans from the optimizer's LP relaxation: every workload-hour's traffic on each
vendor carried by whole units (held units rounded down and up, the rest by the cheapest mix of
hourly units), checked against every row of the programme, then polished while that helps.
A rounded plan that passes is a plan of the exact programme; ``costmodel.optimizer`` weighs it
against the proven bound."""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Mapping, Sequence

import numpy as np
from scipy.optimize import Bounds

from costmodel.optimizer_problem import EPS, HELD, HOURLY, Candidate, Problem
from costmodel.optimizer_programme import Programme, relax


def served_by_vendor(p: Programme, x: np.ndarray) -> dict[str, float]:
    """Traffic each vendor carries over the day in plan x (in units of the largest load)."""
    served = {vendor: 0.0 for vendor in p.vendors}
    for (_, vendor, h), s in p.share_vars.items():
        served[vendor] += float(x[s]) * p.weight[h]
    return served


def _checked_rounding(
    p: Programme, x_lp: np.ndarray, pooled: frozenset[str] = frozenset()
) -> tuple[np.ndarray, bool]:
    """The whole-unit plan rounded from x_lp, and whether it passes every row and bound."""
    x = _round(
        x_lp,
        p.c_vec,
        p.cands,
        p.unit_vars,
        p.unit_ub,
        p.cap,
        p.share_vars,
        p.backend_var,
        p.H,
        pooled,
    )
    x[p.fixed_var] = 1.0
    return x, _satisfies(x, p.A, p.row_lo, p.row_hi, p.bounds, p.integ_vec)


def round_relaxation(
    problem: Problem, p: Programme, x_lp: np.ndarray, deadline: float
) -> tuple[np.ndarray | None, float]:
    """The cheapest whole-unit plan rounded from the relaxation: (plan or None, its cost).

    Every workload-hour's traffic on each vendor in the relaxation is carried by whole units:
    each held unit the relaxation holds in part is tried rounded down and up, and the rest is
    covered by the cheapest mix of whole hourly units (one more held unit where a vendor has no
    hourly option). The plan is kept only if it passes every row."""
    starts = [x_lp]
    if any(0 < x_lp[z] < 1 for z in p.backend_var.values()):
        again = relax(p, _backends_settled(p, x_lp), deadline)
        if again.status == 0:
            starts.append(again.x)
    best_x: np.ndarray | None = None
    best_obj = math.inf
    for start in starts:
        served = served_by_vendor(p, start)
        below = frozenset(
            vendor
            for vendor in p.vendors
            if served[vendor] < problem.max_vendor_share * p.total - 1e-6
        )
        for pooled in {frozenset(), below}:
            x, ok = _checked_rounding(p, start, pooled)
            if ok and p.c_vec @ x < best_obj:
                best_x, best_obj = x, float(p.c_vec @ x)
    return best_x, best_obj


def _backends_settled(p: Programme, x_lp: np.ndarray) -> Bounds:
    """Bounds with each backend the relaxation paid part of its one-time cost for either paid
    in full or dropped (by whether it paid more than half), so the relaxation can be solved
    again."""
    lb2, ub2 = np.array(p.lo), np.array(p.hi)
    for b, z in p.backend_var.items():
        lb2[z] = ub2[z] = 1.0 if x_lp[z] > 0.5 else 0.0
        if x_lp[z] <= 0.5:
            for i, c in enumerate(p.cands):
                if c.backend == b:
                    ub2[p.unit_vars[i]] = 0.0
    return Bounds(lb2, ub2)


def polish(
    p: Programme, best_x: np.ndarray | None, best_obj: float, deadline: float
) -> tuple[np.ndarray | None, float]:
    """While it helps: the relaxation once more with the plan's held units and backends fixed,
    so that the traffic split fits the whole held units; then the hourly units rounded again."""
    for _ in range(3):
        if best_x is None or time.perf_counter() > deadline:
            break
        polish = relax(p, _plan_fixed(p, best_x), deadline)
        if polish.status != 0:
            break
        x, ok = _checked_rounding(p, polish.x)
        if not (ok and p.c_vec @ x < best_obj):
            break
        best_x, best_obj = x, float(p.c_vec @ x)
    return best_x, best_obj


def _plan_fixed(p: Programme, plan: np.ndarray) -> Bounds:
    """Bounds with the plan's held units and backend choices fixed (no units on a backend it
    does not pay for)."""
    lb3, ub3 = np.array(p.lo), np.array(p.hi)
    fix = [u[0] for i, u in enumerate(p.unit_vars) if p.cands[i].kind == HELD]
    fix += list(p.backend_var.values())
    lb3[fix] = ub3[fix] = plan[fix]
    for i, c in enumerate(p.cands):
        z = p.backend_var.get(c.backend)
        if z is not None and plan[z] < 0.5:
            ub3[p.unit_vars[i]] = 0.0
    return Bounds(lb3, ub3)


def _round(
    x_lp: np.ndarray,
    price: np.ndarray,
    cands: Sequence[Candidate],
    unit_vars: Sequence[Sequence[int]],
    unit_ub: Sequence[Sequence[int]],
    cap: Sequence[float],
    share_vars: Mapping[tuple[str, str, int], int],
    backend_var: Mapping[str, int],
    hours: int,
    pooled: frozenset[str] = frozenset(),
) -> np.ndarray:
    """A whole-unit plan that carries the relaxation's traffic split (see ``solve``). Vendors in
    ``pooled`` (below the share cap) are rounded together per workload: their traffic may move
    between them, so one mix of whole units covers what they carry between them."""
    x = np.zeros_like(x_lp)
    groups: dict[tuple[str, str], list[int]] = {}
    for i, c in enumerate(cands):
        z = backend_var.get(c.backend)
        if c.vendor in pooled and z is not None and x_lp[z] <= EPS:
            continue  # pooling never brings in a backend the relaxation does not use
        if cap[i] > 0:
            groups.setdefault((c.workload, "" if c.vendor in pooled else c.vendor), []).append(i)
    for (w, v), members in groups.items():
        held = [i for i in members if cands[i].kind == HELD]
        hourly = [i for i in members if cands[i].kind == HOURLY]
        vendors = [v] if v else sorted(pooled)
        target = [
            sum(float(x_lp[share_vars[(w, u, h)]]) for u in vendors if (w, u, h) in share_vars)
            for h in range(hours)
        ]
        floor = {i: math.floor(x_lp[unit_vars[i][0]] + 1e-6) for i in held}
        fractional = [i for i in held if x_lp[unit_vars[i][0]] - floor[i] > 1e-6][:6]
        best: tuple[float, dict[int, int]] | None = None
        # Each held unit the relaxation holds in part is tried rounded down and up.
        for ups in itertools.product((0, 1), repeat=len(fractional)):
            counts = dict(floor)
            for i, up in zip(fractional, ups, strict=True):
                counts[i] = min(counts[i] + up, unit_ub[i][0])
            plan = {unit_vars[i][0]: k for i, k in counts.items()}
            held_cap = sum(cap[i] * k for i, k in counts.items())
            if not hourly:
                # No hourly option: more held units, enough for the vendor's busiest hour.
                short = max(target) - held_cap
                if short > EPS:
                    room = [
                        (cap[i], price[unit_vars[i][0]], unit_ub[i][0] - counts[i]) for i in held
                    ]
                    for i, k in zip(held, _cover(short, room), strict=True):
                        plan[unit_vars[i][0]] += k
            else:
                for h in range(hours):
                    short = target[h] - held_cap
                    if short > EPS:
                        items = [(cap[i], price[unit_vars[i][h]], unit_ub[i][h]) for i in hourly]
                        for i, k in zip(hourly, _cover(short, items), strict=True):
                            plan[unit_vars[i][h]] = k
            usd = sum(price[col] * k for col, k in plan.items())
            if best is None or usd < best[0]:
                best = (usd, plan)
        if best is not None:
            for col, k in best[1].items():
                x[col] = k
    for s in share_vars.values():
        x[s] = x_lp[s]
    # Pooled vendors' traffic: what the relaxation gave each as far as its whole units carry, the
    # rest to whichever has room.
    for w in {c.workload for c in cands}:
        for h in range(hours):
            keys = [(w, u, h) for u in sorted(pooled) if (w, u, h) in share_vars]
            if not keys:
                continue
            room_of: dict[tuple[str, str, int], float] = {}
            for key in keys:
                members = [i for i, c in enumerate(cands) if c.workload == w and c.vendor == key[1]]
                room_of[key] = sum(
                    cap[i] * x[unit_vars[i][0] if len(unit_vars[i]) == 1 else unit_vars[i][h]]
                    for i in members
                )
            rest = sum(float(x_lp[share_vars[k]]) for k in keys)
            for key in keys:
                x[share_vars[key]] = min(float(x_lp[share_vars[key]]), room_of[key])
                room_of[key] -= x[share_vars[key]]
                rest -= x[share_vars[key]]
            for key in keys:
                more = min(max(rest, 0.0), room_of[key])
                x[share_vars[key]] += more
                rest -= more
    for b, z in backend_var.items():
        used = any(
            cands[i].backend == b and any(x[v] > 0.5 for v in unit_vars[i])
            for i in range(len(cands))
        )
        x[z] = 1.0 if used else 0.0
    return x


def _cover(need: float, items: Sequence[tuple[float, float, float]]) -> list[int]:
    """Whole units of the items (capacity, price, most units) carrying at least ``need`` at the
    least price: the most cost-effective item fills in after every mix of up to a few units of
    the next best (a small exhaustive search; exact where the mixes it tries cover the optimum)."""
    order = sorted(range(len(items)), key=lambda j: items[j][1] / items[j][0])
    counts = [0] * len(items)
    if not order:
        return counts
    fill, others = order[0], order[1:4]
    ranges: list[np.ndarray] = []
    budget = 4096
    for j in others:
        top = int(min(items[j][2], math.ceil(need / items[j][0] - EPS), 12))
        top = max(0, min(top, budget // max(1, math.prod([len(r) for r in ranges])) - 1))
        ranges.append(np.arange(top + 1))
    grid = np.stack([g.ravel() for g in np.meshgrid(*ranges, indexing="ij")]) if ranges else None
    cap_f, price_f, most_f = items[fill]
    if grid is None:
        k = max(0, math.ceil(need / cap_f - EPS))
        counts[fill] = int(min(k, most_f))
        return counts
    caps = np.array([items[j][0] for j in others])
    prices = np.array([items[j][1] for j in others])
    carried = caps @ grid
    k_fill = np.maximum(0, np.ceil((need - carried) / cap_f - EPS))
    ok = k_fill <= most_f
    total = prices @ grid + k_fill * price_f
    total[~ok] = np.inf
    best = int(np.argmin(total))
    if not np.isfinite(total[best]):
        counts[fill] = int(most_f)
        for j in others:
            counts[j] = int(items[j][2])
        return counts
    for r, j in enumerate(others):
        counts[j] = int(grid[r, best])
    counts[fill] = int(k_fill[best])
    return counts


def _satisfies(x, A, row_lo, row_hi, bounds: Bounds, integ: np.ndarray, tol: float = 1e-7) -> bool:
    ax = A @ x
    if np.any(ax < row_lo - tol) or np.any(ax > row_hi + tol):
        return False
    if np.any(x < bounds.lb - tol) or np.any(x > bounds.ub + tol):
        return False
    return bool(np.all(np.abs(x[integ == 1] - np.round(x[integ == 1])) <= tol))
