"""The warehouse: the only code that opens DuckDB.

Every ingest is one transaction that either writes a whole snapshot or nothing. Snapshots are
append-only: nothing is updated or deleted, and "current" is a view over the newest good
snapshot per source (see ``migrations.py``).
"""

from __future__ import annotations

import hashlib
import time
import uuid
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager, suppress
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import duckdb
import pandas as pd
import pyarrow as pa

from tokendesk.access import Action, Principal, local_user
from tokendesk.catalog import check_in_catalog, load_catalog
from tokendesk.paths import default_db_path
from tokendesk.records import (
    BenchmarkResult,
    PriceQuote,
    SnapshotKind,
    SnapshotStatus,
)
from tokendesk.textsafety import safe_message
from warehouse.catalog_queries import SNAPSHOT_DATE_KNOWN_SQL
from warehouse.engine import (
    FileEngine,
    MemoryEngine,
    WaitReporter,
    WarehouseError,
    write_wait_limit,
)
from warehouse.files import refuse_unless_duckdb_file
from warehouse.lake import (
    CatalogWait,
    LakeEngine,
    describe,
    is_lake_target,
    unreachable_reason,
)
from warehouse.migrations import MIGRATIONS, Migration, pending_migrations
from warehouse.price_rows import PRICE_COLUMNS, price_row, utc_naive
from warehouse.queries import cost_options
from warehouse.seed import PriceCheck, load_seed
from warehouse.workspaces import seed_workspace

RESULT_COLUMNS = tuple(
    name for name in BenchmarkResult.model_fields if name not in {"ttft_basis"}
) + ("ttft_basis",)

#: Fields that identify one configuration; its operating points differ only in load.
CONFIG_FIELDS = (
    "accelerator_id",
    "accelerators_per_replica",
    "system",
    "runtime",
    "runtime_version",
    "model",
    "precision",
    "workload",
    "input_tokens",
    "output_tokens",
    "source_tool",
    "source_url",
)

ACCELERATOR_COLUMNS = (
    "accelerator_id",
    "name",
    "vendor",
    "backend",
    "memory_gib",
    "memory_bandwidth_tb_s",
    "peak_dense_bf16_tflops",
    "source_title",
    "source_url",
    "source_date",
    "notes",
)


def config_key(result: BenchmarkResult) -> str:
    """A short stable id for the configuration a result belongs to."""
    parts = "|".join(str(getattr(result, name)) for name in CONFIG_FIELDS)
    return hashlib.sha1(parts.encode(), usedforsecurity=False).hexdigest()[:12]


def new_snapshot_id(kind: SnapshotKind, source: str, now: datetime) -> str:
    slug = "".join(ch if ch.isalnum() else "-" for ch in source.lower()).strip("-")[:40]
    return f"{kind.value}-{slug}-{now:%Y%m%dT%H%M%S}-{uuid.uuid4().hex[:6]}"


def _newest(moments: Iterable[datetime | None], fallback: datetime) -> datetime:
    """The newest known date; ``fallback`` (the write time) when no row carries a date."""
    known = [m.astimezone(UTC).replace(tzinfo=None) if m.tzinfo else m for m in moments if m]
    return max(known) if known else fallback


