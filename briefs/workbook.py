# Long by design: the XLSX export's sheets write cells whose addresses the live model's formulas
# refer to (assumptions, cost model, monthly curve); kept in one module so each formula and the
# cell it reads are checked side by side.
"""The XLSX export: the decision on the first sheet, a live cost model, and every table with a
number format on every numeric cell.

The live model: the *Assumptions* sheet holds the inputs (hours per month, the horizon, each
option's one-time cost, each fleet line's units and rates, input cells in blue); the *Cost model*
sheet computes each line's monthly cost and each option's totals from them with formulas, beside
the app's own figures; the money table on the *Decision* sheet reads those totals. Change a rate
or a unit count and every total recomputes (Excel, LibreOffice, Numbers).

Text is written as text: a cell that starts with = + - @ is stored as a string with Excel's
"quote prefix" flag (shown without an apostrophe, never run as a formula).
"""

from __future__ import annotations

import io
import re
from dataclasses import replace
from datetime import date, datetime
from typing import Any

import pandas as pd
from openpyxl import Workbook
from openpyxl.chart import BarChart as XlBarChart
from openpyxl.chart import Reference
from openpyxl.styles import Alignment, Font, PatternFill
from openpyxl.utils import get_column_letter, quote_sheetname
from openpyxl.worksheet.worksheet import Worksheet

from briefs.document import MODEL_COLUMNS, BarChart, Bullets, Document, LiveModel, Paragraph, Table
from tokendesk import formatting
from tokendesk.exports import FORMULA_PREFIXES
from tokendesk.labels import label as id_label
from tokendesk.labels import labelled_column
from tokendesk.textsafety import clean_text

USD = '"$"#,##0.00;[Red]-"$"#,##0.00'
USD_RATE = '"$"#,##0.0000'
PERCENT = "0.0%"
PERCENT_NUMBER = '0.0"%"'
INTEGER = "#,##0"
DECIMAL = "#,##0.00"
MS = '#,##0" ms"'
WEEKS = '0.0" w"'
DATE = "yyyy-mm-dd"
DATETIME = "yyyy-mm-dd hh:mm"

BOLD = Font(bold=True)
HEADER_FILL = PatternFill("solid", fgColor="E8EDF3")
INPUT_FILL = PatternFill("solid", fgColor="DDEBF7")
INPUT_FONT = Font(color="1F4E79")
WRAP = Alignment(wrap_text=True, vertical="top")
_ISO_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")


def number_format(header: str, value: object, unit: str = "") -> str:
    """The format of a numeric cell, from its column header (and the row's unit, if any)."""
    h = header.lower()
    if "share" in unit or unit == "%":
        return PERCENT
    per_tokens = formatting.token_unit_in(h)
    if per_tokens is not None:
        return formatting.spreadsheet_cost_format(per_tokens)
    if "$/h" in h or "per_hour" in h or "per_unit_hour" in h or "unit-hour" in h and "$" in h:
        return USD_RATE
    if "% of" in h or "roofline" in h:
        return PERCENT_NUMBER
    # Money before shares: "Shift 25% to AMD $/month" holds dollars, not a percentage.
    if "$" in h or "usd" in h or "cost" in h or "one-time" in h or "months" in h:
        return USD
    if "%" in h or "share" in h or "pct" in h:
        # A share is a fraction; a figure far above 1 under a "%" header is not one.
        return PERCENT if not isinstance(value, int | float) or abs(value) <= 10 else DECIMAL
    if "ms" in h.split() or h.endswith("_ms") or "ftl" in h or "ttft" in h:
        return MS
    if "week" in h:
        return WEEKS
    if isinstance(value, int) or (isinstance(value, float) and value.is_integer() and "hour" in h):
        return INTEGER
    return DECIMAL


