from __future__ import annotations

import io
import re
from dataclasses import replace

import pandas as pd
import pytest
from openpyxl import load_workbook
from pypdf import PdfReader

from briefs import (
    BUY,
    DEFER,
    KEEP,
    NO_BUY,
    Comparison,
    Thresholds,
    recommend,
    recommendations,
    render_brief,
)
from briefs.brief import bench_sources, price_sources

HOSTILE = '=HYPERLINK("http://x","y")'


def _sources(comparison):
    prices, benches = price_sources(comparison), bench_sources(comparison)
    titles = set(prices["price_source"]) | set(benches["bench_source_title"])
    dates = {
        f"{pd.Timestamp(d):%Y-%m-%d}"
        for d in [*prices["price_observed_at"], *benches["bench_measured_at"]]
    }
    snapshots = set(prices["price_snapshot_id"]) | set(benches["bench_snapshot_id"])
    return titles, dates, snapshots


def _squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


def test_every_option_gets_a_verdict_with_its_rule(comparison):
    recs = {r.scenario: r for r in recommendations(comparison)}
    assert set(recs) == {r.name for r in comparison.results}
    assert recs["Stay"].verdict == KEEP
    for name, rec in recs.items():
        assert rec.verdict in {BUY, NO_BUY, DEFER, KEEP}
        assert rec.reason
        if name != "Stay":
            assert rec.checks and any(c.rule.startswith("saves more than") for c in rec.checks)


def test_thresholds_drive_the_verdict(comparison):
    base = comparison.baseline
    amd = next(r for r in comparison.results if "AMD" in r.name)
    cheap = replace(
        amd,
        monthly_usd=base.monthly_usd * 0.7,
        savings_vs_baseline_usd=base.monthly_usd * 0.3,
        savings_pct=0.3,
        payback_months=3.0,
    )
    lenient = Thresholds(
        min_savings_pct=0.05, max_payback_months=12, min_maturity_score=0, max_stale_share=1.0
    )
    assert recommend(cheap, base, lenient).verdict == BUY
    assert recommend(cheap, base, replace(lenient, min_savings_pct=0.35)).verdict == NO_BUY
    assert recommend(cheap, base, replace(lenient, max_payback_months=2)).verdict == NO_BUY
    deferred = recommend(cheap, base, replace(lenient, min_maturity_score=99.5))
    assert deferred.verdict == DEFER and "software maturity" in deferred.reason
    # A buy elsewhere turns the baseline from keep into no-buy.
    flipped = recommendations(Comparison((base, cheap), thresholds=lenient))
    assert [r.verdict for r in flipped] == [NO_BUY, BUY]


@pytest.fixture(scope="module")
def rendered(comparison):
    return {fmt: render_brief(comparison, fmt) for fmt in ("md", "html", "pdf", "xlsx", "csv")}


def test_markdown_and_html_carry_every_source_date_and_snapshot(comparison, rendered):
    titles, dates, snapshots = _sources(comparison)
    md = rendered["md"].decode()
    page = rendered["html"].decode()
    import html

    text = html.unescape(page)
    for needle in (*titles, *dates, *snapshots):
        assert needle.replace("|", "\\|") in md, needle
        assert needle in text, needle
    for heading in (
        "Recommendation",
        "Cost",
        "Risk",
        "Timeline",
        "Sensitivity",
        "Assumptions",
        "Sources",
    ):
        assert f"## {heading}" in md and f"<h2>{heading}</h2>" in page


def test_html_is_self_contained_with_inline_charts(rendered):
    page = rendered["html"].decode()
    assert page.count("<svg") >= 3
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", page)
    assert "<script" not in page and "<link" not in page


def test_pdf_text_has_sources_dates_snapshots_and_charts(comparison, rendered):
    reader = PdfReader(io.BytesIO(rendered["pdf"]))
    text = _squash("".join(page.extract_text() for page in reader.pages))
    titles, dates, snapshots = _sources(comparison)
    for needle in (*titles, *dates, *snapshots):
        assert _squash(needle) in text, needle
    assert "Monthlycostperoption" in text and "Weekstofullcutover" in text
    assert len(reader.pages) >= 2


def test_xlsx_has_assumptions_first_and_every_table(comparison, rendered):
    wb = load_workbook(io.BytesIO(rendered["xlsx"]))
    assert wb.sheetnames[0] == "Assumptions"
    for sheet in (
        "Summary",
        "Rules",
        "Cost",
        "Risk",
        "Timeline",
        "Sensitivity",
        "Price sources",
        "Benchmark sources",
        "Snapshots",
    ):
        assert sheet in wb.sheetnames
    cells = {
        str(c.value)
        for ws in wb.worksheets
        for row in ws.iter_rows()
        for c in row
        if c.value is not None
    }
    titles, _, snapshots = _sources(comparison)
    assert titles <= cells and snapshots <= cells
    summary = wb["Summary"]
    header = [c.value for c in summary[1]]
    monthly = [
        row[header.index("Monthly cost")] for row in summary.iter_rows(min_row=2, values_only=True)
    ]
    assert all(isinstance(v, float) for v in monthly)  # numbers stay numbers
    assumptions = {str(c.value) for row in wb["Assumptions"].iter_rows() for c in row if c.value}
    assert "minimum savings vs baseline" in assumptions


