"""The optimizer over time: the cheapest fleet path over the horizon, month by month.

The month-1 optimizer (``costmodel.optimizer``) answers "which fleet carries today's demand most
cheaply"; this programme answers the decision itself: what to buy, release and commit in each month
of the 36, as demand grows quarter by quarter and the fleet's commitments end. It is one
mixed-integer programme solved with the same solver (HiGHS through ``scipy.optimize.milp``):

* **periods**: the 36 months of the plan engine's curve; each workload's load in month ``m`` is the
  engine's ``hourly_load`` at ``growth_factor(m)``, read at the hours of the average day (hours of
  equal load merged, with their weight);
* **new capacity**: every candidate of the month-1 problem (same at-SLO capacities, approved
  providers and regions, pricing basis). On-demand units are chosen afresh each month. A committed
  unit is started in a month and paid every month of its term (1 or 3 years) that falls inside
  the horizon; committed rates come from the price list, else the fleet's own effective rate for
  the same SKU and term, else the workspace's stated discount off the on-demand rate;
* **the fleet**: a committed line is paid whole until its ``commitment_end`` (or ended early at
  a quarter start, for its termination fee where it states one), and any of its units may carry
  load meanwhile; after the end the units kept are paid as the workspace's
  ``commitment.at_end`` says (renewed at the effective rate, lapsed to the list on-demand rate,
  or the cheaper of the two).
  A line that is not committed is paid for the units kept;
* **one-time costs**: a backend the fleet does not run costs its migration figure once, in month 1,
  and can carry traffic only from its cut-over month (its own stage-gate timeline), as in the
  built-in plans;
* **constraints**: every workload-hour of every month carried; the vendor-share cap on each month's
  traffic.

The objective is the horizon total: Σ months (cost that month) × the month's discount factor +
one-time costs, as ``PlanResult.horizon_usd`` prices every built-in plan, so the optimum is
comparable with (and never above) any plan those rules can express. The solution carries the
solver's proven bound and its true gap.
"""

from __future__ import annotations

import hashlib
import math
import pickle
import threading
import time
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, milp
from scipy.sparse import coo_array

from costmodel.demand import HOURS_PER_MONTH
from costmodel.kept_answers import Answer, AnswerStore, Programme, kept_answer
from costmodel.optimizer_problem import EPS, HELD, HOURLY, Candidate, prune
from costmodel.plan_result import PlanLine, discount_factor
from costmodel.solver_output import solver_chatter_to_stderr
from tokendesk.labels import label

#: Committed terms the optimizer may start, in months.
TERM_MONTHS = {"1y": 12, "3y": 36}
#: Below this many dollars a plan is as cheap as the bound (the solver's own tolerances).
PROVEN_USD = 0.01


@dataclass(frozen=True)
class FleetPath:
    """One fleet line over the horizon: what it costs and what it may carry each month."""

    candidate: Candidate
    count: int
    #: $ per unit-month in each month: while in term the whole line is paid (``in_term``); after
    #: it, the rate the units kept are paid.
    usd_per_unit_month: tuple[float, ...]
    in_term: tuple[bool, ...]
    #: $ to end one unit early (None: it cannot be ended early).
    termination_usd_per_unit: float | None = None


@dataclass(frozen=True)
class Offer:
    """A way to buy new capacity: a month-1 candidate, and its term (1 month = on demand)."""

    candidate: Candidate
    term_months: int = 1
    #: First month it may carry traffic (a new backend's cut-over).
    first_month: int = 1


@dataclass(frozen=True)
class HorizonProblem:
    #: Per workload, per month, the output tok/s of each hour of the average day.
    loads: Mapping[str, tuple[tuple[float, ...], ...]]
    offers: tuple[Offer, ...]
    fleet: tuple[FleetPath, ...]
    max_vendor_share: float = 1.0
    one_time_usd_by_backend: Mapping[str, float] = field(default_factory=dict)
    discount_rate_per_year: float = 0.0

    @property
    def months(self) -> int:
        return len(next(iter(self.loads.values())))

    def discount(self, month: int) -> float:
        return discount_factor(month, self.discount_rate_per_year)