def cell_value(value: object) -> object:
    """A Python value as Excel should hold it: numbers, real dates, text (never None/NaN)."""
    if value is None or value is pd.NaT:
        return None
    if isinstance(value, float) and value != value:
        return None
    if isinstance(value, pd.Timestamp):
        value = value.to_pydatetime()
    if isinstance(value, datetime):
        return value.replace(tzinfo=None)
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, date | int | float):
        return value
    if hasattr(value, "item"):  # numpy scalar
        return cell_value(value.item())
    if isinstance(value, list | tuple):
        value = ", ".join(str(v) for v in value)
    text = clean_text(str(value))
    if _ISO_DAY.fullmatch(text):
        return date.fromisoformat(text)
    return text


_MONEY_TEXT = re.compile(r"(-?)\$(-?[\d,]*\d(?:\.\d+)?)")
_PERCENT_TEXT = re.compile(r"-?\d+(?:\.\d+)?%")
_GROUPED_TEXT = re.compile(r"-?\d{1,3}(?:,\d{3})+(?:\.\d+)?")
_PLAIN_INTEGER = re.compile(r"-?\d+")
#: Header words of a column of counts, where "0" or "12" is a number, not an id or a label.
_COUNT_WORDS = ("tok", "count", "units", "unserved", "requests", "rows", "month")


def numeric_text(text: str, header: str) -> tuple[float, str] | None:
    """A figure a document formatted as text ("$215,565.35", "12.5%", "3,000"), as the number
    and the cell format a spreadsheet needs to add it up; None for any other text."""
    money = _MONEY_TEXT.fullmatch(text)
    if money:
        sign, digits = money.groups()
        number = float(digits.replace(",", "")) * (-1 if sign else 1)
        decimals = len(digits.partition(".")[2])
        return number, USD_RATE if decimals > 2 else USD
    if _PERCENT_TEXT.fullmatch(text):
        return float(text[:-1]) / 100, PERCENT
    if _GROUPED_TEXT.fullmatch(text):
        number = float(text.replace(",", ""))
        return number, INTEGER if number.is_integer() else DECIMAL
    if _PLAIN_INTEGER.fullmatch(text) and any(w in header.lower() for w in _COUNT_WORDS):
        return float(text), INTEGER
    return None


def put(ws: Worksheet, row: int, column: int, value: object, header: str = "", unit: str = ""):
    """Write one cell with its number format; text stays text (quote prefix, no apostrophe),
    except a table's figure formatted as text, which is written as the number it shows."""
    v = cell_value(value)
    cell = ws.cell(row=row, column=column)
    if header and isinstance(v, str):
        figure = numeric_text(v, header)
        if figure is not None:
            cell.value, cell.number_format = figure
            return cell
    if v is None:
        h = header.lower()
        dated = any(w in h for w in ("date", "observed", "measured", "as_of", "_at", "as of"))
        cell.value = "date unknown" if dated else "—"
        return cell
    cell.value = v
    if isinstance(v, str):
        if v.startswith(FORMULA_PREFIXES):
            cell.data_type = "s"
            cell.quotePrefix = True
        if len(v) > 60:
            cell.alignment = WRAP
    elif isinstance(v, datetime):
        cell.number_format = DATETIME if (v.hour, v.minute, v.second) != (0, 0, 0) else DATE
    elif isinstance(v, date):
        cell.number_format = DATE
    else:
        cell.number_format = number_format(header, v, unit)
    return cell


def _sheet_name(name: str, used: set[str]) -> str:
    clean = re.sub(r"[\[\]:*?/\\']", " ", clean_text(name)).strip()[:31] or "Sheet"
    candidate, n = clean, 2
    while candidate.lower() in used:
        suffix = f" ({n})"
        candidate, n = clean[: 31 - len(suffix)] + suffix, n + 1
    used.add(candidate.lower())
    return candidate


def _plain(frame: pd.DataFrame) -> pd.DataFrame:
    out = frame.copy()
    for column in out.columns:
        if isinstance(out[column].dtype, pd.CategoricalDtype):
            out[column] = out[column].astype(object)
    return out


