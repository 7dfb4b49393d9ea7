"""Commitment under uncertainty: expected cost, regret and break-even utilisation against hand
calculations, the recommendation, and the workspace's commitment block."""

from __future__ import annotations

from datetime import date

import numpy as np
import pytest

from costmodel import Engine
from costmodel.commit_levels import (
    CommitmentProblem,
    DemandScenario,
    HeldCommitment,
    Term,
    default_scenarios,
    evaluate,
    monthly_cost,
    option_rows,
    recommendation_sentence,
    terms_from,
)
from costmodel.commitment_workspace import brief_rows, workspace_commitments
from costmodel.plan import WorkspaceEngine
from costmodel.plan_inputs import PlanContext
from costmodel.workspace_model import WorkspaceError, workspace_from_dict, workspace_to_dict
from tests.workspace_data import OPTIONS, workspace

FLAT_TWO = (2.0,) * 24
TWO_WAYS = (DemandScenario("busy", 0.5), DemandScenario("quiet", 0.5, demand_factor=0.5))


def _problem(**changes) -> CommitmentProblem:
    fields = {
        "on_demand_usd_per_unit_hour": 10.0,
        "terms": (Term("1y", 12, 6.0),),
        "units_by_hour": FLAT_TWO,
        "growth_per_quarter": 0.0,
        "scenarios": TWO_WAYS,
        "horizon_months": 6,
    }
    fields.update(changes)
    return CommitmentProblem(**fields)


def test_a_month_costs_committed_units_all_month_and_whole_on_demand_units_by_the_hour():
    # Two slots of 365 h: 1 committed unit at $6 all 730 h, then on demand 0 and 2 units at $10.
    assert monthly_cost(1, 6.0, 10.0, np.array([1.0, 3.0])) == pytest.approx(4380 + 7300)
    # 2.2 units over 1 committed is 2 whole on-demand units (1.2 rounds up).
    assert monthly_cost(1, 6.0, 10.0, np.array([2.2, 2.2])) == pytest.approx(4380 + 14600)


def test_expected_cost_regret_and_break_even_match_a_hand_calculation():
    result = evaluate(_problem())
    by_units = {o.committed_units: o for o in result.options}
    # Every whole unit up to the peak need (2 units), each labelled with its share of the mean.
    assert [o.committed_units for o in result.options] == [0, 1, 2]
    assert [o.level for o in result.options] == [0.0, 0.5, 1.0]
    none, one, two = by_units[0], by_units[1], by_units[2]
    # busy needs 2 units every hour, quiet 1 (730 h a month):
    #   none: 2 × 10 × 730 = 14,600 | 1 × 10 × 730 = 7,300  -> expected 10,950
    #   one:  4,380 + 7,300 = 11,680 | 4,380             -> expected 8,030
    #   two:  2 × 6 × 730 = 8,760    | 8,760             -> expected 8,760
    assert none.monthly_usd_by_scenario == pytest.approx((14_600, 7_300))
    assert one.monthly_usd_by_scenario == pytest.approx((11_680, 4_380))
    assert two.monthly_usd_by_scenario == pytest.approx((8_760, 8_760))
    assert [o.expected_monthly_usd for o in (none, one, two)] == pytest.approx(
        [10_950, 8_030, 8_760]
    )
    # Regret against the best in each scenario (busy 8,760; quiet 4,380):
    assert none.regret_by_scenario == pytest.approx((5_840, 2_920))
    assert one.regret_by_scenario == pytest.approx((2_920, 0))
    assert two.regret_by_scenario == pytest.approx((0, 4_380))
    assert [o.max_regret_usd for o in (none, one, two)] == pytest.approx([5_840, 2_920, 4_380])
    assert one.expected_regret_usd == pytest.approx(1_460)
    # Break-even utilisation = 6 / 10; two units are busy 100% (busy) and 50% (quiet).
    assert one.break_even_utilisation == pytest.approx(0.6)
    assert two.expected_utilisation == pytest.approx(0.75)
    assert none.break_even_utilisation is None
    assert result.recommended is one and result.least_regret is one
    sentence = recommendation_sentence("chat", result)
    assert "commit 1 unit (50%" in sentence and "$2,920/month" in sentence and "60%" in sentence


