"""The cost join at scale: our ``costs`` path against a minimal hand-written DuckDB join.

    .venv/bin/python perf/bench_costs_join.py [--quotes 100000] [--results 20000] [--repeat 5]

Builds a synthetic warehouse (100,000 current price quotes across 40 providers x 25 regions, and
20,000 benchmark results over the catalog's accelerators and 50 models) through the real ingest,
then times, in the same run and on the same file:

* ours:         ``warehouse.queries.cost_options`` (current snapshots only, 60 columns with
                the provenance of both sides, per-accelerator billing, sorted cheapest first);
* same output:  one hand-written SQL statement returning the same rows and columns in the same
                order, straight from the base tables — the like-for-like reference;
* bare join:    the smallest SQL that computes $/1K for the same rows (8 columns, unsorted) — the
                floor, to show what provenance and ordering cost.

All run for one model and the on-demand pricing model (a typical dashboard view), each side in
its own subprocess so that peak RSS is honest, every result converted to a pandas DataFrame the
same way (Arrow). Prints the median-time ratios (target: ours / same output <= 1.5).
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

#: The bare arithmetic: the rows and the $/1K figure, nothing else (a floor, not a like-for-like).
REFERENCE_SQL = """
SELECT p.provider, p.region, p.instance_type, p.pricing_model, r.model,
       p.accelerator_count // r.accelerators_per_replica AS replicas,
       p.usd_per_hour / (replicas * r.output_tok_s * 3.6) AS usd_per_1k_output_tokens,
       r.ttft_ms_p95
FROM price_quotes p JOIN benchmark_results r
  ON r.accelerator_id = p.accelerator_id AND p.accelerator_count >= r.accelerators_per_replica
WHERE r.model = ? AND p.pricing_model = ?
"""

#: Like for like: the same rows, the same 60 columns (provenance included), current snapshots only,
#: sorted cheapest first, written as one plain SQL statement by hand.
FULL_REFERENCE_SQL = """
SELECT (p.price_id << 32) + r.result_id AS option_id, p.provider, p.region, p.zone, p.instance_type,
       p.pricing_model, p.price_basis, p.accelerator_id, a.name AS accelerator_name, a.vendor, a.backend,
       p.accelerator_count, p.usd_per_hour,
       p.usd_per_hour / p.accelerator_count AS usd_per_accelerator_hour,
       p.usd_per_hour AS quote_usd_per_hour, p.source AS price_source, p.source_url AS price_source_url,
       p.observed_at AS price_observed_at, p.confidence AS price_confidence,
       p.snapshot_id AS price_snapshot_id,
       p.price_id, p.quote_id, p.expires_on, p.review_flag, p.expires_on < current_date AS quote_expired,
       r.result_id, r.config_key, r.model, r.precision, r.runtime, r.runtime_version, r.system, r.workload,
       r.input_tokens, r.output_tokens, r.scenario, r.concurrency, r.request_rate_rps,
       r.accelerators_per_replica,
       p.accelerator_count // r.accelerators_per_replica AS replicas_per_instance,
       replicas_per_instance * r.output_tok_s AS instance_output_tok_s,
       replicas_per_instance * r.total_tok_s AS instance_total_tok_s,
       p.usd_per_hour / (instance_output_tok_s * 3.6) AS usd_per_1k_output_tokens,
       p.usd_per_hour / (instance_total_tok_s * 3.6) AS usd_per_1k_total_tokens,
       r.ttft_ms_p50, r.ttft_ms_p90, r.ttft_ms_p95, r.ttft_ms_p99, r.ttft_basis, r.tpot_ms_p50, r.tpot_ms_p95,
       r.tpot_ms_p99, r.parity_exact_match, r.parity_similarity, r.source_tool AS bench_source_tool,
       r.source_title AS bench_source_title, r.source_url AS bench_source_url,
       r.measured_at AS bench_measured_at,
       r.confidence AS bench_confidence, r.snapshot_id AS bench_snapshot_id
FROM price_quotes p
JOIN current_price_ids c ON c.price_id = p.price_id
JOIN benchmark_results r ON r.accelerator_id = p.accelerator_id
                        AND p.accelerator_count >= r.accelerators_per_replica
