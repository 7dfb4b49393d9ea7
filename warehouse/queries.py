"""Named queries over the warehouse. All SQL text is fixed here; user input only ever arrives
as bound parameters.

The central one is the **cost join**: every current price quote × every current benchmark
result it can host, with

* replicas per instance = floor(instance accelerators / result accelerators per replica)
* instance tok/s        = replicas × result tok/s
* $/1K tokens           = instance $/h / (instance tok/s × 3.6)      (tokendesk.metrics)

A quote priced per accelerator-hour (a neocloud that does not publish an instance shape) is
billed for exactly the accelerators one replica needs, and is labelled as such.

The cost-options frame's columns live in ``warehouse.cost_frame``; the queries the dashboard's
browsing pages read (filter values, freshness, price explorer, histories, instance catalog) in
``warehouse.catalog_queries``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from tokendesk.metrics import PERCENTILES, ftl_basis_label, ftl_column, usd_per_1k_sql
from tokendesk.records import PricingModel
from warehouse.cost_frame import as_list, options_frame

if TYPE_CHECKING:
    import duckdb

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
        values = as_list(value)
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
    return options_frame(warehouse, table, with_ftl=ftl_percentile is not None)


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
    pricing_params = [] if pricing_model is None else as_list(pricing_model)
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
        count = _count_rows(cursor, core, pricing_params)
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
    return options_frame(warehouse, table, with_ftl=False)


def _count_rows(cursor: duckdb.DuckDBPyConnection, core: str, params: Sequence[object]) -> int:
    row = cursor.execute(f"SELECT count(*) FROM ({core})", params).fetchone()  # noqa: S608 - fixed text
    return int(row[0]) if row else 0


def planning_option_count(con: duckdb.DuckDBPyConnection) -> int:
    """How many options the scenario engine would plan on with no fleet line kept whole (a
    workspace's fleet only adds to it): what ``db ingest`` checks before it commits, so a price
    file never leaves the warehouse past ``MAX_PLANNING_OPTIONS``."""
    core = _PLANNING_PRICE_IDS.replace("{pricing}", "") + _COST_CORE.replace(
        "FROM current_price_ids)", "FROM planning_price_ids)", 1
    )
    con.register("kept_instance_types", pa.table({"instance_type": pa.array([], pa.string())}))
    try:
        return _count_rows(con, core, [])
    finally:
        con.unregister("kept_instance_types")


def current_instance_types(
    warehouse: Warehouse, pricing_model: Sequence[str] | None = None
) -> list[str]:
    """Every instance type among the current quotes (of these pricing models), sorted: what a
    mistyped fleet line's nearest instance type is looked up in."""
    sql = "SELECT DISTINCT instance_type FROM current_prices"
    params: list[object] = []
    if pricing_model is not None:
        models = as_list(pricing_model)
        sql += f" WHERE pricing_model IN ({', '.join('?' for _ in models)})"
        params.extend(models)
    return sorted(str(v) for v in warehouse.query(sql, params)["instance_type"])


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


def _where_in(
    filters: Sequence[tuple[str, Sequence[str] | None]],
) -> tuple[str, list[object]]:
    """``WHERE column IN (?, …) AND …`` for the (fixed column, values) pairs that have values,
    and the values to bind; "" and no values when none has."""
    clauses: list[str] = []
    params: list[object] = []
    for column, values in filters:
        if values:
            clauses.append(f"{column} IN ({', '.join('?' for _ in values)})")
            params.extend(values)
    return (f"WHERE {' AND '.join(clauses)}" if clauses else ""), params


def current_price_list(
    warehouse: Warehouse,
    provider: Sequence[str] | None = None,
    pricing_model: Sequence[str] | None = None,
) -> pd.DataFrame:
    """Every current price quote (``PRICE_LIST_COLUMNS``), ordered by provider, region, instance
    type and pricing model; optionally only some providers and pricing models."""
    where, params = _where_in((("provider", provider), ("pricing_model", pricing_model)))
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
    where, params = _where_in((("r.model", models), ("r.accelerator_id", accelerators)))
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


def estimate_calibration_results(warehouse: Warehouse) -> pd.DataFrame:
    """Every current benchmark result as the performance model reads it: the listing's columns
    (:func:`benchmark_result_list`) plus the notes, which carry a run's latency targets
    ("held to p99 TTFT <= 2000 ms and p99 TPOT <= 200 ms")."""
    frame = benchmark_result_list(warehouse)
    notes = warehouse.query("SELECT result_id, notes FROM current_results")
    return frame.merge(notes, on="result_id", how="left")
