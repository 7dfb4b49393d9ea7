"""Capacity by workload shape: the result at the nearest measured shape of a configuration, the
rule that reads it at the workload's shape, and prefix-cache pricing, checked by hand.

The hand rule (``costmodel.shape``): with no measured prefill share an input token takes a
quarter of an output token's time (w = 1/4), and cached input tokens need no prefill, so output
capacity at the workload's shape = capacity measured × (1 + r_b(1 − c_b)/4) / (1 + r_w(1 − c_w)/4).
"""

from __future__ import annotations

import pytest

from costmodel import Engine
from costmodel.plan import WorkspaceEngine
from costmodel.plan_inputs import PlanContext
from costmodel.shape import NEAR_CACHE_SHARE, NEAR_RATIO_FACTOR, shape_distance
from costmodel.sizing import OnDemandBasis
from costmodel.workspace_model import WorkspaceError, workspace_from_dict
from tests.factories import default_plans, frame
from tests.shape_data import CACHED, CHAT, PROMPT_HEAVY, chat_only
from tests.workspace_data import HOURS


def planner(data: dict, *sweeps) -> WorkspaceEngine:
    options = frame(*(sweeps or (CHAT, PROMPT_HEAVY)))
    return WorkspaceEngine(Engine.from_frame(options), PlanContext(workspace_from_dict(data)))


def basis(plan: WorkspaceEngine) -> dict:
    stay = plan.evaluate(default_plans())[0]
    return stay.as_dict()["workloads"][0]["capacity_basis"][0]


def test_near_is_a_factor_of_two_in_input_output_and_a_fifth_in_cache_share():
    assert NEAR_RATIO_FACTOR == 2 and NEAR_CACHE_SHARE == 0.2
    assert shape_distance(4.0, 0.0, 2.0, None) == pytest.approx(1.0)  # twice: still near
    assert shape_distance(2.0, None, 67.0, None) == pytest.approx(5.066, abs=1e-3)
    # A result that records no cache share is read as 0: 0.7 away is 3.5 fifths away.
    assert shape_distance(2.0, float("nan"), 2.0, 0.7) == pytest.approx(3.5)
    assert shape_distance(float("nan"), 0.0, 2.0, None) == float("inf")


def test_the_nearest_measured_shape_is_used_and_named():
    chat = planner(chat_only())
    heavy = planner(chat_only(input_per_output=20.0))
    # Chat reads the 2:1 result as measured; the 20:1 workload reads the 20:1 one (2,400 tok/s).
    assert chat.fleet[0].unit_tok_s == pytest.approx(8000)
    assert heavy.fleet[0].unit_tok_s == pytest.approx(2400)
    found = basis(heavy)
    assert found["kind"] == "measured"
    assert found["at"] == {"input_tokens": 4000, "output_tokens": 200, "prefix_cache_share": None}
    assert found["factor"] == pytest.approx(1.0)


def test_with_no_result_near_the_capacity_is_an_estimate_with_its_gap():
    # 67:1 is more than twice 20:1: the 20:1 result, read by the stated rule, ×(1 + 5)/(1 + 67/4).
    far = planner(chat_only(input_per_output=67.0))
    assert far.fleet[0].unit_tok_s == pytest.approx(2400 * 6 / 17.75)
    found = basis(far)
    assert found["kind"] == "estimated"
    assert found["gap"] == "nearest measured shape 20:1, workload 67:1"
    assert "stated rule" in found["rule"]
    # With only the 2:1 result, the gap says so: 8,000 × 1.5 / 17.75.
    only_chat = planner(chat_only(input_per_output=67.0), CHAT)
    assert only_chat.fleet[0].unit_tok_s == pytest.approx(8000 * 1.5 / 17.75)
    assert basis(only_chat)["gap"] == "nearest measured shape 2:1, workload 67:1"


def test_cached_input_tokens_need_no_prefill_where_no_result_was_measured_at_that_share():
    cached = planner(chat_only(cache=0.7))
    # 2:1 with 70% cached prefills 0.6 input tokens per output token: 8,000 × 1.5 / 1.15.
    assert cached.fleet[0].unit_tok_s == pytest.approx(8000 * 1.5 / 1.15)
    found = basis(cached)
    assert found["kind"] == "estimated"
    assert "cached input tokens need no prefill compute" in found["rule"]
    assert found["gap"] == "nearest measured shape 2:1, workload 2:1, 70% cached"


def test_a_result_measured_at_the_cache_share_is_used_where_one_exists():
    cached = planner(chat_only(cache=0.7), CHAT, CACHED)
    assert cached.fleet[0].unit_tok_s == pytest.approx(9000)
    found = basis(cached)
    assert found["kind"] == "measured"
    assert found["at"]["prefix_cache_share"] == 0.7
    # Chat with no cache share stated still reads the uncached result.
    assert planner(chat_only(), CHAT, CACHED).fleet[0].unit_tok_s == pytest.approx(8000)


