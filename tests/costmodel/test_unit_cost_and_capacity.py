import math

import numpy as np
import pytest

from costmodel import (
    Slo,
    capacity_at_slo,
    instance_tok_s,
    options_from_frame,
    usd_per_1k_tokens,
)
from costmodel.capacity import NO_PERCENTILE, capacity_arrays
from costmodel.option_table import OptionTable
from tests.factories import frame, sweep


def test_usd_per_1k_hand_computed():
    # $98.32/h at 1,000 tok/s: 3.6M tokens/h -> 98.32 / 3,600 = $0.027311 per 1K
    assert usd_per_1k_tokens(98.32, 1000) == pytest.approx(0.0273111, rel=1e-5)
    assert math.isnan(usd_per_1k_tokens(10.0, 0.0))
    np.testing.assert_allclose(usd_per_1k_tokens([36.0, 72.0], [1000, 1000]), [0.01, 0.02])


def test_instance_tok_s_floors_replicas():
    # 8 accelerators, 3 per replica -> 2 replicas x 100 tok/s
    assert instance_tok_s(8, 3, 100.0) == 200.0
    assert instance_tok_s(8, 8, 2500.0) == 2500.0


def one(**kw):
    return options_from_frame(frame(sweep(**kw)))[0]


def test_capacity_interpolates_between_points():
    # points (conc, tok/s, ftl): (1,500,150) (8,3000,300) (32,8000,900); SLO 600 ms
    # t = (600-300)/(900-300) = 0.5 -> 3000 + 0.5*5000 = 5500 tok/s at concurrency 20
    cap = capacity_at_slo(one(), Slo(ftl_ms=600))
    assert cap.feasible and cap.interpolated
    assert cap.output_tok_s == pytest.approx(5500)
    assert cap.concurrency == pytest.approx(20)
    assert cap.ftl_ms == pytest.approx(600)


def test_capacity_never_extrapolates():
    cap = capacity_at_slo(one(), Slo(ftl_ms=50_000))
    assert cap.output_tok_s == 8000 and not cap.interpolated


def test_infeasible_names_the_best_point():
    cap = capacity_at_slo(one(), Slo(ftl_ms=100))
    assert not cap.feasible and cap.output_tok_s is None
    assert cap.explanation == "no point meets FTL p95 ≤ 100 ms; best is 150 ms at concurrency 1"


def test_latency_envelope_is_monotone():
    # a dip at concurrency 8 (200 ms after 400 ms) cannot make the higher load look safe
    opt = one(points=((1, 500, 400), (8, 3000, 200), (32, 8000, 900)))
    assert not capacity_at_slo(opt, Slo(ftl_ms=300)).feasible
    cap = capacity_at_slo(opt, Slo(ftl_ms=400))
    assert cap.output_tok_s == 3000


def test_offline_only_is_batch_only():
    opt = one(scenario="offline", points=((None, 9000, None),))
    cap = capacity_at_slo(opt, Slo())
    assert not cap.feasible
    assert cap.batch_output_tok_s == 9000
    assert "offline" in cap.explanation and "batch" in cap.explanation


def test_p99_stands_in_for_p95_as_upper_bound():
    opt = one(percentile_col="ttft_ms_p99")
    cap = capacity_at_slo(opt, Slo(ftl_ms=600, percentile="p95"))
    assert cap.feasible and cap.conservative_bound
    assert "conservative upper bound" in cap.explanation


def test_lower_percentile_never_stands_in():
    opt = one(percentile_col="ttft_ms_p50")
    arrays = capacity_arrays(OptionTable((opt,)), Slo(ftl_ms=600, percentile="p95"))
    assert arrays.reason[0] == NO_PERCENTILE


def test_tpot_slo_limits_capacity():
    rows = sweep()
    for row, tpot in zip(rows, (20, 40, 80), strict=True):
        row["tpot_ms_p95"] = tpot
    opt = options_from_frame(frame(rows))[0]
    # FTL alone would allow 8000; TPOT <= 60 crosses halfway between 40 and 80
    cap = capacity_at_slo(opt, Slo(ftl_ms=2000, tpot_ms=60))
    assert cap.output_tok_s == pytest.approx(5500)
    assert not capacity_at_slo(one(), Slo(ftl_ms=2000, tpot_ms=60)).feasible  # no TPOT published


def test_vectorised_matches_scalar():
    df = frame(
        sweep(points=((1, 500, 150), (8, 3000, 300), (32, 8000, 900))),
        sweep(backend="rocm", points=((1, 400, 200), (16, 2500, 700), (64, 6000, 1500))),
        sweep(backend="cpu", points=((1, 50, 2000),)),
    )
    opts = options_from_frame(df)
    slo = Slo(ftl_ms=800)
    arrays = capacity_arrays(OptionTable(tuple(opts)), slo)
    for i, o in enumerate(opts):
        c = capacity_at_slo(o, slo)
        assert c.feasible == bool(arrays.feasible[i])
        if c.feasible:
            assert c.output_tok_s == pytest.approx(arrays.tok_s[i])
