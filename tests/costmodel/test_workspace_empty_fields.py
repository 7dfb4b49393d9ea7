"""An empty workspace field stays empty: never read as 0, in the YAML/JSON schema, on the way back
out, and in the figures worked out from it (the input tokens left empty mean "the results' own
mix", so the cost per total token is not the cost per output token)."""

from __future__ import annotations

import copy

import pytest

from briefs.plan_evidence import plan_assumptions
from briefs.workspace_plans import plan_token_costs
from costmodel import Engine
from costmodel.plan import WorkspaceEngine
from costmodel.plan_inputs import PlanContext
from costmodel.workspace_model import (
    WorkspaceError,
    workspace_from_dict,
    workspace_to_dict,
)
from planning.workspaces import Knobs
from tests.factories import default_plans
from tests.workspace_data import OPTIONS, workspace

#: Every optional number of the schema and where it sits: (path to the mapping, key). Empty
#: (null in YAML, or the key left out) reads as None: "not stated", never 0.
OPTIONAL = [
    (("demand", 0), "input_tokens_per_month"),
    (("demand", 0), "prefix_cache_share"),
    (("demand", 0), "input_tokens_mean"),
    (("demand", 0), "output_tokens_mean"),
    (("fleet", 0), "usd_per_hour"),
    (("fleet", 0), "early_termination_usd"),
    (("fleet", 0), "commitment_end"),
    (("commitment",), "discount_1y"),
    (("commitment",), "discount_3y"),
    (("commitment", "scenarios", 0), "growth_per_quarter"),
    (("owned",), "usd_per_kwh"),
]
#: Numbers with a stated default an empty field takes (none of them 0 but growth, whose default
#: is a flat demand): demand.interactive_share 1.0, peak_to_mean 1.5, slo.ttft_ms 2000.
DEFAULTED = [
    (("demand", 0), "interactive_share", 1.0),
    (("demand", 0), "peak_to_mean", 1.5),
    (("demand", 0, "slo"), "ttft_ms", 2000.0),
    (("commitment", "scenarios", 0), "demand_factor", 1.0),
]
#: Numbers a workspace cannot do without: empty is refused, naming the field.
REQUIRED = [
    (("fleet", 0), "count", "fleet[0].count"),
    (("demand", 0), "output_tokens_per_month", "demand[0].output_tokens_per_month"),
    (("commitment", "scenarios", 0), "probability", "commitment.scenarios[0].probability"),
]


def _full() -> dict:
    """The test workspace with every optional field stated."""
    data = copy.deepcopy(workspace())
    data["demand"][0] |= {
        "prefix_cache_share": 0.3,
        "input_tokens_mean": 2000,
        "output_tokens_mean": 400,
    }
    data["fleet"][0] |= {"usd_per_hour": 30.0, "early_termination_usd": 1000.0}
    data["commitment"] = {
        "scenarios": [
            {"name": "base", "probability": 1.0, "demand_factor": 1.1, "growth_per_quarter": 0.1}
        ],
        "discount_1y": 0.3,
        "discount_3y": 0.5,
    }
    data["owned"] = {
        "site_region": "us-east",
        "usd_per_kwh": 0.1,
        **{k: bound.low + bound.step for k, bound in _owned_required()},
    }
    return data


def _owned_required():
    from costmodel.workspace_model import OWNED_REQUIRED

    return OWNED_REQUIRED


def _at(data: dict, path: tuple) -> dict:
    for step in path:
        data = data[step]
    return data


def _read(ws, path: tuple, key: str):
    """The parsed value of ``key`` under ``path`` (schema names, as :data:`OPTIONAL` has them)."""
    if path[0] == "demand":
        return getattr(ws.demand[path[1]], key)
    if path[0] == "fleet":
        return getattr(ws.fleet[path[1]], key)
    if path[0] == "owned":
        return getattr(ws.owned, key)
    if path == ("commitment",):
        return getattr(ws.commitment, key)
    return getattr(ws.commitment.scenarios[path[2]], key)


def test_every_optional_field_is_stated_in_the_full_workspace():
    ws = workspace_from_dict(_full())
    for path, key in OPTIONAL:
        assert _read(ws, path, key) not in (None, 0, 0.0), key


@pytest.mark.parametrize("how", ["null", "left out"])
@pytest.mark.parametrize(("path", "key"), OPTIONAL, ids=lambda v: str(v))
def test_an_empty_optional_number_reads_as_not_stated_never_zero(path, key, how):
    data = _full()
    if how == "null":
        _at(data, path)[key] = None
    else:
        del _at(data, path)[key]
    ws = workspace_from_dict(data)
    assert _read(ws, path, key) is None
    # Written back out and read again, it is still not stated (not 0).
    again = workspace_from_dict(workspace_to_dict(ws))
    assert _read(again, path, key) is None


@pytest.mark.parametrize(("path", "key", "default"), DEFAULTED, ids=lambda v: str(v))
def test_an_empty_defaulted_number_takes_its_stated_default(path, key, default):
    data = _full()
    del _at(data, path)[key]
    assert _read_defaulted(workspace_from_dict(data), path, key) == default


def _read_defaulted(ws, path: tuple, key: str):
    if path[:1] == ("demand",):
        return getattr(ws.demand[path[1]], key)
    return getattr(ws.commitment.scenarios[path[2]], key)


@pytest.mark.parametrize(("path", "key", "field"), REQUIRED, ids=lambda v: str(v))
def test_an_empty_required_number_is_refused_by_name(path, key, field):
    data = _full()
    _at(data, path)[key] = None
    with pytest.raises(WorkspaceError) as caught:
        workspace_from_dict(data)
    assert caught.value.where == field and "required" in str(caught.value)


def test_an_empty_one_time_cost_is_refused_not_free():
    data = _full()
    data["one_time_usd"] = {"rocm": None}
    with pytest.raises(WorkspaceError) as caught:
        workspace_from_dict(data)
    assert caught.value.where == "one_time_usd.rocm" and "0 when there is none" in str(caught.value)
    data["one_time_usd"] = {"rocm": 0}
    assert workspace_from_dict(data).one_time_usd_by_backend == (("rocm", 0.0),)


def _costs(data: dict) -> dict[str, list[float | None]]:
    ws = workspace_from_dict(data)
    engine = WorkspaceEngine(Engine.from_frame(OPTIONS), PlanContext(ws))
    return plan_token_costs(engine.evaluate(default_plans()), ws)


def _stated() -> dict:
    data = workspace()
    data["demand"][1]["input_tokens_per_month"] = 20e9
    return data


def test_input_tokens_left_empty_give_no_cost_per_total_token_instead_of_the_output_one():
    output, total = _costs(_stated()).values()
    # Stated input tokens: a total token costs less than an output token.
    assert any(o is not None for o in output)
    assert all(t < o for o, t in zip(output, total, strict=True) if o is not None)
    data = _stated()
    del data["demand"][0]["input_tokens_per_month"]
    output, total = _costs(data).values()
    assert any(o is not None for o in output)
    assert total == [None] * len(total)


def test_the_brief_says_the_input_tokens_are_not_stated_instead_of_0_b():
    data = _stated()
    del data["demand"][0]["input_tokens_per_month"]
    ws = workspace_from_dict(data)
    rows = dict(plan_assumptions(ws, Knobs(), "1k").itertuples(index=False))
    assert "input tokens not stated" in rows["chat: demand"], rows
    assert rows["small: demand"].startswith("10 B output and 20 B input tokens a month")
