"""The optimal fleet of a workspace: the optimizer's answer beside every other plan priced on the
same basis, and the price of diversification (``tokendesk optimize``, the Scenarios page, the
brief)."""

from __future__ import annotations

import math
import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from costmodel.bundled_tables import electricity_prices, owned_servers
from costmodel.estimated_options import banded, estimated_by_id
from costmodel.market import Engine
from costmodel.optimizer import (
    FrontierPoint,
    diversification_frontier,
    plan_rows,
    solve,
    spend_hhi,
)
from costmodel.optimizer_horizon import (
    HorizonProblem,
    HorizonSolution,
    carried_by_vendor,
    commitment_rows,
    month_lines,
    path_by_quarter,
    solve_horizon,
)
from costmodel.optimizer_problem import Solution
from costmodel.optimizer_workspace import (
    OwnedComparison,
    horizon_problem,
    with_owned,
    workspace_problem,
)
from costmodel.option_table import Option
from costmodel.owned import HOURS_PER_YEAR
from costmodel.plan import WorkspaceEngine, commitment_note
from costmodel.plan_result import (
    PlanLine,
    PlanResult,
    band_dict,
    horizon_band,
    horizon_total,
    lines_band,
)
from costmodel.risk import RISK_BASIS
from costmodel.workspace_model import Workspace
from planning import solution_store
from planning.context import plan_context, scenario_plans
from planning.workspaces import Knobs
from tokendesk.labels import solver_gap

#: Seconds the optimizer over time may search; past it the best path found is used with its proven
#: bound and gap (stated beside it), so a command never waits longer than this on the solver.
HORIZON_TIME_LIMIT_S = 20.0
#: Overrides it (seconds, more than 0): a slower machine that would rather wait for the proof.
HORIZON_TIME_LIMIT_ENV = "TOKENDESK_SOLVER_LIMIT_S"


def horizon_time_limit() -> float:
    """The optimizer's time limit: the environment's, where it is a number above 0."""
    try:
        limit = float(os.environ.get(HORIZON_TIME_LIMIT_ENV, HORIZON_TIME_LIMIT_S))
    except ValueError:
        return HORIZON_TIME_LIMIT_S
    return limit if math.isfinite(limit) and limit > 0 else HORIZON_TIME_LIMIT_S


def solve_path(problem: HorizonProblem, *, mip_rel_gap: float = 1e-6) -> HorizonSolution:
    """``solve_horizon`` as every plan read asks it: within the planner's time limit, with the
    user's store of proven answers (``planning.solution_store``)."""
    return solve_horizon(
        problem,
        mip_rel_gap=mip_rel_gap,
        time_limit_s=horizon_time_limit(),
        store=solution_store.default_store(),
    )


#: What every HHI is weighted by, in the JSON beside each figure (``risk.RISK_BASIS``).
HHI_BASIS = f"vendor HHI 0-10,000 weighted by {RISK_BASIS} by vendor, as every plan's"


