"""MLPerf Inference results: the round's ``summary_results.json`` table, per-run
``mlperf_log_summary.txt`` files (LoadGen) and, from v6.1, the endpoints harness's
``performance/result_summary.json``, each together with the submission's system description JSON
and the run's measurements JSON.

MLPerf LLM throughput is **output tokens per second for the whole system**, so a result is
recorded with the system as the replica (``accelerators_per_replica`` = accelerators per node ×
nodes): the join then gives one replica per instance of that size. Latency statistics in the
summary text are nanoseconds. Runs whose summary says ``Result is : INVALID`` are rejected.
Offline has no latency bound; Server and Interactive runs are valid only within their p99 TTFT
and TPOT bounds, which is why their throughput is the one to compare with an FTL target.

Names (rounds, engines, scenarios) are read in ``mlperf_naming.py``, system descriptions in
``mlperf_system.py``, the endpoints harness's files in ``mlperf_endpoints.py``.
"""

from __future__ import annotations

import re
from pathlib import Path

from benchmarks.importers.base import Importer, Source
from benchmarks.importers.hardware import identify
from benchmarks.importers.mlperf_endpoints import parse_endpoints, sniff_endpoints
from benchmarks.importers.mlperf_naming import (
    INTERACTIVE_BENCHMARK,
    LLM_NAMES,
    ROUND_DATES,
    benchmark_of,
    engine_runtime,
    model_of,
    scenario_and_model,
    stated_count,
)
from benchmarks.importers.mlperf_system import hardware, path_parts
from tokendesk.records import BenchmarkResult

#: Publication dates of the rounds (results carry no run date).


# ------------------------------------------------------------------ summary_results.json
def sniff_summary(src: Source) -> bool:
    data = src.data
    return (
        src.kind == "json"
        and isinstance(data, list)
        and bool(data)
        and isinstance(data[0], dict)
        and "Performance_Result" in data[0]
        and "Scenario" in data[0]
    )


def parse_summary(src: Source) -> list[BenchmarkResult]:
    out = []
    for i, row in enumerate(src.data):
        where = f"[{i}]."
        units = str(row.get("Performance_Units", ""))
        benchmark = str(row.get("Model") or row.get("UsedModel") or "")
        # UsedModel is what ran: the open division may run another model for a benchmark (Krai's
        # v6.0 "llama3_1-70b-fp8_dyn" under "llama2-70b-99.9").
        used = str(row.get("UsedModel") or benchmark)
        scenario, model = scenario_and_model(str(row.get("Scenario", "")), used)
        if INTERACTIVE_BENCHMARK.search(benchmark) and scenario == "server":
            scenario = "interactive"
        benchmark = benchmark_of(benchmark)
        if not LLM_NAMES.search(benchmark) or re.match(r"gpt-?j", benchmark, re.IGNORECASE):
            continue  # not an LLM token benchmark (GPT-J reports samples/s)
        row_notes = ["MLPerf system total output tokens/s"]
        if model != model_of(benchmark):
            row_notes.append(f"ran {model} ({used}) for the {benchmark} benchmark")
        if units != "Tokens/s":
            if units == "Queries/s" and scenario == "interactive":
                row_notes.append(
                    "Performance_Units says Queries/s (a known mislabel on LLM Interactive rows); "
                    "value taken as tokens/s"
                )
            else:
                continue
        acc_name = str(row.get("Accelerator") or "").strip()
        nodes = src.number(row, "Nodes", where) or 1
        if acc_name and acc_name.upper() not in ("N/A", "NONE", "-"):
            placed = identify(acc_name)
            count, count_note = stated_count(acc_name, src.number(row, "a#", where) or 1, nodes)
            row_notes.append(count_note)
            key = "Accelerator"
        else:
            acc_name = str(row.get("Processor") or "")
            placed = identify(acc_name)
            count = int((src.number(row, "host_processors_per_node", where) or 1) * nodes)
            key = "Processor"
        acc = placed.accelerator_id
        if src.overrides.accelerator_id:
            acc = src.accelerator(None, key)
        if acc is None:
            if src.overrides.skip_unknown_accelerators:
                continue
            fix = (
                "pass --skip-unknown-hardware to leave such rows out"
                if placed.mixed
                else "pass --accelerator ID for a file of one system, or "
                "--skip-unknown-hardware to leave such rows out"
            )
            raise src.fail(f"{where}{key}", f"cannot place the accelerator: {placed.reason}; {fix}")
        value = src.number(row, "Performance_Result", where, required=True)
        version = str(row.get("version") or "")
        system = str(row.get("System") or "")
        runtime, runtime_note = engine_runtime(str(row.get("Software") or ""), benchmark)
        row_notes.append("" if src.overrides.runtime else runtime_note)
        out.append(
            src.result(
                accelerator_id=acc,
                accelerators_per_replica=int(count),
                nodes=int(nodes),
                system=system,
                runtime=src.overrides.runtime or runtime,
                model=src.overrides.model or model,
                precision=src.overrides.precision
                or str(row.get("weight_data_types") or "unknown").lower(),
                workload=f"mlperf-{benchmark}-{scenario}",
                scenario=scenario or "offline",
                output_tok_s=value,
                measured_at=src.when(ROUND_DATES.get(version)),
                source_tool="mlperf",
                source_title=f"MLPerf Inference {version} {row.get('Submitter', '')} {system}".strip(),
                confidence=f"peer-reviewed (MLPerf {row.get('Availability', '')})".replace(
                    " ()", ""
                ),
                notes="; ".join(filter(None, row_notes)),
            )
        )
    if not out:
        raise src.fail("Performance_Units", "no LLM rows reported in Tokens/s in this summary")
    return out


