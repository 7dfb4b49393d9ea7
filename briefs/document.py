"""A small document model that every export is rendered from: titled sections holding
paragraphs, bullet lists, tables and bar charts. The scenario brief and the futures-day review
both build a :class:`Document`; ``render.py`` turns one into Markdown, HTML, PDF, XLSX or CSV, so
every format carries the same content.

Tables keep raw values (numbers stay numbers for the spreadsheet) plus a per-column formatter
for the text formats.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any
from urllib.parse import urlencode

import pandas as pd

from tokendesk.labels import label, labelled_column
from tokendesk.paths import PUBLIC_URL_ENV

# $TOKENDESK_PUBLIC_URL (``tokendesk.paths.PUBLIC_URL_ENV``), the dashboard's public address, is
# what a brief's link back to its view is built on. ``tokendesk app`` sets it for the server to
# the address it serves on unless it is set (``--public-url``); a brief made elsewhere with none
# set says how to open its view instead.
#: The Scenarios page's own address (``https://dash.example.com/scenarios``), as ``--base-url``
#: takes it: wins over the public address.
BASE_URL_ENV = "TOKENDESK_BASE_URL"
#: The Scenarios page's path under the dashboard's address.
SCENARIOS_PATH = "scenarios"

Formatter = Callable[[Any], str]


def _plain(value: object) -> str:
    if value is None:
        return "—"
    if isinstance(value, float):
        if value != value:  # NaN
            return "—"
        return f"{value:,.4g}" if abs(value) < 1000 else f"{value:,.0f}"
    if isinstance(value, pd.Timestamp):
        return "—" if value is pd.NaT else f"{value:%Y-%m-%d}"
    if value is pd.NaT:
        return "—"
    if hasattr(value, "strftime"):
        return value.strftime("%Y-%m-%d")
    if isinstance(value, list | tuple):
        return ", ".join(str(v) for v in value)
    return str(value)


@dataclass(frozen=True)
class Table:
    title: str
    frame: pd.DataFrame
    #: column -> formatter for text formats; other columns use a plain conversion.
    formats: Mapping[str, Formatter] = field(default_factory=dict)
    note: str = ""
    #: Sheet name for XLSX (<= 31 characters); defaults to the title.
    sheet: str = ""
    #: column -> what a missing value reads as ("date unknown" for a source's date); else "—".
    gaps: Mapping[str, str] = field(default_factory=dict)

    def display(self) -> pd.DataFrame:
        """Every cell as text, formatted for people."""
        out = pd.DataFrame(index=self.frame.index)
        for column in self.frame.columns:
            # Stored ids (on_demand, rocm) read as their labels unless the table formats them.
            fmt = self.formats.get(column, label if labelled_column(column) else _plain)
            gap = self.gaps.get(column, "—")
            out[column] = [gap if _missing(v) else fmt(v) for v in self.frame[column]]
        return out.rename(columns=lambda c: str(c).replace("_", " "))


def _missing(value: object) -> bool:
    if value is None or value is pd.NaT:
        return True
    return isinstance(value, float) and value != value


@dataclass(frozen=True)
class Paragraph:
    text: str


@dataclass(frozen=True)
class Bullets:
    items: tuple[str, ...]
    #: A small heading over the list ("Top risks").
    title: str = ""


@dataclass(frozen=True)
class BarChart:
    """Horizontal bars, one per label, with an optional low-high range drawn over each bar."""

    title: str
    labels: tuple[str, ...]
    values: tuple[float, ...]
    unit: str
    low: tuple[float, ...] | None = None
    high: tuple[float, ...] | None = None
    #: One colour key per bar (e.g. a recommendation): bars with the same key share a colour.
    groups: tuple[str, ...] | None = None
    value_format: Formatter = lambda v: f"{v:,.0f}"
    note: str = ""
    #: Each value is this total of its label's plan in a live workbook ("compared"): the
    #: workbook charts that cell, so the bars follow a changed assumption.
    live_total: str | None = None


Block = Paragraph | Bullets | Table | BarChart


#: The live model's input columns per fleet line: units held all month and their rate, burst
#: unit-hours and their rate, spot units and their rate. monthly = held × rate × hours +
#: burst unit-hours × rate + spot × rate × hours.
MODEL_COLUMNS = (
    "units held all month",
    "$/unit-hour held",
    "burst unit-hours",
    "$/unit-hour burst",
    "spot units",
    "$/unit-hour spot",
)


@dataclass(frozen=True)
class LiveModel:
    """What the workbook recomputes: each fleet line's monthly cost from its units and rates, and
    each option's monthly, one-time and horizon totals from those. ``lines`` holds ``option``,
    ``line``, the :data:`MODEL_COLUMNS` and ``monthly_usd`` (the app's figure, to check against)."""

    lines: pd.DataFrame
    #: option -> one-time cost, in the options' order (the first is the baseline unless named).
    one_time_usd: tuple[tuple[str, float], ...]
    baseline: str
    hours_per_month: float = 730.0
    horizon_months: int = 36
    #: The page-1 money table: its title and which of its columns each total fills.
    money_table: str = "The money"
    money_columns: Mapping[str, str] = field(default_factory=dict)
    #: True: the horizon total is monthly × months + one-time (a flat demand). False: the
    #: document's horizon follows a monthly curve the workbook does not recompute.
    flat_horizon: bool = True
    #: option -> the months its one-time costs fall in and their amounts (default: all in
    #: month 1), for a horizon discounted month by month.
    one_time_falls: Mapping[str, tuple[tuple[int, float], ...]] = field(default_factory=dict)
    #: The workspace's discount rate per year for the horizon total (0: a plain sum).
    discount_rate_per_year: float = 0.0


@dataclass(frozen=True)
class Section:
    title: str
    blocks: tuple[Block, ...]
    #: Paged formats (PDF) start this section on a new page: the decision stays alone on page 1.
    new_page: bool = False


@dataclass(frozen=True)
class Document:
    title: str
    subtitle: str
    #: (label, value) lines printed under the title: generated at, data as of, warehouse, ...
    meta: tuple[tuple[str, str], ...]
    sections: tuple[Section, ...]
    #: Key/value rows for the XLSX "Assumptions" sheet (shown first).
    assumptions: pd.DataFrame
    #: The one rectangular table a CSV export holds.
    csv_frame: pd.DataFrame
    file_stem: str = "brief"
    #: The dashboard address that reproduces the view this document was made from.
    link: str = ""
    #: The cost model the workbook recomputes (Assumptions drive Cost model drive Decision).
    live_model: LiveModel | None = None

    def file_name(self, fmt: str) -> str:
        return f"{self.file_stem}.{fmt.lower().lstrip('.')}"

    def tables(self) -> list[Table]:
        return [b for s in self.sections for b in s.blocks if isinstance(b, Table)]

    def charts(self) -> list[BarChart]:
        return [b for s in self.sections for b in s.blocks if isinstance(b, BarChart)]


def table(
    title: str,
    rows: Sequence[Mapping[str, object]] | pd.DataFrame,
    columns: Sequence[str] | None = None,
    formats: Mapping[str, Formatter] | None = None,
    note: str = "",
    sheet: str = "",
    gaps: Mapping[str, str] | None = None,
) -> Table:
    frame = (
        rows
        if isinstance(rows, pd.DataFrame)
        else pd.DataFrame(list(rows), columns=list(columns) if columns else None)
    )
    if columns is not None and isinstance(rows, pd.DataFrame):
        frame = frame[list(columns)]
    return Table(
        title, frame.reset_index(drop=True), dict(formats or {}), note, sheet, dict(gaps or {})
    )


def scenarios_address(base_url: str | None = None) -> str | None:
    """The Scenarios page's address: ``base_url`` (the page's own), else $TOKENDESK_BASE_URL,
    else $TOKENDESK_PUBLIC_URL's ``/scenarios``; None when none is set."""
    page = (base_url or os.environ.get(BASE_URL_ENV) or "").strip()
    if page:
        return page
    public = os.environ.get(PUBLIC_URL_ENV, "").strip().rstrip("/")
    return f"{public}/{SCENARIOS_PATH}" if public else None


def view_query(params: Mapping[str, str]) -> str:
    """The Scenarios page's path and query string holding ``params``: ``/scenarios?amd=0.4``."""
    query = urlencode(sorted(params.items()), safe=":,")
    return f"/{SCENARIOS_PATH}?{query}" if query else f"/{SCENARIOS_PATH}"


def dashboard_link(params: Mapping[str, str], base_url: str | None = None) -> str:
    """The dashboard address whose query string holds ``params`` (the view's inputs), on the
    Scenarios page's address (:func:`scenarios_address`); "" when no address is set."""
    base = scenarios_address(base_url)
    if base is None:
        return ""
    query = view_query(params).partition("?")[2]
    return f"{base}?{query}" if query else base


def how_to_open(params: Mapping[str, str]) -> str:
    """What a brief made with no dashboard address says in place of a link: the command that
    serves the dashboard and the view's path and query string (a localhost link would open
    nothing on the reader's machine)."""
    return (
        f"run 'tokendesk app' and open {view_query(params)} on the address it prints"
        f" (set {PUBLIC_URL_ENV} or --base-url to print a link here)"
    )


_SKIP_WORDS = {"to", "the", "a", "an", "of", "on"}


def slug(text: str) -> str:
    """``Shift 25% to AMD`` -> ``shift-25-amd``: lower-case words and digits joined by hyphens."""
    words = [w for w in re.split(r"[^0-9a-z]+", text.lower()) if w and w not in _SKIP_WORDS]
    return "-".join(words)[:60].strip("-") or "brief"


def brief_stem(day: date, scenario_name: str) -> str:
    """``brief-2026-11-30-shift-25-amd``: the date and the recommended (or first) scenario."""
    return f"brief-{day:%Y-%m-%d}-{slug(scenario_name)}"


def cents(values: Sequence[float], total: float) -> list[float]:
    """Round ``values`` to cents so that they add up exactly to ``total`` rounded to cents
    (largest remainder: no figure moves by more than one cent from its own rounding)."""
    # ``round(total, 2)`` as every other figure is rounded: ``round(total * 100)`` alone rounds
    # a half cent to even (43,331.705 → 43,331.70 where the JSON says 43,331.71).
    want = round(round(total, 2) * 100)
    floors = [int(v * 100 // 1) for v in values]
    short = want - sum(floors)
    order = sorted(range(len(values)), key=lambda i: values[i] * 100 - floors[i], reverse=True)
    for i in order[: max(short, 0)]:
        floors[i] += 1
    return [f / 100 for f in floors]
