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
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
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
    # v6.0 and v6.1: no publication date found in the results repositories; their rows say
    # "date unknown" rather than a guessed day.
}
_LLM = re.compile(r"llama|mixtral|deepseek|gpt-oss|gptj|gpt-j|qwen", re.IGNORECASE)

#: Serving engines a framework string may name, each with the record's runtime name. A
#: submission lists its whole stack ("TensorRT 10.14, …, TensorRT-LLM …, vLLM …"): the engine
#: it names first is the one its runs used, unless an engine's build is labelled for a benchmark.
_ENGINES = (
    (re.compile(r"tensorrt|trt-?llm", re.IGNORECASE), "trt-llm"),
    (re.compile(r"vllm", re.IGNORECASE), "vllm"),
    (re.compile(r"sglang", re.IGNORECASE), "sglang"),
    (re.compile(r"neuron", re.IGNORECASE), "neuron"),
    (re.compile(r"jetstream", re.IGNORECASE), "jetstream"),
    (re.compile(r"optimum-habana", re.IGNORECASE), "optimum-habana"),
)
#: Libraries named when no engine is: the runtime is the library.
_LIBRARIES = (
    ("ipex", "pytorch-ipex"),
    ("pytorch", "pytorch"),
    ("synapse", "synapseai"),
)
#: Build labels that tie an engine to one benchmark. NVIDIA's v6.0 and v6.1 systems list
#: "vLLM CentML:mlperf-inf-mm-q3vl-…" beside TensorRT-LLM; its harness code names the Qwen3-VL
#: benchmark "q3vl" (closed/NVIDIA/configs/*/qwen3-vl-235b-a22b.py pass ``q3vl_fields.vllm_cli``)
#: while its deepseek-r1 and Llama configs set TensorRT-LLM flags.
_BENCHMARK_BUILDS = ((re.compile(r"q3vl|qwen3-?vl", re.IGNORECASE), "qwen3-vl"),)


def _engines(software: str) -> list[tuple[str, str]]:
    """(runtime, the framework entry naming it) for each engine, in the order named."""
    found: list[tuple[str, str]] = []
    for entry in re.split(r"[,;]|\s\+\s", software):
        for pattern, name in _ENGINES:
            if pattern.search(entry) and name not in [n for n, _ in found]:
                found.append((name, entry.strip()))
                break
    return found


def _runtime(software: str, benchmark: str = "") -> tuple[str, str]:
    """The runtime that ran ``benchmark`` and, when the framework names several, why that one."""
    engines = _engines(software)
    note = ""
    for label, prefix in _BENCHMARK_BUILDS if len(engines) > 1 else ():
        tagged = [name for name, entry in engines if label.search(entry)]
        if not tagged:
            continue
        if benchmark.lower().startswith(prefix):
            return tagged[
                0
            ], f"runtime {tagged[0]}: the framework's {tagged[0]} build is labelled for {prefix}"
        rest = [(name, entry) for name, entry in engines if not label.search(entry)]
        if rest:
            engines = rest
            note = f"the framework's {tagged[0]} build is labelled for {prefix}, not this benchmark"
    if len(engines) > 1:
        names = ", ".join(name for name, _ in engines)
        note = f"the framework names several engines ({names}); the first named taken"
    if engines:
        return engines[0][0], note and f"runtime {engines[0][0]}: {note}"
    s = software.lower()
    for needle, name in _LIBRARIES:
        if needle in s:
            return name, ""
    return (s.split()[0] if s.split() else "") or "unknown", ""


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


#: Benchmark names (as the results folders and summary rows spell them) -> the model the
#: benchmark's reference implementation runs (mlcommons/inference: language/<benchmark>/ and
#: multimodal/qwen3-vl/ READMEs), as a plain id. The accuracy target ("-99", "-99.9"), the edge
#: variant ("-edge") and an open-division suffix ("-fp8_dyn") name the test, not the model.
_MODELS: tuple[tuple[re.Pattern[str], str], ...] = (
    # llama2-70b (Llama-2-70b-chat-hf), llama3.1-8b / llama3_1-8b (Llama-3.1-8B-Instruct),
    # llama3.1-405b (Llama-3.1-405B-Instruct), llama3_1-70b-fp8_dyn (open division)
    (re.compile(r"^llama(\d+)(?:[._](\d+))?-(\d+)b\b", re.IGNORECASE), "llama"),
    (re.compile(r"^mixtral-8x7b\b", re.IGNORECASE), "mixtral-8x7b"),  # Mixtral-8x7B-Instruct-v0.1
    (re.compile(r"^deepseek-r1\b", re.IGNORECASE), "deepseek-r1"),  # deepseek-ai/DeepSeek-R1
    (re.compile(r"^gpt-oss-120b\b", re.IGNORECASE), "gpt-oss-120b"),  # openai/gpt-oss-120b
    (re.compile(r"^gpt-?j\b", re.IGNORECASE), "gpt-j-6b"),  # EleutherAI/gpt-j-6b
    # qwen3-vl-235b-a22b (Qwen3-VL-235B-A22B-Instruct), v6.1's qwen3.6-27b (Qwen/Qwen3.6-27B)
    (re.compile(r"^qwen[\d.]+(?:-vl)?-\d+b(?:-a\d+b)?\b", re.IGNORECASE), "qwen"),
)


