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

The optimizer is written in parts, one module each: ``optimizer_problem`` (the problem and
solution as pure data, and the dominance rule ``prune``), ``optimizer_programme`` (the programme
built for HiGHS, hours merged where ``_merging_is_exact``, and the calls that solve it),
``optimizer_rounding`` (whole-unit plans from the relaxation), ``optimizer_workspace`` (the
problem for a workspace, owned servers included) and this module (``solve``, its result read back
as a solution and as the scenarios' fleet lines, and the diversification frontier).

Words: the *optimizer* is this programme (``costmodel``); the plan it makes for a workspace is
*Optimal* wherever it is set beside the built-in plans and shown (``planning.optimal_plan``,
``briefs.optimal``, the Scenarios page); *optimize* is only the command's verb
(``tokendesk optimize``).
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np

from costmodel.demand import HOURS_PER_MONTH
from costmodel.optimizer_problem import EPS, HELD, HOURLY, Choice, Problem, Solution
from costmodel.optimizer_programme import Programme, branch_and_bound, build_programme, relax
from costmodel.optimizer_rounding import polish, round_relaxation, served_by_vendor
from costmodel.plan_result import PlanLine
from costmodel.risk import hhi, vendor_spend

#: A plan is called optimal when it costs at most this much more a month than the proven bound.
PROVEN_USD = 0.01


# ---- solving ---------------------------------------------------------------------------------
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
    merged = build_programme(problem, dominance, merge=True)
    exact = merged if merged.exact else build_programme(problem, dominance, merge=False)

    # 1. The relaxation: its optimum is a proven lower bound, and its traffic split is the plan
    #    the rounding below follows.
    lp = relax(merged, merged.bounds, deadline)
    if lp.status == 2:
        return Solution("infeasible", None, None, (), {}, 0.0, 0.0, lp.message)
    bound = float(lp.fun) if lp.status == 0 else -math.inf

    # 2. Rounding (see _round_relaxation), then polishing the rounded plan.
    best_x: np.ndarray | None = None
    best_p = merged
    best_obj = math.inf
    if lp.status == 0 and not problem.n_plus_one:
        best_x, best_obj = round_relaxation(problem, merged, lp.x, deadline)
        best_x, best_obj = polish(merged, best_x, best_obj, deadline)

    # 3. Branch and bound on the exact programme, unless the rounded plan is already proven close
    #    enough. Its dual bound is a bound only because the programme is exact.
    message = "rounded from the LP relaxation, within the gap asked of its bound"
    # (Skipped when less than half a second is left and a plan is in hand: branch and bound on a
    # large programme does not finish its first node in that time.)
    left = deadline - time.perf_counter()
    if best_x is None or (best_obj - bound > mip_rel_gap * abs(best_obj) and left > 0.5):
        res = branch_and_bound(exact, mip_rel_gap, deadline)
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
    return read_solution(problem, best_p, best_x, best_obj, bound, message)


def read_solution(
    problem: Problem,
    p: Programme,
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
    served = served_by_vendor(p, best_x)
    total = p.total
    shares = {
        vendor: served[vendor] / total for vendor in p.vendors if total > 0 and served[vendor] > EPS
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


# ---- the price of diversification -------------------------------------------------------------
@dataclass(frozen=True)
class FrontierPoint:
    max_vendor_share: float
    status: str
    objective_usd_per_month: float | None
    #: Traffic each vendor carries (shown beside the HHI, never its weights).
    vendor_shares: Mapping[str, float]
    #: Vendor HHI (0-10,000) weighted by month-1 spend (``risk.RISK_BASIS``), as every plan's.
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
    """Cost against concentration: the programme solved with each vendor-share cap in turn (the
    cap binds each vendor's share of traffic). The HHI shown is on every plan's basis: month-1
    spend by vendor (``spend_hhi``)."""
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
                spend_hhi(sol) if sol.feasible else math.nan,
                premium,
            )
        )
    return points


# ---- the solution as fleet lines ------------------------------------------------------------
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
            if c.release_usd_per_unit_month >= c.usd_per_unit - EPS
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


def spend_hhi(solution: Solution) -> float:
    """Vendor HHI (0-10,000) of a solution weighted by month-1 spend: its fleet lines' $/month
    by vendor, committed units still paid included (``risk.RISK_BASIS``, as every plan's)."""
    return hhi(vendor_spend((ln.vendor, ln.monthly_usd) for ln in plan_lines(solution)))


def plan_lines(solution: Solution) -> tuple[PlanLine, ...]:
    """The solution as the scenarios' fleet lines (same fields as ``tokendesk scenarios``); their
    $/month add up to the solution's run rate (see ``plan_rows``)."""
    return tuple(r.line for r in plan_rows(solution))