@dataclass(frozen=True)
class Optimized:
    workspace: Workspace
    solution: Solution
    builtins: tuple[PlanResult, ...]
    #: Each built-in scenario priced as the month-1 programme prices a plan (run rate + one-time
    #: ÷ horizon); the plans are ranked on their horizon totals, not on this.
    comparable: dict[str, float]
    frontier: list[FrontierPoint]
    solve_seconds: float
    n_candidates: int
    n_plus_one: bool
    #: The workspace's owned servers beside the cloud options they replace (when allowed).
    owned: tuple[OwnedComparison, ...] = ()
    #: Output tok/s to carry per workload in each hour of the average day (what the plan meets).
    load_by_hour: Mapping[str, tuple[float, ...]] = field(default_factory=dict)
    horizon_months: int = 36
    #: The optimizer over time: the cheapest path over the horizon (its month 1 is "buy now").
    horizon_problem: HorizonProblem | None = None
    horizon: HorizonSolution | None = None
    at_end: str = "renew"
    #: The estimated options the optimizer could buy, by id (each line's basis and band).
    estimated: Mapping[str, Option] = field(default_factory=dict)

    @property
    def one_time_usd_per_month(self) -> float:
        return self.solution.one_time_usd / self.horizon_months

    @property
    def stay(self) -> PlanResult:
        return next(r for r in self.builtins if r.is_baseline)

    @property
    def saving_vs_stay(self) -> float | None:
        """$ a month the month-1 optimum saves against Stay's month-1 basis (run rate + one-time
        ÷ horizon, the month-1 programme's own objective)."""
        if self.solution.objective_usd_per_month is None:
            return None
        return self.month1_comparable[self.stay.name] - self.solution.objective_usd_per_month

    @property
    def month1_comparable(self) -> dict[str, float]:
        """Each built-in plan on the month-1 programme's basis: run rate + one-time ÷ horizon."""
        return self.comparable

    def horizon_dict(self) -> dict | None:
        """The path over the horizon: totals, bound, solve time, months and the path by quarter."""
        h, p = self.horizon, self.horizon_problem
        if h is None or p is None:
            return None
        rows = commitment_rows(p, h) if h.feasible else []
        return {
            "solver_status": h.status,
            "proven_optimal": h.status == "optimal",
            "horizon_usd": _money(h.horizon_usd),
            "bound_usd": _money(h.bound_usd),
            "gap": h.gap,
            "solve_seconds": round(h.solve_seconds, 3),
            # The solver's answer was read from the solution store: an earlier run proved it on
            # the same programme in solve_seconds (planning.solution_store).
            "solve_reused": h.reused,
            "discount_rate_per_year": p.discount_rate_per_year,
            "commitment_at_end": self.at_end,
            "monthly_usd_by_month": [round(v, 2) for v in h.monthly_usd],
            "one_time_usd_by_month": [round(v, 2) for v in h.one_time_usd_by_month],
            "backends_ported": list(h.backends_ported),
            "commitments": rows,
            "commitments_after_horizon_usd": round(after_horizon_usd(rows), 2),
            "path_by_quarter": path_by_quarter(p, h) if h.feasible else [],
            "builtin_horizon_usd": {r.name: round(r.horizon_usd, 2) for r in self.builtins},
            "basis": (
                "horizon total = Σ over 36 months of what is held that month (demand growing each"
                " quarter; each commitment paid to its real end, then "
                + commitment_note(self.at_end).split("ends, ")[-1].split(" (")[0]
                + "; new commitments of 1 or 3 years started at quarter starts and paid for the"
                " months of their term within the horizon) + one-time costs when they fall,"
                " discounted at the workspace's rate; a new backend carries traffic from its"
                " cut-over month"
            ),
        }

    def as_dict(self) -> dict:
        s = self.solution
        return {
            "name": "Optimal",
            "workspace": self.workspace.name,
            "solver_status": s.status,
            "proven_optimal": s.status == "optimal",
            "objective_usd_per_month": _money(s.objective_usd_per_month),
            "gap": s.gap,
            "bound_usd_per_month": _money(s.bound_usd_per_month),
            "run_rate_usd_per_month": round(s.run_rate_usd_per_month, 2),
            "released_commitments_paid_usd_per_month": round(s.released_paid_usd_per_month, 2),
            "one_time_usd": round(s.one_time_usd, 2),
            "one_time_usd_per_month": round(self.one_time_usd_per_month, 2),
            "vendor_shares": {k: round(v, 4) for k, v in s.vendor_shares.items()},
            "vendor_shares_basis": "share of the output tokens each vendor carries",
            "hhi": round(spend_hhi(s), 1) if s.feasible else None,
            "hhi_basis": HHI_BASIS,
            "n_plus_one": self.n_plus_one,
            "candidates": self.n_candidates,
            "solve_seconds": round(self.solve_seconds, 3),
            "fleet": [
                ln.line.as_dict()
                | {
                    "count_by_hour": list(ln.count_by_hour),
                    "output_tok_s_per_count": round(ln.output_tok_s_per_count, 3),
                }
                for ln in plan_rows(s)
            ],
            "load_by_hour": {
                w: [round(v, 3) for v in load] for w, load in self.load_by_hour.items()
            },
            "stay_usd_per_month": round(self.month1_comparable[self.stay.name], 2),
            "saving_vs_stay_usd_per_month": _money(self.saving_vs_stay),
            "builtin_scenarios": [
                {
                    "name": r.name,
                    "feasible": r.feasible,
                    "constraint_violations": list(r.constraint_violations),
                    "comparable_usd_per_month": round(self.month1_comparable[r.name], 2),
                    "horizon_usd": round(r.horizon_usd, 2),
                }
                for r in self.builtins
            ],
            "diversification_frontier": [
                {
                    "max_vendor_share": p.max_vendor_share,
                    "solver_status": p.status,
                    "objective_usd_per_month": _money(p.objective_usd_per_month),
                    "premium_usd_per_month": _money(p.premium_usd_per_month),
                    "hhi": round(p.hhi, 1) if p.feasible else None,
                    "hhi_basis": HHI_BASIS,
                    "vendor_shares": {k: round(v, 4) for k, v in p.vendor_shares.items()},
                }
                for p in self.frontier
            ],
            "owned_hardware": owned_rows(self.owned),
            "horizon": self.horizon_dict(),
            "basis": (
                "objective = month-1 run rate (committed fleet units paid whether used or not)"
                " + one-time migration and early-termination costs spread over 36 months; the"
                " built-in scenarios are priced the same way. Each fleet line's count_by_hour ×"
                " output_tok_s_per_count, summed over a workload's lines, carries that hour of"
                " load_by_hour (output tok/s at the workload's SLO)"
            ),
        }


