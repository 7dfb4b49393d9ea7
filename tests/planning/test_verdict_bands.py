"""The verdict rule reads the estimated lines' bands: a ranking that could flip inside them is
called fragile, one that could not is not, and a plan of measured lines alone never is."""

from __future__ import annotations

from planning.verdicts import BUY_WORD, FRAGILE, Contender, plan_verdicts


def plan(name: str, total: float, low: float | None = None, high: float | None = None, **kw):
    return Contender(
        name, True, (), total, name == "Stay", horizon_low=low, horizon_high=high, **kw
    )


def reasons(*plans: Contender) -> dict[str, str]:
    return {v.scenario: v.reason for v in plan_verdicts(plans)}


def test_a_buy_whose_high_end_reaches_stays_low_end_is_fragile():
    said = reasons(plan("Stay", 100.0), plan("Move", 90.0, 80.0, 101.0))
    assert FRAGILE in said["Move"] and FRAGILE in said["Stay"]


def test_bands_that_do_not_meet_leave_the_ranking_firm():
    said = reasons(plan("Stay", 100.0, 95.0, 110.0), plan("Move", 80.0, 70.0, 94.0))
    assert not any(FRAGILE in r for r in said.values())


def test_measured_plans_are_never_fragile_even_at_a_near_tie():
    said = reasons(plan("Stay", 100.0), plan("Move", 99.99))
    verdicts = {
        v.scenario: v.verdict for v in plan_verdicts([plan("Stay", 100.0), plan("Move", 99.99)])
    }
    assert verdicts["Move"] == BUY_WORD
    assert not any(FRAGILE in r for r in said.values())
