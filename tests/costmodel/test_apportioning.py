"""Input / output cost per token: the instance-hour split between prefill and decode by a stated
rule, and the split always adds back up to the hour (values worked by hand)."""

import math

import numpy as np
import pytest

from costmodel.unit_cost import (
    OUTPUT_TO_INPUT_COST_RATIO,
    RULE_NONE,
    RULE_RATIO,
    RULE_TIME_SHARE,
    apportion_frame,
    apportioned_usd_per_1k,
    input_tok_s,
    prefill_share_by_ratio,
    prefill_share_by_time,
)
from tests.factories import frame, sweep


def test_the_prefill_share_is_ttft_against_the_time_to_decode_the_rest():
    # 200 ms to the first token, then 10 more tokens at 20 ms: 200 / (200 + 200) = 0.5.
    assert prefill_share_by_time(200.0, 20.0, 11) == 0.5
    assert math.isnan(prefill_share_by_time(200.0, float("nan"), 11))


def test_the_stated_ratio_makes_an_output_token_cost_four_input_tokens():
    assert OUTPUT_TO_INPUT_COST_RATIO == 4.0
    # 2000 input tok/s weigh as 500 output tok/s: 500 / (1000 + 500) = 1/3 of the hour.
    assert prefill_share_by_ratio(2000.0, 1000.0) == pytest.approx(1 / 3)


def _split(**overrides):
    values = dict(
        usd_per_hour=np.array([36.0]),
        output_tok_s=np.array([1000.0]),
        input_tok_s=np.array([4000.0]),
        ttft_ms_p50=np.array([200.0]),
        tpot_ms_p50=np.array([20.0]),
        output_tokens=np.array([11.0]),
    )
    values.update({k: np.array([v]) for k, v in overrides.items()})
    return apportioned_usd_per_1k(**values)


def test_the_measured_time_share_splits_the_hour_and_adds_back_up():
    split = _split()
    # $18 of the $36 hour to 14,400K input tokens, $18 to 3,600K output tokens.
    assert split["rule"][0] == RULE_TIME_SHARE
    assert split["input"][0] == pytest.approx(18 / 14_400)
    assert split["output"][0] == pytest.approx(18 / 3_600)
    hour = split["input"][0] * 4000 * 3.6 + split["output"][0] * 1000 * 3.6
    assert hour == pytest.approx(36.0)


def test_without_timing_the_stated_ratio_splits_the_hour_and_adds_back_up():
    split = _split(tpot_ms_p50=float("nan"), input_tok_s=2000.0)
    assert split["rule"][0] == RULE_RATIO
    # A third of $36 to 7,200K input tokens, two thirds to 3,600K output tokens.
    assert split["input"][0] == pytest.approx(12 / 7_200)
    assert split["output"][0] == pytest.approx(24 / 3_600)
    assert split["output"][0] / split["input"][0] == pytest.approx(4.0)
    hour = split["input"][0] * 2000 * 3.6 + split["output"][0] * 1000 * 3.6
    assert hour == pytest.approx(36.0)


def test_without_input_throughput_nothing_is_charged_to_input():
    split = _split(input_tok_s=float("nan"))
    assert split["rule"][0] == RULE_NONE
    assert math.isnan(split["input"][0]) and math.isnan(split["output"][0])


def test_input_throughput_is_published_total_minus_output_else_from_the_lengths():
    assert input_tok_s(1000.0, 3000.0, 100, 50) == 2000.0  # published total wins
    assert input_tok_s(1000.0, float("nan"), 100, 50) == 2000.0  # 1000 × 100 / 50
    assert math.isnan(input_tok_s(1000.0, float("nan"), None, None))


def test_every_row_of_the_cost_join_adds_back_up_to_its_hour():
    rows = sweep(usd_per_hour=36.0, points=((1, 1000.0, 100.0), (8, 4000.0, 400.0)))
    rows[0]["ttft_ms_p50"], rows[0]["tpot_ms_p50"] = 100.0, 20.0
    options = frame(rows)
    split = apportion_frame(options)
    assert list(split["apportioning_rule"]) == [RULE_TIME_SHARE, RULE_RATIO]
    # Row 1: 100 / (100 + 20 × 499) = 0.0099… of the hour to input.
    assert split["prefill_share"][0] == pytest.approx(100 / (100 + 20 * 499))
    input_tps = options["instance_total_tok_s"] - options["instance_output_tok_s"]
    hours = (
        split["usd_per_1k_input_tokens"] * input_tps * 3.6
        + split["usd_per_1k_output_tokens_apportioned"] * options["instance_output_tok_s"] * 3.6
    )
    assert list(hours) == pytest.approx([36.0, 36.0])
