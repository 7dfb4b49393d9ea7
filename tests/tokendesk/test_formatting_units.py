"""The $/1K <-> $/1M unit: one factor, labels that name the tokens counted."""

import numpy as np
import pandas as pd
import pytest

from tokendesk import formatting


def test_one_factor_turns_a_per_1k_figure_into_either_unit():
    assert formatting.token_unit_factor("1k") == 1.0
    assert formatting.token_unit_factor("1m") == 1000.0
    column = pd.Series([0.0005167, np.nan, 0.0123])
    converted = formatting.per_tokens(column, "1m")
    assert converted[0] == 0.0005167 * 1000 and np.isnan(converted[1])
    assert formatting.per_tokens(0.0005167, "1k") == 0.0005167


def test_labels_and_text_name_the_unit_and_the_tokens():
    assert formatting.cost_label("1k", "output") == "$/1K output tokens"
    assert formatting.cost_label("1m", "total (input + output)") == (
        "$/1M total (input + output) tokens"
    )
    assert formatting.usd_per_tokens(0.0005167, "1k", "output") == "$0.000517 /1K output tokens"
    assert formatting.usd_per_tokens(0.0005167, "1m", "output") == "$0.517 /1M output tokens"
    assert formatting.usd_per_tokens(0.0123, "1m") == "$12.30 /1M tokens"
    assert formatting.usd_per_tokens(None, "1m") == "—"
    assert formatting.cost_format("1k") == "$%.6f" and formatting.cost_format("1m") == "$%.3f"


def test_an_unknown_unit_is_refused_by_name():
    with pytest.raises(ValueError, match="unknown token unit '1g'; choose one of 1k, 1m"):
        formatting.token_unit_factor("1g")


def test_a_change_in_dollars_has_its_sign_before_the_currency():
    assert formatting.usd_change(-63159.6) == "−$63,160"
    assert formatting.usd_change(1200) == "+$1,200"
    assert formatting.usd_change(0.2) == "$0"
    assert formatting.usd_change(None) == "—"
