"""Estimated capacity in the plans, read through ``tokendesk scenarios --format json``: a model no
bundled result measures is served by estimated lines with a cost band, and prompt-heavy traffic
costs more than chat on the example."""

from __future__ import annotations

import json

import pytest
import yaml
from typer.testing import CliRunner

from cli.main import app
from cli.workspace_command import register
from tests.workspace_data import EXAMPLE

register(app)
runner = CliRunner()
CHAT = "chat-70b"


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    path = tmp_path_factory.mktemp("est") / "cli.duckdb"
    assert runner.invoke(app, ["db", "init", "--db", str(path)]).exit_code == 0
    return path


def scenarios(db, tmp_path, change=None) -> dict[str, dict]:
    body = yaml.safe_load(EXAMPLE.read_text())
    if change is not None:
        change(body)
    path = tmp_path / "ws.yaml"
    path.write_text(yaml.safe_dump(body))
    out = runner.invoke(
        app, ["scenarios", "--db", str(db), "--workspace", str(path), "--format", "json"]
    )
    assert out.exit_code == 0, out.output
    return {p["name"]: p for p in json.loads(out.output)}


def chat(body: dict) -> dict:
    return next(w for w in body["demand"] if w["workload"] == CHAT)


def no_stand_ins(body: dict) -> None:
    chat(body)["model"] = "llama-3.3-70b-instruct"
    chat(body).pop("accept_results_from", None)


def ten_times_input(body: dict) -> None:
    for w in body["demand"]:
        w["input_tokens_per_month"] = 10 * float(w["input_tokens_per_month"])


def ordered(band: dict) -> bool:
    return band["low"] <= band["base"] <= band["high"]


def test_ten_times_the_input_tokens_costs_more(db, tmp_path):
    example = scenarios(db, tmp_path)
    heavy = scenarios(db, tmp_path, ten_times_input)
    for name in ("Stay", "Optimal"):
        assert heavy[name]["feasible"] and example[name]["feasible"]
        assert heavy[name]["monthly_usd"] > example[name]["monthly_usd"]


def test_a_model_no_result_measures_is_served_by_estimated_lines_with_a_band(db, tmp_path):
    plans = scenarios(db, tmp_path, no_stand_ins)
    for name in ("Stay", "Optimal"):
        plan = plans[name]
        assert plan["feasible"], plan.get("unserved_reasons")
        estimated = [ln for ln in plan["fleet"] if ln["basis"].startswith("estimated ±")]
        assert any(ln["workload"] == CHAT for ln in estimated)
        assert all(ordered(ln["monthly_usd_band"]) for ln in plan["fleet"])
        band = plan["monthly_usd_band"]
        assert ordered(band) and band["low"] < band["high"]
        assert band["base"] == plan["monthly_usd"]
    # The routing workload keeps its measured results.
    routing = [ln for ln in plans["Stay"]["fleet"] if ln["workload"] == "routing-8b"]
    assert routing and {ln["basis"] for ln in routing} == {"measured"}
    assert all(ln["monthly_usd_band"]["low"] == ln["monthly_usd_band"]["high"] for ln in routing)


def test_without_estimates_the_model_stays_unservable(db, tmp_path):
    def off(body: dict) -> None:
        no_stand_ins(body)
        body["constraints"]["allow_estimates"] = False

    plans = scenarios(db, tmp_path, off)
    assert not plans["Stay"]["feasible"]
    assert all(ln["basis"] == "measured" for p in plans.values() for ln in p["fleet"])


def test_the_verdict_says_fragile_exactly_when_the_bands_overlap(db, tmp_path):
    plans = scenarios(db, tmp_path, no_stand_ins)
    stay, optimal = plans["Stay"]["horizon_usd_band"], plans["Optimal"]["horizon_usd_band"]
    assert ordered(stay) and ordered(optimal)
    assert optimal["base"] == plans["Optimal"]["horizon_usd"]
    # Ranked on the horizon total: the cheaper plan is fragile where its high end reaches the
    # dearer one's low end (the order could flip inside the intervals).
    assert optimal["base"] < stay["base"]
    overlap = optimal["high"] >= stay["low"]
    said = "fragile: within the estimate's band" in plans["Optimal"]["decision_reason"]
    assert said == overlap


def test_the_brief_states_the_estimates_setting_among_its_assumptions(db, tmp_path):
    def brief(change=None) -> str:
        body = yaml.safe_load(EXAMPLE.read_text())
        if change is not None:
            change(body)
        path = tmp_path / "ws.yaml"
        path.write_text(yaml.safe_dump(body))
        args = ["scenarios", "--db", str(db), "--workspace", str(path), "--format", "md"]
        out = runner.invoke(app, args)
        assert out.exit_code == 0, out.output
        return out.output

    def off(body: dict) -> None:
        body["constraints"]["allow_estimates"] = False

    assumptions = brief().split("## Assumptions", 1)[1]
    assert "estimated capacity: allowed" in assumptions
    assert "only for a workload no measured option serves" in assumptions
    assert "estimated capacity: not allowed" in brief(off).split("## Assumptions", 1)[1]
