"""Team mode: the same warehouse on DuckLake, its catalog in a real PostgreSQL server and its data
files in a local directory or on an S3-compatible server (moto). Nothing here is mocked: the
writers are separate processes, the catalog is PostgreSQL, the files are Parquet."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, date, datetime
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from cli.main import app
from pricing.integrity import check_price_file
from tests.factories import quote, seeded_warehouse
from tests.lake_servers import PostgresServer, S3Server
from tokendesk.paths import REPO_ROOT
from warehouse import Warehouse, WarehouseError
from warehouse.decisions import Decision, record_decision
from warehouse.dialect import DialectError, embedded_sql, lake_sql
from warehouse.migrations import MIGRATIONS
from warehouse.snapshot_writes import RetractionError
from warehouse.transfer import CURRENT_VIEWS, TransferError

#: A hang guard for the helper processes, not a timing assertion.
PROCESS_LIMIT_S = 600

#: A writer process: opens the lake, says "ready", waits for the go file, then writes ``count``
#: price snapshots of its own source, one transaction each, printing each snapshot id.
WRITER = """
import os, sys, time
from datetime import UTC, datetime
from pricing.integrity import check_price_file
from tests.factories import quote, seeded_warehouse
from warehouse import Warehouse
target, data_path, name, count, go = sys.argv[1:6]
with Warehouse.open(target, data_path=data_path) as wh:
    print("ready", flush=True)
    deadline = time.monotonic() + 600  # never outlive a test that failed before saying go
    while not os.path.exists(go):
        if time.monotonic() > deadline:
            sys.exit("no go file")
        time.sleep(0.01)
    for i in range(int(count)):
        q = quote(source=name, usd_per_hour=60.0 + i, observed_at=datetime.now(UTC))
        print(wh.ingest_prices(f"test:{name}", [q], origin="test"), flush=True)
"""

#: Reads the lake from a fresh process: snapshot count and current price count.
READER = """
import sys
from warehouse import Warehouse
with Warehouse.open(sys.argv[1], data_path=sys.argv[2], read_only=True) as wh:
    print(wh.table_counts()["snapshots"], len(wh.query("SELECT * FROM current_prices")))
"""


def _python(script: str, *args: str, env: dict[str, str] | None = None) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", script, *args],
        cwd=REPO_ROOT,
        env={**os.environ, **(env or {})},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _snapshot_count(warehouse: Warehouse) -> int:
    return int(warehouse.query("SELECT count(*) AS n FROM snapshots")["n"][0])


@pytest.fixture(scope="module")
def built_lake(
    postgres: PostgresServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, str]]:
    """A lake built from the bundled data/, as a team's first start builds it: (target, data)."""
    target = postgres.create_database("lake_built")
    data_path = str(tmp_path_factory.mktemp("lake-data"))
    Warehouse.open(target, data_path=data_path, seed_check=check_price_file).close()
    yield target, data_path


# -- the DDL each engine takes -----------------------------------------------------------------
def test_the_lake_ddl_keeps_no_constraint_that_ducklake_refuses() -> None:
    for migration in MIGRATIONS:
        translated = lake_sql(migration.sql)
        for word in ("PRIMARY KEY", "REFERENCES", "CHECK", "SEQUENCE", "nextval"):
            assert word not in translated, (migration.version, word)
    # What the constraints did not guard stays: NOT NULL and the defaults.
    assert "snapshot_id       VARCHAR NOT NULL" in lake_sql(MIGRATIONS[0].sql)
    assert "DEFAULT ''" in lake_sql(MIGRATIONS[3].sql)


def test_a_constraint_the_translation_does_not_know_fails_loudly() -> None:
    with pytest.raises(DialectError, match="UNIQUE"):
        lake_sql("CREATE TABLE t (a VARCHAR UNIQUE);")