@dataclass(frozen=True)
class Holding:
    """What one line holds in one month."""

    candidate: Candidate
    role: str  # fleet | new
    term_months: int
    units: int
    #: Units started this month (commitments) — for a fleet line, units ended early this month.
    started: int
    usd: float


@dataclass(frozen=True)
class HorizonSolution:
    status: str  # optimal | feasible | infeasible | error
    horizon_usd: float | None
    bound_usd: float | None
    gap: float | None
    #: Undiscounted cost of each month (one-time costs apart).
    monthly_usd: tuple[float, ...]
    one_time_usd_by_month: tuple[float, ...]
    #: Per month, what each line holds.
    holdings: tuple[tuple[Holding, ...], ...]
    solve_seconds: float
    message: str = ""
    backends_ported: tuple[str, ...] = ()
    #: True when the solver's answer was read from a solution store (an earlier run proved it on
    #: the same programme); ``solve_seconds`` is then that run's solve time.
    reused: bool = False

    @property
    def feasible(self) -> bool:
        return self.status in ("optimal", "feasible")

    @property
    def one_time_usd(self) -> float:
        return sum(self.one_time_usd_by_month)

    def committed(self) -> list[tuple[int, Holding]]:
        """Every commitment started over the horizon: (month, holding)."""
        return [
            (m, h)
            for m, month in enumerate(self.holdings, start=1)
            for h in month
            if h.role == "new" and h.term_months > 1 and h.started > 0
        ]


# ---- the programme -------------------------------------------------------------------------------
class _Rows:
    def __init__(self) -> None:
        self.cost: list[float] = []
        self.lo: list[float] = []
        self.hi: list[float] = []
        self.integ: list[int] = []
        self.r: list[int] = []
        self.c: list[int] = []
        self.v: list[float] = []
        self.rlo: list[float] = []
        self.rhi: list[float] = []

    def var(self, cost: float, lb: float, ub: float, integer: bool = True) -> int:
        self.cost.append(cost)
        self.lo.append(lb)
        self.hi.append(ub)
        self.integ.append(1 if integer else 0)
        return len(self.cost) - 1

    def row(self, entries: Sequence[tuple[int, float]], lb: float, ub: float) -> None:
        k = len(self.rlo)
        for col, val in entries:
            self.r.append(k)
            self.c.append(col)
            self.v.append(val)
        self.rlo.append(lb)
        self.rhi.append(ub)


def _hour_classes(problem: HorizonProblem) -> tuple[list[int], np.ndarray]:
    """Representative hours and their weights: hours whose month-1 load is equal in every
    workload (growth scales a workload's whole day, so they stay equal in every month)."""
    first = {w: v[0] for w, v in problem.loads.items()}
    hours = len(next(iter(first.values())))
    seen: dict[tuple[float, ...], int] = {}
    reps: list[int] = []
    weight: list[float] = []
    for h in range(hours):
        key = tuple(round(float(first[w][h]), 9) for w in first)
        if key in seen:
            weight[seen[key]] += 1
            continue
        seen[key] = len(reps)
        reps.append(h)
        weight.append(1.0)
    return reps, np.array(weight)


def periods(problem: HorizonProblem) -> list[tuple[int, int]]:
    """(first month, months) of each run of months that are alike: the same loads (demand grows
    at quarter starts), the same fleet terms and the same backends available. Commitments start
    at quarter starts, so every term begins and ends on a period boundary, and months of one
    period have the same cheapest answer: solving one stands for all of them."""
    M = problem.months
    cuts = {1, *range(1, M + 1, 3)}
    for f in problem.fleet:
        cuts |= {t for t in range(2, M + 1) if f.in_term[t - 1] != f.in_term[t - 2]}
        cuts |= {
            t
            for t in range(2, M + 1)
            if abs(f.usd_per_unit_month[t - 1] - f.usd_per_unit_month[t - 2]) > EPS
        }
    cuts |= {o.first_month for o in problem.offers if 1 < o.first_month <= M}
    starts = sorted(cuts)
    return [
        (t, (starts[i + 1] if i + 1 < len(starts) else M + 1) - t) for i, t in enumerate(starts)
    ]


