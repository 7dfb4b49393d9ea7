"""Staging for a price file too large to hold in memory: its validated rows go, a batch at a time,
into a scratch DuckDB database (a file in a temporary folder, its memory capped), where what needs
the whole file is found in SQL: a row that repeats or contradicts an earlier one, each quote's
comparison prices for the integrity check, each snapshot's dates and regions. The warehouse then
reads the checked rows back a batch at a time, inside its one transaction.

Which rows count as duplicates, as one item or as comparable is not decided here: the caller
computes those keys in Python (the rules of ``warehouse.seed`` and the price check) and this
module only finds equal keys.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa

from tokendesk.records import PriceQuote, PricingModel
from warehouse.price_rows import PRICE_COLUMNS, PRICE_TYPES, stored_quote

#: Memory the scratch database may use before it spills to its folder (sorts, joins, pages).
SCRATCH_MEMORY_LIMIT = "128MB"

#: The key columns each staged row carries (16-byte digests computed by the caller).
KEY_COLUMNS = ("dup_key", "item_key", "figures_key", "reference_key", "previous_key")

STAGED_SCHEMA = pa.schema(
    [
        ("row_no", pa.int64()),
        ("snapshot_name", pa.string()),
        *((name, PRICE_TYPES[name]) for name in PRICE_COLUMNS),
        *((name, pa.binary()) for name in KEY_COLUMNS),
    ]
)

_DUCKDB_TYPES = {
    pa.string(): "VARCHAR",
    pa.int32(): "INTEGER",
    pa.int64(): "BIGINT",
    pa.float64(): "DOUBLE",
    pa.timestamp("us"): "TIMESTAMP",
    pa.date32(): "DATE",
    pa.binary(): "BLOB",
}

# Every statement below is a constant: identifiers come from the column tuples above, values
# are parameters.
_COLUMN_LIST = ", ".join(PRICE_COLUMNS)


class StagedBatch:
    """Rows about to be staged, held as columns of plain values (a row's record is not kept)."""

    def __init__(self) -> None:
        self.columns: dict[str, list[Any]] = {name: [] for name in STAGED_SCHEMA.names}

    def __len__(self) -> int:
        return len(self.columns["row_no"])

    def add(
        self,
        row_no: int,
        snapshot_name: str,
        values: dict[str, Any],
        keys: tuple[bytes, bytes, bytes, bytes, bytes],
    ) -> None:
        """One row: its number, seed snapshot name, stored values (``PRICE_COLUMNS``) and its
        ``KEY_COLUMNS`` digests, in that order."""
        self.columns["row_no"].append(row_no)
        self.columns["snapshot_name"].append(snapshot_name)
        for name in PRICE_COLUMNS:
            self.columns[name].append(values[name])
        for name, key in zip(KEY_COLUMNS, keys, strict=True):
            self.columns[name].append(key)

    def table(self) -> pa.Table:
        return pa.table(
            {
                name: pa.array(self.columns[name], STAGED_SCHEMA.field(name).type)
                for name in STAGED_SCHEMA.names
            }
        )


@dataclass(frozen=True)
class StagedGroup:
    """The rows of one snapshot to write: one seed snapshot name of one provider."""

    snapshot_name: str
    provider: str
    rows: int
    #: Newest date a row states; None when no row is dated.
    newest: datetime | None
    regions: list[str]


@dataclass(frozen=True)
class Conflict:
    """The first staged row that repeats (``duplicate``) or contradicts an earlier one."""

    row_no: int
    duplicate: bool
    earlier_row: int


class PriceStaging:
    """One price file's checked rows in a scratch database; closed (and deleted) on leaving."""

    def __init__(self, memory_limit: str | None = None) -> None:
        self._folder = tempfile.TemporaryDirectory(prefix="tokendesk-staging-")
        folder = Path(self._folder.name)
        self._con = duckdb.connect(
            str(folder / "staging.duckdb"),
            config={
                "memory_limit": memory_limit or SCRATCH_MEMORY_LIMIT,
                "temp_directory": str(folder / "spill"),
                # Every read that needs an order says so (ORDER BY row_no); one thread keeps
                # the memory of sorts and joins small, on a machine that does other work too.
                "preserve_insertion_order": False,
                "threads": 1,
            },
        )
        columns = ", ".join(f"{field.name} {_DUCKDB_TYPES[field.type]}" for field in STAGED_SCHEMA)
        self._con.execute(f"CREATE TABLE staged ({columns})")
        self._con.execute(
            "CREATE TABLE flags (row_no BIGINT, quarantine_reason VARCHAR, review_flag VARCHAR)"
        )

    def __enter__(self) -> PriceStaging:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._con.close()
        self._folder.cleanup()

    # -- staging ------------------------------------------------------------------------------
    def append(self, rows: StagedBatch) -> Conflict | None:
        """Add rows (in file order, after every row staged before); return the first of them
        that repeats or contradicts a staged row, if any."""
        if not len(rows):
            return None
        self._con.register("incoming", rows.table())
        try:
            self._con.execute("INSERT INTO staged SELECT * FROM incoming")
        finally:
            self._con.unregister("incoming")
        first, last = rows.columns["row_no"][0], rows.columns["row_no"][-1]
        found = self._con.execute(
            """
            WITH new AS (
                SELECT row_no, dup_key, item_key, figures_key FROM staged
                WHERE row_no BETWEEN $first AND $last),
            first_copy AS (
                SELECT dup_key, min(row_no) AS earlier_row FROM staged
                WHERE dup_key IN (SELECT dup_key FROM new) GROUP BY dup_key),
            first_item AS (
                SELECT item_key, min(row_no) AS earlier_row,
                       arg_min(figures_key, row_no) AS earlier_figures
                FROM staged WHERE item_key IN (SELECT item_key FROM new) GROUP BY item_key)
            SELECT row_no, duplicate, earlier_row FROM (
                SELECT n.row_no, true AS duplicate, c.earlier_row
                FROM new n JOIN first_copy c USING (dup_key) WHERE c.earlier_row < n.row_no
                UNION ALL
                SELECT n.row_no, false, i.earlier_row
                FROM new n JOIN first_item i USING (item_key)
                WHERE i.earlier_row < n.row_no AND i.earlier_figures <> n.figures_key)
            -- a row that both repeats and contradicts is reported as the repeat
            ORDER BY row_no, duplicate DESC LIMIT 1
            """,
            {"first": first, "last": last},
        ).fetchone()
        return Conflict(int(found[0]), bool(found[1]), int(found[2])) if found else None

    def stored(self, row_no: int) -> PriceQuote:
        """The staged quote of one row (for a message that quotes its figures)."""
        cursor = self._con.execute(
            f"SELECT {_COLUMN_LIST} FROM staged WHERE row_no = ?",  # noqa: S608 - fixed columns
            [row_no],
        )
        values = cursor.fetchone()
        if values is None:
            raise KeyError(row_no)
        return stored_quote(dict(zip(PRICE_COLUMNS, values, strict=True)))

    # -- what the snapshots need --------------------------------------------------------------
    def groups(self) -> list[StagedGroup]:
        """One group per (seed snapshot name, provider), in no particular order."""
        found = self._con.execute(
            "SELECT snapshot_name, provider, count(*), max(observed_at),"
            " list(DISTINCT region ORDER BY region)"
            " FROM staged GROUP BY snapshot_name, provider"
        ).fetchall()
        return [
            StagedGroup(name, provider, int(rows), newest, sorted(regions))
            for name, provider, rows, newest, regions in found
        ]

    def oldest(self) -> datetime | None:
        """The oldest date any staged row states."""
        row = self._con.execute("SELECT min(observed_at) FROM staged").fetchone()
        return row[0] if row else None

    def with_references(
        self, group: StagedGroup, *, previous_snapshot: str | None, batch_rows: int
    ) -> Iterator[tuple[int, PriceQuote, float | None, float | None]]:
        """(row, quote, lowest on-demand price of its reference key in the group, price of the
        last row of ``previous_snapshot`` (same provider) with its previous key), in file order,
        read ``batch_rows`` at a time."""
        cursor = self._con.cursor()
        cursor.execute(
            f"""
            WITH on_demand AS (
                SELECT reference_key, min(usd_per_hour) AS usd FROM staged
                WHERE snapshot_name = $name AND provider = $provider
                  AND pricing_model = $on_demand
                GROUP BY reference_key),
            previous AS (
                SELECT previous_key, arg_max(usd_per_hour, row_no) AS usd FROM staged
                WHERE snapshot_name = $previous AND provider = $provider
                GROUP BY previous_key)
            SELECT s.row_no, {", ".join(f"s.{c}" for c in PRICE_COLUMNS)}, o.usd, p.usd
            FROM staged s
            LEFT JOIN on_demand o USING (reference_key)
            LEFT JOIN previous p USING (previous_key)
            WHERE s.snapshot_name = $name AND s.provider = $provider
            ORDER BY s.row_no
            """,  # noqa: S608 - fixed columns; values are parameters
            {
                "name": group.snapshot_name,
                "provider": group.provider,
                "on_demand": PricingModel.ON_DEMAND.value,
                # No snapshot is named with a NUL: with no previous snapshot nothing matches.
                "previous": previous_snapshot if previous_snapshot is not None else "\x00",
            },
        )
        try:
            # An Arrow reader streams the sorted result; fetchmany would hold all of it.
            for batch in cursor.to_arrow_reader(batch_rows):
                columns = [column.to_pylist() for column in batch.columns]
                for values in zip(*columns, strict=True):
                    yield (
                        int(values[0]),
                        stored_quote(dict(zip(PRICE_COLUMNS, values[1:-2], strict=True))),
                        values[-2],
                        values[-1],
                    )
        finally:
            cursor.close()

    def flag(self, flags: Sequence[tuple[int, str | None, str | None]]) -> None:
        """Record (row, quarantine reason, review flag) for rows the check flagged."""
        if not flags:
            return
        rows, quarantine, review = zip(*flags, strict=True)
        table = pa.table(
            {
                "row_no": pa.array(rows, pa.int64()),
                "quarantine_reason": pa.array(quarantine, pa.string()),
                "review_flag": pa.array(review, pa.string()),
            }
        )
        self._con.register("incoming_flags", table)
        try:
            self._con.execute("INSERT INTO flags SELECT * FROM incoming_flags")
        finally:
            self._con.unregister("incoming_flags")

    def frames(self, group: StagedGroup, batch_rows: int) -> Iterator[pa.Table]:
        """The group's rows as the warehouse stores them, with their flags, in file order."""
        cursor = self._con.cursor()
        cursor.execute(
            f"SELECT {_COLUMN_LIST}, f.quarantine_reason, f.review_flag"  # noqa: S608 - fixed
            " FROM staged s LEFT JOIN flags f USING (row_no)"
            " WHERE s.snapshot_name = ? AND s.provider = ? ORDER BY s.row_no",
            [group.snapshot_name, group.provider],
        )
        try:
            reader = cursor.to_arrow_reader(batch_rows)
            for batch in reader:
                yield pa.Table.from_batches([batch])
        finally:
            cursor.close()