def proven_sentence(s: Solution) -> str:
    if s.gap is None or s.bound_usd_per_month is None:
        return "optimality not proven"
    if s.status == "optimal":
        return f"proven cheapest (no plan costs less than ${s.bound_usd_per_month:,.2f}/month)"
    return (
        f"not proven optimal: {solver_gap(s.gap)} (no plan costs less"
        f" than ${s.bound_usd_per_month:,.2f}/month)"
    )


def optimize(
    engine: Engine,
    ws: Workspace,
    knobs: Knobs | None = None,
    *,
    n_plus_one: bool = False,
    mip_rel_gap: float = 0.0,
    with_frontier: bool = True,
    horizon_gap: float = 1e-6,
) -> Optimized:
    """The cheapest fleet for ``ws`` (the optimizer's main solve), every other plan priced on
    the same basis, and, ``with_frontier``, the price of diversification (one solve per cap)."""
    knobs = knobs or Knobs()
    engine, owned = with_owned(engine, ws, owned_servers(), electricity_prices())
    planner = WorkspaceEngine(engine, plan_context(ws, knobs))
    builtins = planner.evaluate(scenario_plans(knobs))
    problem = workspace_problem(planner, n_plus_one=n_plus_one)
    started = time.perf_counter()
    solution = solve(problem, mip_rel_gap=mip_rel_gap)
    elapsed = time.perf_counter() - started
    frontier = diversification_frontier(problem, mip_rel_gap=mip_rel_gap) if with_frontier else []
    # Every built-in plan priced as the month-1 programme prices a plan (run rate + one-time ÷
    # horizon); the verdicts read the horizon totals (``horizon``).
    comparable = {
        r.name: r.run_rate_usd_per_month + r.one_time_usd / problem.horizon_months for r in builtins
    }
    over_time = horizon_problem(planner)
    path = solve_path(over_time, mip_rel_gap=horizon_gap)
    return Optimized(
        ws,
        solution,
        builtins,
        comparable,
        frontier,
        elapsed,
        len(problem.candidates),
        n_plus_one,
        owned,
        dict(problem.loads),
        problem.horizon_months,
        over_time,
        path,
        ws.commitment.at_end,
        estimated_by_id(engine.table.options),
    )


