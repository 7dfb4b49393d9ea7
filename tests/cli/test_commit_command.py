"""``tokendesk commit`` on the bundled example workspace and warehouse."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from cli.commit_command import register
from cli.main import app
from planning import workspaces as pw
from tests.workspace_data import EXAMPLE, list_price

register(app)
runner = CliRunner()


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    path = tmp_path_factory.mktemp("commit") / "cli.duckdb"
    assert runner.invoke(app, ["db", "init", "--db", str(path)]).exit_code == 0
    return path


def test_commit_json_recommends_the_cheapest_expected_option_per_workload(db):
    out = runner.invoke(
        app, ["commit", "--db", str(db), "--workspace", str(EXAMPLE), "--format", "json"]
    )
    assert out.exit_code == 0, out.output
    body = json.loads(out.stdout)
    chat = next(w for w in body["workloads"] if w["workload"] == "chat-70b")
    assert chat["instance_type"] == "p5.48xlarge"
    p5 = list_price(db, "p5.48xlarge")
    assert chat["on_demand_usd_per_unit_hour"] == pytest.approx(p5)
    terms = {t["term"]: t for t in chat["terms"]}
    # 1 year: the fleet's reserved rate; 3 years: the workspace's 55% discount off list.
    assert terms["1y"]["usd_per_unit_hour"] == pytest.approx(31.46)
    assert terms["3y"]["usd_per_unit_hour"] == pytest.approx(p5 * 0.45, abs=1e-4)
    assert terms["1y"]["break_even_utilisation"] == pytest.approx(31.46 / p5, abs=1e-4)
    assert [s["name"] for s in chat["scenarios"]] == ["low", "base", "high"]
    for workload in body["workloads"]:
        options = workload["options"]
        assert options[0]["term"] == "none"
        best = min(o["expected_monthly_usd"] for o in options)
        chosen = next(o for o in options if o["option"] == workload["recommended"])
        assert chosen["expected_monthly_usd"] == best
        assert min(o["max_regret_usd"] for o in options) >= 0
        # The expected cost is the probability-weighted cost of the scenarios.
        weights = {s["name"]: s["probability"] for s in workload["scenarios"]}
        for o in options:
            expected = sum(p * o[f"monthly_usd_{name}"] for name, p in weights.items())
            assert o["expected_monthly_usd"] == pytest.approx(expected, abs=0.02)
        assert workload["recommendation"].startswith(workload["workload"])


def test_commit_md_and_table(db):
    out = runner.invoke(
        app, ["commit", "--db", str(db), "--workspace", str(EXAMPLE), "--format", "md"]
    )
    assert out.exit_code == 0, out.output
    assert "# How much to commit: Example Corp" in out.stdout
    assert "| No commitment (all on demand) |" in out.stdout
    assert "None" not in out.stdout
    out = runner.invoke(app, ["commit", "--db", str(db), "--workspace", str(EXAMPLE)])
    assert out.exit_code == 0, out.output
    assert "chat-70b" in out.stdout and "break-even utilisation" in out.stdout


def test_a_bad_commitment_block_is_a_clear_error(db, tmp_path):
    bad = tmp_path / "bad.yaml"
    text = EXAMPLE.read_text(encoding="utf-8").replace("probability: 0.5,", "probability: 0.4,")
    bad.write_text(text, encoding="utf-8")
    out = runner.invoke(app, ["commit", "--db", str(db), "--workspace", str(bad)])
    assert out.exit_code == 2
    assert "commitment.scenarios" in out.output and "add up to 1" in out.output


def test_the_brief_section_prints_one_sentence_per_workload_and_every_option(db):
    from briefs.commitment_doc import commitment_section
    from costmodel.commit_levels import shown_options
    from costmodel.commitment_workspace import brief_rows
    from planning.commitment import commitments
    from warehouse import Warehouse

    ws, _ = pw.read_workspace_file(EXAMPLE)
    with Warehouse.open(db, read_only=True) as wh:
        analysis = commitments(pw.engine_for(wh), ws)
    rows, sentences = brief_rows(analysis)
    assert len(sentences) == len(ws.demand)
    # Every option a person needs: each whole unit up to a dozen (or past the recommendation);
    # the rest, dearer, are named and in the JSON.
    shown = [o for a in analysis if a.result for o in shown_options(a.result)]
    assert len(rows) == len(shown)
    assert any("further options" in s for s in sentences)
    section = commitment_section(analysis)
    (options,) = [b for b in section.blocks if hasattr(b, "frame")]
    assert len(options.frame) == len(rows)


def test_levels_reach_the_horizon_peak_say_their_true_share_and_count_held_units(db):
    out = runner.invoke(
        app, ["commit", "--db", str(db), "--workspace", str(EXAMPLE), "--format", "json"]
    )
    assert out.exit_code == 0, out.output
    chat = next(w for w in json.loads(out.stdout)["workloads"] if w["workload"] == "chat-70b")
    # The 5 reserved p5s (until 2027-06-30) are shown and counted before anything more.
    (held,) = chat["held_commitments"]
    assert (held["count"], held["term_end"]) == (5, "2027-06-30")
    assert held["line"] == "aws · us-east-1 · p5.48xlarge · Reserved 1 yr"
    assert chat["held_units_by_month"][0] == pytest.approx(5.0)
    assert chat["held_units_by_month"][-1] == 0.0  # the term ends in month 7
    assert (
        "already holds 5 × aws · us-east-1 · p5.48xlarge · Reserved 1 yr until 2027-06-30"
        in (chat["recommendation"])
    )
    mean = chat["mean_units_needed_month_1"]
    peak = chat["peak_units_needed_over_horizon"]
    for term in ("1y", "3y"):
        units = [o["committed_units"] for o in chat["options"] if o["term"] == term]
        # Every whole unit up to the horizon's peak need, well past the month-1 mean need.
        assert units == list(range(1, peak + 1)) and peak > 2 * mean
    for o in chat["options"]:
        share = o["committed_units"] / mean
        assert o["share_of_month_1_mean_need"] == pytest.approx(share, rel=1e-3)
        if o["term"] != "none":
            assert f"({share:.0%})" in o["option"]
    best = min(chat["options"], key=lambda o: o["expected_monthly_usd"])
    assert chat["recommended"] == best["option"]
