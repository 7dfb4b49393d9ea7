"""Named queries over the warehouse. All SQL text is fixed here; user input only ever arrives
as bound parameters.

The central one is the **cost join**: every current price quote × every current benchmark
result it can host, with

* replicas per instance = floor(instance accelerators / result accelerators per replica)
* instance tok/s        = replicas × result tok/s
* $/1K tokens           = instance $/h / (instance tok/s × 3.6)      (3600 s/h ÷ 1000 tokens)

A quote priced per accelerator-hour (a neocloud that does not publish an instance shape) is
billed for exactly the accelerators one replica needs, and is labelled as such.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

if TYPE_CHECKING:
    from tokendesk.warehouse.store import Warehouse

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
_COST_CORE = """
SELECT
    (p.price_id << 32) + r.result_id                                    AS option_id,
    p.price_id, r.result_id,
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
    billed_usd_per_hour / (instance_output_tok_s * 3.6)                 AS usd_per_1k_output_tokens,
    billed_usd_per_hour / (instance_total_tok_s * 3.6)                  AS usd_per_1k_total_tokens,
    r.concurrency, r.request_rate_rps, r.input_tokens, r.output_tokens,
    r.ttft_ms_p50, r.ttft_ms_p90, r.ttft_ms_p95, r.ttft_ms_p99,
    r.tpot_ms_p50, r.tpot_ms_p95, r.tpot_ms_p99,
    r.parity_exact_match, r.parity_similarity
FROM price_quotes p
JOIN benchmark_results r
  ON r.accelerator_id = p.accelerator_id
 AND (p.price_basis = 'per_accelerator' OR p.accelerator_count >= r.accelerators_per_replica)
JOIN accelerators a ON a.accelerator_id = p.accelerator_id
-- The same rows as current_prices x current_results, written as semi-joins on the base tables:
-- DuckDB plans this about twice as fast as the join of the two views.
WHERE p.quarantine_reason IS NULL
  AND EXISTS (SELECT 1 FROM current_price_snapshots c WHERE c.snapshot_id = p.snapshot_id AND c.region = p.region)
  AND r.snapshot_id IN (SELECT snapshot_id FROM snapshots WHERE status = 'ok')
"""

#: Per price quote: (output column, SQL expression over current_prices p / accelerators a).
_PRICE_DIMENSIONS = {
    "provider": "p.provider", "region": "p.region", "zone": "p.zone",
    "instance_type": "p.instance_type", "pricing_model": "p.pricing_model",
    "price_basis": "p.price_basis", "accelerator_id": "p.accelerator_id",
    "accelerator_name": "a.name", "vendor": "a.vendor", "backend": "a.backend",
    "price_source": "p.source", "price_source_url": "p.source_url",
    "price_observed_at": "p.observed_at", "price_confidence": "p.confidence",
    "price_snapshot_id": "p.snapshot_id", "quote_id": "p.quote_id", "expires_on": "p.expires_on",
    "review_flag": "p.review_flag",
    "quote_expired": "(p.expires_on IS NOT NULL AND p.expires_on < current_date)",
}  # fmt: skip

#: Per result: (output column, SQL expression over current_results r).
_RESULT_DIMENSIONS = {
    "config_key": "r.config_key", "model": "r.model", "precision": "r.precision",
    "runtime": "r.runtime", "runtime_version": "r.runtime_version", "system": "r.system",
    "workload": "r.workload", "scenario": "r.scenario", "ttft_basis": "r.ttft_basis",
    "bench_source_tool": "r.source_tool", "bench_source_title": "r.source_title",
    "bench_source_url": "r.source_url", "bench_measured_at": "r.measured_at",
    "bench_confidence": "r.confidence", "bench_snapshot_id": "r.snapshot_id",
}  # fmt: skip

#: Column order of the cost-options frame.
COST_COLUMNS = [
    "option_id", *list(_PRICE_DIMENSIONS)[:10], "accelerator_count", "usd_per_hour",
    "usd_per_accelerator_hour", "quote_usd_per_hour", "price_source", "price_source_url",
    "price_observed_at", "price_confidence", "price_snapshot_id", "price_id", "quote_id",
    "expires_on", "review_flag", "quote_expired", "result_id", "config_key", "model", "precision",
    "runtime", "runtime_version", "system", "workload", "input_tokens", "output_tokens", "scenario",
    "concurrency", "request_rate_rps", "accelerators_per_replica", "replicas_per_instance",
    "instance_output_tok_s", "instance_total_tok_s", "usd_per_1k_output_tokens",
    "usd_per_1k_total_tokens", "ttft_ms_p50", "ttft_ms_p90", "ttft_ms_p95", "ttft_ms_p99",
    "ttft_basis", "tpot_ms_p50", "tpot_ms_p95", "tpot_ms_p99", "parity_exact_match",
    "parity_similarity", "bench_source_tool", "bench_source_title", "bench_source_url",
    "bench_measured_at", "bench_confidence", "bench_snapshot_id",
]  # fmt: skip


def _as_list(value: object) -> list[object]:
    if isinstance(value, str | bytes) or not isinstance(value, Sequence):
        return [value]
    return list(value)


def _dimension_frame(warehouse: Warehouse, columns: dict[str, str], source: str, key: str, ids: np.ndarray) -> pd.DataFrame:
    select = ", ".join(f"{expression} AS {name}" for name, expression in columns.items())
    cursor = warehouse.cursor()
    cursor.register("wanted_ids", pa.table({"id": pa.array(ids, type=pa.int64())}))
    try:
        return cursor.sql(
            f"SELECT {key} AS id, {select} FROM {source} WHERE {key} IN (SELECT id FROM wanted_ids)"  # noqa: S608 - fixed identifiers
        ).to_arrow_table().to_pandas()
    finally:
        cursor.unregister("wanted_ids")


def _attach(core: pd.DataFrame, dims: pd.DataFrame, key: str) -> None:
    """Add ``dims``' columns to ``core`` by ``key``: strings as categoricals, others by take."""
    positions = pd.Index(dims["id"]).get_indexer(core[key])
    for name in dims.columns.drop("id"):
        column = dims[name]
        if pd.api.types.is_string_dtype(column) or column.dtype == object:
            codes, categories = pd.factorize(column, use_na_sentinel=True)
            core[name] = pd.Categorical.from_codes(codes[positions], categories=categories)
        else:
            core[name] = column.to_numpy()[positions]


