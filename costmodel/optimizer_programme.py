"""The optimizer's programme as HiGHS sees it: variables and sparse rows built from a ``Problem``
(units, the fixed cost, one-time costs per backend, N+1 headroom, hourly capacity, traffic by
vendor, the vendor-share cap), hours of equal load merged where that is exact, and the two calls
that solve it (the LP relaxation and branch and bound). ``costmodel.optimizer`` drives them."""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, milp
from scipy.sparse import coo_array

from costmodel.demand import HOURS_PER_MONTH
from costmodel.optimizer_problem import EPS, HELD, HOURLY, Candidate, Problem, prune


class _Columns:
    """The programme as it is written: its variables (columns) and its sparse rows, each
    numbered in the order it is added."""

    def __init__(self) -> None:
        self.cost: list[float] = []
        self.lo: list[float] = []
        self.hi: list[float] = []
        self.integ: list[int] = []
        self.rows: list[int] = []
        self.cols: list[int] = []
        self.vals: list[float] = []
        self.rlo: list[float] = []
        self.rhi: list[float] = []

    def var(self, c_: float, lb: float, ub: float, integer: bool) -> int:
        """A new variable with its cost and bounds; its column index."""
        self.cost.append(c_)
        self.lo.append(lb)
        self.hi.append(ub)
        self.integ.append(1 if integer else 0)
        return len(self.cost) - 1

    def row(self, entries: Sequence[tuple[int, float]], lb: float, ub: float) -> None:
        """A new row lb ≤ Σ coefficient × variable ≤ ub."""
        r = len(self.rlo)
        for col, val in entries:
            self.rows.append(r)
            self.cols.append(col)
            self.vals.append(val)
        self.rlo.append(lb)
        self.rhi.append(ub)


@dataclass
class Programme:
    """The built programme and the index maps that read a solution of it back."""

    #: Whether the programme's optimum is the problem's (False: hours merged under a vendor cap,
    #: a restriction whose plans are real but whose branch-and-bound bound is not a bound).
    exact: bool
    cands: tuple[Candidate, ...]
    vendors: list[str]
    #: Weight of each hour class (how many hours of the day share its loads).
    weight: np.ndarray
    #: The class of each hour of the day.
    hour_class: list[int]
    #: Number of hour classes.
    H: int
    #: Total load over the day, in units of the largest hourly load.
    total: float
    #: Unit capacity of each candidate, in units of the largest hourly load.
    cap: list[float]
    unit_vars: list[list[int]]
    unit_ub: list[list[int]]
    fixed_var: int
    backend_var: dict[str, int]
    share_vars: dict[tuple[str, str, int], int]
    lo: list[float]
    hi: list[float]
    c_vec: np.ndarray
    integ_vec: np.ndarray
    bounds: Bounds
    A: Any
    row_lo: np.ndarray
    row_hi: np.ndarray
    constraints: list[LinearConstraint]

    @property
    def n(self) -> int:
        return len(self.c_vec)


