"""Team mode under faults, with the real parts: PostgreSQL stopped and started under a reader, a
writer and the dashboard, and writers killed with SIGKILL in the middle of a write.

These tests stop their own PostgreSQL server, so they start one of their own (not the session's).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import random
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from pricing.integrity import check_price_file
from tests.app.pages import shown
from tests.factories import kill_results_csv, quote
from tests.lake_servers import PostgresServer, postgres_server
from tokendesk.paths import REPO_ROOT
from warehouse import CatalogUnreachable, Warehouse
from warehouse.lake import unreachable_reason

#: A hang guard for the helper processes, not a timing assertion.
PROCESS_LIMIT_S = 600
TOKENDESK = [sys.executable, "-m", "cli.main"]


@pytest.fixture(scope="module")
def server() -> Iterator[PostgresServer]:
    try:
        with postgres_server() as started:
            yield started
    except FileNotFoundError:
        pytest.skip("PostgreSQL's server programs are not installed; scripts/setup.sh --dev")


@pytest.fixture(scope="module")
def lake(server: PostgresServer, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    """A lake built from the bundled data/: (target, data path)."""
    target = server.create_database("faults")
    data_path = str(tmp_path_factory.mktemp("faults-data"))
    Warehouse.open(target, data_path=data_path, seed_check=check_price_file).close()
    return target, data_path


@pytest.fixture
def running(server: PostgresServer) -> Iterator[PostgresServer]:
    """The server, started again after the test whatever the test did to it."""
    yield server
    with contextlib.suppress(subprocess.CalledProcessError):  # it was running
        server.start()


def _environment(data_path: str, **more: str) -> dict[str, str]:
    return {**os.environ, "TOKENDESK_DATA_PATH": data_path, "TOKENDESK_USER": "nightly", **more}


def _digest(lake: Warehouse) -> str:
    """Every row of the tables a write touches, in a stable order."""
    digest = hashlib.sha256()
    for table in ("snapshots", "price_quotes", "benchmark_results", "integrity_checks"):
        frame = lake.query(f"SELECT * FROM {table} ORDER BY ALL")
        digest.update(frame.to_csv(index=False).encode())
    return digest.hexdigest()


# -- PostgreSQL stopped and started ---------------------------------------------------------------
def test_a_reader_is_told_plainly_while_postgres_is_down_and_reads_again_after(
    lake: tuple[str, str], running: PostgresServer
) -> None:
    target, data_path = lake
    with Warehouse.open(target, data_path=data_path, read_only=True) as reader:
        before = reader.query("SELECT * FROM current_prices ORDER BY price_id")
        snapshot = reader.catalog_snapshot()
        running.stop()
        for read in (
            lambda: reader.query("SELECT count(*) FROM current_prices"),
            reader.catalog_snapshot,
        ):
            with pytest.raises(CatalogUnreachable) as caught:
                read()
            said = str(caught.value)
            assert said.startswith("the DuckLake catalog faults on 127.0.0.1")
            assert "does not answer (connection refused)" in said
            assert "user=" not in said and "dbname" not in said  # no connection string
        running.start()
        # The same open reader, without reopening: the same rows, the same snapshot.
        assert reader.query("SELECT * FROM current_prices ORDER BY price_id").equals(before)
        assert reader.catalog_snapshot() == snapshot


def test_readers_in_many_threads_read_again_after_a_restart(
    lake: tuple[str, str], running: PostgresServer
) -> None:
    """The dashboard's sessions are threads sharing one engine. A restart under them once left
    every later read failing (DuckDB invalidated by an internal error when the connection was
    cut mid-query); each must read again once the server answers, and say nothing but "does not
    answer" meanwhile."""
    target, data_path = lake
    with Warehouse.open(target, data_path=data_path, read_only=True) as reader:
        expected = len(reader.query("SELECT * FROM current_prices"))
        restarted = threading.Event()
        failures: list[BaseException] = []
        recovered: list[int] = []

        def session(number: int) -> None:
            in_a_row = 0
            deadline = time.monotonic() + PROCESS_LIMIT_S
            while time.monotonic() < deadline:
                try:
                    reader.catalog_snapshot()
                    rows = len(reader.query("SELECT * FROM current_prices"))
                except CatalogUnreachable:
                    in_a_row = 0
                except BaseException as exc:  # anything else is a failure of the test
                    failures.append(exc)
                    return
                else:
                    assert rows == expected
                    in_a_row = in_a_row + 1 if restarted.is_set() else 0
                    if in_a_row == 5:
                        recovered.append(number)
                        return
                time.sleep(0.02)

        threads = [threading.Thread(target=session, args=(n,)) for n in range(4)]
        for thread in threads:
            thread.start()
        time.sleep(1.0)  # reads under way when the server goes
        running.stop()
        time.sleep(2.0)  # reads while it is down
        running.start()
        restarted.set()
        for thread in threads:
            thread.join(timeout=PROCESS_LIMIT_S)
    assert failures == []
    assert sorted(recovered) == [0, 1, 2, 3]