#: Paths solved in this process, by the digest of the problem and the solver's options: the
#: surfaces of one run (a page and its brief, ``commit`` and ``optimize`` in one session) read
#: one solution instead of solving again, so they cannot disagree even when a search stops at
#: its time limit. Small: a problem is one workspace against one market.
_SOLVED: OrderedDict[str, tuple[HorizonProblem, HorizonSolution]] = OrderedDict()
_SOLVED_KEPT = 16
_SOLVED_LOCK = threading.Lock()


def solve_horizon(
    problem: HorizonProblem,
    *,
    mip_rel_gap: float = 1e-6,
    time_limit_s: float = 60.0,
    store: AnswerStore | None = None,
) -> HorizonSolution:
    """The cheapest path (see the module docstring), with its proven bound; a problem this
    process has solved with the same options is answered from memory, and one a run before has
    proven, from ``store`` where one is given (``costmodel.kept_answers``)."""
    key = hashlib.sha256(pickle.dumps((problem, mip_rel_gap, time_limit_s))).hexdigest()
    with _SOLVED_LOCK:
        if key in _SOLVED:
            _SOLVED.move_to_end(key)
            solved, solution = _SOLVED[key]
            return _rebind(solution, solved, problem)
    solution = _solve_horizon(
        problem, mip_rel_gap=mip_rel_gap, time_limit_s=time_limit_s, store=store
    )
    with _SOLVED_LOCK:
        _SOLVED[key] = (problem, solution)
        while len(_SOLVED) > _SOLVED_KEPT:
            _SOLVED.popitem(last=False)
    return solution


def _candidates(problem: HorizonProblem) -> list[Candidate]:
    return [o.candidate for o in problem.offers] + [f.candidate for f in problem.fleet]


def _rebind(
    solution: HorizonSolution, solved: HorizonProblem, asked: HorizonProblem
) -> HorizonSolution:
    """A remembered path, its holdings pointing at the candidates of the problem asked (equal to
    the one solved, but other objects): the path is read by candidate identity (``month_lines``,
    ``units_of``), as two lines may be equal in every field."""
    if solved is asked:
        return solution
    to_asked = {
        id(old): new for old, new in zip(_candidates(solved), _candidates(asked), strict=True)
    }
    holdings = tuple(
        tuple(replace(h, candidate=to_asked.get(id(h.candidate), h.candidate)) for h in month)
        for month in solution.holdings
    )
    return replace(solution, holdings=holdings)