def model_of(benchmark: str) -> str:
    """The model a benchmark runs, as a plain id (``llama2-70b-99.9`` -> ``llama-2-70b``,
    ``llama3_1-8b`` -> ``llama-3.1-8b``); a name no entry knows stays as the submission wrote it."""
    name = _INTERACTIVE_BENCHMARK.sub("", benchmark.strip())
    for pattern, model in _MODELS:
        match = pattern.match(name)
        if not match:
            continue
        if model == "llama":
            major, minor, size = match.groups()
            return f"llama-{major}{'.' + minor if minor else ''}-{size}b"
        return match.group(0).lower() if model == "qwen" else model
    return name


def benchmark_of(benchmark: str) -> str:
    """The benchmark without v5.0's ``-interactive`` (the scenario says that)."""
    return _INTERACTIVE_BENCHMARK.sub("", benchmark)


def scenario_and_model(scenario: str, benchmark: str) -> tuple[str, str]:
    """The record's scenario and the model the benchmark runs (:func:`model_of`): a v5.0
    ``<model>-interactive-<target>`` benchmark run as Server is the interactive scenario."""
    key = re.sub(r"[\s_-]+", "", scenario).lower()
    value = _SCENARIOS.get(key, key)
    if _INTERACTIVE_BENCHMARK.search(benchmark) and value == "server":
        value = "interactive"
    return value, model_of(benchmark)


#: "(x87)" after an accelerator name: MLPerf's count of that part in the whole system (AMD's
#: v6.0 "AMD Instinct MI355X 288GB HBM3e (x87)" on 11 nodes of 8 slots; v5.1's mixed systems
#: "MI300X … (x32), MI325X … (x16)" on 6 nodes of 8).
_SYSTEM_COUNT = re.compile(r"\(\s*x\s*(\d+)\s*\)\s*$", re.IGNORECASE)


