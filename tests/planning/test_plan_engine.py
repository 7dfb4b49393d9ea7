"""The plan engine on a company's own mixed fleet: allocation per vendor and backend from each
line's own hardware, one pricing basis for Stay and every alternative, the saving in parts that
add up, and input tokens that count."""

from __future__ import annotations

import pytest

from costmodel import Engine
from costmodel.plan import WorkspaceEngine
from costmodel.plan_inputs import PlanContext, custom_plan
from costmodel.shape_physics import model_factors
from costmodel.sizing import OnDemandBasis
from costmodel.workspace_model import workspace_from_dict
from planning.evaluation import verdicts_of
from planning.verdicts import NO_BUY_WORD
from tests.factories import default_plans
from tests.workspace_data import HOURS, OPTIONS, workspace

#: 4 p5 (8,000 tok/s each at the 900 ms SLO) and 2 MI300X nodes (6,000 tok/s each) serve chat.
MIXED_CHAT = 4 * 8000 + 2 * 6000


def mixed(**changes) -> dict:
    data = workspace(**changes)
    data["fleet"] = [
        data["fleet"][0],
        {
            "provider": "oci",
            "region": "global",
            "instance_type": "BM.GPU.MI300X.8",
            "count": 2,
            "pricing_model": "on_demand",
            "serves": "chat",
        },
        data["fleet"][2],
    ]
    return data


def planner(data: dict, options=OPTIONS) -> WorkspaceEngine:
    return WorkspaceEngine(Engine.from_frame(options), PlanContext(workspace_from_dict(data)))


def test_a_mixed_fleet_is_read_per_line_not_as_one_vendor():
    stay, shift, _ = planner(mixed()).evaluate(default_plans())
    # chat is 50 of 60 billion output tokens; its AMD lines carry 12,000 of 44,000 tok/s.
    amd = 50 / 60 * 2 * 6000 / MIXED_CHAT
    assert stay.requested_allocation == pytest.approx({"cuda": 1 - amd, "rocm": amd})
    assert stay.requested_by_vendor == pytest.approx({"NVIDIA": 1 - amd, "AMD": amd})
    assert stay.achieved_by_vendor == pytest.approx({"NVIDIA": 1 - amd, "AMD": amd})
    # The cap is read per vendor: NVIDIA carries 73%, under the 80% cap; no "NVIDIA / AMD".
    assert not stay.constraint_violations
    assert all("/" not in v for v in stay.allocation_notes)


def test_shift_to_amd_starts_from_the_fleets_own_amd_share_and_ports_nothing():
    data = mixed()
    stay, shift, _ = planner(data).evaluate(default_plans())
    amd_now = 2 * 6000 / MIXED_CHAT
    # Every workload asks for 25% more on AMD; chat's AMD lines keep their share and 25% more
    # moves onto AMD, while the 8B workload has no AMD result and stays where it is.
    assert shift.requested_by_vendor["AMD"] == pytest.approx(
        50 / 60 * (amd_now + 0.25) + 10 / 60 * 0.25
    )
    # Achieved: the new AMD capacity carries 25% of chat, and the fleet's kept lines carry the
    # rest in proportion to the capacity kept (whole p5s are given back: 3 of 4 kept).
    p5 = sum(
        ln.count
        for ln in shift.fleet
        if ln.role == "fleet" and ln.backend == "cuda" and ln.workload == "chat"
    )
    kept_amd = 2 * 6000 / (p5 * 8000 + 2 * 6000)
    assert p5 == 3
    assert shift.achieved_by_vendor["AMD"] == pytest.approx(50 / 60 * (0.25 + 0.75 * kept_amd))
    kept = [ln for ln in shift.fleet if ln.role == "fleet" and ln.backend == "rocm"]
    assert [ln.count for ln in kept] == [2], "the fleet's AMD lines are kept, not dropped"
    # The fleet already runs ROCm: no port, no porting weeks, no stage-gate wait.
    assert shift.one_time_usd == 0
    assert not shift.one_time_notes
    assert shift.cutover_month == 1


