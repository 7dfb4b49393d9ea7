"""The optimal fleet of a workspace: the optimizer's answer beside every other plan priced on the
same basis, and the price of diversification (``tokendesk optimize``, the Scenarios page, the
brief)."""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field

from costmodel.bundled_tables import electricity_prices, owned_servers
from costmodel.estimated_options import banded, estimated_by_id
from costmodel.market import Engine
from costmodel.optimizer import (
    FrontierPoint,
    diversification_frontier,
    plan_lines,
    plan_rows,
    solve,
)
from costmodel.optimizer_problem import Solution
from costmodel.optimizer_workspace import OwnedComparison, with_owned, workspace_problem
from costmodel.option_table import Option
from costmodel.owned import HOURS_PER_YEAR
from costmodel.plan import WorkspaceEngine
from costmodel.plan_result import PlanLine, PlanResult, band_dict, lines_band
from costmodel.workspace_model import Workspace
from planning.context import plan_context, scenario_plans
from planning.workspaces import Knobs
from tokendesk.labels import solver_gap


@dataclass(frozen=True)
class Optimized:
    workspace: Workspace
    solution: Solution
    builtins: tuple[PlanResult, ...]
    #: Each built-in scenario priced as the optimizer prices a plan.
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
        if self.solution.objective_usd_per_month is None:
            return None
        return self.comparable[self.stay.name] - self.solution.objective_usd_per_month

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
            "hhi": round(s.hhi, 4) if s.feasible else None,
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
            "stay_usd_per_month": round(self.comparable[self.stay.name], 2),
            "saving_vs_stay_usd_per_month": _money(self.saving_vs_stay),
            "builtin_scenarios": [
                {
                    "name": r.name,
                    "feasible": r.feasible,
                    "constraint_violations": list(r.constraint_violations),
                    "comparable_usd_per_month": round(self.comparable[r.name], 2),
                }
                for r in self.builtins
            ],
            "diversification_frontier": [
                {
                    "max_vendor_share": p.max_vendor_share,
                    "solver_status": p.status,
                    "objective_usd_per_month": _money(p.objective_usd_per_month),
                    "premium_usd_per_month": _money(p.premium_usd_per_month),
                    "hhi": round(p.hhi, 4) if p.feasible else None,
                    "vendor_shares": {k: round(v, 4) for k, v in p.vendor_shares.items()},
                }
                for p in self.frontier
            ],
            "owned_hardware": owned_rows(self.owned),
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
    # Every plan priced on the one basis the verdicts read (``PlanResult.compared_usd_per_month``).
    comparable = {r.name: r.compared_usd_per_month for r in builtins}
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
    """The optimal fleet as a plan beside the others: its month-1 run rate (the lines bought and
    kept), the committed units it gives back that are still paid, its one-time cost and the
    compared cost the verdict reads (the optimizer's objective: the sum of the three, one-time
    spread over the horizon). The optimizer plans month 1; it has no 36-month curve."""

    name: str
    feasible: bool
    monthly_usd: float
    stranded_usd_per_month: float
    one_time_usd: float
    compared_usd_per_month: float
    achieved_by_vendor: dict[str, float]
    fleet: tuple[PlanLine, ...]
    status_sentence: str

    @classmethod
    def of(cls, optimum: Optimized, name: str = "Optimal") -> OptimalPlan:
        s = optimum.solution
        fleet = tuple(
            banded(ln, optimum.estimated.get(ln.option_id))
            for ln in (plan_lines(s) if s.feasible else ())
        )
        return cls(
            name,
            s.feasible,
            sum(c.monthly_usd for c in s.choices),
            s.released_paid_usd_per_month,
            s.one_time_usd,
            s.objective_usd_per_month if s.objective_usd_per_month is not None else float("nan"),
            dict(s.vendor_shares),
            tuple(ln for ln in fleet if ln.count > 0 or ln.monthly_usd > 0),
            f"Solver: {s.status}, {proven_sentence(s)}." if s.feasible else s.message,
        )

    @property
    def monthly_usd_band(self) -> tuple[float, float, float]:
        """(low, base, high) month-1 run rate from the estimated lines' intervals."""
        return lines_band(self.monthly_usd, self.fleet)

    def as_dict(self) -> dict:
        return {
            "name": self.name,
            "feasible": self.feasible,
            # An optimal fleet that could not be solved has no figures (never a $0 plan).
            "monthly_usd": round(self.monthly_usd, 2) if self.feasible else None,
            "monthly_usd_band": band_dict(self.monthly_usd_band) if self.feasible else None,
            "stranded_usd_per_month": round(self.stranded_usd_per_month, 2)
            if self.feasible
            else None,
            "one_time_usd": round(self.one_time_usd, 2),
            "compared_usd_per_month": round(self.compared_usd_per_month, 2)
            if self.feasible
            else None,
            "allocation_by_vendor": {
                "requested": None,
                "achieved": {k: round(v, 6) for k, v in self.achieved_by_vendor.items()},
            },
            "fleet": [ln.as_dict() for ln in self.fleet],
            "solver": self.status_sentence,
        }


def price_source(o: Option) -> dict[str, str]:
    """Where a cloud price comes from, its date and how sure it is."""
    return {
        "source": o.price_source or "source not recorded",
        "source_url": o.price_source_url,
        "as_of": o.price_observed_at.date().isoformat() if o.price_observed_at else "date unknown",
        "confidence": o.price_confidence or "confidence not stated",
    }
