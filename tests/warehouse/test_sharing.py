"""One warehouse file, many processes: readers keep reading while others write, writers wait
(bounded, and say so) instead of failing, and a writer killed mid-transaction leaves the last
committed snapshot current. Every process here is a real one; DuckDB is never mocked."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from tests.factories import content_digest, quote
from tokendesk.paths import REPO_ROOT
from warehouse import Warehouse, WarehouseError
from warehouse.engine import READ_WAIT_ENV, WRITE_WAIT_ENV, Wait

#: A reader process: opens the warehouse read-only once (as a dashboard does), then two sessions
#: (threads, so their reads overlap) read the snapshot count in a loop until told to stop,
#: recording every count and every error.
READER = """
import json, os, sys, threading
from warehouse import Warehouse
path, out, stop = sys.argv[1:4]
seen, errors = [[], []], []

def session(mine):
    while True:
        last = os.path.exists(stop)
        try:
            with wh.reading():
                n = int(wh.query("SELECT count(*) AS n FROM snapshots").n[0])
                current = int(wh.query("SELECT count(*) AS n FROM current_prices").n[0])
            mine.append([n, current])
        except Exception as exc:
            errors.append(f"{type(exc).__name__}: {exc}")
        if last:
            break

with Warehouse.open(path, read_only=True) as wh:
    sessions = [threading.Thread(target=session, args=(mine,)) for mine in seen]
    for thread in sessions:
        thread.start()
    print("ready", flush=True)
    for thread in sessions:
        thread.join()
json.dump({"seen": seen, "errors": errors}, open(out, "w"))
"""

#: A writer process: writes ``count`` price snapshots of its own source, one transaction each.
WRITER = """
import sys
from datetime import UTC, datetime
from tests.factories import quote
from warehouse import Warehouse
path, name, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
with Warehouse.open(path) as wh:
    for i in range(count):
        q = quote(source=name, provider="aws", usd_per_hour=60.0 + i, observed_at=datetime.now(UTC))
        print(wh.ingest_prices(f"test:{name}", [q], origin="test"), flush=True)
"""

#: Holds the file the way any other DuckDB program could (read-write), until stdin closes.
HOLDER = """
import sys, duckdb
con = duckdb.connect(sys.argv[1])
print("held", flush=True)
sys.stdin.read()
con.close()
"""

#: Starts a snapshot, then waits inside the transaction to be killed.
DIES_MID_WRITE = """
import sys, time
from warehouse import Warehouse
wh = Warehouse.open(sys.argv[1])
with wh._transaction() as tx:
    tx.execute(
        "INSERT INTO snapshots (snapshot_id, kind, source, origin, scope, created_at, as_of, status,"
        " error, row_count, notes) VALUES ('prices-killed', 'prices', 'aws', 'api', '*', now(),"
        " now(), 'ok', '', 0, '')"
    )
    tx.execute("UPDATE snapshots SET notes = 'half done' WHERE snapshot_id = 'prices-killed'")
    print("inside", flush=True)
    time.sleep(600)
