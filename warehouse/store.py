"""The warehouse: the only code that opens DuckDB.

Every ingest is one transaction that either writes a whole snapshot or nothing. Snapshots are
append-only: nothing is updated or deleted, and "current" is a view over the newest good
snapshot per source (see ``migrations.py``).
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

import duckdb
import pandas as pd

from tokendesk.catalog import check_in_catalog, load_catalog
from tokendesk.paths import default_db_path
from tokendesk.records import (
    BenchmarkResult,
    PriceQuote,
    SnapshotKind,
    SnapshotStatus,
)
from warehouse.migrations import MIGRATIONS
from warehouse.queries import cost_options
from warehouse.seed import load_seed

PRICE_COLUMNS = (
    "provider",
    "region",
    "zone",
    "instance_type",
    "accelerator_id",
    "accelerator_count",
    "vcpus",
    "memory_gib",
    "pricing_model",
    "usd_per_hour",
    "price_basis",
    "source",
    "source_url",
    "observed_at",
    "confidence",
    "notes",
    "quote_id",
    "vendor_contact",
    "expires_on",
)

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


class WarehouseError(RuntimeError):
    pass


def config_key(result: BenchmarkResult) -> str:
    """A short stable id for the configuration a result belongs to."""
    parts = "|".join(str(getattr(result, name)) for name in CONFIG_FIELDS)
    return hashlib.sha1(parts.encode(), usedforsecurity=False).hexdigest()[:12]


def new_snapshot_id(kind: SnapshotKind, source: str, now: datetime) -> str:
    slug = "".join(ch if ch.isalnum() else "-" for ch in source.lower()).strip("-")[:40]
    return f"{kind.value}-{slug}-{now:%Y%m%dT%H%M%S}-{uuid.uuid4().hex[:6]}"


def _utc_naive(moment: datetime) -> datetime:
    """DuckDB TIMESTAMP has no zone; we store UTC."""
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC).replace(tzinfo=None)
    return moment


class Warehouse:
    """A DuckDB warehouse file (or ``:memory:``) with tokendesk's schema."""

    def __init__(self, con: duckdb.DuckDBPyConnection, path: str, read_only: bool) -> None:
        self._con = con
        self.path = path
        self.read_only = read_only

    # -- opening ------------------------------------------------------------------------------
    @classmethod
    def open(
        cls, path: Path | str | None = None, *, read_only: bool = False, build: bool = True
    ) -> Warehouse:
        """Open (and, on first use, build from the bundled ``data/``) the warehouse at ``path``.

        A read-only open of a missing file first builds it with a short-lived writer, so the
        dashboard's first start needs no separate setup step.
        """
        target = str(path if path is not None else default_db_path())
        in_memory = target == ":memory:"
        exists = in_memory or Path(target).exists()
        if not in_memory:
            Path(target).parent.mkdir(parents=True, exist_ok=True)
        if read_only and not in_memory:
            if not exists:
                if not build:
                    raise WarehouseError(f"no warehouse at {target}; run `tokendesk db init`")
                cls.open(target, read_only=False).close()
            else:
                writer_needed = False
                with _connect(target, read_only=True) as probe:
                    writer_needed = _pending_migrations(probe) != []
                if writer_needed:
                    cls.open(target, read_only=False).close()
            return cls(_connect(target, read_only=True), target, read_only=True)
        con = _connect(target, read_only=False)
        warehouse = cls(con, target, read_only=False)
        fresh = warehouse.migrate()
        if fresh and build:
            load_seed(warehouse)
        return warehouse

    def close(self) -> None:
        self._con.close()

    def __enter__(self) -> Warehouse:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def cursor(self) -> duckdb.DuckDBPyConnection:
        """A cursor of the shared connection: safe to use from one thread per call."""
        return self._con.cursor()

    # -- schema -------------------------------------------------------------------------------
    def migrate(self) -> bool:
        """Apply pending migrations; return True if the warehouse was empty before."""
        con = self._con
        con.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations ("
            " version INTEGER PRIMARY KEY, name VARCHAR NOT NULL, applied_at TIMESTAMP NOT NULL)"
        )
        pending = _pending_migrations(con)
        fresh = len(pending) == len(MIGRATIONS)
        for migration in pending:
            with self._transaction() as tx:
                tx.execute(migration.sql)
                tx.execute(
                    "INSERT INTO schema_migrations VALUES (?, ?, ?)",
                    [migration.version, migration.name, _utc_naive(datetime.now(UTC))],
                )
        if pending:
            self.sync_catalog()
        return fresh

    def schema_version(self) -> int:
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
    def _transaction(self) -> Iterator[duckdb.DuckDBPyConnection]:
        if self.read_only:
            raise WarehouseError("this warehouse connection is read-only")
        tx = self._con.cursor()
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
        quarantine: Mapping[int, str] | None = None,
        review_flags: Mapping[int, str] | None = None,
        integrity: Sequence[tuple[str, int, int, str]] | None = None,
        notes: str = "",
    ) -> str:
        """Write one price snapshot in one transaction; return its id.

        ``source`` names what the snapshot speaks for (a provider such as ``aws``, or a sheet
        such as ``sheet:negotiated``); the newest good snapshot of a source is current for each
        region in its ``scope`` (None = every region of that source).
        """
        now = datetime.now(UTC)
        snapshot_id = new_snapshot_id(SnapshotKind.PRICES, source, now)
        quarantine = quarantine or {}
        review_flags = review_flags or {}
        for index in (*quarantine, *review_flags):
            if not 0 <= index < len(quotes):
                raise WarehouseError(f"flag index {index} is outside the {len(quotes)} quotes")
        _check_catalog(quotes)
        rows = []
        for index, quote in enumerate(quotes):
            row = quote.model_dump(mode="python", include=set(PRICE_COLUMNS))
            row["observed_at"] = _utc_naive(row["observed_at"])
            row["pricing_model"] = str(quote.pricing_model)
            row["price_basis"] = str(quote.price_basis)
            row["quarantine_reason"] = quarantine.get(index)
            row["review_flag"] = review_flags.get(index)
            rows.append(row)
        columns = [*PRICE_COLUMNS, "quarantine_reason", "review_flag"]
        frame = pd.DataFrame(rows, columns=columns)
        data_as_of = as_of or (max(q.observed_at for q in quotes) if quotes else now)
        with self._transaction() as tx:
            self._insert_snapshot(
                tx,
                snapshot_id,
                SnapshotKind.PRICES,
                source,
                origin,
                scope,
                now,
                data_as_of,
                status,
                error,
                len(quotes),
                notes,
            )
            if rows:
                _insert_frame(tx, "price_quotes", frame, columns, snapshot_id)
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
            row["measured_at"] = _utc_naive(row["measured_at"])
            row["instance_type"] = row["instance_type"] or None
            row["config_key"] = config_key(result)
            rows.append(row)
        columns = [*RESULT_COLUMNS, "config_key"]
        frame = pd.DataFrame(rows, columns=columns)
        data_as_of = as_of or (max(r.measured_at for r in results) if results else now)
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
        """Record that a refresh or import failed; the previous good snapshot stays current."""
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

    @staticmethod
    def _insert_snapshot(
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
        tx.execute(
            "INSERT INTO snapshots (snapshot_id, kind, source, origin, scope, created_at, as_of,"
            " status, error, row_count, notes) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                snapshot_id,
                kind.value,
                source,
                origin,
                scope_text,
                _utc_naive(created_at),
                _utc_naive(as_of),
                SnapshotStatus(status).value,
                error,
                row_count,
                notes,
            ],
        )

    # -- reads --------------------------------------------------------------------------------
    def snapshots(self, kind: SnapshotKind | None = None) -> pd.DataFrame:
        sql = "SELECT * FROM snapshots"
        params: list[object] = []
        if kind is not None:
            sql += " WHERE kind = ?"
            params.append(SnapshotKind(kind).value)
        sql += " ORDER BY created_at, as_of, snapshot_id"
        return self.cursor().execute(sql, params).df()

    def current_price_quotes(self, provider: str | None = None) -> list[PriceQuote]:
        sql = f"SELECT {', '.join(PRICE_COLUMNS)} FROM current_prices"  # noqa: S608 - fixed columns
        params: list[object] = []
        if provider is not None:
            sql += " WHERE provider = ?"
            params.append(provider)
        frame = self.cursor().execute(sql, params).df()
        return [PriceQuote.model_validate(_none_for_nan(row)) for row in frame.to_dict("records")]

    def integrity_report(self, snapshot_id: str) -> pd.DataFrame:
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
        return self.cursor().execute(sql, list(params)).df()

    def table_counts(self) -> dict[str, int]:
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

    def cost_options(self, **filters: object) -> pd.DataFrame:
        return cost_options(self, **filters)