def owned_rows(owned: tuple[OwnedComparison, ...]) -> list[dict]:
    """Each owned server's equivalent rate, its inputs' sources and its break-even against the
    cheapest cloud instance with the same accelerators, per pricing model."""
    rows = []
    for c in owned:
        r = c.rate
        rows.append(
            {
                "server": r.server.server_id,
                "name": r.server.name,
                "accelerator_id": r.server.accelerator_id,
                "accelerators": r.server.accelerator_count,
                "usd_per_server_hour": round(r.usd_per_server_hour, 4),
                "usd_per_accelerator_hour": round(r.usd_per_accelerator_hour, 4),
                "capital_usd_per_hour": round(r.capital_usd_per_year / HOURS_PER_YEAR, 4),
                "power_usd_per_hour": round(r.power_usd_per_hour, 4),
                "colo_usd_per_hour": round(r.colo_usd_per_year / HOURS_PER_YEAR, 4),
                "staff_usd_per_hour": round(r.staff_usd_per_year / HOURS_PER_YEAR, 4),
                "running_usd_per_month": round(r.running_usd_per_month, 2),
                "capex_usd": r.server.capex.value,
                "confidence": r.confidence,
                "inputs": [
                    {
                        "name": i.name,
                        "value": i.value,
                        "unit": i.unit,
                        "source": i.source,
                        "source_url": i.source_url,
                        "as_of": i.as_of or "date unknown",
                        "confidence": i.confidence,
                    }
                    for i in r.inputs
                ],
                "versus_cloud": [
                    {
                        "pricing_model": alt.pricing_model,
                        "provider": alt.option.provider,
                        "region": alt.option.region,
                        "instance_type": alt.option.instance_type,
                        "usd_per_hour": round(alt.usd_per_server_hour, 4),
                        "break_even_months": (
                            None
                            if alt.break_even_months is None
                            else round(alt.break_even_months, 1)
                        ),
                        "price_basis": alt.option.price_basis,
                        "usd_per_accelerator_hour": round(alt.usd_per_accelerator_hour, 4),
                        "priced_as": alt.basis,
                        **price_source(alt.option),
                    }
                    for alt in c.cloud
                ],
            }
        )
    return rows


def _money(v: float | None) -> float | None:
    # (``or 0.0``: a negative zero from solver noise is written as 0.0)
    return None if v is None else round(v, 2) or 0.0


@dataclass(frozen=True)
class OptimalPlan:
    """The optimal fleet as a plan beside the others: the optimizer-over-time's path. Month 1 is
    what "buy now" means (its lines and cost); the 36 months, the one-time costs when they fall
    and the horizon total are the path's, read on the basis every plan is ranked on."""

    name: str
    feasible: bool
    monthly_usd: float
    stranded_usd_per_month: float
    one_time_usd: float
    compared_usd_per_month: float
    achieved_by_vendor: dict[str, float]
    fleet: tuple[PlanLine, ...]
    status_sentence: str
    monthly_usd_by_month: tuple[float, ...] = ()
    one_time_usd_by_month: tuple[float, ...] = ()
    horizon_usd: float = float("nan")
    discount_rate_per_year: float = 0.0
    bound_usd: float | None = None
    payback_month: int | None = None
    payback_sentence: str = ""
    #: What the path's commitments still cost after the horizon (outside ``horizon_usd``).
    after_horizon_usd: float = 0.0

    @property
    def one_time_by_month(self) -> tuple[float, ...]:
        """The one-time costs by the month they fall in (as ``PlanResult.one_time_by_month``)."""
        return self.one_time_usd_by_month

    @classmethod
    def of(cls, optimum: Optimized, name: str = "Optimal") -> OptimalPlan:
        h, p = optimum.horizon, optimum.horizon_problem
        if h is None or p is None or not h.feasible or h.horizon_usd is None:
            message = h.message if h is not None else "not solved"
            return cls(name, False, float("nan"), 0.0, 0.0, float("nan"), {}, (), message)
        fleet = tuple(
            banded(ln, optimum.estimated.get(ln.option_id)) for ln in month_lines(p, h, 1)
        )
        stranded = sum(ln.monthly_usd for ln in fleet if ln.allocation.endswith("still paid"))
        months = len(h.monthly_usd)
        stay = optimum.stay
        payback, sentence = _payback(h, stay)
        return cls(
            name,
            True,
            h.monthly_usd[0] - stranded,
            stranded,
            h.one_time_usd,
            h.horizon_usd / months,
            carried_by_vendor(p, h, 1),
            tuple(ln for ln in fleet if ln.count > 0 or ln.monthly_usd > 0),
            f"Solver: {h.status}, {horizon_proven_sentence(h)}.",
            h.monthly_usd,
            h.one_time_usd_by_month,
            h.horizon_usd,
            p.discount_rate_per_year,
            h.bound_usd,
            payback,
            sentence,
            after_horizon_usd(commitment_rows(p, h)),
        )

    @property
    def monthly_usd_band(self) -> tuple[float, float, float]:
        """(low, base, high) month-1 run rate from the estimated lines' intervals."""
        return lines_band(self.monthly_usd, self.fleet)

    @property
    def horizon_usd_band(self) -> tuple[float, float, float]:
        """(low, base, high) horizon total from the estimated lines' intervals."""
        return horizon_band(
            self.fleet,
            self.monthly_usd_by_month,
            self.one_time_usd_by_month,
            self.discount_rate_per_year,
        )

    def as_dict(self) -> dict:
        ok = self.feasible
        return {
            "name": self.name,
            "feasible": ok,
            # An optimal fleet that could not be solved has no figures (never a $0 plan).
            "monthly_usd": round(self.monthly_usd, 2) if ok else None,
            "monthly_usd_band": band_dict(self.monthly_usd_band) if ok else None,
            "stranded_usd_per_month": round(self.stranded_usd_per_month, 2) if ok else None,
            "run_rate_usd_per_month": round(self.monthly_usd + self.stranded_usd_per_month, 2)
            if ok
            else None,
            "one_time_usd": round(self.one_time_usd, 2),
            "compared_usd_per_month": round(self.compared_usd_per_month, 2) if ok else None,
            "monthly_usd_by_month": [round(v, 2) for v in self.monthly_usd_by_month],
            "one_time_usd_by_month": [round(v, 2) for v in self.one_time_usd_by_month],
            "horizon_usd": round(self.horizon_usd, 2) if ok else None,
            "horizon_usd_band": band_dict(self.horizon_usd_band) if ok else None,
            "horizon_bound_usd": _money(self.bound_usd),
            "discount_rate_per_year": self.discount_rate_per_year,
            "payback_month": self.payback_month,
            "payback": self.payback_sentence,
            "commitments_after_horizon_usd": round(self.after_horizon_usd, 2) if ok else None,
            "allocation_by_vendor": {
                "requested": None,
                "achieved": {k: round(v, 6) for k, v in self.achieved_by_vendor.items()},
            },
            "fleet": [ln.as_dict() for ln in self.fleet],
            "solver": self.status_sentence,
        }