def test_the_embedded_ddl_builds_the_same_not_null_columns() -> None:
    """DuckDB 1.5 cannot add a NOT NULL column in one statement; two statements give the same
    column: existing rows take the default, and NULL is refused afterwards."""
    sql = MIGRATIONS[3].sql
    assert embedded_sql(sql) != sql
    assert embedded_sql(MIGRATIONS[0].sql) == MIGRATIONS[0].sql  # only what 1.5 refuses changes
    with Warehouse.open(":memory:", build=False) as warehouse:
        nullable = dict(
            warehouse.query(
                "SELECT column_name, is_nullable FROM information_schema.columns"
                " WHERE table_name = 'benchmark_results'"
                " AND column_name IN ('nodes', 'plausibility_flag', 'measured_at')"
            ).itertuples(index=False)
        )
        assert nullable == {"nodes": "NO", "plausibility_flag": "NO", "measured_at": "YES"}
        with pytest.raises(duckdb.ConstraintException):
            warehouse.cursor().execute(
                "INSERT INTO price_quotes (snapshot_id, provider, region, instance_type,"
                " accelerator_id, accelerator_count, pricing_model, usd_per_hour, price_basis,"
                " source, source_url, confidence, notes, source_date_text) VALUES"
                " ('x', 'p', 'r', 'i', 'a', 1, 'on_demand', 1.0, 'b', 's', 'u', 'c', 'n', NULL)"
            )


# -- a lake built like a new file ---------------------------------------------------------------
def test_a_new_lake_holds_what_a_new_file_holds(built_lake: tuple[str, str]) -> None:
    target, data_path = built_lake
    with (
        Warehouse.open(target, data_path=data_path, read_only=True) as lake,
        seeded_warehouse(":memory:") as embedded,
    ):
        assert lake.is_lake and not embedded.is_lake
        assert lake.schema_version() == embedded.schema_version()
        assert lake.table_counts() == embedded.table_counts()
        columns = "provider, region, instance_type, pricing_model, usd_per_hour, price_id"
        sql = f"SELECT {columns} FROM current_prices ORDER BY ALL"
        assert lake.query(sql).equals(embedded.query(sql))
        costs = "provider, instance_type, model, usd_per_1k_output_tokens"
        assert (
            lake.cost_options()[costs.split(", ")]
            .reset_index(drop=True)
            .equals(embedded.cost_options()[costs.split(", ")].reset_index(drop=True))
        )
    assert list(Path(data_path).rglob("*.parquet")), "the lake's data files are Parquet"


def test_the_lake_refuses_what_the_embedded_keys_refused(built_lake: tuple[str, str]) -> None:
    """Without primary keys, the store itself keeps one retraction per snapshot and gives every
    row a new id."""
    target, data_path = built_lake
    with Warehouse.open(target, data_path=data_path) as lake:
        first = lake.ingest_results("test:retract", [_result()], origin="test")
        second = lake.ingest_results("test:retract", [_result()], origin="test")
        lake.retract_snapshot(first, "a test run", "ana")
        with pytest.raises(RetractionError, match="already retracted"):
            lake.retract_snapshot(first, "again", "ana")
        ids = lake.query(
            "SELECT result_id FROM benchmark_results WHERE snapshot_id IN (?, ?)", [first, second]
        )["result_id"]
        assert ids.is_unique and len(ids) == 2
        counts = lake.query(
            "SELECT count(*) AS n, count(DISTINCT price_id) AS d FROM price_quotes"
        ).iloc[0]
        assert counts["n"] == counts["d"]
        current = lake.query("SELECT snapshot_id FROM current_results")["snapshot_id"]
        assert first not in set(current) and second in set(current)
        # Two retractions committed at the same instant both land (no primary key refuses the
        # second); the history still shows one marker per snapshot, the first.
        with lake.atomic() as batch, batch._transaction() as tx:
            tx.execute(
                "INSERT INTO retractions SELECT snapshot_id, 'at once', 'zoe',"
                " retracted_at + INTERVAL 1 SECOND FROM retractions WHERE snapshot_id = ?",
                [first],
            )
        markers = lake.retractions()
        assert list(markers.loc[markers.snapshot_id == first, "retracted_by"]) == ["ana"]


def _result():
    from tests.factories import result

    return result(measured_at=datetime.now(UTC))


