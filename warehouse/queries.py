"""Named queries over the warehouse. All SQL text is fixed here; user input only ever arrives
as bound parameters.

The central one is the **cost join**: every current price quote × every current benchmark
result it can host, with

* replicas per instance = floor(instance accelerators / result accelerators per replica)
* instance tok/s        = replicas × result tok/s
* $/1K tokens           = instance $/h / (instance tok/s × 3.6)      (tokendesk.metrics)

A quote priced per accelerator-hour (a neocloud that does not publish an instance shape) is
billed for exactly the accelerators one replica needs, and is labelled as such.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from tokendesk.metrics import PERCENTILES, ftl_basis_label, ftl_column, usd_per_1k_sql
from tokendesk.records import PricingModel

if TYPE_CHECKING:
    from warehouse.store import Warehouse

#: Filters the cost join accepts: name -> (side, column). Values may be a scalar or a list.
COST_FILTERS = {
    "accelerator": ("p", "accelerator_id"),
    "vendor": ("a", "vendor"),
    "backend": ("a", "backend"),
    "provider": ("p", "provider"),
    "region": ("p", "region"),
    "pricing_model": ("p", "pricing_model"),
    "model": ("r", "model"),
    "precision": ("r", "precision"),
    "workload": ("r", "workload"),
    "scenario": ("r", "scenario"),
    "runtime": ("r", "runtime"),
}

#: Sort keys the cost join accepts (column -> SQL expression); anything else is rejected.
COST_SORTS = {
    "usd_per_1k_output_tokens": "usd_per_1k_output_tokens",
    "usd_per_1k_total_tokens": "usd_per_1k_total_tokens",
    "usd_per_hour": "usd_per_hour",
    "usd_per_accelerator_hour": "usd_per_accelerator_hour",
    "ttft_ms_p50": "ttft_ms_p50",
    "ttft_ms_p95": "ttft_ms_p95",
    "ttft_ms_p99": "ttft_ms_p99",
    "instance_output_tok_s": "instance_output_tok_s",
}

#: The join itself computes only numbers and keys. Descriptive and provenance columns (source
#: titles, URLs, dates, labels) repeat across thousands of joined rows, so they are fetched once
#: per price quote and per result and attached as pandas categoricals: materialising them per
#: joined row made the join six times slower than the arithmetic it carries.
#: The economics of one option, over a price quote ``p`` and a benchmark result ``r``: the one place
#: the unit-cost formula is written in SQL (the cost join below and futures day's join as of a date
#: both select it). A per-accelerator quote is billed for the accelerators one replica needs; every
#: name a later expression reads is an alias defined here (``billed_usd_per_hour``), never a
#: column of ``p`` that a select list could shadow.
COST_FORMULAS = f"""
    CASE WHEN p.price_basis = 'per_accelerator' THEN r.accelerators_per_replica
         ELSE p.accelerator_count END                                   AS accelerator_count,
    CASE WHEN p.price_basis = 'per_accelerator' THEN p.usd_per_hour * r.accelerators_per_replica
         ELSE p.usd_per_hour END                                        AS billed_usd_per_hour,
    billed_usd_per_hour                                                 AS usd_per_hour,
    p.usd_per_hour / greatest(p.accelerator_count, 1)                   AS usd_per_accelerator_hour,
    p.usd_per_hour                                                      AS quote_usd_per_hour,
    r.accelerators_per_replica,
    CASE WHEN p.price_basis = 'per_accelerator' THEN 1
         ELSE p.accelerator_count // r.accelerators_per_replica END     AS replicas_per_instance,
    replicas_per_instance * r.output_tok_s                              AS instance_output_tok_s,
    replicas_per_instance * r.total_tok_s                               AS instance_total_tok_s,
    {usd_per_1k_sql("billed_usd_per_hour", "instance_output_tok_s")} AS usd_per_1k_output_tokens,
    {usd_per_1k_sql("billed_usd_per_hour", "instance_total_tok_s")} AS usd_per_1k_total_tokens"""
#: Which quotes can host which results: the same accelerator, and room for one replica.
COST_JOIN_ON = """r.accelerator_id = p.accelerator_id
 AND (p.price_basis = 'per_accelerator' OR p.accelerator_count >= r.accelerators_per_replica)"""

_COST_CORE = f"""
SELECT
    (p.price_id << 32) + r.result_id                                    AS option_id,
    p.price_id, r.result_id,{COST_FORMULAS},
    r.concurrency, r.request_rate_rps, r.input_tokens, r.output_tokens,
    r.ttft_ms_p50, r.ttft_ms_p90, r.ttft_ms_p95, r.ttft_ms_p99,
    r.tpot_ms_p50, r.tpot_ms_p95, r.tpot_ms_p99,
    r.parity_exact_match, r.parity_similarity, r.measured_power_w, r.prefix_cache_share
FROM price_quotes p
JOIN benchmark_results r
  ON {COST_JOIN_ON}
JOIN accelerators a ON a.accelerator_id = p.accelerator_id
-- The same rows as current_prices x current_results, written as semi-joins on the base tables:
-- DuckDB plans this about twice as fast as the join of the two views.
WHERE p.quarantine_reason IS NULL
  AND p.price_id IN (SELECT price_id FROM current_price_ids)
  AND r.snapshot_id IN (SELECT snapshot_id FROM snapshots WHERE status = 'ok')
  AND r.snapshot_id NOT IN (SELECT snapshot_id FROM retractions)
