import csv
import io
import json

import pytest
from typer.testing import CliRunner

from cli.main import app

runner = CliRunner()


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "cli.duckdb"
    assert runner.invoke(app, ["db", "init", "--db", str(path)]).exit_code == 0
    return path


def test_costs_csv_carries_provenance(db):
    out = runner.invoke(
        app,
        [
            "costs",
            "--db",
            str(db),
            "--format",
            "csv",
            "--accelerator",
            "nvidia-h200-141gb",
            "--provider",
            "aws",
            "--pricing-model",
            "on_demand",
        ],
    )
    assert out.exit_code == 0, out.output
    rows = list(csv.DictReader(io.StringIO(out.stdout)))
    assert rows and all(
        row["price_source"] and row["price_observed_at"] and row["bench_source_title"]
        for row in rows
    )
    example = [
        r
        for r in rows
        if r["instance_type"] == "p5en.48xlarge" and r["instance_output_tok_s"] == "34029.38"
    ]
    assert round(float(example[0]["usd_per_1k_output_tokens"]), 7) == 0.0005167


def test_costs_json_sorted_and_limited(db):
    out = runner.invoke(
        app,
        ["costs", "--db", str(db), "--format", "json", "--limit", "5", "--sort", "usd_per_hour"],
    )
    rows = json.loads(out.stdout)
    assert len(rows) == 5
    assert [r["usd_per_hour"] for r in rows] == sorted(r["usd_per_hour"] for r in rows)


def test_costs_rejects_an_unknown_sort(db):
    out = runner.invoke(app, ["costs", "--db", str(db), "--sort", "price; drop"])
    assert out.exit_code == 2
    assert "unknown sort" in out.output


def test_db_info_lists_snapshots(db):
    out = runner.invoke(app, ["db", "info", "--db", str(db)], env={"COLUMNS": "250"})
    assert out.exit_code == 0
    assert "historical seed snapshot" in out.stdout and "prices" in out.stdout


def test_db_ingest_reports_file_row_and_field(db, tmp_path):
    bad = tmp_path / "quotes.csv"
    bad.write_text(
        "provider,region,instance_type,accelerator_id,accelerator_count,pricing_model,usd_per_hour,source,observed_at\n"
        "acme,eu-1,x8,nvidia-h100-sxm-80gb,8,on_demand,0,sheet,2026-11-01\n"
    )
    out = runner.invoke(app, ["db", "ingest", "--db", str(db), str(bad)])
    assert out.exit_code == 2
    assert f"{bad}: row 2: field 'usd_per_hour'" in out.output.replace("\n", "")


def test_db_rebuild_keeps_a_backup(db):
    out = runner.invoke(app, ["db", "rebuild", "--db", str(db)])
    assert out.exit_code == 0, out.output
    assert list(db.parent.glob("cli.*.bak.duckdb"))


def test_costs_json_carries_confidence_and_percent_of_roofline(db):
    out = runner.invoke(app, ["costs", "--db", str(db), "--format", "json", "--limit", "20"])
    assert out.exit_code == 0, out.output
    rows = json.loads(out.stdout)
    assert rows and all(
        {"price_confidence", "bench_confidence", "roofline_pct"} <= set(r) for r in rows
    )
    gpu = [r for r in rows if not r["accelerator_id"].startswith("cpu-")]
    assert gpu and all(0 < r["roofline_pct"] < 100 for r in gpu)


def test_costs_json_carries_the_input_output_split_and_energy_and_carbon(db):
    out = runner.invoke(
        app,
        ["costs", "--db", str(db), "--format", "json", "--provider", "gcp", "--region", "us-east4"],
    )
    assert out.exit_code == 0, out.output
    rows = json.loads(out.stdout)
    assert rows
    for row in rows:
        assert row["apportioning_rule"] and row["energy_basis"]
        assert row["grid_year"] == 2025 and row["grid_source_url"].startswith("https://")
        # gCO2e per 1M output tokens = kWh per 1M tokens × the region's grid intensity.
        assert row["g_co2e_per_1m_output_tokens"] == pytest.approx(
            row["kwh_per_1m_output_tokens"] * row["grid_g_co2e_per_kwh"]
        )
        assert row["kwh_per_1m_output_tokens"] == pytest.approx(
            row["joules_per_output_token"] * 1e6 / 3.6e6
        )
    split = [r for r in rows if r["usd_per_1k_input_tokens"] is not None]
    assert split and all(
        r["usd_per_1k_output_tokens_apportioned"] <= r["usd_per_1k_output_tokens"] for r in split
    )


def test_costs_refuses_a_join_too_large_to_write_at_once(db, monkeypatch):
    import cli.costs_command as commands

    monkeypatch.setattr(commands, "MAX_COST_ROWS", 5)  # the seed holds more options than five
    out = runner.invoke(app, ["costs", "--db", str(db), "--format", "json"])
    assert out.exit_code == 2
    assert "options match, more than the 5 one command writes at once" in out.output
    assert "[" not in out.stdout  # no row was written
    limited = runner.invoke(app, ["costs", "--db", str(db), "--format", "json", "--limit", "3"])
    assert limited.exit_code == 0 and len(json.loads(limited.stdout)) == 3
    too_many = runner.invoke(app, ["costs", "--db", str(db), "--limit", "6"])
    assert too_many.exit_code == 2
