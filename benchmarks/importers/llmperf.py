"""Ray LLMPerf ``*_summary.json`` (``token_benchmark_ray.py``): one flat object, keys flattened
with ``_`` (``results_ttft_s_quantiles_p50``...). All latencies are **seconds**.

LLMPerf's ``inter_token_latency_s`` is Σ(chunk gaps including TTFT)/output_tokens ≈ E2EL/N, so it
includes the first token and is not a TPOT. The median TPOT is converted from the medians:
(E2EL_p50 − TTFT_p50) / (N_p50 − 1) (a difference of medians, so only p50 is given). Output
tokens are re-counted by LLMPerf with a fixed Llama tokenizer, not the served model's.
"""

from __future__ import annotations

from datetime import UTC, datetime

from benchmarks.importers.base import Importer, Source
from tokendesk.metrics import PERCENTILES
from tokendesk.records import BenchmarkResult


def sniff(src: Source) -> bool:
    return (
        src.kind == "json"
        and isinstance(src.data, dict)
        and (
            "results_ttft_s_quantiles_p50" in src.data
            or "results_mean_output_throughput_token_per_s" in src.data
        )
    )


def _q(src: Source, metric: str, q: str) -> float | None:
    return src.number(src.data, f"results_{metric}_quantiles_{q}")


def _failures(src: Source, completed: float, errors: float) -> str:
    """A note saying how many requests failed; a run where most failed is refused.

    LLMPerf's throughput counts only completed requests and its latencies only theirs, so a run
    in which most requests were refused (HTTP 429 from a rate-limited endpoint) reads as a small,
    fast server rather than a failing one."""
    started = completed + errors
    codes = src.data.get("results_error_code_frequency") or "not recorded"
    said = f"{errors:.0f} of {started:.0f} requests failed (error codes {codes})"
    if errors > completed:
        raise src.fail(
            "results_number_errors",
            f"{said}: the run measured an endpoint refusing most requests, not its throughput;"
            " rerun at a load the endpoint accepts",
        )
    return said


def parse(src: Source) -> list[BenchmarkResult]:
    d = src.data
    out_tok_s = src.number(d, "results_mean_output_throughput_token_per_s", required=True)
    ttft = {
        q: src.ms(_q(src, "ttft_s", q), "s", f"results_ttft_s_quantiles_{q}") for q in PERCENTILES
    }
    e2el = {
        q: src.ms(
            _q(src, "end_to_end_latency_s", q), "s", f"results_end_to_end_latency_s_quantiles_{q}"
        )
        for q in ("p50", "p95")
    }
    n_p50 = _q(src, "number_output_tokens", "p50") or src.number(d, "mean_output_tokens")
    tpot = None
    notes = ["tokens re-counted by LLMPerf with a fixed Llama tokenizer"]
    if e2el["p50"] is not None and ttft["p50"] is not None and n_p50 and n_p50 > 1:
        tpot = max(0.0, (e2el["p50"] - ttft["p50"]) / (n_p50 - 1))
        notes.append(
            "tpot p50 converted from end_to_end_latency and ttft medians "
            "(LLMPerf inter_token_latency includes the first token)"
        )
    completed = src.number(d, "results_num_completed_requests")
    errors = src.number(d, "results_number_errors")
    if errors:
        notes.append(_failures(src, completed or 0, errors))
    ts = src.number(d, "timestamp")
    measured = datetime.fromtimestamp(ts, UTC) if ts and ts > 1e9 else None
    isl = src.number(d, "mean_input_tokens")
    osl = src.number(d, "mean_output_tokens")
    conc = src.number(d, "num_concurrent_requests")
    return [
        src.result(
            accelerator_id=src.accelerator(None, "accelerator"),
            accelerators_per_replica=src.per_replica(None),
            runtime=src.required_text(None, "--runtime", "server runtime"),
            model=src.required_text(d.get("model"), "--model", "model"),
            precision=src.required_text(None, "--precision", "precision"),
            workload=f"isl{round(isl)}-osl{round(osl)}" if isl and osl else "llmperf",
            input_tokens=round(isl) if isl else None,
            output_tokens=round(osl) if osl else None,
            concurrency=conc if conc and conc > 0 else None,
            output_tok_s=out_tok_s,
            ttft_ms_p50=ttft["p50"],
            ttft_ms_p90=ttft["p90"],
            ttft_ms_p95=ttft["p95"],
            ttft_ms_p99=ttft["p99"],
            tpot_ms_p50=tpot,
            e2el_ms_p50=e2el["p50"],
            e2el_ms_p95=e2el["p95"],
            requests_ok=int(completed) if completed is not None else None,
            requests_failed=int(errors) if errors is not None else None,
            measured_at=src.when(measured),
            source_tool="llmperf",
            notes="; ".join(notes),
        )
    ]


IMPORTERS = [Importer("llmperf", "llmperf", "Ray LLMPerf *_summary.json", sniff, parse)]