"""  # noqa: S608 - fixed text: the formula comes from tokendesk.metrics

#: Per price quote: (output column, SQL expression over current_prices p / accelerators a).
_PRICE_DIMENSIONS = {
    "provider": "p.provider",
    "region": "p.region",
    "zone": "p.zone",
    "instance_type": "p.instance_type",
    "pricing_model": "p.pricing_model",
    "price_basis": "p.price_basis",
    "accelerator_id": "p.accelerator_id",
    "accelerator_name": "a.name",
    "vendor": "a.vendor",
    "backend": "a.backend",
    "price_source": "p.source",
    "price_source_url": "p.source_url",
    "price_observed_at": "p.observed_at",
    "price_confidence": "p.confidence",
    "price_snapshot_id": "p.snapshot_id",
    "quote_id": "p.quote_id",
    "expires_on": "p.expires_on",
    "review_flag": "p.review_flag",
    "quote_expired": "(p.expires_on IS NOT NULL AND p.expires_on < current_date)",
}

#: Per result: (output column, SQL expression over current_results r).
_RESULT_DIMENSIONS = {
    "config_key": "r.config_key",
    "model": "r.model",
    "precision": "r.precision",
    "runtime": "r.runtime",
    "runtime_version": "r.runtime_version",
    "system": "r.system",
    "workload": "r.workload",
    "scenario": "r.scenario",
    "ttft_basis": "r.ttft_basis",
    "bench_source_tool": "r.source_tool",
    "bench_source_title": "r.source_title",
    "bench_source_url": "r.source_url",
    "bench_measured_at": "r.measured_at",
    "bench_confidence": "r.confidence",
    "bench_snapshot_id": "r.snapshot_id",
}

#: Column order of the cost-options frame.
COST_COLUMNS = [
    "option_id",
    *list(_PRICE_DIMENSIONS)[:10],
    "accelerator_count",
    "usd_per_hour",
    "usd_per_accelerator_hour",
    "quote_usd_per_hour",
    "price_source",
    "price_source_url",
    "price_observed_at",
    "price_confidence",
    "price_snapshot_id",
    "price_id",
    "quote_id",
    "expires_on",
    "review_flag",
    "quote_expired",
    "result_id",
    "config_key",
    "model",
    "precision",
    "runtime",
    "runtime_version",
    "system",
    "workload",
    "input_tokens",
    "output_tokens",
    "scenario",
    "concurrency",
    "request_rate_rps",
    "accelerators_per_replica",
    "replicas_per_instance",
    "instance_output_tok_s",
    "instance_total_tok_s",
    "usd_per_1k_output_tokens",
    "usd_per_1k_total_tokens",
    "ttft_ms_p50",
    "ttft_ms_p90",
    "ttft_ms_p95",
    "ttft_ms_p99",
    "ttft_basis",
    "tpot_ms_p50",
    "tpot_ms_p95",
    "tpot_ms_p99",
    "parity_exact_match",
    "parity_similarity",
    "measured_power_w",
    "prefix_cache_share",
    "bench_source_tool",
    "bench_source_title",
    "bench_source_url",
    "bench_measured_at",
    "bench_confidence",
    "bench_snapshot_id",
]


def _as_list(value: object) -> list[object]:
    if isinstance(value, str | bytes) or not isinstance(value, Sequence):
        return [value]
    return list(value)


def _dimension_table(
    warehouse: Warehouse, columns: dict[str, str], source: str, key: str, ids: np.ndarray
) -> pa.Table:
    select = ", ".join(f"{expression} AS {name}" for name, expression in columns.items())
    cursor = warehouse.cursor()
    cursor.register("wanted_ids", pa.table({"id": pa.array(ids, type=pa.int64())}))
    try:
        return cursor.sql(
            f"SELECT {key} AS id, {select} FROM {source} WHERE {key} IN (SELECT id FROM wanted_ids)"  # noqa: S608 - fixed identifiers
        ).to_arrow_table()
    finally:
        cursor.unregister("wanted_ids")


def _attach(core: dict[str, Any], dims: pa.Table, keys: np.ndarray) -> None:
    """Add ``dims``' columns for each of ``keys`` (ids into ``dims``): strings as categoricals
    (Arrow's dictionary encoding, then one integer take), other types by a plain take."""
    positions = pd.Index(dims.column("id").to_numpy()).get_indexer(keys)
    for name in dims.column_names[1:]:
        column = dims.column(name)
        if pa.types.is_string(column.type) or pa.types.is_large_string(column.type):
            encoded = pc.dictionary_encode(column).combine_chunks()
            codes = encoded.indices.fill_null(-1).to_numpy(zero_copy_only=False)
            core[name] = pd.Categorical.from_codes(
                codes[positions], categories=encoded.dictionary.to_pandas()
            )
        else:
            core[name] = column.to_numpy()[positions]


#: Groups ``best_per`` may pick the cheapest option of (column of the joined rows).
BEST_PER = {"vendor": "a.vendor", "accelerator": "p.accelerator_id", "provider": "p.provider"}


def ftl_sql(percentile: str) -> tuple[str, str]:
    """SQL for (FTL ms, FTL basis) at ``percentile``: the percentile itself or, where a source does
    not publish it, the next HIGHER published one as an upper bound — the rule of
    ``tokendesk.metrics.ftl_with_basis``, written once more for DuckDB to filter and sort on."""
    ftl_column(percentile)  # validates
    candidates = PERCENTILES[PERCENTILES.index(percentile) :]
    value = f"coalesce({', '.join(f'r.ttft_ms_{c}' for c in candidates)})"
    cases = " ".join(
        f"WHEN r.ttft_ms_{c} IS NOT NULL THEN '{ftl_basis_label(c, percentile)}'"
        for c in candidates
    )
    return value, f"CASE {cases} ELSE 'unknown' END"


def _where(
    filters: dict[str, object], include_expired: bool = False
) -> tuple[list[str], list[object]]:
    where: list[str] = (
        [] if include_expired else ["(p.expires_on IS NULL OR p.expires_on >= current_date)"]
    )
    params: list[object] = []
    for name, value in filters.items():
        if name not in COST_FILTERS:
            raise ValueError(f"unknown filter {name!r}; known: {', '.join(sorted(COST_FILTERS))}")
        if value is None or value == [] or value == ():
            continue
        side, column = COST_FILTERS[name]
        values = _as_list(value)
        where.append(f"{side}.{column} IN ({', '.join('?' for _ in values)})")
        params.extend(values)
    return where, params


def count_options(warehouse: Warehouse, **filters: object) -> int:
    """How many options the cost join has under these filters (no rows materialised)."""
    where, params = _where(filters)
    sql = f"SELECT count(*) FROM ({_COST_CORE}{''.join(f' AND {c}' for c in where)})"  # noqa: S608 - fixed text
    row = warehouse.cursor().execute(sql, params).fetchone()
    return int(row[0]) if row else 0


def count_current_prices(warehouse: Warehouse, provider: str | None = None) -> int:
    """How many current price quotes there are (of one provider), without reading them."""
    sql = "SELECT count(*) FROM current_prices"
    params: list[object] = []
    if provider is not None:
        sql += " WHERE provider = ?"
        params.append(provider)
    row = warehouse.cursor().execute(sql, params).fetchone()
    return int(row[0]) if row else 0


def cost_options(
    warehouse: Warehouse,
    *,
    sort: str | None = "usd_per_1k_output_tokens",
    descending: bool = False,
    limit: int | None = None,
    ftl_percentile: str | None = None,
    max_ftl_ms: float | None = None,
    best_per: str | None = None,
    frontier_only: bool = False,
    include_expired: bool = False,
    **filters: object,
) -> pd.DataFrame:
    """The cost join, filtered and sorted. Unknown filter or sort names raise ValueError.

    ``ftl_percentile`` adds ``ftl_ms``/``ftl_basis`` (see ``ftl_sql``) and allows sorting on
    ``ftl_ms``; ``max_ftl_ms`` keeps options whose FTL meets that SLO; ``best_per`` keeps the
    first option by ``sort`` in each vendor / accelerator / provider; ``frontier_only`` keeps the
    Pareto frontier of ``sort`` against FTL (no cheaper option is as fast). A negotiated quote
    past its expiry date cannot be bought at that price, so it is left out unless
    ``include_expired`` (the Prices page still lists it, labelled expired). All of it runs in
    DuckDB, so a page that needs ten rows out of millions reads ten rows.
    """
    where, params = _where(filters, include_expired)
    sorts = dict(COST_SORTS)
    select_extra = ""
    if ftl_percentile is not None:
        ftl_value, ftl_basis = ftl_sql(ftl_percentile)
        select_extra = f", {ftl_value} AS ftl_ms, {ftl_basis} AS ftl_basis"
        sorts["ftl_ms"] = "ftl_ms"
        if max_ftl_ms is not None:
            where.append(f"{ftl_value} <= ?")
            params.append(float(max_ftl_ms))
    elif max_ftl_ms is not None:
        raise ValueError("max_ftl_ms needs ftl_percentile")
    if sort is None:  # any order will do (e.g. to build the scenario engine): skip the sort
        if limit is not None or best_per is not None or frontier_only:
            raise ValueError("limit, best_per and frontier_only need a sort")
    elif sort not in sorts:
        raise ValueError(f"unknown sort {sort!r}; known: {', '.join(sorted(sorts))}")
    order = f"{sorts[sort]} {'DESC' if descending else 'ASC'} NULLS LAST, option_id" if sort else ""
    core_sql = _COST_CORE.replace(
        "\nFROM price_quotes p", f"{select_extra}\nFROM price_quotes p", 1
    )
    sql = core_sql + "".join(f" AND {condition}" for condition in where)
    if frontier_only:
        if ftl_percentile is None or best_per is not None:
            raise ValueError("frontier_only needs ftl_percentile and no best_per")
        sql += (
            f" QUALIFY ftl_ms < coalesce(min(ftl_ms) OVER (ORDER BY {order}"
            " ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 'inf'::DOUBLE)"
        )
    if best_per is not None:
        if best_per not in BEST_PER:
            raise ValueError(f"unknown best_per {best_per!r}; known: {', '.join(BEST_PER)}")
        sql += (
            f" QUALIFY row_number() OVER (PARTITION BY {BEST_PER[best_per]} ORDER BY {order}) = 1"
        )
    if (
        limit is not None or best_per is not None or frontier_only
    ):  # top-N is cheap in SQL; a full sort is cheaper in Arrow
        sql += f" ORDER BY {order}"
        if limit is not None:
            sql += " LIMIT ?"
            params.append(int(limit))
    table = warehouse.cursor().sql(sql, params=params).to_arrow_table()
    if sort is not None and limit is None and best_per is None and not frontier_only:
        order_index = pc.sort_indices(
            table,
            sort_keys=[
                (sorts[sort], "descending" if descending else "ascending", "at_end"),
                ("option_id", "ascending", "at_end"),
            ],
        )
        table = table.take(order_index)
    return _options_frame(warehouse, table, with_ftl=ftl_percentile is not None)


def _options_frame(warehouse: Warehouse, table: pa.Table, *, with_ftl: bool) -> pd.DataFrame:
    """The cost-options frame of the joined rows in ``table`` (numbers and keys), with each
    quote's and result's descriptive columns attached once per id."""
    core: dict[str, Any] = {
        name: table.column(name).to_numpy() for name in table.column_names if name != "ftl_basis"
    }
    if "ftl_basis" in table.column_names:
        core["ftl_basis"] = pd.Categorical(table.column("ftl_basis").to_pandas())
    price_ids, result_ids = core["price_id"], core["result_id"]
    prices = _dimension_table(
        warehouse,
        _PRICE_DIMENSIONS,
        "current_prices p JOIN accelerators a USING (accelerator_id)",
        "p.price_id",
        price_ids,
    )
    results = _dimension_table(
        warehouse, _RESULT_DIMENSIONS, "current_results r", "r.result_id", result_ids
    )
    _attach(core, prices, price_ids)
    _attach(core, results, result_ids)
    columns = COST_COLUMNS + (["ftl_ms", "ftl_basis"] if with_ftl else [])
    return pd.DataFrame({name: core[name] for name in columns}, copy=False)


#: The most cost-option rows ``planning_options`` hands the scenario engine. Measured: the frame
#: and ``Engine.from_frame`` over 560,264 rows (one operating point each, the dearest case: one
#: Python ``Option`` per row) peaked 3.0 GiB above the process's start, about 5.7 KB a row, so
#: 200,000 rows stay near 1.1 GiB (perf/README.md, price ingest).
MAX_PLANNING_OPTIONS = 200_000

#: What, besides its price, the planner can tell two current quotes apart by. Quotes equal in all
#: of these join the same benchmark results into the same operating points at the same units:
#:
#: * provider and region: the workspace's approved providers and regions filter on them;
#: * zone: part of an option's identity and of its sibling quotes (``Option.group_key``);
#: * pricing model: on demand, spot, reserved and committed capacity are paid differently;
#: * price basis and accelerator count: how many replicas a unit holds and what a unit bills;
#: * accelerator: which results the quote can host.
#:
#: Not in it: the instance type only names the SKU (two types with the same accelerators host
#: the same results; a fleet's own types are kept whole, below); source, date and confidence
#: are shown with the option the planner picks, never used to pick it (confidence breaks ties,
#: so the surviving quote is the better-founded one); an expired quote is left out before the
#: ranking, as the cost join leaves it out; quote id and review flag are read by no plan.
PLANNING_QUOTE_KEY = (
    "provider",
    "region",
    "zone",
    "pricing_model",
    "price_basis",
    "accelerator_id",
    "accelerator_count",
)


class TooManyPlanningOptions(ValueError):
    """The cost join is too large to plan on even after pruning; the message says what to do."""


#: The current quotes the planner can use (the price side of ``_COST_CORE``, plus its
#: not-expired rule), ranked within ``PLANNING_QUOTE_KEY``: the first is the cheapest (a
#: non-positive price, which no option may carry, last), then the more confident, then the
#: oldest id. ``{pricing}`` is the optional pricing-model condition (bound parameters).
_PLANNING_PRICE_IDS = f"""
WITH eligible AS (
    SELECT p.price_id, p.instance_type, p.pricing_model,
           row_number() OVER (
               PARTITION BY {", ".join(f"p.{column}" for column in PLANNING_QUOTE_KEY)}
               ORDER BY p.usd_per_hour > 0 DESC NULLS LAST, p.usd_per_hour NULLS LAST,
                        CASE lower(p.confidence) WHEN 'high' THEN 0 WHEN 'medium' THEN 1
                                                 WHEN 'low' THEN 2 ELSE 3 END,
                        p.price_id) AS rank_in_key
    FROM price_quotes p
    WHERE p.quarantine_reason IS NULL
      AND p.price_id IN (SELECT price_id FROM current_price_ids)
      AND (p.expires_on IS NULL OR p.expires_on >= current_date){{pricing}}
),
planning_price_ids AS (
    SELECT price_id FROM eligible
    WHERE rank_in_key = 1
       OR pricing_model = '{PricingModel.NEGOTIATED.value}'
       OR instance_type IN (SELECT instance_type FROM kept_instance_types)
)
"""  # noqa: S608 - fixed text: the key and the pricing model are constants of this module


def planning_options(
    warehouse: Warehouse,
    *,
    pricing_model: Sequence[str] | str | None = None,
    keep_instance_types: Sequence[str] = (),
) -> pd.DataFrame:
    """The cost-options rows the scenario engine and the briefs plan on: the cost join (current
    quotes and results, expired quotes left out, in no particular order) over the quotes that
    can matter to a plan.

    Among current quotes the planner cannot tell apart except by price — same provider, region,
    zone, pricing model, price basis, accelerator and accelerator count
    (``PLANNING_QUOTE_KEY``) — only the cheapest is kept (ties: the higher price confidence,
    then the lowest ``price_id``). Kept whole: every quote of an instance type in
    ``keep_instance_types`` (the workspace's fleet: a fleet line's own rate is always found, in
    any region) and every negotiated quote (a company's own contract). The pruning runs over the
    quotes before they are joined with the results, so a price file of a million quotes joins
    only the few thousand that survive.

    Raises ``TooManyPlanningOptions`` when the pruned join still has more than
    ``MAX_PLANNING_OPTIONS`` rows, naming the count and what to do.
    """
    pricing_params = [] if pricing_model is None else _as_list(pricing_model)
    pricing = (
        f"\n      AND p.pricing_model IN ({', '.join('?' for _ in pricing_params)})"
        if pricing_params
        else ""
    )
    price_ids = _PLANNING_PRICE_IDS.replace("{pricing}", pricing)
    core = price_ids + _COST_CORE.replace("FROM current_price_ids)", "FROM planning_price_ids)", 1)
    kept = pa.table({"instance_type": pa.array(sorted(set(keep_instance_types)), pa.string())})
    cursor = warehouse.cursor()
    cursor.register("kept_instance_types", kept)
    try:
        row = cursor.execute(f"SELECT count(*) FROM ({core})", pricing_params).fetchone()  # noqa: S608 - fixed text
        count = int(row[0]) if row else 0
        if count > MAX_PLANNING_OPTIONS:
            raise TooManyPlanningOptions(
                f"the current prices and benchmark results make {count:,} options to plan on,"
                f" more than the {MAX_PLANNING_OPTIONS:,} the scenario engine is built for, even"
                " after keeping only the cheapest of quotes that differ in nothing but price."
                " Retract benchmark imports that are no longer needed (tokendesk bench retract),"
                " or ingest price files for fewer regions and zones; nothing was planned"
            )
        table = cursor.sql(core, params=pricing_params).to_arrow_table()
    finally:
        cursor.unregister("kept_instance_types")
    return _options_frame(warehouse, table, with_ftl=False)


def current_instance_types(
    warehouse: Warehouse, pricing_model: Sequence[str] | None = None
) -> list[str]:
    """Every instance type among the current quotes (of these pricing models), sorted: what a
    mistyped fleet line's nearest instance type is looked up in."""
    sql = "SELECT DISTINCT instance_type FROM current_prices"
    params: list[object] = []
    if pricing_model is not None:
        models = _as_list(pricing_model)
        sql += f" WHERE pricing_model IN ({', '.join('?' for _ in models)})"
        params.extend(models)
    return sorted(str(v) for v in warehouse.query(sql, params)["instance_type"])


#: Each cost filter's column, per view: one scan of each view gives every filter's values
#: (grouping sets: a row per distinct value of one column, the others empty).
FILTER_COLUMNS_SQL = (
    """
    SELECT p.accelerator_id AS accelerator, a.vendor, p.provider, p.region, p.pricing_model
    FROM current_prices p LEFT JOIN accelerators a USING (accelerator_id)
    GROUP BY GROUPING SETS ((accelerator), (vendor), (provider), (region), (pricing_model))
    """,
    """
    SELECT model, precision, workload, scenario
    FROM current_results
    GROUP BY GROUPING SETS ((model), (precision), (workload), (scenario))
    """,
)


def distinct_values(warehouse: Warehouse) -> dict[str, list[str]]:
    """Values each cost filter can take in the current data (for filter widgets)."""
    out: dict[str, list[str]] = {}
    for sql in FILTER_COLUMNS_SQL:
        frame = warehouse.query(sql)
        for name in frame.columns:
            out[name] = sorted(str(v) for v in frame[name].dropna().unique())
    return out


#: Whether a snapshot's data carries a date: some row of it is dated (a snapshot of undated rows
#: is stamped with its write time, which must never read as "fresh"). An empty snapshot (a failed
#: attempt) has no rows to date; its as_of is the attempt. ``s`` is the snapshots table.
SNAPSHOT_DATE_KNOWN_SQL = """
    (s.row_count = 0
     OR (s.kind = 'prices' AND EXISTS (SELECT 1 FROM price_quotes q
                                       WHERE q.snapshot_id = s.snapshot_id
                                         AND q.observed_at IS NOT NULL))
     OR (s.kind <> 'prices' AND EXISTS (SELECT 1 FROM benchmark_results r
                                        WHERE r.snapshot_id = s.snapshot_id
                                          AND r.measured_at IS NOT NULL)))
"""


def freshness(warehouse: Warehouse) -> pd.DataFrame:
    """Per source: the newest good snapshot's data date, its age in days and the last failure.

    ``date_known`` is False when the newest good snapshot's rows carry no date: its data date and
    age are then missing ("date unknown"), never the day it was written."""
    return warehouse.query(
        f"""
        WITH dated AS (
            SELECT s.*, {SNAPSHOT_DATE_KNOWN_SQL} AS date_known FROM snapshots s
        ),
        per_source AS (
            SELECT kind, source,
                   -- The newest data date among good snapshots whose rows carry one: an
                   -- undated snapshot is stamped with its write time, which is no data date.
                   max(as_of) FILTER (WHERE status = 'ok' AND date_known)    AS newest_as_of,
                   bool_or(date_known) FILTER (WHERE status = 'ok')          AS date_known,
                   count(*) FILTER (WHERE status = 'ok')                     AS good_snapshots,
                   max(created_at)                                           AS last_attempt,
                   arg_max(status, created_at)                               AS last_status,
                   arg_max(error, created_at)                                AS last_error
            FROM dated
            GROUP BY kind, source
        )
        SELECT kind, source,
               CASE WHEN date_known THEN newest_as_of END                    AS data_as_of,
               CASE WHEN date_known
                    THEN date_diff('day', newest_as_of, current_timestamp::TIMESTAMP)
               END                                                           AS age_days,
               coalesce(date_known, FALSE)                                   AS date_known,
               good_snapshots > 0                                            AS has_good_snapshot,
               last_attempt, last_status, last_error
        FROM per_source
        ORDER BY kind, source
        """  # noqa: S608  (a constant expression, no input)
    )


#: Filters the price explorer accepts: name -> column (p = price quotes, a = accelerators).
PRICE_FILTERS = {
    "provider": "p.provider",
    "region": "p.region",
    "accelerator": "p.accelerator_id",
    "pricing_model": "p.pricing_model",
    "vendor": "a.vendor",
    "instance_type": "p.instance_type",
}

#: The Prices page's quotes: every quote of the current price snapshots, and the quarantined
#: quotes of the latest ones (what integrity kept out, shown so a person can see it). A quote
#: of the first kind is current; ``p.quarantine_reason IS NULL`` tells them apart.
_EXPLORER_ROWS = """
        FROM price_quotes p
        JOIN snapshots s ON s.snapshot_id = p.snapshot_id
        LEFT JOIN accelerators a ON a.accelerator_id = p.accelerator_id
        WHERE (p.price_id IN (SELECT price_id FROM current_price_ids)
               OR (p.quarantine_reason IS NOT NULL
                   AND p.price_id IN (SELECT price_id FROM latest_price_ids)))
"""
#: The current quotes alone (what ``current_prices`` holds), for reads that leave quarantined
#: quotes out: one semi-join, about half the work of ``_EXPLORER_ROWS``' two.
_CURRENT_ROWS = """
        FROM price_quotes p
        JOIN snapshots s ON s.snapshot_id = p.snapshot_id
        LEFT JOIN accelerators a ON a.accelerator_id = p.accelerator_id
        WHERE p.price_id IN (SELECT price_id FROM current_price_ids)
          AND p.quarantine_reason IS NULL
"""
_EXPLORER_ORDER = (
    "p.provider, p.region, p.instance_type, p.pricing_model, p.zone NULLS FIRST, p.price_id"
)
#: A quote the page labels other than "current" (``app.models.prices.status``): quarantined,
#: expired, or flagged for review.
_FLAGGED = """(coalesce(p.quarantine_reason, '') <> ''
               OR coalesce(p.expires_on < current_date, false)
               OR coalesce(p.review_flag, '') <> '')"""


def _explorer_filters(filters: dict[str, object]) -> tuple[str, list[object]]:
    """`` AND ...`` conditions for the explorer's filters, and their bound values."""
    where: list[str] = []
    params: list[object] = []
    for name, value in filters.items():
        if name not in PRICE_FILTERS:
            raise ValueError(
                f"unknown price filter {name!r}; known: {', '.join(sorted(PRICE_FILTERS))}"
            )
        if value is None or value == [] or value == ():
            continue
        values = _as_list(value)
        where.append(f"{PRICE_FILTERS[name]} IN ({', '.join('?' for _ in values)})")
        params.extend(values)
    return "".join(f" AND {condition}" for condition in where), params


def price_explorer(
    warehouse: Warehouse,
    *,
    limit: int | None = None,
    current_only: bool = False,
    order_by_accelerator_hour: bool = False,
    **filters: object,
) -> pd.DataFrame:
    """The quotes of the current price snapshots, with source, date and flags, in the explorer's
    order (provider, region, instance type, pricing model, zone), at most ``limit`` of them.

    Quarantined quotes of those snapshots are included (``quarantine_reason`` set) so a person
    can see what integrity kept out; they are never part of ``current_prices`` and
    ``current_only`` leaves them out. ``order_by_accelerator_hour`` puts the cheapest
    $/accelerator-hour first (quotes without an accelerator count left out).
    """
    conditions, params = _explorer_filters(filters)
    rows = _CURRENT_ROWS if current_only else _EXPLORER_ROWS
    order = _EXPLORER_ORDER
    if order_by_accelerator_hour:
        conditions += " AND p.accelerator_count > 0"
        order = f"usd_per_accelerator_hour, {order}"
    sql = f"""
        SELECT p.price_id, p.provider, p.region, p.zone, p.instance_type, p.accelerator_id,
               a.name AS accelerator_name, a.vendor, p.accelerator_count, p.vcpus, p.memory_gib,
               p.pricing_model, p.price_basis, p.usd_per_hour,
               p.usd_per_hour / nullif(p.accelerator_count, 0)            AS usd_per_accelerator_hour,
               p.source, p.source_url, p.observed_at, p.confidence, p.notes, p.quote_id, p.expires_on,
               coalesce(p.expires_on < current_date, false)               AS quote_expired,
               p.quarantine_reason, p.review_flag, p.snapshot_id, s.as_of AS snapshot_as_of
        {rows}{conditions}
        ORDER BY {order}
    """
    if limit is not None:
        sql += " LIMIT ?"
        params.append(int(limit))
    return warehouse.query(sql, params)


def price_explorer_summary(warehouse: Warehouse, **filters: object) -> dict[str, Any]:
    """The explorer's figures over every quote it matches, read by aggregates (no quote is
    loaded): ``quotes`` (quarantined included), ``current``, ``providers`` and ``regions`` (of the
    current quotes), ``flagged`` (quarantined, expired or flagged for review) and ``newest``:
    the current quote with the newest price date (the first in the explorer's order where dates
    tie; provider, instance type, pricing model, source, observed_at), None when none is dated."""
    conditions, params = _explorer_filters(filters)
    row = (
        warehouse.cursor()
        .execute(
            f"""
        SELECT count(*),
               count(*) FILTER (WHERE p.quarantine_reason IS NULL),
               count(DISTINCT p.provider) FILTER (WHERE p.quarantine_reason IS NULL),
               count(DISTINCT p.region) FILTER (WHERE p.quarantine_reason IS NULL),
               count(*) FILTER (WHERE {_FLAGGED})
        {_EXPLORER_ROWS}{conditions}
        """,
            params,
        )
        .fetchone()
    )
    quotes, current, providers, regions, flagged = (int(v) for v in row) if row else (0,) * 5
    newest = warehouse.query(
        f"""
        SELECT p.provider, p.instance_type, p.pricing_model, p.source, p.observed_at
        {_CURRENT_ROWS}{conditions} AND p.observed_at IS NOT NULL
        ORDER BY p.observed_at DESC, {_EXPLORER_ORDER}
        LIMIT 1
        """,
        params,
    )
    return {
        "quotes": quotes,
        "current": current,
        "providers": providers,
        "regions": regions,
        "flagged": flagged,
        "newest": None if newest.empty else newest.iloc[0].to_dict(),
    }


def current_price_values(warehouse: Warehouse, **filters: object) -> dict[str, list[str]]:
    """The values each explorer filter (and the Prices tabs' pickers) can take among the
    current quotes matching ``filters``: one ``SELECT DISTINCT`` per column, sorted."""
    conditions, params = _explorer_filters(filters)
    lists = ", ".join(f"list(DISTINCT {column})" for column in PRICE_FILTERS.values())
    row = (
        warehouse.cursor().execute(f"SELECT {lists} {_CURRENT_ROWS}{conditions}", params).fetchone()
    )
    found = row if row else [[] for _ in PRICE_FILTERS]
    return {
        name: sorted(str(v) for v in values or [] if v is not None)
        for name, values in zip(PRICE_FILTERS, found, strict=True)
    }


def price_sku_spread(warehouse: Warehouse, **filters: object) -> pd.DataFrame:
    """Per SKU (instance type, pricing model) among the current quotes: in how many regions it
    is sold (``regions``). What the Prices page's by-region tab picks from."""
    conditions, params = _explorer_filters(filters)
    return warehouse.query(
        f"""
        SELECT p.instance_type, p.pricing_model, count(DISTINCT p.region) AS regions
        {_CURRENT_ROWS}{conditions}
        GROUP BY p.instance_type, p.pricing_model
        ORDER BY p.instance_type, p.pricing_model
        """,
        params,
    )


def accelerator_hour_offer(warehouse: Warehouse, **filters: object) -> pd.DataFrame:
    """Each accelerator (id and name) and pricing model among the current quotes with a known
    accelerator count: what the Prices page's $/accelerator-hour tab picks from."""
    conditions, params = _explorer_filters(filters)
    return warehouse.query(
        f"""
        SELECT DISTINCT p.accelerator_id, a.name AS accelerator_name, p.pricing_model
        {_CURRENT_ROWS}{conditions} AND p.accelerator_count > 0
        ORDER BY p.accelerator_id, p.pricing_model
        """,
        params,
    )


def price_skus(warehouse: Warehouse) -> pd.DataFrame:
    """Every SKU (provider, region, instance type, pricing model) priced in any snapshot."""
    return warehouse.query(
        """
        SELECT provider, region, instance_type, pricing_model,
               count(*) AS quotes, min(observed_at) AS first_observed, max(observed_at) AS last_observed
        FROM price_quotes
        GROUP BY ALL
        ORDER BY instance_type, pricing_model, provider, region
        """
    )


def price_history(
    warehouse: Warehouse, provider: str, region: str, instance_type: str, pricing_model: str
) -> pd.DataFrame:
    """One SKU's quotes across ALL snapshots (historical, current, partial, quarantined)."""
    return warehouse.query(
        """
        SELECT p.price_id, p.observed_at, p.usd_per_hour, p.price_basis, p.accelerator_count, p.zone,
               p.source, p.source_url, p.confidence, p.quarantine_reason, p.review_flag, p.expires_on,
               p.snapshot_id, s.status AS snapshot_status, s.origin AS snapshot_origin,
               s.created_at AS snapshot_created_at, s.as_of AS snapshot_as_of, s.notes AS snapshot_notes,
               coalesce(w.created_by, '') AS snapshot_created_by,
               (p.price_id IN (SELECT price_id FROM current_price_ids)) AS is_current
        FROM price_quotes p
        JOIN snapshots s ON s.snapshot_id = p.snapshot_id
        LEFT JOIN snapshot_authors w ON w.snapshot_id = p.snapshot_id
        WHERE p.provider = ? AND p.region = ? AND p.instance_type = ? AND p.pricing_model = ?
        -- An undated row counts from its snapshot's date (as current_price_ids ranks it), so
        -- when dates tie the older write comes first.
        ORDER BY s.as_of, coalesce(p.observed_at, s.as_of), s.created_at, p.price_id
        """,
        [provider, region, instance_type, pricing_model],
    )


def current_integrity(warehouse: Warehouse) -> pd.DataFrame:
    """The integrity reports stored with the snapshots that are current now."""
    return warehouse.query(
        """
        SELECT s.source, i.snapshot_id, s.as_of, s.created_at, i.rule, i.checked, i.failed, i.detail
        FROM integrity_checks i
        JOIN snapshots s ON s.snapshot_id = i.snapshot_id
        WHERE i.snapshot_id IN (SELECT snapshot_id FROM current_price_snapshots)
        ORDER BY s.source, s.created_at, i.snapshot_id, i.rule
        """
    )


def current_price_sources(warehouse: Warehouse) -> pd.DataFrame:
    """Per price source: the snapshot(s) current now, their data date and how many regions each serves."""
    return warehouse.query(
        """
        SELECT s.source, c.snapshot_id, s.origin, s.as_of, s.created_at,
               coalesce(w.created_by, '') AS created_by, count(DISTINCT c.region) AS regions
        FROM current_price_snapshots c
        JOIN snapshots s ON s.snapshot_id = c.snapshot_id
        LEFT JOIN snapshot_authors w ON w.snapshot_id = c.snapshot_id
        GROUP BY ALL
        ORDER BY s.source, s.as_of DESC, c.snapshot_id
        """
    )


def benchmark_snapshot_history(warehouse: Warehouse) -> pd.DataFrame:
    """Every benchmark snapshot, newest first, with who wrote it and its retraction (reason, who,
    when) if any."""
    return warehouse.query(
        """
        SELECT s.snapshot_id, s.created_at, coalesce(w.created_by, '') AS created_by, s.as_of,
               s.source, s.origin, s.status, s.row_count, s.error, s.notes,
               x.reason AS retraction_reason, x.retracted_by, x.retracted_at
        FROM snapshots s
        LEFT JOIN snapshot_authors w USING (snapshot_id)
        LEFT JOIN retractions x USING (snapshot_id)
        WHERE s.kind = 'benchmarks'
        ORDER BY s.created_at DESC, s.snapshot_id DESC
        """
    )


def current_benchmark_results(warehouse: Warehouse) -> pd.DataFrame:
    """Every current benchmark result with its accelerator, provenance and parity."""
    return warehouse.query(
        """
        SELECT r.result_id, r.config_key, r.accelerator_id, a.name AS accelerator_name, a.vendor,
               a.backend, r.accelerators_per_replica, r.instance_type, r.system, r.runtime,
               r.runtime_version, r.model, r.precision, r.workload, r.input_tokens, r.output_tokens,
               r.scenario, r.concurrency, r.request_rate_rps, r.output_tok_s, r.total_tok_s,
               r.output_tok_s / r.accelerators_per_replica AS output_tok_s_per_accelerator,
               r.ttft_ms_p50, r.ttft_ms_p90, r.ttft_ms_p95, r.ttft_ms_p99, r.ttft_basis,
               r.tpot_ms_p50, r.tpot_ms_p95, r.tpot_ms_p99, r.e2el_ms_p50, r.e2el_ms_p95,
               r.peak_memory_gib, r.measured_power_w, r.requests_ok, r.requests_failed,
               r.parity_exact_match, r.parity_similarity, r.measured_at, r.source_tool,
               r.source_file, r.source_title, r.source_url, r.confidence, r.snapshot_id
        FROM current_results r
        LEFT JOIN accelerators a ON a.accelerator_id = r.accelerator_id
        ORDER BY a.vendor, r.accelerator_id, r.config_key, r.concurrency NULLS FIRST,
                 r.request_rate_rps NULLS FIRST, r.output_tok_s
        """
    )


def negotiated_snapshots(warehouse: Warehouse) -> pd.DataFrame:
    """Price snapshots that hold negotiated quotes and nothing else (snapshot_id, source): a
    confidential source whose very name is hidden from those who may not see the quotes."""
    return warehouse.query(
        """
        SELECT s.snapshot_id, s.source
        FROM snapshots s JOIN price_quotes q USING (snapshot_id)
        GROUP BY ALL
        HAVING bool_and(q.pricing_model = ?)
        ORDER BY s.snapshot_id
        """,
        [PricingModel.NEGOTIATED.value],
    )


def instance_shapes(warehouse: Warehouse) -> pd.DataFrame:
    """Every (provider, instance type) any snapshot priced, with its accelerator and count: what
    a bill's instance types are looked up in."""
    return warehouse.query(
        """
        SELECT provider, instance_type, any_value(accelerator_id) AS accelerator_id,
               max(accelerator_count) AS accelerator_count
        FROM price_quotes
        GROUP BY provider, instance_type
        ORDER BY provider, instance_type
        """
    )


def instance_catalog(warehouse: Warehouse) -> pd.DataFrame:
    """Every instance type the current prices list, one row per provider, region and instance
    type: its accelerator (id and name), accelerators per instance, the cheapest current
    on-demand list price per instance-hour (NULL when it is sold only otherwise, e.g. reserved)
    and that price's date (NULL when the source states none) and source. What the Workspace
    page's instance search offers."""
    return warehouse.query(
        """
        WITH skus AS (
            SELECT provider, region, instance_type,
                   any_value(accelerator_id) AS accelerator_id,
                   max(accelerator_count)    AS accelerator_count
            FROM current_prices
            -- a list of what anyone may buy: a negotiated quote is one company's contract
            WHERE pricing_model <> ?
            GROUP BY provider, region, instance_type
        ),
        on_demand AS (
            SELECT provider, region, instance_type,
                   arg_min(usd_per_hour, usd_per_hour) AS usd_per_hour,
                   arg_min(observed_at, usd_per_hour)  AS observed_at,
                   arg_min(source, usd_per_hour)       AS source
            FROM current_prices
            WHERE pricing_model = ? AND price_basis = 'instance'
            GROUP BY provider, region, instance_type
        )
        SELECT s.provider, s.region, s.instance_type, s.accelerator_id,
               coalesce(a.name, s.accelerator_id) AS accelerator_name, s.accelerator_count,
               o.usd_per_hour AS on_demand_usd_per_hour, o.observed_at, o.source
        FROM skus s
        LEFT JOIN on_demand o USING (provider, region, instance_type)
        LEFT JOIN accelerators a ON a.accelerator_id = s.accelerator_id
        ORDER BY s.provider, s.region, s.instance_type
        """,
        [PricingModel.NEGOTIATED.value, PricingModel.ON_DEMAND.value],
    )


#: Columns of ``tokendesk prices list``: one current quote a row, with where it came from.
PRICE_LIST_COLUMNS = (
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
    "observed_at",
    "source_date_text",
    "confidence",
    "source",
    "source_url",
    "snapshot_id",
)


def current_price_list(
    warehouse: Warehouse,
    provider: Sequence[str] | None = None,
    pricing_model: Sequence[str] | None = None,
) -> pd.DataFrame:
    """Every current price quote (``PRICE_LIST_COLUMNS``), ordered by provider, region, instance
    type and pricing model; optionally only some providers and pricing models."""
    clauses: list[str] = []
    params: list[object] = []
    for column, values in (("provider", provider), ("pricing_model", pricing_model)):
        if values:
            clauses.append(f"{column} IN ({', '.join('?' for _ in values)})")
            params.extend(values)
    where = f"WHERE {' AND '.join(clauses)}" if clauses else ""
    return warehouse.query(
        f"SELECT {', '.join(PRICE_LIST_COLUMNS)} FROM current_prices {where}"  # noqa: S608
        " ORDER BY provider, region, instance_type, pricing_model, zone NULLS FIRST,"
        " usd_per_hour",
        params,
    )


#: The MLPerf round a result comes from, read from its source (the results repository's name in
#: its URL, or the round in its title): "v5.1". Empty for results of other tools.
_MLPERF_ROUND_SQL = """coalesce(
    nullif(regexp_extract(r.source_url, 'inference_results_(v[0-9]+\\.[0-9]+)', 1), ''),
    nullif(regexp_extract(r.source_title, 'MLPerf Inference (v[0-9]+\\.[0-9]+)', 1), ''),
    '')"""


def benchmark_result_list(
    warehouse: Warehouse,
    models: Sequence[str] | None = None,
    accelerators: Sequence[str] | None = None,
) -> pd.DataFrame:
    """Every current benchmark result, one row each: the tool and its round or version, what ran
    (model, accelerator, precision, runtime, scenario, load), the figures (output tok/s, TTFT
    and TPOT percentiles), the shape it was measured at and its source. ``models`` and
    ``accelerators`` keep only results whose model or accelerator id is one of them."""
    clauses: list[str] = []
    params: list[object] = []
    for column, values in (("r.model", models), ("r.accelerator_id", accelerators)):
        if values:
            clauses.append(f"{column} IN ({', '.join('?' for _ in values)})")
            params.extend(values)
    where = f"WHERE {' AND '.join(clauses)}" if clauses else ""
    return warehouse.query(
        f"""
        SELECT r.result_id, r.source_tool AS tool,
               coalesce(nullif({_MLPERF_ROUND_SQL}, ''), r.runtime_version) AS round_or_version,
               r.model, r.accelerator_id, r.accelerators_per_replica, r.nodes, r.system,
               r.precision, r.runtime, r.runtime_version, r.scenario, r.concurrency,
               r.request_rate_rps, r.output_tok_s,
               r.output_tok_s / r.accelerators_per_replica AS output_tok_s_per_accelerator,
               r.ttft_ms_p50, r.ttft_ms_p90, r.ttft_ms_p95, r.ttft_ms_p99,
               r.tpot_ms_p50, r.tpot_ms_p95, r.tpot_ms_p99,
               r.workload, r.input_tokens AS input_tokens_mean,
               r.output_tokens AS output_tokens_mean, r.measured_at, r.source_date_text,
               r.confidence, r.source_title AS source, r.source_url, r.snapshot_id
        FROM current_results r
        {where}
        ORDER BY r.source_tool, round_or_version, r.model, r.accelerator_id, r.scenario,
                 r.concurrency NULLS FIRST, r.request_rate_rps NULLS FIRST, r.output_tok_s,
                 r.result_id
        """,  # noqa: S608 - the clauses are fixed text; the values are bound
        params,
    )


def stored_model_names(warehouse: Warehouse) -> list[str]:
    """Every model name the current results record (as the tools wrote it)."""
    frame = warehouse.query("SELECT DISTINCT model FROM current_results ORDER BY model")
    return [str(name) for name in frame["model"]]