def _solve_horizon(
    problem: HorizonProblem,
    *,
    mip_rel_gap: float,
    time_limit_s: float,
    store: AnswerStore | None = None,
) -> HorizonSolution:
    started = time.perf_counter()
    M = problem.months
    runs = periods(problem)
    reps, weight = _hour_classes(problem)
    hours = len(next(iter(problem.loads.values()))[0])
    m = _Rows()
    constant = 0.0

    def paid(first: int, n: int) -> float:
        """Σ discount factors of ``n`` months from ``first`` (within the horizon)."""
        return sum(problem.discount(t) for t in range(first, min(first + n, M + 1)))

    # Unit variables that carry workload w in period k: (one per hour class?, the variables, unit
    # capacity, vendor); held units are the sum of their variables in every hour.
    carry: dict[tuple[str, int], list[tuple[bool, list[int], float, str]]] = {}
    offer_vars: list[dict] = []
    by_backend: dict[str, list[tuple[int, float]]] = {}
    for o in problem.offers:
        c = o.candidate
        rec: dict = {"start": {}, "hold": {}}
        if c.unit_capacity > 0:
            _add_offer(m, problem, o, runs, reps, weight, hours, paid, rec, carry, by_backend)
        offer_vars.append(rec)

    fleet_vars: list[dict] = []
    for f in problem.fleet:
        c = f.candidate
        rec = {"keep": {}, "end": {}}
        if f.termination_usd_per_unit is not None:
            for k, (t, _) in enumerate(runs):
                if not f.in_term[t - 1] or (t - 1) % 3:
                    continue  # ended early at a quarter start, while in term
                saved = sum(
                    f.usd_per_unit_month[s - 1] * problem.discount(s)
                    for s in range(t, M + 1)
                    if f.in_term[s - 1]
                )
                fee = f.termination_usd_per_unit * problem.discount(t)
                rec["end"][k] = m.var(fee - saved, 0, f.count)
            if rec["end"]:
                m.row([(v, 1.0) for v in rec["end"].values()], 0, f.count)
        for k, (t, n) in enumerate(runs):
            rate = f.usd_per_unit_month[t - 1] * paid(t, n)
            if f.in_term[t - 1]:
                constant += f.count * rate
                v = m.var(0.0, 0, f.count)
                ended = [(e, 1.0) for j, e in rec["end"].items() if j <= k]
                if ended:
                    m.row([(v, 1.0), *ended], -np.inf, f.count)
            else:
                v = m.var(rate, 0, f.count)
            rec["keep"][k] = v
            if c.unit_capacity > 0:
                carry.setdefault((c.workload, k), []).append(
                    (False, [v], c.unit_capacity, c.vendor)
                )
        fleet_vars.append(rec)

    fixed = m.var(constant, 1, 1, False)
    backend_var: dict[str, int] = {}
    for b, usd in problem.one_time_usd_by_backend.items():
        if b in by_backend:
            z = m.var(usd * problem.discount(1), 0, 1)
            backend_var[b] = z
            for v, ub in by_backend[b]:
                m.row([(v, 1.0), (z, -ub)], -np.inf, 0.0)
    _add_carry_rows(m, problem, runs, reps, weight, carry)

    n = len(m.cost)
    programme = Programme(
        np.array(m.cost),
        np.array(m.integ),
        np.array(m.lo),
        np.array(m.hi),
        coo_array((m.v, (m.r, m.c)), shape=(len(m.rlo), n)).tocsr(),
        np.array(m.rlo),
        np.array(m.rhi),
    )
    res = _answer(programme, {"mip_rel_gap": mip_rel_gap, "time_limit": time_limit_s}, store)
    elapsed = res.solve_seconds if res.reused else time.perf_counter() - started
    if res.status == 2:
        return HorizonSolution("infeasible", None, None, None, (), (), (), elapsed, res.message)
    if res.x is None:
        return HorizonSolution("error", None, None, None, (), (), (), elapsed, res.message)
    x = np.round(res.x)
    x[fixed] = 1.0
    return _read(problem, runs, x, offer_vars, fleet_vars, backend_var, res, elapsed, weight)


def _answer(programme: Programme, options: dict[str, float], store: AnswerStore | None) -> Answer:
    """The solver's answer to ``programme``: the one ``store`` keeps for it when that passes its
    checks, else solved now (and kept when proven)."""
    key = programme.key(options) if store is not None else ""
    if store is not None:
        kept = kept_answer(store.get(key), programme)
        if kept is not None:
            return kept
    started = time.perf_counter()
    p = programme
    with solver_chatter_to_stderr():
        res = milp(
            p.cost,
            integrality=p.integrality,
            bounds=Bounds(p.lower, p.upper),
            constraints=[LinearConstraint(p.matrix, p.row_lower, p.row_upper)],
            options={**options, "disp": False},
        )
    answer = Answer.from_result(res, time.perf_counter() - started)
    if store is not None and answer.status == 0 and answer.x is not None:
        store.put(key, answer.as_dict())
    return answer


