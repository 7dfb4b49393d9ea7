"""Futures day's document (``briefs.review_doc``) and the ``tokendesk futures`` commands: the review's
figures in every format, the decision log shown at the next review, the rule in words."""

from __future__ import annotations

import io
import shutil
from dataclasses import replace
from datetime import date

import duckdb
import pandas as pd
import pytest
from openpyxl import load_workbook
from typer.testing import CliRunner

from briefs.render import render_document
from briefs.review_doc import _price_moves_chart, futures_document
from cli.briefs_command import register
from cli.main import app
from planning.fleet import FleetRate
from planning.review import FuturesRules, compare_warehouse
from warehouse import Warehouse
from warehouse.as_of import price_snapshots_as_of
from warehouse.decisions import Decision, DecisionError, decisions, record_decision

register(app)
runner = CliRunner()


def test_the_document_prints_the_seed_review_figures(seed_db):
    with Warehouse.open(seed_db, read_only=True) as warehouse:
        report = compare_warehouse(warehouse, "2025-03-31", "2026-11-30")
    md = render_document(futures_document(report), "md").decode()
    # AWS's p5.48xlarge on-demand list price: $98.32/h on 2025-03-31, $55.04/h on 2026-11-30
    # (Price List versions of 2025-03-31 and 2026-07-28): 55.04 / 98.32 - 1 = -44.0%.
    assert "p5.48xlarge" in md and "-44.0%" in md and "$98.320" in md and "$55.040" in md


def test_the_suggestions_say_their_rule_and_what_they_are_compared_against(seed_db):
    with Warehouse.open(seed_db, read_only=True) as warehouse:
        report = compare_warehouse(warehouse, "2025-03-31", "2026-11-30")
    # Markdown escapes a dollar sign (\$).
    market = render_document(futures_document(report), "md").decode().replace("\\$", "$")
    assert (
        "Against the incumbent (cuda): buy if $/1K output tokens is lower by more than 10%"
        in market
    )
    line = FleetRate("aws", "p5", 28.0, "your fleet: 6 × aws p5")
    mine = replace(report, rules=FuturesRules(min_savings_pct=0.2, fleet=(line,)))
    text = render_document(futures_document(mine), "md").decode().replace("\\$", "$")
    assert "Against your own fleet at the rates you pay (your fleet: 6 × aws p5): buy if" in text
    assert "lower by more than 20%" in text


def test_decision_log_is_append_only_and_shown_at_the_next_review(seed_db, tmp_path):
    db = tmp_path / "w.duckdb"
    shutil.copy(seed_db, db)
    with Warehouse.open(db) as warehouse:
        snaps = list(price_snapshots_as_of(warehouse, "2026-11-30")["snapshot_id"])[:2]
        first = record_decision(
            warehouse,
            Decision(
                "aws p5.48xlarge",
                "buy",
                "44% cheaper after the June cut",
                "cto",
                date(2026, 11, 30),
                tuple(snaps),
                date(2025, 3, 31),
                date(2026, 11, 30),
            ),
        )
        second = record_decision(
            warehouse,
            Decision(
                "aws p5.48xlarge",
                "defer",
                "capacity not available",
                "procurement",
                date(2026, 12, 2),
                supersedes=first,
            ),
        )
        with pytest.raises(DecisionError, match="unknown snapshot"):
            record_decision(warehouse, Decision("x", "buy", "r", "me", date(2026, 1, 1), ("nope",)))
        with pytest.raises(DecisionError, match="no-buy"):
            Decision("x", "maybe", "r", "me", date(2026, 1, 1))
        with pytest.raises(DecisionError, match="rationale"):
            Decision("x", "buy", " ", "me", date(2026, 1, 1))
        log = decisions(warehouse)
        assert list(log["decision_id"]) == [first, second]
        assert list(log["snapshot_ids"].iloc[0]) == snaps and log["superseded_by"].iloc[0] == second
        report = compare_warehouse(warehouse, "2026-11-30", "2027-02-28")
    doc = futures_document(report)
    xlsx = load_workbook(io.BytesIO(render_document(doc, "xlsx")))
    rows = list(xlsx["Decision log"].iter_rows(values_only=True))
    assert rows[1][2] == "aws p5.48xlarge" and rows[1][3] == "buy" and snaps[0] in rows[1][8]
    assert "44% cheaper after the June cut" in render_document(doc, "md").decode()
    with duckdb.connect(str(db)) as con:
        assert con.execute("SELECT count(*) FROM decisions").fetchone()[0] == 2


def test_futures_cli_compare_decide_log(seed_db, tmp_path):
    db = tmp_path / "w.duckdb"
    shutil.copy(seed_db, db)
    out = runner.invoke(
        app, ["futures", "compare", "--from", "2025-03-31", "--to", "2026-11-30", "--db", str(db)]
    )
    assert out.exit_code == 0, out.output
    assert "p5.48xlarge" in out.output and "-44.0%" in out.output
    decided = runner.invoke(
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
            "--on",
            "2026-11-30",
            "--from",
            "2025-03-31",
            "--to",
            "2026-11-30",
            "--db",
            str(db),
        ],
    )
    assert decided.exit_code == 0, decided.output
    assert "snapshots linked" in decided.output
    log = runner.invoke(app, ["futures", "log", "--format", "csv", "--db", str(db)])
    assert log.exit_code == 0 and "tensorwave MI300X" in log.output and "prices-aws-" in log.output
    bad = runner.invoke(
        app,
        [
            "futures",
            "decide",
            "--subject",
            "x",
            "--decision",
            "maybe",
            "--rationale",
            "r",
            "--by",
            "me",
            "--db",
            str(db),
        ],
    )
    assert bad.exit_code == 2
    pdf = tmp_path / "futures.pdf"
    exported = runner.invoke(
        app,
        [
            "futures",
            "compare",
            "--from",
            "2025-03-31",
            "--to",
            "2026-11-30",
            "--format",
            "pdf",
            "-o",
            str(pdf),
            "--db",
            str(db),
        ],
    )
    assert exported.exit_code == 0 and pdf.read_bytes().startswith(b"%PDF")


def test_the_price_move_bars_name_the_pricing_model_in_words():
    cuts = pd.DataFrame(
        [
            {
                "provider": "aws",
                "region": "us-east-1",
                "instance_type": "p5.48xlarge",
                "pricing_model": "on_demand",
                "change_pct": -0.44,
            }
        ]
    )
    chart = _price_moves_chart(cuts)
    assert chart is not None and chart.labels == ("aws · us-east-1 · p5.48xlarge · On demand",)
