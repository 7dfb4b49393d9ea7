"""Staging for a price file too large to hold in memory: its validated rows go, a batch at a time,
into a scratch DuckDB database (a file in a temporary folder, its memory capped), where what needs
the whole file is found in SQL: a row that repeats or contradicts an earlier one, each quote's
comparison prices for the integrity check, each snapshot's dates and regions. The warehouse then
reads the checked rows back a batch at a time, inside its one transaction.

Which rows count as duplicates, as one item or as comparable follows the rules of
``warehouse.seed`` (``duplicate_digest``, ``item_digest``, ``figures_digest``) and the price check
(its ``reference_key`` and ``previous_key``, named here by their columns). The rows are compared
by their stored columns in SQL (a 64-bit hash of the item only narrows which earlier rows are
compared), so a million rows cost no Python per row and no two rows are ever taken for one.
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

#: What a batch of rows to stage holds: the row's number, its seed snapshot name, the raw
#: ``seed_snapshot`` cell (None where the file has no such column; duplicates compare it as
#: written), the stored values, and the UTC offset in seconds its ``observed_at`` was written
#: with (None for a time without a zone). The stored time is UTC, so the offset is what tells
#: "10:00+01:00" from "09:00Z", which the record's own rules keep apart.
INCOMING_SCHEMA = pa.schema(
    [
        ("row_no", pa.int64()),
        ("snapshot_name", pa.string()),
        ("seed_raw", pa.string()),
        *((name, PRICE_TYPES[name]) for name in PRICE_COLUMNS),
        ("observed_offset", pa.int32()),
    ]
)

#: A staged row: what came in, and a hash of its item (``ITEM_COLUMNS``) to find its peers by.
STAGED_SCHEMA = pa.schema([*INCOMING_SCHEMA, ("item_hash", pa.uint64())])

#: Two rows price the same item (``warehouse.seed.item_digest``): the same seed snapshot, SKU,
#: quote and moment (``zoned``: a time with a zone is never the same moment as one without).
ITEM_COLUMNS = (
    "snapshot_name",
    "provider",
    "region",
    "zone",
    "instance_type",
    "pricing_model",
    "quote_id",
    "observed_at",
    "(observed_offset IS NOT NULL)",
    "valid_from",
)
#: Two rows are the same record (``warehouse.seed.duplicate_digest``): every stored value but
#: notes and confidence, the time's zone and the raw seed snapshot cell ('' where none).
RECORD_COLUMNS = (
    "coalesce(seed_raw, '')",
    *(name for name in PRICE_COLUMNS if name not in ("notes", "confidence")),
    "observed_offset",
)
#: What two rows of one item must agree on (``warehouse.seed.ITEM_FIGURES``).
FIGURE_COLUMNS = ("usd_per_hour", "accelerator_id", "accelerator_count", "price_basis")


def _named(columns: Sequence[str], prefix: str) -> str:
    """``columns`` (SQL over a staged row) named ``prefix0``, ``prefix1``, …"""
    return ", ".join(f"{column} AS {prefix}{index}" for index, column in enumerate(columns))


def _match(columns: Sequence[str], prefix: str, left: str, right: str) -> str:
    """SQL: ``left`` and ``right`` agree on the ``_named`` columns (None equal to None only)."""
    return " AND ".join(
        f"{left}.{prefix}{index} IS NOT DISTINCT FROM {right}.{prefix}{index}"
        for index in range(len(columns))
    )


_FIGURES = f"struct_pack({', '.join(f'{c} := {c}' for c in FIGURE_COLUMNS)})"
#: The first staged row that repeats (the same record) or contradicts (the same item, other
#: figures than the item's first row) a row staged before it, among the rows $first..$last.
_CONFLICT = f"""
    WITH repeated AS (
        -- Only an item staged more than once can hold a repeat or a contradiction; in a file
        -- without any, the rows are never compared column by column.
        SELECT item_hash FROM staged
        WHERE item_hash IN (SELECT item_hash FROM staged WHERE row_no BETWEEN $first AND $last)
        GROUP BY item_hash HAVING count(*) > 1),
    new AS (
        SELECT row_no, item_hash, {_named(RECORD_COLUMNS, "r")}, {_named(ITEM_COLUMNS, "i")},
               {_FIGURES} AS figures
        FROM staged WHERE row_no BETWEEN $first AND $last
          AND item_hash IN (SELECT item_hash FROM repeated)),
    peers AS (
        SELECT * FROM staged WHERE item_hash IN (SELECT item_hash FROM repeated)),
    first_copy AS (
        SELECT {_named(RECORD_COLUMNS, "r")}, min(row_no) AS earlier_row
        FROM peers GROUP BY ALL),
    first_item AS (
        SELECT {_named(ITEM_COLUMNS, "i")}, min(row_no) AS earlier_row,
               arg_min({_FIGURES}, row_no) AS earlier_figures
        FROM peers GROUP BY ALL)
    SELECT row_no, duplicate, earlier_row FROM (
        SELECT n.row_no, true AS duplicate, c.earlier_row
        FROM new n JOIN first_copy c ON {_match(RECORD_COLUMNS, "r", "n", "c")}
        WHERE c.earlier_row < n.row_no
        UNION ALL
        SELECT n.row_no, false, i.earlier_row
        FROM new n JOIN first_item i ON {_match(ITEM_COLUMNS, "i", "n", "i")}
        WHERE i.earlier_row < n.row_no AND i.earlier_figures <> n.figures)
    -- a row that both repeats and contradicts is reported as the repeat
    ORDER BY row_no, duplicate DESC LIMIT 1