def write_table(ws: Worksheet, frame: pd.DataFrame, start_row: int = 1) -> dict[str, int]:
    """Header and rows from ``start_row``; returns column header -> column index."""
    frame = _plain(frame)
    columns = {str(c): j for j, c in enumerate(frame.columns, start=1)}
    for name, j in columns.items():
        cell = ws.cell(row=start_row, column=j, value=cell_value(name.replace("_", " ")))
        cell.font, cell.fill = BOLD, HEADER_FILL
    unit_column = "unit" if "unit" in columns else None
    for i, row in enumerate(frame.itertuples(index=False), start=start_row + 1):
        unit = str(getattr(row, unit_column)) if unit_column else ""
        for (name, j), value in zip(columns.items(), row, strict=True):
            shown = id_label(value) if labelled_column(name) and isinstance(value, str) else value
            put(ws, i, j, shown, name, unit)
    last = start_row + min(len(frame), 200)
    for name, j in columns.items():
        cells = [ws.cell(row=i, column=j) for i in range(start_row + 1, last + 1)]
        fit_column(ws, j, [len(name), *(shown_length(c.value, c.number_format) for c in cells)])
    return columns


def shown_length(value: object, number_format: str) -> int:
    """About how many characters a cell shows: a column narrower than a figure shows "###"."""
    if isinstance(value, datetime):
        return 16 if number_format == DATETIME else 10
    if isinstance(value, date):
        return 10
    if isinstance(value, bool) or not isinstance(value, int | float):
        return len(str(value or ""))
    if number_format in (PERCENT, PERCENT_NUMBER):
        return len(f"{value * 100:,.1f}%")
    decimals = number_format.split(";")[0].rpartition(".")[2]
    digits = sum(ch == "0" for ch in decimals) if "." in number_format else 0
    text = f"{value:,.{digits}f}"
    return len(text) + (1 if "$" in number_format else 0) + (4 if "ms" in number_format else 0)


def fit_column(ws: Worksheet, column: int, lengths: list[int], cap: int = 60) -> None:
    """Widen a column to its longest cell (at least 9, at most ``cap`` characters; longer text
    wraps), never narrowing what an earlier table on the sheet needed."""
    letter = get_column_letter(column)
    width = min(max(max(lengths, default=0) + 2, 9), cap)
    ws.column_dimensions[letter].width = max(ws.column_dimensions[letter].width or 0, width)


# -- the live model ---------------------------------------------------------------------------
def _assumptions_sheet(
    ws: Worksheet, doc: Document, live: LiveModel | None
) -> tuple[str, str, dict]:
    ws.cell(row=1, column=1, value="Assumptions").font = Font(bold=True, size=13)
    row = 2
    hours_ref = horizon_ref = ""
    one_time_refs: dict[str, Any] = {}
    if live is not None:
        ws.cell(
            row=2,
            column=1,
            value="Blue cells are inputs: change one and the Cost model and Decision sheets "
            "recompute.",
        ).font = Font(italic=True)
        for r, (label, value, fmt) in enumerate(
            (
                ("hours per month", live.hours_per_month, "#,##0"),
                ("horizon (months)", live.horizon_months, "#,##0"),
            ),
            start=4,
        ):
            ws.cell(row=r, column=1, value=label).font = BOLD
            cell = ws.cell(row=r, column=2, value=value)
            cell.number_format, cell.fill, cell.font = fmt, INPUT_FILL, INPUT_FONT
        hours_ref, horizon_ref = "Assumptions!$B$4", "Assumptions!$B$5"
        if not live.flat_horizon:
            # Each month of a curve counts × (1 + rate) ^ -((month − 1) / 12) in the horizon.
            ws.cell(row=6, column=1, value="discount rate per year").font = BOLD
            cell = ws.cell(row=6, column=2, value=live.discount_rate_per_year)
            cell.number_format, cell.fill, cell.font = "0.00%", INPUT_FILL, INPUT_FONT
        row = 7
        for j, name in enumerate(("option", "one-time cost", "falls in month"), start=1):
            cell = ws.cell(row=row, column=j, value=name)
            cell.font, cell.fill = BOLD, HEADER_FILL
        for option, usd in live.one_time_usd:
            falls = live.one_time_falls.get(option) or ((1, usd),)
            one_time_refs[option] = []
            for month, amount in falls:
                row += 1
                put(ws, row, 1, option)
                for col, value, fmt in ((2, float(amount), USD), (3, int(month), INTEGER)):
                    cell = ws.cell(row=row, column=col, value=value)
                    cell.number_format, cell.fill, cell.font = fmt, INPUT_FILL, INPUT_FONT
                one_time_refs[option].append((f"Assumptions!$B${row}", f"Assumptions!$C${row}"))
        row += 2
        header = ("option", "line", *MODEL_COLUMNS)
        for j, name in enumerate(header, start=1):
            cell = ws.cell(row=row, column=j, value=name)
            cell.font, cell.fill = BOLD, HEADER_FILL
        first_line = row + 1
        for line in live.lines.itertuples(index=False):
            row += 1
            put(ws, row, 1, line.option)
            put(ws, row, 2, line.line)
            for j, name in enumerate(MODEL_COLUMNS, start=3):
                value = getattr(line, _attr(name))
                cell = ws.cell(row=row, column=j, value=None if value != value else value)
                cell.number_format = USD_RATE if name.startswith("$") else "#,##0.##"
                cell.fill, cell.font = INPUT_FILL, INPUT_FONT
        one_time_refs["_lines"] = (first_line, row)
        row += 2
    ws.cell(row=row, column=1, value="Every other assumption").font = BOLD
    write_table(ws, doc.assumptions, start_row=row + 1)
    ws.column_dimensions["A"].width = 34
    ws.column_dimensions["B"].width = 40
    return hours_ref, horizon_ref, one_time_refs


