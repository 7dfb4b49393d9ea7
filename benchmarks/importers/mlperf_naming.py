"""MLPerf Inference names: round publication dates, the serving engine a submission's framework
string names, the scenario and model a benchmark name stands for, and the accelerator count a
system name states (shared by the summary, LoadGen and endpoints importers in ``mlperf.py``).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

ROUND_DATES = {
    "v4.0": datetime(2024, 3, 27, tzinfo=UTC),
    "v4.1": datetime(2024, 8, 28, tzinfo=UTC),
    "v5.0": datetime(2025, 4, 2, tzinfo=UTC),
    "v5.1": datetime(2025, 9, 9, tzinfo=UTC),
    # v6.0 and v6.1: no publication date found in the results repositories; their rows say
    # "date unknown" rather than a guessed day.
}
LLM_NAMES = re.compile(r"llama|mixtral|deepseek|gpt-oss|gptj|gpt-j|qwen", re.IGNORECASE)

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


def engine_runtime(software: str, benchmark: str = "") -> tuple[str, str]:
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
SCENARIOS = {
    "offline": "offline",
    "server": "server",
    "interactive": "interactive",
    "singlestream": "singlestream",
    "multistream": "multistream",
}
#: v5.0 ran the interactive LLM test as its own benchmark ("llama2-70b-interactive-99.9") under
#: the Server scenario with tighter TTFT/TPOT bounds; v5.1 made it a scenario of its own.
INTERACTIVE_BENCHMARK = re.compile(r"-interactive(?=-|$)", re.IGNORECASE)


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
    name = INTERACTIVE_BENCHMARK.sub("", benchmark.strip())
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
    return INTERACTIVE_BENCHMARK.sub("", benchmark)


def scenario_and_model(scenario: str, benchmark: str) -> tuple[str, str]:
    """The record's scenario and the model the benchmark runs (:func:`model_of`): a v5.0
    ``<model>-interactive-<target>`` benchmark run as Server is the interactive scenario."""
    key = re.sub(r"[\s_-]+", "", scenario).lower()
    value = SCENARIOS.get(key, key)
    if INTERACTIVE_BENCHMARK.search(benchmark) and value == "server":
        value = "interactive"
    return value, model_of(benchmark)


#: "(x87)" after an accelerator name: MLPerf's count of that part in the whole system (AMD's
#: v6.0 "AMD Instinct MI355X 288GB HBM3e (x87)" on 11 nodes of 8 slots; v5.1's mixed systems
#: "MI300X … (x32), MI325X … (x16)" on 6 nodes of 8).
_SYSTEM_COUNT = re.compile(r"\(\s*x\s*(\d+)\s*\)\s*$", re.IGNORECASE)


def stated_count(name: str, per_node: float, nodes: float) -> tuple[int, str]:
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


def memory_gb(text: object) -> float | None:
    """``"141 GB"`` -> 141.0; anything else (``"N/A"``, ``""``) -> None."""
    match = re.match(r"^\s*(\d+(?:\.\d+)?)\s*gi?b\b", str(text or ""), re.IGNORECASE)
    return float(match.group(1)) if match else None
