"""Writing snapshots: price and benchmark ingests, failed-snapshot records and retractions,
each one transaction (see ``store.py`` for the warehouse they are methods of).
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Iterable, Mapping, Sequence
from contextlib import AbstractContextManager
from datetime import UTC, datetime
from typing import TYPE_CHECKING

import duckdb
import pandas as pd
import pyarrow as pa

from tokendesk.access import Principal
from tokendesk.catalog import check_in_catalog
from tokendesk.records import (
    BenchmarkResult,
    PriceQuote,
    SnapshotKind,
    SnapshotStatus,
)
from tokendesk.textsafety import safe_message
from warehouse.engine import (
    FileEngine,
    MemoryEngine,
    WaitReporter,
    WarehouseError,
)
from warehouse.lake import (
    LakeEngine,
)
from warehouse.lake_copy import LakeCopyEngine
from warehouse.price_rows import PRICE_COLUMNS, price_row, utc_naive

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


#: Price snapshots a person may take back: files ingested by hand (`db ingest`, a price sheet).
#: A provider refresh or the bundled seed is superseded by the next refresh instead.
RETRACTABLE_PRICE_ORIGINS = ("sheet", "import")


class RetractionError(WarehouseError):
    """A retraction that cannot be made: the message says why and what to do."""


class SnapshotWrites:
    """The warehouse's snapshot writes: every ingest is one transaction that writes a whole
    snapshot or nothing, and a retraction is one more appended row. ``Warehouse`` inherits
    them; what they use of it is declared below."""

    if TYPE_CHECKING:
        _engine: FileEngine | MemoryEngine | LakeEngine | LakeCopyEngine
        read_only: bool
        on_wait: WaitReporter | None
        actor: Principal
        _batch: duckdb.DuckDBPyConnection | None

        def _check_writable(self) -> None: ...

        def _transaction(self) -> AbstractContextManager[duckdb.DuckDBPyConnection]: ...

        def next_ids(self, counter: str, count: int) -> list[int] | None: ...

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

    def record_bundled_file(self, file: str, sha256: str, snapshot_ids: Sequence[str]) -> None:
        """Record that the snapshots ``snapshot_ids`` were loaded from the copy of the bundled
        ``file`` whose SHA-256 is ``sha256``."""
        now = utc_naive(datetime.now(UTC))
        with self._transaction() as tx:
            for snapshot_id in snapshot_ids:
                tx.execute(
                    "INSERT INTO bundled_files (snapshot_id, file, sha256, loaded_at)"
                    " VALUES (?, ?, ?, ?)",
                    [snapshot_id, file, sha256, now],
                )

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
        """Mark a benchmark import or a hand-ingested price file as retracted (append-only);
        return when.

        Its results (or prices) stay in the history and leave ``current_results`` (or current
        prices, where each item's previous price is current again) and every cost. Raises
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
                "SELECT s.kind, s.status, x.reason, x.retracted_by, x.retracted_at, s.origin"
                " FROM snapshots s LEFT JOIN retractions x USING (snapshot_id)"
                " WHERE s.snapshot_id = ?",
                [snapshot_id],
            ).fetchone()
            if found is None:
                raise RetractionError(
                    f"no snapshot {snapshot_id!r}; `tokendesk db info` lists every snapshot id"
                )
            kind, status, old_reason, old_by, old_at, origin = found
            if kind == SnapshotKind.PRICES.value and origin not in RETRACTABLE_PRICE_ORIGINS:
                raise RetractionError(
                    f"snapshot {snapshot_id} holds prices from {origin}; only price files"
                    " ingested by hand (`tokendesk db ingest`, a price sheet) and benchmark"
                    " imports are retracted (a newer price refresh supersedes a refresh)"
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


def _check_catalog(rows: Sequence[PriceQuote] | Sequence[BenchmarkResult]) -> None:
    """Refuse the whole batch if any row names an accelerator the catalog does not know."""
    for index, row in enumerate(rows):
        try:
            check_in_catalog(row)  # type: ignore[type-var]  # each row is one of the two records
        except ValueError as exc:
            raise WarehouseError(f"row {index} ({type(row).__name__}): {exc}") from exc


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
