"""The workbook recomputes to the JSON: after LibreOffice recalculates it, every month of every
plan (the optimal fleet's path included) equals ``scenarios --format json`` to the cent. A plan
with a late cut-over used to come back scaled by its run rate ÷ Stay's month 1 (0.9654 for Shift
on the example)."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest
from openpyxl import load_workbook
from typer.testing import CliRunner

from cli.main import app

runner = CliRunner()
SOFFICE = shutil.which("soffice")


@pytest.mark.skipif(SOFFICE is None, reason="LibreOffice (soffice) is not installed")
def test_every_month_of_every_plan_equals_the_json_after_recalculation(tmp_path):
    db = tmp_path / "td.duckdb"
    book = tmp_path / "plans.xlsx"
    made = runner.invoke(app, ["scenarios", "--format", "xlsx", "-o", str(book), "--db", str(db)])
    assert made.exit_code == 0, made.output
    data = runner.invoke(app, ["scenarios", "--format", "json", "--db", str(db)])
    plans = {r["name"]: r for r in json.loads(data.stdout)}
    out = tmp_path / "recalculated"
    subprocess.run(
        [SOFFICE, "--headless", "--convert-to", "xlsx", "--outdir", str(out), str(book)],
        check=True,
        capture_output=True,
        timeout=180,
    )
    sheet = load_workbook(out / "plans.xlsx", data_only=True)["Months"]
    header = [c.value for c in sheet[1]]
    assert "Optimal $/month" in header
    for j, name in enumerate(header[1:], start=2):
        plan = plans[name.removesuffix(" $/month")]
        months = [sheet.cell(row=i + 2, column=j).value for i in range(36)]
        assert months == pytest.approx(plan["monthly_usd_by_month"], abs=0.005), name
        total = sheet.cell(row=39, column=j).value
        # (36 months rounded to the cent each may add up a cent or two away from the rounded total)
        assert total + plan["one_time_usd"] == pytest.approx(plan["horizon_usd"], abs=0.02), name