def test_csv_rows_carry_recommendation_and_provenance(comparison, rendered):
    frame = pd.read_csv(io.BytesIO(rendered["csv"]))
    assert set(frame["option"]) == {r.name for r in comparison.results}
    for column in (
        "recommendation",
        "rule",
        "price_source",
        "price_observed_at",
        "price_snapshot_id",
        "bench_source_title",
        "bench_measured_at",
        "bench_snapshot_id",
    ):
        assert frame[column].notna().all(), column
    titles, _, snapshots = _sources(comparison)
    assert titles <= set(frame["price_source"]) | set(frame["bench_source_title"])
    assert snapshots <= set(frame["price_snapshot_id"]) | set(frame["bench_snapshot_id"])


def test_hostile_source_title_is_inert_in_xlsx_and_csv(comparison):
    options = comparison.options.copy()
    options["price_source"] = HOSTILE
    options["bench_source_title"] = HOSTILE
    hostile = replace(comparison, options=options)
    wb = load_workbook(io.BytesIO(render_brief(hostile, "xlsx")))
    seen = 0
    for ws in wb.worksheets:
        for row in ws.iter_rows():
            for cell in row:
                if isinstance(cell.value, str) and "HYPERLINK" in cell.value:
                    seen += 1
                    assert cell.data_type == "s" and cell.value == "'" + HOSTILE
    assert seen >= 2
    raw = render_brief(hostile, "csv").decode()
    frame = pd.read_csv(io.StringIO(raw))
    assert (frame["price_source"] == "'" + HOSTILE).all()
    assert not re.search(r'(^|,)"?=HYPERLINK', raw, flags=re.M)
    assert HOSTILE in render_brief(hostile, "md").decode()  # plain text formats show it verbatim


def test_render_brief_accepts_bare_results_and_rejects_unknown_formats(comparison):
    out = render_brief(comparison.results, "md").decode()
    assert "Stay" in out and "keep" in out
    with pytest.raises(ValueError, match="unknown format"):
        render_brief(comparison, "docx")


def test_brief_cli_writes_each_format(seed_db, tmp_path):
    from typer.testing import CliRunner

    from briefs.cli import register
    from tokendesk.cli import app

    register(app)
    runner = CliRunner()
    out = tmp_path / "brief.xlsx"
    result = runner.invoke(
        app,
        [
            "brief",
            "--scenario",
            "stay,shift-amd",
            "--format",
            "xlsx",
            "-o",
            str(out),
            "--db",
            str(seed_db),
            "--min-savings",
            "3%",
            "--set",
            "slo=1500",
        ],
    )
    assert result.exit_code == 0, result.output
    wb = load_workbook(out)
    values = {
        str(c.value) for row in wb["Assumptions"].iter_rows() for c in row if c.value is not None
    }
    assert "3.0%" in values and any("1,500 ms" in v for v in values)
    md = runner.invoke(app, ["brief", "--scenario", "stay,cpu-fallback", "--db", str(seed_db)])
    assert (
        md.exit_code == 0
        and "# Accelerator procurement brief" in md.output
        and "Add CPU fallback" in md.output
    )
    bad = runner.invoke(app, ["brief", "--scenario", "stay,moon", "--db", str(seed_db)])
    assert bad.exit_code == 2 and "moon" in bad.output


def test_brief_from_a_dashboard_link_uses_its_inputs(seed_db):
    from typer.testing import CliRunner

    from briefs.cli import register
    from tokendesk.cli import app

    register(app)
    runner = CliRunner()
    link = "http://localhost:8501/scenarios?amd=0.4&slo=900&custom=cuda:0.5,rocm:0.5"
    out = runner.invoke(
        app, ["brief", "--scenario", "stay,shift-amd,custom", "--link", link, "--db", str(seed_db)]
    )
    assert out.exit_code == 0, out.output
    assert (
        "Shift 40% to AMD" in out.output
        and "Custom: cuda 50% / rocm 50%" in out.output
        and "900 ms" in out.output
    )
    bad = runner.invoke(app, ["brief", "--set", "slo=fast", "--db", str(seed_db)])
    assert bad.exit_code == 2 and "Ignored slo='fast': not a number" in bad.output.replace("\n", "")
    unknown = runner.invoke(app, ["brief", "--set", "colour=red", "--db", str(seed_db)])
    assert unknown.exit_code == 2 and "colour=red" in unknown.output
