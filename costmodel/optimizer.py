"""The fleet optimizer: the cheapest fleet that carries the workspace's demand at its SLOs.

A mixed-integer programme solved with HiGHS (``scipy.optimize.milp``). It chooses, per workload,
how many units of each option (SKU × region × pricing model) to hold, and how many of the existing
fleet's lines to keep, so that every hour of the average day is carried:

* **capacity**: for every workload and hour, Σ units × unit capacity ≥ the hour's output tok/s. A
  unit's capacity is the one the scenario engine uses (the benchmark's tok/s at the workload's
  SLO × utilisation cap × availability), and the load is the engine's ``hourly_load``.
* **pricing**: committed and contract capacity is held all month (rate × 730 h); on-demand units
  follow the hourly curve (rate × 730 / 24 per unit per hour of the day), like the engine's
  autoscaled burst.
* **the fleet**: each line may be kept whole or in part. A released on-demand unit stops being
  paid; a released committed unit whose term covers month 1 is still paid (or ended early for its
  termination fee spread over the horizon, whichever is cheaper) — so committed capacity is free to
  use.
* **one-time costs**: a backend the fleet does not run yet costs its one-time migration figure,
  spread over ``horizon_months`` (a fixed charge, binary per backend).
* **constraints**: approved providers and regions (options outside are never candidates), a
  vendor-share cap on traffic (tokens served by each vendor ÷ all tokens), optionally N+1 (every
  hour still carried after losing the largest unit in use).

``objective_usd_per_month`` = month-1 run rate (what is held, plus committed units paid whether
used or not) + one-time costs ÷ horizon. ``PlanResult.compared_usd_per_month`` prices a built-in
scenario the same way, so the optimum can be checked against every scenario the engine builds.

Options that whole units of one other option of the same workload and backend replace at no more
cost are dropped before solving (see ``prune``); this never changes the optimum and keeps the
programme small. Hours of equal load share their variables only where that is exact (no binding
vendor-share cap; see ``_merging_is_exact``). ``solve`` first solves the LP relaxation (a proven
lower bound), rounds it to a whole-unit plan that is checked against every row, and runs branch and
bound on the exact programme only while that plan is not proven within the gap asked; every
solution carries the proven bound and its true gap, and is called optimal only once the gap is
closed.
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import date
from typing import Any

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, milp
from scipy.sparse import coo_array

from costmodel.demand import HOURS_PER_MONTH
from costmodel.options import BLOCK_OR_CONTRACT, OWNED
from costmodel.owned import (
    OWNED_PROVIDER,
    CloudAlternative,
    ElectricityPrice,
    OwnedRate,
    OwnedServer,
    cloud_alternatives,
    electricity_input,
    owned_options,
    owned_rates,
)
from costmodel.plan import (
    MONTHS,
    PAID_WHETHER_USED,
    VENDOR_OF_BACKEND,
    PlanLine,
    WorkspaceEngine,
    hourly_load,
)
from costmodel.scenarios import Engine
from costmodel.workspace import Workspace

#: A plan is called optimal when it costs at most this much more a month than the proven bound.
PROVEN_USD = 0.01
HELD = "held"  # paid every hour of the month (committed, contract, a kept fleet line)
HOURLY = "hourly"  # on-demand, paid for the hours of the day it is up
_EPS = 1e-9


@dataclass(frozen=True)
class Candidate:
    """One way to buy capacity for one workload."""

    workload: str
    kind: str  # held | hourly
    role: str  # fleet | new
    provider: str
    region: str
    instance_type: str
    pricing_model: str
    backend: str
    #: Peak output tok/s one unit carries at the SLO (after utilisation cap and availability).
    unit_capacity: float
    #: held: $ per unit per month; hourly: $ per unit-hour.
    usd_per_unit: float
    #: A fleet line: how many units it has (the most that can be kept).
    max_units: int | None = None
    #: A fleet line: $ per month a released unit still costs (committed, in term at month 1).
    release_usd_per_unit_month: float = 0.0
    accelerator_id: str = ""
    option_id: str = ""
    fleet_index: int | None = None
    #: Accelerators one unit stands for where the price is per accelerator (reported counts).
    count_per_unit: int = 1
    commitment_end: date | None = None
    note: str = ""

    @property
    def vendor(self) -> str:
        return VENDOR_OF_BACKEND.get(self.backend, self.backend)

    @property
    def usd_per_unit_month(self) -> float:
        return self.usd_per_unit if self.kind == HELD else self.usd_per_unit * HOURS_PER_MONTH


@dataclass(frozen=True)
class Problem:
    """Everything the solver needs; pure data, so small cases can be checked by brute force."""

    #: Output tok/s to carry per workload, one value per hour of the average day.
    loads: Mapping[str, tuple[float, ...]]
    candidates: tuple[Candidate, ...]
    max_vendor_share: float = 1.0
    n_plus_one: bool = False
    #: Backends not yet in production and their one-time cost.
    one_time_usd_by_backend: Mapping[str, float] = field(default_factory=dict)
    horizon_months: int = MONTHS

    @property
    def hours(self) -> int:
        return len(next(iter(self.loads.values())))

    @property
    def total_load(self) -> float:
        return float(sum(sum(v) for v in self.loads.values()))


@dataclass(frozen=True)
class Choice:
    candidate: Candidate
    #: held: units; hourly: units in each hour.
    units: tuple[int, ...]

    @property
    def peak_units(self) -> int:
        return max(self.units) if self.units else 0

    @property
    def monthly_usd(self) -> float:
        c = self.candidate
        if c.kind == HELD:
            return self.units[0] * c.usd_per_unit
        return sum(self.units) * c.usd_per_unit * HOURS_PER_MONTH / len(self.units)


@dataclass(frozen=True)
class Solution:
    #: optimal (proven: costs at most PROVEN_USD more than the bound) | feasible (a plan, with its
    #: proven gap) | infeasible | error
    status: str
    objective_usd_per_month: float | None
    gap: float | None
    choices: tuple[Choice, ...]
    vendor_shares: Mapping[str, float]
    one_time_usd: float
    released_paid_usd_per_month: float
    message: str = ""
    #: The solver's proven lower bound on the objective (HiGHS's dual bound): no plan costs less.
    bound_usd_per_month: float | None = None
    #: Hours in the day the plan's hourly counts cover.
    hours: int = 24

    @property
    def feasible(self) -> bool:
        return self.status in ("optimal", "feasible")

    @property
    def hhi(self) -> float:
        return float(sum(s * s for s in self.vendor_shares.values()))

    @property
    def run_rate_usd_per_month(self) -> float:
        return sum(c.monthly_usd for c in self.choices) + self.released_paid_usd_per_month


# ---- dominance ---------------------------------------------------------------------------------
def prune(candidates: Sequence[Candidate], n_plus_one: bool = False) -> tuple[Candidate, ...]:
    """Drop market options that whole units of one other option of the same workload and backend
    replace at no more cost: ``k = ceil(capacity / other's capacity)`` units of the other carry at
    least as much and ``k ×`` its monthly price is no dearer. Swapping them in keeps every hour
    carried, the vendor's traffic and the backends used unchanged, so the optimum stays the same. An
    on-demand unit can replace a held one (kept up all month it costs rate × 730 h), never the
    reverse (a held unit is paid in the hours nobody needs it). With N+1 only units no larger than
    the replaced one count, since a larger unit raises the headroom needed. Fleet lines are always
    kept."""
    out = [c for c in candidates if c.role == "fleet"]
    groups: dict[tuple[str, str], list[Candidate]] = {}
    for c in candidates:
        if c.role != "fleet" and c.unit_capacity > 0:
            groups.setdefault((c.workload, c.backend), []).append(c)
    for group in groups.values():
        kept: list[Candidate] = []
        # A replacement never costs more per unit than what it replaces, so cheapest first means
        # every possible replacement is already decided when a candidate comes up.
        order = sorted(
            range(len(group)),
            key=lambda j: (
                group[j].usd_per_unit_month,
                group[j].kind != HOURLY,
                -group[j].unit_capacity,
                j,
            ),
        )
        kept_at: list[int] = []
        for j in order:
            c = group[j]
            if not any(_replaces(d, c, n_plus_one) for d in kept):
                kept.append(c)
                kept_at.append(j)
        out.extend(group[j] for j in sorted(kept_at))
    return tuple(out)


def _replaces(d: Candidate, c: Candidate, n_plus_one: bool) -> bool:
    if c.kind == HOURLY and d.kind != HOURLY:
        return False
    if n_plus_one and d.unit_capacity > c.unit_capacity + _EPS:
        return False
    k = math.ceil(c.unit_capacity / d.unit_capacity - _EPS)
    return k * d.usd_per_unit_month <= c.usd_per_unit_month + _EPS


# ---- the programme -----------------------------------------------------------------------------
def solve(
    problem: Problem,
    *,
    mip_rel_gap: float = 1e-3,
    time_limit_s: float = 60.0,
    dominance: bool = True,
) -> Solution:
    """Solve the programme (see the module docstring). The solver stops once its plan is proven
    within ``mip_rel_gap`` of the cheapest possible (0.1% by default; 0 proves optimality) or at
    ``time_limit_s``; the solution carries the proven bound and the true gap either way, and is
    called optimal only when the gap is closed (see ``PROVEN_USD``)."""
    deadline = time.perf_counter() + time_limit_s
    # Hours of equal load merged into one class: a smaller programme, exact unless a vendor-share
    # cap couples the hours (see _hour_classes). Its relaxation equals the exact programme's (a
    # relaxed solution averaged over hours of equal load is one, at the same cost), so its bound
    # holds either way, and its whole-unit plans are plans of the exact programme too.
    merged = _build(problem, dominance, merge=True)
    exact = merged if merged.exact else _build(problem, dominance, merge=False)

    # 1. The relaxation: its optimum is a proven lower bound, and its traffic split is the plan
    #    the rounding below follows.
    lp = _relax(merged, merged.bounds, deadline)
    if lp.status == 2:
        return Solution("infeasible", None, None, (), {}, 0.0, 0.0, lp.message)
    bound = float(lp.fun) if lp.status == 0 else -math.inf

    # 2. Rounding (see _round_relaxation), then polishing the rounded plan.
    best_x: np.ndarray | None = None
    best_p = merged
    best_obj = math.inf
    if lp.status == 0 and not problem.n_plus_one:
        best_x, best_obj = _round_relaxation(problem, merged, lp.x, deadline)
        best_x, best_obj = _polish(merged, best_x, best_obj, deadline)

    # 3. Branch and bound on the exact programme, unless the rounded plan is already proven close
    #    enough. Its dual bound is a bound only because the programme is exact.
    message = "rounded from the LP relaxation, within the gap asked of its bound"
    # (Skipped when less than half a second is left and a plan is in hand: branch and bound on a
    # large programme does not finish its first node in that time.)
    left = deadline - time.perf_counter()
    if best_x is None or (best_obj - bound > mip_rel_gap * abs(best_obj) and left > 0.5):
        res = _branch_and_bound(exact, mip_rel_gap, deadline)
        message = res.message
        if res.status == 2:
            return Solution("infeasible", None, None, (), {}, 0.0, 0.0, res.message)
        mip_bound = getattr(res, "mip_dual_bound", None)
        if mip_bound is not None and math.isfinite(mip_bound):
            bound = max(bound, float(mip_bound))
        if res.x is not None and float(res.fun) < best_obj:
            best_x, best_obj, best_p = np.asarray(res.x), float(res.fun), exact
    if best_x is None:
        return Solution("error", None, None, (), {}, 0.0, 0.0, message)
    return _solution(problem, best_p, best_x, best_obj, bound, message)


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
class _Programme:
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


def _build(problem: Problem, dominance: bool, merge: bool) -> _Programme:
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
    if problem.max_vendor_share < 1.0 - _EPS:
        for vendor in vendors:
            entries = [(s, weight[h]) for (_, vv, h), s in share_vars.items() if vv == vendor]
            m.row(entries, -np.inf, problem.max_vendor_share * total)
    if not merge:
        _order_equal_hours(m, cands, classes, unit_vars)

    n = len(m.cost)
    A = coo_array((m.vals, (m.rows, m.cols)), shape=(len(m.rlo), n)).tocsr()
    row_lo, row_hi = np.array(m.rlo), np.array(m.rhi)
    return _Programme(
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
    return problem.max_vendor_share >= 1.0 - _EPS or len(vendors) < 2


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
            need = [math.ceil(lv / cap[i] - _EPS) + extra for lv in levels]
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


def _relax(p: _Programme, bounds: Bounds, deadline: float) -> Any:
    """The LP relaxation within ``bounds``, in the time left."""
    return milp(
        p.c_vec,
        integrality=np.zeros(p.n),
        bounds=bounds,
        constraints=p.constraints,
        options={"time_limit": max(deadline - time.perf_counter(), 0.05), "disp": False},
    )


def _branch_and_bound(p: _Programme, mip_rel_gap: float, deadline: float) -> Any:
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


def _served(p: _Programme, x: np.ndarray) -> dict[str, float]:
    """Traffic each vendor carries over the day in plan x (in units of the largest load)."""
    served = {vendor: 0.0 for vendor in p.vendors}
    for (_, vendor, h), s in p.share_vars.items():
        served[vendor] += float(x[s]) * p.weight[h]
    return served


def _checked_rounding(
    p: _Programme, x_lp: np.ndarray, pooled: frozenset[str] = frozenset()
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


def _round_relaxation(
    problem: Problem, p: _Programme, x_lp: np.ndarray, deadline: float
) -> tuple[np.ndarray | None, float]:
    """The cheapest whole-unit plan rounded from the relaxation: (plan or None, its cost).

    Every workload-hour's traffic on each vendor in the relaxation is carried by whole units:
    each held unit the relaxation holds in part is tried rounded down and up, and the rest is
    covered by the cheapest mix of whole hourly units (one more held unit where a vendor has no
    hourly option). The plan is kept only if it passes every row."""
    starts = [x_lp]
    if any(0 < x_lp[z] < 1 for z in p.backend_var.values()):
        again = _relax(p, _backends_settled(p, x_lp), deadline)
        if again.status == 0:
            starts.append(again.x)
    best_x: np.ndarray | None = None
    best_obj = math.inf
    for start in starts:
        served = _served(p, start)
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


def _backends_settled(p: _Programme, x_lp: np.ndarray) -> Bounds:
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


def _polish(
    p: _Programme, best_x: np.ndarray | None, best_obj: float, deadline: float
) -> tuple[np.ndarray | None, float]:
    """While it helps: the relaxation once more with the plan's held units and backends fixed,
    so that the traffic split fits the whole held units; then the hourly units rounded again."""
    for _ in range(3):
        if best_x is None or time.perf_counter() > deadline:
            break
        polish = _relax(p, _plan_fixed(p, best_x), deadline)
        if polish.status != 0:
            break
        x, ok = _checked_rounding(p, polish.x)
        if not (ok and p.c_vec @ x < best_obj):
            break
        best_x, best_obj = x, float(p.c_vec @ x)
    return best_x, best_obj


def _plan_fixed(p: _Programme, plan: np.ndarray) -> Bounds:
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


def _solution(
    problem: Problem,
    p: _Programme,
    best_x: np.ndarray,
    best_obj: float,
    bound: float,
    message: str,
) -> Solution:
    """The plan read back: units per candidate per hour of the day, one-time costs, vendor
    shares, and the true gap to the proven bound."""
    x = np.round(best_x, 6)
    choices = []
    released_paid = 0.0
    for i, c in enumerate(p.cands):
        units = tuple(int(round(x[v])) for v in p.unit_vars[i])
        if c.kind == HOURLY:
            units = tuple(units[p.hour_class[h]] for h in range(problem.hours))
        if c.role == "fleet":
            released_paid += ((c.max_units or 0) - units[0]) * c.release_usd_per_unit_month
        if any(units) or c.role == "fleet":
            choices.append(Choice(c, units))
    one_time = sum(
        problem.one_time_usd_by_backend[b] for b, z in p.backend_var.items() if x[z] > 0.5
    )
    served = _served(p, best_x)
    total = p.total
    shares = {
        vendor: served[vendor] / total
        for vendor in p.vendors
        if total > 0 and served[vendor] > _EPS
    }
    bound = min(bound, best_obj)
    # The true gap, (cost − proven bound) ÷ cost, not the tolerance asked for.
    gap = (best_obj - bound) / abs(best_obj) if best_obj else 0.0
    # Optimal only when proven: the plan costs no more than the bound plus a cent (HiGHS's own
    # tolerances). A plan merely within the gap asked is feasible, with its gap.
    status = "optimal" if best_obj - bound <= PROVEN_USD else "feasible"
    return Solution(
        status,
        best_obj,
        gap,
        tuple(choices),
        shares,
        one_time,
        released_paid,
        message,
        bound,
        problem.hours,
    )


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
        if c.vendor in pooled and z is not None and x_lp[z] <= _EPS:
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
                if short > _EPS:
                    room = [
                        (cap[i], price[unit_vars[i][0]], unit_ub[i][0] - counts[i]) for i in held
                    ]
                    for i, k in zip(held, _cover(short, room), strict=True):
                        plan[unit_vars[i][0]] += k
            else:
                for h in range(hours):
                    short = target[h] - held_cap
                    if short > _EPS:
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
        top = int(min(items[j][2], math.ceil(need / items[j][0] - _EPS), 12))
        top = max(0, min(top, budget // max(1, math.prod([len(r) for r in ranges])) - 1))
        ranges.append(np.arange(top + 1))
    grid = np.stack([g.ravel() for g in np.meshgrid(*ranges, indexing="ij")]) if ranges else None
    cap_f, price_f, most_f = items[fill]
    if grid is None:
        k = max(0, math.ceil(need / cap_f - _EPS))
        counts[fill] = int(min(k, most_f))
        return counts
    caps = np.array([items[j][0] for j in others])
    prices = np.array([items[j][1] for j in others])
    carried = caps @ grid
    k_fill = np.maximum(0, np.ceil((need - carried) / cap_f - _EPS))
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


def objective_of(problem: Problem, choices: Sequence[Choice], backends_used: set[str]) -> float:
    """The objective of a given plan (for brute force and for checking a solution by hand)."""
    run = sum(ch.monthly_usd for ch in choices)
    run += sum(
        ((ch.candidate.max_units or 0) - ch.units[0]) * ch.candidate.release_usd_per_unit_month
        for ch in choices
        if ch.candidate.role == "fleet"
    )
    one_time = sum(problem.one_time_usd_by_backend.get(b, 0.0) for b in backends_used)
    return run + one_time / problem.horizon_months


# ---- from a workspace --------------------------------------------------------------------------
def workspace_problem(
    planner: WorkspaceEngine,
    *,
    max_vendor_share: float | None = None,
    n_plus_one: bool = False,
    horizon_months: int = MONTHS,
) -> Problem:
    """Candidates for every workload from the planner's option table and fleet, with the same
    at-SLO capacities, approved providers / regions and one-time costs the scenarios use."""
    ws, engine, policy = planner.ws, planner.engine, planner.policy
    t = engine.table
    allowed = set(policy.commitments) | (
        set(BLOCK_OR_CONTRACT) if policy.allow_block_or_contract else set()
    )
    owned_ok = ws.constraints.allow_owned and ws.owned is not None
    if owned_ok:
        allowed.add(OWNED)
    labels = t.pricing_model.labels
    codes = t.pricing_model.codes
    cands: list[Candidate] = []
    loads: dict[str, tuple[float, ...]] = {}
    for w in ws.demand:
        loads[w.workload] = tuple(float(v) for v in hourly_load(w))
        seg = planner.segments[w.workload]
        alloc = planner._allocation("optimal", "Optimal", None)
        alloc = replace(alloc, backends=None)
        if owned_ok and ws.owned is not None:
            alloc = _with_owned_site(alloc, ws.owned.site_region)
        gm = engine.group_mask(seg, alloc, "interactive", policy)
        _, cap_i, _ = engine.segment_capacity(seg)
        ok_group = gm & np.isfinite(cap_i) & (cap_i > 0)
        best: dict[tuple[int, str], int] = {}
        for i in np.flatnonzero(ok_group[t.group]).tolist():
            model = labels[codes[i]]
            if model != "on_demand" and model not in allowed:
                continue
            key = (int(t.group[i]), model)
            j = best.get(key)
            if j is None or t.price[i] < t.price[j]:
                best[key] = i
        for (g, model), i in best.items():
            o = t.options[i]
            if o.backend == "cpu" and not w.small_model:
                continue  # a CPU fallback serves small models only (as in the scenarios)
            unit_cap = float(cap_i[g]) * policy.utilisation_cap * policy.availability
            per = o.accelerators_per_unit if o.price_basis == "per_accelerator" else 1
            rate = float(t.price[i])
            # One pricing basis with every plan: on-demand capacity follows the hourly load only
            # where the workspace says it does; otherwise it is held, and paid, all month.
            hourly = model == "on_demand" and planner.autoscaled
            cands.append(
                Candidate(
                    workload=w.workload,
                    kind=HOURLY if hourly else HELD,
                    role="new",
                    provider=o.provider,
                    region=o.region,
                    instance_type=o.instance_type,
                    pricing_model=model,
                    backend=o.backend,
                    unit_capacity=unit_cap,
                    usd_per_unit=rate if hourly else rate * HOURS_PER_MONTH,
                    accelerator_id=o.accelerator_id,
                    option_id=o.option_id,
                    count_per_unit=per,
                    note=f"{float(cap_i[g]):,.0f} output tok/s per unit at {seg.slo.describe()}"
                    f" ({o.model}, {o.precision}, {o.runtime})"
                    + (OWNED_NOTE if model == OWNED else ""),
                )
            )
    for c in planner.fleet:
        e = c.entry
        per_count_cap = (
            planner._unit_capacity(c) * c.units / e.count if e.count and c.option else 0.0
        )
        month_rate = c.rate * HOURS_PER_MONTH
        release = 0.0
        if e.pricing_model in PAID_WHETHER_USED and planner._in_term(c, 1):
            release = month_rate
            if e.early_termination_usd is not None:
                release = min(release, e.early_termination_usd / e.count / horizon_months)
        cands.append(
            Candidate(
                workload=e.serves,
                kind=HELD,
                role="fleet",
                provider=e.provider,
                region=e.region,
                instance_type=e.instance_type,
                pricing_model=e.pricing_model,
                backend=c.backend if c.backend != "unknown" else planner.incumbent_backends[0],
                unit_capacity=per_count_cap,
                usd_per_unit=month_rate,
                max_units=e.count,
                release_usd_per_unit_month=release,
                accelerator_id=c.option.accelerator_id if c.option else "",
                option_id=c.option.option_id if c.option else "",
                fleet_index=c.index,
                commitment_end=e.commitment_end,
                note=c.note,
            )
        )
    new_backends = {c.backend for c in cands} - set(planner.incumbent_backends)
    per_backend = {b: planner._one_time([b])[0] for b in sorted(new_backends)}
    return Problem(
        loads=loads,
        candidates=tuple(cands),
        max_vendor_share=(
            ws.constraints.max_vendor_share if max_vendor_share is None else max_vendor_share
        ),
        n_plus_one=n_plus_one,
        one_time_usd_by_backend=per_backend,
        horizon_months=horizon_months,
    )


# ---- owned hardware ----------------------------------------------------------------------------
OWNED_NOTE = (
    "; an owned server priced at its total cost of ownership (capital, power × PUE, colocation,"
    " staff), paid every hour of its depreciation horizon; the operating points are the same"
    " hardware's measured on a cloud instance"
)


def _with_owned_site(alloc, site_region: str):
    """The allocation widened to the company's own servers at its site."""
    providers = alloc.providers and (*alloc.providers, OWNED_PROVIDER)
    regions = alloc.regions and (*alloc.regions, site_region)
    return replace(alloc, providers=providers, regions=regions)


@dataclass(frozen=True)
class OwnedComparison:
    """An owned server beside the cloud options with the same accelerators."""

    rate: OwnedRate
    #: The cheapest approved cloud option with the same accelerator per pricing model, cheapest
    #: first (instances and per-accelerator quotes alike).
    cloud: tuple[CloudAlternative, ...]


def with_owned(
    engine: Engine,
    ws: Workspace,
    servers: Sequence[OwnedServer],
    electricity: Sequence[ElectricityPrice],
) -> tuple[Engine, tuple[OwnedComparison, ...]]:
    """The engine with the workspace's owned servers added as options (when it allows owned
    hardware), and each server beside the cheapest cloud options it would replace."""
    if not ws.constraints.allow_owned or ws.owned is None:
        return engine, ()
    rates = owned_rates(servers, ws.owned, electricity_input(ws.owned, electricity))
    extra = owned_options(engine.table, rates, ws.owned.site_region)
    comparisons = tuple(
        OwnedComparison(r, cloud_alternatives(engine.table.options, r, ws.constraints.providers))
        for r in rates
    )
    return Engine(engine.table.with_options(extra)), comparisons


# ---- the price of diversification -------------------------------------------------------------
@dataclass(frozen=True)
class FrontierPoint:
    max_vendor_share: float
    status: str
    objective_usd_per_month: float | None
    vendor_shares: Mapping[str, float]
    hhi: float
    #: Extra $ per month against the loosest cap solved.
    premium_usd_per_month: float | None

    @property
    def feasible(self) -> bool:
        return self.status in ("optimal", "feasible")


DEFAULT_CAPS = (1.0, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4)


def diversification_frontier(
    problem: Problem, caps: Sequence[float] = DEFAULT_CAPS, **solve_kw
) -> list[FrontierPoint]:
    """Cost against concentration: the programme solved with each vendor-share cap in turn. The
    HHI shown is Σ share² of the traffic assignment the solver returned (within the cap)."""
    points: list[FrontierPoint] = []
    base: float | None = None
    for cap in sorted(caps, reverse=True):
        sol = solve(replace(problem, max_vendor_share=cap), **solve_kw)
        if sol.feasible and base is None:
            base = sol.objective_usd_per_month
        cost = sol.objective_usd_per_month
        premium = cost - base if sol.feasible and cost is not None and base is not None else None
        points.append(
            FrontierPoint(
                cap,
                sol.status,
                sol.objective_usd_per_month,
                dict(sol.vendor_shares),
                sol.hhi if sol.feasible else math.nan,
                premium,
            )
        )
    return points


# ---- reporting ---------------------------------------------------------------------------------
KEPT = "Optimal: fleet kept"
RELEASED = "Optimal: released"
RELEASED_PAID = "Optimal: released, still paid"
BOUGHT = "Optimal: bought"


@dataclass(frozen=True)
class PlanRow:
    """One line of the optimal plan and its count in each hour of the average day (in the line's
    own unit: instances, or accelerators for a per-accelerator quote)."""

    line: PlanLine
    count_by_hour: tuple[int, ...]
    #: Peak output tok/s one counted unit carries at the SLO (0 for idle, paid units).
    output_tok_s_per_count: float


def plan_rows(solution: Solution) -> tuple[PlanRow, ...]:
    """The solution as the scenarios' fleet lines, each with its hourly counts. Every unit the
    plan pays for is on a line, so the lines' $/month add up to the run rate: a fleet line keeps
    what it keeps; the units it releases are a line of their own when they are still paid (a
    commitment in term, or its early-termination fee spread over the horizon), and a line of no
    units and no cost when all of it is released."""
    out: list[PlanRow] = []
    for ch in solution.choices:
        c = ch.candidate
        per = c.count_per_unit
        hours = solution.hours
        if c.role == "fleet":
            out += _fleet_rows(ch, hours)
            continue
        if c.kind == HELD:
            rate = c.usd_per_unit / HOURS_PER_MONTH / per
            how = f"{_n_units(ch.units[0], per)} held all month ({c.pricing_model})"
            model = c.pricing_model
            counts = (ch.units[0] * per,) * hours
        else:
            rate = c.usd_per_unit / per
            low, high = min(ch.units), max(ch.units)
            how = f"on-demand following the hourly curve, {_n_units(low, per, high)} by the hour"
            model = "on_demand"
            counts = tuple(u * per for u in ch.units)
        line = PlanLine(
            c.workload,
            "new",
            BOUGHT,
            c.provider,
            c.region,
            c.instance_type,
            model,
            ch.peak_units * per,
            rate,
            None,
            ch.monthly_usd,
            c.accelerator_id,
            c.vendor,
            c.backend,
            c.unit_capacity / per,
            f"{how}; {c.note}",
            option_id=c.option_id,
        )
        out.append(PlanRow(line, counts, c.unit_capacity / per))
    return tuple(out)


def _n_units(low: int, per: int, high: int | None = None) -> str:
    """ "3 units", "0–3 units", "0–3 units of 8 accelerators (0–24 accelerators)"."""
    high = low if high is None else high
    span = str(low) if high == low else f"{low}–{high}"
    text = f"{span} unit" + ("" if span == "1" else "s")
    if per == 1:
        return text
    acc = str(low * per) if high == low else f"{low * per}–{high * per}"
    return f"{text} of {per} accelerators ({acc} accelerators)"


def _fleet_rows(ch: Choice, hours: int) -> list[PlanRow]:
    c = ch.candidate
    kept = ch.units[0]
    count = c.max_units or 0
    released = count - kept
    rate = c.usd_per_unit / HOURS_PER_MONTH

    def row(label: str, n: int, monthly: float, note: str, used: bool) -> PlanRow:
        line = PlanLine(
            c.workload,
            "fleet",
            label,
            c.provider,
            c.region,
            c.instance_type,
            c.pricing_model,
            n,
            rate,
            c.commitment_end,
            monthly,
            c.accelerator_id,
            c.vendor,
            c.backend,
            c.unit_capacity if used else 0.0,
            note,
            option_id=c.option_id,
        )
        return PlanRow(line, ((n if used else 0),) * hours, c.unit_capacity if used else 0.0)

    rows: list[PlanRow] = []
    if kept:
        note = c.note + (f"; {kept} of {count} kept, {released} released" if released else "")
        rows.append(row(KEPT, kept, ch.monthly_usd, note, True))
    if released and c.release_usd_per_unit_month > 0:
        paid = released * c.release_usd_per_unit_month
        why = (
            "paid at its rate until the commitment ends"
            if c.release_usd_per_unit_month >= c.usd_per_unit - _EPS
            else "ended early: the termination fee spread over the horizon"
        )
        end = f" ({c.commitment_end.isoformat()})" if c.commitment_end else ""
        rows.append(
            row(
                RELEASED_PAID,
                released,
                paid,
                f"{released} of {count} idle, {why}{end}: ${paid:,.0f}/month",
                False,
            )
        )
    elif released and not kept:
        rows.append(row(RELEASED, 0, 0.0, f"all {count} released; no longer paid", False))
    elif released:
        rows[-1] = replace(
            rows[-1], line=replace(rows[-1].line, note=rows[-1].line.note + " (no longer paid)")
        )
    return rows


def plan_lines(solution: Solution) -> tuple[PlanLine, ...]:
    """The solution as the scenarios' fleet lines (same fields as ``tokendesk scenarios``); their
    $/month add up to the solution's run rate (see ``plan_rows``)."""
    return tuple(r.line for r in plan_rows(solution))
