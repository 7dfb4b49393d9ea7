"""``tokendesk scenarios --format json`` on the horizon: every plan, Optimal included, carries 36
months and a horizon total; the plan marked BUY has the lowest; no plan that costs less than Stay
over the horizon reads "costs more"; and every built-in plan is a path the optimizer could take."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from cli.main import app
from tests.workspace_data import EXAMPLE, mixed_fleet

runner = CliRunner()


@pytest.mark.parametrize("which", ["example", "mixed"])
def test_every_plan_has_a_horizon_and_the_buy_is_the_lowest(tmp_path, which):
    ws = EXAMPLE if which == "example" else mixed_fleet(tmp_path)
    db = tmp_path / "td.duckdb"
    out = runner.invoke(
        app, ["scenarios", "--workspace", str(ws), "--format", "json", "--db", str(db)]
    )
    assert out.exit_code == 0, out.output
    rows = json.loads(out.stdout)
    assert "Optimal" in [r["name"] for r in rows]
    for r in rows:
        assert len(r["monthly_usd_by_month"]) == 36, r["name"]
        assert r["horizon_usd"] is not None, r["name"]
        # The horizon total is the months and the one-time costs (no discount rate stated). Each
        # figure is rounded to the cent, so each is up to half a cent off, the total too; the
        # months of one period repeat one figure, so their roundings add up rather than cancel.
        figures = [v for v in r["monthly_usd_by_month"] + r["one_time_usd_by_month"] if v]
        assert r["horizon_usd"] == pytest.approx(sum(figures), abs=0.005 * (len(figures) + 1))
    stay = next(r for r in rows if r["name"] == "Stay")
    serving = [r for r in rows if r["feasible"] and not r.get("constraint_violations")]
    bought = [r for r in rows if r["decision"] == "buy"]
    assert len(bought) == 1
    assert bought[0]["horizon_usd"] == min(r["horizon_usd"] for r in serving)
    optimal = next(r for r in rows if r["name"] == "Optimal")
    assert all(optimal["horizon_usd"] <= r["horizon_usd"] + 0.01 for r in serving)
    for r in rows:
        if r["horizon_usd"] < stay["horizon_usd"]:
            assert "more" not in r["decision_reason"].split(",")[0], r["decision_reason"]


@pytest.mark.parametrize("which", ["example", "mixed"])
def test_commit_and_optimize_read_the_same_commitments(tmp_path, which):
    db = tmp_path / "td.duckdb"
    ws = EXAMPLE if which == "example" else mixed_fleet(tmp_path)
    commit = runner.invoke(
        app, ["commit", "--workspace", str(ws), "--format", "json", "--db", str(db)]
    )
    optimize = runner.invoke(
        app, ["optimize", "--workspace", str(ws), "--format", "json", "--db", str(db)]
    )
    table = runner.invoke(app, ["commit", "--workspace", str(ws), "--db", str(db)])
    assert commit.exit_code == optimize.exit_code == table.exit_code == 0, (
        commit.output + optimize.output + table.output
    )
    body = json.loads(commit.stdout)
    horizon = json.loads(optimize.stdout)["horizon"]
    # One answer: the advice is the optimizer's commitments (units, start, term), nothing beside.
    assert body["commitments"] == body["optimizer_plan"]["commitments"] == horizon["commitments"]
    assert "workloads" not in body
    assert body["optimizer_plan"]["at_end"] == horizon["commitment_at_end"] == "renew"
    assert body["optimizer_plan"]["horizon_usd"] == horizon["horizon_usd"]
    # The reservation is on the path to its real end (month 7: it ends 2027-06-30).
    held = [r for r in body["commitments"] if r["kind"] == "held"]
    assert held and held[0]["until_month"] == 7
    assert held[0]["units"] == (5 if which == "example" else 3)
    # The words printed say the same units and terms.
    printed = " ".join(table.stdout.split())
    new = [r for r in horizon["commitments"] if r["kind"] == "new"]
    for key in {(r["workload"], r["instance_type"], r["term_months"]) for r in new}:
        units = sum(
            r["units"] for r in new if (r["workload"], r["instance_type"], r["term_months"]) == key
        )
        assert f"commits {units} × {key[1]} for {key[2] // 12}y" in printed, (key, printed)