"""  # noqa: S608 - fixed columns; values are parameters


_DUCKDB_TYPES = {
    pa.string(): "VARCHAR",
    pa.int32(): "INTEGER",
    pa.int64(): "BIGINT",
    pa.float64(): "DOUBLE",
    pa.timestamp("us"): "TIMESTAMP",
    pa.date32(): "DATE",
    pa.binary(): "BLOB",
    pa.uint64(): "UBIGINT",
}

# Every statement below is a constant: identifiers come from the column tuples above, values
# are parameters.
_COLUMN_LIST = ", ".join(PRICE_COLUMNS)


class StagedBatch:
    """Rows about to be staged, held as columns of plain values (a row's record is not kept)."""

    def __init__(self) -> None:
        self.columns: dict[str, list[Any]] = {name: [] for name in INCOMING_SCHEMA.names}

    def __len__(self) -> int:
        return len(self.columns["row_no"])

    def add(
        self,
        row_no: int,
        snapshot_name: str,
        seed_raw: str | None,
        values: dict[str, Any],
        observed_offset: int | None,
    ) -> None:
        """One row: its number, seed snapshot name, raw ``seed_snapshot`` cell, stored values
        (``PRICE_COLUMNS``) and the UTC offset (seconds) its time was written with."""
        self.columns["row_no"].append(row_no)
        self.columns["snapshot_name"].append(snapshot_name)
        self.columns["seed_raw"].append(seed_raw)
        for name in PRICE_COLUMNS:
            self.columns[name].append(values[name])
        self.columns["observed_offset"].append(observed_offset)

    def table(self) -> pa.Table:
        return pa.table(
            {
                name: pa.array(self.columns[name], INCOMING_SCHEMA.field(name).type)
                for name in INCOMING_SCHEMA.names
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

    def __init__(
        self,
        memory_limit: str | None = None,
        *,
        reference_columns: Sequence[str] = (),
        previous_columns: Sequence[str] = (),
    ) -> None:
        """``reference_columns``, ``previous_columns``: the stored columns the price check's
        ``reference_key`` and ``previous_key`` are made of."""
        self._reference_columns = tuple(reference_columns)
        self._previous_columns = tuple(previous_columns)
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
    @property
    def connection(self) -> duckdb.DuckDBPyConnection:
        """The scratch database (for checking a batch of raw rows before it is staged)."""
        return self._con

    def append(self, rows: StagedBatch) -> Conflict | None:
        """Add rows (in file order, after every row staged before); return the first of them
        that repeats or contradicts a staged row, if any."""
        if not len(rows):
            return None
        self._con.register("incoming", rows.table())
        try:
            return self.append_from("incoming", rows.columns["row_no"][0])
        finally:
            self._con.unregister("incoming")

    def append_from(self, relation: str, first: int) -> Conflict | None:
        """Add the rows of ``relation`` (a table of ``INCOMING_SCHEMA``; its rows come after
        every row staged before, the first of them numbered ``first``); return the first of
        them that repeats or contradicts a staged row, if any."""
        added = self._con.execute(
            f"INSERT INTO staged BY NAME SELECT *, hash({', '.join(ITEM_COLUMNS)}) AS item_hash"  # noqa: S608
            f" FROM {relation}"
        ).fetchone()
        if not added or not added[0]:
            return None
        last = self._con.execute(f"SELECT max(row_no) FROM {relation}").fetchone()  # noqa: S608
        found = self._con.execute(
            _CONFLICT, {"first": first, "last": last[0] if last else first}
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

    def references(
        self, group: StagedGroup, *, previous_snapshot: str | None
    ) -> tuple[str, dict[str, Any]]:
        """SQL (and its parameters) of the group's rows: ``row_no``, ``PRICE_COLUMNS``,
        ``on_demand_usd`` (the lowest on-demand price of the row's reference key in the group)
        and ``previous_usd`` (the price of the last row of ``previous_snapshot``, same provider,
        with the row's previous key), in no particular order."""
        reference = [f"coalesce({c}, '')" for c in self._reference_columns]
        previous = [f"coalesce({c}, '')" for c in self._previous_columns]
        sql = f"""
            WITH on_demand AS (
                SELECT {_named(reference, "k")}, min(usd_per_hour) AS usd FROM staged
                WHERE snapshot_name = $name AND provider = $provider
                  AND pricing_model = $on_demand
                GROUP BY ALL),
            previous AS (
                SELECT {_named(previous, "k")}, arg_max(usd_per_hour, row_no) AS usd FROM staged
                WHERE snapshot_name = $name_previous AND provider = $provider
                GROUP BY ALL),
            rows AS (
                SELECT row_no, {_COLUMN_LIST}, {_named(reference, "r")}, {_named(previous, "p")}
                FROM staged WHERE snapshot_name = $name AND provider = $provider)
            SELECT s.row_no, {", ".join(f"s.{c}" for c in PRICE_COLUMNS)},
                   o.usd AS on_demand_usd, p.usd AS previous_usd
            FROM rows s
            LEFT JOIN on_demand o ON {" AND ".join(f"o.k{i} = s.r{i}" for i in range(len(reference)))}
            LEFT JOIN previous p ON {" AND ".join(f"p.k{i} = s.p{i}" for i in range(len(previous)))}
            """  # noqa: S608 - fixed columns; values are parameters
        return sql, {
            "name": group.snapshot_name,
            "provider": group.provider,
            "on_demand": PricingModel.ON_DEMAND.value,
            # No snapshot is named with a NUL: with no previous snapshot nothing matches.
            "name_previous": previous_snapshot if previous_snapshot is not None else "\x00",
        }

    def with_references(
        self,
        group: StagedGroup,
        *,
        previous_snapshot: str | None,
        batch_rows: int,
        only: str | None = None,
    ) -> Iterator[tuple[int, PriceQuote, float | None, float | None]]:
        """(row, quote, lowest on-demand price of its reference key in the group, price of the
        last row of ``previous_snapshot`` (same provider) with its previous key), in file order,
        read ``batch_rows`` at a time; ``only``: a table of the ``row_no`` to read (default:
        every row of the group)."""
        sql, params = self.references(group, previous_snapshot=previous_snapshot)
        where = f" WHERE row_no IN (SELECT row_no FROM {only})" if only else ""  # noqa: S608
        cursor = self._con.cursor()
        cursor.execute(f"SELECT * FROM ({sql}){where} ORDER BY row_no", params)  # noqa: S608
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