def _add_offer(m, problem, o, runs, reps, weight, hours, paid, rec, carry, by_backend) -> None:
    """An offer's unit variables: per period on demand (per hour class where on-demand follows
    the load), or per quarter-start for a commitment, active for its term."""
    c = o.candidate
    M = problem.months
    for k, (t, n) in enumerate(runs):
        if t < o.first_month:
            continue
        peak = max(problem.loads[c.workload][t - 1])
        if o.term_months == 1:
            if c.kind == HOURLY:
                level = [problem.loads[c.workload][t - 1][h] for h in reps]
                per_hour = c.usd_per_unit * HOURS_PER_MONTH / hours * paid(t, n)
                vs = [
                    m.var(per_hour * weight[j], 0, math.ceil(level[j] / c.unit_capacity - EPS))
                    for j in range(len(reps))
                ]
                carry.setdefault((c.workload, k), []).append((True, vs, c.unit_capacity, c.vendor))
            else:
                ub = math.ceil(peak / c.unit_capacity - EPS)
                vs = [m.var(c.usd_per_unit_month * paid(t, n), 0, ub)]
                carry.setdefault((c.workload, k), []).append((False, vs, c.unit_capacity, c.vendor))
            rec["hold"][k] = vs
            by_backend.setdefault(c.backend, []).extend((v, m.hi[v]) for v in vs)
        elif (t - 1) % 3 == 0:
            last = min(t + o.term_months - 1, M)
            need = max(max(problem.loads[c.workload][s - 1]) for s in range(t, last + 1))
            ub = math.ceil(need / c.unit_capacity - EPS)
            v = m.var(c.usd_per_unit_month * paid(t, o.term_months), 0, ub)
            rec["start"][k] = v
            by_backend.setdefault(c.backend, []).append((v, float(ub)))
    if o.term_months > 1:
        for k, (t, _) in enumerate(runs):
            active = [
                v for j, v in rec["start"].items() if runs[j][0] <= t < runs[j][0] + o.term_months
            ]
            if active:
                rec["hold"][k] = active
                carry.setdefault((c.workload, k), []).append(
                    (False, active, c.unit_capacity, c.vendor)
                )


def _add_carry_rows(m, problem, runs, reps, weight, carry) -> None:
    """Every workload-hour of every period carried, and each period's traffic within the
    vendor-share cap from the last cut-over on (traffic by vendor split over the capacity each
    vendor holds)."""
    scale = max((max(max(day) for day in v) for v in problem.loads.values()), default=1.0) or 1.0
    # The cap binds once every backend the plan may buy on can carry traffic: before the last
    # cut-over the fleet runs as it is, as in every built-in plan.
    ready = max((o.first_month for o in problem.offers), default=1)
    for k, (t, _) in enumerate(runs):
        capped = problem.max_vendor_share < 1.0 - EPS and t >= ready
        vendor_rows: dict[str, list[tuple[int, float]]] = {}
        total = 0.0
        for w in problem.loads:
            lines = carry.get((w, k), [])
            vendors = sorted({vv for *_, vv in lines})
            for j, h in enumerate(reps):
                load = problem.loads[w][t - 1][h] / scale
                m.row([(v, a / scale) for v, a in _capacity(lines, j, None)], load, np.inf)
                total += load * weight[j]
                if not capped:
                    continue
                shares = []
                for vendor in vendors:
                    s = m.var(0.0, 0, load, False)
                    shares.append((s, 1.0))
                    m.row(
                        [(s, 1.0)] + [(v, -a / scale) for v, a in _capacity(lines, j, vendor)],
                        -np.inf,
                        0.0,
                    )
                    vendor_rows.setdefault(vendor, []).append((s, weight[j]))
                m.row(shares, load, load)
        for entries in vendor_rows.values():
            m.row(entries, -np.inf, problem.max_vendor_share * total)


def _capacity(lines, j: int, vendor: str | None) -> list[tuple[int, float]]:
    """(variable, capacity) pairs that carry hour class ``j`` (of one vendor, or all)."""
    out = []
    for per_class, vs, cap, vv in lines:
        if vendor is not None and vv != vendor:
            continue
        out += [(vs[j], cap)] if per_class else [(v, cap) for v in vs]
    return out