def test_prompt_heavy_costs_more_and_a_cached_prefix_less_per_output_token():
    """All-in $ per 1K output tokens of one on-demand p5 ($80/h) at its capacity at the SLO."""
    usd_per_1k = {}
    for name, data in {
        "chat": chat_only(),
        "prompt-heavy": chat_only(input_per_output=20.0),
        "cached": chat_only(cache=0.7),
    }.items():
        p5 = planner(data).fleet[1]
        usd_per_1k[name] = 80.0 / (p5.unit_tok_s * 3.6)
    assert usd_per_1k["chat"] == pytest.approx(80 / (8000 * 3.6))
    assert usd_per_1k["prompt-heavy"] == pytest.approx(80 / (2400 * 3.6))  # 3.3 times chat
    assert usd_per_1k["cached"] == pytest.approx(80 / (8000 * 1.5 / 1.15 * 3.6))  # 23% less
    # The split of that hour: a quarter-weight input token, at 2:1 a third of the hour is prefill.
    split = basis(planner(chat_only()))["unit_cost_at_slo"]
    assert split["prefill_time_share"] == pytest.approx(1 / 3)
    # The fleet's first line is the reserved p5 at $50/h.
    assert split["usd_per_1k_output_tokens"] == pytest.approx(50 * 2 / 3 / (8000 * 3.6), abs=1e-9)
    assert split["usd_per_1k_input_tokens"] == pytest.approx(50 / 3 / (16000 * 3.6), abs=1e-9)


def test_stay_pays_top_ups_for_a_prompt_heavy_workload_and_less_for_a_cached_one():
    # Autoscaled on-demand lines follow the load, so a fleet that carries more pays for fewer
    # on-demand hours; the prompt-heavy workload needs top-ups beyond the fleet.
    runs = {
        name: planner(chat_only(on_demand_basis=OnDemandBasis.AUTOSCALED, **shape)).evaluate(
            default_plans()
        )[0]
        for name, shape in {
            "chat": {},
            "prompt-heavy": {"input_per_output": 20.0},
            "cached": {"cache": 0.7},
        }.items()
    }
    reserved = 4 * 50 * HOURS
    assert runs["prompt-heavy"].monthly_usd > runs["chat"].monthly_usd > runs["cached"].monthly_usd
    assert runs["cached"].monthly_usd >= reserved
    assert dict(runs["prompt-heavy"].month1_parts)["top-up"] > 0


def test_the_prefix_cache_share_is_validated_and_kept():
    data = chat_only()
    data["demand"][0]["prefix_cache_share"] = 1.5
    with pytest.raises(WorkspaceError) as err:
        workspace_from_dict(data)
    assert "demand[0].prefix_cache_share" in str(err.value)
    assert "between 0 and 1" in str(err.value)
    data["demand"][0]["prefix_cache_share"] = 0.4
    data["demand"][0]["input_tokens_mean"] = 1986.6
    ws = workspace_from_dict(data)
    assert ws.demand[0].prefix_cache_share == 0.4
    shape = planner(data).evaluate(default_plans())[0].as_dict()["workloads"][0]
    assert shape["prefix_cache_share"] == 0.4
    assert shape["input_tokens_mean"] == 1986.6 and shape["output_tokens_mean"] is None
    assert shape["mean_basis"] == "given in the workspace"


def test_where_ttft_and_tpot_are_measured_the_split_and_the_reading_use_the_measured_time():
    timed = [dict(row, ttft_ms_p50=200.0, tpot_ms_p50=20.0) for row in CHAT]
    # Prefill takes TTFT ÷ (TTFT + TPOT × (500 − 1)) of a request's time at 2:1, so an input
    # token takes w = p / (1 − p) / 2 of an output token's time.
    p = 200 / (200 + 20 * 499)
    w = p / (1 - p) / 2
    chat = planner(chat_only(), timed)
    split = basis(chat)["unit_cost_at_slo"]
    assert split["prefill_time_share"] == pytest.approx(
        p, abs=1e-6
    )  # at its own shape: as measured
    assert split["split_rule"] == "measured prefill/decode time share"
    # Read at 20:1 (more than twice away: an estimate) by the measured weight.
    heavy = planner(chat_only(input_per_output=20.0), timed)
    assert heavy.fleet[0].unit_tok_s == pytest.approx(8000 * (1 + 2 * w) / (1 + 20 * w))
    assert "measured prefill/decode time share" in basis(heavy)["rule"]
    # 70% cached at 20:1 prefills 6 tokens per output token.
    cached = planner(chat_only(input_per_output=20.0, cache=0.7), timed)
    assert cached.fleet[0].unit_tok_s == pytest.approx(8000 * (1 + 2 * w) / (1 + 6 * w))


def test_a_workloads_shape_survives_the_yaml_and_an_edit_of_the_workspace_table():
    from app.models.workspace import demand_rows, edited_workspace, fleet_rows
    from costmodel.workspace_model import workspace_to_dict

    data = chat_only(cache=0.7)
    data["demand"][0] |= {
        "input_tokens_mean": 1986.579,
        "output_tokens_mean": 29.512,
        "shape_source": "from the trace code.csv (2,000 requests)",
    }
    ws = workspace_from_dict(data)
    assert workspace_from_dict(workspace_to_dict(ws)) == ws
    # The page's table has no shape columns: a workload kept under its name keeps its shape.
    rows = demand_rows(ws)
    rows[0]["output_tokens_per_month"] = 60e9
    edited, problems = edited_workspace(ws, fleet_rows(ws), rows)
    assert not problems and edited is not None
    kept = edited.demand[0]
    assert kept.output_tokens_per_month == 60e9
    assert (kept.prefix_cache_share, kept.input_tokens_mean, kept.shape_source) == (
        0.7,
        1986.579,
        "from the trace code.csv (2,000 requests)",
    )
