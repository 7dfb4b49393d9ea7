"""The Scenarios page's brief, downloaded in Chromium as a user would: its file name, and every
format carrying the view's link (keys the page reads), the page's $/1M switch, the sources behind
its fleet lines and no local path."""

from __future__ import annotations

import io
import re

import pytest
from openpyxl import load_workbook
from pypdf import PdfReader

from briefs.render import csv_table
from tests.e2e.artifacts import screenshot
from tests.page_links import assert_the_scenarios_page_accepts
from tokendesk import formatting

pytestmark = pytest.mark.e2e


def _download(page, fmt: str):
    page.get_by_text("Format").last.wait_for(timeout=60_000)
    page.locator('[data-testid="stSelectbox"]').last.click()
    page.get_by_role("option", name=fmt, exact=True).click()
    page.get_by_role("button", name="Prepare the brief").click()
    button = page.get_by_role("button", name=re.compile(rf"^Download brief \({fmt.upper()}"))
    button.wait_for(timeout=120_000)
    screenshot(page, f"scenarios-brief-{fmt}")
    with page.expect_download(timeout=60_000) as info:
        button.click()
    download = info.value
    return download.suggested_filename, open(download.path(), "rb").read()


def test_the_downloaded_brief_is_named_for_its_date_and_scenario_and_links_its_view(app_url, page):
    page.goto(f"{app_url}/scenarios?amd=0.4&unit=1m")
    page.get_by_text("Side by side").wait_for(timeout=90_000)
    page.get_by_role("button", name="Prepare the brief").scroll_into_view_if_needed()
    name, pdf = _download(page, "pdf")
    assert re.fullmatch(r"brief-\d{4}-\d{2}-\d{2}-[a-z0-9-]+\.pdf", name), name
    reader = PdfReader(io.BytesIO(pdf))
    text = "\n".join(p.extract_text() for p in reader.pages)
    first = reader.pages[0].extract_text()
    assert "Decision" in first and "The money" in first and "Top risks" in first
    assert not re.search(r"\b(None|True|False|nan|NaT)\b", text)
    assert ".duckdb" not in text and "/tmp/" not in text
    squashed = re.sub(r"\s+", "", text)
    assert "scenarios?amd=0.4" in squashed
    # The page's $/1M switch reached the brief, and the sources behind the fleet are listed.
    assert "$/1Moutputtokens(month1)" in squashed and "$/1K" not in squashed
    assert "Pricesused" in squashed and "Benchmarksused" in squashed
    uris = {
        a.get_object()["/A"]["/URI"]
        for p in reader.pages
        for a in p.get("/Annots", [])
        if a.get_object().get("/Subtype") == "/Link"
    }
    links = {u for u in uris if "/scenarios" in u}
    assert links and len(uris) > len(links)  # the view, and the sources' addresses
    for link in links:
        assert assert_the_scenarios_page_accepts(link)["unit"] == "1m"

    for fmt in ("md", "html"):
        name_text, raw = _download(page, fmt)
        assert name_text == name.replace(".pdf", f".{fmt}")
        body = raw.decode()
        assert "$/1M output tokens (month 1)" in body.replace("\\$", "$") and "$/1K" not in body
        assert "Prices used" in body and "date unknown" in body
        assert not re.search(r"/tmp/|\.duckdb", body)
    assert re.search(r'<a href="https://[^"]+">', body)  # the HTML's sources are links

    name_csv, raw = _download(page, "csv")
    assert name_csv == name.replace(".pdf", ".csv")
    frame = csv_table(raw)
    lines, totals = frame[frame["row"] == "line"], frame[frame["row"] == "total"]
    for scenario, total in zip(totals["scenario"], totals["monthly_usd"], strict=True):
        cents = round(lines.loc[lines["scenario"] == scenario, "monthly_usd"].sum() * 100)
        assert cents == round(total * 100), scenario

    name_xlsx, book = _download(page, "xlsx")
    assert name_xlsx == name.replace(".pdf", ".xlsx")
    wb = load_workbook(io.BytesIO(book))
    assert wb.sheetnames[:3] == ["Decision", "Assumptions", "Cost model"]
    side = wb["Scenarios"]
    header = [c.value for c in side[1]]
    j = header.index("$/1M output tokens (month 1)") + 1
    cells = [row[0] for row in side.iter_rows(min_row=2, min_col=j, max_col=j)]
    figures = [c for c in cells if isinstance(c.value, float)]
    assert figures and all(
        c.number_format == formatting.spreadsheet_cost_format("1m") for c in figures
    )
    assert "Price sources" in wb.sheetnames and "Benchmark sources" in wb.sheetnames