def build_programme(problem: Problem, dominance: bool, merge: bool) -> Programme:
    """The programme's variables and rows, always added in the same order: units, the fixed
    cost, one-time costs per backend, N+1 headroom, hourly capacity, traffic by vendor, the
    vendor-share cap. ``merge``: hours of equal load share their variables (see
    ``_hour_classes``; the programme says whether that is exact)."""
    cands = prune(problem.candidates, problem.n_plus_one) if dominance else problem.candidates
    cands = tuple(c for c in cands if c.workload in problem.loads)
    workloads = list(problem.loads)
    exact = not merge or _merging_is_exact(problem, cands)
    classes, weight, hour_class = _hour_classes(problem, workloads, merge)
    H = len(classes)
    # Loads and capacities in units of the largest hourly load, so that the rows the solver sees are
    # of order one (tok/s in the hundred thousands next to unit counts slows it down).
    scale = max((max(v) for v in problem.loads.values()), default=1.0) or 1.0
    loads = {
        w: np.array([k[j] for k in classes], dtype=float) / scale for j, w in enumerate(workloads)
    }
    total = problem.total_load / scale
    cap = [c.unit_capacity / scale for c in cands]

    m = _Columns()
    unit_vars, unit_ub, constant = _add_units(m, problem, cands, loads, cap, weight, H)
    # The fixed part of the cost as a variable held at 1, so that the solver's gap is measured
    # against the whole monthly cost.
    fixed_var = m.var(constant, 1, 1, False)
    backend_var = _add_one_time_costs(m, problem, cands, unit_vars, unit_ub)
    headroom = _add_n_plus_one(m, problem, cands, workloads, unit_vars, unit_ub, cap)
    by_w = {w: [i for i, c in enumerate(cands) if c.workload == w] for w in workloads}
    _add_capacity_rows(m, workloads, by_w, loads, H, unit_vars, cap, headroom)
    vendors = sorted({c.vendor for c in cands})
    share_vars = _add_vendor_traffic(
        m, cands, workloads, vendors, by_w, loads, H, unit_vars, cap, backend_var
    )
    if problem.max_vendor_share < 1.0 - EPS:
        for vendor in vendors:
            entries = [(s, weight[h]) for (_, vv, h), s in share_vars.items() if vv == vendor]
            m.row(entries, -np.inf, problem.max_vendor_share * total)
    if not merge:
        _order_equal_hours(m, cands, classes, unit_vars)

    n = len(m.cost)
    A = coo_array((m.vals, (m.rows, m.cols)), shape=(len(m.rlo), n)).tocsr()
    row_lo, row_hi = np.array(m.rlo), np.array(m.rhi)
    return Programme(
        exact=exact,
        cands=cands,
        vendors=vendors,
        weight=weight,
        hour_class=hour_class,
        H=H,
        total=total,
        cap=cap,
        unit_vars=unit_vars,
        unit_ub=unit_ub,
        fixed_var=fixed_var,
        backend_var=backend_var,
        share_vars=share_vars,
        lo=m.lo,
        hi=m.hi,
        c_vec=np.array(m.cost),
        integ_vec=np.array(m.integ),
        bounds=Bounds(np.array(m.lo), np.array(m.hi)),
        A=A,
        row_lo=row_lo,
        row_hi=row_hi,
        constraints=[LinearConstraint(A, row_lo, row_hi)] if m.rlo else [],
    )


def _merging_is_exact(problem: Problem, cands: Sequence[Candidate]) -> bool:
    """Whether hours of equal load may share their variables without changing the optimum.

    Without a binding vendor-share cap the hours are coupled only through choices every hour
    shares (held units, backends paid for, the N+1 headroom); once those are fixed each hour is
    its own problem and equal hours have the same cheapest answer. A vendor-share cap sums
    traffic over the day, and two hours of equal load may then need different unit counts (one
    hour leaning on one vendor, the other on the other)."""
    vendors = {c.vendor for c in cands if c.unit_capacity > 0}
    return problem.max_vendor_share >= 1.0 - EPS or len(vendors) < 2


def _hour_classes(
    problem: Problem, workloads: list[str], merge: bool
) -> tuple[list[tuple[float, ...]], np.ndarray, list[int]]:
    """(the load vector of each hour class, the classes' weights, the class of each hour).

    With ``merge``, hours with the same load in every workload are one class with a weight (a
    day symmetric around its peak has 13 distinct hours, not 24); without, every hour is its own.
    """
    keys = [
        tuple(round(float(problem.loads[w][h]), 9) for w in workloads) for h in range(problem.hours)
    ]
    if not merge:
        return keys, np.ones(len(keys)), list(range(len(keys)))
    counts: dict[tuple[float, ...], int] = {}
    for key in keys:
        counts[key] = counts.get(key, 0) + 1
    order = {key: j for j, key in enumerate(counts)}
    return list(counts), np.array(list(counts.values()), dtype=float), [order[k] for k in keys]


