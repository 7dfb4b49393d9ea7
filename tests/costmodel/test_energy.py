"""Energy per output token and carbon per million, worked by hand: J/token = W ÷ tok/s, and
gCO₂e = kWh × grid intensity."""

import csv
from datetime import date

import numpy as np
import pytest

from costmodel import bundled_tables
from costmodel.bundled_tables import GridIntensity
from costmodel.energy import (
    BASIS_MEASURED,
    BASIS_NONE,
    energy_columns,
    estimate_basis,
    g_co2e_per_million_tokens,
    joules_per_token,
    kwh_per_million_tokens,
)
from tests.factories import frame, sweep
from tokendesk.paths import data_dir

GRID = {
    ("aws", "us-east-1"): GridIntensity(
        "aws", "us-east-1", "Virginia", 360.0, 2025, "a table", "https://example.org", "", "high"
    )
}


def test_joules_per_token_is_watts_over_tokens_per_second():
    assert joules_per_token(5600.0, 2800.0) == 2.0
    assert np.isnan(joules_per_token(5600.0, 0.0))


def test_carbon_is_kwh_times_the_grid_intensity():
    # 2 J/token × 1M tokens = 2 MJ = 2 / 3.6 kWh; × 360 g/kWh = 200 g.
    assert kwh_per_million_tokens(2.0) == pytest.approx(2 / 3.6)
    assert g_co2e_per_million_tokens(2.0, 360.0) == pytest.approx(200.0)


def test_without_measured_power_the_estimate_is_tdp_times_the_replicas_accelerators():
    # 8 × 700 W = 5,600 W for a replica serving 2,800 tok/s: 2 J per output token.
    options = frame(sweep(points=((1, 2800.0, 100.0),)))
    out = energy_columns(options, {"nvidia-h100-sxm-80gb": 700.0}, GRID)
    assert out.loc[0, "power_w"] == 5600.0
    assert out.loc[0, "energy_basis"] == estimate_basis() == "estimate: TDP × 100% utilisation"
    assert out.loc[0, "joules_per_output_token"] == 2.0
    assert out.loc[0, "g_co2e_per_1m_output_tokens"] == pytest.approx(200.0)
    assert out.loc[0, "grid_year"] == 2025


def test_measured_power_wins_over_the_estimate():
    options = frame(sweep(points=((1, 2800.0, 100.0),))).assign(measured_power_w=4200.0)
    out = energy_columns(options, {"nvidia-h100-sxm-80gb": 700.0}, GRID)
    assert out.loc[0, "energy_basis"] == BASIS_MEASURED
    assert out.loc[0, "joules_per_output_token"] == 1.5


def test_a_replica_of_two_on_a_bigger_instance_counts_its_own_accelerators():
    # 16 accelerators, 2 per replica: 8 replicas share 16,000 tok/s, 2,000 each, at 2 × 700 W.
    options = frame(
        sweep(accelerator_count=16, accelerators_per_replica=2, points=((1, 16000.0, 100.0),))
    )
    out = energy_columns(options, {"nvidia-h100-sxm-80gb": 700.0}, GRID)
    assert out.loc[0, "joules_per_output_token"] == pytest.approx(1400 / 2000)


def test_no_tdp_or_no_grid_figure_leaves_a_gap_that_says_why():
    options = frame(sweep(region="eu-nowhere-1", points=((1, 2800.0, 100.0),)))
    out = energy_columns(options, {}, GRID)
    assert out.loc[0, "energy_basis"] == BASIS_NONE
    assert np.isnan(out.loc[0, "joules_per_output_token"])
    assert out.loc[0, "grid_source"] == "no published figure for this region"
    assert np.isnan(out.loc[0, "g_co2e_per_1m_output_tokens"])


def test_the_bundled_tables_are_sourced_dated_and_name_known_accelerators():
    with (data_dir() / "accelerators.csv").open(newline="", encoding="utf-8") as handle:
        known = {row["accelerator_id"] for row in csv.DictReader(handle)}
    power = bundled_tables.accelerator_power()
    assert power and set(power) <= known
    for row in power.values():
        assert 50 <= row.tdp_w <= 2000 and row.source_url.startswith("https://")
        assert date.fromisoformat(row.source_date) <= date.today()
        assert row.confidence in {"high", "medium", "low"}
    grid = bundled_tables.grid_intensity()
    assert ("gcp", "us-central1") in grid and ("aws", "us-east-1") in grid
    for row in grid.values():
        assert 0 < row.g_co2e_per_kwh < 1500 and row.source_url.startswith("https://")
        assert 2015 <= row.year <= date.today().year
        assert row.confidence in {"high", "medium", "low"}


def test_a_bad_table_row_names_the_file_line_and_field(tmp_path, monkeypatch):
    bad = tmp_path / "grid_intensity.csv"
    bad.write_text(
        "provider,region,location,g_co2e_per_kwh,year,source_title,source_url,basis,confidence\n"
        "aws,us-east-1,Virginia,lots,2025,t,https://example.org,b,high\n"
    )
    monkeypatch.setattr(bundled_tables, "data_dir", lambda: tmp_path)
    bundled_tables.grid_intensity.cache_clear()
    try:
        with pytest.raises(ValueError, match=r"grid_intensity.csv:2: g_co2e_per_kwh 'lots'"):
            bundled_tables.grid_intensity()
    finally:
        bundled_tables.grid_intensity.cache_clear()