def _read(problem, runs, x, offer_vars, fleet_vars, backend_var, res, elapsed, weight):
    """The path read back from whole units: what each line holds and costs in each month."""
    M = problem.months
    hours = len(next(iter(problem.loads.values()))[0])
    months: list[list[Holding]] = [[] for _ in range(M)]
    monthly = [0.0] * M

    def put(k: int, h: Holding, started: int) -> None:
        t, n = runs[k]
        for s in range(t, t + n):
            months[s - 1].append(replace(h, started=started if s == t else 0))
            monthly[s - 1] += h.usd

    for o, rec in zip(problem.offers, offer_vars, strict=True):
        c = o.candidate
        for k, vs in rec["hold"].items():
            units_by_class = [int(x[v]) for v in vs]
            started = int(x[rec["start"][k]]) if k in rec["start"] else 0
            if o.term_months > 1:
                units = sum(units_by_class)
                usd = units * c.usd_per_unit_month
            elif c.kind == HOURLY:
                units = max(units_by_class)
                usd = sum(
                    u * wt * c.usd_per_unit * HOURS_PER_MONTH / hours
                    for u, wt in zip(units_by_class, weight, strict=True)
                )
            else:
                units = units_by_class[0]
                usd = units * c.usd_per_unit_month
            if units or started:
                put(k, Holding(c, "new", o.term_months, units, 0, usd), started)
    one_time = [0.0] * M
    for f, rec in zip(problem.fleet, fleet_vars, strict=True):
        ended = 0
        for k, (t, n) in enumerate(runs):
            kept = int(x[rec["keep"][k]])
            now = int(x[rec["end"][k]]) if k in rec["end"] else 0
            ended += now
            if now and f.termination_usd_per_unit is not None:
                one_time[t - 1] += now * f.termination_usd_per_unit
            for s in range(t, t + n):
                rate = f.usd_per_unit_month[s - 1]
                usd = (f.count - ended) * rate if f.in_term[s - 1] else kept * rate
                months[s - 1].append(
                    Holding(f.candidate, "fleet", 1, kept, now if s == t else 0, usd)
                )
                monthly[s - 1] += usd
    ported = tuple(sorted(b for b, z in backend_var.items() if x[z] > 0.5))
    one_time[0] += sum(problem.one_time_usd_by_backend[b] for b in ported)
    total = sum((monthly[t] + one_time[t]) * problem.discount(t + 1) for t in range(M))
    bound = getattr(res, "mip_dual_bound", None)
    bound = total if bound is None or not math.isfinite(bound) else min(float(bound), total)
    gap = (total - bound) / abs(total) if total else 0.0
    status = "optimal" if total - bound <= max(PROVEN_USD, 1e-9 * abs(total)) else "feasible"
    return HorizonSolution(
        status,
        total,
        bound,
        gap,
        tuple(monthly),
        tuple(one_time),
        tuple(tuple(h) for h in months),
        elapsed,
        str(res.message),
        ported,
        res.reused,
    )


# ---- the problem from month-1 candidates ----------------------------------------------------------
def horizon_offers(
    market: Sequence[Candidate],
    term_shares: Mapping[tuple[str, str, str, str], float],
    first_month: Mapping[str, int],
) -> tuple[Offer, ...]:
    """The market candidates as offers: each on its own (on demand or as priced) and, where a
    committed rate is known for its SKU and term (``term_shares[provider, region, instance,
    term]``, a share of the on-demand rate), as a 1- or 3-year commitment at that share of the
    candidate's own unit rate. Dominated candidates are dropped within each term only (a
    commitment and an on-demand unit are not interchangeable over time), and within one workload
    and backend (``prune``): what replaces a candidate brings the same one-time cost, cut-over
    month and vendor, and every backend keeps an offer, so the vendor cap's start month (the
    offers' last cut-over) stays put. Estimated and measured offers are pruned alike; the cheapest
    quote per tok/s is no such rule, as a larger unit does not stand for a smaller step."""
    offers: list[Offer] = []
    groups: dict[int, list[Candidate]] = {1: list(market)}
    for term, months in TERM_MONTHS.items():
        for c in market:
            if c.pricing_model != "on_demand":
                continue
            share = term_shares.get((c.provider, c.region, c.instance_type, term))
            if share is None:
                continue
            groups.setdefault(months, []).append(
                replace(
                    c,
                    kind=HELD,
                    pricing_model=f"reserved_{term}",
                    usd_per_unit=share * c.usd_per_unit_month,
                    note=f"{c.note}; committed {term}",
                )
            )
    for months, cands in groups.items():
        for c in prune(cands):
            offers.append(Offer(c, months, first_month.get(c.backend, 1)))
    return tuple(offers)


