"""A viewer reads no negotiated rate and no figure it follows from: with two negotiated fleet
lines (one on a SKU with a public list price, one at a provider known only by its negotiated
quote), every brief format a viewer downloads, the Overview and the Scenarios page carry neither
rate nor any figure one multiplication or division by the line's units, hours or accelerators
gives from it; the lines are priced at list for them, and the brief says so in words."""

from __future__ import annotations

import html
import io
import re
from pathlib import Path

import pytest
from openpyxl import load_workbook
from pypdf import PdfReader
from streamlit.testing.v1 import AppTest

from app.models.withheld import WITHHELD_NOTE
from costmodel.workspace_model import workspace_from_dict
from tests.app.pages import VIEWS
from tests.app.team import EDITOR, TEAM, VIEWER
from tests.factories import negotiated_quotes
from warehouse import Warehouse
from warehouse.workspace_versions import current_workspace, save_workspace

HOURS = 730
HORIZON_MONTHS = 36
#: Rates no other figure of the example has, one per line: (provider, instance, count, rate,
#: accelerators per instance).
LISTED = ("aws", "us-east-1", "p5.48xlarge", 3, 137.9153, 8)
HIDDEN = ("examplecloud", "any", "q-1", 2, 17.7713, 8)
FORMATS = ("md", "csv", "html", "pdf", "xlsx")


def _negotiated_line(provider, region, instance, count, rate, serves):
    return {
        "provider": provider,
        "region": region,
        "instance_type": instance,
        "count": count,
        "pricing_model": "negotiated",
        "usd_per_hour": rate,
        "commitment_end": "2028-12-31",
        "serves": serves,
    }


@pytest.fixture
def confidential_env(writable_env):
    """The seeded warehouse with a negotiated quote sheet and both negotiated lines stored."""
    quotes = negotiated_quotes("examplecloud", {"q-1": "Q-1"})
    with Warehouse.open(writable_env) as warehouse:
        warehouse.ingest_prices("sheet:examplecloud:negotiated", quotes)
        _, body = current_workspace(warehouse) or (None, None)
        serves = body["demand"][0]["workload"]
        extra = [_negotiated_line(*line[:5], serves) for line in (LISTED, HIDDEN)]
        body = dict(body, fleet=[*body["fleet"], *extra])
        workspace_from_dict(body)  # the test's own workspace must be valid
        save_workspace(warehouse, body, origin="import", source="test")
    return writable_env


def derived(line) -> list[float]:
    """The rate and every figure one multiplication or division gives from it."""
    _, _, _, count, rate, accelerators = line
    monthly = rate * count * HOURS
    return [
        rate,
        rate * count,
        rate * HOURS,
        monthly,
        monthly * HORIZON_MONTHS,
        rate / accelerators,
        monthly * 12,
    ]


def spellings(value: float) -> set[str]:
    """How a brief may print ``value``: whole dollars, cents, four places, with or without
    thousands separators (at least four significant digits, so a short number is not matched
    by chance)."""
    out = {f"{value:,.2f}", f"{value:.2f}", f"{value:,.4f}", f"{value:.4f}"}
    if value >= 1000:
        out |= {f"{value:,.0f}", f"{value:.0f}"}
    return {s for s in out if sum(c.isdigit() for c in s) >= 4}


def _briefs() -> None:
    """Every format of the Scenarios brief as this session's person would download it."""
    import os
    from pathlib import Path

    import streamlit as st

    from app import data, plan_reads
    from planning.workspaces import Knobs

    path = data.db_path()
    _, ws = data.workspace(path)
    out = Path(os.environ["CONFIDENTIAL_OUT"])
    for fmt in ("md", "csv", "html", "pdf", "xlsx"):
        (out / f"brief.{fmt}").write_bytes(plan_reads.workspace_brief(path, ws, Knobs(), fmt, "1k"))
    st.write("done")


