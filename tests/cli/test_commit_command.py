"""``tokendesk commit`` on the bundled example workspace and warehouse: the commitments on the
optimizer's path over the horizon, and under each demand scenario."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from cli.commit_command import register
from cli.main import app
from planning import workspaces as pw
from tests.workspace_data import EXAMPLE

register(app)
runner = CliRunner()


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    path = tmp_path_factory.mktemp("commit") / "cli.duckdb"
    assert runner.invoke(app, ["db", "init", "--db", str(path)]).exit_code == 0
    return path


@pytest.fixture(scope="module")
def commit_json(db):
    out = runner.invoke(
        app, ["commit", "--db", str(db), "--workspace", str(EXAMPLE), "--format", "json"]
    )
    assert out.exit_code == 0, out.output
    return json.loads(out.stdout)


def test_commit_json_is_the_optimizers_path_and_each_scenarios(commit_json):
    body = commit_json
    assert body["commitments"] == body["optimizer_plan"]["commitments"]
    # The example holds 5 reserved p5s until 2027-06-30: month 7 of the horizon.
    (held,) = [r for r in body["commitments"] if r["kind"] == "held"]
    assert (held["units"], held["until_month"], held["commitment_end"]) == (5, 7, "2027-06-30")
    assert (
        body["optimizer_plan"]["on_demand_basis"]
        == pw.read_workspace_file(EXAMPLE)[0].on_demand_basis
    )
    assert [s["name"] for s in body["scenarios"]] == ["low", "base", "high"]
    assert body["scenarios_basis"] == "the workspace's commitment scenarios"
    base = next(s for s in body["scenarios"] if s["name"] == "base")
    # The stated demand (factor 1, each workload's own growth) is the path itself, not re-solved.
    assert base["commitments"] == body["commitments"]
    assert base["horizon_usd"] == body["optimizer_plan"]["horizon_usd"]
    for s in body["scenarios"]:
        new = [r for r in s["commitments"] if r["kind"] == "new"]
        # Per SKU and term: units of different SKUs are never added together.
        for n in s["new_units"]:
            same = [
                r
                for r in new
                if (r["instance_type"], r["provider"], r["term_months"])
                == (n["instance_type"], n["provider"], int(n["term"][0]) * 12)
            ]
            assert n["units"] == sum(r["units"] for r in same)
        assert sum(n["units"] for n in s["new_units"]) == sum(r["units"] for r in new)
    totals = [s["horizon_usd"] for s in body["scenarios"]]
    # Low (0.8×, no growth) < base < high (1.2×, 20%/quarter): less demand never costs more.
    assert totals == sorted(totals)


def test_commit_md_and_table(db, commit_json):
    out = runner.invoke(
        app, ["commit", "--db", str(db), "--workspace", str(EXAMPLE), "--format", "md"]
    )
    assert out.exit_code == 0, out.output
    assert "# How much to commit: Example Corp" in out.stdout
    assert "## Under the demand scenarios (the workspace's commitment scenarios)" in out.stdout
    assert "None" not in out.stdout
    out = runner.invoke(app, ["commit", "--db", str(db), "--workspace", str(EXAMPLE)])
    assert out.exit_code == 0, out.output
    for sentence in commit_json["summary"]:
        assert " ".join(sentence.split()) in " ".join(out.stdout.split())
    # The old per-workload option table (priced on demand by the hour) is gone.
    assert "break-even utilisation" not in out.stdout


def test_a_bad_commitment_block_is_a_clear_error(db, tmp_path):
    bad = tmp_path / "bad.yaml"
    text = EXAMPLE.read_text(encoding="utf-8").replace("probability: 0.5,", "probability: 0.4,")
    bad.write_text(text, encoding="utf-8")
    out = runner.invoke(app, ["commit", "--db", str(db), "--workspace", str(bad)])
    assert out.exit_code == 2
    assert "commitment.scenarios" in out.output and "add up to 1" in out.output


def test_the_brief_section_lists_every_commitment_and_every_scenario(db):
    from briefs.commitment_doc import commitment_section
    from planning.commitment import commitments
    from warehouse import Warehouse

    ws, _ = pw.read_workspace_file(EXAMPLE)
    with Warehouse.open(db, read_only=True) as wh:
        plan = commitments(pw.engine_for(wh), ws, scenarios=False)
    section = commitment_section(plan)
    tables = [b for b in section.blocks if hasattr(b, "frame")]
    assert [len(t.frame) for t in tables] == [len(plan.rows)]
    assert len(plan.summary()) == len({r["workload"] for r in plan.rows})


def test_the_json_on_stdout_is_json_alone(db):
    """The solver's own diagnostics (HiGHS writes one straight to file descriptor 1 while it
    solves the example's high-demand scenario) go to stderr, never into ``--format json``."""
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "cli.main", "commit", "--workspace", str(EXAMPLE)]
        + ["--format", "json", "--db", str(db)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["workspace"] == "Example Corp"
