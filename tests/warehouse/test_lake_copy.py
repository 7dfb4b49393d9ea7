"""Team mode's local copy (``warehouse/lake_copy.py``): a long-lived reader (the dashboard) reads
its own in-memory copy of the lake's newest snapshot, made once per catalog snapshot. Real
PostgreSQL, real Parquet files, writers in other processes; nothing mocked."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator

import pytest

from pricing.integrity import check_price_file
from tests.lake_servers import PostgresServer, postgres_server
from tokendesk.paths import REPO_ROOT
from warehouse import CatalogUnreachable, Warehouse
from warehouse.lake_copy import LakeCopyEngine

#: A hang guard for the writer process, not a timing assertion.
PROCESS_LIMIT_S = 600
#: Quotes in each snapshot the writer process lands: a reader must see all of them or none.
QUOTES_PER_WRITE = 5

#: Writes ``count`` price snapshots of source ``name``, QUOTES_PER_WRITE quotes each, one
#: transaction each, from a process of its own.
WRITER = f"""
import sys
from datetime import UTC, datetime
from tests.factories import quote
from warehouse import Warehouse
target, data_path, name, count = sys.argv[1:5]
with Warehouse.open(target, data_path=data_path) as wh:
    for i in range(int(count)):
        quotes = [
            quote(source=name, region=f"r{{i}}-{{k}}", usd_per_hour=60.0 + k,
                  observed_at=datetime.now(UTC))
            for k in range({QUOTES_PER_WRITE})
        ]
        print(wh.ingest_prices(f"test:{{name}}", quotes, origin="test"), flush=True)
"""


@pytest.fixture(scope="module")
def server() -> Iterator[PostgresServer]:
    """A server of this module's own: one test stops it."""
    try:
        with postgres_server() as started:
            yield started
    except FileNotFoundError:
        pytest.skip("PostgreSQL's server programs are not installed; scripts/setup.sh --dev")


