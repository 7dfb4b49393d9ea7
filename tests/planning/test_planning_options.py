"""The options the scenario engine plans on: quotes that differ in nothing but price are pruned
to the cheapest in SQL before the join, the fleet's own instance types and negotiated quotes are
kept whole, the plans do not change, and a join still too large is refused in plain words."""

from __future__ import annotations

import json
from datetime import date

import pytest
from typer.testing import CliRunner

from briefs.workspace_plans import results_json
from cli.main import app
from costmodel import Engine
from costmodel.workspace_model import workspace_from_dict
from planning import evaluation as pe
from planning import workspaces as pw
from tests.factories import quote, result
from warehouse import Warehouse, queries

runner = CliRunner()

H200 = "nvidia-h200-141gb"
MODEL = "llama-2-70b-chat"


def _results() -> list:
    """One H200 configuration measured at three loads, with the FTL the SLO is judged on."""
    return [
        result(
            concurrency=c,
            output_tok_s=tok,
            total_tok_s=tok * 2,
            ttft_ms_p95=ttft,
            scenario="server",
        )
        for c, tok, ttft in ((8, 4000.0, 300.0), (32, 12000.0, 800.0), (64, 20000.0, 1600.0))
    ]


def _workspace(instance_type: str = "fleet.15"):
    """A company running 2 of ``instance_type`` on demand at list price for a 70B chat workload."""
    return workspace_from_dict(
        {
            "name": "Pruning Co",
            "start": "2026-12-01",
            "fleet": [
                {
                    "provider": "aws",
                    "region": "us-east-1",
                    "instance_type": instance_type,
                    "count": 2,
                    "pricing_model": "on_demand",
                    "serves": "chat",
                }
            ],
            "demand": [
                {
                    "workload": "chat",
                    "model": MODEL,
                    "output_tokens_per_month": 20e9,
                    "input_tokens_per_month": 40e9,
                    "slo": {"ttft_ms": 2000, "percentile": "p95"},
                }
            ],
        }
    )


def _dominated_warehouse(warehouse: Warehouse) -> None:
    """Three quotes the planner cannot tell apart but by price ($10, $12, $15), the fleet's own
    instance type at $15 with the same accelerators, a spot quote (another key) and a
    negotiated quote dearer than the on-demand ones."""
    same_key = dict(region="us-east-1", accelerator_id=H200, accelerator_count=8)
    warehouse.ingest_prices(
        "aws",
        [
            quote(instance_type="cheap.10", usd_per_hour=10.0, **same_key),
            quote(instance_type="mid.12", usd_per_hour=12.0, **same_key),
            quote(instance_type="dear.15", usd_per_hour=15.0, **same_key),
            quote(instance_type="fleet.15", usd_per_hour=15.0, **same_key),
            quote(instance_type="mid.12", pricing_model="spot", usd_per_hour=6.0, **same_key),
        ],
    )
    warehouse.ingest_prices(
        "aws:negotiated",
        [
            quote(
                instance_type="contract.20",
                pricing_model="negotiated",
                usd_per_hour=20.0,
                quote_id="Q-1",
                expires_on=date(2099, 12, 31),
                **same_key,
            )
        ],
    )
    warehouse.ingest_results("mlperf", _results())


def test_dominated_quotes_are_pruned_and_the_plans_do_not_change(empty_warehouse):
    _dominated_warehouse(empty_warehouse)
    ws = _workspace()
    pruned = queries.planning_options(empty_warehouse, keep_instance_types=["fleet.15"])
    kept = set(zip(pruned["instance_type"], pruned["pricing_model"], strict=True))
    # The cheapest of the three, the fleet's own type, the spot quote (its own key) and the
    # negotiated contract stay; the $12 and $15 on-demand duplicates go.
    assert kept == {
        ("cheap.10", "on_demand"),
        ("fleet.15", "on_demand"),
        ("mid.12", "spot"),
        ("contract.20", "negotiated"),
    }
    # Each kept quote keeps every result it can host.
    assert len(pruned) == len(kept) * len(_results())

    unpruned = queries.cost_options(empty_warehouse, sort=None)
    assert len(unpruned) > len(pruned)
    full = pe.evaluate(Engine.from_frame(unpruned), ws)
    planned = pe.evaluate(pw.engine_for(empty_warehouse, ws), ws)
    assert json.loads(results_json(planned)) == json.loads(results_json(full))
    # Stay is the fleet's two instances at their own $15 list price.
    assert planned.stay.monthly_usd == pytest.approx(2 * 15.0 * 730)


