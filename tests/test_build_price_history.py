"""``scripts/build_price_history.py``: AWS Price List versions -> dated price snapshots, and the
bundled ``data/price_history.csv`` it wrote, loaded by the seed beside the curated quotes.

``data/sources/aws_price_list/`` holds the kept lines of the pinned document byte for byte
(``data/sources/aws_price_list_history.yaml`` names its repository, path and commit). Expected
figures are quoted from those lines (the comment names the table row).
"""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.main import app
from tests.script_modules import load_script
from tokendesk.paths import REPO_ROOT

runner = CliRunner()


bph = load_script("build_price_history")
price_series = bph.price_series
PIN = bph.load_pin()
COPY = bph.SOURCE_COPY / PIN.path


def test_the_kept_lines_are_the_pinned_ones_and_a_rerun_writes_the_same_file():
    rows, left_out = bph.all_rows()
    history = [row for row in rows if row["seed_snapshot"] != "current"]
    written = bph.render(history + bph.series_rows())
    assert written == (REPO_ROOT / "data" / "price_history.csv").read_text(encoding="utf-8")
    # Types the catalog does not describe are named, not guessed.
    assert "p6-b300.48xlarge" in left_out and "p6-b300.48xlarge" not in {
        row["instance_type"] for row in rows
    }


def test_each_version_is_dated_by_its_publication_time():
    text = COPY.read_text(encoding="utf-8")
    # The p5.48xlarge table's row for the first version after the cut.
    assert "| `20250703204906` | 2025-06 | **$55.0400000000** |" in text
    rows, _ = bph.all_rows()
    (row,) = [
        r
        for r in rows
        if r["instance_type"] == "p5.48xlarge" and r["seed_snapshot"] == "historical 20250703204906"
    ]
    assert row["usd_per_hour"] == "55.04"
    assert row["observed_at"] == "2025-07-03"
    assert (
        "published 2025-07-03 20:49:06 UTC; the source labels it 2025-06"
        in (row["source_date_text"])
    )
    assert row["source_url"].endswith(f"/blob/{PIN.commit}/{PIN.path}")


def test_the_current_version_is_the_one_the_inventory_row_names():
    # "`Version 20260728175247`" in the PL-CUR row; p4de.24xlarge "| 27.4470500 |" in its set.
    current = {row["instance_type"]: row for row in bph.current_rows()}
    assert current["p4de.24xlarge"]["usd_per_hour"] == "27.44705"
    assert current["p4de.24xlarge"]["observed_at"] == "2026-07-28"
    assert {row["seed_snapshot"] for row in current.values()} == {"current"}


def _copy_with(tmp_path: Path, old: str, new: str) -> Path:
    folder = tmp_path / "source"
    target = folder / PIN.path
    target.parent.mkdir(parents=True)
    shutil.copyfile(COPY, target)
    text = target.read_text(encoding="utf-8")
    assert old in text
    target.write_text(text.replace(old, new, 1), encoding="utf-8")
    return folder


def test_a_changed_line_stops_the_build_naming_the_pin(tmp_path):
    folder = _copy_with(tmp_path, "**$98.3200000000** |", "**$89.3200000000** |")
    with pytest.raises(bph.HistoryError, match="not the pinned ones"):
        bph.all_rows(folder)
    out = tmp_path / "out.csv"
    assert bph.main(["--source", str(folder), "--out", str(out)]) == 1
    assert not out.exists()


def test_one_version_with_two_rates_for_a_type_is_refused():
    pin = bph.Pin(**{**PIN.__dict__})
    rates = [
        bph.Rate("p5.48xlarge", "20260728175247", "2026-07", bph.Decimal("55.04")),
        bph.Rate("p5.48xlarge", "20260728175247", "", bph.Decimal("55.14")),
    ]
    described = {"p5.48xlarge": dict.fromkeys(("accelerator_id", "accelerator_count"), "x")}
    with pytest.raises(bph.HistoryError, match="two rates"):
        bph.build_rows(pin, "20260728175247", rates, described)


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    db = tmp_path_factory.mktemp("history") / "history.duckdb"
    assert runner.invoke(app, ["db", "init", "--db", str(db)]).exit_code == 0
    return db