def _attr(name: str) -> str:
    """A model column's name as a pandas itertuples attribute."""
    return "c" + str(MODEL_COLUMNS.index(name))


def _cost_model_sheet(
    ws: Worksheet, live: LiveModel, hours: str, horizon: str, refs: dict
) -> dict[str, dict[str, str]]:
    """Line formulas and per-option totals; returns option -> total name -> absolute cell ref."""
    first, last = refs["_lines"]
    ws.cell(row=1, column=1, value="Cost model").font = Font(bold=True, size=13)
    ws.cell(
        row=2,
        column=1,
        value="monthly = held units × $/unit-hour × hours + burst unit-hours × $/unit-hour + "
        "spot units × $/unit-hour × hours (inputs on the Assumptions sheet)",
    ).font = Font(italic=True)
    header: tuple[str, ...] = ("option", "line", "monthly cost", "app's figure", "difference")
    for j, name in enumerate(header, start=1):
        cell = ws.cell(row=4, column=j, value=name)
        cell.font, cell.fill = BOLD, HEADER_FILL
    row = 4
    for offset, line in enumerate(live.lines.itertuples(index=False)):
        row += 1
        src = first + offset
        a = {col: f"Assumptions!{col}{src}" for col in "ABCDEFGH"}.__getitem__
        ws.cell(row=row, column=1, value=f"={a('A')}")
        ws.cell(row=row, column=2, value=f"={a('B')}")
        formula = (
            f"=N({a('C')})*N({a('D')})*{hours}+N({a('E')})*N({a('F')})"
            f"+N({a('G')})*N({a('H')})*{hours}"
        )
        ws.cell(row=row, column=3, value=formula).number_format = USD
        ws.cell(row=row, column=4, value=float(line.monthly_usd)).number_format = USD
        ws.cell(row=row, column=5, value=f"=C{row}-D{row}").number_format = USD
    lines_from, lines_to = 5, row
    row += 2
    header = (
        "option",
        "monthly cost",
        "one-time cost",
        "horizon total",
        "vs baseline",
        "app's monthly",
        "compared $/month",
        "vs baseline $/month",
    )
    for j, name in enumerate(header, start=1):
        cell = ws.cell(row=row, column=j, value=name)
        cell.font, cell.fill = BOLD, HEADER_FILL
    totals: dict[str, dict[str, str]] = {}
    app_monthly = live.lines.groupby("option", sort=False)["monthly_usd"].sum()
    base_row = None
    rows: dict[str, int] = {}
    for option, _ in live.one_time_usd:
        row += 1
        rows[option] = row
        if option == live.baseline:
            base_row = row
    for option, _ in live.one_time_usd:
        r = rows[option]
        put(ws, r, 1, option)
        ws.cell(
            row=r,
            column=2,
            value=f"=SUMIF($A${lines_from}:$A${lines_to},A{r},$C${lines_from}:$C${lines_to})",
        ).number_format = USD
        one_time = "+".join(usd for usd, _ in refs[option])
        ws.cell(row=r, column=3, value=f"={one_time}").number_format = USD
        if live.flat_horizon:
            ws.cell(row=r, column=4, value=f"=B{r}*{horizon}+C{r}").number_format = USD
            ws.cell(row=r, column=5, value=f"=D{r}-D{base_row}").number_format = USD
        else:
            for j in (4, 5, 7, 8):
                ws.cell(row=r, column=j, value="— (follows the monthly curve: Months sheet)")
        if live.flat_horizon:
            _compared(ws, r, base_row, horizon)
        ws.cell(row=r, column=6, value=float(app_monthly.get(option, 0.0))).number_format = USD
        sheet = quote_sheetname(ws.title)
        totals[option] = {
            "monthly": f"{sheet}!$B${r}",
            "one_time": f"{sheet}!$C${r}",
            "horizon": f"{sheet}!$D${r}",
            "vs_baseline": f"{sheet}!$E${r}",
            "compared": f"{sheet}!$G${r}",
            "vs_stay": f"{sheet}!$H${r}",
        }
    ws.column_dimensions["A"].width = 28
    ws.column_dimensions["B"].width = 44
    for letter in "CDEFGH":
        ws.column_dimensions[letter].width = 16
    return totals


