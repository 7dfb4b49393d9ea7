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

import pandas as pd

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

_COST_SELECT = """
SELECT
    md5(p.price_id::VARCHAR || ':' || r.result_id::VARCHAR)[:16] AS option_id,
    p.provider, p.region, p.zone, p.instance_type, p.pricing_model, p.price_basis,
    p.accelerator_id, a.name AS accelerator_name, a.vendor, a.backend,
    CASE WHEN p.price_basis = 'per_accelerator' THEN r.accelerators_per_replica
         ELSE p.accelerator_count END                                   AS accelerator_count,
    CASE WHEN p.price_basis = 'per_accelerator' THEN p.usd_per_hour * r.accelerators_per_replica
         ELSE p.usd_per_hour END                                        AS usd_per_hour,
    p.usd_per_hour / greatest(p.accelerator_count, 1)                   AS usd_per_accelerator_hour,
    p.usd_per_hour                                                      AS quote_usd_per_hour,
    p.source AS price_source, p.source_url AS price_source_url,
    p.observed_at AS price_observed_at, p.confidence AS price_confidence,
    p.snapshot_id AS price_snapshot_id, p.price_id,
    p.quote_id, p.expires_on, p.review_flag,
    (p.expires_on IS NOT NULL AND p.expires_on < current_date)          AS quote_expired,
    r.result_id, r.config_key, r.model, r.precision, r.runtime, r.runtime_version, r.system,
    r.workload, r.input_tokens, r.output_tokens, r.scenario, r.concurrency, r.request_rate_rps,
    r.accelerators_per_replica,
    CASE WHEN p.price_basis = 'per_accelerator' THEN 1
         ELSE p.accelerator_count // r.accelerators_per_replica END     AS replicas_per_instance,
    replicas_per_instance * r.output_tok_s                              AS instance_output_tok_s,
    replicas_per_instance * r.total_tok_s                               AS instance_total_tok_s,
    usd_per_hour / (instance_output_tok_s * 3.6)                        AS usd_per_1k_output_tokens,
    usd_per_hour / (instance_total_tok_s * 3.6)                         AS usd_per_1k_total_tokens,
    r.ttft_ms_p50, r.ttft_ms_p90, r.ttft_ms_p95, r.ttft_ms_p99, r.ttft_basis,
    r.tpot_ms_p50, r.tpot_ms_p95, r.tpot_ms_p99,
    r.parity_exact_match, r.parity_similarity,
    r.source_tool AS bench_source_tool, r.source_title AS bench_source_title,
    r.source_url AS bench_source_url, r.measured_at AS bench_measured_at,
    r.confidence AS bench_confidence, r.snapshot_id AS bench_snapshot_id
FROM current_prices p
JOIN current_results r
  ON r.accelerator_id = p.accelerator_id
 AND (p.price_basis = 'per_accelerator' OR p.accelerator_count >= r.accelerators_per_replica)
JOIN accelerators a ON a.accelerator_id = p.accelerator_id
"""


def _as_list(value: object) -> list[object]:
    if isinstance(value, str | bytes) or not isinstance(value, Sequence):
        return [value]
    return list(value)


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
    sql = _COST_SELECT
    if where:
        sql += " WHERE " + " AND ".join(where)
    sql += f" ORDER BY {COST_SORTS[sort]} {'DESC' if descending else 'ASC'} NULLS LAST, option_id"
    if limit is not None:
        sql += " LIMIT ?"
        params.append(int(limit))
    return warehouse.query(sql, params)


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