def test_a_fleet_line_on_a_dominated_type_keeps_its_own_rate(empty_warehouse):
    _dominated_warehouse(empty_warehouse)
    ws = _workspace("dear.15")
    engine = pw.engine_for(empty_warehouse, ws)
    assert "dear.15" in {o.instance_type for o in engine.table.options}
    assert pw.pricing_problems(engine, ws) == []
    assert pe.evaluate(engine, ws).stay.monthly_usd == pytest.approx(2 * 15.0 * 730)


def test_options_handed_to_the_engine_grow_with_keys_not_quotes(empty_warehouse):
    # 2,000 on-demand quotes of one key (same provider, region, accelerators), $10.00 to $29.99.
    empty_warehouse.ingest_prices(
        "aws",
        [
            quote(
                instance_type=f"type-{i:04d}",
                accelerator_id=H200,
                accelerator_count=8,
                usd_per_hour=10.0 + i / 100,
            )
            for i in range(2000)
        ],
    )
    empty_warehouse.ingest_results("mlperf", _results())
    assert queries.count_options(empty_warehouse) == 2000 * len(_results())
    # The stored workspace (the bundled example) names none of these types: one quote survives,
    # joined with its three results, and the engine holds one measured option (the estimated
    # options beside it are priced from that same quote, ``costmodel.estimated_options``).
    engine = pw.engine_for(empty_warehouse)
    measured = [o for o in engine.table.options if o.basis == "measured"]
    assert len(measured) == 1
    assert {o.instance_type for o in engine.table.options} == {"type-0000"}
    (option,) = measured
    assert (option.instance_type, option.usd_per_unit_hour) == ("type-0000", 10.0)


def test_a_join_too_large_even_after_pruning_is_refused_in_words(empty_warehouse, monkeypatch):
    _dominated_warehouse(empty_warehouse)
    monkeypatch.setattr(queries, "MAX_PLANNING_OPTIONS", 5)
    with pytest.raises(queries.TooManyPlanningOptions) as caught:
        pw.engine_for(empty_warehouse, _workspace())
    message = str(caught.value)
    assert "12 options to plan on, more than the 5" in message
    assert "tokendesk bench retract" in message and "fewer regions" in message


def test_the_scenarios_command_exits_2_with_the_refusal(tmp_path, monkeypatch):
    db = tmp_path / "big.duckdb"
    with Warehouse.open(db, build=False) as warehouse:
        _dominated_warehouse(warehouse)
    workspace = tmp_path / "ws.yaml"
    workspace.write_text(pw.export_yaml(_workspace()), encoding="utf-8")
    monkeypatch.setattr(queries, "MAX_PLANNING_OPTIONS", 5)
    out = runner.invoke(
        app, ["scenarios", "--db", str(db), "--workspace", str(workspace), "--format", "json"]
    )
    assert out.exit_code == 2, out.output
    assert "12 options to plan on" in out.output and "Traceback" not in out.output


def test_a_mistyped_fleet_line_is_told_the_type_it_meant_even_when_pruned(
    empty_warehouse, tmp_path
):
    _dominated_warehouse(empty_warehouse)
    # "dear.1" names no quote, so nothing of it is kept whole; "dear.15" is pruned from the
    # options (the $10 quote of its key is cheaper), yet it is still the type suggested.
    path = tmp_path / "typo.yaml"
    path.write_text(pw.export_yaml(_workspace("dear.1")), encoding="utf-8")
    with pytest.raises(pw.WorkspaceFileError) as caught:
        pw.import_workspace(empty_warehouse, path)
    assert "dear.15" in str(caught.value)
    assert "dear.15" not in {o.instance_type for o in pw.engine_for(empty_warehouse).table.options}