# ---- reading the path ----------------------------------------------------------------------------
KEPT = "Optimal: fleet kept"
RELEASED_PAID = "Optimal: released, still paid"
BOUGHT = "Optimal: bought"


def month_lines(problem: HorizonProblem, solution: HorizonSolution, month: int = 1) -> tuple:
    """What the path holds in ``month`` as the scenarios' fleet lines (month 1: what "buy now"
    means); their $/month add up to the month's cost."""
    out: list[PlanLine] = []
    rates = {id(f.candidate): f for f in problem.fleet}
    for h in solution.holdings[month - 1]:
        c = h.candidate
        if h.role == "fleet":
            f = rates[id(c)]
            rate = f.usd_per_unit_month[month - 1]
            paid_units = round(h.usd / rate) if rate > 0 else h.units
            if h.units:
                out.append(_line(c, "fleet", KEPT, h.units, h.units * rate, c.note, rate))
            idle = paid_units - h.units
            if idle > 0 and f.in_term[month - 1]:
                end = f" until {c.commitment_end.isoformat()}" if c.commitment_end else ""
                out.append(
                    _line(
                        c,
                        "fleet",
                        RELEASED_PAID,
                        idle,
                        idle * rate,
                        f"{idle} of {f.count} idle, paid at its rate{end}",
                        rate,
                        used=False,
                    )
                )
            continue
        term = f"committed for {h.term_months // 12} year(s); " if h.term_months > 1 else ""
        per = c.count_per_unit
        out.append(
            _line(c, "new", BOUGHT, h.units * per, h.usd, term + c.note, c.usd_per_unit_month / per)
        )
    return tuple(out)


def _line(c: Candidate, role, label, count, usd, note, unit_month, *, used=True) -> PlanLine:
    return PlanLine(
        c.workload,
        role,
        label,
        c.provider,
        c.region,
        c.instance_type,
        c.pricing_model,
        int(count),
        unit_month / HOURS_PER_MONTH,
        c.commitment_end if role == "fleet" else None,
        usd,
        c.accelerator_id,
        c.vendor,
        c.backend,
        (c.unit_capacity / c.count_per_unit) if used else 0.0,
        note,
        option_id=c.option_id,
    )


def carried_by_vendor(problem: HorizonProblem, solution: HorizonSolution, month: int = 1) -> dict:
    """The share of ``month``'s output tokens each vendor carries: in every workload-hour the
    load is split over the vendors in proportion to the capacity each holds for it."""
    served: dict[str, float] = {}
    total = 0.0
    for w, by_month in problem.loads.items():
        caps: dict[str, float] = {}
        for h in solution.holdings[month - 1]:
            if h.candidate.workload == w and h.units:
                caps[h.candidate.vendor] = (
                    caps.get(h.candidate.vendor, 0.0) + h.units * h.candidate.unit_capacity
                )
        held = sum(caps.values())
        for load in by_month[month - 1]:
            total += load
            for vendor, cap in caps.items():
                served[vendor] = served.get(vendor, 0.0) + load * cap / held
    return {v: x / total for v, x in sorted(served.items(), key=lambda kv: -kv[1])} if total else {}


