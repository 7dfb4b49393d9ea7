"""Team mode's reads in a long-lived reading process (the dashboard): a local copy of the lake.

A page's queries on the lake cost about five times what they cost on a file (each one plans
against the catalog in PostgreSQL and opens the Parquet files of every table it touches), and
every new catalog snapshot drops the dashboard's caches, so each of its processes paid that
price again for every query after every write. Here a process copies the lake's newest
snapshot, every table with the views over them, into an in-memory DuckDB of its own, once per
catalog snapshot, and its reads run on that copy: they cost what they cost on a file.

* **When**: ``catalog_snapshot()`` asks the catalog for its newest snapshot id (one small
  PostgreSQL query) and, when it moved past the copy's, makes a new copy. The dashboard asks
  once per page run. A read block also catches up first when this process wrote to the lake
  since the copy was made, so a person sees their own write on the next read.
* **Once per snapshot**: one thread makes the copy, under a lock. Threads that ask meanwhile
  keep reading the previous copy and do not wait for it; a new copy replaces the old one only
  when it is complete, and each read block keeps the copy it started with, so no read ever
  sees part of a snapshot.
* **Whole snapshots**: the tables are read inside one transaction of the lake, each ``AT
  (VERSION => n)`` of the snapshot id read first, so the copy is exactly snapshot ``n``.
* **Only what changed**: the warehouse appends. When every catalog snapshot since the copy's
  only inserted rows (DuckLake lists each snapshot's changes), the new copy takes the previous
  copy's tables and reads from the lake just the rows inserted since
  (``ducklake_table_insertions``): a write's few files instead of every file of every table.
  Any other change (a delete, a new column, a new table or view) makes a whole copy.
* **When the catalog does not answer**: the last good copy stays and reads go on from it; the
  refresh fails as ``CatalogUnreachable`` ("... does not answer ..."), so the page says that
  what it shows was read before the catalog stopped answering.

Writes go to the lake as before (``writing`` is the lake's own).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import duckdb
import pyarrow as pa

from warehouse.engine import WaitReporter, WarehouseError
from warehouse.lake import ALIAS, CATALOG_ALIAS, CatalogUnreachable, LakeEngine

#: A copy whose views still fail after this many passes has a view it cannot build (a view
#: over a view is built in a later pass than the view it reads).
_VIEW_PASSES = 8


@dataclass(frozen=True)
class LakeCopy:
    """One complete copy: the catalog snapshot it holds and the in-memory DuckDB holding it."""

    snapshot: int
    db: duckdb.DuckDBPyConnection

    def cursor(self) -> duckdb.DuckDBPyConnection:
        cursor = self.db.cursor()
        cursor.execute("SET enable_progress_bar = false")  # never into the CLI's stdout
        return cursor


class LakeCopyEngine:
    """Reads from a local copy of the lake's newest snapshot; writes to the lake."""

    def __init__(self, lake: LakeEngine) -> None:
        self.lake = lake
        self.path = lake.path
        self._copy: LakeCopy | None = None
        self._refresh_lock = threading.Lock()
        self._pinned = threading.local()  # the copy a thread's open read block reads
        self._writes_seen = lake.writes
        #: Copies made so far (one per catalog snapshot this process read), and how many of
        #: them read only the rows inserted since the copy before.
        self.refreshes = 0
        self.appended = 0

    # -- the copy ------------------------------------------------------------------------------
    @property
    def snapshot(self) -> int | None:
        """The catalog snapshot the reads see now; None before the first copy."""
        copy = self._copy
        return copy.snapshot if copy is not None else None

    def catalog_snapshot(self) -> int:
        """Bring the copy to the lake's newest snapshot (if no other thread is already doing
        so) and return the snapshot the reads see."""
        newest = self.lake.catalog_snapshot()  # CatalogUnreachable: the copy stays as it is
        copy = self._copy
        if copy is not None and copy.snapshot >= newest:
            return copy.snapshot
        # A first copy is waited for; a later one is made by one thread while the others go on
        # reading the copy they have.
        if not self._refresh_lock.acquire(blocking=copy is None):
            return copy.snapshot if copy is not None else newest
        try:
            return self._refresh_locked(newest)
        finally:
            self._refresh_lock.release()

    def _refresh_locked(self, newest: int) -> int:
        copy = self._copy
        if copy is not None and copy.snapshot >= newest:
            return copy.snapshot  # another thread made it while this one waited
        writes = self.lake.writes
        fresh = self._make_copy()
        self._copy = fresh
        self._writes_seen = writes
        self.refreshes += 1
        return fresh.snapshot

    def _make_copy(self) -> LakeCopy:
        """A complete new copy of the lake's newest snapshot; nothing is replaced on failure."""
        try:
            snapshot, tables, views, appended = self._read_lake(self._copy)
        except duckdb.Error as exc:
            kept = self.snapshot
            consequence = (
                f"The pages go on showing snapshot {kept}, read before it stopped answering."
                if kept is not None
                else "Nothing was read; reload once it answers."
            )
            plain = self.lake.unreachable(exc, consequence)
            if plain is None:
                raise
            raise plain from None
        db = duckdb.connect(
            ":memory:",
            config={"autoinstall_known_extensions": False, "autoload_known_extensions": False},
        )
        try:
            for name, rows in tables.items():
                db.register("lake_rows", rows)
                db.execute(f'CREATE TABLE "{name}" AS SELECT * FROM lake_rows')  # noqa: S608 - the lake's own table names
                db.unregister("lake_rows")
            _create_views(db, views)
        except BaseException:
            db.close()
            raise
        self.appended += appended
        return LakeCopy(snapshot, db)

    def _read_lake(
        self, previous: LakeCopy | None
    ) -> tuple[int, dict[str, object], dict[str, str], bool]:
        """The snapshot id, every table's rows at that snapshot, the views' SQL, and whether
        the rows were the previous copy's plus those inserted since."""
        cursor = self.lake.cursor()
        try:
            cursor.execute("BEGIN TRANSACTION")
            row = cursor.execute("SELECT id FROM ducklake_current_snapshot(?)", [ALIAS]).fetchone()
            snapshot = int(row[0]) if row else 0
            names = [
                str(name)
                for (name,) in cursor.execute(
                    "SELECT table_name FROM duckdb_tables()"
                    " WHERE database_name = ? AND schema_name = 'main' ORDER BY table_name",
                    [ALIAS],
                ).fetchall()
            ]
            inserted = _only_inserts(cursor, previous, snapshot)
            tables: dict[str, object] = {}
            for name in names:
                if previous is None or inserted is None:
                    tables[name] = cursor.execute(
                        f'SELECT * FROM "{name}" AT (VERSION => {snapshot})'  # noqa: S608 - names from the catalog, an int
                    ).to_arrow_table()
                else:
                    tables[name] = _appended(cursor, previous, name, name in inserted, snapshot)
            views = dict(
                cursor.execute(
                    "SELECT view_name, sql FROM duckdb_views()"
                    " WHERE database_name = ? AND schema_name = 'main' AND NOT internal",
                    [ALIAS],
                ).fetchall()
            )
            cursor.execute("COMMIT")
            return snapshot, tables, views, previous is not None and inserted is not None
        finally:
            cursor.close()

    def _current(self) -> LakeCopy:
        """The copy a read uses: the one its read block pinned, else the newest (made now if
        there is none, or if this process wrote to the lake since it was made)."""
        pinned = getattr(self._pinned, "copy", None)
        if pinned is not None:
            return pinned
        if self._copy is None or self.lake.writes != self._writes_seen:
            self._catch_up()
        copy = self._copy
        if copy is None:  # pragma: no cover - _catch_up made one or raised
            raise WarehouseError(f"no copy of the {self.path} could be made")
        return copy

    def _catch_up(self) -> None:
        """Make the copy current, waiting for a refresh another thread has under way."""
        try:
            self.catalog_snapshot()
        except CatalogUnreachable:
            if self._copy is None:
                raise
            return  # the last good copy it is; the next page run says the catalog is down
        if self.lake.writes != self._writes_seen:
            with self._refresh_lock:  # another thread was refreshing: wait for its copy
                newest = self.lake.catalog_snapshot()
                self._refresh_locked(newest)
                self._writes_seen = self.lake.writes

    # -- the engine interface the store uses --------------------------------------------------
    @contextmanager
    def reading(self, report: WaitReporter | None = None) -> Iterator[None]:
        """Every read in the block sees the same copy, even if a newer one lands meanwhile."""
        if getattr(self._pinned, "copy", None) is not None:
            yield  # nested in an open block: its copy
            return
        self._pinned.copy = self._current()
        try:
            yield
        finally:
            self._pinned.copy = None

    def cursor(self) -> duckdb.DuckDBPyConnection:
        return self._current().cursor()

    @contextmanager
    def writing(self, report: WaitReporter | None = None) -> Iterator[duckdb.DuckDBPyConnection]:
        with self.lake.writing(report) as cursor:
            yield cursor

    def schema_sql(self, sql: str) -> str:
        return self.lake.schema_sql(sql)

    def close(self) -> None:
        self._copy = None
        self.lake.close()