def cost_options(
    warehouse: Warehouse,
    *,
    sort: str = "usd_per_1k_output_tokens",
    descending: bool = False,
    limit: int | None = None,
    **filters: object,
) -> pd.DataFrame:
    """The cost join, filtered and sorted. Unknown filter or sort names raise ValueError."""
    where: list[str] = []
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
    if sort not in COST_SORTS:
        raise ValueError(f"unknown sort {sort!r}; known: {', '.join(sorted(COST_SORTS))}")
    sql = _COST_CORE + "".join(f" AND {condition}" for condition in where)
    if limit is not None:  # top-N is cheap in SQL; a full sort is cheaper in pandas (below)
        sql += f" ORDER BY {COST_SORTS[sort]} {'DESC' if descending else 'ASC'} NULLS LAST, option_id LIMIT ?"
        params.append(int(limit))
    table = warehouse.cursor().sql(sql, params=params).to_arrow_table()
    if limit is None:
        order = pc.sort_indices(
            table,
            sort_keys=[
                (COST_SORTS[sort], "descending" if descending else "ascending", "at_end"),
                ("option_id", "ascending", "at_end"),
            ],
        )
        table = table.take(order)
    core = table.to_pandas()
    prices = _dimension_frame(
        warehouse, _PRICE_DIMENSIONS, "current_prices p JOIN accelerators a USING (accelerator_id)",
        "p.price_id", core["price_id"].unique(),
    )  # fmt: skip
    results = _dimension_frame(warehouse, _RESULT_DIMENSIONS, "current_results r", "r.result_id", core["result_id"].unique())
    _attach(core, prices, "price_id")
    _attach(core, results, "result_id")
    return core[COST_COLUMNS]


def distinct_values(warehouse: Warehouse) -> dict[str, list[str]]:
    """Values each cost filter can take in the current data (for filter widgets)."""
    out: dict[str, list[str]] = {}
    for name, sql in {
        "accelerator": "SELECT DISTINCT accelerator_id FROM current_prices",
        "vendor": "SELECT DISTINCT a.vendor FROM current_prices p JOIN accelerators a USING (accelerator_id)",
        "provider": "SELECT DISTINCT provider FROM current_prices",
        "region": "SELECT DISTINCT region FROM current_prices",
        "pricing_model": "SELECT DISTINCT pricing_model FROM current_prices",
        "model": "SELECT DISTINCT model FROM current_results",
        "precision": "SELECT DISTINCT precision FROM current_results",
        "workload": "SELECT DISTINCT workload FROM current_results",
        "scenario": "SELECT DISTINCT scenario FROM current_results",
    }.items():
        out[name] = sorted(str(v) for v in warehouse.query(sql).iloc[:, 0].dropna())
    return out


def freshness(warehouse: Warehouse) -> pd.DataFrame:
    """Per source: the newest good snapshot's data date, its age in days and the last failure."""
    return warehouse.query(
        """
        SELECT kind, source,
               max(as_of) FILTER (WHERE status = 'ok')                       AS data_as_of,
               date_diff('day', max(as_of) FILTER (WHERE status = 'ok'), current_timestamp::TIMESTAMP) AS age_days,
               max(created_at)                                               AS last_attempt,
               arg_max(status, created_at)                                   AS last_status,
               arg_max(error, created_at)                                    AS last_error
        FROM snapshots
        GROUP BY kind, source
        ORDER BY kind, source
        """
    )