def test_an_invalidated_duckdb_is_replaced_on_the_next_read(
    lake: tuple[str, str], running: PostgresServer
) -> None:
    """Seen once in a restart under threaded reads: DuckDB failed with an internal error and
    then refused every query ("database has been invalidated"). The engine then opens a new
    in-memory DuckDB on the next use, after the server answers again."""
    target, data_path = lake
    with Warehouse.open(target, data_path=data_path, read_only=True) as reader:
        engine = reader._engine
        rows = len(reader.query("SELECT * FROM current_prices"))
        dead = engine._db
        invalidated = duckdb.FatalException(
            "FATAL Error: Failed: database has been invalidated because of a previous fatal "
            'error. Original error: "Attempted to access index 0 within vector of size 0"'
        )
        running.stop()
        said = engine.unreachable(invalidated, "Nothing was changed.")
        assert said is not None and "does not answer (connection refused)" in str(said)
        with pytest.raises(CatalogUnreachable):  # no new DuckDB while the server is down
            reader.query("SELECT 1")
        running.start()
        assert len(reader.query("SELECT * FROM current_prices")) == rows
        assert engine._db is not dead
        with pytest.raises(duckdb.ConnectionException):  # the old one was closed
            dead.execute("SELECT 1")
        # With the server up, the same error reads as a cut connection, opened again.
        said = engine.unreachable(invalidated, "Nothing was changed.")
        assert said is not None and "the connection was cut and has been opened again" in str(said)


def test_a_writer_waits_for_postgres_says_so_and_lands_once_it_answers(
    lake: tuple[str, str], running: PostgresServer, tmp_path: Path
) -> None:
    target, data_path = lake
    sheet = tmp_path / "prices.csv"
    sheet.write_text(
        "provider,region,instance_type,accelerator_id,accelerator_count,pricing_model,"
        "usd_per_hour,source,observed_at\n"
        "nightly,eu-1,gpu1x8,nvidia-h100-sxm-80gb,8,on_demand,31.5,restart test,2026-11-20\n",
        encoding="utf-8",
    )
    running.stop()
    stderr = tmp_path / "stderr.txt"
    with stderr.open("w") as err:
        writer = subprocess.Popen(
            [*TOKENDESK, "db", "ingest", str(sheet), "--db", target],
            cwd=REPO_ROOT,
            env=_environment(data_path, TOKENDESK_WRITE_WAIT_S="300", COLUMNS="200"),
            stdout=subprocess.PIPE,
            stderr=err,
            text=True,
        )
    try:
        deadline = time.monotonic() + PROCESS_LIMIT_S
        while "waiting to write" not in stderr.read_text() and writer.poll() is None:
            assert time.monotonic() < deadline, "the writer never said it waits"
            time.sleep(0.1)
        running.start()
        out, _ = writer.communicate(timeout=PROCESS_LIMIT_S)
    finally:
        writer.kill()
    said = stderr.read_text()
    assert writer.returncode == 0, said
    assert "it does not answer (connection refused)" in said
    assert "did not answer for" in said and "it answers again" in said
    with Warehouse.open(target, data_path=data_path, read_only=True) as lake_now:
        landed = lake_now.query(
            "SELECT usd_per_hour FROM current_prices WHERE provider = 'nightly'"
        )["usd_per_hour"]
    assert list(landed) == [31.5]


