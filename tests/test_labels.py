"""People read labels, not stored ids: one table in tokendesk/labels.py, used by the terminal, the
documents, the workbook and the pages."""

from __future__ import annotations

import io
from types import SimpleNamespace

import pandas as pd
from openpyxl import load_workbook

from app.models.tables import readable
from briefs.document import Document, Section, table
from briefs.render import render_document
from planning.optimal_plan import proven_sentence as _proven
from tokendesk import formatting
from tokendesk.labels import label, sku_label


def test_the_label_table():
    assert label("on_demand") == "On demand"
    assert label("reserved_1y") == "Reserved 1 yr"
    assert label("rocm") == "ROCm (AMD)"
    assert label("incumbent") == "current fleet"
    assert label("p5.48xlarge") == "p5.48xlarge"  # a provider's own name is already the word


def test_a_sku_reads_in_one_order_everywhere():
    assert (
        sku_label("aws", "us-east-1", "p5.48xlarge", "reserved_1y", count=2)
        == "2 × aws · us-east-1 · p5.48xlarge · Reserved 1 yr"
    )
    # A part a surface does not have is left out, the order of the rest kept.
    assert sku_label("gcp", None, "a3-highgpu-8g", "spot") == "gcp · a3-highgpu-8g · Spot"
    assert sku_label("gcp", "us-central1", "a3", zone="us-central1-a") == (
        "gcp · us-central1 (us-central1-a) · a3"
    )


def test_an_hourly_rate_shows_cents_not_four_decimals():
    assert formatting.usd_rate(31.46) == "$31.46"
    assert formatting.usd_rate(0.0525) == "$0.0525"


def test_the_solver_gap_reads_as_words():
    proven = _proven(SimpleNamespace(status="optimal", gap=0.0, bound_usd_per_month=1234.5))
    assert "proven cheapest" in proven and "gap" not in proven and "%" not in proven
    close = _proven(SimpleNamespace(status="feasible", gap=0.0004, bound_usd_per_month=1234.5))
    assert "within 0.04% of the cheapest possible plan" in close


def _doc() -> Document:
    frame = pd.DataFrame(
        {"provider": ["aws", "aws"], "pricing model": ["reserved_1y", "on_demand"], "count": [5, 2]}
    )
    return Document(
        title="t",
        subtitle="s",
        meta=(),
        sections=(
            Section("Fleet", (table("Fleet", frame),)),
            Section("More", (table("x", frame),)),
        ),
        assumptions=pd.DataFrame({"name": [], "value": []}),
        csv_frame=frame,
    )


def test_documents_and_workbooks_show_pricing_models_as_labels():
    markdown = render_document(_doc(), "md").decode()
    assert "Reserved 1 yr" in markdown and "On demand" in markdown and "on_demand" not in markdown
    book = load_workbook(io.BytesIO(render_document(_doc(), "xlsx")))
    cells = [c.value for sheet in book.worksheets for row in sheet.iter_rows() for c in row]
    assert "Reserved 1 yr" in cells and "reserved_1y" not in cells


def test_page_tables_show_pricing_models_and_backends_as_labels():
    frame = pd.DataFrame({"pricing_model": ["on_demand"], "backend": ["rocm"]})
    shown = readable(frame, {"pricing_model": "Pricing", "backend": "Backend"}).frame
    assert list(shown.iloc[0]) == ["On demand", "ROCm (AMD)"]


def test_the_costs_table_shows_the_pricing_model_label(tmp_path):
    from typer.testing import CliRunner

    from cli.main import app

    runner = CliRunner()
    db = tmp_path / "w.duckdb"
    assert runner.invoke(app, ["db", "init", "--db", str(db)]).exit_code == 0
    done = runner.invoke(app, ["costs", "--db", str(db), "--limit", "20"])
    assert done.exit_code == 0, done.output
    assert "On demand" in done.stdout or "Spot" in done.stdout
    assert "on_demand" not in done.stdout and "reserved_1y" not in done.stdout


def test_an_id_at_the_head_of_a_sizing_rule_reads_as_its_label():
    from tokendesk.labels import label

    assert label("on_demand held at peak") == "On demand held at peak"
    assert (
        label("reserved_1y base of 3 (reserve to the 40% demand percentile) + on-demand burst")[:17]
        == "Reserved 1 yr bas"
    )
    assert label("us-east-1 zone a") == "us-east-1 zone a"  # not an id: as it is
