"""Read a cloud bill (a FOCUS cost export: CSV, gzip CSV or Parquet) with DuckDB.

A bill runs to millions of charge rows; Python only needs their sums. So each file is scanned
once by an in-memory DuckDB (a throwaway reader, not the warehouse's connection) and grouped by
the text columns the caller names and the calendar month; the caller (``pricing.focus``, through
the command layer) decides which of the file's columns those are and what the groups mean.

Every value is read as text and cast in SQL, so one malformed cell is reported by file, row and
column instead of failing the whole read with a parser's message.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb

from warehouse.focus_rules import ROW_RULES, RowRule, number_type_ok


class BillFileError(ValueError):
    """A bill file could not be read; the message names the file, the row and the column."""


@dataclass(frozen=True)
class FileRead:
    """The groups of one file (a dict per group, keyed by the caller's names) and its size."""

    path: Path
    rows: int
    groups: list[dict[str, Any]]


_PARQUET_MAGIC = b"PAR1"
#: Column types whose values are key-value objects (FOCUS's SkuPriceDetails, Tags in Parquet).
_NESTED = ("STRUCT", "MAP", "JSON")


def _source(path: Path) -> str:
    """The table function that reads ``path`` (the path itself is a bound parameter)."""
    with path.open("rb") as handle:
        head = handle.read(4)
    if head == _PARQUET_MAGIC:
        return "read_parquet(?)"
    # gzip is recognised by read_csv from the extension; a gzip file named otherwise is told.
    compression = "gzip" if head[:2] == b"\x1f\x8b" else "none"
    return (
        "read_csv(?, all_varchar = true, header = true, nullstr = ['', 'NULL'],"
        f" compression = '{compression}')"
    )


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _connect() -> duckdb.DuckDBPyConnection:
    con = duckdb.connect(":memory:")
    # Bills state times in UTC (FOCUS requires it); a time without a zone is read as UTC.
    con.execute("SET TimeZone = 'UTC'")
    # DuckDB draws a progress bar on stdout for a long scan; the command's JSON goes there.
    con.execute("SET enable_progress_bar = false")
    return con


def file_columns(path: Path) -> dict[str, str]:
    """The columns of a bill file (its header), each with its DuckDB type (VARCHAR for CSV)."""
    if not path.is_file():
        raise BillFileError(f"{path}: file not found")
    if path.stat().st_size == 0:
        raise BillFileError(f"{path.name}: the file is empty; export the bill again")
    try:
        with _connect() as con:
            sql = f"DESCRIBE SELECT * FROM {_source(path)}"  # noqa: S608 - fixed text
            rows = con.execute(sql, [str(path)]).fetchall()
    except duckdb.Error as exc:
        raise BillFileError(
            f"{path.name}: not a readable CSV or Parquet file ({_first_line(exc)})"
        ) from None
    return {str(r[0]): str(r[1]) for r in rows}


def _first_line(exc: Exception) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__


def _timestamp(column: str) -> str:
    return f"(TRY_CAST({_quote(column)} AS TIMESTAMPTZ) AT TIME ZONE 'UTC')"


def read_groups(
    path: Path,
    text: Mapping[str, str | None],
    numbers: Mapping[str, str | None],
    times: Mapping[str, str | None],
    types: Mapping[str, str] | None = None,
) -> FileRead:
    """Sum a bill's charges per distinct ``text`` values and calendar month of the charge start.

    ``text``, ``numbers`` and ``times`` map the caller's names to the file's columns (None: the
    file has no such column); ``types`` (from ``file_columns``) marks the key-value columns that
    are read as JSON text. ``numbers`` must name ``billed``, ``effective`` and ``consumed``
    (None allowed for ``consumed``), ``times`` ``charge_start`` and ``charge_end``. Each group
    carries ``rows``, the sums, the time bounds and ``unit_rate_min``/``unit_rate_max``
    (effective $ per consumed unit among its rows).
    """
    if not path.is_file():
        raise BillFileError(f"{path}: file not found")
    _check_number_types(path, numbers, types or {})
    source = _source(path)
    # Inner query: each cell cast once (text keys, numbers, times, and whether a present cell
    # failed its cast); outer query: the sums per group.
    inner: list[str] = []
    keys: list[str] = []
    nested = {c for c, kind in (types or {}).items() if kind.upper().startswith(_NESTED)}
    for name, column in text.items():
        if not column:
            expr = "CAST(NULL AS VARCHAR)"
        elif column in nested:  # a Parquet STRUCT / MAP key-value column: read it as JSON
            expr = f"CAST(to_json({_quote(column)}) AS VARCHAR)"
        else:
            expr = f"CAST({_quote(column)} AS VARCHAR)"
        inner.append(f"{expr} AS {_quote(name)}")
        keys.append(_quote(name))
    checks: dict[str, tuple[str, str]] = {}
    for name, column in {**numbers, **times}.items():
        if not column:
            cast = "CAST(NULL AS DOUBLE)" if name in numbers else "CAST(NULL AS TIMESTAMP)"
            inner.append(f"{cast} AS {_quote(name)}")
            continue
        cast = f"TRY_CAST({_quote(column)} AS DOUBLE)" if name in numbers else _timestamp(column)
        inner.append(f"{cast} AS {_quote(name)}")
        alias = f"bad_{name}"
        checks[alias] = (column, cast)
        inner.append(f"({_quote(column)} IS NOT NULL AND {cast} IS NULL) AS {_quote(alias)}")
    aggregates = [
        "count(*) AS rows",
        "coalesce(sum(billed), 0) AS billed",
        "coalesce(sum(effective), 0) AS effective",
        "coalesce(sum(consumed), 0) AS consumed",
        "min(effective / consumed) FILTER (WHERE consumed > 0) AS unit_rate_min",
        "max(effective / consumed) FILTER (WHERE consumed > 0) AS unit_rate_max",
        "min(charge_start) AS charge_start",
        "max(charge_end) AS charge_end",
        *(f"count(*) FILTER (WHERE {_quote(alias)}) AS {_quote(alias)}" for alias in checks),
        *(f"count(*) FILTER (WHERE {r.condition}) AS {_quote(r.name)}" for r in ROW_RULES),
    ]
    # Identifiers only: the columns are the file's spelling of FOCUS names the caller matched
    # (quoted, quotes doubled); every value, the path included, is a bound parameter.
    sql = (
        f"SELECT {', '.join(keys)}, date_trunc('month', charge_start) AS month,"  # noqa: S608
        f" {', '.join(aggregates)} FROM (SELECT {', '.join(inner)} FROM {source})"
        f" GROUP BY {', '.join(keys)}, month"
    )
    try:
        with _connect() as con:
            cursor = con.execute(sql, [str(path)])
            names = [d[0] for d in cursor.description or ()]
            rows = [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]
            for alias, (column, cast) in checks.items():
                if any(r[alias] for r in rows):
                    raise BillFileError(_bad_value(con, source, path, column, cast))
            columns = {**text, **numbers, **times}
            for rule in ROW_RULES:
                if any(r[rule.name] for r in rows):
                    where = (source, ", ".join(inner))
                    raise BillFileError(_broken_rule(con, where, path, rule, columns))
    except duckdb.Error as exc:
        raise BillFileError(
            f"{path.name}: not a readable CSV or Parquet file ({_first_line(exc)})"
        ) from None
    for r in rows:
        for alias in [*checks, *(rule.name for rule in ROW_RULES)]:
            r.pop(alias, None)
    return FileRead(path, sum(int(r["rows"]) for r in rows), rows)


def _bad_value(
    con: duckdb.DuckDBPyConnection, source: str, path: Path, column: str, cast: str
) -> str:
    """'bill.csv: row 17, BilledCost: 'n/a' is not a number' for the first bad cell."""
    hit = con.execute(
        f"SELECT n, v FROM (SELECT row_number() OVER () AS n, {_quote(column)} AS v,"  # noqa: S608
        f" {cast} AS c FROM {source}) WHERE v IS NOT NULL AND c IS NULL ORDER BY n LIMIT 1",
        [str(path)],
    ).fetchone()
    what = "a date and time" if "TIMESTAMP" in cast else "a number"
    if hit is None:
        return f"{path.name}: {column} has a value that is not {what}"
    return (
        f"{path.name}: row {int(hit[0])} (line {int(hit[0]) + 1}), {column}: {str(hit[1])!r}"
        f" is not {what}; fix the cell or export the bill again"
    )


def _check_number_types(
    path: Path, numbers: Mapping[str, str | None], types: Mapping[str, str]
) -> None:
    """A Parquet cost column of booleans (or dates, lists) is no cost: refused before it is
    cast (DuckDB would read true as 1.0)."""
    for column in numbers.values():
        kind = types.get(column) if column else None
        if kind is not None and not number_type_ok(kind):
            raise BillFileError(
                f"{path.name}: row 1, {column}: the column holds {kind} values, not numbers;"
                " export the bill again with numeric costs"
            )


def _broken_rule(
    con: duckdb.DuckDBPyConnection,
    where: tuple[str, str],
    path: Path,
    rule: RowRule,
    columns: Mapping[str, str | None],
) -> str:
    """'bill.csv: row 3 (line 4), ConsumedQuantity: 'NaN' is not a finite number ...' for the
    first row that breaks ``rule`` (``where``: the reader and the cast select list)."""
    source, inner = where
    column = columns.get(rule.field) or rule.field
    hit = con.execute(
        f"SELECT n, CAST(raw__ AS VARCHAR) FROM (SELECT row_number() OVER () AS n,"  # noqa: S608
        f" * FROM (SELECT {inner}, {_quote(column)} AS raw__ FROM {source}))"
        f" WHERE {rule.condition} ORDER BY n LIMIT 1",
        [str(path)],
    ).fetchone()
    if hit is None:
        return f"{path.name}: {column} {rule.problem}"
    value = str(hit[1])
    shown = repr(value[:60] + ("…" if len(value) > 60 else ""))
    return (
        f"{path.name}: row {int(hit[0])} (line {int(hit[0]) + 1}), {column}: {shown} {rule.problem}"
    )


def raw_total_sql(path: Path) -> tuple[str, list[str]]:
    """The query a FinOps analyst would write by hand over the same file: billed cost by
    provider and service category (the perf benchmark's baseline)."""
    reader = "read_parquet(?)" if _source(path).startswith("read_parquet") else "read_csv(?)"
    sql = f'SELECT "ProviderName", "ServiceCategory", sum("BilledCost") FROM {reader}'  # noqa: S608
    return sql + " GROUP BY ALL", [str(path)]


def run_raw(path: Path) -> list[tuple]:
    sql, params = raw_total_sql(path)
    with _connect() as con:
        return con.execute(sql, params).fetchall()


def first_row_with(path: Path, column: str, value: str) -> int | None:
    """The 1-based number of the first row whose ``column`` reads ``value`` (None: no row)."""
    sql = (
        f"SELECT n FROM (SELECT row_number() OVER () AS n, CAST({_quote(column)} AS VARCHAR)"  # noqa: S608
        f" AS v FROM {_source(path)}) WHERE trim(v) = ? ORDER BY n LIMIT 1"
    )
    try:
        with _connect() as con:
            hit = con.execute(sql, [str(path), value]).fetchone()
    except duckdb.Error:
        return None
    return int(hit[0]) if hit else None
