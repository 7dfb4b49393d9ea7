"""Sharing one warehouse file between many processes: connections that live only while used.

DuckDB lets one process write a database file, and no other process may even read it while that
process holds the file open (measured on 2.0.1, and the same on 1.5.5: a read-write open fails
with "Could not set lock on file ... Conflicting lock is held in ... (PID n)" while another
process has it open read-only, and the other way round; read-only opens in several processes
coexist). Inside one process a
file cannot be open read-only and read-write at once ("different configuration").

So no process keeps the file open. Each process keeps one in-memory DuckDB (starting one costs
~90 ms, attaching a file to it ~4 ms) and ATTACHes the warehouse file only for as long as a read
or a write transaction needs it:

* a read attaches the file read-only (shared with every other reader, in any process) and
  detaches it when the last reader of this process is done, so the newest committed snapshot is
  what the next read sees;
* a write waits for this process's readers, attaches read-write for the transaction only and
  detaches (which checkpoints) before anyone else may read or write.

A lock held by another process is waited out with short retries up to a bounded time, and a
writer that waits says so (whom it waits for, for how long). A writer also closes a gate file
beside the warehouse while it waits, so a stream of readers in other processes cannot starve it:
new readers queue at the gate until the write is done (``flock``; where it is missing, as on
Windows, writers simply retry).
"""

from __future__ import annotations

import os
import re
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import duckdb

from warehouse.dialect import embedded_sql

try:  # POSIX only; without it writers retry without a gate
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

#: Seconds a read may wait for another process's write, and a write for other processes.
READ_WAIT_ENV = "TOKENDESK_READ_WAIT_S"
WRITE_WAIT_ENV = "TOKENDESK_WRITE_WAIT_S"
DEFAULT_READ_WAIT_S = 30.0
DEFAULT_WRITE_WAIT_S = 120.0

ALIAS = "tokendesk_warehouse"
_HOLDER = re.compile(r"Conflicting lock is held in (?P<program>.*?) \(PID (?P<pid>\d+)\)")
_FIRST_RETRY_S = 0.01
_MAX_RETRY_S = 0.2
_REPORT_EVERY_S = 1.0


@dataclass(frozen=True)
class Wait:
    """What a waiting read or write reports: what it waits for and how long it has waited."""

    action: str  # "read" or "write"
    path: str
    holder: str  # "process 1234 (python3.11)", "a writer in another process", …
    waited_s: float
    limit_s: float
    done: bool = False  # True once, when the wait ended and the work goes ahead
    #: True when nobody holds the warehouse but its server does not answer (team mode's
    #: PostgreSQL catalog, restarting or down); ``holder`` then says what it answered.
    unreachable: bool = False

    def message(self, *, with_path: bool = True) -> str:
        """One line for a person; ``with_path=False`` for the dashboard, which shows no paths."""
        where = f"the warehouse {self.path}" if with_path else "the warehouse"
        if self.unreachable:
            if self.done:
                return f"{where} did not answer for {self.waited_s:.1f} s; it answers again"
            return (
                f"waiting to {self.action} {where}: it does not answer ({self.holder}); "
                f"waited {self.waited_s:.1f} s of at most {self.limit_s:g} s"
            )
        if self.done:
            return f"{where} was busy; waited {self.waited_s:.1f} s for {self.holder}"
        return (
            f"waiting to {self.action} {where}: it is held by {self.holder}; "
            f"waited {self.waited_s:.1f} s of at most {self.limit_s:g} s"
        )


WaitReporter = Callable[[Wait], None]

_default_reporter: WaitReporter | None = None


def report_waits_to(reporter: WaitReporter | None) -> None:
    """Where writers of this process report waiting when the opener named nobody (the CLI: stderr)."""
    global _default_reporter
    _default_reporter = reporter


def reporter_for(report: WaitReporter | None) -> WaitReporter | None:
    """Who hears about a wait: the opener's reporter, else the process's default."""
    return report or _default_reporter


def write_wait_limit() -> float:
    """Seconds a write may wait for others (or for a server that does not answer)."""
    return _wait_limit(WRITE_WAIT_ENV, DEFAULT_WRITE_WAIT_S)


