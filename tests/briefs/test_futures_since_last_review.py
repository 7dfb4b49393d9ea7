"""`tokendesk futures compare` without --from compares since the last review, and says so."""

from __future__ import annotations

import shutil

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


def test_without_from_it_compares_since_the_end_of_the_last_review(seed_db, tmp_path):
    db = tmp_path / "w.duckdb"
    shutil.copy(seed_db, db)
    _decide(db, "--on", "2025-04-02", "--from", "2024-12-31", "--to", "2025-03-31")
    _decide(db, "--on", "2025-06-30")  # a later decision without a review window
    done = runner.invoke(app, ["futures", "compare", "--to", "2026-11-30", "--db", str(db)])
    assert done.exit_code == 0, done.output
    assert (
        "Comparing since 2025-06-30, the day of the last recorded decision (decision 2)"
        in done.stderr
    )
    explicit = runner.invoke(
        app, ["futures", "compare", "--from", "2025-06-30", "--to", "2026-11-30", "--db", str(db)]
    )
    assert explicit.stdout == done.stdout  # the same report as asking for that date


def test_with_no_decision_it_compares_since_the_oldest_snapshot(seed_db, tmp_path):
    db = tmp_path / "w.duckdb"
    shutil.copy(seed_db, db)
    with Warehouse.open(db, read_only=True) as warehouse:
        oldest = warehouse.snapshots().query("status == 'ok'")["as_of"].min().date()
    done = runner.invoke(app, ["futures", "compare", "--to", "2026-11-30", "--db", str(db)])
    assert done.exit_code == 0, done.output
    assert f"Comparing since {oldest.isoformat()}, the oldest snapshot's date" in done.stderr
