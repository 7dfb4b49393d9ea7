"""Demand from a trace, checked against figures worked out by hand on a 14-request trace."""

from __future__ import annotations

import statistics
from datetime import UTC, datetime

import numpy as np
import pytest

from costmodel.traffic import (
    TrafficError,
    derive_demand,
    grain_for,
    prefix_reuse,
    time_stamp_step,
)

# Four requests in the first minute, then one a minute, then one at 11:00 (after a gap).
TIMES = [0, 15, 30, 45, 60, 120, 180, 240, 300, 360, 420, 480, 540, 660]
INPUTS = [100] * 14
OUTPUTS = [10] * 14


def _demand(**kw):
    return derive_demand(TIMES, INPUTS, OUTPUTS, **kw)


def test_month_extrapolation_by_hand():
    d = _demand()
    assert d.requests == 14
    # span 660 s = 0.18333 h
    assert d.trace_hours == pytest.approx(660 / 3600)
    assert d.hours_per_month == 730
    # 1,400 input tokens in 660 s; 730 h = 2,628,000 s; 1,400 × 2,628,000 / 660 = 5,574,545.45
    assert d.input_tokens_per_month == pytest.approx(5_574_545.4545, rel=1e-9)
    assert d.to_json()["input_tokens_per_month"] == 5_574_545
    # 140 output tokens: a tenth of that
    assert d.output_tokens_per_month == pytest.approx(557_454.5454, rel=1e-9)
    assert d.input_output_ratio == 10
    assert (d.input_tokens_mean, d.output_tokens_mean) == (100, 10)


def test_peak_to_mean_by_hand():
    d = _demand()
    # 660 s ≥ 10 min: read per minute. 11 whole minutes (0-10); the request at 660 s opens
    # minute 11, a partial bucket, and is dropped. Tokens (110 a request) per minute:
    # [440, 110 × 9, 0] -> mean 1,430 / 11 = 130, peak 440 -> 3.3846
    assert d.peak_to_mean_grain == "1 minute"
    assert d.peak_to_mean == pytest.approx(440 / 130)
    assert d.buckets == pytest.approx([440 / 130] + [110 / 130] * 9 + [0])
    assert d.to_json()["over_time"]["values"] == list(d.buckets)


def test_burstiness_by_hand():
    b = _demand().burstiness
    gaps = [15, 15, 15, 15, 60, 60, 60, 60, 60, 60, 60, 60, 120]
    cv = statistics.pstdev(gaps) / statistics.fmean(gaps)
    assert b.interarrival_cv == pytest.approx(cv)
    assert b.gamma_shape == pytest.approx(1 / cv**2)
    counts = [4, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0]  # requests per whole minute
    assert b.count_dispersion == pytest.approx(
        statistics.pvariance(counts) / statistics.fmean(counts)
    )
    assert b.grouped_arrival_share == 0


def test_hour_of_day_curve_by_hand():
    # 23:55:00 UTC -> the trace runs to 00:06:00: 300 s of hour 23, 360 s of hour 0.
    d = _demand(start=datetime(2024, 5, 10, 23, 55, tzinfo=UTC), clock="UTC")
    curve = d.hour_of_day
    assert curve is not None and len(curve) == 24
    # hour 23: 8 requests (0-240 s) × 110 = 880 tokens / 300 s; hour 0: 6 × 110 = 660 / 360 s;
    # mean 1,540 / 660 s.
    mean = 1540 / 660
    assert curve[23] == pytest.approx(880 / 300 / mean)
    assert curve[0] == pytest.approx(660 / 360 / mean)
    assert all(v is None for h, v in enumerate(curve) if h not in (0, 23))
    assert any("covers 2 of the 24 hours" in n for n in d.notes)


def test_no_wall_clock_no_curve_and_notes_say_so():
    d = _demand()
    assert d.hour_of_day is None
    assert any("no daily curve" in n for n in d.notes)
    assert d.prefix_cache_share is None
    assert any("cannot be told" in n for n in d.notes)
    assert any("not the daily peak" in n for n in d.notes)


def test_a_day_long_trace_reads_peak_per_hour_and_has_a_full_curve():
    # One request every 10 min for 2 days: six an hour, every hour alike.
    times = [i * 600.0 for i in range(2 * 144 + 1)]
    tokens = [10] * len(times)
    d = derive_demand(times, tokens, tokens, start=datetime(2024, 5, 10, tzinfo=UTC), clock="UTC")
    assert d.peak_to_mean_grain == "1 hour"
    assert d.peak_to_mean == pytest.approx(1.0)
    assert d.hour_of_day is not None and all(v is not None for v in d.hour_of_day)
    assert not any("covers" in n for n in d.notes)


def test_prefix_reuse_by_hand():
    blocks = [[1, 2, 3], [1, 2, 4], [5], [1, 2, 3, 6]]
    # hits: 0 + 2 (1, 2) + 0 + 3 (1, 2, 3) = 5 of 11 blocks
    assert prefix_reuse(blocks) == pytest.approx(5 / 11)
    assert prefix_reuse([[7, 7]]) == 0  # within one request a block is not "seen before"
    assert prefix_reuse([]) is None


def test_length_percentiles_linear_between_ranks():
    d = derive_demand([0, 1, 2, 3, 4], [1, 2, 3, 4, 5], [5, 4, 3, 2, 1])
    assert d.input_length.percentiles["p50"] == 3
    assert d.input_length.percentiles["p90"] == pytest.approx(4.6)  # 4 + 0.6 × (5 - 4)
    assert (d.input_length.minimum, d.input_length.maximum) == (1, 5)


def test_grouped_time_stamps_coarsen_the_grain():
    times = [0, 0, 0, 3, 3, 3, 6, 6, 6, 9, 9, 9]
    step = time_stamp_step(np.asarray(times, dtype=float))
    assert step == 3
    assert grain_for(9, step) == (60.0, "1 minute")
    assert grain_for(9) == (1.0, "1 second")
    assert grain_for(86_400) == (3600.0, "1 hour")


@pytest.mark.parametrize(
    ("times", "words"),
    [([5], "1 request"), ([3, 3, 3], "same time")],
)
def test_a_trace_without_a_span_is_refused_plainly(times, words):
    with pytest.raises(TrafficError, match=words):
        derive_demand(times, [1] * len(times), [1] * len(times))


def test_unsorted_arrivals_are_sorted_with_their_lengths():
    a = derive_demand([0, 10, 5], [1, 3, 2], [1, 1, 1])
    b = derive_demand([0, 5, 10], [1, 2, 3], [1, 1, 1])
    assert a.to_json() == b.to_json()


def test_length_histogram_doubles():
    d = derive_demand([0, 1, 2, 3, 4, 5], [0, 1, 2, 3, 4, 9], [1] * 6)
    # bins 0 | 1 | 2-3 | 4-7 | 8-15: lengths 0; 1; 2, 3; 4; 9
    assert d.input_length.histogram == ((0, 1, 1), (1, 2, 1), (2, 4, 2), (4, 8, 1), (8, 16, 1))
    assert d.output_length.histogram == ((1, 2, 6),)
    assert d.to_json()["output_length"]["histogram"] == [
        {"from_tokens": 1, "below_tokens": 2, "requests": 6}
    ]
