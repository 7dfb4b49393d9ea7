"""The `prices` typer sub-app."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from cli.prices_command import prices_app
from tokendesk.paths import data_dir

runner = CliRunner()


def test_providers_lists_registry():
    result = runner.invoke(prices_app, ["providers"], env={"COLUMNS": "200"})
    assert result.exit_code == 0
    for name in ("aws", "aws-bulk", "gcp", "azure", "sheets"):
        assert name in result.stdout


def test_integrity_of_a_sheet_shows_rules_and_expired_flag():
    sheet = data_dir() / "price_sheets" / "example_negotiated.yaml"
    result = runner.invoke(prices_app, ["integrity", "--sheet", str(sheet)], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "negotiated_quote_expired" in result.stdout and "expired on 2026-06-30" in result.stdout


def test_refresh_sheets_then_integrity_of_current(tmp_path: Path):
    sheets = tmp_path / "sheets"
    sheets.mkdir()
    (sheets / "lambda.yaml").write_text(
        "defaults: {provider: lambda, source: Lambda pricing page, observed_at: 2026-09-01}\n"
        "quotes:\n  - {instance_type: gpu_8x_h100_sxm5, region: us-east-1,"
        " accelerator_id: nvidia-h100-sxm-80gb,"
        " accelerator_count: 8, pricing_model: on_demand, usd_per_hour: 23.92}\n"
    )
    env = {"TOKENDESK_PRICE_SHEETS": str(sheets), "COLUMNS": "200"}
    db = str(tmp_path / "t.duckdb")
    result = runner.invoke(prices_app, ["refresh", "--provider", "sheets", "--db", db], env=env)
    assert result.exit_code == 0, result.output
    assert "lambda" in result.stdout and "ok" in result.stdout
    result = runner.invoke(prices_app, ["integrity", "--provider", "lambda", "--db", db], env=env)
    assert result.exit_code == 0, result.output
    assert "price_positive" in result.stdout


def test_unknown_provider_is_rejected(tmp_path: Path):
    result = runner.invoke(
        prices_app, ["refresh", "--provider", "ibm", "--db", str(tmp_path / "x.duckdb")]
    )
    assert result.exit_code == 2


def test_integrity_of_more_current_prices_than_it_reads_at_once_points_to_the_stored_reports(
    tmp_path: Path, monkeypatch
):
    # A price file of a million rows must not make `prices integrity` read a million records:
    # over the cap it says how many there are and where each snapshot's report already is.
    import cli.prices_command

    monkeypatch.setattr(cli.prices_command, "MAX_CHECKED_NOW", 3)
    db = str(tmp_path / "t.duckdb")
    result = runner.invoke(prices_app, ["integrity", "--db", db], env={"COLUMNS": "200"})
    assert result.exit_code == 2, result.output
    assert "current prices: more than the 3 this command checks at once" in result.output
    assert "--snapshot ID" in result.output and "Traceback" not in result.output