class Warehouse:
    """A DuckDB warehouse file (or ``:memory:``) with tokendesk's schema.

    A file is not held open: reads attach it read-only for the call, writes attach it
    read-write for the transaction only (see ``engine.py``), so several processes can share it.
    """

    def __init__(
        self,
        engine: FileEngine | MemoryEngine | LakeEngine,
        path: str,
        read_only: bool,
        on_wait: WaitReporter | None = None,
        actor: Principal | None = None,
    ) -> None:
        self._engine = engine
        self.path = path
        self.read_only = read_only
        self.on_wait = on_wait
        #: Who writes through this warehouse: recorded with every snapshot and workspace
        #: version, and checked before every write.
        self.actor = actor or local_user()
        self._closed = False
        #: The open command-wide transaction, if any (see ``atomic``).
        self._batch: duckdb.DuckDBPyConnection | None = None

    # -- opening ------------------------------------------------------------------------------
    @classmethod
    def open(
        cls,
        path: Path | str | None = None,
        *,
        read_only: bool = False,
        build: bool = True,
        seed_check: PriceCheck | None = None,
        on_wait: WaitReporter | None = None,
        actor: Principal | None = None,
        data_path: str | None = None,
    ) -> Warehouse:
        """Open (and, on first use, build from the bundled ``data/``) the warehouse at ``path``.

        ``path`` is a DuckDB file, ``:memory:``, or ``ducklake:postgres:<conninfo>`` for team
        mode (``lake.py``), whose data files go to ``data_path`` (default: the environment's
        ``TOKENDESK_DATA_PATH``).

        Opening holds no lock. A missing file is built, and pending migrations are applied, in
        one short write (also for a read-only open, so the dashboard's first start needs no
        separate setup step). ``on_wait`` hears when a write waits for another process.

        A new warehouse is filled from the bundled seed only when ``seed_check`` is given: the
        price integrity check the seed must pass (``pricing.integrity.check_price_file``, passed
        by the commands and the dashboard; the warehouse does not import pricing). Without it,
        or with ``build=False``, a new warehouse holds the schema, the accelerator catalog and the
        example workspace only; a read-only open with ``build=False`` refuses a missing file.
        ``actor`` is who writes (default: the local user); the build and migrations are the
        installation's own and are recorded under the local user.
        """
        target = str(path if path is not None else default_db_path())
        if is_lake_target(target):
            warehouse = cls._open_lake(target, data_path, build, seed_check, on_wait, read_only)
            warehouse.read_only = read_only
            warehouse.actor = actor or warehouse.actor
            return warehouse
        if target == ":memory:":
            warehouse = cls(MemoryEngine(), target, read_only=False)
            fresh = warehouse.migrate()
            if fresh and build and seed_check is not None:
                load_seed(warehouse, seed_check)
            warehouse.read_only = read_only
            warehouse.actor = actor or warehouse.actor
            return warehouse
        exists = Path(target).exists()
        if exists:
            refuse_unless_duckdb_file(Path(target))
        if not exists and read_only and not build:
            raise WarehouseError(f"no warehouse at {target}; run `tokendesk db init`")
        try:
            Path(target).parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:  # a parent that is a file, a read-only or virtual file system
            raise WarehouseError(
                f"the warehouse path {target} cannot be used: its folder cannot be created"
                f" ({exc.strerror or type(exc).__name__}); give a path in a folder you can write"
            ) from None
        engine = FileEngine.shared(target)
        warehouse = cls(engine, target, read_only=False, on_wait=on_wait)
        try:
            needs_write = not exists
            if exists:
                with engine.reading(on_wait):
                    needs_write = pending_migrations(engine.cursor(), MIGRATIONS) != []
            if needs_write:
                with engine.writing(on_wait):
                    fresh = warehouse.migrate()
                    if fresh and build and seed_check is not None:
                        load_seed(warehouse, seed_check)
        except BaseException:
            engine.close()
            raise
        warehouse.read_only = read_only
        warehouse.actor = actor or warehouse.actor
        return warehouse

    @classmethod
    def _open_lake(
        cls,
        target: str,
        data_path: str | None,
        build: bool,
        seed_check: PriceCheck | None,
        on_wait: WaitReporter | None,
        read_only: bool,
    ) -> Warehouse:
        """Open a DuckLake warehouse; an empty catalog is built like a new file.

        Processes that start together on a new catalog race to create it; the losers' commits
        fail (DuckLake's own tables or a migration "already exists"), and they try again after
        a pause, when there is nothing left to create.

        A writer whose catalog server does not answer (PostgreSQL restarting) waits for it, up to
        ``TOKENDESK_WRITE_WAIT_S``, and says so; a reader (the dashboard) does not wait: its page
        says the catalog does not answer, at once.
        """
        waited = CatalogWait(describe(target), 0.0 if read_only else write_wait_limit(), on_wait)
        attempt = 0
        while True:
            try:
                opened = cls._try_open_lake(target, data_path, build, seed_check, on_wait)
            except (duckdb.Error, WarehouseError) as exc:
                if unreachable_reason(exc) and waited.again(exc):
                    continue
                attempt += 1
                if attempt == LAKE_START_ATTEMPTS or not _lost_a_race(exc):
                    raise
                time.sleep(0.2 * 2 ** (attempt - 1))
            else:
                waited.finished()
                return opened

    @classmethod
    def _try_open_lake(
        cls,
        target: str,
        data_path: str | None,
        build: bool,
        seed_check: PriceCheck | None,
        on_wait: WaitReporter | None,
    ) -> Warehouse:
        engine = LakeEngine.shared(target, data_path)
        warehouse = cls(engine, engine.path, read_only=False, on_wait=on_wait)
        try:
            with engine.writing() as cursor:
                pending = pending_migrations(cursor, MIGRATIONS)
            if pending:
                fresh = warehouse.migrate()
                if fresh and build and seed_check is not None:
                    load_seed(warehouse, seed_check)
            engine.ensure_id_counters()
            warehouse._seed_lake_workspace()
        except BaseException:
            engine.close()
            raise
        return warehouse

    def _seed_lake_workspace(self) -> None:
        """Store the example workspace as version 1 of a lake that has none, exactly once:
        whichever starter applied which migration, each checks here, and altering the table
        makes DuckLake refuse the second of two simultaneous seeds (its opener tries again)."""
        with self.atomic(), self._transaction() as tx:
            row = tx.execute("SELECT count(*) FROM workspaces").fetchone()
            if row and row[0]:
                return
            tx.execute("COMMENT ON TABLE workspaces IS 'example workspace seeded'")
            seed_workspace(self)

    @property
    def is_lake(self) -> bool:
        """True for a team-mode (DuckLake) warehouse."""
        return isinstance(self._engine, LakeEngine)

    def next_ids(self, counter: str, count: int) -> list[int] | None:
        """Ids for rows about to be written, where the engine has no sequences (DuckLake);
        None where the table's own DEFAULT numbers them (an embedded file)."""
        if isinstance(self._engine, LakeEngine):
            return self._engine.next_ids(counter, count)
        return None

    def catalog_snapshot(self) -> int | None:
        """Team mode: the newest committed DuckLake snapshot (changes with every write made by
        any process); None for a file, whose writes show in its modification time."""
        if isinstance(self._engine, LakeEngine):
            return self._engine.catalog_snapshot()
        return None

    def advance_id_counters(self) -> None:
        """After rows were copied in with their ids, let new ids start past them (team mode)."""
        if isinstance(self._engine, LakeEngine):
            self._engine.advance_id_counters()

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._engine.close()

    def __enter__(self) -> Warehouse:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def reading(self) -> AbstractContextManager[None]:
        """Keep one consistent view of the warehouse for a block of reads; on leaving it the
        file is let go, so other processes can write and the next block sees their snapshots."""
        return self._engine.reading(self.on_wait)

    def cursor(self) -> duckdb.DuckDBPyConnection:
        """A cursor on the warehouse: safe to use from one thread per call. Use it inside
        ``reading()`` in long-lived processes, so the file is let go afterwards."""
        return self._engine.cursor()

    # -- schema -------------------------------------------------------------------------------
    def migrate(self) -> bool:
        """Apply pending migrations; return True if the warehouse was empty before."""
        with (
            self._engine.writing() as con
        ):  # one write: a concurrent opener waits, then sees it done
            con.execute(
                self._engine.schema_sql(
                    "CREATE TABLE IF NOT EXISTS schema_migrations ("
                    " version INTEGER PRIMARY KEY, name VARCHAR NOT NULL,"
                    " applied_at TIMESTAMP NOT NULL)"
                )
            )
            pending = pending_migrations(con, MIGRATIONS)
            applied = [m for m in pending if self._apply_migration(m)]
            fresh = len(applied) == len(MIGRATIONS)
            if applied:
                self.sync_catalog()
            if isinstance(self._engine, LakeEngine):
                self._engine.ensure_id_counters()  # the seed workspace below takes a number
            if any(m.version == 6 for m in applied) and not isinstance(self._engine, LakeEngine):
                seed_workspace(self)  # a lake seeds its example once, in _seed_lake_workspace
        return fresh

    def _apply_migration(self, migration: Migration) -> bool:
        """Apply one migration in its own transaction; False if another process already had."""
        lake = isinstance(self._engine, LakeEngine)
        with self._transaction() as tx:
            if lake:
                # Many processes share a lake: what was pending when this one looked may have
                # been applied since. Two applying it at once must not both commit (replacing
                # a view does not conflict), so each alters the ledger: DuckLake refuses the
                # second commit, and that opener tries again (see ``_open_lake``).
                done = tx.execute(
                    "SELECT count(*) FROM schema_migrations WHERE version = ?",
                    [migration.version],
                ).fetchone()
                if done and done[0]:
                    return False
                tx.execute(
                    f"COMMENT ON TABLE schema_migrations IS 'migration {int(migration.version)}'"
                )
            tx.execute(self._engine.schema_sql(migration.sql))
            tx.execute(
                "INSERT INTO schema_migrations VALUES (?, ?, ?)",
                [migration.version, migration.name, utc_naive(datetime.now(UTC))],
            )
        return True

    def schema_version(self) -> int:
        with self.reading():
            row = (
                self.cursor()
                .execute("SELECT coalesce(max(version), 0) FROM schema_migrations")
                .fetchone()
            )
        return int(row[0]) if row else 0

    def sync_catalog(self) -> None:
        """Reload the accelerator reference table from the bundled catalog (not snapshot data)."""
        frame = pd.DataFrame(
            [acc.model_dump(mode="python") for acc in load_catalog().values()],
            columns=list(ACCELERATOR_COLUMNS),
        )
        frame["backend"] = frame["backend"].astype(str)
        with self._transaction() as tx:
            tx.execute("DELETE FROM accelerators")
            tx.register("incoming_accelerators", frame)
            tx.execute(
                f"INSERT INTO accelerators ({', '.join(ACCELERATOR_COLUMNS)}) "  # noqa: S608 - fixed column list
                f"SELECT {', '.join(ACCELERATOR_COLUMNS)} FROM incoming_accelerators"
            )
            tx.unregister("incoming_accelerators")

    @contextmanager
    def atomic(self) -> Iterator[Warehouse]:
        """One transaction around everything written inside: a command that ingests several
        files or providers commits all of them or none (a kill -9 before COMMIT leaves the
        previous state, which DuckDB restores from its write-ahead log on the next open)."""
        if self._batch is not None:
            yield self
            return
        self._check_writable()
        with self._engine.writing(self.on_wait) as tx:
            tx.execute("BEGIN TRANSACTION")
            self._batch = tx
            try:
                yield self
            except BaseException:
                self._batch = None
                tx.execute("ROLLBACK")
                raise
            else:
                self._batch = None
                tx.execute("COMMIT")

    @contextmanager
    def memory_capped(self, limit: str) -> Iterator[None]:
        """Inside ``atomic()``: cap the memory this process's DuckDB may hold for the block (a
        write of a million rows then spills its pages instead of keeping them), then return to
        the default (nothing else sets one), so later reads of a long-lived process are not
        held to it."""
        if self._batch is None:
            raise WarehouseError("memory_capped() is used inside atomic()")
        tx = self._batch
        tx.execute("SET memory_limit = ?", [limit])
        try:
            yield
        finally:
            # A failed write may have aborted the transaction: its own error is the one to
            # report (atomic() rolls it back), and the cap then stays for this process.
            with suppress(duckdb.Error):
                tx.execute("RESET memory_limit")

    def _check_writable(self) -> None:
        """Every write passes here first: a read-only connection or an actor whose role may
        not write is refused before the file is touched."""
        if self.read_only:
            raise WarehouseError("this warehouse connection is read-only")
        self.actor.require(Action.WRITE)

    @contextmanager
    def _transaction(self) -> Iterator[duckdb.DuckDBPyConnection]:
        if self._batch is not None:  # part of a command-wide transaction: it commits
            yield self._batch
            return
        self._check_writable()
        with self._engine.writing(self.on_wait) as tx:
            tx.execute("BEGIN TRANSACTION")
            try:
                yield tx
            except BaseException:
                tx.execute("ROLLBACK")
                raise
            else:
                tx.execute("COMMIT")

    # -- ingest -------------------------------------------------------------------------------
    def ingest_prices(
        self,
        source: str,
        quotes: Sequence[PriceQuote],
        *,
        origin: str = "api",
        status: SnapshotStatus = SnapshotStatus.OK,
        error: str = "",
        as_of: datetime | None = None,
        scope: Sequence[str] | None = None,
        complete: bool = False,
        quarantine: Mapping[int, str] | None = None,
        review_flags: Mapping[int, str] | None = None,
        integrity: Sequence[tuple[str, int, int, str]] | None = None,
        notes: str = "",
    ) -> str:
        """Write one price snapshot in one transaction; return its id.

        ``source`` names what the snapshot speaks for (a provider such as ``aws``, or a sheet
        such as ``sheet:negotiated``). Each item it lists (region x zone x instance type x
        pricing model x basis x quote) is current until a newer good observation of the same
        item; ``scope`` records the regions it covered (default: those its quotes name).
        ``complete`` declares the snapshot the whole catalog of its source (the bundled seed):
        older items it no longer lists are then withdrawn.
        """
        quarantine = quarantine or {}
        review_flags = review_flags or {}
        for index in (*quarantine, *review_flags):
            if not 0 <= index < len(quotes):
                raise WarehouseError(f"flag index {index} is outside the {len(quotes)} quotes")
        _check_catalog(quotes)
        rows = []
        for index, quote in enumerate(quotes):
            row = price_row(quote)
            row["quarantine_reason"] = quarantine.get(index)
            row["review_flag"] = review_flags.get(index)
            rows.append(row)
        frame = pd.DataFrame(rows, columns=[*PRICE_COLUMNS, "quarantine_reason", "review_flag"])
        now = datetime.now(UTC)
        return self.ingest_price_frames(
            source,
            [frame] if rows else [],
            row_count=len(quotes),
            regions=sorted({quote.region for quote in quotes}),
            origin=origin,
            status=status,
            error=error,
            as_of=as_of or _newest((q.observed_at for q in quotes), now),
            scope=scope,
            complete=complete,
            integrity=integrity,
            notes=notes,
            now=now,
        )

    def ingest_price_frames(
        self,
        source: str,
        frames: Iterable[pd.DataFrame | pa.Table],
        *,
        row_count: int,
        regions: Sequence[str],
        origin: str,
        as_of: datetime,
        status: SnapshotStatus = SnapshotStatus.OK,
        error: str = "",
        scope: Sequence[str] | None = None,
        complete: bool = False,
        integrity: Sequence[tuple[str, int, int, str]] | None = None,
        notes: str = "",
        now: datetime | None = None,
    ) -> str:
        """Write one price snapshot whose rows come as frames (``PRICE_COLUMNS`` plus
        ``quarantine_reason`` and ``review_flag``, checked rows only), one frame in memory at a
        time: how a price file of a million rows is written. ``regions``: the sorted regions its
        rows name; the rest as ``ingest_prices``."""
        if complete:
            scope = None
        elif scope is None:
            scope = list(regions) or ["-"]
        now = now or datetime.now(UTC)
        snapshot_id = new_snapshot_id(SnapshotKind.PRICES, source, now)
        columns = [*PRICE_COLUMNS, "quarantine_reason", "review_flag"]
        ids = self.next_ids("price_id", row_count)
        written = 0
        with self._transaction() as tx:
            self._insert_snapshot(
                tx,
                snapshot_id,
                SnapshotKind.PRICES,
                source,
                origin,
                scope,
                now,
                as_of,
                status,
                error,
                row_count,
                notes,
            )
            for frame in frames:
                count = len(frame)
                if ids is not None:
                    frame = _with_ids(frame, "price_id", ids[written : written + count])
                _insert_frame(
                    tx,
                    "price_quotes",
                    frame,
                    [*columns, *(["price_id"] if ids else [])],
                    snapshot_id,
                )
                written += count
            if written != row_count:
                raise WarehouseError(
                    f"{written} price rows were given for a snapshot of {row_count}; nothing written"
                )
            for rule, checked, failed, detail in integrity or ():
                tx.execute(
                    "INSERT INTO integrity_checks VALUES (?, ?, ?, ?, ?)",
                    [snapshot_id, rule, checked, failed, detail],
                )
        return snapshot_id

    def ingest_results(
        self,
        source: str,
        results: Sequence[BenchmarkResult],
        *,
        origin: str = "import",
        status: SnapshotStatus = SnapshotStatus.OK,
        error: str = "",
        as_of: datetime | None = None,
        notes: str = "",
    ) -> str:
        """Write one benchmark snapshot in one transaction; return its id."""
        now = datetime.now(UTC)
        snapshot_id = new_snapshot_id(SnapshotKind.BENCHMARKS, source, now)
        _check_catalog(results)
        rows = []
        for result in results:
            row = result.model_dump(mode="python")
            row["measured_at"] = utc_naive(row["measured_at"])
            row["instance_type"] = row["instance_type"] or None
            row["config_key"] = config_key(result)
            rows.append(row)
        columns = [*RESULT_COLUMNS, "config_key"]
        frame = pd.DataFrame(rows, columns=columns)
        ids = self.next_ids("result_id", len(rows))
        if ids is not None:
            frame["result_id"], columns = ids, [*columns, "result_id"]
        data_as_of = as_of or _newest((r.measured_at for r in results), now)
        with self._transaction() as tx:
            self._insert_snapshot(
                tx,
                snapshot_id,
                SnapshotKind.BENCHMARKS,
                source,
                origin,
                None,
                now,
                data_as_of,
                status,
                error,
                len(results),
                notes,
            )
            if rows:
                _insert_frame(tx, "benchmark_results", frame, columns, snapshot_id)
        return snapshot_id

    def record_failed_snapshot(
        self, kind: SnapshotKind, source: str, error: str, *, origin: str = "api"
    ) -> str:
        """Record that a refresh or import failed; the previous good snapshot stays current.

        The error text is stored with secrets redacted and control characters removed: an
        endpoint that echoes request headers must not get a key into the append-only table.
        """
        now = datetime.now(UTC)
        snapshot_id = new_snapshot_id(kind, source, now)
        with self._transaction() as tx:
            self._insert_snapshot(
                tx,
                snapshot_id,
                kind,
                source,
                origin,
                None,
                now,
                now,
                SnapshotStatus.FAILED,
                error,
                0,
                "",
            )
        return snapshot_id

    def retract_snapshot(self, snapshot_id: str, reason: str, retracted_by: str) -> datetime:
        """Mark a benchmark import as retracted (append-only); return when.

        Its results stay in the history and leave ``current_results`` and every cost. Raises
        :class:`RetractionError` (and writes nothing) for an unknown id, a snapshot that is not
        a good benchmark import, one already retracted, or an empty reason or name.
        """
        snapshot_id = snapshot_id.strip()
        reason = safe_message(reason.strip(), limit=500)
        retracted_by = safe_message(retracted_by.strip(), limit=100)
        if not reason:
            raise RetractionError("give a reason for the retraction (--reason TEXT)")
        if not retracted_by:
            raise RetractionError("say who retracts it (--by NAME)")
        now = datetime.now(UTC)
        with self._transaction() as tx:
            found = tx.execute(
                "SELECT s.kind, s.status, x.reason, x.retracted_by, x.retracted_at"
                " FROM snapshots s LEFT JOIN retractions x USING (snapshot_id)"
                " WHERE s.snapshot_id = ?",
                [snapshot_id],
            ).fetchone()
            if found is None:
                raise RetractionError(
                    f"no snapshot {snapshot_id!r}; `tokendesk db info` lists every snapshot id"
                )
            kind, status, old_reason, old_by, old_at = found
            if kind != SnapshotKind.BENCHMARKS.value:
                raise RetractionError(
                    f"snapshot {snapshot_id} holds prices; only benchmark imports are retracted "
                    "(a newer price refresh supersedes a price snapshot)"
                )
            if old_at is not None:
                raise RetractionError(
                    f"snapshot {snapshot_id} was already retracted on {old_at:%Y-%m-%d %H:%M} UTC "
                    f"by {old_by}: {old_reason}"
                )
            if status != SnapshotStatus.OK.value:
                raise RetractionError(
                    f"snapshot {snapshot_id} is a {status} import and holds no current results; "
                    "there is nothing to retract"
                )
            tx.execute(
                "INSERT INTO retractions (snapshot_id, reason, retracted_by, retracted_at)"
                " VALUES (?, ?, ?, ?)",
                [snapshot_id, reason, retracted_by, utc_naive(now)],
            )
        return now

    def _insert_snapshot(
        self,
        tx: duckdb.DuckDBPyConnection,
        snapshot_id: str,
        kind: SnapshotKind,
        source: str,
        origin: str,
        scope: Sequence[str] | None,
        created_at: datetime,
        as_of: datetime,
        status: SnapshotStatus,
        error: str,
        row_count: int,
        notes: str,
    ) -> None:
        scope_text = "*" if not scope else ",".join(scope)
        source = safe_message(source, limit=200)
        error = safe_message(error)
        notes = safe_message(notes)
        tx.execute(
            "INSERT INTO snapshots (snapshot_id, kind, source, origin, scope, created_at, as_of,"
            " status, error, row_count, notes) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                snapshot_id,
                kind.value,
                source,
                origin,
                scope_text,
                utc_naive(created_at),
                utc_naive(as_of),
                SnapshotStatus(status).value,
                error,
                row_count,
                notes,
            ],
        )
        tx.execute(
            "INSERT INTO snapshot_authors (snapshot_id, created_by) VALUES (?, ?)",
            [snapshot_id, safe_message(self.actor.name, limit=200)],
        )

    # -- reads --------------------------------------------------------------------------------
    def snapshots(self, kind: SnapshotKind | None = None) -> pd.DataFrame:
        """Every snapshot, oldest first, with who wrote it (``created_by``, '' if not recorded) and
        whether its data carries a date (``date_known``; when not, ``as_of`` is the write time)."""
        sql = (
            "SELECT s.*, coalesce(w.created_by, '') AS created_by,"  # noqa: S608 (a constant)
            f" {SNAPSHOT_DATE_KNOWN_SQL} AS date_known"
            " FROM snapshots s LEFT JOIN snapshot_authors w USING (snapshot_id)"
        )
        params: list[object] = []
        if kind is not None:
            sql += " WHERE kind = ?"
            params.append(SnapshotKind(kind).value)
        sql += " ORDER BY created_at, as_of, snapshot_id"
        with self.reading():
            return self.cursor().execute(sql, params).df()

    def retractions(self) -> pd.DataFrame:
        """Every retraction marker: snapshot_id, reason, retracted_by, retracted_at."""
        with self.reading():
            return (
                self.cursor()
                .execute(
                    # One marker per snapshot: the first, should two have landed at once in a
                    # team-mode lake (it has no primary key to refuse the second).
                    "SELECT snapshot_id, reason, retracted_by, retracted_at FROM retractions"
                    " QUALIFY row_number() OVER"
                    " (PARTITION BY snapshot_id ORDER BY retracted_at, retracted_by, reason) = 1"
                    " ORDER BY retracted_at, snapshot_id"
                )
                .df()
            )

    def current_price_quotes(self, provider: str | None = None) -> list[PriceQuote]:
        sql = f"SELECT {', '.join(PRICE_COLUMNS)} FROM current_prices"  # noqa: S608 - fixed columns
        params: list[object] = []
        if provider is not None:
            sql += " WHERE provider = ?"
            params.append(provider)
        with self.reading():
            frame = self.cursor().execute(sql, params).df()
        return [
            PriceQuote.model_validate(_none_for_nan(row), context={"stored": True})
            for row in frame.to_dict("records")
        ]

    def integrity_report(self, snapshot_id: str) -> pd.DataFrame:
        with self.reading():
            return (
                self.cursor()
                .execute(
                    "SELECT rule, checked, failed, detail FROM integrity_checks WHERE "
                    "snapshot_id = ? ORDER BY rule",
                    [snapshot_id],
                )
                .df()
            )

    def query(self, sql: str, params: Sequence[object] = ()) -> pd.DataFrame:
        """Run a named query from ``queries.py`` (never user-built SQL text)."""
        with self.reading():
            return self.cursor().execute(sql, list(params)).df()

    def table_counts(self) -> dict[str, int]:
        counts = {}
        with self.reading():
            counts.update(self._counts())
        return counts

    def _counts(self) -> dict[str, int]:
        counts = {}
        for table in (
            "snapshots",
            "price_quotes",
            "benchmark_results",
            "integrity_checks",
            "accelerators",
        ):
            row = self.cursor().execute(f"SELECT count(*) FROM {table}").fetchone()  # noqa: S608 - fixed names
            counts[table] = int(row[0]) if row else 0
        return counts

    def cost_options(self, **filters: Any) -> pd.DataFrame:

        with self.reading():
            return cost_options(self, **filters)


