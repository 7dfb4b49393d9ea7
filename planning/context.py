"""The what-ifs as the engine's context, and the plans a comparison holds: one place turns the
knobs into policy, migration inputs and scenarios."""

from __future__ import annotations

from costmodel import Engine, FleetPolicy
from costmodel.market import MigrationInputs
from costmodel.plan import WorkspaceEngine
from costmodel.plan_inputs import PlanContext, PlanScenario, builtin_plans, custom_plan
from costmodel.workspace_model import Workspace
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
