"""The brief as its readers get it, in every format: the market-wide brief (``tokendesk brief``)
is the same evaluation and the same document as a company's (``tokendesk scenarios``), so these
checks hold for both. Each verdict comes from the one rule (``planning.verdicts``)."""

from __future__ import annotations

import html
import io
import re
from datetime import date

import pandas as pd
import pytest
from openpyxl import load_workbook
from pypdf import PdfReader
from typer.testing import CliRunner

from briefs.plan_evidence import fleet_evidence
from briefs.render import _md_text, csv_table, render_document
from briefs.workspace_plans import workspace_document
from cli.briefs_command import register
from cli.main import app
from planning.evaluation import verdicts_of
from planning.verdicts import BUY_WORD, DEFER_WORD, KEEP_WORD, NO_BUY_WORD, decided_plan
from tokendesk import formatting
from tokendesk.labels import sku_label

register(app)
HOSTILE = '=HYPERLINK("http://x","y")'
runner = CliRunner()


def _sources(brief):
    prices, benches = fleet_evidence(brief.results, brief.workspace, brief.options)
    titles = set(prices["price_source"]) | set(benches["bench_source_title"])
    dates = {
        formatting.day(None if d is pd.NaT else d)
        for d in [*prices["price_observed_at"], *benches["bench_measured_at"]]
    }
    snapshots = set(prices["price_snapshot_id"].dropna()) | set(benches["bench_snapshot_id"])
    return titles, dates, snapshots


def _squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


@pytest.fixture(scope="module")
def rendered(market_brief):
    doc = market_brief.document
    return {fmt: render_document(doc, fmt) for fmt in ("md", "html", "pdf", "xlsx", "csv")}


def test_every_plan_gets_one_verdict_by_the_one_rule(market_brief):
    verdicts = verdicts_of(market_brief.results)
    assert [v.scenario for v in verdicts] == [r.name for r in market_brief.results]
    assert all(v.verdict in {BUY_WORD, NO_BUY_WORD, DEFER_WORD, KEEP_WORD} for v in verdicts)
    assert all(v.reason for v in verdicts)
    # The plan bought (or kept) is the cheapest feasible one on the compared basis.
    chosen = next(r for r in market_brief.results if r.name == decided_plan(verdicts))
    eligible = [r for r in market_brief.results if r.feasible and not r.constraint_violations]
    assert chosen.compared_usd_per_month == min(r.compared_usd_per_month for r in eligible)


def test_markdown_and_html_carry_every_source_date_and_snapshot(market_brief, rendered):
    titles, dates, snapshots = _sources(market_brief)
    md = rendered["md"].decode()
    text = html.unescape(rendered["html"].decode())
    assert titles and dates and snapshots
    for needle in (*titles, *dates, *snapshots):
        assert _md_text(needle) in md, needle
        assert needle in text, needle
    for heading in ("Decision", "Assumptions", "Scenarios side by side", "Sources"):
        assert f"## {heading}" in md and f"<h2>{heading}</h2>" in rendered["html"].decode()


def test_the_assumptions_state_demand_slo_peak_growth_and_the_rule(market_brief, rendered):
    md = rendered["md"].decode().replace("\\", "")
    section = md.split("## Assumptions", 1)[1].split("\n## ", 1)[0]
    for w in market_brief.workspace.demand:
        assert (
            f"{w.workload}: demand" in section
            and f"{w.ttft_ms:,.0f} ms at {w.percentile}" in section
        )
        assert f"peak hour {w.peak_to_mean:g}× the mean" in section
    assert "decision rule" in section and "on-demand capacity" in section


def test_html_is_self_contained_with_inline_charts(rendered):
    page = rendered["html"].decode()
    assert page.count("<svg") >= 1
    assert not re.search(r"""src\s*=\s*["']?(https?:)?//""", page)
    links = re.findall(r'<a href="([^"]+)">', page)
    assert links and all(u.startswith(("https://", "http://")) for u in links)
    assert "<script" not in page and "<link" not in page


def test_pdf_text_has_sources_dates_and_snapshots(market_brief, rendered):
    reader = PdfReader(io.BytesIO(rendered["pdf"]))
    text = _squash("".join(page.extract_text() for page in reader.pages))
    titles, dates, snapshots = _sources(market_brief)
    for needle in (*titles, *dates, *snapshots):
        assert _squash(needle) in text, needle
    assert len(reader.pages) >= 2