def path_by_quarter(problem: HorizonProblem, solution: HorizonSolution) -> list[dict]:
    """The path at each quarter's first month: cost, what is held, what starts (commitments
    started, units bought or released against the month before)."""
    out = []
    for q in range(0, problem.months, 3):
        month = q + 1
        rows = []
        for h in solution.holdings[q]:
            c = h.candidate
            rows.append(
                {
                    "workload": c.workload,
                    "role": h.role,
                    "provider": c.provider,
                    "region": c.region,
                    "instance_type": c.instance_type,
                    "pricing_model": c.pricing_model,
                    "term_months": h.term_months,
                    "units": h.units,
                    "started": h.started,
                    "usd": round(h.usd, 2),
                }
            )
        out.append(
            {
                "quarter": q // 3 + 1,
                "month": month,
                "usd": round(solution.monthly_usd[q], 2),
                "holdings": rows,
            }
        )
    return out


def commitment_rows(problem: HorizonProblem, solution: HorizonSolution) -> list[dict]:
    """Every commitment on the path: what the fleet holds (units kept, to its end, and what is
    renewed after it) and each new commitment started (month, units, term). ``optimize`` and
    ``commit`` both show these rows, so they agree on what is committed and for how long."""
    rows: list[dict] = []
    for f in problem.fleet:
        if not any(f.in_term):
            continue
        c = f.candidate
        last = max(t for t in range(1, problem.months + 1) if f.in_term[t - 1])
        kept = [_held(solution, c, t) for t in range(1, problem.months + 1)]
        after = kept[last] if last < problem.months else 0
        rows.append(
            {
                "kind": "held",
                "workload": c.workload,
                "provider": c.provider,
                "region": c.region,
                "instance_type": c.instance_type,
                "pricing_model": c.pricing_model,
                "units": f.count,
                "units_used_month_1": kept[0],
                "from_month": 1,
                "until_month": last,
                "commitment_end": c.commitment_end.isoformat() if c.commitment_end else None,
                "units_after_end": after,
            }
        )
    for month, h in solution.committed():
        c = h.candidate
        ends = month + h.term_months - 1
        beyond = max(ends - problem.months, 0)
        rows.append(
            {
                "kind": "new",
                "workload": c.workload,
                "provider": c.provider,
                "region": c.region,
                "instance_type": c.instance_type,
                "pricing_model": c.pricing_model,
                "units": h.started,
                "from_month": month,
                "until_month": min(ends, problem.months),
                "term_months": h.term_months,
                # A term that runs past the horizon is paid on after it: the horizon total counts
                # its months inside the horizon only (as it counts every plan's), and this says
                # what is still owed after it.
                "ends_month": ends,
                "months_after_horizon": beyond,
                "usd_after_horizon": round(h.started * c.usd_per_unit_month * beyond, 2),
            }
        )
    return rows


def _held(solution: HorizonSolution, c: Candidate, month: int) -> int:
    return sum(h.units for h in solution.holdings[month - 1] if h.candidate is c)


def commitment_sentences(rows: Sequence[dict]) -> list[str]:
    """The rows in words, one per commitment."""
    out = []
    for r in rows:
        sku = f"{r['instance_type']} ({r['provider']} {r['region']})"
        if r["kind"] == "held":
            out.append(
                f"{r['workload']}: hold {r['units']} × {sku} {label(r['pricing_model'])} to month"
                f" {r['until_month']} ({r['units_used_month_1']} used in month 1); after it,"
                f" {r['units_after_end']} kept."
            )
        else:
            years = r["term_months"] // 12
            after = (
                f" (to month {r['ends_month']}: ${r['usd_after_horizon']:,.0f} of it falls in"
                f" the {r['months_after_horizon']} months after the horizon, outside its total)"
                if r.get("months_after_horizon")
                else ""
            )
            out.append(
                f"{r['workload']}: commit {r['units']} × {sku} for {years} year"
                f"{'s' if years > 1 else ''} from month {r['from_month']}{after}."
            )
    return out or ["No commitment on the cheapest path: everything is bought on demand."]