def _stated_count(name: str, per_node: float, nodes: float) -> tuple[int, str]:
    """The system's accelerator count: the name's "(xN)" when it states one, else per node x
    nodes; with a note when the two differ."""
    product = int(per_node * nodes)
    match = _SYSTEM_COUNT.search(name)
    if not match or int(match.group(1)) == product:
        return product, ""
    stated = int(match.group(1))
    return stated, (
        f"{stated} accelerators as the name's '(x{stated})' says; {nodes:g} nodes x "
        f"{per_node:g} per node would be {product}"
    )


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
        benchmark = str(row.get("Model") or row.get("UsedModel") or "")
        # UsedModel is what ran: the open division may run another model for a benchmark (Krai's
        # v6.0 "llama3_1-70b-fp8_dyn" under "llama2-70b-99.9").
        used = str(row.get("UsedModel") or benchmark)
        scenario, model = scenario_and_model(str(row.get("Scenario", "")), used)
        if _INTERACTIVE_BENCHMARK.search(benchmark) and scenario == "server":
            scenario = "interactive"
        benchmark = benchmark_of(benchmark)
        if not _LLM.search(benchmark) or re.match(r"gpt-?j", benchmark, re.IGNORECASE):
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
            count, count_note = _stated_count(acc_name, src.number(row, "a#", where) or 1, nodes)
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
        runtime, runtime_note = _runtime(str(row.get("Software") or ""), benchmark)
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
    for candidate in _measurement_files(src.name):
        try:
            described = json.loads(candidate.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise src.fail(str(candidate), f"not valid JSON ({exc.msg})") from exc
        if isinstance(described, dict) and described.get("weight_data_types"):
            _ledger_check(src, "mlperf-measurements", candidate, described)
            return _declared_precision(src, described)
    raise src.fail(
        "weight_data_types",
        "precision unknown: no measurements JSON beside the run (v6.0 on: "
        "results/<system>/<benchmark>/<Scenario>/measurements.json; before: "
        "measurements/<system>/<benchmark>/<Scenario>/<system>_<Scenario>.json); pass it with "
        "the summary, or --precision",
    )


def _measurement_files(name: str) -> list[Path]:
    """The measurements JSONs a submission keeps for the run at ``name``
    (``<root>/results/<system>/<benchmark>/<Scenario>/performance/...``), in the order to read."""
    parts = Path(name).parts
    if "results" not in parts:
        return []
    i = len(parts) - 1 - parts[::-1].index("results")
    if len(parts) <= i + 3:
        return []
    root, (sys_name, bench, scen) = Path(*parts[:i]), parts[i + 1 : i + 4]
    run_folder = root / "results" / sys_name / bench / scen
    found = [run_folder / "measurements.json"]  # v6.0 and v6.1: beside performance/
    # Some v6.0 submitters (Dell's CPU runs) keep a measurements/ folder there as well; before
    # v6.0 the tree was measurements/<system>/<benchmark>/<Scenario>/, its file named freely
    # (<system>_<Scenario>.json, <system>.json, <system>_PyTorch_<Scenario>.json).
    for folder in (run_folder / "measurements", root / "measurements" / sys_name / bench / scen):
        found += sorted(folder.glob("*.json")) if folder.is_dir() else []
    return [path for path in found if path.is_file()]


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
    if benchmark and not _LLM.search(benchmark):
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
    hw = _hardware(src, system_name)
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


@dataclass(frozen=True)
class _Hardware:
    """What the system description says of the machine that ran a result."""

    system: dict
    system_name: str
    accelerator_id: str
    count: int
    nodes: int
    notes: tuple[str, ...] = ()

    @property
    def status(self) -> str:
        return f" ({self.system['status']})" if self.system.get("status") else ""

    def fields(self, src: Source, benchmark: str) -> dict:
        """The record fields the system settles: hardware, runtime and precision."""
        runtime, note = _runtime(str(self.system.get("framework") or ""), benchmark)
        if note and not src.overrides.runtime:
            src.notes.append(note)
        return {
            "accelerator_id": self.accelerator_id,
            "accelerators_per_replica": self.count,
            "nodes": self.nodes,
            "system": self.system_name,
            "runtime": src.overrides.runtime or runtime,
            "precision": _precision(src, self.system),
        }


def _hardware(src: Source, system_name: str | None) -> _Hardware:
    """The accelerator, its count and the nodes of the run's system (the description beside
    the run in the submission layout, or the one given with it), or the flags that say them."""
    system = _system_json(src, system_name)
    if system is None and not src.overrides.accelerator_id:
        raise src.fail(
            "system",
            "no system description: pass the submission's systems/<system>.json with the "
            "summary, or --accelerator ID --accelerators-per-replica N",
        )
    system = system or {}
    nodes = src.number(system, "number_of_nodes") or 1
    note = ""
    if src.overrides.accelerator_id:
        acc = src.accelerator(None, "accelerator_model_name")
        count = int(nodes)
    else:
        acc_name = str(system.get("accelerator_model_name") or "")
        if not acc_name or acc_name.upper() in ("N/A", "NONE"):
            acc = src.accelerator(
                system.get("host_processor_model_name"), "host_processor_model_name"
            )
            count = int((src.number(system, "host_processors_per_node") or 1) * nodes)
        else:
            acc = src.accelerator(
                acc_name,
                "accelerator_model_name",
                _memory_gb(system.get("accelerator_memory_capacity")),
            )
            per_node = src.number(system, "accelerators_per_node") or 1
            count, note = _stated_count(acc_name, per_node, nodes)
    return _Hardware(
        system=system,
        system_name=str(system.get("system_name") or system_name or ""),
        accelerator_id=acc,
        count=src.overrides.accelerators_per_replica or count,
        nodes=int(nodes),
        notes=(note,) if note else (),
    )


# ------------------------------------------------------------------ endpoints result_summary.json
#: The endpoints harness's load patterns -> the scenario a run outside the submission layout
#: was (inside it, the <Scenario> folder says, and tells Interactive from Server).
_LOAD_PATTERNS = {"max_throughput": "offline", "poisson": "server", "concurrency": "server"}


def sniff_endpoints(src: Source) -> bool:
    data = src.data
    return (
        src.kind == "json"
        and isinstance(data, dict)
        and "n_samples_issued" in data
        and "tps" in data
        and isinstance(data.get("run_config"), dict)
        and "load_pattern" in data["run_config"]
    )


def _endpoints_scenario(src: Source, load: dict) -> tuple[str, str]:
    """(scenario, benchmark) from ``…/results/<system>/<benchmark>/<Scenario>/performance/``,
    or the scenario the load pattern implies."""
    parts = Path(src.name).parts
    if "results" in parts:
        i = len(parts) - 1 - parts[::-1].index("results")
        if len(parts) > i + 3:
            return scenario_and_model(parts[i + 3], parts[i + 2])[0], parts[i + 2]
    kind = str(load.get("type") or "")
    if kind not in _LOAD_PATTERNS:
        raise src.fail("run_config.load_pattern.type", f"unknown load pattern {kind!r}")
    return _LOAD_PATTERNS[kind], ""


def _stat_ms(src: Source, data: dict, metric: str, q: str) -> float | None:
    """A percentile (nanoseconds in the file) of ``ttft`` or ``tpot`` in ms; Offline runs leave
    both empty."""
    block = data.get(metric)
    percentiles = block.get("percentiles") if isinstance(block, dict) else None
    if not isinstance(percentiles, dict):
        return None
    key = f"{metric}.percentiles.{q}"
    return src.ms(src.number(percentiles, q, f"{metric}.percentiles."), "ns", key)


def _endpoints_complete(src: Source, data: dict) -> None:
    """Only a whole run is a result: the harness marks one ``complete`` when every issued
    sample finished, and counts the failed ones."""
    if data.get("state") != "complete" or data.get("complete") is not True:
        raise src.fail(
            "complete",
            f"the run ended in state {data.get('state')!r} with complete={data.get('complete')!r}"
            "; only a complete run is a result",
        )
    failed = src.number(data, "n_samples_failed")
    if failed:
        raise src.fail(
            "n_samples_failed",
            f"{failed:g} of {src.number(data, 'n_samples_issued') or 0:g} samples failed; an "
            "MLPerf result has none",
        )


def parse_endpoints(src: Source) -> list[BenchmarkResult]:
    data = src.data
    load = data["run_config"].get("load_pattern") or {}
    scenario, benchmark = _endpoints_scenario(src, load)
    if benchmark and not _LLM.search(benchmark):
        raise src.fail(
            "",
            f"{benchmark} is not an LLM benchmark; its tokens are not an LLM's tokens/s",
        )
    _endpoints_complete(src, data)
    tok = src.number(data, "tps", required=True)
    system_name, _ = _path_parts(src.name)
    hw = _hardware(src, system_name)
    model = src.required_text(model_of(benchmark) if benchmark else None, "--model", "model")
    qps = src.number(load, "target_qps", "run_config.load_pattern.")
    concurrency = src.number(load, "target_concurrency", "run_config.load_pattern.")
    window = src.number(data, "legacy_loadgen_window_duration_ns")
    return [
        src.result(
            **hw.fields(src, benchmark or model),
            model=model,
            workload=f"mlperf-{benchmark or model}-{scenario}",
            scenario=scenario,
            request_rate_rps=qps if load.get("type") == "poisson" and qps else None,
            concurrency=concurrency if load.get("type") == "concurrency" else None,
            output_tok_s=tok,
            ttft_ms_p50=_stat_ms(src, data, "ttft", "50.0"),
            ttft_ms_p90=_stat_ms(src, data, "ttft", "90.0"),
            ttft_ms_p95=_stat_ms(src, data, "ttft", "95.0"),
            ttft_ms_p99=_stat_ms(src, data, "ttft", "99.0"),
            tpot_ms_p50=_stat_ms(src, data, "tpot", "50.0"),
            tpot_ms_p95=_stat_ms(src, data, "tpot", "95.0"),
            tpot_ms_p99=_stat_ms(src, data, "tpot", "99.0"),
            # test_started_at is 0 in the round's files: no date.
            measured_at=src.when(None),
            source_tool="mlperf",
            source_title=f"MLPerf Inference {hw.system_name} {scenario} (endpoints)".strip(),
            confidence="MLPerf complete run" + hw.status,
            notes="; ".join(
                filter(
                    None,
                    [
                        "MLPerf system total output tokens/s (the endpoints harness's tps)",
                        # The harness's own warning: tps over LoadGen's Server window, first
                        # issue to the last-issued sample's completion.
                        "tps over the legacy LoadGen Server window" if window else "",
                        "the file states no VALID verdict or latency bounds: the round's "
                        "checker judged the run",
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
