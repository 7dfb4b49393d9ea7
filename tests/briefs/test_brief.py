from __future__ import annotations

import io
import re
import shutil
import subprocess
from dataclasses import replace
from datetime import date, datetime

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
from briefs.render import _md_text, csv_table
from tokendesk import formatting

HOSTILE = '=HYPERLINK("http://x","y")'


def _sources(comparison):
    prices, benches = price_sources(comparison), bench_sources(comparison)
    titles = set(prices["price_source"]) | set(benches["bench_source_title"])
    dates = {
        formatting.day(None if d is pd.NaT else d)
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
        assert _md_text(needle) in md, needle
        assert needle in text, needle
    for heading in (
        "Decision",
        "Recommendation per option",
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
    # Nothing is loaded from elsewhere; source URLs and the dashboard view are plain links.
    assert not re.search(r"""src\s*=\s*["']?(https?:)?//""", page)
    links = re.findall(r'<a href="([^"]+)">', page)
    assert links and all(u.startswith(("https://", "http://")) for u in links)
    assert "<script" not in page and "<link" not in page


def test_pdf_text_has_sources_dates_snapshots_and_charts(comparison, rendered):
    reader = PdfReader(io.BytesIO(rendered["pdf"]))
    text = _squash("".join(page.extract_text() for page in reader.pages))
    titles, dates, snapshots = _sources(comparison)
    for needle in (*titles, *dates, *snapshots):
        assert _squash(needle) in text, needle
    assert "Monthlycostperoption" in text and "Weekstofullcutover" in text
    assert len(reader.pages) >= 2


def test_xlsx_has_the_decision_then_the_assumptions_and_every_table(comparison, rendered):
    wb = load_workbook(io.BytesIO(rendered["xlsx"]))
    assert wb.sheetnames[:2] == ["Decision", "Assumptions"]
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


def test_csv_has_one_row_per_fleet_line_and_totals_that_reconcile_to_the_cent(comparison, rendered):
    raw = rendered["csv"].decode()
    head = dict(line.split(",", 1) for line in raw.split("\n\n", 1)[0].splitlines())
    assert head["title"] == "Accelerator procurement brief"
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC", head["generated"])
    assert head["workspace"] and head["dashboard view"].startswith("http")
    frame = csv_table(rendered["csv"])
    lines, totals = frame[frame["row"] == "line"], frame[frame["row"] == "total"]
    assert len(lines) == sum(len(r.lines) for r in comparison.results)  # not one per quote
    assert list(totals["option"]) == [r.name for r in comparison.results]
    md = rendered["md"].decode()
    for r in comparison.results:
        line_cents = round(lines.loc[lines["option"] == r.name, "monthly_usd"].sum() * 100)
        total = totals.loc[totals["option"] == r.name, "monthly_usd"].item()
        assert line_cents == round(total * 100) == round(r.monthly_usd * 100), r.name
        # ... and the total is the figure page 1 states for that option.
        assert f"{r.name}: {_md_text(formatting.usd(total, 0))}/month" in md
    for column in (
        "decision",
        "price_source",
        "price_observed_at",
        "price_confidence",
        "price_snapshot_id",
        "bench_source_title",
        "bench_measured_at",
        "bench_snapshot_id",
    ):
        assert lines[column].notna().all(), column
    titles, _, snapshots = _sources(comparison)
    seen = {part for v in lines["price_source"] for part in v.split(" | ")}
    seen |= {part for v in lines["bench_source_title"] for part in v.split(" | ")}
    assert set(lines["bench_source_title"]) and seen <= titles


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
                    # Text, flagged so that Excel shows it as typed and never runs it.
                    assert cell.data_type == "s" and cell.value == HOSTILE and cell.quotePrefix
    assert seen >= 2
    raw = render_brief(hostile, "csv").decode()
    frame = csv_table(raw.encode())
    lines = frame[frame["row"] == "line"]
    assert (lines["price_source"] == "'" + HOSTILE).all()
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


def test_a_plan_that_serves_nothing_is_never_called_the_cheapest(seed_db):
    from typer.testing import CliRunner

    from briefs.cli import register
    from tokendesk.cli import app

    register(app)
    out = CliRunner().invoke(
        app,
        ["brief", "--scenario", "stay,custom", "--set", "custom=hpu:1", "--db", str(seed_db)],
    )
    assert out.exit_code == 0, out.output
    text = out.output.replace("\n", " ")
    assert "Custom: hpu 100% — UNSERVED" in text
    assert "Cheapest that serves the whole demand: Stay" in text


def test_a_recommendation_resting_on_a_low_confidence_figure_says_so(comparison):
    from briefs.brief import low_confidence_figures

    low = low_confidence_figures(comparison)
    assert low, "the seed's low-confidence quotes (third-party aggregations) reach the brief"
    for rec in recommendations(comparison):
        said = "rests on low-confidence figures" in rec.reason
        assert said == bool(low.get(rec.scenario)), rec
        for figure in low.get(rec.scenario, []):
            assert figure in rec.reason


def test_evidence_table_shows_each_results_confidence_and_percent_of_roofline(comparison):
    benches = bench_sources(comparison)
    assert {"bench_confidence", "roofline_pct"} <= set(benches.columns)
    gpu = benches[~benches["accelerator_id"].str.startswith("cpu-")]
    assert gpu["roofline_pct"].notna().all() and (gpu["roofline_pct"] < 100).all()


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


def test_no_format_carries_a_local_path_and_every_format_links_the_view(comparison, rendered):
    link = comparison.link
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
            else data.decode()
        )
        assert not re.search(r"(/tmp/|/home/|/root/|\.duckdb|warehouse:)", text), fmt
        assert _squash(link) in _squash(text), fmt
    assert f'<a href="{link}">' in rendered["html"].decode()
    assert f"<{link}>" in rendered["md"].decode()


def test_file_name_is_the_date_and_the_recommended_scenario():
    from briefs.document import brief_stem, dashboard_link, slug

    assert slug("Shift 25% to AMD") == "shift-25-amd"
    assert slug("Custom: cuda 50% / rocm 50%") == "custom-cuda-50-rocm-50"
    assert brief_stem(date(2026, 11, 30), "Shift 25% to AMD") == "brief-2026-11-30-shift-25-amd"
    assert (
        dashboard_link({"slo": "900", "amd": "0.4", "custom": "cuda:0.5,rocm:0.5"}, "http://h/s")
        == "http://h/s?amd=0.4&custom=cuda:0.5,rocm:0.5&slo=900"
    )


def test_brief_cli_names_its_file_and_links_the_dashboard(seed_db, tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from briefs.cli import register
    from tokendesk.cli import app

    register(app)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TOKENDESK_BASE_URL", "https://dash.example.com/scenarios")
    link = "http://localhost:8501/scenarios?amd=0.4&slo=900"
    result = CliRunner().invoke(
        app, ["brief", "--link", link, "--format", "pdf", "--db", str(seed_db)]
    )
    assert result.exit_code == 0, result.output
    (written,) = tmp_path.glob("*.pdf")
    assert re.fullmatch(r"brief-\d{4}-\d{2}-\d{2}-[a-z0-9-]+\.pdf", written.name)
    text = _squash("".join(p.extract_text() for p in PdfReader(written).pages))
    assert "https://dash.example.com/scenarios?amd=0.4&slo=900" in text
    assert str(seed_db) not in text and "duckdb" not in text
    folder = tmp_path / "out"
    folder.mkdir()
    csv_run = CliRunner().invoke(
        app,
        ["brief", "--link", link, "--format", "csv", "-o", str(folder), "--db", str(seed_db)],
    )
    assert csv_run.exit_code == 0, csv_run.output
    assert [p.name for p in folder.iterdir()] == [written.name.replace(".pdf", ".csv")]


def _recalculated(data: bytes, tmp_path, name: str = "brief.xlsx"):
    """The workbook after LibreOffice opened it, recalculated every formula and saved it."""
    source = tmp_path / name
    source.write_bytes(data)
    out = tmp_path / "recalculated"
    subprocess.run(
        [
            shutil.which("soffice"),
            f"-env:UserInstallation=file://{tmp_path}/lo-profile",
            "--headless",
            "--calc",
            "--convert-to",
            "xlsx",
            "--outdir",
            str(out),
            str(source),
        ],
        check=True,
        capture_output=True,
        timeout=180,
    )
    return load_workbook(out / name, data_only=True)


def test_xlsx_puts_the_decision_first_with_a_format_on_every_number(comparison, rendered):
    wb = load_workbook(io.BytesIO(rendered["xlsx"]))
    assert wb.sheetnames[:3] == ["Decision", "Assumptions", "Cost model"]
    decision = [c.value for row in wb["Decision"].iter_rows() for c in row if c.value]
    assert any(str(v).startswith("• KEEP Stay:") for v in decision)
    assert wb["Decision"]._charts, "a native bar chart of the money"
    numbers = 0
    for ws in wb.worksheets:
        for row in ws.iter_rows():
            for cell in row:
                if isinstance(cell.value, int | float) and not isinstance(cell.value, bool):
                    numbers += 1
                    assert cell.number_format != "General", (ws.title, cell.coordinate)
                if isinstance(cell.value, str):
                    assert not cell.value.startswith("'"), (ws.title, cell.coordinate)
                    assert cell.value not in ("None", "True", "False", "nan", "NaT")
    assert numbers > 100
    (observed,) = [
        column
        for column in wb["Price sources"].iter_cols(
            min_col=[c.value for c in wb["Price sources"][1]].index("observed") + 1,
            max_col=[c.value for c in wb["Price sources"][1]].index("observed") + 1,
            min_row=2,
            values_only=True,
        )
    ]
    observed = [v for v in observed if v is not None]  # the rows under the table are empty
    assert len(observed) == len(price_sources(comparison))
    assert all(isinstance(v, datetime) or v == "date unknown" for v in observed), observed


@pytest.mark.skipif(
    shutil.which("soffice") is None,
    reason="LibreOffice (soffice) is not installed: scripts/setup.sh --dev installs "
    "libreoffice-calc-nogui; without it the workbook's formulas cannot be recalculated here",
)
def test_xlsx_is_a_live_model_that_libreoffice_recalculates_to_the_apps_figures(
    comparison, rendered, tmp_path
):
    from briefs.brief import HORIZON_MONTHS, money

    wb = _recalculated(rendered["xlsx"], tmp_path)
    formulas = load_workbook(io.BytesIO(rendered["xlsx"]))
    ws, live = wb["Decision"], formulas["Decision"]
    header_row = next(r for r in range(1, ws.max_row + 1) if ws.cell(r, 1).value == "option")
    header = [c.value for c in ws[header_row]]
    base = comparison.baseline
    for offset, r in enumerate(comparison.results, start=1):
        row = header_row + offset
        m = money(r, base)
        assert ws.cell(row, 1).value == r.name
        for column, expected in (
            ("$/month", m.monthly_usd),
            ("one-time", m.one_time_usd),
            (f"{HORIZON_MONTHS} months", m.horizon_usd),
            (f"vs {base.name}, {HORIZON_MONTHS} months", m.vs_baseline_horizon_usd),
        ):
            j = header.index(column) + 1
            assert str(live.cell(row, j).value).startswith("='Cost model'!"), column
            assert round(ws.cell(row, j).value, 2) == round(expected, 2), (r.name, column)

    # Change an input: one line's burst rate up by $1/unit-hour moves its option's monthly cost
    # by exactly that line's burst unit-hours, and the 36-month total by 36 times that.
    inputs = formulas["Assumptions"]
    head = next(r for r in range(1, inputs.max_row + 1) if inputs.cell(r, 2).value == "line")
    names = [c.value for c in inputs[head]]
    burst, rate = names.index("burst unit-hours") + 1, names.index("$/unit-hour burst") + 1
    row = next(
        r
        for r in range(head + 1, inputs.max_row + 1)
        if isinstance(inputs.cell(r, burst).value, int | float) and inputs.cell(r, burst).value > 0
    )
    option, hours = inputs.cell(row, 1).value, inputs.cell(row, burst).value
    inputs.cell(row, rate).value += 1.0
    changed = io.BytesIO()
    formulas.save(changed)
    after = _recalculated(changed.getvalue(), tmp_path, "changed.xlsx")["Decision"]
    result = next(r for r in comparison.results if r.name == option)
    row = header_row + 1 + comparison.results.index(result)
    j = header.index("$/month") + 1
    assert round(after.cell(row, j).value, 2) == round(result.monthly_usd + hours, 2)
    j = header.index(f"{HORIZON_MONTHS} months") + 1
    assert round(after.cell(row, j).value, 2) == round(
        money(result, base).horizon_usd + HORIZON_MONTHS * hours, 2
    )


LITERALS = re.compile(r"\b(None|True|False|nan|NaN|NaT)\b")


def test_pdf_keeps_every_figure_and_identifier_whole_on_one_line(rendered):
    reader = PdfReader(io.BytesIO(rendered["pdf"]))
    text = "\n".join(page.extract_text() for page in reader.pages)
    md = rendered["md"].decode().replace("\\", "")
    md = re.sub(r"<https?://[^>]+>", "", md)
    figures = set(re.findall(r"[$−+-]?\d[\d,]*(?:\.\d+)?%?", md))
    words = {w for w in re.findall(r"\b[a-z0-9]+(?:_[a-z0-9]+)+\b", md) if len(w) > 6}
    assert len(figures) > 50 and words
    broken = [f for f in figures | words if f not in text]
    assert not broken, broken[:20]
    assert not LITERALS.search(text), LITERALS.search(text)


def test_pdf_source_urls_and_the_view_link_are_clickable(comparison, rendered):
    reader = PdfReader(io.BytesIO(rendered["pdf"]))
    uris = {
        a.get_object()["/A"]["/URI"]
        for page in reader.pages
        for a in page.get("/Annots", [])
        if a.get_object().get("/Subtype") == "/Link"
    }
    sources = set(price_sources(comparison)["price_source_url"].dropna()) | set(
        bench_sources(comparison)["bench_source_url"].dropna()
    )
    assert comparison.link in uris
    assert {u for u in sources if u.startswith("http")} <= uris


def test_html_never_breaks_a_figure_and_shows_no_python_literals(rendered):
    page = rendered["html"].decode()
    assert "overflow-wrap:anywhere}" not in page.replace("td a{overflow-wrap:anywhere}", "")
    plain_cells = re.findall(r"<td>([^<]*)</td>", page)
    assert not [c for c in plain_cells if re.fullmatch(r"[−+-]?\$?[\d,.]+%?", c.strip())]
    assert page.count('<td class="num">') > 50
    text = re.sub(r"<[^>]+>", " ", page.split("</style>", 1)[1])
    assert not LITERALS.search(text), LITERALS.search(text)
    assert "$0" in page and "$20,000" in page  # the cost chart's axis ticks


def test_pdf_page_one_is_the_whole_decision_and_the_evidence_follows(comparison, rendered):
    pages = [p.extract_text() for p in PdfReader(io.BytesIO(rendered["pdf"])).pages]
    first = _squash(pages[0])
    for needle in ("Decision", "Themoney", "Monthlycostperoption", "Toprisks", "Timeline"):
        assert needle in first, needle
    for r in comparison.results:  # every option's sentence, risk line and timeline line
        assert first.count(_squash(r.name) + ":") >= 3, r.name
    assert "Recommendationperoption" not in first
    assert "Recommendationperoption" in _squash(pages[1])  # the evidence starts on page 2
