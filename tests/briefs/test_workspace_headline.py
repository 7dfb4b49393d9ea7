"""The one-sentence headline the Overview and Scenarios pages share: it names the plan the
verdicts buy, never a plan that moved nothing or one that costs more."""

from __future__ import annotations

from briefs.workspace_plans import headline
from costmodel import Engine
from costmodel.plan import WorkspaceEngine
from costmodel.plan_inputs import PlanContext
from costmodel.workspace_model import workspace_from_dict
from planning.evaluation import verdicts_of
from planning.verdicts import decided_plan
from tests.factories import default_plans
from tests.workspace_data import OPTIONS, workspace


def results(data: dict):
    engine = WorkspaceEngine(Engine.from_frame(OPTIONS), PlanContext(workspace_from_dict(data)))
    return engine.evaluate(default_plans(amd_share=0.5))


def test_a_plan_that_moved_nothing_is_not_an_alternative():
    # Only the 8B workload: the options hold no AMD or CPU result for it, so every move
    # achieves 0% and is Stay by another name.
    data = workspace()
    data["demand"] = [data["demand"][1]]
    data["fleet"] = [data["fleet"][2]]
    found = results(data)
    assert all(r.achieved_allocation == found[0].achieved_allocation for r in found)
    text = headline(found)
    assert "no alternative changes the fleet" in text and "best alternative" not in text


def test_a_dearer_move_is_the_closest_not_the_best():
    data = workspace()
    for line in data["fleet"]:  # the fleet's own rates are far below any market price
        line["usd_per_hour"] = 5.0
    found = results(data)
    stay = found[0]
    moved = [
        r for r in found[1:] if r.feasible and r.achieved_allocation != stay.achieved_allocation
    ]
    assert moved and min(r.monthly_usd for r in moved) > stay.monthly_usd
    text = headline(found)
    assert "no alternative to buy: the closest" in text and "the plan to buy" not in text
    # The verdict ranks on the horizon total, and its words say so.
    assert "more than Stay over 36 months" in text


def test_a_cheaper_move_is_the_best_alternative_with_its_saving():
    data = workspace()
    # No commitment to strand: every p5 is on demand, so the move to AMD pays for itself.
    data["fleet"][0] = {
        k: v for k, v in data["fleet"][0].items() if k not in ("commitment_end", "pricing_model")
    } | {"pricing_model": "on_demand"}
    found = results(data)
    stay = found[0]
    verdicts = verdicts_of(found)
    bought = decided_plan(verdicts)
    best = next(r for r in found if r.name == bought)
    assert not best.is_baseline and best.compared_usd_per_month < stay.compared_usd_per_month
    # The plan the sentence names is the one the verdicts buy: the cheapest on the compared basis.
    assert best.compared_usd_per_month == min(
        r.compared_usd_per_month for r in found if r.feasible and not r.constraint_violations
    )
    # The sentence's percentage is on the horizon total, the figure the verdict ranks on.
    saving = 1 - best.horizon_usd / stay.horizon_usd
    assert f"the plan to buy, {best.headline}" in headline(found)
    assert f"({saving:.1%} less than Stay)" in headline(found)
