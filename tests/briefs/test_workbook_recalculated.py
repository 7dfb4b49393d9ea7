"""The workbook recomputes to the JSON: after LibreOffice recalculates it, every month of every
plan (the optimal fleet's path included), each horizon total, and the figures the verdicts read
($/month compared and the difference from Stay, formulas over the months) equal
``scenarios --format json`` to the cent, on the example, on doubled demand and on a mixed fleet.
A plan with a late cut-over used to come back scaled by its run rate ÷ Stay's month 1 (0.9654 for
Shift on the example)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess

import pytest
from openpyxl import load_workbook
from typer.testing import CliRunner

from cli.main import app
from tests.workspace_data import EXAMPLE, discounted, doubled_demand, mixed_fleet

runner = CliRunner()
SOFFICE = shutil.which("soffice")
#: 36 months each rounded to the cent: at most half a cent each away from the unrounded total.
ROUNDING = 36 * 0.005


def _money_rows(sheet) -> dict[str, dict[str, object]]:
    """The Decision sheet's money table: option -> column -> recalculated value."""
    for row in sheet.iter_rows(min_row=1, max_row=sheet.max_row):
        header = [c.value for c in row]
        if "option" in header and "$/month compared" in header:
            out = {}
            for below in sheet.iter_rows(min_row=row[0].row + 1, max_row=sheet.max_row):
                values = [c.value for c in below]
                if not values[0]:
                    break
                out[values[0]] = dict(zip(header, values, strict=False))
            return out
    raise AssertionError("no money table with $/month compared on the Decision sheet")


@pytest.mark.skipif(SOFFICE is None, reason="LibreOffice (soffice) is not installed")
@pytest.mark.parametrize("which", ["example", "doubled", "mixed", "discounted"])
def test_every_cell_equals_the_json_after_recalculation(tmp_path, which):
    ws = {
        "example": lambda _: EXAMPLE,
        "doubled": doubled_demand,
        "mixed": mixed_fleet,
        "discounted": discounted,
    }[which](tmp_path)
    db = tmp_path / "td.duckdb"
    book = tmp_path / "plans.xlsx"
    common = ["--workspace", str(ws), "--db", str(db)]
    made = runner.invoke(app, ["scenarios", "--format", "xlsx", "-o", str(book), *common])
    assert made.exit_code == 0, made.output
    data = runner.invoke(app, ["scenarios", "--format", "json", *common])
    plans = {r["name"]: r for r in json.loads(data.stdout)}
    out = tmp_path / "recalculated"
    subprocess.run(
        [
            SOFFICE,
            # A profile of its own: two LibreOffice processes on one profile hand work to each
            # other (or refuse) when tests run side by side.
            f"-env:UserInstallation=file://{tmp_path}/lo-profile",
            "--headless",
            "--convert-to",
            "xlsx",
            "--outdir",
            str(out),
            str(book),
        ],
        check=True,
        capture_output=True,
        timeout=180,
    )
    recalculated = load_workbook(out / "plans.xlsx", data_only=True)
    sheet = recalculated["Months"]
    header = [c.value for c in sheet[1]]
    assert "Optimal $/month" in header
    assert header[-1] == "discount factor"
    for j, name in enumerate(header[1:-1], start=2):
        plan = plans[name.removesuffix(" $/month")]
        months = [sheet.cell(row=i + 2, column=j).value for i in range(36)]
        assert months == pytest.approx(plan["monthly_usd_by_month"], abs=0.005), name
        total = sheet.cell(row=39, column=j).value
        # The total is the JSON's months, each × its discount factor (1 at a 0% rate), to the
        # cent; those months are each rounded to the cent, so against the unrounded horizon total
        # they may drift by up to half a cent a month ($0.14 for Optimal on doubled demand).
        rate = plan["discount_rate_per_year"]
        factors = [(1 + rate) ** (-m / 12) for m in range(36)]
        one_time = sum(
            usd * f for usd, f in zip(plan["one_time_usd_by_month"], factors, strict=True)
        )
        written = sum(m * f for m, f in zip(plan["monthly_usd_by_month"], factors, strict=True))
        assert total == pytest.approx(written, abs=0.01), name
        assert total + one_time == pytest.approx(plan["horizon_usd"], abs=ROUNDING), name
    if which == "discounted":
        assert {p["discount_rate_per_year"] for p in plans.values()} == {0.08}
        assert load_workbook(book)["Assumptions"]["B6"].value == 0.08
    # The verdicts' inputs are formulas over those months: the horizon total ÷ 36 and the
    # difference from Stay's (the JSON's compared_usd_per_month).
    money = _money_rows(recalculated.worksheets[0])
    formulas = _money_rows(load_workbook(book).worksheets[0])
    stay = plans["Stay"]["compared_usd_per_month"]
    vs_stay = next(c for c in next(iter(money.values())) if re.fullmatch(r"vs .+ \(\$/month\)", c))
    for name, row in money.items():
        if name not in plans:
            continue  # the table's note, below it
        for column in ("$/month compared", vs_stay, "36 months"):
            # Formulas over the months, never typed numbers that merely agree today.
            assert str(formulas[name][column]).startswith("="), (name, column)
        want = plans[name]["compared_usd_per_month"]
        assert row["$/month compared"] == pytest.approx(want, abs=0.01), name
        assert row[vs_stay] == pytest.approx(want - stay, abs=0.02), name
        assert row["36 months"] == pytest.approx(plans[name]["horizon_usd"], abs=ROUNDING), name
    # The chart beside the money charts those same cells: its bars follow them.
    charted = {
        (row[13].value, row[14].value, recalculated.worksheets[0].cell(row[14].row, 15).value)
        for row in load_workbook(book).worksheets[0].iter_rows(min_col=1, max_col=15)
        if row[13].value in plans and row[13].value in money
    }
    assert {name for name, _, _ in charted} == set(money) & set(plans)
    for name, formula, value in charted:
        assert str(formula).startswith("="), name
        assert value == pytest.approx(plans[name]["compared_usd_per_month"], abs=0.01), name
