"""The scenarios workbook is a live model a CFO can change: money and counts are numbers with a
currency or number format by column (never a percentage on dollars), month n, the horizon total
and the difference to Stay are formulas over the Assumptions sheet, sheets have meaningful names,
print landscape at one page wide with their header row on every page, and no figure shows "###".
LibreOffice recalculates it after a rate on the Assumptions sheet changes."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest
from openpyxl import load_workbook
from typer.testing import CliRunner

from briefs.workbook import PERCENT, USD, shown_length
from cli.main import app

runner = CliRunner()


@pytest.fixture(scope="module")
def workbook_path(seed_db, tmp_path_factory):
    folder = tmp_path_factory.mktemp("workbook")
    db = folder / "w.duckdb"
    shutil.copy(seed_db, db)
    target = folder / "scenarios.xlsx"
    done = runner.invoke(app, ["scenarios", "--db", str(db), "--format", "xlsx", "-o", str(target)])
    assert done.exit_code == 0, done.output
    return target


def test_money_is_a_number_with_a_currency_format_never_a_percentage(workbook_path):
    book = load_workbook(workbook_path)
    months = book["Months"]
    shift = next(c for c in months[1] if str(c.value).startswith("Shift"))
    for row in range(2, 38):
        cell = months.cell(row=row, column=shift.column)
        assert cell.number_format == USD, (cell.coordinate, cell.number_format)
    scenarios = book["Scenarios"]
    header = {c.value: c.column for c in scenarios[1]}
    for name in ("Monthly (month 1)", "Month 36", "One-time"):
        for row in range(2, scenarios.max_row + 1):
            cell = scenarios.cell(row=row, column=header[name])
            if cell.value is None or not str(cell.value).strip():
                continue
            assert isinstance(cell.value, int | float), (name, cell.value)
            assert cell.number_format == USD
    unserved = scenarios.cell(row=2, column=header["Unserved tok/month"])
    assert isinstance(unserved.value, int | float) and unserved.number_format != PERCENT


def test_sheets_have_names_print_landscape_one_page_wide_and_show_no_hashes(workbook_path):
    book = load_workbook(workbook_path)
    assert not [n for n in book.sheetnames if re.fullmatch(r"Fleet \d+", n)], book.sheetnames
    assert "Fleet, Stay" in book.sheetnames
    for sheet in book.worksheets:
        assert sheet.page_setup.orientation == "landscape", sheet.title
        assert sheet.sheet_properties.pageSetUpPr.fitToPage and sheet.page_setup.fitToWidth == 1
        for row in sheet.iter_rows():
            for cell in row:
                if isinstance(cell.value, int | float) and not isinstance(cell.value, bool):
                    width = sheet.column_dimensions[cell.column_letter].width or 8.43
                    assert width >= shown_length(cell.value, cell.number_format), (
                        sheet.title,
                        cell.coordinate,
                    )
    assert book["Months"].print_title_rows == "$1:$1"


def test_month_n_and_the_totals_are_formulas_over_the_assumptions(workbook_path):
    book = load_workbook(workbook_path)
    months = book["Months"]
    assert str(months["B37"].value).startswith("='Cost model'!") and "Assumptions!" in str(
        months["B37"].value
    )
    # Each month × its discount factor, a formula over the Assumptions' rate (1 at 0%).
    assert months["B39"].value == "=SUMPRODUCT(B2:B37,$F$2:$F$37)"
    assert months["F1"].value == "discount factor"
    assert months["F2"].value == "=(1+Assumptions!$B$6)^(-($A2-1)/12)"
    cost_model = book["Cost model"]
    horizon = [c.value for c in cost_model["D"] if str(c.value).startswith("='Months'!")]
    # Stay, the two moves and the optimal fleet's path: each horizon total is a sum over months.
    assert len(horizon) == 4


def _recalculated(path, folder):
    subprocess.run(
        [
            shutil.which("soffice"),
            f"-env:UserInstallation=file://{folder}/lo-profile",
            "--headless",
            "--calc",
            "--convert-to",
            "xlsx",
            "--outdir",
            str(folder / "out"),
            str(path),
        ],
        check=True,
        capture_output=True,
        timeout=240,
    )
    return load_workbook(folder / "out" / path.name, data_only=True)


@pytest.mark.skipif(
    shutil.which("soffice") is None,
    reason="LibreOffice (soffice) is not installed: scripts/setup.sh --dev installs "
    "libreoffice-calc-nogui; without it the workbook's formulas cannot be recalculated here",
)
def test_a_rate_changed_on_the_assumptions_sheet_moves_every_month_and_total(
    workbook_path, tmp_path
):
    book = load_workbook(workbook_path)
    assumptions = book["Assumptions"]
    header_row = next(
        r
        for r in range(1, assumptions.max_row + 1)
        if assumptions.cell(r, 1).value == "option" and assumptions.cell(r, 2).value == "line"
    )
    line = next(
        r
        for r in range(header_row + 1, assumptions.max_row + 1)
        if assumptions.cell(r, 1).value == "Stay" and (assumptions.cell(r, 3).value or 0) > 0
    )
    units, rate = assumptions.cell(line, 3).value, assumptions.cell(line, 4).value
    assumptions.cell(line, 4).value = rate + 10.0  # $10 more per unit-hour held
    edited = tmp_path / "edited.xlsx"
    book.save(edited)
    before = _recalculated(workbook_path, tmp_path / "before")
    after = _recalculated(edited, tmp_path / "after")

    def stay(values, cell):
        return values["Months"][cell].value

    step = units * 10.0 * 730  # one month of the dearer line
    assert stay(after, "B2") == pytest.approx(stay(before, "B2") + step, rel=1e-9)
    # Month 36 ÷ month 1 is an input (the curve's shape): month 36 scales with month 1.
    curve = stay(before, "B37") / stay(before, "B2")
    assert stay(after, "B37") == pytest.approx(stay(after, "B2") * curve)
    total_after = sum(after["Months"].cell(r, 2).value for r in range(2, 38))
    assert stay(after, "B39") == pytest.approx(total_after) and total_after > stay(before, "B39")
    # The decision's money reads the same totals: its 36-month total follows the edit, and so
    # does the Cost model's difference to Stay.
    decision = after["Decision"]
    top = next(r for r in range(1, decision.max_row + 1) if decision.cell(r, 1).value == "option")
    header = [c.value for c in decision[top]]
    horizon = header.index("36 months") + 1
    rows = {decision.cell(r, 1).value: r for r in range(top + 1, top + 4)}
    cost_model = after["Cost model"]
    stay_total = decision.cell(rows["Stay"], horizon).value
    assert stay_total == pytest.approx(total_after + _cell(cost_model, "Stay", 3))
    shift = next(name for name in rows if str(name).startswith("Shift"))
    versus = _cell(cost_model, shift, 5)
    assert versus == pytest.approx(decision.cell(rows[shift], horizon).value - stay_total)
    # Stay's total grew by the step on every month of its curve: the difference shrank by it.
    growth = step * stay(before, "B39") / stay(before, "B2")
    assert versus == pytest.approx(_cell(before["Cost model"], shift, 5) - growth)


def _cell(cost_model, option: str, column: int) -> float:
    """An option's figure from the Cost model's totals table (below its line table): column 3
    is the one-time cost, 4 the horizon total, 5 the difference to the baseline."""
    totals = next(
        r
        for r in range(1, cost_model.max_row + 1)
        if cost_model.cell(r, 1).value == "option"
        and cost_model.cell(r, 3).value == "one-time cost"
    )
    row = next(r for r in range(totals + 1, totals + 10) if cost_model.cell(r, 1).value == option)
    return cost_model.cell(row, column).value