def test_csv_rows_reconcile_to_the_cent_with_page_one(market_brief, rendered):
    raw = rendered["csv"].decode()
    head = dict(line.split(",", 1) for line in raw.split("\n\n", 1)[0].splitlines())
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC", head["generated"])
    assert head["dashboard view"] == market_brief.link
    frame = csv_table(rendered["csv"])
    lines, totals = frame[frame["row"] == "line"], frame[frame["row"] == "total"]
    optimal = market_brief.evaluation.optimal
    assert len(lines) == sum(len(r.fleet) for r in market_brief.results) + len(optimal.fleet)
    md = rendered["md"].decode()
    for r in market_brief.results:
        cents = round(lines.loc[lines["scenario"] == r.name, "monthly_usd"].sum() * 100)
        total = totals.loc[totals["scenario"] == r.name, "monthly_usd"].item()
        assert cents == round(total * 100) == round(r.monthly_usd * 100), r.name
        assert _md_text(f"${total:,.0f} run rate at month 1") in md


def test_a_saving_on_a_low_confidence_price_is_flagged_on_page_one(market_brief, rendered):
    prices, _ = fleet_evidence(market_brief.results, market_brief.workspace, market_brief.options)
    low = prices[prices["price_confidence"] == "low"]
    assert not low.empty, "the seed's low-confidence quotes reach this brief"
    first = PdfReader(io.BytesIO(rendered["pdf"])).pages[0].extract_text()
    assert "low-confidence" in first.replace("\n", " ")
    md = rendered["md"].decode()
    for row in low.itertuples():
        sku = sku_label(row.provider, row.region, row.instance_type, row.pricing_model)
        assert _md_text(sku) in md


def test_hostile_source_titles_are_inert_in_xlsx_and_csv(market_brief):
    options = market_brief.options.copy()
    for column in ("price_source", "bench_source_title"):
        options[column] = pd.Categorical([HOSTILE] * len(options))
    doc = workspace_document(
        market_brief.results,
        market_brief.workspace,
        options=options,
        snapshots=market_brief.snapshots,
    )
    wb = load_workbook(io.BytesIO(render_document(doc, "xlsx")))
    seen = 0
    for ws in wb.worksheets:
        for row in ws.iter_rows():
            for cell in row:
                if isinstance(cell.value, str) and "HYPERLINK" in cell.value:
                    seen += 1
                    assert cell.data_type == "s" and cell.value == HOSTILE and cell.quotePrefix
    assert seen >= 2
    raw = render_document(doc, "csv").decode()
    assert not re.search(r'(^|,)"?=HYPERLINK', raw, flags=re.M)
    assert HOSTILE in render_document(doc, "md").decode()


def test_no_format_carries_a_local_path_and_every_format_links_the_view(market_brief, rendered):
    link = market_brief.link
    for fmt, data in rendered.items():
        text = (
            "".join(p.extract_text() for p in PdfReader(io.BytesIO(data)).pages)
            if fmt == "pdf"
            else " ".join(
                str(c.value)
                for ws in load_workbook(io.BytesIO(data)).worksheets
                for row in ws.iter_rows()
                for c in row
                if c.value is not None
            )
            if fmt == "xlsx"
            else html.unescape(data.decode())
        )
        assert not re.search(r"(/tmp/|/home/|/root/|\.duckdb|warehouse:)", text), fmt
        assert _squash(link) in _squash(text), fmt
    assert f'<a href="{html.escape(link)}">' in rendered["html"].decode()


def test_the_brief_command_is_this_document(seed_db, market_brief, tmp_path):
    base = market_brief.link.partition("?")[0]  # the fixture's address, given as the setting
    out = runner.invoke(app, ["brief", "--db", str(seed_db), "--format", "md", "--base-url", base])
    assert out.exit_code == 0, out.output
    expected = render_document(market_brief.document, "md").decode()
    strip = lambda t: re.sub(r"\*\*generated:\*\* [^\n]+", "", t)  # noqa: E731
    assert strip(out.stdout) == strip(expected)
    bad = runner.invoke(app, ["brief", "--set", "slo=fast", "--db", str(seed_db)])
    assert bad.exit_code == 2 and "Ignored slo='fast': not a number" in bad.output.replace("\n", "")
    unknown = runner.invoke(app, ["brief", "--set", "colour=red", "--db", str(seed_db)])
    assert unknown.exit_code == 2 and "colour=red" in unknown.output
    spot = runner.invoke(app, ["brief", "--set", "spot=false", "--db", str(seed_db)])
    assert spot.exit_code == 2 and "spot" in spot.output