# -- many processes ---------------------------------------------------------------------------
def test_two_processes_writing_at_once_both_land(
    built_lake: tuple[str, str], tmp_path: Path
) -> None:
    target, data_path = built_lake
    with Warehouse.open(target, data_path=data_path, read_only=True) as reader:
        before = _snapshot_count(reader)
    go, per_writer = tmp_path / "go", 4
    writers = [
        _python(WRITER, target, data_path, name, str(per_writer), str(go)) for name in ("a", "b")
    ]
    for writer in writers:
        assert writer.stdout is not None
        assert writer.stdout.readline().strip() == "ready", writer.stderr
    go.touch()  # both start writing together
    written: list[str] = []
    for writer in writers:
        out, err = writer.communicate(timeout=PROCESS_LIMIT_S)
        assert writer.returncode == 0, err
        written += out.split()
    assert len(written) == 2 * per_writer
    with Warehouse.open(target, data_path=data_path, read_only=True) as reader:
        assert _snapshot_count(reader) == before + 2 * per_writer  # no snapshot lost
        landed = reader.query(
            "SELECT s.snapshot_id, count(q.price_id) AS rows FROM snapshots s"
            " JOIN price_quotes q USING (snapshot_id) WHERE s.source IN ('test:a', 'test:b')"
            " GROUP BY s.snapshot_id"
        )
        assert set(landed["snapshot_id"]) == set(written)
        assert set(landed["rows"]) == {1}
        ids = reader.query("SELECT price_id FROM price_quotes")["price_id"]
        assert ids.is_unique


def test_a_reader_sees_the_last_committed_snapshot_and_nothing_uncommitted(
    built_lake: tuple[str, str],
) -> None:
    target, data_path = built_lake
    reader = Warehouse.open(target, data_path=data_path, read_only=True)
    try:
        before = _snapshot_count(reader)
        # Another process commits: the open reader sees it on its next query, without reopening.
        writer = _python(WRITER, target, data_path, "elsewhere", "1", os.devnull)
        out, err = writer.communicate(timeout=PROCESS_LIMIT_S)
        assert writer.returncode == 0, err
        assert _snapshot_count(reader) == before + 1
        # A write still open in its transaction is invisible until it commits.
        with Warehouse.open(target, data_path=data_path) as writer_here:
            with writer_here.atomic():
                writer_here.ingest_prices("test:pending", [quote(source="pending")], origin="test")
                assert _snapshot_count(reader) == before + 1
            assert _snapshot_count(reader) == before + 2
    finally:
        reader.close()


#: Opens (and so builds) a lake, without the seed data, and says what it found.
STARTER = """
import sys
from warehouse import Warehouse
with Warehouse.open(sys.argv[1], data_path=sys.argv[2], build=False) as wh:
    print(wh.schema_version())
"""


def test_processes_starting_together_on_a_new_lake_build_it_once(
    lake_target: str, tmp_path: Path
) -> None:
    starters = [_python(STARTER, lake_target, str(tmp_path)) for _ in range(3)]
    for starter in starters:
        out, err = starter.communicate(timeout=PROCESS_LIMIT_S)
        assert starter.returncode == 0, err
        assert int(out) == MIGRATIONS[-1].version
    with Warehouse.open(lake_target, data_path=str(tmp_path), read_only=True) as lake:
        ledger = lake.query("SELECT version FROM schema_migrations ORDER BY version")["version"]
        assert list(ledger) == [m.version for m in MIGRATIONS]  # each applied exactly once
        assert len(lake.query("SELECT * FROM workspaces")) == 1  # the example, seeded once
        catalog = lake.query("SELECT count(DISTINCT accelerator_id) AS n FROM accelerators")
        assert lake.table_counts()["accelerators"] == int(catalog["n"][0])


# -- object storage ---------------------------------------------------------------------------
def test_data_files_on_s3(lake_target: str, s3: S3Server, monkeypatch: pytest.MonkeyPatch) -> None:
    s3.client().create_bucket(Bucket="team-lake")
    for name, value in s3.environment().items():
        monkeypatch.setenv(name, value)
    data_path = "s3://team-lake/tokendesk"
    quotes = [quote(region=f"test-{i}", usd_per_hour=10.0 + i) for i in range(200)]
    with Warehouse.open(lake_target, data_path=data_path, build=False) as lake:
        snapshot = lake.ingest_prices("test:s3", quotes, origin="test")
    keys = [
        item["Key"]
        for item in s3.client()
        .list_objects_v2(Bucket="team-lake", Prefix="tokendesk/")
        .get("Contents", [])
    ]
    assert any(key.endswith(".parquet") and "/price_quotes/" in key for key in keys), keys
    # A fresh process reads the rows back from the bucket.
    reader = _python(READER, lake_target, data_path, env=s3.environment())
    out, err = reader.communicate(timeout=PROCESS_LIMIT_S)
    assert reader.returncode == 0, err
    snapshots, current = (int(word) for word in out.split())
    assert (snapshots, current) == (1, 200)
    assert snapshot