# ------------------------------------------------------------------ system description JSON
def sniff_system(src: Source) -> bool:
    return (
        src.kind == "json"
        and isinstance(src.data, dict)
        and "accelerator_model_name" in src.data
        and "system_name" in src.data
    )


def parse_system(src: Source) -> list[BenchmarkResult]:
    raise src.fail(
        "",
        "an MLPerf system description holds no results; import it together with the "
        "run's mlperf_log_summary.txt",
    )


# ------------------------------------------------------------------ mlperf_log_summary.txt
def sniff_log_summary(src: Source) -> bool:
    return (
        src.kind == "text"
        and "MLPerf Results Summary" in src.text[:2000]
        or (src.kind == "text" and "Result is :" in src.text and "Scenario :" in src.text)
    )


def parse_log_fields(text: str) -> dict[str, str]:
    # LoadGen pads some separators (Server: "Completed tokens per second    : 5103.99") and not
    # others (Offline: "Tokens per second: 8034.85"); any spacing around the first colon is one.
    fields: dict[str, str] = {}
    for line in text.splitlines():
        match = _FIELD_LINE.match(line)
        if match:
            fields.setdefault(match.group(1).strip(), match.group(2).strip())
    return fields


_FIELD_LINE = re.compile(r"^\s*([^:]+?)\s*:\s*(.*)$")


def _latency_bounds(src: Source, f: dict[str, str]) -> str:
    """The TTFT and TPOT bounds the run was held to (what tells Interactive from Server)."""
    ttft = src.ms(src.number(f, "ttft_latency (ns)"), "ns", "ttft_latency (ns)")
    tpot = src.ms(src.number(f, "tpot_latency (ns)"), "ns", "tpot_latency (ns)")
    if not ttft or not tpot:
        return ""
    return f"held to p99 TTFT <= {ttft:g} ms and p99 TPOT <= {tpot:g} ms"


def sniff_measurements(src: Source) -> bool:
    return (
        src.kind == "json"
        and isinstance(src.data, dict)
        and "weight_data_types" in src.data
        and "accelerator_model_name" not in src.data
        and "Performance_Result" not in src.data
    )


