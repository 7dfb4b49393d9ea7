"""Moving an embedded warehouse into team mode with its whole history.

Every snapshot (with who wrote it), price, result, integrity report, decision, workspace version
and retraction is copied with its own ids, in one transaction of the lake: the copy lands whole or not at all.
Afterwards the two warehouses are compared table by table and "current" view by view; a
difference is an error, never a warning.
"""

from __future__ import annotations

from dataclasses import dataclass

from warehouse.engine import WarehouseError
from warehouse.store import Warehouse

#: Snapshot data and the company's own records, in the order their rows refer to each other.
COPIED_TABLES = (
    "snapshots",
    "snapshot_authors",
    "price_quotes",
    "benchmark_results",
    "integrity_checks",
    "retractions",
    "decisions",
    "review_closings",
    "workspaces",
    "bundled_files",
)
#: Reference data both sides build from the bundled catalog: compared, not copied.
REFERENCE_TABLES = ("accelerators",)
#: What the dashboard and every cost read: equal before and after, row for row.
CURRENT_VIEWS = ("current_prices", "current_results", "current_price_snapshots")


class TransferError(WarehouseError):
    pass


@dataclass(frozen=True)
class TransferReport:
    rows: dict[str, int]  # per table, equal in both warehouses
    current_rows: dict[str, int]  # per "current" view, equal row for row


def copy_into_lake(source: Warehouse, target: Warehouse) -> TransferReport:
    """Copy ``source`` (an embedded warehouse) into ``target`` (a new team-mode warehouse)."""
    if source.is_lake or not target.is_lake:
        raise TransferError("the copy goes from an embedded warehouse into a DuckLake one")
    if source.schema_version() != target.schema_version():
        raise TransferError(
            f"schema versions differ ({source.schema_version()} and {target.schema_version()})"
        )
    _require_new(target)
    with source.reading():
        tables = {
            table: source.cursor().execute(f"SELECT * FROM {table}").to_arrow_table()  # noqa: S608 - fixed names
            for table in COPIED_TABLES
        }
    with target._transaction() as tx:
        # The example workspace the new catalog was built with gives way to the copied history.
        tx.execute("DELETE FROM workspaces WHERE origin = 'seed'")
        for table, rows in tables.items():
            if rows.num_rows == 0:
                continue
            columns = ", ".join(rows.column_names)
            tx.register("incoming_rows", rows)
            tx.execute(
                f"INSERT INTO {table} ({columns}) SELECT {columns} FROM incoming_rows"  # noqa: S608 - names from the schema
            )
            tx.unregister("incoming_rows")
    target.advance_id_counters()
    return _compare(source, target)


def _require_new(target: Warehouse) -> None:
    """Refuse a lake that already holds history: the copy would mix two warehouses."""
    counts = target.query(
        "SELECT (SELECT count(*) FROM snapshots) AS snapshots,"
        " (SELECT count(*) FROM workspaces WHERE origin <> 'seed') AS workspaces,"
        " (SELECT count(*) FROM decisions) AS decisions"
    ).iloc[0]
    held = {name: int(value) for name, value in counts.items() if int(value)}
    if held:
        listing = ", ".join(f"{value} {name}" for name, value in held.items())
        raise TransferError(
            f"the {target.path} already holds {listing}; copy into a new, empty catalog"
        )


def _compare(source: Warehouse, target: Warehouse) -> TransferReport:
    rows: dict[str, int] = {}
    for table in (*COPIED_TABLES, *REFERENCE_TABLES):
        sql = f"SELECT count(*) AS n FROM {table}"  # noqa: S608 - fixed names
        before, after = int(source.query(sql)["n"][0]), int(target.query(sql)["n"][0])
        if before != after:
            raise TransferError(f"{table}: {before} rows before the copy, {after} after")
        rows[table] = after
    current: dict[str, int] = {}
    for view in CURRENT_VIEWS:
        sql = f"SELECT * FROM {view} ORDER BY ALL"  # noqa: S608 - fixed names
        before, after = source.query(sql), target.query(sql)
        if not before.equals(after):
            raise TransferError(
                f"{view} differs after the copy ({len(before)} rows before, {len(after)} after)"
            )
        current[view] = len(after)
    return TransferReport(rows, current)