def test_a_custom_mix_nothing_serves_is_refused_never_bought(seed_db):
    out = runner.invoke(
        app, ["brief", "--set", "custom=hpu:1", "--format", "md", "--db", str(seed_db)]
    )
    assert out.exit_code == 0, out.output
    text = out.stdout.replace("\\", "")
    line = next(ln for ln in text.splitlines() if "Custom: Intel Gaudi 100%:" in ln)
    assert line.startswith("- NO-BUY") and "unserved" in line


def test_markdown_and_html_briefs_escape_hostile_strings():
    from briefs.document import Bullets, Document, Paragraph, Section, Table
    from briefs.render import render_document

    hostile = (
        "![x](https://attacker.invalid/p.png) <script>alert(1)</script> "
        '<img src=x onerror="alert(1)"> [click](javascript:alert(1)) \x1b[31mred '
        "AKIAIOSFODNN7EXAMPLE"
    )
    doc = Document(
        title=f"Brief {hostile}",
        subtitle=hostile,
        meta=(("provider", hostile),),
        sections=(
            Section(
                hostile,
                (
                    Paragraph(hostile),
                    Bullets((hostile,)),
                    Table(hostile, pd.DataFrame({"provider": [hostile]}), note=hostile),
                ),
            ),
        ),
        assumptions=pd.DataFrame(),
        csv_frame=pd.DataFrame(),
    )
    md = render_document(doc, "md").decode()
    page = render_document(doc, "html").decode()
    for text in (md, page):
        assert "\x1b" not in text and "AKIAIOSFODNN7EXAMPLE" not in text
    assert "<script>" not in page and "<img" not in page
    assert not re.search(r"(?<!\\)<(script|img)", md)  # only escaped: \<script\>
    assert "![x](" not in md and "[click](" not in md
    assert "\\!\\[x\\](https://attacker.invalid/p.png)" in md  # shown as the characters


def test_file_name_is_the_date_and_the_recommended_scenario():
    from briefs.document import brief_stem, dashboard_link, slug

    assert slug("Shift 25% to AMD") == "shift-25-amd"
    assert slug("Custom: cuda 50% / rocm 50%") == "custom-cuda-50-rocm-50"
    assert brief_stem(date(2026, 11, 30), "Shift 25% to AMD") == "brief-2026-11-30-shift-25-amd"
    assert (
        dashboard_link({"slo": "900", "amd": "0.4", "custom": "cuda:0.5,rocm:0.5"}, "http://h/s")
        == "http://h/s?amd=0.4&custom=cuda:0.5,rocm:0.5&slo=900"
    )


def test_pdf_keeps_every_figure_and_identifier_whole_on_one_line(rendered):
    reader = PdfReader(io.BytesIO(rendered["pdf"]))
    text = "\n".join(page.extract_text() for page in reader.pages)
    md = rendered["md"].decode().replace("\\", "")
    md = re.sub(r"<https?://[^>]+>", "", md)
    figures = set(re.findall(r"\$[\d,]+(?:\.\d+)?", md))
    assert len(figures) > 20
    broken = [f for f in figures if f not in text]
    assert not broken, broken[:20]
    assert not re.search(r"\b(None|True|False|nan|NaN|NaT)\b", text)


def test_pdf_page_one_is_the_decision_and_the_assumptions_follow(market_brief, rendered):
    pages = [p.extract_text() for p in PdfReader(io.BytesIO(rendered["pdf"])).pages]
    first = _squash(pages[0])
    for needle in ("Decision", "Themoney", "Toprisks", "Timeline"):
        assert needle in first, needle
    for r in market_brief.results:  # every plan's sentence, risk line and timeline line
        assert first.count(_squash(r.name) + ":") >= 3, r.name
    # The assumptions follow the decision (on page 1 where it has room, else on page 2).
    text = _squash("".join(pages[:3]))
    assert "Assumptions" in text[text.index("Timeline") :]


def test_xlsx_opens_on_the_decision_with_a_format_on_every_number(rendered):
    wb = load_workbook(io.BytesIO(rendered["xlsx"]))
    assert wb.sheetnames[:3] == ["Decision", "Assumptions", "Cost model"]
    numbers = 0
    for ws in wb.worksheets:
        for row in ws.iter_rows():
            for cell in row:
                if isinstance(cell.value, int | float) and not isinstance(cell.value, bool):
                    numbers += 1
                    assert cell.number_format != "General", (ws.title, cell.coordinate)
                if isinstance(cell.value, str):
                    assert cell.value not in ("None", "True", "False", "nan", "NaT")
    assert numbers > 50
