"""GuideLLM ``benchmarks.json`` (``--output kind=json`` / ``--output-path``).

One result per entry of ``benchmarks``. Each metric is ``{successful, errored, incomplete, total}``
distributions with ``mean``, ``median`` and ``percentiles`` (``p50``, ``p90``, ``p95``, ``p99``...);
the successful requests are used. Units by key: ``*_ms`` in ms, ``request_latency`` in seconds,
rates in tokens or requests per second.

GuideLLM's ``time_per_output_token_ms`` *includes* the first token (≈ E2EL / output tokens), so it is
not a TPOT. Its ``inter_token_latency_ms`` = (last − first)/(output_tokens − 1) is, and is used.
When it is absent, the median TPOT is converted from the medians:
(tpot_incl × N − TTFT) / (N − 1), and the note says so.
"""

from __future__ import annotations

from datetime import UTC, datetime

from benchmarks.importers.base import Importer, Source, find_key
from tokendesk.metrics import PERCENTILES
from tokendesk.records import BenchmarkResult


def sniff(src: Source) -> bool:
    data = src.data
    return (
        src.kind == "json"
        and isinstance(data, dict)
        and isinstance(data.get("benchmarks"), list)
        and bool(data["benchmarks"])
        and isinstance(data["benchmarks"][0], dict)
        and "metrics" in data["benchmarks"][0]
        and any(
            k in data["benchmarks"][0]["metrics"]
            for k in ("time_to_first_token_ms", "output_tokens_per_second")
        )
    )


def _dist(metrics: dict, key: str) -> dict | None:
    block = metrics.get(key)
    if not isinstance(block, dict):
        return None
    dist = block.get("successful", block)
    return dist if isinstance(dist, dict) else None


def _pct(src: Source, dist: dict | None, q: str, where: str) -> float | None:
    if dist is None:
        return None
    pcts = dist.get("percentiles") or {}
    value = src.number(pcts, q, f"{where}.percentiles.")
    if value is None and q == "p50":
        value = src.number(dist, "median", f"{where}.")
    return value


def parse(src: Source) -> list[BenchmarkResult]:
    out = []
    for i, bench in enumerate(src.data["benchmarks"]):
        where = f"benchmarks[{i}].metrics."
        metrics = src.need(bench, "metrics", f"benchmarks[{i}].")
        out_dist = _dist(metrics, "output_tokens_per_second")
        if out_dist is None:
            raise src.fail(f"{where}output_tokens_per_second", "required metric is missing")
        out_tok_s = src.number(
            out_dist, "mean", f"{where}output_tokens_per_second.successful.", required=True
        )
        total_dist = _dist(metrics, "tokens_per_second")
        total = (
            src.number(total_dist, "mean", f"{where}tokens_per_second.successful.")
            if total_dist
            else None
        )
        ttft_d = _dist(metrics, "time_to_first_token_ms")
        ttft = {
            q: src.ms(
                _pct(src, ttft_d, q, f"{where}time_to_first_token_ms"),
                "ms",
                f"{where}time_to_first_token_ms",
            )
            for q in PERCENTILES
        }
        itl_d = _dist(metrics, "inter_token_latency_ms")
        notes = []
        if itl_d is not None:
            tpot = {
                q: _pct(src, itl_d, q, f"{where}inter_token_latency_ms")
                for q in ("p50", "p95", "p99")
            }
        else:
            tpot = {"p50": None, "p95": None, "p99": None}
            incl = _dist(metrics, "time_per_output_token_ms")
            n_out = _dist(metrics, "output_token_count")
            t_incl = _pct(src, incl, "p50", f"{where}time_per_output_token_ms")
            n = _pct(src, n_out, "p50", f"{where}output_token_count")
            if t_incl is not None and n and n > 1 and ttft["p50"] is not None:
                tpot["p50"] = max(0.0, (t_incl * n - ttft["p50"]) / (n - 1))
                notes.append(
                    "tpot p50 converted from time_per_output_token_ms (which includes the first token)"
                )
        lat_d = _dist(metrics, "request_latency")
        e2el = {
            q: src.ms(
                _pct(src, lat_d, q, f"{where}request_latency"), "s", f"{where}request_latency"
            )
            for q in ("p50", "p95")
        }
        prompt_d = _dist(metrics, "prompt_token_count")
        out_d = _dist(metrics, "output_token_count")
        isl = src.number(prompt_d, "mean") if prompt_d else None
        osl = src.number(out_d, "mean") if out_d else None
        strategy = find_key(bench, "strategy") or {}
        stype = (
            str(strategy.get("type_", strategy.get("type", "")))
            if isinstance(strategy, dict)
            else str(strategy)
        )
        concurrency = rate = None
        if isinstance(strategy, dict):
            concurrency = strategy.get("streams") or strategy.get("max_concurrency")
            rate = strategy.get("rate")
        if stype == "synchronous":
            concurrency = 1
        if isinstance(concurrency, list):
            concurrency = None
        counts = find_key(bench, "requests_made") or {}
        model = find_key(bench, "model", "backend_model") or find_key(
            src.data.get("config") or {}, "model"
        )
        start = find_key(
            bench.get("scheduler_metrics") or bench.get("run_stats") or {}, "start_time"
        )
        measured = (
            datetime.fromtimestamp(start, UTC)
            if isinstance(start, int | float) and start > 1e9
            else None
        )
        notes.append(f"guidellm strategy {stype or '?'}")
        out.append(
            src.result(
                accelerator_id=src.accelerator(None, "accelerator"),
                accelerators_per_replica=src.per_replica(None),
                runtime=src.required_text(None, "--runtime", "server runtime"),
                model=src.required_text(
                    model if isinstance(model, str) else None, "--model", "model"
                ),
                precision=src.required_text(None, "--precision", "precision"),
                workload=f"isl{round(isl)}-osl{round(osl)}" if isl and osl else "guidellm",
                input_tokens=round(isl) if isl else None,
                output_tokens=round(osl) if osl else None,
                concurrency=float(concurrency)
                if isinstance(concurrency, int | float) and concurrency > 0
                else None,
                request_rate_rps=float(rate)
                if isinstance(rate, int | float) and rate > 0
                else None,
                output_tok_s=out_tok_s,
                total_tok_s=total,
                ttft_ms_p50=ttft["p50"],
                ttft_ms_p90=ttft["p90"],
                ttft_ms_p95=ttft["p95"],
                ttft_ms_p99=ttft["p99"],
                tpot_ms_p50=tpot["p50"],
                tpot_ms_p95=tpot["p95"],
                tpot_ms_p99=tpot["p99"],
                e2el_ms_p50=e2el["p50"],
                e2el_ms_p95=e2el["p95"],
                requests_ok=int(counts["successful"])
                if isinstance(counts, dict) and "successful" in counts
                else None,
                requests_failed=int(counts["errored"])
                if isinstance(counts, dict) and "errored" in counts
                else None,
                measured_at=src.when(measured),
                source_tool="guidellm",
                notes="; ".join(notes),
            )
        )
    return out


IMPORTERS = [Importer("guidellm", "guidellm", "GuideLLM benchmarks.json", sniff, parse)]
