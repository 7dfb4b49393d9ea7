"""The column-wise frame adapter builds exactly the table the object-wise one does."""

import numpy as np
import pytest

from costmodel import Engine, OptionTable, options_from_frame
from costmodel.plan import WorkspaceEngine
from costmodel.plan_inputs import PlanContext
from planning import what_ifs as si
from planning.workspaces import market_workspace
from tests.factories import default_plans, seeded_warehouse

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


def test_same_plans(seed_frame):
    ws = market_workspace(si.DEFAULTS)
    fast, slow = (
        WorkspaceEngine(engine, PlanContext(ws)).evaluate(default_plans())
        for engine in (Engine.from_frame(seed_frame), Engine(options_from_frame(seed_frame)))
    )
    assert [r.monthly_usd_by_month for r in fast] == [r.monthly_usd_by_month for r in slow]
    assert [len(r.fleet) for r in fast] == [len(r.fleet) for r in slow]
    assert all(r.fleet for r in fast)


def test_empty_frame(seed_frame):
    assert len(OptionTable.from_frame(seed_frame.iloc[0:0])) == 0