def _compared(ws: Worksheet, r: int, base_row: int | None, horizon: str) -> None:
    """The figures the verdicts read, as formulas over the horizon total: $/month compared =
    the horizon total ÷ the horizon's months; vs the baseline = that minus the baseline's."""
    ws.cell(row=r, column=7, value=f"=D{r}/{horizon}").number_format = USD
    if base_row is not None:
        ws.cell(row=r, column=8, value=f"=G{r}-G{base_row}").number_format = USD


# -- the decision sheet -----------------------------------------------------------------------
def _decision_sheet(ws: Worksheet, doc: Document, totals: dict, live: LiveModel | None) -> None:
    ws.cell(row=1, column=1, value=cell_value(doc.title)).font = Font(bold=True, size=14)
    ws.cell(row=2, column=1, value=cell_value(doc.subtitle))
    row = 3
    for key, value in doc.meta:
        row += 1
        ws.cell(row=row, column=1, value=cell_value(key)).font = BOLD
        cell = put(ws, row, 2, value)
        cell.alignment = Alignment(wrap_text=False)  # a key/value line reads on one line
        if isinstance(value, str) and value.startswith(("http://", "https://")):
            cell.hyperlink = value
            cell.style = "Hyperlink"
    row += 1
    width = 9
    first = doc.sections[0] if doc.sections else None
    for block in first.blocks if first else ():
        row += 1
        if isinstance(block, Paragraph):
            row = _text_row(ws, row, block.text, width)
        elif isinstance(block, Bullets):
            if block.title:
                ws.cell(row=row, column=1, value=cell_value(block.title)).font = BOLD
                row += 1
            for item in block.items:
                row = _text_row(ws, row, "• " + item, width) + 1
            row -= 1
        elif isinstance(block, Table):
            ws.cell(row=row, column=1, value=cell_value(block.title)).font = BOLD
            columns = write_table(ws, block.frame, start_row=row + 1)
            if live is not None and block.title == live.money_table and "option" in columns:
                money_columns = {**_curve_money_columns(columns, totals), **live.money_columns}
                for i, option in enumerate(block.frame["option"], start=row + 2):
                    for column, kind in money_columns.items():
                        if option in totals and column in columns and kind in totals[option]:
                            cell = ws.cell(row=i, column=columns[column])
                            cell.value = f"={totals[option][kind]}"
                            cell.number_format = USD
            row += len(block.frame) + 1
            if block.note:
                row += 1
                ws.cell(row=row, column=1, value=cell_value(block.note)).font = Font(italic=True)
        elif isinstance(block, BarChart):
            live_cells = {
                label: totals[label][block.live_total]
                for label in block.labels
                if block.live_total and block.live_total in totals.get(label, {})
            }
            row = _native_chart(ws, row, block, live_cells)
    ws.column_dimensions["A"].width = max(ws.column_dimensions["A"].width or 0, 22)