def test_a_custom_mix_is_honoured_and_named_by_what_it_asks():
    plan = custom_plan((("cuda", 0.5), ("rocm", 0.5)))
    assert plan.name == "Custom: NVIDIA 50% / AMD 50%"
    found = planner(mixed()).evaluate((*default_plans(), plan))[-1]
    # Both workloads ask for half and half; the 8B has no AMD result, so that half is refused.
    assert found.requested_allocation == pytest.approx({"cuda": 0.5, "rocm": 0.5})
    assert not found.feasible
    assert any("no AMD result for Llama-3.1-8B-Instruct" in n for n in found.allocation_notes)
    assert verdicts_of(planner(mixed()).evaluate((*default_plans(), plan)))[-1].verdict == (
        NO_BUY_WORD
    )


def test_a_plan_that_is_stay_costs_what_stay_costs_on_either_basis():
    for basis in ("held", "autoscaled"):
        data = mixed(on_demand_basis=basis)
        stay, _, cpu = planner(data).evaluate(default_plans())
        # No CPU result for the 8B model: the fallback moves nothing and is Stay by another name.
        assert cpu.achieved_share == 0
        assert cpu.monthly_usd_by_month == pytest.approx(stay.monthly_usd_by_month)
        assert cpu.savings_vs_stay_usd == pytest.approx(0.0)


def test_on_demand_fleet_lines_follow_the_load_only_when_the_workspace_says_so():
    held = planner(workspace()).evaluate(default_plans())[0]
    scaled = planner(workspace(on_demand_basis=OnDemandBasis.AUTOSCALED)).evaluate(default_plans())[
        0
    ]
    # Held: every unit all month (4 reserved at $50, 2 + 1 on demand at $80 / $79.99).
    assert held.monthly_usd == pytest.approx((4 * 50 + 2 * 80 + 79.99) * HOURS)
    # Autoscaled: the reserved units carry the load first; the on-demand p5s are paid for the
    # hours the day's curve needs them, so Stay costs less, and the basis is said on the plan.
    assert scaled.monthly_usd < held.monthly_usd
    reserved = 4 * 50 * HOURS
    assert scaled.monthly_usd >= reserved
    assert any("follows the hourly load" in n for n in scaled.notes)
    assert any("paid for every unit held" in n for n in held.notes)


def test_every_saving_is_the_sum_of_its_named_parts():
    for data in (workspace(), mixed(), mixed(on_demand_basis=OnDemandBasis.AUTOSCALED)):
        stay, *moves = planner(data).evaluate(default_plans(amd_share=0.5))
        for r in moves:
            parts = dict(r.savings_parts)
            assert sum(parts.values()) == pytest.approx(r.savings_vs_stay_usd, abs=0.01)
            total = sum(stay.monthly_usd_by_month) - sum(r.monthly_usd_by_month) - r.one_time_usd
            assert sum(v for _, v in r.horizon_savings_parts) == pytest.approx(total, abs=0.01)


def test_input_tokens_count_and_the_basis_is_said():
    options = OPTIONS.copy()
    options["input_tokens"], options["output_tokens"] = 1000, 1000
    base = workspace()
    heavy = workspace()
    heavy["demand"][0]["input_tokens_per_month"] = 10 * base["demand"][0]["input_tokens_per_month"]
    light, prompt_heavy = (planner(d, options) for d in (base, heavy))
    # The benchmark ran 1:1; chat asks 2:1, and ten times the prompts 20:1. With no measured
    # prefill share the performance model carries the measured 8,000 tok/s per p5 to each
    # shape by its own ratio (estimate at the workload's shape ÷ at the result's).
    p5 = light.fleet[0].option
    at_2, at_20 = (float(model_factors([p5], r)[0]) for r in (2.0, 20.0))
    assert at_20 < at_2 < 1.0  # every input token costs prefill time
    assert light.fleet[0].unit_tok_s == pytest.approx(8000 * at_2)
    assert prompt_heavy.fleet[0].unit_tok_s == pytest.approx(8000 * at_20)
    assert "performance model" in light.fleet[0].mix_basis and "2:1" in light.fleet[0].mix_basis
    stay_light = light.evaluate(default_plans())[0]
    stay_heavy = prompt_heavy.evaluate(default_plans())[0]
    assert stay_heavy.monthly_usd > stay_light.monthly_usd  # it needs top-ups
    shape = stay_heavy.as_dict()["workloads"][0]
    assert shape["input_per_output_token"] == 20 and shape["fleet_capacity_basis"]
