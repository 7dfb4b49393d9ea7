"""Price sheets: YAML/CSV loading, row-level errors naming file/row/field, negotiated quotes."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from pricing.sheets import (
    SheetValidationError,
    fetch_sheets,
    is_expired,
    load_sheet,
    sheet_files,
)
from tokendesk.paths import data_dir
from tokendesk.records import PriceBasis, PricingModel

YAML_OK = """
format_version: 1
defaults:
  provider: lambda
  source: Lambda public pricing page
  source_url: https://lambda.ai/pricing
  observed_at: 2026-09-01
quotes:
  - {instance_type: gpu_8x_h100_sxm5, region: us-east-1, accelerator_id: nvidia-h100-sxm-80gb,
     accelerator_count: 8, pricing_model: on_demand, usd_per_hour: 23.92}
  - {instance_type: gpu_1x_gh200, region: us-east-1, accelerator_id: nvidia-gh200-96gb,
     accelerator_count: 1, pricing_model: on_demand, usd_per_accelerator_hour: 1.49}
"""


def test_yaml_sheet_loads_with_defaults(tmp_path: Path):
    path = tmp_path / "lambda.yaml"
    path.write_text(YAML_OK)
    quotes = load_sheet(path)
    assert [q.usd_per_hour for q in quotes] == [23.92, 1.49]
    assert quotes[0].provider == "lambda" and quotes[0].observed_at.date() == date(2026, 9, 1)
    assert quotes[1].price_basis is PriceBasis.PER_ACCELERATOR


def test_errors_name_file_row_and_field(tmp_path: Path):
    path = tmp_path / "bad.yaml"
    path.write_text(
        YAML_OK
        + """
  - {instance_type: x, region: r, accelerator_id: nvidia-h100-sxm, accelerator_count: 8,
     pricing_model: on_demand, usd_per_hour: 5}
  - {instance_type: y, region: r, accelerator_id: amd-mi300x-192gb, accelerator_count: 8,
     pricing_model: negotiated, usd_per_hour: 12}
  - {instance_type: z, region: r, accelerator_id: amd-mi300x-192gb, accelerator_count: 8,
     pricing_model: hourly, usd_per_hour: -1, colour: red}
"""
    )
    with pytest.raises(SheetValidationError) as info:
        load_sheet(path)
    text = str(info.value)
    assert f"{path}:3: accelerator_id:" in text and "did you mean nvidia-h100-sxm-80gb" in text
    assert f"{path}:4: quote_id: required for a negotiated quote" in text
    assert f"{path}:4: expires_on: required for a negotiated quote" in text
    assert f"{path}:5: pricing_model:" in text and f"{path}:5: colour: unknown field" in text


def test_csv_sheet_row_numbers_are_lines(tmp_path: Path):
    path = tmp_path / "neo.csv"
    path.write_text(
        "provider,region,instance_type,accelerator_id,accelerator_count,pricing_model,usd_per_hour,source,observed_at\n"
        "vultr,any,8x-mi300x,amd-mi300x-192gb,8,on_demand,17.52,Vultr pricing page,2025-01-15\n"
        "vultr,any,8x-mi300x,amd-mi300x-192gb,8,on_demand,,Vultr pricing page,2025-01-15\n"
    )
    with pytest.raises(SheetValidationError, match=r"neo.csv:3: usd_per_hour: required"):
        load_sheet(path)


def test_example_sheet_is_valid_fictitious_and_never_auto_loaded():
    path = data_dir() / "price_sheets" / "example_negotiated.yaml"
    quotes = load_sheet(path)
    assert all(q.pricing_model is PricingModel.NEGOTIATED and q.quote_id for q in quotes)
    assert all(q.vendor_contact.endswith("@example.com") for q in quotes)
    assert path not in sheet_files([path.parent])


def test_is_expired_is_valid_through_the_last_day():
    quote = load_sheet(data_dir() / "price_sheets" / "example_negotiated.yaml")[0]
    assert quote.expires_on == date(2026, 12, 31)
    assert not is_expired(quote, date(2026, 12, 31))
    assert is_expired(quote, date(2027, 1, 1))


def test_fetch_sheets_keeps_good_files_and_reports_bad_ones(tmp_path: Path):
    (tmp_path / "lambda.yaml").write_text(YAML_OK)
    (tmp_path / "broken.yaml").write_text("quotes: [1, 2")
    result = fetch_sheets(dirs=[tmp_path])
    assert len(result.quotes) == 2
    assert "broken.yaml" in result.region_errors


def test_a_bad_sheet_is_named_and_the_others_still_load(tmp_path: Path, capsys):
    from cli.main import main
    from pricing.sheets import fetch_sheets

    good = tmp_path / "good.csv"
    good.write_text(
        "provider,region,instance_type,accelerator_id,accelerator_count,pricing_model,"
        "usd_per_hour,source,observed_at\n"
        "acme,eu-1,x8,nvidia-h100-sxm-80gb,8,on_demand,20.0,acme sheet,2026-11-01\n",
        encoding="utf-8",
    )
    latin = tmp_path / "latin.csv"
    latin.write_bytes(good.read_text().replace("acme sheet", "Preisliste Müller").encode("latin-1"))
    listed = tmp_path / "listed.yaml"
    listed.write_text(
        "format_version: 1\nquotes:\n  - provider: acme\n    region: [eu-1, eu-2]\n"
        "    instance_type: x8\n    accelerator_id: nvidia-h100-sxm-80gb\n"
        "    accelerator_count: 8\n    pricing_model: on_demand\n    usd_per_hour: 20\n"
        "    source: s\n    observed_at: 2026-11-01\n",
        encoding="utf-8",
    )
    result = fetch_sheets(files=[good, latin, listed])
    assert {q.source for q in result.quotes} == {"acme sheet", "Preisliste Müller"}
    assert list(result.region_errors) == ["listed.yaml"]
    assert "region: must be a single value" in result.region_errors["listed.yaml"]
    with pytest.raises(SystemExit) as done:
        main(["prices", "integrity", "--sheet", str(listed)])
    output = capsys.readouterr()
    assert done.value.code == 2
    assert "listed.yaml:1: region: must be a single value" in " ".join(output.err.split())
    assert "Traceback" not in output.out + output.err