def after_horizon_usd(rows: Sequence[Mapping]) -> float:
    """What a path's new commitments (``commitment_rows``) still cost after the horizon's last
    month: a term started late runs on past it, and the horizon total counts only its months
    inside."""
    return sum(r.get("usd_after_horizon", 0.0) for r in rows)


def horizon_proven_sentence(h: HorizonSolution) -> str:
    if h.bound_usd is None or h.gap is None:
        return "optimality not proven"
    if h.status == "optimal":
        return f"proven cheapest over the horizon (no path costs less than ${h.bound_usd:,.2f})"
    return (
        f"not proven optimal: {solver_gap(h.gap)} (no path costs less than ${h.bound_usd:,.2f}"
        " over the horizon)"
    )


def _payback(h: HorizonSolution, stay: PlanResult) -> tuple[int | None, str]:
    """The first month whose cumulative saving against Stay covers the one-time costs so far."""
    cumulative = 0.0
    for m, (x, o, s) in enumerate(
        zip(h.monthly_usd, h.one_time_usd_by_month, stay.monthly_usd_by_month, strict=True),
        start=1,
    ):
        cumulative += s - x - o
        if cumulative >= 0 and (h.one_time_usd > 0 or s - x > 0.005):
            if h.one_time_usd <= 0.005:
                return m, f"Saves from month {m}, with no one-time cost."
            return m, (
                f"Pays back in month {m}: cumulative savings cover the"
                f" ${h.one_time_usd:,.0f} one-time cost."
            )
    total = horizon_total(h.monthly_usd, h.one_time_usd_by_month)
    return None, f"Never pays back within {len(h.monthly_usd)} months (${total:,.0f} in all)."


def price_source(o: Option) -> dict[str, str]:
    """Where a cloud price comes from, its date and how sure it is."""
    return {
        "source": o.price_source or "source not recorded",
        "source_url": o.price_source_url,
        "as_of": o.price_observed_at.date().isoformat() if o.price_observed_at else "date unknown",
        "confidence": o.price_confidence or "confidence not stated",
    }
