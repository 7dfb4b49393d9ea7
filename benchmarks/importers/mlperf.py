"""MLPerf Inference results: the round's ``summary_results.json`` table, and per-run
``mlperf_log_summary.txt`` files together with the submission's system description JSON.

MLPerf LLM throughput is **output tokens per second for the whole system**, so a result is
recorded with the system as the replica (``accelerators_per_replica`` = accelerators per node ×
nodes): the join then gives one replica per instance of that size. Latency statistics in the
summary text are nanoseconds. Runs whose summary says ``Result is : INVALID`` are rejected.
Offline has no latency bound; Server and Interactive runs are valid only within their p99 TTFT
and TPOT bounds, which is why their throughput is the one to compare with an FTL target.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path

from benchmarks.importers.base import Importer, Source
from benchmarks.importers.hardware import identify
from benchmarks.importers.ledger import not_understood, note_for
from tokendesk.records import BenchmarkResult

#: Publication dates of the rounds (results carry no run date).
ROUND_DATES = {
    "v4.0": datetime(2024, 3, 27, tzinfo=UTC),
    "v4.1": datetime(2024, 8, 28, tzinfo=UTC),
    "v5.0": datetime(2025, 4, 2, tzinfo=UTC),
    "v5.1": datetime(2025, 9, 9, tzinfo=UTC),
}
_LLM = re.compile(r"llama|mixtral|deepseek|gpt-oss|gptj|gpt-j", re.IGNORECASE)


def _runtime(software: str) -> str:
    s = software.lower()
    for needle, name in (
        ("vllm", "vllm"),
        ("sglang", "sglang"),
        ("tensorrt", "trt-llm"),
        ("neuron", "neuron"),
        ("jetstream", "jetstream"),
        ("ipex", "pytorch-ipex"),
        ("pytorch", "pytorch"),
        ("optimum-habana", "optimum-habana"),
        ("synapse", "synapseai"),
    ):
        if needle in s:
            return name
    return (s.split()[0] if s.split() else "") or "unknown"


#: LoadGen scenario names -> the record's scenario values.
_SCENARIOS = {
    "offline": "offline",
    "server": "server",
    "interactive": "interactive",
    "singlestream": "singlestream",
    "multistream": "multistream",
}
#: v5.0 ran the interactive LLM test as its own benchmark ("llama2-70b-interactive-99.9") under
#: the Server scenario with tighter TTFT/TPOT bounds; v5.1 made it a scenario of its own.
_INTERACTIVE_BENCHMARK = re.compile(r"-interactive(?=-|$)", re.IGNORECASE)


def scenario_and_model(scenario: str, benchmark: str) -> tuple[str, str]:
    """The record's scenario and the benchmark's model, exactly as the submission states them:
    a v5.0 ``<model>-interactive-<target>`` benchmark run as Server is the interactive scenario."""
    key = re.sub(r"[\s_-]+", "", scenario).lower()
    value = _SCENARIOS.get(key, key)
    if _INTERACTIVE_BENCHMARK.search(benchmark):
        benchmark = _INTERACTIVE_BENCHMARK.sub("", benchmark)
        if value == "server":
            value = "interactive"
    return value, benchmark


def _memory_gb(text: object) -> float | None:
    """``"141 GB"`` -> 141.0; anything else (``"N/A"``, ``""``) -> None."""
    match = re.match(r"^\s*(\d+(?:\.\d+)?)\s*gi?b\b", str(text or ""), re.IGNORECASE)
    return float(match.group(1)) if match else None


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
        model = str(row.get("Model") or row.get("UsedModel") or "")
        scenario, model = scenario_and_model(str(row.get("Scenario", "")), model)
        if not _LLM.search(model) or "gpt" in model.lower() and "oss" not in model.lower():
            continue  # not an LLM token benchmark (GPT-J reports samples/s)
        row_notes = ["MLPerf system total output tokens/s"]
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
            count = (src.number(row, "a#", where) or 1) * nodes
            key = "Accelerator"
        else:
            acc_name = str(row.get("Processor") or "")
            placed = identify(acc_name)
            count = (src.number(row, "host_processors_per_node", where) or 1) * nodes
            key = "Processor"
        acc = placed.accelerator_id
        if src.overrides.accelerator_id:
            acc = src.accelerator(None, key)
        if acc is None:
            if src.overrides.skip_unknown_accelerators:
                continue
            raise src.fail(
                f"{where}{key}",
                f"cannot place the accelerator: {placed.reason}; pass --accelerator ID for a "
                "file of one system, or --skip-unknown-hardware to leave such rows out",
            )
        value = src.number(row, "Performance_Result", where, required=True)
        version = str(row.get("version") or "")
        system = str(row.get("System") or "")
        out.append(
            src.result(
                accelerator_id=acc,
                accelerators_per_replica=int(count),
                nodes=int(nodes),
                system=system,
                runtime=src.overrides.runtime or _runtime(str(row.get("Software") or "")),
                model=src.overrides.model or model,
                precision=src.overrides.precision
                or str(row.get("weight_data_types") or "unknown").lower(),
                workload=f"mlperf-{model}-{scenario}",
                scenario=scenario or "offline",
                output_tok_s=value,
                measured_at=src.when(ROUND_DATES.get(version)),
                source_tool="mlperf",
                source_title=f"MLPerf Inference {version} {row.get('Submitter', '')} {system}".strip(),
                confidence=f"peer-reviewed (MLPerf {row.get('Availability', '')})".replace(
                    " ()", ""
                ),
                notes="; ".join(row_notes),
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


def _path_parts(name: str) -> tuple[str | None, str | None]:
    """(system, benchmark) from ``.../results/<system>/<benchmark>/<Scenario>/performance/run_1/...``."""
    parts = Path(name).parts
    if "results" in parts:
        i = len(parts) - 1 - parts[::-1].index("results")
        if len(parts) > i + 2:
            return parts[i + 1], parts[i + 2]
    return None, None


def _system_json(src: Source, system: str | None) -> dict | None:
    systems = [
        v for v in src.companions.values() if isinstance(v, dict) and "accelerator_model_name" in v
    ]
    if system:
        for name, v in src.companions.items():
            if isinstance(v, dict) and Path(name).stem == system:
                return v
    if len(systems) == 1:
        return systems[0]
    if system:  # the submission layout: <division>/<Submitter>/systems/<system>.json
        parts = Path(src.name).parts
        if "results" in parts:
            i = len(parts) - 1 - parts[::-1].index("results")
            candidate = Path(*parts[:i]) / "systems" / f"{system}.json"
            if candidate.is_file():
                try:
                    described = json.loads(candidate.read_text(encoding="utf-8"))
                except json.JSONDecodeError as exc:
                    raise src.fail(
                        str(candidate), f"system JSON is not valid JSON ({exc.msg})"
                    ) from exc
                _ledger_check(src, "mlperf-system", candidate, described)
                return described
    return None


def _ledger_check(src: Source, fmt: str, path: Path, described: object) -> None:
    """A companion read from the submission layout is held to its ledger like a file given."""
    unknown = not_understood(fmt, "json", described)
    if unknown:
        src.notes.append(note_for(f"{fmt} ({path.name})", unknown))


def _declared_precision(src: Source, described: dict) -> str:
    """weight_data_types as declared; flagged when the weights were quantized from it."""
    types = str(described["weight_data_types"]).lower()
    if "quantiz" in str(described.get("weight_transformations", "")).lower() and types in (
        "fp16",
        "bf16",
        "fp32",
    ):
        src.notes.append(
            f"weight_data_types {types} with weight_transformations 'quantization': the run's "
            "precision is likely lower (pass --precision if the submitter states it)"
        )
    return types


def _precision(src: Source, system: dict) -> str:
    if src.overrides.precision:
        return src.overrides.precision
    for v in (*src.companions.values(), system):
        if isinstance(v, dict) and v.get("weight_data_types"):
            return _declared_precision(src, v)
    parts = Path(src.name).parts
    if "results" in parts and len(parts) >= 4:  # <root>/results/<system>/<benchmark>/<Scenario>/...
        i = len(parts) - 1 - parts[::-1].index("results")
        if len(parts) > i + 3:
            sys_name, bench, scen = parts[i + 1], parts[i + 2], parts[i + 3]
            folder = Path(*parts[:i]) / "measurements" / sys_name / bench / scen
            # Submitters name this file freely (<system>_<Scenario>.json, <system>.json,
            # <system>_PyTorch_<Scenario>.json): any JSON in the folder that states the types.
            for candidate in sorted(folder.glob("*.json")) if folder.is_dir() else ():
                try:
                    described = json.loads(candidate.read_text(encoding="utf-8"))
                except json.JSONDecodeError as exc:
                    raise src.fail(str(candidate), f"not valid JSON ({exc.msg})") from exc
                if isinstance(described, dict) and described.get("weight_data_types"):
                    _ledger_check(src, "mlperf-measurements", candidate, described)
                    return _declared_precision(src, described)
    raise src.fail(
        "weight_data_types",
        "precision unknown: pass the run's measurements/<system>_<Scenario>.json "
        "with the summary, or --precision",
    )


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
    system_name, benchmark = _path_parts(src.name)
    scenario, benchmark_model = scenario_and_model(src.need(f, "Scenario"), benchmark or "")
    # LoadGen prints "Server" for an Interactive run (a Server run under tighter latency
    # bounds); the submission's folder says which it was.
    if scenario == "server" and "Interactive" in Path(src.name).parts:
        scenario = "interactive"
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
    system = _system_json(src, system_name)
    if system is None and not src.overrides.accelerator_id:
        raise src.fail(
            "system",
            "no system description: pass the submission's systems/<system>.json with the "
            "summary, or --accelerator ID --accelerators-per-replica N",
        )
    system = system or {}
    if src.overrides.accelerator_id:
        acc = src.accelerator(None, "accelerator_model_name")
    else:
        acc_name = str(system.get("accelerator_model_name") or "")
        if not acc_name or acc_name.upper() in ("N/A", "NONE"):
            acc = src.accelerator(
                system.get("host_processor_model_name"), "host_processor_model_name"
            )
            per_node = src.number(system, "host_processors_per_node") or 1
        else:
            acc = src.accelerator(
                acc_name,
                "accelerator_model_name",
                _memory_gb(system.get("accelerator_memory_capacity")),
            )
            per_node = src.number(system, "accelerators_per_node") or 1
    nodes = src.number(system, "number_of_nodes") or 1
    count = src.overrides.accelerators_per_replica or int(
        (per_node if not src.overrides.accelerator_id else 1) * nodes
    )
    model = src.required_text(benchmark_model, "--model", "benchmark (model)")
    qps = src.number(f, "target_qps")
    bounds = _latency_bounds(src, f) if scenario in ("server", "interactive") else ""
    return [
        src.result(
            accelerator_id=acc,
            accelerators_per_replica=int(count),
            nodes=int(nodes),
            system=str(system.get("system_name") or system_name or ""),
            runtime=src.overrides.runtime or _runtime(str(system.get("framework") or "")),
            model=model,
            precision=_precision(src, system),
            workload=f"mlperf-{model}-{scenario}",
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
            source_title=f"MLPerf Inference {system.get('system_name') or system_name or ''} "
            f"{scenario}".strip(),
            confidence="MLPerf VALID run"
            + (f" ({system['status']})" if system.get("status") else ""),
            notes="; ".join(
                filter(
                    None,
                    [
                        "MLPerf system total output tokens/s",
                        "target_qps is samples/s" if qps else "",
                        bounds,
                        token_note,
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
