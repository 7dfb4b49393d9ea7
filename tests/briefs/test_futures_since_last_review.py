"""`tokendesk futures compare` without --from compares since the last review closed on purpose
(recorded decisions do not close it), and says so; with nothing to compare it says why."""

from __future__ import annotations

import json
import shutil
from datetime import date

from typer.testing import CliRunner

from cli.main import app
from warehouse import Warehouse

runner = CliRunner()


def _decide(db, *extra: str) -> None:
    done = runner.invoke(
        app,
        [
            "futures",
            "decide",
            "--subject",
            "tensorwave MI300X",
            "--decision",
            "defer",
            "--rationale",
            "needs an FTL run",
            "--by",
            "platform",
            "--db",
            str(db),
            *extra,
        ],
    )
    assert done.exit_code == 0, done.output


def _close(db, *extra: str):
    return runner.invoke(app, ["futures", "close", "--by", "procurement", "--db", str(db), *extra])


def _oldest(db) -> date:
    with Warehouse.open(db, read_only=True) as warehouse:
        return warehouse.snapshots().query("status == 'ok'")["as_of"].min().date()


def test_without_from_it_compares_since_the_end_of_the_last_closed_review(seed_db, tmp_path):
    db = tmp_path / "w.duckdb"
    shutil.copy(seed_db, db)
    assert _close(db, "--from", "2024-12-31", "--to", "2025-03-31").exit_code == 0
    _decide(db, "--on", "2025-06-30")  # a later decision: it does not end the review
    done = runner.invoke(app, ["futures", "compare", "--to", "2026-11-30", "--db", str(db)])
    assert done.exit_code == 0, done.output
    assert "Comparing since 2025-03-31, the end of the last closed review" in done.stderr
    explicit = runner.invoke(
        app, ["futures", "compare", "--from", "2025-03-31", "--to", "2026-11-30", "--db", str(db)]
    )
    assert explicit.stdout == done.stdout  # the same report as asking for that date


def test_recording_a_decision_does_not_end_the_review(seed_db, tmp_path):
    """A decision recorded on today's review (as the Futures page records it) leaves the review
    open: the next comparison without dates still compares, from where it did before."""
    db = tmp_path / "w.duckdb"
    shutil.copy(seed_db, db)
    today = date.today().isoformat()
    before = runner.invoke(app, ["futures", "compare", "--format", "json", "--db", str(db)])
    assert before.exit_code == 0, before.output
    _decide(db, "--from", _oldest(db).isoformat(), "--to", today)
    after = runner.invoke(app, ["futures", "compare", "--format", "json", "--db", str(db)])
    assert after.exit_code == 0, after.output
    assert json.loads(after.stdout)["from"] == json.loads(before.stdout)["from"]
    assert json.loads(after.stdout)["to"] == today


def test_a_review_closed_today_is_shown_again_and_an_empty_window_is_said_in_words(
    seed_db, tmp_path
):
    db = tmp_path / "w.duckdb"
    shutil.copy(seed_db, db)
    today = date.today().isoformat()
    assert _close(db, "--from", "2025-03-31").exit_code == 0  # --to: today
    again = runner.invoke(app, ["futures", "compare", "--format", "json", "--db", str(db)])
    assert again.exit_code == 0, again.output
    assert (json.loads(again.stdout)["from"], json.loads(again.stdout)["to"]) == (
        "2025-03-31",
        today,
    )
    assert "the start of the last review, which was closed on " + today in again.stderr
    # A review closed today that names no start leaves nothing to compare: said in words.
    assert _close(db).exit_code == 0
    nothing = runner.invoke(app, ["futures", "compare", "--db", str(db)])
    assert nothing.exit_code == 2
    assert "nothing to compare: the last review was closed on " + today in nothing.output
    assert "earlier date must come before" not in nothing.output


def test_closing_a_review_needs_who_and_a_start_before_its_end(seed_db, tmp_path):
    db = tmp_path / "w.duckdb"
    shutil.copy(seed_db, db)
    backwards = _close(db, "--from", "2025-04-01", "--to", "2025-03-31")
    assert backwards.exit_code == 2
    assert "must come before its end" in backwards.output
    nobody = runner.invoke(app, ["futures", "close", "--by", " ", "--db", str(db)])
    assert nobody.exit_code == 2
    assert "who closes it" in nobody.output


def test_with_no_closed_review_it_compares_since_the_oldest_snapshot(seed_db, tmp_path):
    db = tmp_path / "w.duckdb"
    shutil.copy(seed_db, db)
    oldest = _oldest(db)
    done = runner.invoke(app, ["futures", "compare", "--to", "2026-11-30", "--db", str(db)])
    assert done.exit_code == 0, done.output
    assert f"Comparing since {oldest.isoformat()}, the oldest snapshot's date" in done.stderr