class WarehouseError(RuntimeError):
    pass


class WarehouseBusy(WarehouseError):
    """Another process held the warehouse for longer than this one may wait."""


def sql_literal(text: str) -> str:
    """``text`` as a SQL string literal, for the few statements that take no parameters.

    DuckDB 1.5 parses ATTACH's path and options as literals only (``ATTACH ?``
    is a syntax error there), so those few values are quoted here, and only here.
    """
    if "\x00" in text:
        raise WarehouseError("a warehouse path or setting cannot contain a NUL character")
    return "'" + text.replace("'", "''") + "'"


def _wait_limit(env: str, default: float) -> float:
    try:
        return max(0.0, float(os.environ.get(env, default)))
    except ValueError:
        return default


def _is_lock_conflict(exc: Exception) -> bool:
    text = str(exc).lower()
    return "could not set lock" in text or "conflicting lock" in text


_FILE_SYSTEM_REFUSALS = ("permission denied", "read-only file system")


def _refused_by_the_file_system(exc: Exception) -> str:
    """The reason in DuckDB's 'Cannot open file "…": Permission denied' (or a read-only file
    system), in lower case; "" for any other error."""
    if not isinstance(exc, duckdb.IOException):
        return ""
    text = str(exc).lower()
    return next((reason for reason in _FILE_SYSTEM_REFUSALS if reason in text), "")


def _is_from_newer_duckdb(exc: Exception) -> bool:
    """DuckDB 1.5 on a file written by 2.0: "Trying to read a database file with version number
    999, but we can only read versions between 64 and 68"."""
    return "created with an newer version of duckdb" in str(exc).lower()


def _is_unreplayable_log(exc: Exception) -> bool:
    """DuckDB 1.x after a kill at the wrong moment: "INTERNAL Error: Failure while replaying WAL
    file ...". The file is not readable until its log is moved away or the file rebuilt."""
    return "failure while replaying wal" in str(exc).lower()


def _holder_of(exc: Exception) -> str:
    match = _HOLDER.search(str(exc))
    if not match:
        return "another process"
    program = os.path.basename(match.group("program").strip()) or "a program"
    return f"process {match.group('pid')} ({program})"


class _Waiter:
    """Retries with growing pauses until ``limit_s``; reports at the start and every second."""

    def __init__(self, action: str, path: str, limit_s: float, report: WaitReporter | None):
        self.action, self.path, self.limit_s, self.report = action, path, limit_s, report
        self.started = time.monotonic()
        self.pause = _FIRST_RETRY_S
        self.next_report = 0.0
        self.waited = False
        self.holder = "another process"

    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def blocked(self, holder: str) -> None:
        """Called after a failed try: report, give up past the limit, else sleep a little."""
        self.waited, self.holder = True, holder
        elapsed = self.elapsed()
        if elapsed >= self.limit_s:
            knob = WRITE_WAIT_ENV if self.action == "write" else READ_WAIT_ENV
            raise WarehouseBusy(
                f"the warehouse {self.path} stayed busy for {elapsed:.1f} s (held by {holder}), "
                f"longer than this {self.action} may wait ({self.limit_s:g} s). Nothing was "
                f"changed; try again when that process is done, or raise {knob}."
            )
        if self.report is not None and elapsed >= self.next_report:
            self.report(Wait(self.action, self.path, holder, elapsed, self.limit_s))
            self.next_report = elapsed + _REPORT_EVERY_S
        time.sleep(min(self.pause, max(0.0, self.limit_s - elapsed)))
        self.pause = min(self.pause * 2, _MAX_RETRY_S)

    def finished(self) -> None:
        if self.waited and self.report is not None:
            self.report(
                Wait(self.action, self.path, self.holder, self.elapsed(), self.limit_s, True)
            )


