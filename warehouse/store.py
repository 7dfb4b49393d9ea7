"""The warehouse: the only code that opens DuckDB.

Every ingest is one transaction that either writes a whole snapshot or nothing. Snapshots are
append-only: nothing is updated or deleted, and "current" is a view over the newest good
snapshot per source (see ``migrations.py``). The writes themselves are in
``snapshot_writes.py``.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, suppress
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import duckdb
import pandas as pd

from tokendesk.access import Action, Principal, local_user
from tokendesk.catalog import load_catalog
from tokendesk.paths import default_db_path
from tokendesk.records import (
    PriceQuote,
    SnapshotKind,
)
from warehouse.bundled import loaded_digests
from warehouse.catalog_queries import SNAPSHOT_DATE_KNOWN_SQL
from warehouse.engine import (
    FileEngine,
    MemoryEngine,
    WaitReporter,
    WarehouseError,
    write_wait_limit,
)
from warehouse.files import BUNDLED_DATA, holds_data, missing_parts, refuse_unless_duckdb_file
from warehouse.lake import (
    CatalogWait,
    LakeEngine,
    describe,
    is_lake_target,
    unreachable_reason,
)
from warehouse.lake_copy import LakeCopyEngine
from warehouse.migrations import MIGRATIONS, Migration, pending_migrations
from warehouse.new_file import discard, publish, staging_path, sweep_abandoned
from warehouse.price_rows import PRICE_COLUMNS, utc_naive
from warehouse.queries import cost_options
from warehouse.seed import PriceCheck, load_seed
from warehouse.snapshot_writes import SnapshotWrites
from warehouse.workspace_versions import seed_workspace

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


class Warehouse(SnapshotWrites):
    """A DuckDB warehouse file (or ``:memory:``) with tokendesk's schema.

    A file is not held open: reads attach it read-only for the call, writes attach it
    read-write for the transaction only (see ``engine.py``), so several processes can share it.
    """

    def __init__(
        self,
        engine: FileEngine | MemoryEngine | LakeEngine | LakeCopyEngine,
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
        local_copy: bool = False,
    ) -> Warehouse:
        """Open (and, on first use, build from the bundled ``data/``) the warehouse at ``path``.

        ``path`` is a DuckDB file, ``:memory:``, or ``ducklake:postgres:<conninfo>`` for team
        mode (``lake.py``), whose data files go to ``data_path`` (default: the environment's
        ``TOKENDESK_DATA_PATH``).

        Opening holds no lock. A missing file is built, and pending migrations are applied, in
        one short write (also for a read-only open, so the dashboard's first start needs no
        separate setup step). ``on_wait`` hears when a write waits for another process.

        A warehouse without data — a new one, or one whose build stopped between its schema and
        its data (``warehouse.files.missing_parts``) — is filled from the bundled seed only when
        ``seed_check`` is given: the price integrity check the seed must pass
        (``pricing.integrity.check_price_file``, passed by the commands and the dashboard; the
        warehouse does not import pricing). Without it, or with ``build=False``, a new warehouse
        holds the schema, the accelerator catalog and the example workspace only; a read-only
        open with ``build=False`` refuses a missing file.
        ``actor`` is who writes (default: the local user); the build and migrations are the
        installation's own and are recorded under the local user.

        ``local_copy`` (team mode, for a long-lived reader: the dashboard): reads run on a local
        in-memory copy of the lake's newest snapshot, made again once per catalog snapshot when
        ``catalog_snapshot()`` sees a new one (``lake_copy.py``); writes still go to the lake.
        """
        target = str(path if path is not None else default_db_path())
        if is_lake_target(target):
            warehouse = cls._open_lake(target, data_path, build, seed_check, on_wait, read_only)
            if local_copy and isinstance(warehouse._engine, LakeEngine):
                warehouse._engine = LakeCopyEngine(warehouse._engine)
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
        sweep_abandoned(Path(target))  # what a killed build left beside the file
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
        fills = build and seed_check is not None
        if not exists:
            cls._build_new_file(Path(target), seed_check if fills else None, on_wait)
            exists = True
        engine = FileEngine.shared(target)
        warehouse = cls(engine, target, read_only=False, on_wait=on_wait)
        try:
            needs_write = not exists
            if exists:
                with engine.reading(on_wait):
                    missing = missing_parts(engine.cursor())
                # A file with its schema but no data is filled by a caller that builds; for one
                # that builds nothing (``build=False``) it is as it should be.
                needs_write = bool(missing) and (fills or missing != [BUNDLED_DATA])
            if needs_write:
                with engine.writing(on_wait):
                    warehouse.migrate()
                    if build and seed_check is not None:
                        warehouse._fill_if_empty(seed_check)
        except BaseException:
            engine.close()
            raise
        warehouse.read_only = read_only
        warehouse.actor = actor or warehouse.actor
        return warehouse

    @classmethod
    def _build_new_file(
        cls, target: Path, seed_check: PriceCheck | None, on_wait: WaitReporter | None
    ) -> None:
        """Build a new warehouse file beside ``target`` and link it into place once closed
        (``new_file.py``): a kill at any moment leaves no file or the whole one. A seed that
        fails its check leaves the migrated file without data, as an interrupted fill would,
        and the error goes on to the caller."""
        staging = staging_path(target)
        engine = FileEngine(str(staging))
        migrated = False
        try:
            with engine.writing(on_wait):
                building = cls(engine, str(staging), read_only=False, on_wait=on_wait)
                building.migrate()
                migrated = True
                if seed_check is not None:
                    building._fill_if_empty(seed_check)
        except WarehouseError as exc:  # said of the path the user gave, not of the staging file
            raise WarehouseError(str(exc).replace(str(staging), str(target))) from None
        finally:
            engine.close()
            if migrated:
                publish(staging, target)
            else:
                discard(staging)

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
                warehouse.migrate()
            if build and seed_check is not None:
                warehouse._fill_if_empty(seed_check)
            engine.ensure_id_counters()
            warehouse._seed_lake_workspace()
        except BaseException:
            engine.close()
            raise
        return warehouse

    def _fill_if_empty(self, seed_check: PriceCheck) -> None:
        """Load the bundled data into a migrated warehouse that holds none: a new one, or one
        whose build stopped between its schema and its data (a killed ``db init``, a crash, a
        full disk). Checked inside the write, so of two processes opening it at once only the
        first loads it; in a lake, where writers do not wait for each other, altering the table
        makes DuckLake refuse the second of two simultaneous loads (its opener tries again)."""
        with self.atomic(), self._transaction() as tx:
            if holds_data(tx):
                return
            if self.is_lake:
                tx.execute("COMMENT ON TABLE snapshots IS 'bundled data loaded'")
            load_seed(self, seed_check)

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
        return self._lake() is not None

    @property
    def local_copy(self) -> LakeCopyEngine | None:
        """Team mode opened with ``local_copy``: the copy the reads run on; None otherwise."""
        return self._engine if isinstance(self._engine, LakeCopyEngine) else None

    def _lake(self) -> LakeEngine | None:
        if isinstance(self._engine, LakeCopyEngine):
            return self._engine.lake
        return self._engine if isinstance(self._engine, LakeEngine) else None

    def next_ids(self, counter: str, count: int) -> list[int] | None:
        """Ids for rows about to be written, where the engine has no sequences (DuckLake);
        None where the table's own DEFAULT numbers them (an embedded file)."""
        lake = self._lake()
        return lake.next_ids(counter, count) if lake is not None else None

    def catalog_snapshot(self) -> int | None:
        """Team mode: the newest committed DuckLake snapshot (changes with every write made by
        any process); None for a file, whose writes show in its modification time. With a local
        copy: the snapshot its reads see, brought up to the newest first (unless another thread
        is doing that now; its reads keep the previous copy until the new one is complete)."""
        if isinstance(self._engine, LakeCopyEngine | LakeEngine):
            return self._engine.catalog_snapshot()
        return None

    def advance_id_counters(self) -> None:
        """After rows were copied in with their ids, let new ids start past them (team mode)."""
        lake = self._lake()
        if lake is not None:
            lake.advance_id_counters()

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

    def planning_option_count(self) -> int:
        """The options the scenario engine would plan on (``queries.planning_option_count``),
        inside ``atomic()`` with what the command wrote so far, uncommitted."""
        from warehouse.queries import planning_option_count

        return planning_option_count(self._batch if self._batch is not None else self.cursor())

    def oldest_snapshot_as_of(self) -> datetime | None:
        """The data date of the oldest good snapshot, inside ``atomic()`` with what the command
        wrote so far, uncommitted; None for an empty warehouse."""
        con = self._batch if self._batch is not None else self.cursor()
        row = con.execute("SELECT min(as_of) FROM snapshots WHERE status = 'ok'").fetchone()
        return row[0] if row and row[0] is not None else None

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

    def bundled_file_digests(self) -> dict[str, str]:
        """The SHA-256 of the copy of each bundled file the warehouse last loaded, by file name
        (empty where it records none)."""
        with self.reading():
            return loaded_digests(self.cursor())

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


#: How often a process starting on a new lake tries again after losing the race to build it.
LAKE_START_ATTEMPTS = 5


def _lost_a_race(exc: Exception) -> bool:
    """Another process created the same catalog table or committed the same migration first."""
    text = str(exc).lower()
    return any(words in text for words in ("duplicate key value", "already exists", "conflict"))


def _none_for_nan(row: dict) -> dict:
    return {
        key: (
            None
            if value is None or (isinstance(value, float) and value != value) or value is pd.NaT
            else value
        )
        for key, value in row.items()
    }