def test_a_writer_that_cannot_wait_longer_fails_plainly_and_writes_nothing(
    lake: tuple[str, str], running: PostgresServer, tmp_path: Path
) -> None:
    target, data_path = lake
    with Warehouse.open(target, data_path=data_path, read_only=True) as reader:
        before = _digest(reader)
    running.stop()
    done = subprocess.run(
        [*TOKENDESK, "db", "init", "--db", target],
        cwd=REPO_ROOT,
        env=_environment(data_path, TOKENDESK_WRITE_WAIT_S="2", COLUMNS="200"),
        capture_output=True,
        text=True,
        timeout=PROCESS_LIMIT_S,
    )
    running.start()
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    # How long it waited is at least the limit; a busy machine may add a second or two.
    waited = re.search(r"does not answer \(connection refused\) for (\d+) s", done.stderr)
    assert waited and int(waited.group(1)) >= 2, done.stderr
    assert "Nothing was written" in done.stderr and "TOKENDESK_WRITE_WAIT_S" in done.stderr
    with Warehouse.open(target, data_path=data_path, read_only=True) as reader:
        assert _digest(reader) == before


def test_a_postgres_crash_inside_a_write_leaves_all_or_nothing(
    lake: tuple[str, str], running: PostgresServer
) -> None:
    """The server dies (``immediate``: no clean shutdown) while a write's transaction is open:
    the commit fails plainly, and after the restart the lake holds none of that write."""
    target, data_path = lake
    with Warehouse.open(target, data_path=data_path) as writer:
        before = _digest(writer)
        with pytest.raises(CatalogUnreachable) as caught, writer.atomic():
            writer.ingest_prices("test:crash", [quote(source="crash")], origin="test")
            running.stop("immediate")
        assert "The write did not land unless `tokendesk db info` lists it" in str(caught.value)
        running.start()
        assert _digest(writer) == before
        # The same process writes again once the server is back.
        snapshot = writer.ingest_prices("test:after", [quote(source="after")], origin="test")
        assert snapshot in set(writer.query("SELECT snapshot_id FROM snapshots")["snapshot_id"])


