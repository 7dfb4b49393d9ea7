"""The migrations' DDL as each engine takes it: the shipped text is never edited, it is adapted.

* DuckDB 1.5 (the release whose DuckLake extension is published as a wheel) refuses
  ``ALTER TABLE t ADD COLUMN c T NOT NULL DEFAULT d`` ("Adding columns with constraints not yet
  supported"). The same column comes from ``ADD COLUMN c T DEFAULT d`` followed by
  ``ALTER COLUMN c SET NOT NULL``: existing rows take the default, and NULL is refused after.
* DuckLake tables take no PRIMARY KEY, UNIQUE, FOREIGN KEY or CHECK constraint and there are no
  sequences ("Not implemented Error: PRIMARY KEY/UNIQUE constraints are not supported in
  DuckLake", "DuckLake does not support sequences", "CHECK constraints are not supported in
  DuckLake"). The lake's DDL drops them; what they guarded is kept elsewhere: ids come from
  sequences in the catalog's PostgreSQL database (``lake.py``), snapshot ids are generated
  unique, every row is a validated record before it is written, and each write inserts its
  snapshot row in the same transaction as the rows that name it. NOT NULL and DEFAULT stay,
  except on a column added later: DuckLake refuses ``SET NOT NULL`` in the transaction that
  added the column ("Cannot SET NOT NULL on table ... the table has transaction-local changes
  or no stats are available"), so such a column keeps its DEFAULT and the records, which always
  carry a value for it, stand in for NOT NULL.
"""

from __future__ import annotations

import re

_ADD_COLUMN_NOT_NULL = re.compile(
    r"ALTER TABLE (?P<table>\w+) ADD COLUMN (?P<column>\w+) (?P<type>\w+(?:\[\])?)"
    r" NOT NULL DEFAULT (?P<default>[^;]+);"
)
_SEQUENCE = re.compile(r"CREATE SEQUENCE \w+;\s*")
_SEQUENCE_DEFAULT = re.compile(r" DEFAULT nextval\('\w+'\)")
_PRIMARY_KEY = re.compile(r" PRIMARY KEY\b")
_REFERENCES = re.compile(r" REFERENCES \w+ \(\w+\)")
_CHECK = re.compile(r" CHECK \(")
#: What must not reach a DuckLake catalog; a new migration that uses another constraint fails
#: loudly here instead of being half translated.
_UNSUPPORTED_IN_LAKE = re.compile(
    r"\b(PRIMARY KEY|UNIQUE|REFERENCES|CHECK|SEQUENCE|nextval|RETURNING)\b", re.IGNORECASE
)


class DialectError(ValueError):
    """A migration uses something the adaptation does not know how to carry over."""


def embedded_sql(sql: str) -> str:
    """The DDL for an embedded DuckDB file: the same schema, in statements DuckDB 1.5 parses."""
    return _ADD_COLUMN_NOT_NULL.sub(
        lambda m: (
            f"ALTER TABLE {m['table']} ADD COLUMN {m['column']} {m['type']}"
            f" DEFAULT {m['default']};\n"
            f"        ALTER TABLE {m['table']} ALTER COLUMN {m['column']} SET NOT NULL;"
        ),
        sql,
    )


def lake_sql(sql: str) -> str:
    """The DDL for a DuckLake catalog: the embedded DDL less the constraints DuckLake lacks."""
    # SET NOT NULL right after ADD COLUMN fails in one DuckLake transaction: the default stays.
    sql = _ADD_COLUMN_NOT_NULL.sub(
        lambda m: (
            f"ALTER TABLE {m['table']} ADD COLUMN {m['column']} {m['type']} DEFAULT "
            + m["default"]
            + ";"
        ),
        _strip_comments(sql),
    )
    sql = _SEQUENCE.sub("", sql)
    sql = _SEQUENCE_DEFAULT.sub("", sql)
    sql = _PRIMARY_KEY.sub("", sql)
    sql = _REFERENCES.sub("", sql)
    sql = _drop_checks(sql)
    leftover = _UNSUPPORTED_IN_LAKE.search(sql)
    if leftover:
        raise DialectError(
            f"a migration uses {leftover.group(0)!r}, which a DuckLake catalog does not support "
            "and warehouse/dialect.py does not translate; teach lake_sql() its replacement"
        )
    return sql


def _strip_comments(sql: str) -> str:
    """Drop ``--`` comments (they may name a constraint in words); no literal holds ``--``."""
    return "\n".join(line.split("--", 1)[0].rstrip() for line in sql.splitlines())


def _drop_checks(sql: str) -> str:
    """Remove every `` CHECK (...)`` with its balanced parentheses."""
    while match := _CHECK.search(sql):
        depth, end = 0, match.end() - 1
        for end in range(match.end() - 1, len(sql)):
            depth += {"(": 1, ")": -1}.get(sql[end], 0)
            if depth == 0:
                break
        else:
            raise DialectError("a CHECK constraint in a migration has unbalanced parentheses")
        sql = sql[: match.start()] + sql[end + 1 :]
    return sql
