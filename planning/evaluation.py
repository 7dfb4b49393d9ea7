"""One evaluation of every plan for a workspace: the object every surface renders."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from costmodel import Engine, FleetPolicy
from costmodel.plan import (
    PlanContext,
    PlanResult,
    PlanScenario,
    WorkspaceEngine,
    builtin_plans,
    custom_plan,
)
from costmodel.scenarios import MigrationInputs
from costmodel.workspace import Workspace
from planning.verdicts import (
    BUY_WORD,
    Contender,
    PlanVerdict,
    decided_plan,
    plan_verdicts,
)
from planning.workspaces import Knobs


def plan_context(ws: Workspace, knobs: Knobs) -> PlanContext:
    """The what-ifs as the engine's context: one place turns knobs into policy and inputs."""
    return PlanContext(
        ws,
        policy=FleetPolicy(utilisation_cap=knobs.utilisation_cap),
        migration=MigrationInputs(loaded_usd_per_engineer_week=knobs.loaded_usd_per_engineer_week),
        one_time_usd_by_backend=dict(knobs.one_time_usd_by_backend),
    )


def planner_for(engine: Engine, ws: Workspace, knobs: Knobs | None = None) -> WorkspaceEngine:
    return WorkspaceEngine(engine, plan_context(ws, knobs or Knobs()))


def scenario_plans(knobs: Knobs) -> list[PlanScenario]:
    plans: list[PlanScenario] = list(builtin_plans(knobs.amd_share, knobs.cpu_share))
    if knobs.custom:
        plans.append(custom_plan(knobs.custom))
    return plans


def compare(engine: Engine, ws: Workspace, knobs: Knobs | None = None) -> tuple[PlanResult, ...]:
    """Stay, the moves and the custom mix, evaluated on one basis."""
    knobs = knobs or Knobs()
    return planner_for(engine, ws, knobs).evaluate(scenario_plans(knobs))


def contender(r: PlanResult) -> Contender:
    return Contender(
        r.name,
        r.feasible,
        r.constraint_violations,
        r.compared_usd_per_month,
        r.is_baseline,
        r.unserved_tokens_per_month,
        r.payback_sentence,
    )


@dataclass(frozen=True)
class Evaluation:
    """Every plan for one workspace and its what-ifs, each with its verdict by one rule."""

    workspace: Workspace
    knobs: Knobs
    plans: tuple[PlanResult, ...]
    verdicts: tuple[PlanVerdict, ...]

    @property
    def stay(self) -> PlanResult:
        return next(r for r in self.plans if r.is_baseline)

    @property
    def decision(self) -> str:
        """The plan to act on: the one to buy, else the one to keep."""
        return decided_plan(self.verdicts)

    def verdict(self, name: str) -> PlanVerdict:
        return next(v for v in self.verdicts if v.scenario == name)

    @property
    def best(self) -> PlanResult | None:
        """The plan bought, if any."""
        name = next((v.scenario for v in self.verdicts if v.verdict == BUY_WORD), None)
        return next((r for r in self.plans if r.name == name), None)


def evaluate(engine: Engine, ws: Workspace, knobs: Knobs | None = None) -> Evaluation:
    knobs = knobs or Knobs()
    plans = compare(engine, ws, knobs)
    return Evaluation(ws, knobs, plans, tuple(verdicts_of(plans)))


def verdicts_of(plans: Sequence[PlanResult]) -> list[PlanVerdict]:
    return plan_verdicts([contender(r) for r in plans])