class _Gate:
    """A file beside the warehouse: a waiting writer holds it exclusively, readers pass through."""

    def __init__(self, path: str) -> None:
        self.path = path + ".writer-gate"

    def _open(self) -> int | None:
        if fcntl is None:
            return None
        try:
            return os.open(self.path, os.O_RDWR | os.O_CREAT, 0o666)
        except OSError:  # a read-only directory: no gate, readers and writers just retry
            return None

    def pass_through(self, waiter: _Waiter) -> None:
        fd = self._open()
        if fd is None:
            return
        try:
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
                    return
                except BlockingIOError:
                    waiter.blocked("a writer in another process")
        finally:
            os.close(fd)  # closing drops the shared lock at once

    @contextmanager
    def closed(self, waiter: _Waiter) -> Iterator[None]:
        fd = self._open()
        if fd is None:
            yield
            return
        try:
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    waiter.blocked("another writer")
            yield
        finally:
            os.close(fd)


class MemoryEngine:
    """``:memory:``: one connection for the life of the object (closing it loses the data)."""

    def __init__(self) -> None:
        self.path = ":memory:"
        self._con = duckdb.connect(":memory:")

    @contextmanager
    def reading(self, report: WaitReporter | None = None) -> Iterator[None]:
        yield

    def cursor(self) -> duckdb.DuckDBPyConnection:
        return self._con.cursor()

    @contextmanager
    def writing(self, report: WaitReporter | None = None) -> Iterator[duckdb.DuckDBPyConnection]:
        yield self._con.cursor()

    def schema_sql(self, sql: str) -> str:
        return embedded_sql(sql)

    def close(self) -> None:
        self._con.close()


_engines: dict[str, FileEngine] = {}
_engines_lock = threading.Lock()