def _check_catalog(rows: Sequence[PriceQuote] | Sequence[BenchmarkResult]) -> None:
    """Refuse the whole batch if any row names an accelerator the catalog does not know."""
    for index, row in enumerate(rows):
        try:
            check_in_catalog(row)
        except ValueError as exc:
            raise WarehouseError(f"row {index} ({type(row).__name__}): {exc}") from exc


def _connect(target: str, *, read_only: bool) -> duckdb.DuckDBPyConnection:
    """Open the file, turning DuckDB's lock conflict into advice: one process may write a DuckDB
    file, and none may while another holds it open (the dashboard holds it read-only)."""
    try:
        return duckdb.connect(target, read_only=read_only)
    except duckdb.IOException as exc:
        if "lock" not in str(exc).lower():
            raise
        raise WarehouseError(
            f"the warehouse {target} is in use by another process ({str(exc).splitlines()[0]}). "
            "While the dashboard is running, refresh prices and upload results from its Prices and "
            "Benchmarks pages, or stop it (or point --db at another file) to use the command line."
        ) from None


def _pending_migrations(con: duckdb.DuckDBPyConnection) -> list:
    exists = con.execute(
        "SELECT count(*) FROM information_schema.tables WHERE table_name = 'schema_migrations'"
    ).fetchone()
    applied: set[int] = set()
    if exists and exists[0]:
        applied = {
            row[0] for row in con.execute("SELECT version FROM schema_migrations").fetchall()
        }
    return [m for m in MIGRATIONS if m.version not in applied]


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


def _none_for_nan(row: dict) -> dict:
    return {
        key: (
            None
            if value is None or (isinstance(value, float) and value != value) or value is pd.NaT
            else value
        )
        for key, value in row.items()
    }
