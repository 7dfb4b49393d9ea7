"""Snapshots, currency and the all-or-nothing ingest."""

import shutil
from datetime import datetime
from pathlib import Path

import pytest

from pricing.integrity import check_price_file
from tests.factories import content_digest, quote, seeded_warehouse
from tokendesk.paths import data_dir
from tokendesk.records import SnapshotKind, SnapshotStatus
from warehouse import Warehouse
from warehouse.migrations import MIGRATIONS
from warehouse.seed import SeedFileError, ingest_price_file, ingest_result_file


def test_first_open_builds_from_data_with_provenance(seeded):
    counts = seeded.table_counts()
    assert counts["price_quotes"] > 50 and counts["benchmark_results"] > 50
    assert seeded.schema_version() == MIGRATIONS[-1].version
    # Every row has a source and either a stated date or the source's own words for its date.
    missing = seeded.query(
        "SELECT count(*) AS n FROM price_quotes WHERE source = ''"
        " OR (observed_at IS NULL AND source_date_text = '')"
    )
    assert missing.n[0] == 0
    missing = seeded.query(
        "SELECT count(*) AS n FROM benchmark_results WHERE source_url = ''"
        " OR (measured_at IS NULL AND source_date_text = '')"
    )
    assert missing.n[0] == 0


def test_historical_seed_rows_are_kept_but_not_current(seeded):
    # The seed, the market catalog and the Price List's earlier versions keep the pre-cut list
    # price as history (the market in three regions); only the post-cut list price is current.
    old = seeded.query(
        "SELECT DISTINCT usd_per_hour FROM price_quotes WHERE instance_type = "
        "'p5.48xlarge' AND pricing_model = 'on_demand'"
    )
    # $55.04 and $98.32: the Price List's rates after and before the June 2025 cut
    # (data/sources/aws_price_list/, the p5.48xlarge table).
    assert sorted(old.usd_per_hour) == [55.04, 98.32]
    current = seeded.query(
        "SELECT usd_per_hour FROM current_prices WHERE instance_type = "
        "'p5.48xlarge' AND pricing_model = 'on_demand'"
    )
    assert list(current.usd_per_hour) == [55.04]
    # Azure's 2023 ND H100 v5 list prices (the seed's northcentralus rows: 117.984, 106.186 and
    # spot 29.496) are history; the market catalog's own northcentralus quotes are current.
    stale = seeded.query(
        "SELECT count(*) AS n FROM current_prices WHERE region = 'northcentralus'"
        " AND usd_per_hour IN (117.984, 106.186, 29.496)"
    )
    assert stale.n[0] == 0


def test_a_newer_snapshot_supersedes_only_the_regions_it_covers(empty_warehouse):
    wh = empty_warehouse
    wh.ingest_prices(
        "aws",
        [quote(region="us-east-1"), quote(region="us-west-2", usd_per_hour=70.0)],
        as_of=datetime(2026, 1, 1),
    )
    wh.ingest_prices(
        "aws",
        [quote(region="us-east-1", usd_per_hour=60.0)],
        scope=["us-east-1"],
        as_of=datetime(2026, 6, 1),
    )
    current = {q.region: q.usd_per_hour for q in wh.current_price_quotes("aws")}
    assert current == {"us-east-1": 60.0, "us-west-2": 70.0}
    assert len(wh.query("SELECT * FROM price_quotes")) == 3  # nothing deleted


def test_failed_and_partial_snapshots_leave_the_last_good_one_current(empty_warehouse):
    wh = empty_warehouse
    wh.ingest_prices("aws", [quote()], as_of=datetime(2026, 1, 1))
    wh.record_failed_snapshot(SnapshotKind.PRICES, "aws", "ThrottlingException after 3 retries")
    wh.ingest_prices(
        "aws",
        [quote(usd_per_hour=1.0)],
        status=SnapshotStatus.PARTIAL,
        error="timeout in eu-west-1",
    )
    assert [q.usd_per_hour for q in wh.current_price_quotes()] == [63.296]
    assert list(wh.snapshots().status) == ["ok", "failed", "partial"]


