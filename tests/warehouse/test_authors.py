"""Every write records who made it, and a role that may not write is refused before the file is
touched."""

from datetime import date

import pytest

from tests.factories import quote, result, seeded_warehouse
from tokendesk.access import AccessDenied, Principal, Role
from tokendesk.records import SnapshotKind
from warehouse import Warehouse, catalog_queries, store
from warehouse.decisions import Decision, record_decision
from warehouse.migrations import MIGRATIONS
from warehouse.workspace_versions import example_workspace_body, save_workspace, workspace_versions

EDITOR = Principal("lee@example.com", Role.EDITOR, signed_in=True)
VIEWER = Principal("pat@example.com", Role.VIEWER, signed_in=True, sees_negotiated=False)


def test_each_write_records_its_actor(tmp_path):
    path = tmp_path / "w.duckdb"
    Warehouse.open(path).close()
    with Warehouse.open(path, actor=EDITOR) as wh:
        prices = wh.ingest_prices("aws", [quote()])
        results = wh.ingest_results("vllm-bench", [result()])
        failed = wh.record_failed_snapshot(SnapshotKind.PRICES, "gcp", "timed out")
        version = save_workspace(
            wh, example_workspace_body(), origin="dashboard", source="Workspace page"
        )
        decision = record_decision(
            wh,
            Decision(
                decided_on=date(2026, 12, 1),
                subject="h100",
                decision="defer",
                rationale="wait for quotes",
                decided_by="the CTO",
                snapshot_ids=(prices,),
            ),
        )
        snapshots = wh.snapshots().set_index("snapshot_id")
        assert {snapshots.loc[i, "created_by"] for i in (prices, results, failed)} == {
            "lee@example.com"
        }
        versions = workspace_versions(wh).set_index("version")
        assert versions.loc[version, "created_by"] == "lee@example.com"
        decisions = wh.query(
            "SELECT decided_by, created_by FROM decisions WHERE decision_id = ?", [decision]
        )
        assert list(decisions.iloc[0]) == ["the CTO", "lee@example.com"]
        history = catalog_queries.benchmark_snapshot_history(wh).set_index("snapshot_id")
        assert history.loc[results, "created_by"] == "lee@example.com"


def test_a_viewer_writes_nothing(tmp_path):
    path = tmp_path / "w.duckdb"
    seeded_warehouse(path).close()
    with Warehouse.open(path, actor=VIEWER) as wh:
        before = wh.table_counts()
        with pytest.raises(AccessDenied, match="viewer role: writing to the warehouse"):
            wh.ingest_prices("aws", [quote()])
        with pytest.raises(AccessDenied):
            wh.ingest_results("vllm-bench", [result()])
        with pytest.raises(AccessDenied):
            save_workspace(wh, example_workspace_body(), origin="dashboard", source="x")
        with pytest.raises(AccessDenied), wh.atomic():
            pass
        assert wh.table_counts() == before
        # Reading is what a viewer may do.
        assert not wh.snapshots().empty


def test_the_command_line_records_the_local_user(tmp_path, monkeypatch):
    monkeypatch.setenv("TOKENDESK_USER", "nightly-refresh")
    with Warehouse.open(tmp_path / "w.duckdb") as wh:
        snapshot = wh.ingest_prices("aws", [quote()])
        assert wh.snapshots().set_index("snapshot_id").loc[snapshot, "created_by"] == (
            "nightly-refresh"
        )


def test_an_older_warehouse_gains_the_column_and_keeps_its_rows(tmp_path, monkeypatch):
    path = tmp_path / "old.duckdb"
    # A warehouse written by the release before: its migrations only, and no workspace (the
    # current workspace code already writes the new column).
    monkeypatch.setattr(store, "MIGRATIONS", tuple(m for m in MIGRATIONS if m.version < 9))
    monkeypatch.setattr(store, "seed_workspace", lambda warehouse: None)
    with Warehouse.open(path, build=False) as old, old._transaction() as tx:
        tx.execute(
            "INSERT INTO snapshots (snapshot_id, kind, source, origin, scope, created_at, as_of,"
            " status, row_count) VALUES ('old', 'prices', 'aws', 'api', '*', now(), now(), 'ok', 0)"
        )
        assert tx.execute("SELECT max(version) FROM schema_migrations").fetchone() == (8,)
    monkeypatch.setattr(store, "MIGRATIONS", MIGRATIONS)
    with Warehouse.open(path, actor=EDITOR) as wh:
        assert wh.schema_version() == MIGRATIONS[-1].version
        after = wh.ingest_prices("aws", [quote(usd_per_hour=99.0)])
        authors = wh.snapshots().set_index("snapshot_id")["created_by"]
    assert authors["old"] == "" and authors[after] == "lee@example.com"


def test_as_names_who_a_command_line_write_is_recorded_for(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from cli.main import app
    from cli.workspace_command import register
    from tokendesk import access
    from tokendesk.paths import data_dir

    register(app)
    monkeypatch.delenv(access.USER_ENV, raising=False)
    monkeypatch.setattr(access, "_local_user_override", None)
    db = str(tmp_path / "w.duckdb")
    example = str(data_dir() / "workspace_example.yaml")
    runner = CliRunner()
    imported = runner.invoke(
        app, ["--as", "ci-importer", "workspace", "import", example, "--db", db]
    )
    assert imported.exit_code == 0, imported.output
    listed = runner.invoke(app, ["workspace", "versions", "--db", db])
    assert "ci-importer" in listed.output
    access.set_local_user(None)
    with Warehouse.open(db, read_only=True) as wh, wh.reading():
        assert workspace_versions(wh).iloc[0]["created_by"] == "ci-importer"
