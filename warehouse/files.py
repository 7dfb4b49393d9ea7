"""What a warehouse path holds, checked with DuckDB alone (no store, no pandas): light enough
for the dashboard's server to check its warehouse before it listens."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import duckdb

from tokendesk.paths import data_dir
from warehouse.bundled import changed_files, loaded_digests
from warehouse.engine import WarehouseError
from warehouse.lake import is_lake_target
from warehouse.migrations import pending_migrations

#: DuckDB's database files carry these bytes at offset 8 (its storage header's magic).
DUCKDB_MAGIC = (8, b"DUCK")


def refuse_unless_duckdb_file(path: Path) -> None:
    """A warehouse path that exists must be a DuckDB file: a folder, a pipe or device, or a
    file of something else is refused in words (DuckDB's own errors read like a fault, and
    reading a pipe would wait forever). ``tokendesk`` never overwrites such a path."""
    where = f"the warehouse path {path}"
    if path.is_dir():
        raise WarehouseError(f"{where} is a folder; give --db a file path (one is built there)")
    if not path.is_file():
        raise WarehouseError(f"{where} is not a regular file (a pipe or device?); give a file path")
    offset, magic = DUCKDB_MAGIC
    with path.open("rb") as handle:
        head = handle.read(offset + len(magic))
    if head[offset:] != magic:
        what = "an empty file" if not head else "not a DuckDB database file"
        raise WarehouseError(
            f"{where} is {what}, so it is not a tokendesk warehouse; give another path (a new"
            " one is built there) or move the file away — it is left as it is"
        )


def is_duckdb_file(path: Path) -> bool:
    """Whether ``path`` is a regular file with DuckDB's storage header."""
    try:
        refuse_unless_duckdb_file(path)
    except (WarehouseError, OSError):
        return False
    return True


#: What :func:`missing_parts` names when a warehouse has every migration but no data: a build
#: that stopped between its schema and its data (a kill, a crash, a full disk), or a file made
#: with ``build=False``.
BUNDLED_DATA = "the bundled data (no snapshot was ever written)"


def missing_parts(connection: duckdb.DuckDBPyConnection) -> list[str]:
    """What the warehouse ``connection`` reads lacks to be whole, in words: each pending
    migration, else the bundled data when it holds no good snapshot; empty when it is whole.

    The one check the commands and the dashboard's server make before they read (two small
    queries): the build writes the schema and the data in separate transactions, so a process
    killed between them leaves a file with every migration and no data, which must never be
    read as an empty market. A warehouse with any good snapshot counts as built: the seed is
    loaded in one transaction, so it lands whole or not at all."""
    pending = pending_migrations(connection)
    if pending:
        return [f"migration {m.version} ({m.name})" for m in pending]
    return [] if holds_data(connection) else [BUNDLED_DATA]


def holds_data(connection: duckdb.DuckDBPyConnection) -> bool:
    """Whether a migrated warehouse holds any good snapshot (the bundled data, or more)."""
    row = connection.execute("SELECT count(*) FROM snapshots WHERE status = 'ok'").fetchone()
    return bool(row and row[0])


def is_whole(target: str) -> bool:
    """Whether ``target`` is a DuckDB warehouse file with every migration applied and its data
    loaded (:func:`missing_parts`)."""
    return _check_file(target, lambda connection: not missing_parts(connection))


def is_up_to_date(target: str) -> bool:
    """Whether the warehouse at ``target`` needs nothing from ``tokendesk db init``: whole
    (:func:`is_whole`) and built from the bundled files as ``data/`` holds them now. Anything
    else — a new path, a team catalog, a build that stopped part way, a file another process is
    writing, a path that is not a warehouse, one built from another copy of ``data/`` — is for
    ``db init``, which builds, migrates, waits, refuses or says what differs, in words."""
    # A warehouse that records no bundled file (built before they were recorded) cannot tell
    # which copy of data/ it holds: db init says so.
    return _check_file(
        target,
        lambda connection: (
            not missing_parts(connection)
            and changed_files(loaded_digests(connection), data_dir()) == []
        ),
    )


def _check_file(target: str, check: Callable[[duckdb.DuckDBPyConnection], bool]) -> bool:
    if is_lake_target(target) or not is_duckdb_file(Path(target)):
        return False
    try:
        connection = duckdb.connect(target, read_only=True)
    except duckdb.Error:
        return False
    try:
        return check(connection)
    except duckdb.Error:
        return False
    finally:
        connection.close()
