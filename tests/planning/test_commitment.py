"""How much to commit is read off the optimizer's path: the stated demand's commitments are the
path ``optimize`` solves, and each demand scenario re-solves the same programme with its demand."""

from __future__ import annotations

import pytest

from costmodel import Engine
from costmodel.optimizer_horizon import commitment_rows, solve_horizon
from costmodel.optimizer_workspace import horizon_problem
from costmodel.plan_inputs import growth_factor, hourly_load
from costmodel.workspace_model import workspace_from_dict
from planning.commitment import _scenario_problem, commitments
from planning.context import planner_for
from planning.workspaces import Knobs
from tests.workspace_data import OPTIONS, workspace

SCENARIOS = [
    {"name": "low", "probability": 0.25, "demand_factor": 0.5, "growth_per_quarter": 0},
    {"name": "base", "probability": 0.5},
    {"name": "high", "probability": 0.25, "demand_factor": 1.5, "growth_per_quarter": 0.2},
]


@pytest.fixture(scope="module")
def stated():
    ws = workspace_from_dict(workspace(commitment={"scenarios": SCENARIOS, "discount_3y": 0.5}))
    return ws, Engine.from_frame(OPTIONS)


def test_the_stated_demand_is_the_optimizers_path(stated):
    ws, engine = stated
    plan = commitments(engine, ws)
    problem = horizon_problem(planner_for(engine, ws, Knobs()))
    solution = solve_horizon(problem)
    assert list(plan.rows) == commitment_rows(problem, solution)
    assert plan.horizon_usd == pytest.approx(solution.horizon_usd, abs=0.01)
    base = next(s for s in plan.scenarios if s.name == "base")
    assert base.rows == plan.rows and base.horizon_usd == plan.horizon_usd


def test_each_scenario_is_solved_on_its_own_demand(stated):
    ws, engine = stated
    problem = horizon_problem(planner_for(engine, ws, Knobs()))
    high = ws.commitment.scenarios[2]
    scaled = _scenario_problem(problem, ws, high)
    for w in ws.demand:
        # Month 7 is two quarters in: 1.5 × 1.2² of the stated month-1 demand.
        assert scaled.loads[w.workload][6] == pytest.approx(tuple(hourly_load(w, 1.5 * 1.2**2)))
        # The stated problem grows at the workload's own rate.
        assert problem.loads[w.workload][6] == pytest.approx(
            tuple(hourly_load(w, growth_factor(w, 7)))
        )
    plan = commitments(engine, ws)
    totals = {s.name: s.horizon_usd for s in plan.scenarios}
    # Less demand in every hour can never cost more: any path for more demand carries less.
    assert totals["low"] <= totals["base"] + 0.01 <= totals["high"] + 0.02
    assert [r["scenario"] for r in plan.scenario_rows()] == ["low", "base", "high"]