class RetractionError(WarehouseError):
    """A retraction that cannot be made: the message says why and what to do."""


def _check_catalog(rows: Sequence[PriceQuote] | Sequence[BenchmarkResult]) -> None:
    """Refuse the whole batch if any row names an accelerator the catalog does not know."""
    for index, row in enumerate(rows):
        try:
            check_in_catalog(row)  # type: ignore[type-var]  # each row is one of the two records
        except ValueError as exc:
            raise WarehouseError(f"row {index} ({type(row).__name__}): {exc}") from exc


#: How often a process starting on a new lake tries again after losing the race to build it.
LAKE_START_ATTEMPTS = 5


def _lost_a_race(exc: Exception) -> bool:
    """Another process created the same catalog table or committed the same migration first."""
    text = str(exc).lower()
    return any(words in text for words in ("duplicate key value", "already exists", "conflict"))


def _insert_frame(
    tx: duckdb.DuckDBPyConnection,
    table: str,
    frame: pd.DataFrame,
    columns: Sequence[str],
    snapshot_id: str,
) -> None:
    name = f"incoming_{table}"
    tx.register(name, frame)
    try:
        column_list = ", ".join(columns)
        tx.execute(
            f"INSERT INTO {table} (snapshot_id, {column_list}) "  # noqa: S608 - fixed identifiers
            f"SELECT ?, {column_list} FROM {name}",
            [snapshot_id],
        )
    finally:
        tx.unregister(name)


def _with_ids(
    frame: pd.DataFrame | pa.Table, column: str, ids: Sequence[int]
) -> pd.DataFrame | pa.Table:
    """``frame`` with its rows' ids (team mode numbers rows itself; a file's table does)."""
    if isinstance(frame, pa.Table):
        return frame.append_column(column, pa.array(ids, pa.int64()))
    return frame.assign(**{column: list(ids)})


def _none_for_nan(row: dict) -> dict:
    return {
        key: (
            None
            if value is None or (isinstance(value, float) and value != value) or value is pd.NaT
            else value
        )
        for key, value in row.items()
    }