JOIN snapshots rs ON rs.snapshot_id = r.snapshot_id AND rs.status = 'ok'
JOIN accelerators a ON a.accelerator_id = p.accelerator_id
WHERE p.quarantine_reason IS NULL AND r.model = ? AND p.pricing_model = ?
ORDER BY usd_per_1k_output_tokens NULLS LAST, option_id
"""


def build(path: Path, quotes: int, results: int) -> None:
    from tokendesk.catalog import load_catalog
    from tokendesk.records import BenchmarkResult, PriceQuote
    from warehouse import Warehouse

    rng = random.Random(7)
    accelerators = [a for a in load_catalog().values() if a.backend != "cpu"]
    models = [f"model-{i:02d}" for i in range(50)]
    pricing = ["on_demand", "spot", "reserved_1y", "reserved_3y"]
    now = datetime(2026, 11, 1, tzinfo=UTC)
    with Warehouse.open(path, build=False) as wh:
        per_provider: dict[str, list[PriceQuote]] = {}
        for i in range(quotes):
            acc = accelerators[i % len(accelerators)]
            provider = f"cloud-{i % 40:02d}"
            per_provider.setdefault(provider, []).append(
                PriceQuote(
                    provider=provider,
                    region=f"region-{(i // 40) % 25:02d}",
                    instance_type=f"{acc.accelerator_id}-x8-{i}",
                    accelerator_id=acc.accelerator_id,
                    accelerator_count=8,
                    pricing_model=pricing[(i // 1000) % 4],
                    usd_per_hour=round(rng.uniform(5, 120), 4),
                    source="synthetic",
                    observed_at=now,
                )
            )
        for provider, rows in per_provider.items():
            wh.ingest_prices(provider, rows, origin="synthetic")
        batch = []
        for i in range(results):
            acc = accelerators[i % len(accelerators)]
            p50 = rng.uniform(50, 2000)
            batch.append(
                BenchmarkResult(
                    accelerator_id=acc.accelerator_id,
                    accelerators_per_replica=rng.choice([1, 2, 4, 8]),
                    runtime="vllm",
                    model=models[(i // len(accelerators)) % len(models)],
                    precision="bf16",
                    workload="chat-short",
                    concurrency=float(rng.choice([1, 4, 16, 64])),
                    output_tok_s=rng.uniform(50, 20000),
                    ttft_ms_p50=p50,
                    ttft_ms_p95=p50 * 1.6,
                    ttft_ms_p99=p50 * 2.0,
                    measured_at=now,
                    source_tool="synthetic",
                )
            )
        wh.ingest_results("synthetic", batch, origin="synthetic")


def measure(path: str, side: str, repeat: int) -> dict:
    from warehouse import Warehouse
    from warehouse.queries import cost_options

    wh = Warehouse.open(Path(path), read_only=True)
    times, rows = [], 0
    for _ in range(repeat):
        start = time.perf_counter()
        if side == "ours":
            frame = cost_options(wh, model="model-07", pricing_model="on_demand")
        else:
            sql = FULL_REFERENCE_SQL if side == "full-reference" else REFERENCE_SQL
            frame = (
                wh.cursor().sql(sql, params=["model-07", "on_demand"]).to_arrow_table().to_pandas()
            )
        times.append(time.perf_counter() - start)
        rows = len(frame)
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {
        "side": side,
        "median_s": statistics.median(times),
        "rows": rows,
        "peak_rss_mib": peak_mib,
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quotes", type=int, default=100_000)
    parser.add_argument("--results", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--_measure", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args._measure:
        print(json.dumps(measure(args._measure[0], args._measure[1], args.repeat)))
        return
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "perf.duckdb"
        start = time.perf_counter()
        build(path, args.quotes, args.results)
        print(
            f"built synthetic warehouse: {args.quotes:,} quotes x {args.results:,} "
            f"results in {time.perf_counter() - start:.1f} s"
        )
        out = {}
        for side in ("reference", "full-reference", "ours"):
            done = subprocess.run(
                [
                    sys.executable,
                    __file__,
                    "--repeat",
                    str(args.repeat),
                    "--_measure",
                    str(path),
                    side,
                ],
                check=True,
                capture_output=True,
                text=True,
            )
            out[side] = json.loads(done.stdout.strip().splitlines()[-1])
    ours, ref, full = out["ours"], out["reference"], out["full-reference"]
    if not ours["rows"] == ref["rows"] == full["rows"]:
        raise SystemExit(
            f"row counts differ: ours {ours['rows']}, bare {ref['rows']}, full {full['rows']}"
        )
    print(f"rows per query: {ours['rows']:,}")
    print(
        f"bare join SQL (8 columns, unsorted)   : {ref['median_s'] * 1000:8.1f} "
        f"ms  peak RSS {ref['peak_rss_mib']:.0f} MiB"
    )
    print(
        "same-output SQL (60 columns, sorted)  : "
        f"{full['median_s'] * 1000:8.1f} ms  peak RSS "
        f"{full['peak_rss_mib']:.0f} MiB"
    )
    print(
        "costs path (tokendesk cost_options)   : "
        f"{ours['median_s'] * 1000:8.1f} ms  peak RSS "
        f"{ours['peak_rss_mib']:.0f} MiB"
    )
    print(
        f"ratio ours / same-output SQL: {ours['median_s'] / full['median_s']:.2f} (target <= 1.5)"
    )
    print(
        "ratio ours / bare join SQL  : "
        f"{ours['median_s'] / ref['median_s']:.2f} (the price of provenance and "
        "order)"
    )


if __name__ == "__main__":
    main()