class FileEngine:
    """One process's access to one warehouse file: attached while used, detached when idle.

    There is one per file per process (``shared``), so that a read-only and a read-write
    ``Warehouse`` of the same file in one process (the dashboard's) take turns instead of
    colliding.
    """

    @classmethod
    def shared(cls, path: str) -> FileEngine:
        key = os.path.realpath(path)
        with _engines_lock:
            engine = _engines.get(key)
            if engine is None or engine._closed:
                engine = _engines[key] = cls(path)
            engine._users += 1
            return engine

    def __init__(self, path: str) -> None:
        self.path = path
        self._users = 0
        self._db = duckdb.connect(":memory:")
        self._gate = _Gate(path)
        self._state = threading.Condition()
        self._readers = 0
        self._writing = False
        self._writers_waiting = 0
        self._attach_lock = threading.Lock()
        self._attached: str | None = None  # None, "read" or "write"
        self._cursors: list[duckdb.DuckDBPyConnection] = []
        self._mine = threading.local()
        self._closed = False

    # -- attaching ----------------------------------------------------------------------------
    def _attach(self, mode: str, waiter: _Waiter) -> None:
        sql = f"ATTACH {sql_literal(self.path)} AS {ALIAS}" + (
            " (READ_ONLY)" if mode == "read" else ""
        )
        while True:
            try:
                self._db.execute(sql)
                self._attached = mode
                return
            except duckdb.Error as exc:
                if _is_from_newer_duckdb(exc):
                    raise WarehouseError(
                        f"the warehouse {self.path} was written by a newer DuckDB than this "
                        f"tokendesk runs ({duckdb.__version__}), which cannot read it. Rebuild "
                        "it with `tokendesk db rebuild` (the old file is kept beside it)."
                    ) from None
                if _is_unreplayable_log(exc):
                    raise WarehouseError(
                        f"the warehouse {self.path} cannot be opened: a process stopped while"
                        f" writing it, and DuckDB cannot replay the log it left ({self.path}.wal)."
                        " Rebuild it with `tokendesk db rebuild` (the old file and its log are"
                        " kept beside it)."
                    ) from None
                reason = _refused_by_the_file_system(exc)
                if reason:
                    raise WarehouseError(
                        f"the warehouse {self.path} cannot be opened ({reason}). Give a path"
                        " this user may read (and, to build or write it, write)"
                    ) from None
                if not _is_lock_conflict(exc):
                    raise
                waiter.blocked(_holder_of(exc))

    def _detach(self) -> None:
        if self._attached is not None:
            self._attached = None
            # A cursor still alive pins the file open (DuckDB keeps the attached database while a
            # connection uses it), so the next ATTACH would fail: close every cursor handed out.
            cursors, self._cursors = self._cursors, []
            for cursor in cursors:
                cursor.close()
            self._db.execute(f"DETACH {ALIAS}")

    def _cursor(self) -> duckdb.DuckDBPyConnection:
        cursor = self._db.cursor()
        cursor.execute(f"USE {ALIAS}")
        self._cursors.append(cursor)
        return cursor

    def _my_reads(self) -> int:
        return getattr(self._mine, "reads", 0)

    # -- reading ------------------------------------------------------------------------------
    @contextmanager
    def reading(self, report: WaitReporter | None = None) -> Iterator[None]:
        """Keep the file attached (read-only, or read-write inside a write) for this block."""
        if getattr(self._mine, "writing", False) or self._my_reads():
            self._mine.reads = self._my_reads() + 1
            try:
                yield
            finally:
                self._mine.reads -= 1
            return
        waiter = _Waiter(
            "read",
            self.path,
            _wait_limit(READ_WAIT_ENV, DEFAULT_READ_WAIT_S),
            reporter_for(report),
        )
        # Even when this process has the file attached already, a new read waits while a writer
        # elsewhere holds the gate: else overlapping sessions could keep the file forever. An
        # attachment no read of this process uses any more (a ``cursor()`` taken outside a read
        # block) is let go first: kept, it would hold the file while this read waits for the
        # writer, and the writer for it, until one of them gave up.
        self._release_if_idle()
        self._gate.pass_through(waiter)
        with self._state:
            while self._writing or self._writers_waiting:
                self._state.wait()
            self._readers += 1
        self._mine.reads = 1
        try:
            with self._attach_lock:
                if self._attached is None:
                    self._attach("read", waiter)
            waiter.finished()
            yield
        finally:
            self._mine.reads = 0
            with self._state:
                self._readers -= 1
                last = self._readers == 0
                self._state.notify_all()
            if last:
                self._release_if_idle()

    def _release_if_idle(self) -> None:
        with self._attach_lock, self._state:
            if self._readers == 0 and not self._writing:
                self._detach()

    def cursor(self) -> duckdb.DuckDBPyConnection:
        """A cursor on the attached file. Outside a read or write block the file is attached
        read-only and stays attached until this process's next read block ends or it writes."""
        if self._attached is None:
            with self._attach_lock:
                if self._attached is None:
                    waiter = _Waiter(
                        "read", self.path, _wait_limit(READ_WAIT_ENV, DEFAULT_READ_WAIT_S), None
                    )
                    self._gate.pass_through(waiter)
                    self._attach("read", waiter)
        return self._cursor()

    # -- writing ------------------------------------------------------------------------------
    @contextmanager
    def writing(self, report: WaitReporter | None = None) -> Iterator[duckdb.DuckDBPyConnection]:
        """Attach read-write for one block; yields a cursor. Waits (bounded) and reports."""
        if getattr(self._mine, "writing", False):
            yield self._cursor()
            return
        mine = self._my_reads()
        with self._state:
            self._writers_waiting += 1
            try:
                while self._writing or self._readers > (1 if mine else 0):
                    self._state.wait()
            finally:
                self._writers_waiting -= 1
            self._writing = True
        self._mine.writing = True
        try:
            waiter = _Waiter(
                "write",
                self.path,
                _wait_limit(WRITE_WAIT_ENV, DEFAULT_WRITE_WAIT_S),
                reporter_for(report),
            )
            with self._attach_lock:
                self._detach()  # a read-only attach of this process (this thread's, or lingering)
            with self._gate.closed(waiter):
                with self._attach_lock:
                    self._attach("write", waiter)
                waiter.finished()
                try:
                    yield self._cursor()
                finally:
                    with self._attach_lock:
                        self._detach()
        finally:
            self._mine.writing = False
            with self._state:
                self._writing = False
                self._state.notify_all()

    def schema_sql(self, sql: str) -> str:
        return embedded_sql(sql)

    def close(self) -> None:
        """Let go of one user; the last one closes the in-memory DuckDB."""
        with _engines_lock:
            self._users -= 1
            if self._users > 0 or self._closed:
                return
            self._closed = True
            if _engines.get(os.path.realpath(self.path)) is self:
                del _engines[os.path.realpath(self.path)]
        with self._attach_lock:
            try:
                self._detach()
            finally:
                self._db.close()