def test_db_info_shows_a_dated_aws_snapshot_per_version(built):
    out = runner.invoke(app, ["db", "info", "--db", str(built), "--format", "json"])
    assert out.exit_code == 0, out.output
    dated = sorted(
        s["data_as_of"]
        for s in json.loads(out.stdout)
        if s["kind"] == "prices" and s["source"] == "aws" and s["data_as_of"]
    )
    with (REPO_ROOT / "data" / "price_history.csv").open(newline="", encoding="utf-8") as handle:
        versions = {
            row["observed_at"] for row in csv.DictReader(handle) if row["provider"] == "aws"
        }
    assert versions <= set(dated)
    # The 24 months before this build's data date: 2024-12 to 2026-12.
    assert len([d for d in dated if "2024-12-03" <= d <= "2026-12-03"]) >= 6


def test_futures_compare_sees_the_june_2025_cut_on_its_date(built):
    out = runner.invoke(
        app,
        [
            "futures",
            "compare",
            "--db",
            str(built),
            "--from",
            "2025-06-01",
            "--to",
            "2025-07-31",
            "--format",
            "json",
        ],
    )
    assert out.exit_code == 0, out.output
    changes = json.loads(out.stdout)["price_changes"]
    (p5,) = [
        c
        for c in changes
        if c["instance_type"] == "p5.48xlarge"
        and c["pricing_model"] == "on_demand"
        and c["region"] == "us-east-1"
    ]
    # The Price List versions of 2025-05-29 ($98.32) and 2025-07-03 ($55.04).
    assert (p5["usd_per_hour_from"], p5["usd_per_hour_to"]) == (98.32, 55.04)


SERIES = {series.provider: series for series in price_series.load_series(bph.SERIES_MANIFEST)}


def _series_rows(provider: str, commit: str) -> list[dict[str, str]]:
    return [
        row
        for row in bph.series_rows()
        if row["provider"] == provider and row["seed_snapshot"] == f"historical {commit[:12]}"
    ]


def test_a_gcp_version_is_dated_by_its_generation_time_and_keeps_both_prices():
    commit = "fd66b26ff84fee5cdd94f341ea89206e76c06b99"
    copy = SERIES["gcp"].folder(bph.SERIES_COPY, commit) / "pricing.yml"
    text = copy.read_text(encoding="utf-8")
    # The file's own date and a3-highgpu-8g's us-central1 lines, as pricing.yml prints them.
    assert "  timestamp: 1785391997" in text and "  generated: Thu Jul 30 06:13:17 2026" in text
    assert "          hour_spot: 50.6095408219178" in text
    rows = {
        (r["region"], r["instance_type"], r["pricing_model"]): r
        for r in _series_rows("gcp", commit)
    }
    spot = rows["us-central1", "a3-highgpu-8g", "spot"]
    assert spot["usd_per_hour"] == "50.609541"  # six decimals: the YAML float's binary noise off
    assert spot["observed_at"] == "2026-07-30"
    assert rows["us-central1", "a3-highgpu-8g", "on_demand"]["usd_per_hour"] == "88.49"
    assert spot["accelerator_id"] == "nvidia-h100-sxm-80gb" and spot["accelerator_count"] == "8"


def test_an_azure_version_maps_meters_to_sizes_and_is_dated_by_the_check_time():
    commit = "43504f860815e18876d966704d8e3b9b85d0dca5"
    folder = SERIES["azure"].folder(bph.SERIES_COPY, commit)
    checked = json.loads((folder / "data/latest/last-checked.json").read_text(encoding="utf-8"))
    assert checked["at"].startswith("2026-08-22T03:25")
    rows = {(r["instance_type"], r["pricing_model"]): r for r in _series_rows("azure", commit)}
    # The kept item whose meterName is "ND96isrH100v5" ("retailPrice": 127.816): the size
    # Standard_ND96isr_H100_v5, not the cheaper ND96is H100 v5 meter of the same product.
    h100 = rows["Standard_ND96isr_H100_v5", "on_demand"]
    assert h100["usd_per_hour"] == "127.816" and h100["region"] == "westeurope"
    assert h100["observed_at"] == "2026-08-22"
    # ND A100 v4's meter names the part (ND96asr_A100_v4); the size does not.
    assert ("Standard_ND96asr_v4", "on_demand") in rows


