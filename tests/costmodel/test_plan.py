"""Scenarios from a hand-computed workspace: Stay is the fleet as it is, moves respect
commitments, an unserved plan is infeasible and never the cheapest, achieved vs requested."""

from __future__ import annotations

from datetime import date

import pytest

from costmodel import Engine
from costmodel.plan import WorkspaceEngine
from costmodel.plan_inputs import (
    PlanContext,
    custom_plan,
    growth_factor,
    month_start,
)
from costmodel.workspace_model import (
    WorkspaceError,
    workspace_from_dict,
    workspace_to_dict,
)
from planning.evaluation import verdicts_of
from planning.verdicts import NO_BUY_WORD, decided_plan
from tests.factories import default_plans
from tests.workspace_data import HOURS, OPTIONS, workspace


def engine(data: dict | None = None) -> WorkspaceEngine:
    ws = workspace_from_dict(data or workspace())
    return WorkspaceEngine(Engine.from_frame(OPTIONS), PlanContext(ws))


def test_stay_month_one_is_count_times_rate_times_730_to_the_cent():
    results = engine().evaluate(default_plans())
    stay = results[0]
    # 4 reserved at $50 (given), 2 on-demand at the $80 list price, 1 at $79.99 (given).
    expected = (4 * 50.0 + 2 * 80.0 + 1 * 79.99) * HOURS
    assert expected == pytest.approx(321_192.70)
    assert round(stay.monthly_usd, 2) == round(expected, 2)
    assert round(stay.monthly_usd_by_month[0], 2) == round(expected, 2)
    assert len(stay.monthly_usd_by_month) == 36
    assert stay.feasible and stay.fleet_shortfall_tokens_per_month == 0
    assert [ln.role for ln in stay.fleet] == ["fleet"] * 3
    assert sum(ln.monthly_usd for ln in stay.fleet) == pytest.approx(expected)
    assert stay.requested_allocation == {"cuda": 1.0}
    assert stay.payback_month is None


def test_capacity_comes_from_the_benchmark_at_the_slo():
    eng = engine()
    assert eng.fleet_capacity("chat") == pytest.approx(6 * 8000 * 0.8 * 0.95)


def test_a_shift_of_committed_capacity_saves_nothing_before_commitment_end():
    data = workspace()
    data["fleet"] = [dict(data["fleet"][0], count=6), data["fleet"][2]]
    results = engine(data).evaluate(default_plans(amd_share=0.5))
    stay, shift = results[0], results[1]
    end = date(2027, 6, 30)
    months_in_term = [m for m in range(1, 37) if month_start(date(2026, 12, 1), m) < end]
    assert months_in_term == list(range(1, 8))
    for m in months_in_term:
        assert shift.monthly_usd_by_month[m - 1] >= stay.monthly_usd_by_month[m - 1] - 0.005
    # Half the chat capacity (3 of 6 units) is released; after the term they are no longer paid.
    released = 3 * 50.0 * HOURS
    after = stay.monthly_usd_by_month[7] - shift.monthly_usd_by_month[7]
    amd = sum(ln.monthly_usd for ln in shift.fleet if ln.role == "new")
    assert after == pytest.approx(released - amd)
    assert shift.savings_vs_stay_usd == pytest.approx(released - amd)
    # Payback is read from the curve: never before the commitment ends.
    assert shift.payback_month is None or shift.payback_month >= 8


def test_early_termination_is_used_when_cheaper_than_paying_out_the_term():
    data = workspace()
    data["fleet"] = [
        dict(data["fleet"][0], count=6, early_termination_usd=6000.0),
        data["fleet"][2],
    ]
    shift = engine(data).evaluate(default_plans(amd_share=0.5))[1]
    assert any("early for $3,000" in note for note in shift.one_time_notes)
    assert shift.one_time_usd >= 3000.0


def test_an_unserved_plan_is_infeasible_and_never_the_cheapest():
    eng = engine()
    results = eng.evaluate((*default_plans(), custom_plan((("hpu", 1.0),))))
    hpu = results[-1]
    assert not hpu.feasible
    assert hpu.unserved_tokens_per_month == pytest.approx(60e9)
    assert hpu.unserved_reasons
    assert hpu.payback_month is None
    verdicts = verdicts_of(results)
    assert verdicts[-1].verdict == NO_BUY_WORD
    assert decided_plan(verdicts) != hpu.name
    assert "INFEASIBLE" in hpu.headline


def test_achieved_allocation_differs_from_requested_with_the_reason():
    shift = engine().evaluate(default_plans(amd_share=0.25))[1]
    # chat is 50 of 60 billion output tokens; the small workload has no AMD result.
    assert shift.requested_allocation["rocm"] == pytest.approx(0.25)
    assert shift.achieved_allocation["rocm"] == pytest.approx(0.25 * 50 / 60)
    assert "20.83% achieved" in shift.headline
    assert "no AMD result for Llama-3.1-8B-Instruct" in shift.headline


def test_a_plan_that_achieves_no_move_costs_what_stay_costs():
    results = engine().evaluate(default_plans())
    stay, cpu = results[0], results[2]
    assert cpu.achieved_allocation == {"cuda": 1.0}
    assert cpu.monthly_usd_by_month == pytest.approx(stay.monthly_usd_by_month)
    assert cpu.payback_month is None