#: The kinds of change a catalog snapshot lists that only add rows to a table.
_INSERTS = ("tables_inserted_into", "inlined_insert")


def _only_inserts(
    cursor: duckdb.DuckDBPyConnection, previous: LakeCopy | None, snapshot: int
) -> set[str] | None:
    """The tables rows were inserted into since ``previous`` was copied, when inserts are all
    that changed since; None when anything else changed (or there is no previous copy)."""
    if previous is None or previous.snapshot >= snapshot:
        return None
    changes = cursor.execute(
        "SELECT changes FROM ducklake_snapshots(?) WHERE snapshot_id > ? AND snapshot_id <= ?",
        [ALIAS, previous.snapshot, snapshot],
    ).fetchall()
    ids: set[int] = set()
    for (change,) in changes:
        for kind, values in (change or {}).items():
            if kind not in _INSERTS:
                return None
            ids.update(int(value) for value in values)
    if not ids:
        return set()
    # The catalog's own table of tables, in its PostgreSQL database: which ids are which names.
    listed = ", ".join(str(table_id) for table_id in sorted(ids))
    rows = cursor.execute(
        "SELECT table_name FROM postgres_query(?, ?)",
        [
            CATALOG_ALIAS,
            "SELECT table_name FROM ducklake_table WHERE end_snapshot IS NULL"  # noqa: S608 - ints
            f" AND table_id IN ({listed})",
        ],
    ).fetchall()
    if len(rows) != len(ids):
        return None  # a table id the catalog does not list as live: copy the whole snapshot
    return {str(name) for (name,) in rows}


