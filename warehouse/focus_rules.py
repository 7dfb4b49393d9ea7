"""What a bill's charge row must be before it is summed: the row rules ``focus_files.read_groups``
checks in the same scan that sums the charges, so a bad cell is refused by file, row and column
instead of becoming a NaN fleet, a fleet dated 9999 or a negative rate.

Each rule is a SQL condition over the reader's cast values (``billed``, ``effective``,
``consumed``, ``charge_start``, ``charge_end`` and the text columns by their ``pricing.focus``
names); it is true for a row that is refused. The limits are wide: they only refuse what no
provider's export holds.
"""

from __future__ import annotations

from dataclasses import dataclass

#: Largest cost or quantity one charge row may carry ($1 trillion; 10^12 hours): sums of
#: millions of rows stay finite, and a 1e308 cell is refused instead of overflowing to infinity.
MAX_CELL = 1e12
#: Earliest charge a cloud bill can hold (no public cloud billed before 2006).
EARLIEST_CHARGE = "2006-01-01"
#: Longest period one charge row may span: a 3-year commitment's term with room to spare.
MAX_CHARGE_DAYS = 6 * 366
#: Most opening brackets a key-value cell (SkuPriceDetails, x_SkuDetails) may hold: FOCUS
#: defines it as a flat object; thousands of nested levels would exhaust the JSON parser.
MAX_KEY_VALUE_BRACKETS = 64
#: Longest region text a fleet line takes from a bill (the workspace's own text limit).
MAX_REGION_CHARS = 200

#: Usage rows are the ones a fleet line is made of; credits and corrections may be negative.
_USAGE = (
    "lower(coalesce(charge_category, '')) IN ('usage', '')"
    " AND lower(coalesce(charge_class, '')) <> 'correction'"
)


@dataclass(frozen=True)
class RowRule:
    """One refusal: ``field`` (our name; its file column is shown) and when a row breaks it."""

    name: str
    field: str
    condition: str
    problem: str


def _finite(field: str) -> RowRule:
    return RowRule(
        f"nonfinite_{field}",
        field,
        f"(isnan({field}) OR isinf({field}))",
        "is not a finite number (NaN or infinity); fix the cell or export the bill again",
    )


def _huge(field: str) -> RowRule:
    return RowRule(
        f"huge_{field}",
        field,
        f"(NOT isnan({field}) AND abs({field}) > {MAX_CELL:.0f})",
        f"is beyond any real charge (more than {MAX_CELL:,.0f} in one row);"
        " fix the cell or export the bill again",
    )


def _sign(field: str, condition: str, what: str) -> RowRule:
    """A usage row whose cost and hours disagree in sign: no rate follows from it. (Exports do
    hold negative usage rows, reversals, but their hours and costs are negative together.)"""
    return RowRule(
        f"sign_{field}",
        field,
        f"({condition} AND {_USAGE})",
        f"is {what} on a usage charge: its cost and its hours disagree in sign, so no rate"
        " follows (credits and refunds are their own ChargeCategory); fix the cell",
    )


ROW_RULES: tuple[RowRule, ...] = (
    *(_finite(f) for f in ("billed", "effective", "consumed")),
    *(_huge(f) for f in ("billed", "effective", "consumed")),
    _sign("billed", "billed < 0 AND consumed > 0", "negative where the hours are positive"),
    _sign("effective", "effective < 0 AND consumed > 0", "negative where the hours are positive"),
    _sign("consumed", "consumed < 0 AND effective > 0", "negative where the cost is positive"),
    RowRule(
        "early_charge_start",
        "charge_start",
        f"(charge_start < TIMESTAMP '{EARLIEST_CHARGE}')",
        f"is before {EARLIEST_CHARGE[:4]}: no cloud bill holds such a charge;"
        " fix the date or export the bill again",
    ),
    RowRule(
        "future_charge_start",
        "charge_start",
        "(charge_start > (now() AT TIME ZONE 'UTC') + INTERVAL 1 DAY)",
        "is in the future: a bill records charges already incurred;"
        " fix the date or export the bill again",
    ),
    RowRule(
        "reversed_period",
        "charge_end",
        "(charge_end < charge_start)",
        "is before the row's ChargePeriodStart: the period ends before it starts",
    ),
    RowRule(
        "long_period",
        "charge_end",
        f"(date_diff('day', charge_start, charge_end) > {MAX_CHARGE_DAYS})",
        f"is more than {MAX_CHARGE_DAYS:,} days after the row's ChargePeriodStart;"
        " no charge spans that long",
    ),
    *(
        RowRule(
            f"nested_{field}",
            field,
            f"(length({field}) - length(replace(replace({field}, '{{', ''), '[', ''))"
            f" > {MAX_KEY_VALUE_BRACKETS})",
            f"holds more than {MAX_KEY_VALUE_BRACKETS} nested objects or lists; FOCUS defines"
            " it as one flat object: export the bill again",
        )
        for field in ("sku_price_details", "x_sku_details")
    ),
    RowRule(
        "formula_region",
        "region",
        "(regexp_matches(region, '^\\s*[=+@-]'))",
        "starts like a spreadsheet formula; no region id does: fix the cell",
    ),
    RowRule(
        "control_region",
        "region",
        "(regexp_matches(region, '[[:cntrl:]]'))",
        "holds a control character or line break; write the region id alone",
    ),
    RowRule(
        "long_region",
        "region",
        f"(length(region) > {MAX_REGION_CHARS})",
        f"is longer than {MAX_REGION_CHARS} characters; write the region id alone",
    ),
)

#: DuckDB types a cost or quantity column may have (VARCHAR: a CSV; the rest: Parquet).
NUMBER_TYPES = (
    "VARCHAR",
    "DOUBLE",
    "FLOAT",
    "DECIMAL",
    "TINYINT",
    "SMALLINT",
    "INTEGER",
    "BIGINT",
    "HUGEINT",
    "UTINYINT",
    "USMALLINT",
    "UINTEGER",
    "UBIGINT",
    "UHUGEINT",
)


def number_type_ok(kind: str) -> bool:
    """Whether a column of DuckDB type ``kind`` can hold a cost or quantity (not BOOLEAN,
    DATE, a list, ...)."""
    return kind.upper().startswith(NUMBER_TYPES)
