"""One evaluation of every plan for a workspace: the object every surface renders."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from costmodel import Engine
from costmodel.plan import WorkspaceEngine
from costmodel.plan_result import PlanResult
from costmodel.workspace_model import Workspace
from planning.context import planner_for, scenario_plans
from planning.optimal_plan import OptimalPlan, Optimized, optimize
from planning.verdicts import (
    BUY_WORD,
    Contender,
    PlanVerdict,
    decided_plan,
    plan_verdicts,
)
from planning.workspaces import Knobs

if TYPE_CHECKING:
    from warehouse import Warehouse


def compare(engine: Engine, ws: Workspace, knobs: Knobs | None = None) -> tuple[PlanResult, ...]:
    """Stay, the moves and the custom mix, evaluated on one basis."""
    knobs = knobs or Knobs()
    return planner_for(engine, ws, knobs).evaluate(scenario_plans(knobs))


def contender(r: PlanResult) -> Contender:
    return Contender(
        r.name,
        r.feasible,
        r.constraint_violations,
        r.horizon_usd,
        r.is_baseline,
        r.unserved_tokens_per_month,
        r.payback_sentence,
        len(r.monthly_usd_by_month),
        *_ends(r.horizon_usd_band),
    )


def _ends(band: tuple[float, float, float]) -> tuple[float, float]:
    """The horizon total at a plan's band ends (low, high)."""
    return band[0], band[2]


#: The optimizer's plan, by the name every surface gives it.
OPTIMAL = "Optimal"


def optimal_contender(optimum: Optimized) -> Contender:
    """The optimal fleet as the verdict rule reads it: the optimizer-over-time's objective is the
    horizon total itself, on the basis every plan is ranked on."""
    o = OptimalPlan.of(optimum, OPTIMAL)
    return Contender(
        OPTIMAL,
        o.feasible,
        (),
        o.horizon_usd if o.feasible else float("inf"),
        False,
        0.0 if o.feasible else float("nan"),
        o.payback_sentence,
        len(o.monthly_usd_by_month) or 36,
        *(_ends(o.horizon_usd_band) if o.feasible else (None, None)),
    )


@dataclass(frozen=True)
class Evaluation:
    """Every plan for one workspace and its what-ifs — Stay, the moves, a custom mix and, where
    solved, the optimal fleet — each with its verdict by one rule."""

    plans: tuple[PlanResult, ...]
    verdicts: tuple[PlanVerdict, ...]
    optimum: Optimized | None = None
    workspace: Workspace | None = None
    knobs: Knobs | None = None

    @property
    def stay(self) -> PlanResult:
        return next(r for r in self.plans if r.is_baseline)

    @property
    def optimal(self) -> OptimalPlan | None:
        """The optimal fleet as a plan beside the others, where it was solved."""
        return OptimalPlan.of(self.optimum, OPTIMAL) if self.optimum is not None else None

    @property
    def decision(self) -> str:
        """The plan to act on: the one to buy, else the one to keep."""
        return decided_plan(self.verdicts)

    def verdict(self, name: str) -> PlanVerdict:
        return next(v for v in self.verdicts if v.scenario == name)

    @property
    def by_name(self) -> dict[str, PlanVerdict]:
        return {v.scenario: v for v in self.verdicts}

    @property
    def bought(self) -> str | None:
        """The name of the plan to buy, if any (a scenario or Optimal)."""
        return next((v.scenario for v in self.verdicts if v.verdict == BUY_WORD), None)

    @property
    def best(self) -> PlanResult | None:
        """The scenario bought, if the plan bought is one (not Optimal)."""
        return next((r for r in self.plans if r.name == self.bought), None)


def verdicts_of(plans: Sequence[PlanResult], optimum: Optimized | None = None) -> list[PlanVerdict]:
    contenders = [contender(r) for r in plans]
    if optimum is not None:
        contenders.append(optimal_contender(optimum))
    return plan_verdicts(contenders)


