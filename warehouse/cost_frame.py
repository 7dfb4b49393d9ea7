"""The cost-options frame: which descriptive columns each price quote and benchmark result adds
to the cost join's numbers, in what order, and how they are attached once per id (the join
itself returns only numbers and keys, so a million rows never carry a million copies of a
source URL).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

if TYPE_CHECKING:
    from warehouse.store import Warehouse

#: Per price quote: (output column, SQL expression over current_prices p / accelerators a).
PRICE_DIMENSIONS = {
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
RESULT_DIMENSIONS = {
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
    *list(PRICE_DIMENSIONS)[:10],
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


def as_list(value: object) -> list[object]:
    if isinstance(value, str | bytes) or not isinstance(value, Sequence):
        return [value]
    return list(value)


def dimension_table(
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


def attach_columns(core: dict[str, Any], dims: pa.Table, keys: np.ndarray) -> None:
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


def options_frame(warehouse: Warehouse, table: pa.Table, *, with_ftl: bool) -> pd.DataFrame:
    """The cost-options frame of the joined rows in ``table`` (numbers and keys), with each
    quote's and result's descriptive columns attached once per id."""
    core: dict[str, Any] = {
        name: table.column(name).to_numpy() for name in table.column_names if name != "ftl_basis"
    }
    if "ftl_basis" in table.column_names:
        core["ftl_basis"] = pd.Categorical(table.column("ftl_basis").to_pandas())
    price_ids, result_ids = core["price_id"], core["result_id"]
    prices = dimension_table(
        warehouse,
        PRICE_DIMENSIONS,
        "current_prices p JOIN accelerators a USING (accelerator_id)",
        "p.price_id",
        price_ids,
    )
    results = dimension_table(
        warehouse, RESULT_DIMENSIONS, "current_results r", "r.result_id", result_ids
    )
    attach_columns(core, prices, price_ids)
    attach_columns(core, results, result_ids)
    columns = COST_COLUMNS + (["ftl_ms", "ftl_basis"] if with_ftl else [])
    return pd.DataFrame({name: core[name] for name in columns}, copy=False)
