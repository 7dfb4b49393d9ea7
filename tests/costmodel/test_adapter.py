import pandas as pd
import pytest

from costmodel import canonical_precision, options_from_frame
from tests.factories import frame, sweep


def test_groups_by_quote_and_config():
    df = frame(
        sweep(),
        sweep(pricing_model="spot", usd_per_hour=30.0),
        sweep(precision="bf16", config_key="other"),
    )
    opts = options_from_frame(df)
    assert len(opts) == 3
    assert all(len(o.points) == 3 for o in opts)
    assert [p.concurrency for p in opts[0].points] == [1, 8, 32]


def test_instance_basis_units():
    o = options_from_frame(frame(sweep(accelerator_count=8, accelerators_per_replica=2)))[0]
    assert o.replicas_per_unit == 4 and o.accelerators_per_unit == 8 and o.usd_per_unit_hour == 80.0


def test_per_accelerator_basis_buys_one_replica():
    # $2/accelerator-hour, 4 accelerators per replica -> a unit costs $8/h; the frame pro-rated
    # a quarter replica (1 of 4 accelerators): 250 tok/s -> 1,000 tok/s per replica
    rows = sweep(
        price_basis="per_accelerator",
        accelerator_count=1,
        accelerators_per_replica=4,
        usd_per_hour=2.0,
        points=((4, 250, 300),),
    )
    o = options_from_frame(frame(rows))[0]
    assert o.usd_per_unit_hour == pytest.approx(8.0)
    assert o.accelerators_per_unit == 4
    assert o.points[0].unit_output_tok_s == pytest.approx(1000.0)


def test_rows_without_price_or_throughput_are_skipped():
    rows = sweep()
    rows[0]["instance_output_tok_s"] = None
    opts = options_from_frame(frame(rows, sweep(instance_type="x", usd_per_hour=0.0)))
    assert len(opts) == 1 and len(opts[0].points) == 2


def test_offline_scenario_flag_and_dates():
    o = options_from_frame(frame(sweep(scenario="offline")))[0]
    assert all(p.offline for p in o.points)
    assert o.bench_measured_at == pd.Timestamp("2026-01-10").to_pydatetime()


def test_empty_frame():
    assert options_from_frame(frame()) == []


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("weights fp8", "fp8"),
        ("FP16 model, weights int8", "int8"),
        ("GGUF Q4_0", "int4"),
        ("UINT4", "int4"),
        ("bf16", "bf16"),
        ("fp4", "fp4"),
        ("not stated", "unknown"),
        ("int4-awq", "int4"),
    ],
)
def test_canonical_precision(text, want):
    assert canonical_precision(text) == want


def test_categorical_columns_from_the_warehouse():
    df = frame(sweep(), sweep(pricing_model="spot", usd_per_hour=30.0))
    for col in ("zone", "provider", "model", "pricing_model", "scenario"):
        df[col] = df[col].astype("category")
    assert len(options_from_frame(df)) == 2
