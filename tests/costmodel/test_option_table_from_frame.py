"""The column-wise frame adapter builds exactly the table the object-wise one does."""

import numpy as np
import pytest

from costmodel import Engine, OptionTable, options_from_frame
from costmodel.example import example_demand
from costmodel.scenarios import builtin_scenarios
from tests.factories import seeded_warehouse

SKIP = {"points", "n_table_points"}


@pytest.fixture(scope="module")
def seed_frame(tmp_path_factory):
    with seeded_warehouse(tmp_path_factory.mktemp("w") / "w.duckdb") as wh:
        return wh.cost_options()


def test_same_options_and_columns(seed_frame):
    slow = OptionTable(tuple(options_from_frame(seed_frame)))
    fast = OptionTable.from_frame(seed_frame)
    assert len(fast) == len(slow) > 0
    for a, b in zip(fast.options, slow.options, strict=True):
        for name in a.__dataclass_fields__:
            if name not in SKIP:
                assert getattr(a, name) == getattr(b, name), name
    for name in (
        "price",
        "accelerators_per_unit",
        "offsets",
        "pt_option",
        "pt_tok_s",
        "pt_concurrency",
        "pt_offline",
    ):
        np.testing.assert_array_equal(getattr(fast, name), getattr(slow, name), err_msg=name)
    for q in fast.pt_ttft:
        np.testing.assert_array_equal(fast.pt_ttft[q], slow.pt_ttft[q])


def test_same_scenario_results(seed_frame):
    fast = Engine.from_frame(seed_frame).evaluate(builtin_scenarios(), example_demand())
    slow = Engine(options_from_frame(seed_frame)).evaluate(builtin_scenarios(), example_demand())
    assert [r.monthly_usd for r in fast] == [r.monthly_usd for r in slow]
    assert [len(r.lines) for r in fast] == [len(r.lines) for r in slow]


def test_empty_frame(seed_frame):
    assert len(OptionTable.from_frame(seed_frame.iloc[0:0])) == 0


def test_a_small_slice_goes_to_a_small_instance_not_an_idle_big_one():
    import pandas as pd

    from costmodel import Demand, HourlyProfile, Segment, Slo, stay
    from tests.factories import sweep

    rows = []
    for i in range(6):  # six 8-GPU nodes: cheapest per unit of capacity, $40/h each
        rows += sweep(
            provider=f"big{i}",
            instance_type="x8",
            usd_per_hour=40.0 + i,
            accelerator_count=8,
            accelerators_per_replica=1,
            points=((8, 60_000, 400),),
        )
    rows += sweep(
        provider="small",
        instance_type="x1",
        usd_per_hour=2.0,
        accelerator_count=1,
        accelerators_per_replica=1,
        points=((8, 1_200, 400),),
    )
    demand = Demand(
        (
            Segment(
                "chat",
                ("Llama-3.1-70B",),
                monthly_input_tokens=0,
                monthly_output_tokens=0.5e9,
                interactive_share=1.0,
                slo=Slo(ftl_ms=800),
                profile=HourlyProfile(peak_factor=1.0),
            ),
        )
    )
    [result] = Engine.from_frame(pd.DataFrame(rows)).evaluate((stay(),), demand)
    # ~190 tok/s on average: one 1-GPU instance ($2/h) beats one idle 8-GPU node ($40/h)
    assert [(ln.provider, ln.units_peak) for ln in result.lines] == [("small", 1)]
    assert result.monthly_usd == pytest.approx(2.0 * 730)