# -- configuration errors ---------------------------------------------------------------------
def test_an_unreachable_catalog_is_a_clear_error_without_the_password(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tests.lake_servers import free_port

    monkeypatch.setenv("TOKENDESK_WRITE_WAIT_S", "0")  # a writer would wait for it to answer
    target = f"ducklake:postgres:host=127.0.0.1 port={free_port()} dbname=x password=sekrit"
    with pytest.raises(WarehouseError) as caught:
        Warehouse.open(target, data_path="/nonexistent-unused")
    assert "cannot open the DuckLake catalog x on 127.0.0.1" in str(caught.value)
    assert "does not answer (connection refused)" in str(caught.value)
    assert "sekrit" not in str(caught.value)


# -- moving an embedded warehouse into team mode ----------------------------------------------
def test_db_migrate_copies_every_snapshot_and_keeps_current_views(
    lake_target: str, tmp_path: Path
) -> None:
    source_path = tmp_path / "tokendesk.duckdb"
    with seeded_warehouse(source_path) as source:
        extra = source.ingest_prices("test:extra", [quote(source="extra")], origin="test")
        imported = source.ingest_results("test:import", [_result()], origin="test")
        source.retract_snapshot(imported, "a test run", "ana")
        record_decision(
            source,
            Decision("nvidia-h200-141gb", "defer", "wait", "ana", date(2026, 8, 6), (extra,)),
        )
    data_path = tmp_path / "lake"
    outcome = CliRunner().invoke(
        app,
        ["db", "migrate", "--db", str(source_path), "--to", lake_target]
        + ["--data-path", str(data_path)],
    )
    assert outcome.exit_code == 0, outcome.output
    assert "Equal before and after" in outcome.output
    tables = ("snapshots", "price_quotes", "benchmark_results", "integrity_checks")
    with (
        Warehouse.open(source_path, read_only=True) as source,
        Warehouse.open(lake_target, data_path=str(data_path)) as lake,
    ):
        for table in (*tables, "retractions", "decisions", "workspaces"):
            sql = f"SELECT * FROM {table} ORDER BY ALL"
            assert source.query(sql).equals(lake.query(sql)), table
        for view in CURRENT_VIEWS:
            sql = f"SELECT * FROM {view} ORDER BY ALL"
            assert source.query(sql).equals(lake.query(sql)), view
        highest = int(source.query("SELECT max(price_id) AS m FROM price_quotes")["m"][0])
        # New rows in the lake are numbered past the copied ones.
        after = lake.ingest_prices("test:after", [quote(source="after")], origin="test")
        new_id = lake.query("SELECT price_id FROM price_quotes WHERE snapshot_id = ?", [after])
        assert int(new_id["price_id"][0]) > highest
    # A second copy into the same catalog is refused, and nothing is written.
    again = CliRunner().invoke(
        app, ["db", "migrate", "--db", str(source_path), "--to", lake_target]
    )
    assert again.exit_code == 1
    assert "already holds" in again.output


def test_copy_refuses_a_lake_as_its_source(lake_target: str, tmp_path: Path) -> None:
    from warehouse.transfer import copy_into_lake

    with (
        Warehouse.open(lake_target, data_path=str(tmp_path), build=False) as lake,
        pytest.raises(TransferError),
    ):
        copy_into_lake(lake, lake)


# -- the DuckDB pin ---------------------------------------------------------------------------
def test_a_file_written_by_a_newer_duckdb_is_a_clear_error(tmp_path: Path) -> None:
    """The fixture is an empty database file that DuckDB 2.0.1 wrote; 1.5.5 cannot read it."""
    path = tmp_path / "tokendesk.duckdb"
    path.write_bytes(
        (REPO_ROOT / "tests" / "fixtures" / "written-by-duckdb-2.0.1.duckdb").read_bytes()
    )
    with pytest.raises(WarehouseError, match="written by a newer DuckDB") as caught:
        Warehouse.open(path, read_only=True)
    assert "tokendesk db rebuild" in str(caught.value)