def _order_equal_hours(
    m: _Columns,
    cands: Sequence[Candidate],
    classes: Sequence[tuple[float, ...]],
    unit_vars: Sequence[Sequence[int]],
) -> None:
    """Hours of equal load are interchangeable: any plan can be reordered so that their on-demand
    bills rise hour by hour, at the same cost. Asking for that order removes the copies of every
    plan that differ only in which of those hours is which, which branch and bound would
    otherwise explore one by one. Exact: every plan keeps a reordered twin that meets it."""
    hourly = [i for i, c in enumerate(cands) if c.kind == HOURLY]
    if not hourly:
        return
    seen: dict[tuple[float, ...], int] = {}
    for h, key in enumerate(classes):
        before = seen.get(key)
        seen[key] = h
        if before is None:
            continue
        # bill(before) − bill(h) ≤ 0, with each candidate's price per unit-hour
        entries = [(unit_vars[i][before], cands[i].usd_per_unit) for i in hourly]
        entries += [(unit_vars[i][h], -cands[i].usd_per_unit) for i in hourly]
        m.row(entries, -np.inf, 0.0)


def _add_units(
    m: _Columns,
    problem: Problem,
    cands: Sequence[Candidate],
    loads: Mapping[str, np.ndarray],
    cap: Sequence[float],
    weight: np.ndarray,
    H: int,
) -> tuple[list[list[int]], list[list[int]], float]:
    """(unit variables per candidate, their upper bounds, the fixed monthly cost of fleet lines).

    Held candidates get one unit variable, hourly ones one per hour. A unit count never needs
    to pass what the candidate alone would carry (the peak for held units, the hour's load for
    hourly ones; one more with N+1): beyond that a unit can be dropped with every hour still
    carried, the vendor's traffic unchanged and the headroom no larger."""
    constant = 0.0
    extra = 1 if problem.n_plus_one else 0
    unit_vars: list[list[int]] = []
    unit_ub: list[list[int]] = []
    for i, c in enumerate(cands):
        levels = [float(loads[c.workload].max())] if c.kind == HELD else loads[c.workload]
        if c.unit_capacity > 0:
            need = [math.ceil(lv / cap[i] - EPS) + extra for lv in levels]
        else:
            need = [0 for _ in levels]
        if c.max_units is not None:
            need = [min(n, c.max_units) for n in need]
        unit_ub.append(need)
        if c.kind == HELD:
            per = c.usd_per_unit
            if c.role == "fleet":
                # kept × rate + (count − kept) × release = count × release + kept × (rate − release)
                constant += (c.max_units or 0) * c.release_usd_per_unit_month
                per = c.usd_per_unit - c.release_usd_per_unit_month
            unit_vars.append([m.var(per, 0, need[0], True)])
        else:
            per_hour = c.usd_per_unit * HOURS_PER_MONTH / problem.hours
            unit_vars.append([m.var(per_hour * weight[h], 0, need[h], True) for h in range(H)])
    return unit_vars, unit_ub, constant


def _unit_at(unit_vars: Sequence[Sequence[int]], i: int, h: int) -> int:
    """Candidate i's unit variable in hour class h (a held candidate has one for every hour)."""
    v = unit_vars[i]
    return v[0] if len(v) == 1 else v[h]


def _add_one_time_costs(
    m: _Columns,
    problem: Problem,
    cands: Sequence[Candidate],
    unit_vars: Sequence[Sequence[int]],
    unit_ub: Sequence[Sequence[int]],
) -> dict[str, int]:
    """One-time cost per new backend: a binary that every unit of that backend needs."""
    backend_var: dict[str, int] = {}
    for b, usd in problem.one_time_usd_by_backend.items():
        if any(c.backend == b for c in cands):
            backend_var[b] = m.var(usd / problem.horizon_months, 0, 1, True)
    for i, c in enumerate(cands):
        z = backend_var.get(c.backend)
        if z is not None:
            for v, ub in zip(unit_vars[i], unit_ub[i], strict=True):
                if ub > 0:
                    m.row([(v, 1.0), (z, -float(ub))], -np.inf, 0.0)
    return backend_var


