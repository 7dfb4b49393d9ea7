"""The CSV's total row reads the plan's own month-1 figure, rounded as every surface rounds it."""

from __future__ import annotations

from types import SimpleNamespace

from briefs.plan_exports import _lines_total


def _plan(lines, monthly, stranded=0.0):
    fleet = tuple(SimpleNamespace(monthly_usd=v) for v in lines)
    return SimpleNamespace(fleet=fleet, monthly_usd=monthly, stranded_usd_per_month=stranded)


def test_the_total_is_the_plans_figure_not_a_sum_taken_again():
    # Lines of a plan the engine summed in another order: the two sums differ in the last bit,
    # on either side of a half cent (round() gives .04 for the one and .03 for the other).
    lines = [116800.0, 1779.375, 29709.54, 50037.12]
    stated = 198326.03499999997
    assert round(sum(lines), 2) != round(stated, 2)
    assert _lines_total(_plan(lines, stated)) == stated


def test_the_optimums_total_counts_the_commitments_it_still_pays():
    plan = _plan([100.0, 50.0], monthly=100.0, stranded=50.0)
    assert _lines_total(plan) == 150.0


def test_a_plan_whose_lines_do_not_add_up_to_its_figure_totals_its_lines():
    assert _lines_total(_plan([10.0, 20.0], monthly=99.0)) == 30.0