def test_azure_keeps_linux_pay_as_you_go_and_spot_only():
    base = {"armRegionName": "westeurope", "unitOfMeasure": "1 Hour"}
    items = {
        "linux": {
            **base,
            "meterName": "NC24ads_A100_v4",
            "productName": "NCads A100 v4 Series Linux",
        },
        "spot": {
            **base,
            "meterName": "NC24ads_A100_v4 Spot",
            "productName": "NCads A100 v4 Series Linux",
        },
        "windows": {
            **base,
            "meterName": "NC24ads_A100_v4",
            "productName": "NCads A100 v4 Series Windows",
        },
        "low": {
            **base,
            "meterName": "NC24ads_A100_v4 Low Priority",
            "productName": "NCads A100 v4 Series Linux",
        },
        "other region": {
            **base,
            "armRegionName": "eastus",
            "meterName": "NC24ads_A100_v4",
            "productName": "x",
        },
        "other size": {**base, "meterName": "NC24ads_A10_v4", "productName": "x"},
    }
    kept = price_series.azure_kept_items(items, ["Standard_NC24ads_A100_v4"], ["westeurope"])
    assert sorted(kept) == ["linux", "spot"]


def test_a_changed_series_copy_stops_the_build(tmp_path):
    commit = "fd66b26ff84fee5cdd94f341ea89206e76c06b99"
    series = SERIES["gcp"]
    source = series.folder(bph.SERIES_COPY, commit) / "pricing.yml"
    target = series.folder(tmp_path, commit) / "pricing.yml"
    target.parent.mkdir(parents=True)
    target.write_text(
        source.read_text(encoding="utf-8").replace(
            "hour_spot: 50.6095408219178", "hour_spot: 5.06"
        ),
        encoding="utf-8",
    )
    (version,) = [v for v in series.versions if v.commit == commit]
    described = bph.catalog_descriptions(bph.CATALOG_CSV, "gcp")
    with pytest.raises(price_series.SeriesError, match="not what is pinned"):
        price_series.gcp_version(series, version, tmp_path, described)


def test_db_info_has_six_dated_snapshots_for_each_cloud_in_two_years(built):
    out = runner.invoke(app, ["db", "info", "--db", str(built), "--format", "json"])
    dated: dict[str, set[str]] = {}
    for s in json.loads(out.stdout):
        if s["kind"] == "prices" and s["data_as_of"]:
            dated.setdefault(s["source"], set()).add(s["data_as_of"])
    for provider in ("aws", "gcp", "azure"):
        recent = [d for d in dated[provider] if "2024-12-03" <= d <= "2026-12-03"]
        assert len(recent) >= 6, (provider, sorted(dated[provider]))


def test_an_azure_version_whose_dating_file_changed_is_refused(tmp_path):
    commit = "43504f860815e18876d966704d8e3b9b85d0dca5"
    series = SERIES["azure"]
    for path in (series.path, series.dated_by):
        source = series.folder(bph.SERIES_COPY, commit) / path
        target = series.folder(tmp_path, commit) / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(source.read_text(encoding="utf-8"), encoding="utf-8")
    dated = series.folder(tmp_path, commit) / series.dated_by
    dated.write_text(dated.read_text(encoding="utf-8").replace("2026-08-22", "2025-08-22"))
    (version,) = [v for v in series.versions if v.commit == commit]
    sizes = sorted(bph.catalog_descriptions(bph.CATALOG_CSV, "azure"))
    with pytest.raises(price_series.SeriesError, match="sha256 .* is not the pinned one"):
        price_series.azure_version(series, version, tmp_path, sizes)
