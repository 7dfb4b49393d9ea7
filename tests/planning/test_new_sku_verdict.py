"""Futures day's rule for a new SKU (``planning.verdicts.new_sku_verdict``): buy only when it is
cheaper than the incumbent by more than the savings threshold and its FTL is no worse than the FTL
threshold allows; defer without an FTL or an incumbent; no-buy otherwise."""

from __future__ import annotations

import pytest

from planning.verdicts import (
    BUY_WORD,
    DEFER_WORD,
    NO_BUY_WORD,
    new_sku_rule_sentence,
    new_sku_verdict,
)

RULE = dict(min_savings_pct=0.10, max_ftl_regression_pct=0.10)


@pytest.mark.parametrize(
    ("cost_change", "ftl_change", "word"),
    [
        (-0.29, 0.05, BUY_WORD),
        (-0.29, 0.10, BUY_WORD),  # FTL exactly at the limit is allowed
        (-0.29, 0.11, NO_BUY_WORD),
        (-0.10, 0.0, NO_BUY_WORD),  # exactly 10% cheaper is not more than 10%
        (0.05, -0.5, NO_BUY_WORD),  # faster but dearer
        (-0.29, None, DEFER_WORD),  # no FTL to compare
    ],
)
def test_the_thresholds(cost_change, ftl_change, word):
    assert new_sku_verdict(cost_change, ftl_change, **RULE)[0] == word


def test_each_verdict_says_why():
    assert new_sku_verdict(-0.2, None, **RULE)[1] == (
        "$/1K output -20.0% vs current fleet, but no FTL to compare: run the harness"
    )
    assert new_sku_verdict(-0.2, 0.3, **RULE)[1] == (
        "$/1K output -20.0% but FTL +30.0% vs current fleet (max +10%)"
    )
    assert new_sku_verdict(None, None, **RULE, no_incumbent="nothing serves m") == (
        DEFER_WORD,
        "nothing serves m",
    )


def test_the_rule_in_words_names_what_it_compares_against():
    market = new_sku_rule_sentence([], ["cuda"], 0.1, 0.1)
    assert market.startswith("Against the incumbent (cuda): buy if")
    mine = new_sku_rule_sentence(["6 × aws p5", "2 × gcp a3"], ["cuda"], 0.2, 0.05)
    assert mine.startswith("Against your own fleet at the rates you pay (6 × aws p5; 2 × gcp a3)")
    assert "more than 20%" in mine and "no more than 5% worse" in mine
    assert "no spot price (the workspace does not allow spot)" in mine
    spot = new_sku_rule_sentence(
        [], ["cuda"], 0.1, 0.1, allow_spot=True, approved_providers=["aws"]
    )
    assert "spot prices too" in spot and "Only approved providers (aws)" in spot