def parse_log_summary(src: Source) -> list[BenchmarkResult]:
    f = parse_log_fields(src.text)
    system_name, benchmark = path_parts(src.name)
    scenario, benchmark_model = scenario_and_model(src.need(f, "Scenario"), benchmark or "")
    # LoadGen prints "Server" for an Interactive run (a Server run under tighter latency
    # bounds); the submission's folder says which it was.
    if scenario == "server" and "Interactive" in Path(src.name).parts:
        scenario = "interactive"
    if benchmark and not LLM_NAMES.search(benchmark):
        # Whisper (v5.1 on) prints "Tokens per second" too: speech-to-text tokens, not an LLM's.
        raise src.fail(
            "benchmark",
            f"{benchmark} is not an LLM benchmark; its tokens are not an LLM's tokens/s",
        )
    validity = src.need(f, "Result is")
    if validity.upper() != "VALID":
        raise src.fail("Result is", f"the run is {validity}; MLPerf results only count when VALID")
    tok = src.number(f, "Tokens per second") or src.number(f, "Completed tokens per second")
    token_note = ""
    if tok is None:
        tok = src.number(f, "Tokens per second (inferred)") or src.number(
            f, "Completed tokens per second (inferred)"
        )
        if tok is not None:
            # LoadGen prints this when the SUT reports no tokens: samples/s times the
            # benchmark's fixed tokens per sample (token_latency_scaling_factor).
            token_note = (
                "tokens/s as LoadGen inferred it (samples/s x the benchmark's fixed tokens per "
                "sample), not counted token by token"
            )
    if tok is None:
        raise src.fail(
            "Tokens per second", "the summary reports samples/s only (not an LLM token benchmark)"
        )
    ttft = {
        q: src.ms(
            src.number(f, f"{q}.00 percentile first token latency (ns)"),
            "ns",
            f"{q}.00 percentile first token latency (ns)",
        )
        for q in ("50", "90", "95", "99")
    }
    tpot = {
        q: src.ms(
            src.number(f, f"{q}.00 percentile time to output token (ns)"),
            "ns",
            f"{q}.00 percentile time to output token (ns)",
        )
        for q in ("50", "95", "99")
    }
    hw = hardware(src, system_name)
    model = src.required_text(benchmark_model, "--model", "benchmark (model)")
    qps = src.number(f, "target_qps")
    bounds = _latency_bounds(src, f) if scenario in ("server", "interactive") else ""
    return [
        src.result(
            **hw.fields(src, benchmark or model),
            model=model,
            workload=f"mlperf-{benchmark_of(benchmark) if benchmark else model}-{scenario}",
            scenario=scenario,
            # Server and Interactive offer target_qps as a Poisson arrival rate; Offline sends
            # everything at once and SingleStream one query after another.
            request_rate_rps=qps
            if scenario in ("server", "interactive") and qps and qps > 0
            else None,
            output_tok_s=tok,
            ttft_ms_p50=ttft["50"],
            ttft_ms_p90=ttft["90"],
            ttft_ms_p95=ttft["95"],
            ttft_ms_p99=ttft["99"],
            tpot_ms_p50=tpot["50"],
            tpot_ms_p95=tpot["95"],
            tpot_ms_p99=tpot["99"],
            measured_at=src.when(None),
            source_tool="mlperf",
            source_title=f"MLPerf Inference {hw.system_name} {scenario}".strip(),
            confidence="MLPerf VALID run" + hw.status,
            notes="; ".join(
                filter(
                    None,
                    [
                        "MLPerf system total output tokens/s",
                        "target_qps is samples/s" if qps else "",
                        bounds,
                        token_note,
                        *hw.notes,
                    ],
                )
            ),
        )
    ]


IMPORTERS = [
    Importer(
        "mlperf-summary-results",
        "mlperf",
        "MLPerf Inference round summary_results.json",
        sniff_summary,
        parse_summary,
    ),
    Importer(
        "mlperf-log-summary",
        "mlperf",
        "MLPerf mlperf_log_summary.txt (+ systems/<system>.json)",
        sniff_log_summary,
        parse_log_summary,
    ),
    Importer(
        "mlperf-endpoints-summary",
        "mlperf",
        "MLPerf endpoints harness performance/result_summary.json (v6.1)",
        sniff_endpoints,
        parse_endpoints,
    ),
    Importer(
        "mlperf-system",
        "mlperf",
        "MLPerf systems/<system>.json (context for a log summary)",
        sniff_system,
        parse_system,
        context_only=True,
    ),
    Importer(
        "mlperf-measurements",
        "mlperf",
        "MLPerf measurements/<system>_<Scenario>.json (precision context)",
        sniff_measurements,
        parse_system,
        context_only=True,
    ),
]