def _add_n_plus_one(
    m: _Columns,
    problem: Problem,
    cands: Sequence[Candidate],
    workloads: Sequence[str],
    unit_vars: Sequence[Sequence[int]],
    unit_ub: Sequence[Sequence[int]],
    cap: Sequence[float],
) -> dict[str, int]:
    """N+1: a headroom variable M_w ≥ the largest unit in use, per workload (none without N+1)."""
    headroom: dict[str, int] = {}
    if not problem.n_plus_one:
        return headroom
    for w in workloads:
        headroom[w] = m.var(0.0, 0, np.inf, False)
    for i, c in enumerate(cands):
        if c.unit_capacity <= 0 or max(unit_ub[i]) == 0:
            continue
        u = m.var(0.0, 0, 1, True)
        for v, ub in zip(unit_vars[i], unit_ub[i], strict=True):
            if ub > 0:
                m.row([(v, 1.0), (u, -float(ub))], -np.inf, 0.0)
        m.row([(headroom[c.workload], 1.0), (u, -cap[i])], 0.0, np.inf)
    return headroom


def _add_capacity_rows(
    m: _Columns,
    workloads: Sequence[str],
    by_w: Mapping[str, list[int]],
    loads: Mapping[str, np.ndarray],
    H: int,
    unit_vars: Sequence[Sequence[int]],
    cap: Sequence[float],
    headroom: Mapping[str, int],
) -> None:
    """Every workload-hour carries its load (plus the headroom M_w with N+1)."""
    for w in workloads:
        for h in range(H):
            entries = [(_unit_at(unit_vars, i, h), cap[i]) for i in by_w[w]]
            if w in headroom:
                entries.append((headroom[w], -1.0))
            m.row(entries, float(loads[w][h]), np.inf)


def _add_vendor_traffic(
    m: _Columns,
    cands: Sequence[Candidate],
    workloads: Sequence[str],
    vendors: Sequence[str],
    by_w: Mapping[str, list[int]],
    loads: Mapping[str, np.ndarray],
    H: int,
    unit_vars: Sequence[Sequence[int]],
    cap: Sequence[float],
    backend_var: Mapping[str, int],
) -> dict[tuple[str, str, int], int]:
    """Traffic by vendor: s[w, v, h] ≤ the vendor's capacity and Σ_v s = load; the share
    variables by (workload, vendor, hour class)."""
    share_vars: dict[tuple[str, str, int], int] = {}
    for w in workloads:
        for vendor in vendors:
            members = [i for i in by_w[w] if cands[i].vendor == vendor]
            if not members:
                continue
            for h in range(H):
                s = m.var(0.0, 0, float(loads[w][h]), False)
                share_vars[(w, vendor, h)] = s
                # Traffic on a backend not yet run needs its one-time cost paid (a tighter form of
                # the unit links above, which the relaxation would otherwise pay a sliver of).
                paid = [backend_var.get(cands[i].backend) for i in members]
                zs = {z for z in paid if z is not None}
                if len(zs) == len(set(paid)):  # every member's backend carries a one-time cost
                    m.row([(s, 1.0)] + [(z, -float(loads[w][h])) for z in zs], -np.inf, 0.0)
                m.row(
                    [(s, 1.0)] + [(_unit_at(unit_vars, i, h), -cap[i]) for i in members],
                    -np.inf,
                    0.0,
                )
        for h in range(H):
            entries = [
                (share_vars[(w, vendor, h)], 1.0)
                for vendor in vendors
                if (w, vendor, h) in share_vars
            ]
            m.row(entries, float(loads[w][h]), float(loads[w][h]))
    return share_vars


def relax(p: Programme, bounds: Bounds, deadline: float) -> Any:
    """The LP relaxation within ``bounds``, in the time left."""
    return milp(
        p.c_vec,
        integrality=np.zeros(p.n),
        bounds=bounds,
        constraints=p.constraints,
        options={"time_limit": max(deadline - time.perf_counter(), 0.05), "disp": False},
    )


def branch_and_bound(p: Programme, mip_rel_gap: float, deadline: float) -> Any:
    return milp(
        p.c_vec,
        integrality=p.integ_vec,
        bounds=p.bounds,
        constraints=p.constraints,
        options={
            "mip_rel_gap": mip_rel_gap,
            "time_limit": max(deadline - time.perf_counter(), 0.05),
            "disp": False,
        },
    )
