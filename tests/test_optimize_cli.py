"""``tokendesk optimize`` on the bundled example workspace and warehouse."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from briefs.optimize_cli import register
from planning import workspaces as pw
from tests.workspace_data import EXAMPLE, LINE_FIELDS, example_stay
from tokendesk.cli import app

register(app)
runner = CliRunner()


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    path = tmp_path_factory.mktemp("opt") / "cli.duckdb"
    assert runner.invoke(app, ["db", "init", "--db", str(path)]).exit_code == 0
    return path


def test_optimize_json_beats_every_built_in_that_meets_the_constraints(db):
    out = runner.invoke(
        app, ["optimize", "--db", str(db), "--workspace", str(EXAMPLE), "--format", "json"]
    )
    assert out.exit_code == 0, out.output
    body = json.loads(out.stdout)
    assert body["solver_status"] == "optimal"
    assert 0 <= body["gap"] <= 1e-4
    assert all(set(line) >= LINE_FIELDS for line in body["fleet"])
    # The objective is the sum of its lines plus one-time cost over 36 months.
    lines = sum(line["monthly_usd"] for line in body["fleet"])
    paid = body["released_commitments_paid_usd_per_month"]
    assert body["objective_usd_per_month"] == pytest.approx(
        lines + paid + body["one_time_usd"] / 36, abs=0.05
    )
    # Stay is priced the same way by both commands: count × rate × 730.
    assert body["stay_usd_per_month"] == pytest.approx(example_stay(db), abs=0.01)
    for s in body["builtin_scenarios"]:
        if s["feasible"] and not s["constraint_violations"]:
            assert body["objective_usd_per_month"] <= s["comparable_usd_per_month"] + 0.01
    # The workspace caps any vendor at 80% of traffic; approved providers only.
    assert max(body["vendor_shares"].values()) <= 0.8 + 1e-6
    approved = {"aws", "azure", "gcp", "oci", "crusoe"}
    assert {line["provider"] for line in body["fleet"]} <= approved
    # The 5 reserved p5s are paid until mid-2027 whatever happens, so all are kept.
    reserved = [ln for ln in body["fleet"] if ln["pricing_model"] == "reserved_1y"]
    assert [ln["count"] for ln in reserved] == [5]
    frontier = [p for p in body["diversification_frontier"] if p["objective_usd_per_month"]]
    costs = [p["objective_usd_per_month"] for p in frontier]
    assert costs == sorted(costs)


def test_optimize_md(db):
    out = runner.invoke(
        app, ["optimize", "--db", str(db), "--workspace", str(EXAMPLE), "--format", "md"]
    )
    assert out.exit_code == 0, out.output
    assert "Price of diversification" in out.stdout
    assert "| chat-70b | fleet | aws us-east-1 | p5.48xlarge | Reserved 1 yr | 5 |" in out.stdout
    assert "None" not in out.stdout


def test_a_bad_workspace_file_is_a_clear_error(db, tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\ndemand: []\n")
    out = runner.invoke(app, ["optimize", "--db", str(db), "--workspace", str(bad)])
    assert out.exit_code == 2
    assert "demand" in out.output


def test_optimize_with_owned_servers_allowed_shows_their_rate_and_break_even(db, tmp_path):
    mine = tmp_path / "owned.yaml"
    text = EXAMPLE.read_text(encoding="utf-8")
    assert "allow_owned: false" in text
    mine.write_text(text.replace("allow_owned: false", "allow_owned: true"), encoding="utf-8")
    cloud = runner.invoke(
        app, ["optimize", "--db", str(db), "--workspace", str(EXAMPLE), "--format", "json"]
    )
    out = runner.invoke(
        app, ["optimize", "--db", str(db), "--workspace", str(mine), "--format", "json"]
    )
    assert out.exit_code == 0, out.output
    body, without = json.loads(out.stdout), json.loads(cloud.stdout)
    assert without["owned_hardware"] == []
    servers = {row["server"]: row for row in body["owned_hardware"]}
    assert set(servers) == {"dgx-h100", "mi300x-8gpu"}
    for row in servers.values():
        parts = ("capital", "power", "colo", "staff")
        total = sum(row[f"{p}_usd_per_hour"] for p in parts)
        assert row["usd_per_server_hour"] == pytest.approx(total, abs=1e-3)
        assert row["usd_per_accelerator_hour"] == pytest.approx(
            row["usd_per_server_hour"] / 8, abs=1e-4
        )
        assert all(i["source"] for i in row["inputs"])
        assert row["versus_cloud"], "each server is compared with a cloud instance"
        first = row["versus_cloud"][0]
        assert first["break_even_months"] == pytest.approx(
            row["capex_usd"] / (first["usd_per_hour"] * 730 - row["running_usd_per_month"]),
            abs=0.06,
        )
    # More ways to buy never cost more than the cloud-only optimum.
    assert body["objective_usd_per_month"] <= without["objective_usd_per_month"] + 0.01
    owned = [ln for ln in body["fleet"] if ln["pricing_model"] == "owned"]
    assert all(ln["provider"] == "owned" for ln in owned)
    md = runner.invoke(
        app, ["optimize", "--db", str(db), "--workspace", str(mine), "--format", "md"]
    )
    assert "Owned NVIDIA DGX H100" in md.stdout and "pays back in" in md.stdout


def test_the_brief_gains_an_owned_hardware_section_only_when_owned_servers_are_allowed(db):
    from dataclasses import replace

    from briefs.optimal import brief_sections
    from planning.optimum import optimize
    from warehouse import Warehouse

    ws, _ = pw.read_workspace_file(EXAMPLE)
    with Warehouse.open(db, read_only=True) as wh:
        engine = pw.engine_for(wh)
    titles = [s.title for s in brief_sections(optimize(engine, ws))]
    assert "Owned hardware" not in titles
    allowed = replace(ws, constraints=replace(ws.constraints, allow_owned=True))
    sections = {s.title: s for s in brief_sections(optimize(engine, allowed))}
    owned = sections["Owned hardware"]
    tables = [b for b in owned.blocks if hasattr(b, "frame")]
    rates, inputs = tables
    assert list(rates.frame["server"]) == ["dgx-h100", "mi300x-8gpu"]
    # Every input of every server is listed with its source.
    assert len(inputs.frame) == 2 * 9 and inputs.frame["source"].str.len().min() > 0
