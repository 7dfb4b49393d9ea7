"""A source that states no date reads "date unknown" on the Overview and in `db info`: its
snapshot's write time is never shown as the data's date, nor counted fresh."""

from __future__ import annotations

from datetime import UTC, datetime

import pandas as pd
import pytest
from typer.testing import CliRunner

from app.models import overview
from cli.main import app
from tests.factories import quote
from warehouse import Warehouse
from warehouse.catalog_queries import freshness

TODAY = datetime.now(UTC).strftime("%Y-%m-%d")


@pytest.fixture
def undated(tmp_path):
    """One dated aws quote, and one undated quote from a catalog ("snapshot date unknown")."""
    path = tmp_path / "w.duckdb"
    with Warehouse.open(path) as warehouse:
        warehouse.ingest_prices(
            "oci-catalog",
            [
                quote(
                    provider="oci",
                    region="global",
                    instance_type="BM.GPU.A100-v2.8",
                    accelerator_id="nvidia-a100-80gb",
                    usd_per_hour=32.0,
                    observed_at=None,
                    source_date_text="snapshot date unknown (2024-2025)",
                )
            ],
            origin="sheet",
        )
    return path


def test_the_overview_says_date_unknown_not_fresh(undated):
    with Warehouse.open(undated, read_only=True) as warehouse:
        fresh = freshness(warehouse)
    row = fresh[fresh["source"] == "oci-catalog"].iloc[0]
    assert not row["date_known"] and pd.isna(row["data_as_of"]) and pd.isna(row["age_days"])
    table, stale = overview.freshness_table(fresh)
    shown = table.frame[table.frame["Source"] == "oci-catalog"].iloc[0]
    assert shown["State"] == "⚪ date unknown"
    assert shown["Data as of"] == "date unknown"
    assert "fresh" not in " ".join(str(v) for v in shown.values)


def test_db_info_says_date_unknown_for_the_undated_snapshot(undated):
    with Warehouse.open(undated, read_only=True) as warehouse:
        snapshot_id = warehouse.snapshots().query("source == 'oci-catalog'")["snapshot_id"].iloc[0]
    done = CliRunner().invoke(app, ["db", "info", "--db", str(undated)])
    assert done.exit_code == 0, done.output
    line = next(line for line in done.stdout.splitlines() if snapshot_id in line)
    data_as_of = line.split(snapshot_id, 1)[1]
    assert "date unknown" in data_as_of
    # The written column still says when it was written: today, once, never as the data's date.
    assert data_as_of.count(TODAY) == 1, line
