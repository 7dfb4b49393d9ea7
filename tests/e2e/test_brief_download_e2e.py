"""The Scenarios page's brief, downloaded in Chromium as a user would: its file name, and a PDF,
CSV and workbook that carry the view's link and no local path."""

from __future__ import annotations

import io
import re

import pytest
from openpyxl import load_workbook
from pypdf import PdfReader

from briefs.render import csv_table
from tests.e2e.artifacts import screenshot

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
    page.goto(f"{app_url}/scenarios?amd=0.4")
    page.get_by_text("Side by side").wait_for(timeout=90_000)
    page.get_by_role("button", name="Prepare the brief").scroll_into_view_if_needed()
    name, pdf = _download(page, "pdf")
    assert re.fullmatch(r"brief-\d{4}-\d{2}-\d{2}-[a-z0-9-]+\.pdf", name), name
    text = "\n".join(p.extract_text() for p in PdfReader(io.BytesIO(pdf)).pages)
    first = PdfReader(io.BytesIO(pdf)).pages[0].extract_text()
    assert "Decision" in first and "The money" in first and "Top risks" in first
    assert not re.search(r"\b(None|True|False|nan|NaT)\b", text)
    assert ".duckdb" not in text and "/tmp/" not in text
    assert "scenarios?amd=0.4" in re.sub(r"\s+", "", text)

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