def test_quarantined_rows_are_kept_but_not_current(empty_warehouse):
    wh = empty_warehouse
    snapshot = wh.ingest_prices(
        "aws",
        [quote(), quote(pricing_model="spot", usd_per_hour=99.0)],
        quarantine={1: "spot above on-demand"},
        integrity=[("spot <= on-demand", 1, 1, "p5en.48xlarge")],
    )
    assert [q.pricing_model for q in wh.current_price_quotes()] == ["on_demand"]
    assert wh.integrity_report(snapshot).failed.tolist() == [1]
    with pytest.raises(Exception, match="outside"):
        wh.ingest_prices("aws", [quote()], quarantine={5: "x"})


def _copy_with_bad_row(tmp_path: Path, name: str, row_no: int, column: str, value: str) -> Path:
    import csv

    with (data_dir() / name).open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    rows[row_no - 2][column] = value
    bad = tmp_path / f"bad_{name}"
    with bad.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return bad


@pytest.mark.parametrize(
    ("name", "row_no", "column", "value", "expected_field"),
    [
        ("seed_prices.csv", 7, "usd_per_hour", "-3", "usd_per_hour"),
        ("seed_prices.csv", 12, "accelerator_id", "nvidia-h100-80gb", "accelerator_id"),
        ("seed_results.csv", 30, "ttft_ms_p50", "99999", "ttft"),
        ("seed_results.csv", 5, "output_tok_s", "fast", "output_tok_s"),
    ],
)
def test_malformed_file_leaves_the_warehouse_unchanged(
    seeded, tmp_path, name, row_no, column, value, expected_field
):
    bad = _copy_with_bad_row(tmp_path, name, row_no, column, value)
    before = content_digest(seeded)
    with pytest.raises(SeedFileError) as caught:
        if name.startswith("seed_prices"):
            ingest_price_file(seeded, bad, check=check_price_file)
        else:
            ingest_result_file(seeded, bad)
    assert caught.value.path == bad and caught.value.row == row_no
    assert expected_field in caught.value.field or expected_field in caught.value.message
    assert content_digest(seeded) == before


def test_database_error_mid_ingest_rolls_back(seeded, monkeypatch):
    before = content_digest(seeded)
    from warehouse import snapshot_writes

    def explode(*args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(snapshot_writes, "_insert_frame", explode)
    with pytest.raises(RuntimeError, match="disk full"):
        seeded.ingest_prices("aws", [quote()])
    assert content_digest(seeded) == before


def test_read_only_open_builds_a_missing_file_and_refuses_writes(tmp_path):
    path = tmp_path / "sub" / "w.duckdb"
    with Warehouse.open(path, read_only=True, seed_check=check_price_file) as wh:
        assert wh.table_counts()["price_quotes"] > 0
        with pytest.raises(Exception, match="read-only"):
            wh.ingest_prices("aws", [quote()])


def test_reopen_applies_no_migration_twice(tmp_path):
    path = tmp_path / "w.duckdb"
    seeded_warehouse(path).close()
    copy = tmp_path / "copy.duckdb"
    shutil.copy(path, copy)
    with Warehouse.open(copy) as wh:
        assert wh.query("SELECT count(*) AS n FROM schema_migrations").n[0] == len(MIGRATIONS)
        assert wh.snapshots().shape[0] == Warehouse.open(path, read_only=True).snapshots().shape[0]


def test_observed_at_is_stored_in_utc(empty_warehouse):
    from datetime import timedelta, timezone

    local = datetime(2026, 8, 6, 12, 0, tzinfo=timezone(timedelta(hours=2)))
    empty_warehouse.ingest_prices("aws", [quote(observed_at=local)])
    stored = empty_warehouse.query("SELECT observed_at FROM price_quotes").observed_at[0]
    assert stored.to_pydatetime() == datetime(2026, 8, 6, 10, 0)