def test_growth_adds_a_labelled_top_up_once_the_fleet_is_short():
    data = workspace()
    data["demand"][0]["growth_per_quarter"] = 0.5
    stay = engine(data).evaluate(default_plans())[0]
    assert growth_factor(workspace_from_dict(data).demand[0], 4) == 1.5
    # Month 1 fits in the fleet (peak 27,588 tok/s); month 4 (50% more) exceeds its 36,480.
    assert stay.monthly_usd_by_month[3] > stay.monthly_usd_by_month[0]
    assert stay.monthly_usd_by_month[2] == stay.monthly_usd_by_month[0]
    fixed = (4 * 50.0 + 2 * 80.0 + 79.99) * HOURS
    assert stay.monthly_usd_by_month[0] == pytest.approx(fixed)


def test_stay_short_at_month_one_shows_the_shortfall_and_a_separate_top_up_line():
    data = workspace()
    # (The 2:1 chat reads more than the results' assumed 4:1 shape, so this is well beyond it.)
    data["demand"][0]["output_tokens_per_month"] = 200e9
    stay = engine(data).evaluate(default_plans())[0]
    assert stay.fleet_shortfall_tokens_per_month > 0
    top = [ln for ln in stay.fleet if ln.role == "top-up"]
    assert top and top[0].allocation.startswith("Top-up")
    fleet_cost = sum(ln.monthly_usd for ln in stay.fleet if ln.role == "fleet")
    assert fleet_cost == pytest.approx((4 * 50.0 + 2 * 80.0 + 79.99) * HOURS)


def test_workspace_round_trips_and_bad_fields_are_named():
    ws = workspace_from_dict(workspace())
    assert workspace_from_dict(workspace_to_dict(ws)) == ws
    bad = workspace()
    bad["fleet"][1]["count"] = -1
    with pytest.raises(WorkspaceError, match=r"fleet\[1\]\.count"):
        workspace_from_dict(bad)
    bad = workspace()
    bad["demand"][0]["peak_to_mean"] = 20.1
    with pytest.raises(WorkspaceError, match=r"demand\[0\]\.peak_to_mean.*between 1 and 20"):
        workspace_from_dict(bad)
    bad = workspace()
    bad["fleet"][0]["serves"] = "nope"
    with pytest.raises(WorkspaceError, match=r"fleet\[0\]\.serves"):
        workspace_from_dict(bad)


def test_a_fleet_line_without_a_rate_or_list_price_names_the_field():
    data = workspace()
    data["fleet"][0].pop("usd_per_hour")
    with pytest.raises(WorkspaceError, match=r"fleet\[0\]\.usd_per_hour"):
        engine(data)


AUDIT = {
    "basis": "from the audit of hand-repo on 2026-11-30",
    "backends": {
        "rocm": {
            "engineer_weeks": {"low": 2.0, "base": 6.0, "high": 14.0},
            "confidence": "low",
            "blocking_findings": 9,
            "gaps": [],  # the audit's other fields are accepted and not kept
        }
    },
    "findings": [],
}


def test_the_workspaces_audit_sets_the_one_time_cost_and_the_gates():
    without = engine().evaluate(default_plans(amd_share=0.5))[1]
    audited = engine(workspace(audit=AUDIT)).evaluate(default_plans(amd_share=0.5))[1]
    # 6 engineer-weeks at the default $5,000 + 2 certification runs at $2,500.
    assert audited.one_time_usd == pytest.approx(6 * 5000 + 2 * 2500)
    # Without an audit: the default 12 rocm weeks.
    assert without.one_time_usd == pytest.approx(12 * 5000 + 2 * 2500)
    (note,) = audited.one_time_notes
    assert "from the audit of hand-repo on 2026-11-30" in note and "$15,000–$75,000" in note
    gates = {g.gate: g for g in audited.timeline.gates if g.backend in ("rocm", "*")}
    audit_gate, certify = gates["audit"], gates["certify"]
    assert audit_gate.end_week == audit_gate.start_week == 0
    assert audit_gate.basis.startswith("Done: from the audit")
    # The default 2 certify weeks + 6 engineer-weeks over 2 engineers porting.
    assert certify.end_week - certify.start_week == pytest.approx(2 + 3)
    before = {g.gate: g for g in without.timeline.gates if g.backend in ("rocm", "*")}
    assert before["certify"].end_week - before["certify"].start_week == pytest.approx(2)
    # A different audit moves the cost: the figure follows the workspace, not a constant.
    bigger = dict(AUDIT, backends={"rocm": dict(AUDIT["backends"]["rocm"])})
    bigger["backends"]["rocm"]["engineer_weeks"] = {"low": 5.0, "base": 20.0, "high": 40.0}
    more = engine(workspace(audit=bigger)).evaluate(default_plans(amd_share=0.5))[1]
    assert more.one_time_usd - audited.one_time_usd == pytest.approx(14 * 5000)


def test_an_audit_round_trips_and_a_bad_one_names_the_field():
    ws = workspace_from_dict(workspace(audit=AUDIT))
    (rocm,) = ws.audit
    assert (rocm.weeks_low, rocm.weeks_base, rocm.weeks_high) == (2.0, 6.0, 14.0)
    again = workspace_from_dict(workspace_to_dict(ws))
    assert again == ws and "gaps" not in str(workspace_to_dict(ws)["audit"])
    broken = dict(AUDIT, backends={"rocm": {"engineer_weeks": {"low": 9, "base": 6, "high": 14}}})
    with pytest.raises(WorkspaceError, match=r"audit\.backends\.rocm\.engineer_weeks"):
        workspace_from_dict(workspace(audit=broken))
    with pytest.raises(WorkspaceError, match="audit"):
        workspace_from_dict(workspace(audit="rocm: 3 weeks"))
