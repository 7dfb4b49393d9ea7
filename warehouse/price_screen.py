"""Column-by-column screens of a price file in the staging database, so a million valid rows
cost no Python per row.

Each screen is conservative: it passes only rows it can prove the per-row rules would pass
(and, for the file's rows, whose stored values it can prove equal to what the record would
store). Every other row goes through the per-row rules (``PriceQuote`` with
``tokendesk.catalog.check_in_catalog``; ``pricing.integrity.RowChecks``) in file order, so
whatever is refused or flagged is refused or flagged by the same code, in the same words, as
before. A row a screen sends on for nothing only costs time.

* ``screen_rows``: the cells of a batch of rows as written (text) -> stored values, for the rows
  whose every cell is plain printable ASCII of an unambiguous form.
* ``screen_checks``: the rows of a staged group -> which certainly pass every integrity rule
  (counted per rule in SQL) and which the rules must see.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, date, datetime
from typing import Any, Protocol

import duckdb
import pyarrow as pa

from tokendesk.catalog import load_catalog
from tokendesk.records import (
    EARLIEST_OBSERVATION,
    MAX_COUNT,
    MAX_FIELD_CHARS,
    MAX_MAGNITUDE,
    MAX_USD_PER_ACCELERATOR_HOUR,
    MIN_USD_PER_ACCELERATOR_HOUR,
    Backend,
    PriceBasis,
    PricingModel,
)
from warehouse.price_rows import PRICE_COLUMNS


class RuleFacts(Protocol):
    """What the integrity rules judge a quote against, as rows
    (``pricing.integrity.RowChecks.facts``; the warehouse does not import the pricing room)."""

    # Read-only: a frozen dataclass gives them.
    @property
    def today(self) -> date: ...

    @property
    def anchors(self) -> list[tuple[str, str, str, str]]: ...

    @property
    def expected(self) -> list[tuple[str, str, int]]: ...

    @property
    def cpus(self) -> list[str]: ...

    @property
    def known(self) -> list[str]: ...

    @property
    def own(self) -> list[tuple[str, str, str, str, float]]: ...

    @property
    def peers(self) -> list[tuple[str, str, float, float]]: ...

    @property
    def holds(self) -> bool: ...

    @property
    def rules(self) -> tuple[str, ...]: ...

    @property
    def hold_factor(self) -> float: ...

    @property
    def max_move_fraction(self) -> float: ...

    @property
    def committed_models(self) -> tuple[str, ...]: ...


#: Text the record keeps as written: printable ASCII, no space at either end (``clean_text``
#: removes nothing from it and ``str.strip`` nothing). Anything else goes to the record.
_PLAIN = r"[!-~]([ -~]*[!-~])?"
#: Whole numbers without sign, leading zero or separator; decimals without exponent.
_WHOLE = r"0|[1-9][0-9]{0,8}"
_DECIMAL = r"(0|[1-9][0-9]{0,11})(\.[0-9]{1,15})?"
_DATE = r"[12][0-9]{3}-[01][0-9]-[0-3][0-9]"
_MOMENT = _DATE + r"([T ]([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9])?"

#: Text columns: required (non-empty), or kept as written with '' meaning "none".
_REQUIRED_TEXT = ("provider", "region", "instance_type", "accelerator_id", "source")
_OPTIONAL_TEXT = (
    "zone",
    "source_url",
    "source_date_text",
    "confidence",
    "notes",
    "quote_id",
    "vendor_contact",
)
#: Optional text the record stores as None when the cell is empty (the others store '').
_NONE_WHEN_EMPTY = {"zone", "quote_id", "vendor_contact"}


def _plain(cell: str) -> str:
    return f"(length({cell}) <= {MAX_FIELD_CHARS} AND regexp_full_match({cell}, '{_PLAIN}'))"


def _literal(value: float) -> str:
    return f"CAST('{value!r}' AS DOUBLE)"


def _conditions(cell: dict[str, str]) -> list[str]:
    """What a row must satisfy to be stored without the record (each proves a rule passes)."""
    count, usd = "TRY_CAST(" + cell["accelerator_count"] + " AS INTEGER)", "v_usd"
    conditions = [f"{cell[name]} <> '' AND {_plain(cell[name])}" for name in _REQUIRED_TEXT]
    conditions += [f"({cell[name]} = '' OR {_plain(cell[name])})" for name in _OPTIONAL_TEXT]
    conditions += [
        # check_url: an http(s) link or nothing.
        f"({cell['source_url']} = '' OR lower({cell['source_url']}) LIKE 'https://%'"
        f" OR lower({cell['source_url']}) LIKE 'http://%')",
        f"regexp_full_match({cell['accelerator_count']}, '{_WHOLE}') AND {count} <= 1024",
        f"({cell['vcpus']} = '' OR (regexp_full_match({cell['vcpus']}, '{_WHOLE}')"
        f" AND TRY_CAST({cell['vcpus']} AS INTEGER) BETWEEN 1 AND {MAX_COUNT}))",
        f"({cell['memory_gib']} = '' OR (regexp_full_match({cell['memory_gib']}, '{_DECIMAL}')"
        f" AND TRY_CAST({cell['memory_gib']} AS DOUBLE) > 0"
        f" AND TRY_CAST({cell['memory_gib']} AS DOUBLE) <= {_literal(MAX_MAGNITUDE)}))",
        f"regexp_full_match({cell['usd_per_hour']}, '{_DECIMAL}') AND {usd} > 0"
        f" AND {usd} <= {_literal(MAX_MAGNITUDE)}",
        f"list_contains($pricing_models, {cell['pricing_model']})",
        f"({cell['price_basis']} = '' OR list_contains($bases, {cell['price_basis']}))",
        # check_moment: not before the earliest observation, not in the future (the record
        # allows a day of clock skew; rows within it go to the record).
        f"({cell['observed_at']} = '' OR (regexp_full_match({cell['observed_at']}, '{_MOMENT}')"
        f" AND TRY_CAST({cell['observed_at']} AS TIMESTAMP) BETWEEN $earliest AND $latest))",
        *(
            f"({cell[name]} = '' OR (regexp_full_match({cell[name]}, '{_DATE}')"
            f" AND TRY_CAST({cell[name]} AS DATE) >= DATE '1900-01-01'))"
            for name in ("valid_from", "expires_on")
        ),
        # check_in_catalog: a known accelerator; less than one socket only for a CPU.
        f"list_contains($accelerators, {cell['accelerator_id']})",
        f"({count} >= 1 OR list_contains($cpus, {cell['accelerator_id']}))",
        # PriceQuote._consistent
        f"({cell['price_basis']} <> '{PriceBasis.PER_ACCELERATOR}' OR {count} = 1)",
        f"({cell['pricing_model']} <> '{PricingModel.NEGOTIATED}' OR {cell['quote_id']} <> '')",
        f"({cell['valid_from']} = '' OR {cell['expires_on']} = ''"
        f" OR TRY_CAST({cell['valid_from']} AS DATE) <= TRY_CAST({cell['expires_on']} AS DATE))",
        f"{usd} / greatest({count}, 1) BETWEEN {_literal(MIN_USD_PER_ACCELERATOR_HOUR)}"
        f" AND {_literal(MAX_USD_PER_ACCELERATOR_HOUR)}",
    ]
    return conditions


def _stored(cell: dict[str, str]) -> list[str]:
    """The stored value of each of ``PRICE_COLUMNS`` from the cells (valid where the row passed)."""
    values = {name: cell[name] for name in (*_REQUIRED_TEXT, *_OPTIONAL_TEXT)}
    values.update({name: f"NULLIF({cell[name]}, '')" for name in _NONE_WHEN_EMPTY})
    values.update(
        accelerator_count=f"TRY_CAST({cell['accelerator_count']} AS INTEGER)",
        vcpus=f"TRY_CAST(NULLIF({cell['vcpus']}, '') AS INTEGER)",
        memory_gib=f"TRY_CAST(NULLIF({cell['memory_gib']}, '') AS DOUBLE)",
        pricing_model=cell["pricing_model"],
        usd_per_hour="v_usd",
        price_basis=f"CASE WHEN {cell['price_basis']} = '' THEN '{PriceBasis.INSTANCE}'"
        f" ELSE {cell['price_basis']} END",
        observed_at=f"TRY_CAST(NULLIF({cell['observed_at']}, '') AS TIMESTAMP)",
        valid_from=f"TRY_CAST(NULLIF({cell['valid_from']}, '') AS DATE)",
        expires_on=f"TRY_CAST(NULLIF({cell['expires_on']}, '') AS DATE)",
    )
    return [f"{values[name]} AS {name}" for name in PRICE_COLUMNS]


def screen_rows(
    con: duckdb.DuckDBPyConnection,
    raw: pa.Table,
    *,
    into: str,
    now: datetime | None = None,
) -> list[int]:
    """Screen ``raw`` (``row_no`` and one text column per column of the file, named as the
    record's fields, ``seed_snapshot`` included where the file has it) into the scratch table
    ``into``: the rows that pass, as ``warehouse.staging.INCOMING_SCHEMA``. Returns the numbers
    of the rows that did not pass, in file order: the record must judge those."""
    present = set(raw.column_names)
    # A missing column reads as empty cells, as the record reads a missing field; a file
    # without observed_at (a required column, even if empty) is left to the record whole.
    cell = {name: name if name in present else "''" for name in PRICE_COLUMNS}
    conditions = _conditions(cell) if "observed_at" in present else ["false"]
    seed = "seed_snapshot" if "seed_snapshot" in present else "NULL::VARCHAR"
    ok = " AND ".join(f"({condition})" for condition in conditions)
    catalog = load_catalog()
    latest = (now or datetime.now(UTC)).astimezone(UTC).replace(tzinfo=None)
    con.register("raw_rows", raw)
    try:
        con.execute(
            f"CREATE OR REPLACE TABLE {into} AS"  # noqa: S608 - names are fixed; values are parameters
            f" SELECT row_no, coalesce(NULLIF({seed}, ''), 'current') AS snapshot_name,"
            f" {seed} AS seed_raw, {', '.join(_stored(cell))}, NULL::INTEGER AS observed_offset,"
            f" coalesce({ok}, false) AS ok"
            f" FROM (SELECT *, TRY_CAST({cell['usd_per_hour']} AS DOUBLE) AS v_usd FROM raw_rows)",
            {
                "pricing_models": [m.value for m in PricingModel],
                "bases": [b.value for b in PriceBasis],
                "earliest": EARLIEST_OBSERVATION,
                "latest": latest,
                "accelerators": sorted(catalog),
                "cpus": sorted(i for i, a in catalog.items() if a.backend is Backend.CPU),
            },
        )
    finally:
        con.unregister("raw_rows")
    flagged = con.execute(f"SELECT row_no FROM {into} WHERE NOT ok ORDER BY row_no").fetchall()  # noqa: S608
    con.execute(f"DELETE FROM {into} WHERE NOT ok")  # noqa: S608
    con.execute(f"ALTER TABLE {into} DROP COLUMN ok")
    return [int(row_no) for (row_no,) in flagged]


def _facts_tables(facts: RuleFacts) -> dict[str, pa.Table]:
    def table(
        names: Sequence[str], types: Sequence[pa.DataType], rows: Sequence[tuple]
    ) -> pa.Table:
        columns: list[Sequence[Any]] = list(zip(*rows, strict=True)) if rows else [[]] * len(names)
        return pa.table(
            {
                name: pa.array(column, kind)
                for name, kind, column in zip(names, types, columns, strict=True)
            }
        )

    text, number, whole = pa.string(), pa.float64(), pa.int64()
    return {
        "fact_anchors": table(
            ("provider", "region", "instance_type", "pricing_model"), (text,) * 4, facts.anchors
        ),
        "fact_expected": table(
            ("provider", "instance_type", "count"), (text, text, whole), facts.expected
        ),
        "fact_own": table(
            ("provider", "region", "instance_type", "pricing_model", "usd"),
            (text, text, text, text, number),
            facts.own,
        ),
        "fact_peers": table(
            ("accelerator_id", "pricing_model", "lo", "hi"),
            (text, text, number, number),
            facts.peers,
        ),
    }


#: Margins that send a row near a rule's edge to the rule itself (floating point is not worth
#: proving at the edge; such rows are few).
_NEAR = 0.999


def _check_sql(relation: str, facts: RuleFacts) -> str:
    """Per row of ``relation``: ``sure`` (it certainly passes every rule of
    ``pricing.integrity.RowChecks.check``) and, per rule, whether the rule checks it."""
    per = "r.usd_per_hour / greatest(r.accelerator_count, 1)"
    held = (
        "isfinite(r.usd_per_hour) AND r.usd_per_hour > 0"
        " AND (o.usd IS NOT NULL OR p.lo IS NOT NULL)"
        if facts.holds
        else "false"
    )
    high = (
        f"(o.usd IS NULL OR r.usd_per_hour > o.usd * {facts.hold_factor} * {_NEAR})"
        f" AND (p.hi IS NULL OR {per} > p.hi * {facts.hold_factor} * {_NEAR})"
    )
    low = (
        f"(o.usd IS NULL OR r.usd_per_hour < o.usd / {facts.hold_factor} / {_NEAR})"
        f" AND (p.lo IS NULL OR {per} < p.lo / {facts.hold_factor} / {_NEAR})"
    )
    positive, spot, committed, accelerator, anchor, moved, expired, held_rule = facts.rules
    checks = {
        positive: ("true", "isfinite(r.usd_per_hour) AND r.usd_per_hour > 0"),
        spot: (
            f"r.pricing_model = '{PricingModel.SPOT}' AND r.on_demand_usd IS NOT NULL",
            "r.usd_per_hour <= r.on_demand_usd",
        ),
        committed: (
            "list_contains($committed, r.pricing_model) AND r.on_demand_usd IS NOT NULL",
            "r.usd_per_hour <= r.on_demand_usd",
        ),
        accelerator: (
            "true",
            "list_contains($known, r.accelerator_id)"
            " AND (r.accelerator_count >= 1 OR list_contains($cpus, r.accelerator_id))"
            " AND (e.count IS NULL OR r.accelerator_count = e.count)",
        ),
        # An anchored row always goes to the rule (anchors are few).
        anchor: ("a.provider IS NOT NULL", "false"),
        moved: (
            "r.previous_usd IS NOT NULL AND r.previous_usd > 0",
            f"abs(r.usd_per_hour / r.previous_usd - 1) <= {facts.max_move_fraction} * {_NEAR}",
        ),
        expired: ("r.expires_on IS NOT NULL", "r.expires_on >= $today"),
        held_rule: (held, f"NOT (({high}) OR ({low}))"),
    }
    checked = ", ".join(
        f'coalesce({applies}, false) AS "{rule}"' for rule, (applies, _) in checks.items()
    )
    sure = " AND ".join(
        f"(NOT coalesce({applies}, false) OR coalesce({passes}, false))"
        for applies, passes in checks.values()
    )
    return (
        f"SELECT r.row_no, {sure} AS sure, {checked} FROM {relation} r"  # noqa: S608 - fixed names
        " LEFT JOIN fact_anchors a ON a.provider = r.provider AND a.region = r.region"
        " AND a.instance_type = r.instance_type AND a.pricing_model = r.pricing_model"
        " LEFT JOIN fact_expected e ON e.provider = r.provider"
        " AND e.instance_type = r.instance_type"
        " LEFT JOIN fact_own o ON o.provider = r.provider AND o.region = r.region"
        " AND o.instance_type = r.instance_type AND o.pricing_model = r.pricing_model"
        " LEFT JOIN fact_peers p ON p.accelerator_id = r.accelerator_id"
        " AND p.pricing_model = r.pricing_model"
    )


def screen_checks(
    con: duckdb.DuckDBPyConnection,
    relation: str,
    params: dict[str, object],
    facts: RuleFacts,
    *,
    into: str,
) -> dict[str, int]:
    """Screen the rows of ``relation`` (SQL of a group's staged rows with ``on_demand_usd`` and
    ``previous_usd``, taking ``params``) against the integrity rules: the numbers of the rows
    that must go through the rules are left in the scratch table ``into`` (``row_no``);
    returns, per rule, how many of the other rows (all passing) it checked."""
    tables = _facts_tables(facts)
    for name, table in tables.items():
        con.register(name, table)
    try:
        con.execute(
            f"CREATE OR REPLACE TABLE check_screen AS {_check_sql(f'({relation})', facts)}",
            {
                **params,
                "committed": list(facts.committed_models),
                "known": facts.known,
                "cpus": facts.cpus,
                "today": facts.today,
            },
        )
    finally:
        for name in tables:
            con.unregister(name)
    sums = ", ".join(f'sum("{rule}"::INTEGER) FILTER (WHERE sure)' for rule in facts.rules)
    counts = con.execute(f"SELECT {sums} FROM check_screen").fetchone()  # noqa: S608
    con.execute(
        f"CREATE OR REPLACE TABLE {into} AS SELECT row_no FROM check_screen WHERE NOT sure"  # noqa: S608
    )
    con.execute("DROP TABLE check_screen")
    return {rule: int(n or 0) for rule, n in zip(facts.rules, counts or (), strict=False)}


def screened_values(columns: Sequence[str], rows: Sequence[Sequence[str]]) -> list[dict | None]:
    """For tests: the stored values ``screen_rows`` gives each of ``rows`` (cells as written,
    named by ``columns``), or None for a row it leaves to the record."""
    raw = pa.table(
        {
            "row_no": pa.array(range(len(rows)), pa.int64()),
            **{
                name: pa.array([row[i] for row in rows], pa.string())
                for i, name in enumerate(columns)
            },
        }
    )
    with duckdb.connect() as con:
        screen_rows(con, raw, into="screened")
        found = con.execute(f"SELECT row_no, {', '.join(PRICE_COLUMNS)} FROM screened").fetchall()  # noqa: S608
    values: list[dict | None] = [None] * len(rows)
    for row_no, *stored in found:
        values[row_no] = dict(zip(PRICE_COLUMNS, stored, strict=True))
    return values