def test_the_dashboard_keeps_what_it_read_while_postgres_is_down(
    lake: tuple[str, str], running: PostgresServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    target, data_path = lake
    monkeypatch.setenv("TOKENDESK_DB", target)
    monkeypatch.setenv("TOKENDESK_DATA_PATH", data_path)
    main = str(REPO_ROOT / "app" / "streamlit_app.py")
    first = AppTest.from_file(main, default_timeout=120).run()
    assert not first.exception and not first.warning
    headline = [metric.value for metric in first.metric]
    assert headline

    running.stop()
    # A page read before: still drawn, from what was read, under a plain notice.
    cached = AppTest.from_file(main, default_timeout=120).run()
    assert not cached.exception and not cached.error
    assert [metric.value for metric in cached.metric] == headline
    notices = [warning.value for warning in cached.warning]
    assert any("catalog server does not answer" in n and "nothing is" in n for n in notices)
    # Pages whose reads are not cached: drawn from the process's local copy of the last
    # snapshot it read (warehouse/lake_copy.py), under the same notice; no traceback.
    st.cache_data.clear()
    for never_read in ("views/benchmarks.py", "views/scenarios.py"):
        fresh = AppTest.from_file(main, default_timeout=120)
        fresh.switch_page(never_read)
        fresh.run()
        assert not fresh.exception and not fresh.error, never_read
        said = shown(" ".join(warning.value for warning in fresh.warning))
        assert "catalog server does not answer" in said and "nothing is lost" in said, said
        assert "read before it stopped answering" in said and "user=" not in said
        assert fresh.dataframe or fresh.metric, never_read  # the page itself was drawn

    running.start()
    back = AppTest.from_file(main, default_timeout=120)
    back.switch_page("views/benchmarks.py")
    back.run()
    assert not back.exception and not back.warning and not back.error
    assert back.dataframe  # the page drew its results table


# -- writers killed mid-write ---------------------------------------------------------------------
KILLS = 5


def _kill_inputs(folder: Path) -> list[Path]:
    """Prices of four providers (a snapshot each) and a results file: one command, five
    snapshots, one DuckLake commit."""
    prices = folder / "prices.csv"
    prices.write_text(
        "provider,region,instance_type,accelerator_id,accelerator_count,pricing_model,"
        "usd_per_hour,source,observed_at\n"
        + "".join(
            f"kill-{provider},{region},gpu{size}x8,nvidia-h100-sxm-80gb,8,on_demand,"
            f"{16 + size + index * 0.5:.2f},kill test sheet,2026-10-0{1 + index}\n"
            for index, provider in enumerate("abcd")
            for region in ("eu-1", "us-1")
            for size in range(12)
        ),
        encoding="utf-8",
    )
    results = kill_results_csv(folder / "results.csv", (1, 2, 4, 8, 16))
    return [prices, results]


def _state(lake: Warehouse) -> tuple[str, int]:
    """(content digest, good snapshots), checking the catalog on the way: every table reads
    whole (each data file the catalog names is there) and no row lies outside a snapshot."""
    for table in lake.table_counts():
        lake.query(f"SELECT * FROM {table}")
    orphans = lake.query(
        "SELECT count(*) AS n FROM price_quotes WHERE snapshot_id NOT IN "
        "(SELECT snapshot_id FROM snapshots)"
    )["n"][0]
    assert orphans == 0
    good = lake.query("SELECT count(*) AS n FROM snapshots WHERE status <> 'failed'")["n"][0]
    return _digest(lake), int(good)


def test_kill_9_of_a_writer_mid_write_leaves_the_last_good_snapshot_current(
    lake: tuple[str, str], tmp_path: Path
) -> None:
    target, data_path = lake
    inputs = [str(path) for path in _kill_inputs(tmp_path)]
    command = [*TOKENDESK, "db", "ingest", *inputs, "--db", target]
    environment = _environment(data_path)
    # One whole write, timed, so the kills land across the command's life (start-up included).
    started = time.perf_counter()
    subprocess.run(command, cwd=REPO_ROOT, env=environment, check=True, capture_output=True)
    whole_s = time.perf_counter() - started
    rng = random.Random(20261201)
    outcomes = []
    for _ in range(KILLS):
        with Warehouse.open(target, data_path=data_path, read_only=True) as reader:
            before, good_before = _state(reader)
            current_before = reader.query("SELECT price_id FROM current_prices ORDER BY 1")
        writer = subprocess.Popen(command, cwd=REPO_ROOT, env=environment)
        time.sleep(rng.uniform(0.3, 1.0) * whole_s)
        writer.send_signal(signal.SIGKILL)
        writer.wait(timeout=PROCESS_LIMIT_S)
        with Warehouse.open(target, data_path=data_path, read_only=True) as reader:
            after, good_after = _state(reader)
            current_after = reader.query("SELECT price_id FROM current_prices ORDER BY 1")
        if good_after == good_before:  # killed before its commit: exactly the previous lake
            assert after == before
            assert current_after.equals(current_before)
            outcomes.append("nothing")
        else:  # killed after it: the whole command, five snapshots
            assert good_after == good_before + 5
            outcomes.append("whole")
    # Whatever the kills left behind, the lake takes the next write.
    done = subprocess.run(command, cwd=REPO_ROOT, env=environment, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert len(outcomes) == KILLS


def test_connection_failures_are_told_apart_from_other_errors() -> None:
    refused = (
        "IO Error: Failed to query most recent snapshot for DuckLake: Unable to connect to "
        'Postgres at "host=h port=5 user=u dbname=d password=p": connection to server at "h",'
        " port 5 failed: Connection refused"
    )
    assert unreachable_reason(RuntimeError(refused)) == "connection refused"
    ended = "FATAL: terminating connection due to administrator command"
    assert unreachable_reason(RuntimeError(ended)) == "the server ended the connection"
    assert unreachable_reason(RuntimeError("Catalog Error: Table x does not exist")) is None