_MONTH_N = re.compile(r"\$/month \(month (\d+)\)")
_HORIZON = re.compile(r"\d+ months")
_VS_BASELINE = re.compile(r"vs .+, \d+ months")
_COMPARED = "$/month compared"
_VS_STAY = re.compile(r"vs .+ \(\$/month\)")


def _curve_money_columns(columns: dict[str, int], totals: dict) -> dict[str, str]:
    """The money table's columns a live monthly curve fills: month n, the horizon total and the
    difference to the baseline (only where the workbook has a live curve: ``month 1`` etc.)."""
    live_curve = any("month 2" in refs for refs in totals.values())
    out: dict[str, str] = {}
    for column in columns if live_curve else ():
        month = _MONTH_N.fullmatch(column)
        if month:
            out[column] = f"month {month.group(1)}"
        elif _HORIZON.fullmatch(column):
            out[column] = "horizon"
        elif _VS_BASELINE.fullmatch(column):
            out[column] = "vs_baseline"
        elif column == _COMPARED:
            out[column] = "compared"
        elif _VS_STAY.fullmatch(column):
            out[column] = "vs_stay"
    return out


def _text_row(ws: Worksheet, row: int, text: str, width: int) -> int:
    ws.merge_cells(start_row=row, start_column=1, end_row=row, end_column=width)
    cell = put(ws, row, 1, text)
    cell.alignment = WRAP
    ws.row_dimensions[row].height = 15 * max(1, -(-len(text) // 100))
    return row


def _native_chart(
    ws: Worksheet, row: int, chart: BarChart, live_cells: dict[str, str] | None = None
) -> int:
    """An Excel bar chart over a small data block (label, value) to the right of the sheet; a
    label in ``live_cells`` charts that cell (a formula), not a typed value."""
    col = 14
    ws.cell(row=row, column=col, value="option").font = BOLD
    ws.cell(row=row, column=col + 1, value=cell_value(chart.unit)).font = BOLD
    for i, (label, value) in enumerate(zip(chart.labels, chart.values, strict=True), start=1):
        put(ws, row + i, col, label)
        typed = None if value != value else value
        live = (live_cells or {}).get(label)
        cell = ws.cell(row=row + i, column=col + 1, value=f"={live}" if live else typed)
        cell.number_format = USD if "$" in chart.unit or "USD" in chart.unit else DECIMAL
        fit_column(ws, col, [len(str(label)), 6])
        fit_column(ws, col + 1, [shown_length(cell.value, cell.number_format), len(chart.unit)])
    xl = XlBarChart()
    xl.type = "bar"
    xl.title = chart.title
    xl.y_axis.title = chart.unit
    xl.x_axis.title = "option"
    xl.y_axis.numFmt = '"$"#,##0' if "$" in chart.unit or "USD" in chart.unit else "#,##0"
    xl.y_axis.delete = False
    xl.x_axis.delete = False
    xl.legend = None
    n = len(chart.labels)
    xl.add_data(Reference(ws, min_col=col + 1, min_row=row, max_row=row + n), titles_from_data=True)
    xl.set_categories(Reference(ws, min_col=col, min_row=row + 1, max_row=row + n))
    xl.height, xl.width = 2.2 + 1.0 * n, 18
    ws.add_chart(xl, f"A{row}")
    return row + int(xl.height * 2) + 2


# -- the monthly curve, live -------------------------------------------------------------------
def curve_columns(t: Table, totals: dict) -> dict[str, str]:
    """A month-by-month table's cost columns by option ("Stay $/month" -> "Stay"), when ``t`` is
    one: its first column is "month" and its other columns are "<option> $/month"."""
    frame_columns = [str(c) for c in t.frame.columns]
    if not frame_columns or frame_columns[0] != "month":
        return {}
    out = {}
    for column in frame_columns[1:]:
        option = column.removesuffix(" $/month")
        if option != column and option in totals:
            out[column] = option
    return out


def _live_months(
    sheet: Worksheet,
    assumptions: Worksheet,
    t: Table,
    columns: dict[str, int],
    totals: dict,
    live: LiveModel,
    one_time_refs: dict,
) -> None:
    """Month n of each option = its month-1 cost on the Cost model sheet × the curve's multiple
    for month n, an input on the Assumptions sheet (the plan engine's demand growth and fleet
    steps at today's rates); the horizon total and the difference to the baseline are sums over
    these months. Change a rate, a unit count or a multiple and every month and total follows."""
    curves = curve_columns(t, totals)
    months = [int(m) for m in t.frame["month"]]
    top = assumptions.max_row + 2
    assumptions.cell(row=top, column=1, value="Monthly curve: month n ÷ month 1").font = BOLD
    note = (
        "The plan engine's curve (quarterly demand growth, fleet steps, commitments ending) as a "
        "multiple of month 1; the Months sheet multiplies it by the Cost model's month-1 cost."
    )
    assumptions.cell(row=top + 1, column=1, value=note).font = Font(italic=True)
    header_row = top + 2
    for j, name in enumerate(("month", *curves.values()), start=1):
        cell = assumptions.cell(row=header_row, column=j, value=name)
        cell.font, cell.fill = BOLD, HEADER_FILL
    for i, month in enumerate(months, start=1):
        assumptions.cell(row=header_row + i, column=1, value=month).number_format = INTEGER
    for k, (column, option) in enumerate(curves.items(), start=2):
        values = [float(v) for v in t.frame[column]]
        # The multiple is of the Cost model's month-1 cost (the plan in place), not of the
        # curve's own month 1: a plan with a late cut-over runs as Stay until then, and dividing
        # by that first month scaled every month by run rate ÷ Stay's month 1 (0.9654 for Shift).
        model = live.lines.loc[live.lines["option"] == option, "monthly_usd"]
        first = float(model.sum()) if len(model) else values[0]
        letter = get_column_letter(k)
        for i, value in enumerate(values, start=1):
            # A curve that starts at $0 has no multiple: its months are inputs in dollars.
            multiple = value / first if first else value
            cell = assumptions.cell(row=header_row + i, column=k, value=multiple)
            cell.number_format = "0.0000" if first else USD
            cell.fill, cell.font = INPUT_FILL, INPUT_FONT
            target = sheet.cell(row=i + 1, column=columns[column])
            factor = f"Assumptions!${letter}${header_row + i}"
            target.value = f"={totals[option]['monthly']}*{factor}" if first else f"={factor}"
            target.number_format = USD
            totals[option][f"month {months[i - 1]}"] = (
                f"{quote_sheetname(sheet.title)}!${get_column_letter(columns[column])}${i + 1}"
            )
    total_row = len(months) + 3
    factors = _discount_factors(sheet, months, len(columns) + 1)
    label = f"{len(months)} months × discount factor"
    sheet.cell(row=total_row, column=1, value=label).font = BOLD
    for column, option in curves.items():
        letter = get_column_letter(columns[column])
        cell = sheet.cell(row=total_row, column=columns[column])
        cell.value = f"=SUMPRODUCT({letter}2:{letter}{len(months) + 1},{factors})"
        cell.number_format, cell.font = USD, BOLD
        months_total = f"{quote_sheetname(sheet.title)}!${letter}${total_row}"
        # The Cost model's horizon total and the difference to the baseline follow the curve;
        # each one-time cost is discounted from the month it falls in.
        one_time = "".join(
            f"+{usd}*{_DISCOUNT.format(month=f'({month}-1)')}"
            for usd, month in one_time_refs[option]
        )
        _set(totals[option]["horizon"], f"={months_total}{one_time}", sheet)
    base = totals.get(live.baseline)
    # The horizon's months are an Assumptions input (``_assumptions_sheet``).
    horizon_months = "Assumptions!$B$5"
    for option in curves.values():
        # The verdict's inputs follow the months: $/month compared = the horizon total ÷ months.
        _set(totals[option]["compared"], f"={totals[option]['horizon']}/{horizon_months}", sheet)
        if base is not None:
            _set(
                totals[option]["vs_baseline"],
                f"={totals[option]['horizon']}-{base['horizon']}",
                sheet,
            )
            _set(
                totals[option]["vs_stay"],
                f"={totals[option]['compared']}-{base['compared']}",
                sheet,
            )
    if t.note:
        sheet.cell(row=total_row + 2, column=1, value=cell_value(t.note)).font = Font(italic=True)
    fit_column(assumptions, 1, [5])


#: What a dollar paid ``month`` months after month 1 is worth in month 1 (the plan engine's
#: ``discount_factor``), over the Assumptions sheet's rate.
_DISCOUNT = "(1+Assumptions!$B$6)^(-{month}/12)"


def _discount_factors(sheet: Worksheet, months: list[int], column: int) -> str:
    """A "discount factor" column beside the months (all 1 at a 0% rate); its range."""
    letter = get_column_letter(column)
    cell = sheet.cell(row=1, column=column, value="discount factor")
    cell.font, cell.fill = BOLD, HEADER_FILL
    for i in range(len(months)):
        factor = sheet.cell(row=i + 2, column=column)
        factor.value = "=" + _DISCOUNT.format(month=f"($A{i + 2}-1)")
        factor.number_format = "0.0000"
    return f"${letter}$2:${letter}${len(months) + 1}"


def _set(ref: str, formula: str, any_sheet: Worksheet) -> None:
    """Write ``formula`` into the cell ``ref`` ("'Cost model'!$D$12") with a money format."""
    sheet_name, _, address = ref.rpartition("!")
    target = any_sheet.parent[sheet_name.strip("'")][address.replace("$", "")]
    target.value, target.number_format = formula, USD


def _print_setup(ws: Worksheet) -> None:
    """Landscape, every column on one page width (as many pages down as it takes)."""
    ws.page_setup.orientation = "landscape"
    ws.page_setup.paperSize = ws.PAPERSIZE_A4
    ws.sheet_properties.pageSetUpPr.fitToPage = True
    ws.page_setup.fitToWidth = 1
    ws.page_setup.fitToHeight = 0


# -- the workbook -----------------------------------------------------------------------------
def workbook(doc: Document) -> bytes:
    wb = Workbook()
    used: set[str] = set()
    decision = wb.active
    # The first section (the brief's decision, the review's summary) is the first sheet.
    decision.title = _sheet_name(doc.sections[0].title if doc.sections else "Summary", used)
    assumptions = wb.create_sheet(_sheet_name("Assumptions", used))
    live = doc.live_model
    if live is not None:
        live = replace(live, lines=live.lines.rename(columns={n: _attr(n) for n in MODEL_COLUMNS}))
    hours, horizon, refs = _assumptions_sheet(assumptions, doc, live)
    totals: dict = {}
    if live is not None:
        totals = _cost_model_sheet(
            wb.create_sheet(_sheet_name("Cost model", used)), live, hours, horizon, refs
        )
    for section in doc.sections[1:]:
        for t in (b for b in section.blocks if isinstance(b, Table)):
            sheet = wb.create_sheet(_sheet_name(t.sheet or t.title, used))
            columns = write_table(sheet, t.frame)
            sheet.freeze_panes = "A2"
            sheet.print_title_rows = "1:1"  # the header row on every printed page
            if live is not None and not live.flat_horizon and curve_columns(t, totals):
                _live_months(sheet, assumptions, t, columns, totals, live, refs)
            elif t.note:
                sheet.cell(row=len(t.frame) + 3, column=1, value=cell_value(t.note)).font = Font(
                    italic=True
                )
    # The decision is written last (it stays the first sheet): its money reads every total.
    _decision_sheet(decision, doc, totals, live)
    for sheet in wb.worksheets:
        _print_setup(sheet)
    buffer = io.BytesIO()
    wb.properties.title = doc.title
    wb.properties.creator = "tokendesk"
    wb.save(buffer)
    return buffer.getvalue()