"""


def _python(script: str, *args: str, **kwargs) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", script, *args],
        cwd=REPO_ROOT,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        **kwargs,
    )


def _snapshot_count(path: Path) -> int:
    with Warehouse.open(path, read_only=True) as wh:
        return wh.table_counts()["snapshots"]


def test_readers_in_other_processes_keep_reading_while_two_processes_write(seeded, tmp_path):
    path = Path(seeded.path)
    before = seeded.table_counts()["snapshots"]
    stop = tmp_path / "stop"
    readers = [_python(READER, str(path), str(tmp_path / f"r{i}.json"), str(stop)) for i in (0, 1)]
    try:
        for reader in readers:
            assert reader.stdout.readline().strip() == "ready", reader.stderr.read()
        # this process plays a dashboard too: its read-only warehouse stays open throughout
        writers = [_python(WRITER, str(path), name, "3") for name in ("alpha", "beta")]
        outputs = [writer.communicate(timeout=300) for writer in writers]
        for writer, (out, errors) in zip(writers, outputs, strict=True):
            assert writer.returncode == 0, errors
            assert len(out.split()) == 3
        assert seeded.table_counts()["snapshots"] == before + 6
    finally:
        stop.touch()
        for reader in readers:
            reader.wait(timeout=120)
    for i in (0, 1):
        record = json.loads((tmp_path / f"r{i}.json").read_text())
        assert record["errors"] == []
        for seen in record["seen"]:
            counts = [n for n, _ in seen]
            assert counts == sorted(counts), "a reader saw a snapshot disappear"
            assert counts[0] >= before and counts[-1] == before + 6
            assert all(current > 0 for _, current in seen)


def test_a_write_waits_for_another_process_and_says_for_how_long(seeded):
    path = Path(seeded.path)
    holder = _python(HOLDER, str(path), stdin=subprocess.PIPE)
    assert holder.stdout.readline().strip() == "held"
    heard: list[Wait] = []
    first_wait = threading.Event()

    def listen(wait: Wait) -> None:
        heard.append(wait)
        first_wait.set()

    written: list[str] = []
    failed: list[BaseException] = []

    def write() -> None:
        try:
            with Warehouse.open(path, on_wait=listen) as wh:
                written.append(wh.ingest_prices("test:waiting", [quote()], origin="test"))
        except BaseException as exc:  # reported below
            failed.append(exc)

    thread = threading.Thread(target=write)
    thread.start()
    try:
        assert first_wait.wait(timeout=120), failed
    finally:
        holder.stdin.close()  # the other program lets go; the waiting write goes ahead
        holder.wait(timeout=60)
    thread.join(timeout=120)
    assert failed == [] and len(written) == 1
    waiting, done = heard[0], heard[-1]
    assert not waiting.done and f"process {holder.pid}" in waiting.holder
    # opening reads the schema version first, so the first wait is a read's
    assert waiting.message().startswith(f"waiting to read the warehouse {path}: it is held by")
    assert done.done and done.waited_s > 0 and "was busy; waited" in done.message()
    assert str(path) not in done.message(with_path=False)
    with Warehouse.open(path, read_only=True) as wh:
        assert written[0] in set(wh.snapshots()["snapshot_id"])


def test_a_write_that_cannot_get_the_file_gives_up_with_advice_and_changes_nothing(
    seeded, monkeypatch, tmp_path
):
    path = Path(seeded.path)
    digest = content_digest(seeded)
    holder = _python(HOLDER, str(path), stdin=subprocess.PIPE)
    try:
        assert holder.stdout.readline().strip() == "held"
        monkeypatch.setenv(WRITE_WAIT_ENV, "0.3")
        with pytest.raises(WarehouseError, match="stayed busy .* Nothing was changed"):
            seeded.ingest_prices("test:refused", [quote()], origin="test")
        sheet = tmp_path / "prices.csv"
        rows = (REPO_ROOT / "data" / "seed_prices.csv").read_text().splitlines()[:3]
        sheet.write_text("\n".join(rows) + "\n")
        env = {**os.environ, WRITE_WAIT_ENV: "0.5", READ_WAIT_ENV: "0.5"}
        said = {}
        for command in (["db", "ingest", str(sheet)], ["db", "info"]):
            done = subprocess.run(
                [sys.executable, "-m", "cli.main", *command, "--db", str(path)],
                capture_output=True,
                text=True,
                timeout=120,
                cwd=REPO_ROOT,
                env=env,
            )
            assert done.returncode == 1, done.stdout
            assert f"held by process {holder.pid}" in done.stderr
            assert "stayed busy" in done.stderr and "Traceback" not in done.stderr
            said[command[1]] = done.stderr
        assert said["ingest"].startswith("waiting to read the warehouse")  # it said so first
    finally:
        holder.stdin.close()
        holder.wait(timeout=60)
    assert content_digest(seeded) == digest


def test_a_cli_write_that_waited_says_so(seeded, tmp_path):
    path = Path(seeded.path)
    holder = _python(HOLDER, str(path), stdin=subprocess.PIPE)
    assert holder.stdout.readline().strip() == "held"
    sheet = tmp_path / "prices.csv"
    rows = (REPO_ROOT / "data" / "seed_prices.csv").read_text().splitlines()[:3]
    sheet.write_text("\n".join(rows) + "\n")
    ingest = subprocess.Popen(
        [sys.executable, "-m", "cli.main", "db", "ingest", str(sheet), "--db", str(path)],
        cwd=REPO_ROOT,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        first = ingest.stderr.readline()  # the first wait report, printed while it waits
        assert "waiting to read the warehouse" in first and f"process {holder.pid}" in first
    finally:
        holder.stdin.close()
        holder.wait(timeout=60)
    out, rest = ingest.communicate(timeout=120)
    assert ingest.returncode == 0, rest
    assert "ingested as" in out and "was busy; waited" in first + rest


def test_a_write_in_the_dashboard_process_leaves_other_sessions_reading(seeded):
    path = Path(seeded.path)
    shared = Warehouse.open(path, read_only=True)  # the dashboard's one read-only warehouse
    stop = threading.Event()
    seen: list[int] = []
    errors: list[str] = []

    def session() -> None:
        while not stop.is_set():
            try:
                with shared.reading():
                    seen.append(int(shared.query("SELECT count(*) AS n FROM snapshots").n[0]))
            except Exception as exc:
                errors.append(f"{type(exc).__name__}: {exc}")

    sessions = [threading.Thread(target=session) for _ in range(3)]
    for thread in sessions:
        thread.start()
    try:
        before = seeded.table_counts()["snapshots"]
        for i in range(3):  # what the Prices and Benchmarks pages do: open, write, close
            with Warehouse.open(path) as writer:
                writer.ingest_prices(f"test:page{i}", [quote()], origin="test")
    finally:
        stop.set()
        for thread in sessions:
            thread.join(timeout=120)
    assert errors == [] and seen == sorted(seen)
    with shared.reading():
        assert shared.table_counts()["snapshots"] == before + 3
    shared.close()


def test_a_writer_killed_mid_transaction_leaves_the_last_snapshot_current(seeded):
    path = Path(seeded.path)
    digest = content_digest(seeded)
    dying = _python(DIES_MID_WRITE, str(path))
    assert dying.stdout.readline().strip() == "inside", dying.stderr.read()
    os.kill(dying.pid, signal.SIGKILL)
    dying.wait(timeout=60)
    assert content_digest(seeded) == digest  # readers see the last committed state
    snapshot = seeded.ingest_prices("test:after-kill", [quote()], origin="test")  # lock is free
    with Warehouse.open(path, read_only=True) as wh:
        ids = set(wh.snapshots()["snapshot_id"])
    assert snapshot in ids and "prices-killed" not in ids


def test_a_cursor_kept_after_its_read_does_not_keep_the_file(seeded):
    """DuckDB keeps a file attached while any cursor uses it; letting go closes them all, so a
    cursor someone kept cannot make the next write (or read) fail."""
    kept = seeded.cursor()
    assert kept.execute("SELECT count(*) FROM snapshots").fetchone()[0] > 0
    first = seeded.ingest_prices("test:kept-1", [quote()], origin="test")
    with seeded.reading():
        inside = seeded.cursor()
        inside.execute("SELECT 1")
    second = seeded.ingest_prices("test:kept-2", [quote()], origin="test")
    assert {first, second} <= set(seeded.snapshots()["snapshot_id"])


def _gate_closed(path: Path) -> bool:
    """Whether a writer in another process holds the gate beside the warehouse."""
    import fcntl

    fd = os.open(str(path) + ".writer-gate", os.O_RDWR | os.O_CREAT, 0o666)
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        return False
    except BlockingIOError:
        return True
    finally:
        os.close(fd)


@pytest.mark.skipif(sys.platform == "win32", reason="the writer gate needs flock")
def test_a_read_lets_go_of_a_cursor_left_attached_before_it_waits_for_a_writer(seeded, monkeypatch):
    """A cursor taken outside a read block keeps the file attached (shared). When a writer in
    another process then closes the gate, this process's next read must let that attachment go
    before it queues: else the read waits for the writer and the writer for the attachment,
    until both give up (a dashboard held the file 120 s this way under load)."""
    path = Path(seeded.path)
    lingering = seeded.cursor()  # outside any read block: the file stays attached
    lingering.execute("SELECT count(*) FROM snapshots").fetchone()
    writer = _python(
        WRITER, str(path), "after-linger", "1", env={**os.environ, WRITE_WAIT_ENV: "60"}
    )
    try:
        for _ in range(600):  # the writer closes the gate, then waits for the file
            if _gate_closed(path) or writer.poll() is not None:
                break
            threading.Event().wait(0.05)
        assert _gate_closed(path), writer.communicate()
        monkeypatch.setenv(READ_WAIT_ENV, "30")
        with seeded.reading():
            seen = set(seeded.snapshots()["snapshot_id"])
        out, err = writer.communicate(timeout=60)
    finally:
        if writer.poll() is None:
            writer.kill()
    assert writer.returncode == 0, err
    assert out.strip() in seen  # the read went after the write, and saw it