def _texts(folder: Path) -> dict[str, str]:
    """Each brief's readable text (a PDF's extracted text, a workbook's every cell value)."""
    texts = {}
    for fmt in FORMATS:
        body = (folder / f"brief.{fmt}").read_bytes()
        if fmt == "pdf":
            text = "\n".join(p.extract_text() for p in PdfReader(io.BytesIO(body)).pages)
        elif fmt == "xlsx":
            book = load_workbook(io.BytesIO(body))
            text = "\n".join(
                repr(cell.value) + "\t" + str(cell.value)
                for sheet in book.worksheets
                for row in sheet.iter_rows()
                for cell in row
                if cell.value is not None
            )
        else:
            text = html.unescape(body.decode())
        texts[fmt] = text
    return texts


def _workbook_numbers(folder: Path) -> list[float]:
    book = load_workbook(io.BytesIO((folder / "brief.xlsx").read_bytes()))
    return [
        float(cell.value)
        for sheet in book.worksheets
        for row in sheet.iter_rows()
        for cell in row
        if isinstance(cell.value, int | float) and not isinstance(cell.value, bool)
    ]


def _render(user, folder: Path, monkeypatch) -> dict[str, str]:
    monkeypatch.setenv("CONFIDENTIAL_OUT", str(folder))
    at = AppTest.from_function(_briefs, default_timeout=600)
    at.secrets, at.user = TEAM, user
    at.run()
    assert not at.exception, at.exception
    return _texts(folder)


def _leaks(text: str) -> list[str]:
    flat = re.sub(r"\s+", "", text)
    found = []
    for line in (LISTED, HIDDEN):
        for value in derived(line):
            found += [s for s in spellings(value) if s in text or s in flat]
    return found


def test_no_brief_format_gives_a_viewer_a_negotiated_rate(confidential_env, tmp_path, monkeypatch):
    texts = _render(VIEWER, tmp_path, monkeypatch)
    for fmt, text in texts.items():
        assert not _leaks(text), f"{fmt}: {_leaks(text)}"
        if fmt != "csv":  # one rectangular table: no place for a sentence
            assert "Negotiated fleet rates are withheld" in re.sub(r"\s+", " ", text), fmt
    secrets = [v for line in (LISTED, HIDDEN) for v in derived(line)]
    numbers = _workbook_numbers(tmp_path)
    close = [n for n in numbers for s in secrets if abs(n - s) <= 1e-6 * abs(s)]
    assert not close, f"workbook cells {close} are a negotiated rate or follow from one"
    assert "q-1" in texts["md"] and "p5.48xlarge" in texts["md"]  # the lines are still there


def test_an_editor_reads_the_same_briefs_with_the_rates(confidential_env, tmp_path, monkeypatch):
    # The check above could pass on a brief that never priced the lines at all; the editor's
    # briefs carry the rates, so the spellings and the renderings are the ones a leak would use.
    texts = _render(EDITOR, tmp_path, monkeypatch)
    assert _leaks(texts["md"]) and _leaks(texts["xlsx"])
    rate = LISTED[4]
    assert any(abs(n - rate) < 1e-6 for n in _workbook_numbers(tmp_path))
    assert all("Negotiated fleet rates are withheld" not in t for t in texts.values())


def _page_text(at: AppTest) -> str:
    parts = [
        e.value
        for kind in ("markdown", "caption", "info", "warning", "error")
        for e in at.get(kind)
    ]
    parts += [m.value for m in at.metric]
    parts += [d.value.to_csv(index=False) for d in at.dataframe]
    return "\n".join(str(p) for p in parts)


@pytest.mark.parametrize("page", ["overview.py", "scenarios.py"])
def test_the_viewers_pages_carry_no_negotiated_figure(confidential_env, page):
    at = AppTest.from_file(str(VIEWS / page), default_timeout=300)
    at.secrets, at.user = TEAM, VIEWER
    at.run()
    assert not at.exception, at.exception
    text = _page_text(at)
    assert not _leaks(text), _leaks(text)
    assert WITHHELD_NOTE in text


def test_an_admin_page_is_unchanged_by_the_rule(confidential_env):
    at = AppTest.from_file(str(VIEWS / "scenarios.py"), default_timeout=300)
    at.secrets, at.user = TEAM, EDITOR
    at.run()
    assert not at.exception, at.exception
    text = _page_text(at)
    assert WITHHELD_NOTE not in text
    assert _leaks(text)  # the editor sees the line's rate and cost