def as_evaluation(found: Evaluation | Sequence[PlanResult]) -> Evaluation:
    """An evaluation as is, or one of bare plans (no optimum solved)."""
    if isinstance(found, Evaluation):
        return found
    plans = tuple(found)
    return Evaluation(plans, tuple(verdicts_of(plans)))


def evaluate(
    engine: Engine,
    ws: Workspace,
    knobs: Knobs | None = None,
    *,
    optimal: bool = True,
    frontier: bool = False,
) -> Evaluation:
    """Every plan for ``ws``: the scenarios and, ``optimal``, the optimizer's fleet (its main
    solve; ``frontier`` adds the price of diversification, one solve per vendor-share cap)."""
    knobs = knobs or Knobs()
    if optimal:
        optimum = optimize(engine, ws, knobs, with_frontier=frontier)
        plans = optimum.builtins
    else:
        optimum, plans = None, compare(engine, ws, knobs)
    return Evaluation(plans, tuple(verdicts_of(plans, optimum)), optimum, ws, knobs)


@dataclass(frozen=True)
class CostGap:
    """Why Stay's cost per output token differs from the cheapest option's: factors that
    multiply from the option's $/1K to Stay's, each named."""

    stay_usd_per_1k: float
    market_usd_per_1k: float
    factors: tuple[tuple[str, float], ...]

    @property
    def ratio(self) -> float:
        return self.stay_usd_per_1k / self.market_usd_per_1k


def unit_cost_gap(
    planner: WorkspaceEngine, stay: PlanResult, market_usd_per_1k: float
) -> CostGap | None:
    """Stay's month-1 cost per 1K output tokens its demand asks for, against the cheapest
    option's $/1K at its measured throughput, in three factors that multiply exactly:

    * the fleet's own hardware and rates, read at full at-SLO throughput and the workloads'
      input:output mix, against the cheapest option;
    * planning headroom: capacity is planned to the utilisation cap × availability;
    * capacity idle in the off-peak hours, rounding to whole units and any top-ups.

    None where there is nothing to compare (no fleet capacity, no demand, no option)."""
    tokens_k = sum(w.output_tokens_per_month for w in planner.ws.demand) / 1000
    fleet_usd = dict(stay.month1_parts).get("fleet", 0.0)
    capacity = sum(c.units * c.unit_tok_s for c in planner.fleet)  # output tok/s at the SLO
    if tokens_k <= 0 or capacity <= 0 or fleet_usd <= 0 or market_usd_per_1k <= 0:
        return None
    from costmodel.demand import HOURS_PER_MONTH
    from tokendesk.metrics import usd_per_1k_tokens

    full = usd_per_1k_tokens(fleet_usd / HOURS_PER_MONTH, capacity)
    headroom = 1.0 / (planner.policy.utilisation_cap * planner.policy.availability)
    stay_per_1k = stay.monthly_usd / tokens_k
    factors = (
        ("your fleet's hardware and rates at full at-SLO throughput", full / market_usd_per_1k),
        (
            f"planning headroom (utilisation cap {planner.policy.utilisation_cap:.0%},"
            f" availability {planner.policy.availability:.0%})",
            headroom,
        ),
        (
            "capacity idle off-peak, whole units and top-ups",
            stay_per_1k / (full * headroom),
        ),
    )
    return CostGap(stay_per_1k, market_usd_per_1k, factors)


def solve_ahead(warehouse: Warehouse) -> float | None:
    """Evaluate the stored workspace at its own settings — what the dashboard's first page and
    ``tokendesk scenarios`` ask first — so the optimizer's proven answer is kept in the solution
    store before anyone asks (``planning.solution_store``). Seconds taken, or None when no store
    is kept (nothing would be kept for later)."""
    from planning import solution_store
    from planning.workspaces import engine_for, stored_workspace

    if solution_store.default_store() is None:
        return None
    started = time.perf_counter()
    _, ws = stored_workspace(warehouse)
    evaluate(engine_for(warehouse, ws), ws, Knobs())
    return time.perf_counter() - started
