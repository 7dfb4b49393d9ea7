"""Retracting a benchmark import: append-only, gone from current results and every cost."""

import pytest

from tests.factories import content_digest, result, seeded_warehouse
from tokendesk.records import SnapshotKind
from warehouse import RetractionError, Warehouse
from warehouse.as_of import costs_as_of, results_as_of
from warehouse.catalog_queries import benchmark_snapshot_history, current_benchmark_results

#: A result no seed row shares, so every view can be asked about it alone.
MODEL = "retraction-probe-70b"


@pytest.fixture
def warehouse():
    with seeded_warehouse(":memory:") as wh:
        yield wh


def _import(wh: Warehouse) -> str:
    return wh.ingest_results("import:test", [result(model=MODEL)], origin="import")


def test_a_retracted_import_leaves_current_results_and_every_cost(warehouse):
    snapshot = _import(warehouse)
    assert MODEL in set(current_benchmark_results(warehouse)["model"])
    assert len(warehouse.cost_options(model=MODEL)) > 0
    assert MODEL in set(results_as_of(warehouse, "2099-01-01")["model"])
    assert MODEL in set(costs_as_of(warehouse, "2099-01-01")["model"])

    warehouse.retract_snapshot(snapshot, "a test run, not a measurement", "ana")

    assert MODEL not in set(current_benchmark_results(warehouse)["model"])
    assert (
        warehouse.query("SELECT count(*) n FROM current_results WHERE model = ?", [MODEL]).n[0] == 0
    )
    assert len(warehouse.cost_options(model=MODEL)) == 0
    assert MODEL not in set(results_as_of(warehouse, "2099-01-01")["model"])
    assert MODEL not in set(costs_as_of(warehouse, "2099-01-01")["model"])
    # Append-only: the snapshot and its results are still there, with the marker beside them.
    stored = warehouse.query(
        "SELECT count(*) n FROM benchmark_results WHERE snapshot_id = ?", [snapshot]
    )
    assert stored.n[0] == 1
    history = benchmark_snapshot_history(warehouse).set_index("snapshot_id")
    row = history.loc[snapshot]
    assert (row["retraction_reason"], row["retracted_by"]) == (
        "a test run, not a measurement",
        "ana",
    )
    assert row["status"] == "ok" and row["retracted_at"] is not None


def test_other_imports_stay_current(warehouse):
    kept = warehouse.ingest_results("import:kept", [result(model=MODEL, runtime="vllm")])
    retracted = _import(warehouse)
    warehouse.retract_snapshot(retracted, "duplicate", "ana")
    current = current_benchmark_results(warehouse)
    assert list(current.loc[current["model"] == MODEL, "snapshot_id"]) == [kept]


def test_retracting_twice_is_refused_and_changes_nothing(warehouse):
    snapshot = _import(warehouse)
    warehouse.retract_snapshot(snapshot, "a test run", "ana")
    before = content_digest(warehouse)
    with pytest.raises(
        RetractionError,
        match=rf"snapshot {snapshot} was already retracted on .* by ana: a test run",
    ):
        warehouse.retract_snapshot(snapshot, "again", "bo")
    assert content_digest(warehouse) == before


@pytest.mark.parametrize(
    ("snapshot", "reason", "by", "message"),
    [
        (
            "benchmarks-nothing-like-this",
            "wrong",
            "ana",
            "no snapshot 'benchmarks-nothing-like-this'; `tokendesk db info` lists",
        ),
        (None, "   ", "ana", "give a reason for the retraction"),
        (None, "wrong", " ", "say who retracts it"),
    ],
)
def test_a_bad_retraction_names_what_is_wrong_and_changes_nothing(
    warehouse, snapshot, reason, by, message
):
    good = _import(warehouse)
    before = content_digest(warehouse)
    with pytest.raises(RetractionError, match=message.replace("(", r"\(").replace("`", "`")):
        warehouse.retract_snapshot(snapshot or good, reason, by)
    assert content_digest(warehouse) == before


def test_seed_price_snapshots_and_failed_imports_are_not_retracted(warehouse):
    # A price file ingested by hand is retracted like an import (tests/cli/test_price_hold.py);
    # the bundled seed's snapshot is not: the next refresh supersedes it.
    prices = warehouse.snapshots(SnapshotKind.PRICES)["snapshot_id"].iloc[0]
    failed = warehouse.record_failed_snapshot(
        SnapshotKind.BENCHMARKS, "import:x", "bad file", origin="import"
    )
    before = content_digest(warehouse)
    with pytest.raises(RetractionError, match="holds prices from seed; only price files"):
        warehouse.retract_snapshot(prices, "wrong", "ana")
    with pytest.raises(RetractionError, match="is a failed import and holds no current results"):
        warehouse.retract_snapshot(failed, "wrong", "ana")
    assert content_digest(warehouse) == before
