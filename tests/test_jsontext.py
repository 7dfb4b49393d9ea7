"""Every command's JSON is valid JSON: a non-finite figure is written as null, never NaN."""

from __future__ import annotations

import json
import math

import pytest

from tokendesk import jsontext


def _strict(text: str):
    def refuse(name: str):
        raise ValueError(f"{name} is not JSON")

    return json.loads(text, parse_constant=refuse)


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
def test_a_non_finite_figure_is_written_as_null(value):
    doc = {"a": value, "b": [1.5, value, {"c": (value, 2)}], "d": "NaN"}
    assert _strict(jsontext.dumps(doc)) == {
        "a": None,
        "b": [1.5, None, {"c": [None, 2]}],
        "d": "NaN",
    }


def test_plain_json_python_would_write_is_not_json():
    # Why the helper exists: json.dumps writes NaN, which a strict parser refuses.
    with pytest.raises(ValueError, match="NaN is not JSON"):
        _strict(json.dumps({"a": math.nan}))


def test_non_ascii_is_kept_and_finite_numbers_unchanged():
    text = jsontext.dumps({"name": "Café", "x": 1e308, "n": 3}, indent=None)
    assert text == '{"name": "Café", "x": 1e+308, "n": 3}'