def _appended(
    cursor: duckdb.DuckDBPyConnection,
    previous: LakeCopy,
    name: str,
    inserted: bool,
    snapshot: int,
) -> object:
    """``name``'s rows at ``snapshot``: the previous copy's, plus those inserted since."""
    kept = previous.cursor().execute(f'SELECT * FROM "{name}"').to_arrow_table()  # noqa: S608 - a catalog name
    if not inserted:
        return kept
    columns = ", ".join(f'"{column}"' for column in kept.column_names)
    added = cursor.execute(
        f"SELECT {columns} FROM ducklake_table_insertions(?, 'main', ?, ?, ?)",  # noqa: S608 - the copy's own column names
        [ALIAS, name, previous.snapshot + 1, snapshot],
    ).to_arrow_table()
    return pa.concat_tables([kept, added.cast(kept.schema)])


def _create_views(db: duckdb.DuckDBPyConnection, views: dict[str, str]) -> None:
    """The lake's views over the copied tables; a view over another view waits for it."""
    pending = dict(views)
    for _ in range(_VIEW_PASSES):
        failed: dict[str, str] = {}
        for name, sql in pending.items():
            try:
                db.execute(sql)
            except duckdb.CatalogException:
                failed[name] = sql
        if not failed:
            return
        pending = failed
    raise WarehouseError(
        f"the lake's view(s) {', '.join(sorted(pending))} cannot be built on its local copy;"
        " check that every table they read exists in the catalog"
    )