@pytest.fixture(scope="module")
def lake(server: PostgresServer, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    """A lake built from the bundled data/: (target, data path)."""
    target = server.create_database("copies")
    data_path = str(tmp_path_factory.mktemp("copies-data"))
    Warehouse.open(target, data_path=data_path, seed_check=check_price_file).close()
    return target, data_path


@pytest.fixture
def reader(lake: tuple[str, str]) -> Iterator[Warehouse]:
    target, data_path = lake
    with Warehouse.open(target, data_path=data_path, read_only=True, local_copy=True) as opened:
        yield opened


def _copy(warehouse: Warehouse) -> LakeCopyEngine:
    copy = warehouse.local_copy
    assert copy is not None
    return copy


def _write_elsewhere(lake: tuple[str, str], name: str, count: int = 1) -> list[str]:
    """``count`` snapshots written by another process; their ids, once all have landed."""
    done = subprocess.run(
        [sys.executable, "-c", WRITER, *lake, name, str(count)],
        cwd=REPO_ROOT,
        env=dict(os.environ),
        capture_output=True,
        text=True,
        timeout=PROCESS_LIMIT_S,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.split()


def _snapshot_ids(warehouse: Warehouse) -> set[str]:
    return set(warehouse.query("SELECT snapshot_id FROM snapshots")["snapshot_id"])


def test_reads_run_on_the_copy_and_answer_as_the_lake_does(
    lake: tuple[str, str], reader: Warehouse
) -> None:
    target, data_path = lake
    with Warehouse.open(target, data_path=data_path, read_only=True) as direct:
        assert direct.local_copy is None
        for view in ("current_prices", "current_results", "current_price_snapshots"):
            sql = f"SELECT * FROM {view} ORDER BY ALL"
            assert reader.query(sql).equals(direct.query(sql)), view
        assert reader.table_counts() == direct.table_counts()
        assert reader.cost_options().equals(direct.cost_options())
        assert reader.catalog_snapshot() == direct.catalog_snapshot()
    assert reader.is_lake


def test_a_copy_after_inserts_only_reads_what_was_inserted_and_equals_the_lake(
    lake: tuple[str, str], reader: Warehouse
) -> None:
    """After writes that only appended rows, the new copy is the previous one plus the rows
    inserted since; it must hold exactly what the lake holds at that snapshot."""
    target, data_path = lake
    reader.catalog_snapshot()
    appended = _copy(reader).appended
    _write_elsewhere(lake, "appended", count=3)
    reader.catalog_snapshot()
    assert _copy(reader).appended == appended + 1
    with Warehouse.open(target, data_path=data_path, read_only=True) as direct:
        for table in ("snapshots", "snapshot_authors", "price_quotes", "integrity_checks"):
            sql = f"SELECT * FROM {table} ORDER BY ALL"
            assert reader.query(sql).equals(direct.query(sql)), table
        sql = "SELECT * FROM current_prices ORDER BY ALL"
        assert reader.query(sql).equals(direct.query(sql))


def test_a_write_by_another_process_shows_in_the_next_read_after_the_snapshot_moves(
    lake: tuple[str, str], reader: Warehouse
) -> None:
    before = reader.catalog_snapshot()
    made = _copy(reader).refreshes
    [written] = _write_elsewhere(lake, "elsewhere")
    # Until the snapshot is looked at, the reads stay on the copy they have: one whole snapshot.
    assert written not in _snapshot_ids(reader)
    after = reader.catalog_snapshot()
    assert after is not None and before is not None and after > before
    assert written in _snapshot_ids(reader)
    prices = reader.query("SELECT * FROM current_prices WHERE source = 'elsewhere'")
    assert len(prices) == QUOTES_PER_WRITE
    # One copy for the new snapshot, however often it is asked for afterwards.
    for _ in range(5):
        assert reader.catalog_snapshot() == after
    assert _copy(reader).refreshes == made + 1


def test_the_copy_is_made_once_per_snapshot_under_many_threads(
    lake: tuple[str, str], reader: Warehouse
) -> None:
    reader.catalog_snapshot()
    made = _copy(reader).refreshes
    [written] = _write_elsewhere(lake, "threads")
    start = threading.Barrier(16)
    seen: list[bool] = []
    errors: list[BaseException] = []

    def page_run() -> None:
        try:
            start.wait()
            for _ in range(5):  # a page run: look at the snapshot, then read
                reader.catalog_snapshot()
                seen.append(written in _snapshot_ids(reader))
        except BaseException as exc:  # reported below, with the thread's own error
            errors.append(exc)

    threads = [threading.Thread(target=page_run) for _ in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(PROCESS_LIMIT_S)
    assert not errors, errors
    assert _copy(reader).refreshes == made + 1
    # The thread that made the copy saw it; the others read the old one meanwhile, then the new.
    assert seen[-1] and any(seen)
    assert written in _snapshot_ids(reader)


def test_a_reader_never_sees_part_of_a_snapshot(lake: tuple[str, str], reader: Warehouse) -> None:
    """Readers in many threads, a thread making copies in a loop and a writer process landing
    snapshots: every read block sees each of the writer's snapshots with all its quotes or not
    at all, and the same rows from its first read to its last."""
    reader.catalog_snapshot()
    stop = threading.Event()
    partial: list[str] = []
    errors: list[BaseException] = []
    observed: set[int] = set()

    def refresher() -> None:
        while not stop.is_set():
            try:
                reader.catalog_snapshot()
            except BaseException as exc:  # reported below
                errors.append(exc)
                return

    def read_blocks() -> None:
        sql = (
            "SELECT s.snapshot_id, count(q.price_id) AS quotes FROM snapshots s"
            " LEFT JOIN price_quotes q USING (snapshot_id) WHERE s.source = 'test:whole'"
            " GROUP BY s.snapshot_id ORDER BY s.snapshot_id"
        )
        while not stop.is_set():
            try:
                with reader.reading():
                    first = reader.cursor().execute(sql).fetchall()
                    again = reader.cursor().execute(sql).fetchall()
                    orphans = (
                        reader.cursor()
                        .execute(
                            "SELECT count(*) FROM price_quotes q ANTI JOIN snapshots s"
                            " USING (snapshot_id)"
                        )
                        .fetchone()
                    )
            except BaseException as exc:  # reported below
                errors.append(exc)
                return
            observed.add(len(first))
            if first != again:
                partial.append(f"the rows moved inside one read block: {first} -> {again}")
            partial.extend(f"{sid}: {n} quotes" for sid, n in first if n != QUOTES_PER_WRITE)
            if orphans and orphans[0]:
                partial.append(f"{orphans[0]} quotes without their snapshot")

    threads = [threading.Thread(target=refresher)] + [
        threading.Thread(target=read_blocks) for _ in range(4)
    ]
    for thread in threads:
        thread.start()
    try:
        written = _write_elsewhere(lake, "whole", count=6)
        # The readers go on until a read block has seen the last snapshot, however slowly the
        # copies follow the writer on a busy machine.
        deadline = time.monotonic() + PROCESS_LIMIT_S
        while len(written) not in observed and not errors and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        stop.set()
        for thread in threads:
            thread.join(PROCESS_LIMIT_S)
    assert not errors, errors
    assert not partial, partial[:5]
    reader.catalog_snapshot()
    assert set(written) <= _snapshot_ids(reader)
    assert len(observed) > 1  # the readers did read while the snapshots landed


def test_a_read_block_keeps_its_copy_while_a_new_one_lands(
    lake: tuple[str, str], reader: Warehouse
) -> None:
    reader.catalog_snapshot()
    count = "SELECT count(*) FROM snapshots"
    with reader.reading():
        row = reader.cursor().execute(count).fetchone()
        _write_elsewhere(lake, "pinned")
        other = threading.Thread(target=reader.catalog_snapshot)  # another session's page run
        other.start()
        other.join(PROCESS_LIMIT_S)
        assert reader.cursor().execute(count).fetchone() == row
    # The next block reads the new copy.
    after = reader.query(count).iloc[0, 0]
    assert row is not None and after == row[0] + 1


def test_the_readers_own_write_shows_in_its_next_read(
    lake: tuple[str, str], reader: Warehouse
) -> None:
    """The dashboard's writes go to the lake through another warehouse of the same process: the
    next read catches up without waiting for the next page run's look at the snapshot."""
    from tests.factories import quote

    target, data_path = lake
    reader.catalog_snapshot()
    with Warehouse.open(target, data_path=data_path) as writer:
        written = writer.ingest_prices("test:mine", [quote(source="mine")], origin="test")
    assert written in _snapshot_ids(reader)


@pytest.fixture
def running(server: PostgresServer) -> Iterator[PostgresServer]:
    """The server, started again after the test whatever the test did to it."""
    yield server
    with contextlib.suppress(subprocess.CalledProcessError):  # it was running
        server.start()


def test_a_lake_that_stops_answering_during_a_refresh_keeps_the_last_good_copy(
    lake: tuple[str, str], reader: Warehouse, running: PostgresServer
) -> None:
    kept = reader.catalog_snapshot()
    copy = _copy(reader)
    made = copy.refreshes
    before = reader.query("SELECT * FROM current_prices ORDER BY ALL")
    [written] = _write_elsewhere(lake, "outage")
    # The catalog answers the snapshot id, then goes down while the copy is being read.
    original = copy._read_lake

    def stopped_midway(*args: object) -> tuple[int, dict[str, object], dict[str, str], bool]:
        running.stop()
        return original(*args)  # type: ignore[arg-type]

    copy._read_lake = stopped_midway  # type: ignore[method-assign]
    with pytest.raises(CatalogUnreachable) as caught:
        reader.catalog_snapshot()
    copy._read_lake = original  # type: ignore[method-assign]
    said = str(caught.value)
    assert said.startswith("the DuckLake catalog copies on 127.0.0.1")
    assert "does not answer (connection refused)" in said
    assert f"go on showing snapshot {kept}" in said
    assert "user=" not in said and "dbname" not in said  # no connection string
    # The reads go on from the last good copy, whole, while the server is down.
    assert copy.snapshot == kept and copy.refreshes == made
    assert reader.query("SELECT * FROM current_prices ORDER BY ALL").equals(before)
    with pytest.raises(CatalogUnreachable):
        reader.catalog_snapshot()  # still down: said again, still the same copy
    assert reader.query("SELECT * FROM current_prices ORDER BY ALL").equals(before)

    running.start()
    assert reader.catalog_snapshot() != kept
    assert written in _snapshot_ids(reader)
    assert copy.refreshes == made + 1