def test_growth_steps_once_a_quarter_and_a_longer_term_can_win():
    # 50% growth a quarter over 6 months: months 1-3 need 2 units, months 4-6 need 3.
    grow = (DemandScenario("grow", 1.0, growth_per_quarter=0.5),)
    result = evaluate(_problem(scenarios=grow, terms=(Term("1y", 12, 6.0), Term("3y", 36, 4.0))))
    none = result.no_commitment
    assert none.expected_monthly_usd == pytest.approx((3 * 14_600 + 3 * 21_900) / 6)
    best = result.recommended
    # 2 units on 3y: 2 × 4 × 730 = 5,840 a month, plus 1 on-demand unit in months 4-6 (7,300):
    # 9,490 on average. 3 units on 3y, above the month-1 need: 3 × 4 × 730 = 8,760, cheaper.
    two = next(o for o in result.options if (o.term, o.committed_units) == ("3y", 2))
    assert two.expected_monthly_usd == pytest.approx(5_840 + 7_300 / 2)
    assert (best.term, best.committed_units) == ("3y", 3)
    assert best.expected_monthly_usd == pytest.approx(8_760)
    assert best.level == pytest.approx(1.5)


def test_levels_run_to_the_horizons_peak_need_and_say_their_true_share():
    # A mean need of 3.5 units (3 units half the day, 4 the other half) growing 20% a quarter
    # for a year: month 10-12 need 4 × 1.2³ = 6.9 units at the busiest hour, so 7 is the top.
    need = (3.0,) * 12 + (4.0,) * 12
    grow = (DemandScenario("grow", 1.0, growth_per_quarter=0.2),)
    problem = _problem(
        units_by_hour=need, scenarios=grow, horizon_months=12, terms=(Term("1y", 12, 5.0),)
    )
    assert problem.peak_units == 7
    result = evaluate(problem)
    committed = [o for o in result.options if o.term == "1y"]
    assert [o.committed_units for o in committed] == list(range(1, 8))
    three = next(o for o in committed if o.committed_units == 3)
    assert three.level == pytest.approx(3 / 3.5) and "(86%)" in three.label

    # The cheapest whole commitment is among them, whatever the month-1 need says: checked
    # against every count priced by hand (committed units all month, whole on-demand units for
    # the rest, month by month).
    def by_hand(units: int) -> float:
        months = []
        for m in range(12):
            hours = np.array(need) * 1.2 ** (m // 3)
            months.append(monthly_cost(units, 5.0, 10.0, hours))
        return float(np.mean(months))

    cheapest = min(range(0, 12), key=by_hand)
    assert cheapest > 4  # above the month-1 mean need: the old levels stopped at 4
    assert result.recommended.committed_units == cheapest
    assert result.recommended.expected_monthly_usd == pytest.approx(by_hand(cheapest))


def test_commitments_already_held_are_counted_first_and_named():
    # 2 units needed every hour; the fleet holds 2 committed units for the first 3 months of 6.
    held = HeldCommitment("aws p5.48xlarge reserved_1y", 2, 2.0, date(2027, 3, 1), 2 * 6.0 * 730)
    problem = _problem(
        scenarios=(DemandScenario("as stated", 1.0),),
        held_units_by_month=(2.0,) * 3 + (0.0,) * 3,
        held_usd_by_month=(held.usd_per_month,) * 3 + (0.0,) * 3,
        held_commitments=(held,),
    )
    result = evaluate(problem)
    none = result.no_commitment
    # Held units carry months 1-3 (paid 8,760 a month); months 4-6 need 2 on-demand units
    # (14,600 a month): (3 × 8,760 + 3 × 14,600) / 6.
    assert none.expected_monthly_usd == pytest.approx((3 * 8_760 + 3 * 14_600) / 6)
    # Two more committed units idle in months 1-3: busy half the horizon.
    two = next(o for o in result.options if o.committed_units == 2)
    assert two.expected_utilisation == pytest.approx(0.5)
    assert "more" in two.label and none.label.startswith("No new commitment")
    sentence = recommendation_sentence("chat", result)
    assert "already holds 2 × aws p5.48xlarge reserved_1y until 2027-03-01" in sentence
    assert "counted before anything more" in sentence


def test_nothing_is_committed_when_the_units_would_idle_half_the_day():
    # 2 units for 12 hours, none for 12: a committed unit is busy 50% of the hours, below the
    # 95% a rate of $9.50 against $10 needs. All on demand: 2 × 10 × 365 = 7,300 a month;
    # 1 committed unit: 9.5 × 730 + 1 × 10 × 365 = 10,585.
    peaky = (2.0,) * 12 + (0.0,) * 12
    one = (DemandScenario("as stated", 1.0),)
    result = evaluate(_problem(terms=(Term("1y", 12, 9.5),), units_by_hour=peaky, scenarios=one))
    # (2 committed units, up to the peak need: 2 × 9.5 × 730 = 13,870.)
    assert [o.expected_monthly_usd for o in result.options] == pytest.approx(
        [7_300, 10_585, 13_870]
    )
    assert result.options[1].expected_utilisation == pytest.approx(0.5)
    assert result.recommended.term == "none"
    assert "commit nothing" in recommendation_sentence("chat", result)


def test_bad_scenarios_are_refused_with_the_reason():
    with pytest.raises(ValueError, match="add up to 1"):
        _problem(scenarios=(DemandScenario("a", 0.5),))
    with pytest.raises(ValueError, match="at least one"):
        _problem(scenarios=())


def test_a_term_is_priced_from_a_known_rate_else_a_stated_discount_else_named_as_missing():
    terms, missing = terms_from(
        10.0, [("1y", 12, 6.5, "a list price"), ("3y", 36, None, "")], {"3y": 0.5}
    )
    assert [(t.name, t.usd_per_unit_hour) for t in terms] == [("1y", 6.5), ("3y", 5.0)]
    assert "discount" in terms[1].basis and not missing
    terms, missing = terms_from(10.0, [("3y", 36, None, "")], {})
    assert terms == () and "commitment.discount_3y" in missing[0]


def test_default_scenarios_are_stated_and_add_up_to_one():
    scenarios = default_scenarios(0.1)
    assert sum(s.probability for s in scenarios) == pytest.approx(1.0)
    assert [s.growth_per_quarter for s in scenarios] == [0.0, None, 0.2]


def test_the_workspace_analysis_uses_the_fleet_rate_and_the_stated_discount():
    data = workspace(
        commitment={
            "scenarios": [
                {"name": "low", "probability": 0.3, "demand_factor": 0.7, "growth_per_quarter": 0},
                {"name": "base", "probability": 0.7},
            ],
            "discount_3y": 0.5,
        }
    )
    ws = workspace_from_dict(data)
    assert workspace_from_dict(workspace_to_dict(ws)) == ws
    analysis = workspace_commitments(WorkspaceEngine(Engine.from_frame(OPTIONS), PlanContext(ws)))
    chat = next(a for a in analysis if a.workload == "chat")
    assert chat.result is not None
    terms = {t.name: t for t in chat.result.problem.terms}
    # On demand: the cheapest known rate for a p5 in us-east-1, the fleet's $79.99 (list $80).
    # The 1-year rate is the fleet's reserved rate; the 3-year one is $79.99 × (1 − 50%).
    assert chat.result.problem.on_demand_usd_per_unit_hour == 79.99
    assert chat.on_demand_basis == "the fleet's on_demand effective rate"
    assert terms["1y"].usd_per_unit_hour == 50.0 and "fleet" in terms["1y"].basis
    assert terms["3y"].usd_per_unit_hour == pytest.approx(39.995)
    rows, sentences = brief_rows(analysis)
    assert rows and len(sentences) >= 2
    assert {r["workload"] for r in rows} >= {"chat"}
    assert all(set(r) >= {"option", "expected_monthly_usd", "max_regret_usd"} for r in rows)
    best = min(r["expected_monthly_usd"] for r in option_rows(chat.result))
    assert chat.result.recommended.expected_monthly_usd == pytest.approx(best, abs=0.01)


def test_the_commitment_block_is_validated():
    with pytest.raises(WorkspaceError, match="add up to 1"):
        workspace_from_dict(
            workspace(commitment={"scenarios": [{"name": "a", "probability": 0.4}]})
        )
    with pytest.raises(WorkspaceError, match=r"commitment.scenarios\[0\].probability"):
        workspace_from_dict(workspace(commitment={"scenarios": [{"name": "a"}]}))
    with pytest.raises(WorkspaceError, match="commitment.discount_1y"):
        workspace_from_dict(workspace(commitment={"discount_1y": 1.5}))
