"""The harness's result file and its conversion to :class:`~tokendesk.records.BenchmarkResult`.

The schema is documented in ``benchmarks/README.md``; :data:`SCHEMA` is its version tag.
One operating point becomes one BenchmarkResult (``source_tool="tokendesk-harness"``).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from importlib.metadata import PackageNotFoundError, version

from tokendesk.records import BenchmarkResult

SCHEMA = "tokendesk.harness.results/v1"


def _tool_version() -> str:
    try:
        return version("tokendesk")
    except PackageNotFoundError:
        return "unknown"


SOURCE_TOOL = "tokendesk-harness"


@dataclass(frozen=True)
class RunContext:
    """What the flags say about the system under test (the endpoint cannot tell us)."""

    accelerator_id: str
    accelerators_per_replica: int
    runtime: str
    precision: str
    runtime_version: str = ""
    instance_type: str | None = None
    provider: str | None = None
    region: str | None = None


def build_document(
    *,
    config: dict,
    context: RunContext,
    points: list[dict],
    parity: dict | None,
    started_at: datetime,
    finished_at: datetime,
) -> dict:
    return {
        "schema": SCHEMA,
        "tool": {"name": SOURCE_TOOL, "version": _tool_version()},
        "started_at": started_at.isoformat(),
        "finished_at": finished_at.isoformat(),
        "config": config,
        "system": asdict(context),
        "operating_points": points,
        "parity": parity,
    }


def _num(value) -> float | None:
    if value is None:
        return None
    value = float(value)
    return None if math.isnan(value) else value


def _pos(value) -> float | None:
    value = _num(value)
    return value if value is not None and value > 0 else None


def _share(value) -> float | None:
    value = _num(value)
    return value if value is not None and 0 <= value <= 1 else None


def _round_pos_int(value) -> int | None:
    value = _num(value)
    return round(value) if value is not None and value >= 0.5 else None


def judge_point(block: dict, max_failure_rate: float = 0.0) -> dict:
    """Whether a point may be recorded: a completed request, and few enough failures.

    A point with failed requests measured a server that was not serving (dropped connections
    finish early and make latency look good); below the threshold it is kept, above it the
    point stays in the result file only.
    """
    req = block["requests"]
    ok, failed = req["ok"], req["failed"]
    attempted = ok + failed
    rate = failed / attempted if attempted else 1.0
    reason = ""
    if not ok:
        reason = "no request completed"
    elif rate > max_failure_rate + 1e-12:
        reasons = ", ".join(f"{k}={v}" for k, v in (req.get("failure_reasons") or {}).items())
        reason = (
            f"{failed} of {attempted} requests failed ({rate:.1%} > the allowed "
            f"{max_failure_rate:.1%}): {reasons}"
        )
    return {
        "valid": not reason,
        "failure_rate": rate,
        "max_failure_rate": max_failure_rate,
        "reason": reason,
    }


_BASIS_WORDS = {"usage": "server usage", "tokenizer": "tokenizer", "chunks": "1 per streamed event"}


def document_to_results(doc: dict, source_file: str = "") -> list[BenchmarkResult]:
    """One BenchmarkResult per valid operating point (see :func:`judge_point`).

    The threshold is the run's ``config.max_failure_rate`` (0 when absent): a point with failed
    requests is never recorded unless the run allowed it.
    """
    return [result for _, result in document_points(doc, source_file)]


# Long by design: one record per operating point, every field read from the same result
# document beside the notes that explain it; split, a field's value and its note would part.
def document_points(doc: dict, source_file: str = "") -> list[tuple[dict, BenchmarkResult]]:
    """The recorded points with the block each came from (its repeats, SLO verdict, ...)."""
    system = doc["system"]
    config = doc["config"]
    max_failure_rate = float(config.get("max_failure_rate") or 0.0)
    parity = doc.get("parity") or {}
    if parity.get("failed"):
        parity = {}  # a parity pass with failed requests scored what it could not see
    title = (
        f"tokendesk harness: {config['model']} on {system['accelerator_id']} "
        f"({system['runtime']}) via {config.get('api', 'chat')} API"
    )
    notes_common = []
    if system.get("provider") or system.get("region"):
        notes_common.append(
            f"provider={system.get('provider') or '?'} region={system.get('region') or '?'}"
        )
    if parity:
        notes_common.append(
            f"parity vs bundle {parity.get('bundle')!r} on {parity.get('prompts')} prompts"
        )
    # The load's shape as the run designed it (older result files have none).
    shape = config.get("workload_shape") or {}
    if shape.get("prefix_cache_share") is not None:
        notes_common.append(
            f"data set's reusable prefix share {shape['prefix_cache_share']:.0%} (of its input)"
        )
    out = []
    with_slo = any(p.get("slo") for p in doc["operating_points"])
    for point in doc["operating_points"]:
        thr = point["throughput"]
        if not judge_point(point, max_failure_rate)["valid"] or not thr.get("output_tok_s"):
            continue  # the point and its failures stay in the result file only
        if with_slo and not (point.get("slo") or {}).get("goodput_point"):
            continue  # with an SLO, the cost model gets the goodput point only
        lat = point["latency_ms"]
        ttft, tpot, e2el = lat["ttft"], lat["tpot"], lat["e2el"]
        tokens = point["tokens"]
        rate = point.get("request_rate_rps")
        notes = list(notes_common)
        notes.append(
            f"steady-state window {point['steady_state']['window_s']:.2f}s ({point['steady_state']['basis']})"
        )
        basis = _BASIS_WORDS.get(tokens["count_basis"], tokens["count_basis"])
        notes.append(f"token counts from {basis}")
        if rate == "inf":
            notes.append("request_rate=inf (burst)")
        replay = point.get("replay")
        if replay:
            notes.append(
                f"trace replay at {replay['speed']:g}x: {replay['requests']} requests over "
                f"{replay['trace_span_s']:.0f} s of trace"
            )
        if point.get("slo"):
            targets = ",".join(f"{k}<={v:g}" for k, v in point["slo"]["targets_ms"].items())
            notes.append(
                f"goodput point for SLO {targets} ms: attainment {point['slo']['attainment']:.1%}, "
                f"{point['slo']['goodput_req_s']:.2f} good req/s"
            )
        rep = point.get("repeats")
        if rep and rep["output_tok_s"].get("ci95"):
            lo, hi = rep["output_tok_s"]["ci95"]
            notes.append(
                f"median of {rep['n']} repeats; output tok/s 95% CI {lo:.1f}-{hi:.1f}, "
                f"CV {rep['output_tok_s']['cv']:.1%}"
            )
        inter = (point.get("interactivity_tok_s_user") or {}).get("p50")
        if inter:
            notes.append(f"interactivity {inter:.1f} tok/s/user (1000/TPOT p50)")
        tel = point.get("telemetry") or {}
        if tel.get("host_cpu_util_pct_mean") is not None:
            notes.append(f"host vCPU util mean {tel['host_cpu_util_pct_mean']:.0f}%")
        if tel.get("mean_accelerator_utilization_pct") is not None:
            notes.append(
                f"accelerator util mean {tel['mean_accelerator_utilization_pct']:.0f}% ({tel.get('tool')})"
            )
        failures = point["requests"].get("failure_reasons") or {}
        if failures:
            notes.append("failures: " + ", ".join(f"{k}={v}" for k, v in failures.items()))
        out.append(
            (
                point,
                BenchmarkResult(
                    accelerator_id=system["accelerator_id"],
                    accelerators_per_replica=int(system["accelerators_per_replica"]),
                    instance_type=system.get("instance_type"),
                    runtime=system["runtime"],
                    runtime_version=system.get("runtime_version") or "",
                    model=config["model"],
                    precision=system["precision"],
                    workload=config["workload"],
                    input_tokens=_round_pos_int(tokens.get("input_mean")),
                    output_tokens=_round_pos_int(tokens.get("output_mean")),
                    prefix_cache_share=_share(shape.get("prefix_cache_share")),
                    scenario="online",
                    concurrency=point.get("concurrency"),
                    request_rate_rps=None if rate in (None, "inf") else float(rate),
                    output_tok_s=thr["output_tok_s"],
                    total_tok_s=_pos(thr.get("total_tok_s")),
                    ttft_ms_p50=_num(ttft.get("p50")),
                    ttft_ms_p90=_num(ttft.get("p90")),
                    ttft_ms_p95=_num(ttft.get("p95")),
                    ttft_ms_p99=_num(ttft.get("p99")),
                    tpot_ms_p50=_num(tpot.get("p50")),
                    tpot_ms_p95=_num(tpot.get("p95")),
                    tpot_ms_p99=_num(tpot.get("p99")),
                    e2el_ms_p50=_num(e2el.get("p50")),
                    e2el_ms_p95=_num(e2el.get("p95")),
                    peak_memory_gib=_num(tel.get("peak_memory_gib")),
                    requests_ok=point["requests"]["ok"],
                    requests_failed=point["requests"]["failed"],
                    parity_exact_match=_num(parity.get("exact_match")) if parity else None,
                    parity_similarity=_num(parity.get("similarity")) if parity else None,
                    measured_at=datetime.fromisoformat(point["started_at"]).astimezone(UTC),
                    source_tool=SOURCE_TOOL,
                    source_file=source_file,
                    source_title=f"{title}; tokens: {basis}",
                    confidence="measured",
                    notes="; ".join(notes),
                ),
            )
        )
    return out
