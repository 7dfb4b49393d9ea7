"""vLLM (`benchmarks/benchmark_serving.py` and `vllm bench serve`) and SGLang (`bench_serving`)
result files: flat JSON objects, or JSON Lines with one object per run (``--append-result``).

Units: every ``*_ms`` summary key is milliseconds. TTFT/TPOT definitions are the canonical ones
(TPOT excludes the first token), so they map straight onto ``ttft_ms_*``/``tpot_ms_*``. SGLang
calls end-to-end latency ``e2e_latency``; vLLM calls it ``e2el`` and only writes it when
``--percentile-metrics`` asked for it. Percentiles other than the median and p99 are optional.

Latency keys without the ``_ms`` suffix (``median_ttft``, ``p99_tpot``, ``median_e2el``) are
seconds: InferenceX's trimmed copy of the script
(``experimental/token_position_decode_slo/*/benchmark_serving_random.py``) stores the
``time.perf_counter()`` differences as they are and prints them as "Median TTFT (s)". A row that
carries both forms is refused: which unit its bare keys are in cannot be told.
"""

from __future__ import annotations

import math
import re
from datetime import UTC, datetime

from benchmarks.importers.base import Importer, Source, first_present
from tokendesk.records import BenchmarkResult

KNOWN_RUNTIMES = {
    "vllm",
    "sglang",
    "tgi",
    "lmdeploy",
    "trt-llm",
    "tensorrt-llm",
    "llama.cpp",
    "deepspeed-mii",
    "scalellm",
    "mistral-rs",
    "neuron",
    "tgi-gaudi",
}
_HW_KEYS = ("accelerator", "gpu", "gpu_type", "gpu_name", "hardware", "hw", "device")
_COUNT_KEYS = ("accelerators_per_replica", "num_gpus", "tp", "tensor_parallel_size", "tp_size")
#: Replica counts written by ``--metadata`` (llm-d's benchmark scripts write decode_replicas).
_REPLICA_KEYS = ("decode_replicas", "replicas", "num_replicas")
_PRECISION_KEYS = ("precision", "dtype", "quantization", "quant")
#: torch dtype names (vLLM --dtype) -> the precision names used across tokendesk
TORCH_DTYPES = {
    "bfloat16": "bf16",
    "float16": "fp16",
    "half": "fp16",
    "float32": "fp32",
    "float": "fp32",
}


def _rows(src: Source) -> list[dict]:
    if src.kind == "json":
        return src.data if isinstance(src.data, list) else [src.data]
    if src.kind == "jsonl":
        return src.data
    return []


def _is_sglang(row: dict) -> bool:
    return isinstance(row, dict) and any(
        k in row
        for k in (
            "mean_e2e_latency_ms",
            "median_e2e_latency_ms",
            "total_output_tokens_retokenized",
            "random_range_ratio",
            "accept_length",
        )
    )


def _is_vllm(row: dict) -> bool:
    # Claimed by its identity keys, not by output_throughput, so a vLLM file that lacks a required
    # figure is rejected by this importer with the key named, not as an unknown format.
    return (
        isinstance(row, dict)
        and not _is_sglang(row)
        and (
            "request_goodput:" in row
            or (
                "model_id" in row
                and any(
                    k in row
                    for k in ("mean_ttft_ms", "median_ttft_ms", "completed", "output_throughput")
                )
            )
        )
    )


def sniff_vllm(src: Source) -> bool:
    rows = _rows(src)
    return bool(rows) and all(_is_vllm(r) for r in rows)


def sniff_sglang(src: Source) -> bool:
    rows = _rows(src)
    return bool(rows) and all(_is_sglang(r) for r in rows)


def _replicas(src: Source, row: dict, where: str) -> int:
    """How many serving replicas answered the benchmark (1 unless the file says more).

    With disaggregated prefill (``prefill_replicas`` > 0) replicas are not interchangeable, so
    the whole deployment stays one unit."""
    key = next((k for k in _REPLICA_KEYS if row.get(k) not in (None, "")), None)
    if key is None or (src.number(row, "prefill_replicas", where) or 0) > 0:
        return 1
    count = src.number(row, key, where)
    if count is None or count < 1 or count != int(count):
        raise src.fail(f"{where}{key}", f"expected a whole number of replicas, got {row[key]!r}")
    return int(count)


_LATENCY_KEY = r"(?:mean|median|std|p\d+(?:\.\d+)?)_(?:ttft|tpot|itl|e2el|e2e_latency)"
_LATENCY_MS = re.compile(_LATENCY_KEY + "_ms")
_LATENCY_S = re.compile(_LATENCY_KEY)


def latency_unit(src: Source, row: dict, where: str) -> str:
    """``"ms"`` for the ``*_ms`` keys vLLM and SGLang write, ``"s"`` for bare keys (see the
    module docstring); a row with both is refused rather than guessed."""
    with_ms = sorted(k for k in row if _LATENCY_MS.fullmatch(k))
    bare = sorted(k for k in row if _LATENCY_S.fullmatch(k))
    if with_ms and bare:
        raise src.fail(
            f"{where}{bare[0]}",
            f"the row has latencies with the _ms suffix ({with_ms[0]}) and without it"
            f" ({bare[0]}), so the unit of the bare ones cannot be told; import the tool's"
            " unmodified result file, whose latencies are all in one unit",
        )
    return "s" if bare else "ms"


def _percentiles(
    src: Source, row: dict, metric: str, where: str, unit: str
) -> dict[str, float | None]:
    suffix = "_ms" if unit == "ms" else ""
    out: dict[str, float | None] = {}
    for q in ("50", "90", "95", "99"):
        key = f"p{q}_{metric}{suffix}"
        value = src.number(row, key, where)
        if q == "50" and value is None:
            key = f"median_{metric}{suffix}"
            value = src.number(row, key, where)
        out[q] = src.ms(value, unit, f"{where}{key}")
    return out


def _runtime(src: Source, row: dict, where: str) -> str:
    found = first_present(row, "runtime", "engine", "framework")
    backend = str(row.get("backend") or "").lower()
    if not found:
        for name in KNOWN_RUNTIMES:
            if backend == name or backend.startswith(name + "-"):
                found = name
                break
    if not src.overrides.runtime and not found:
        raise src.fail(
            f"{where}backend",
            f"backend {backend or None!r} does not say which server runtime was "
            "measured; pass --runtime (e.g. vllm, sglang, tgi)",
        )
    return src.overrides.runtime or str(found)


# Long by design: the record fields vLLM's and SGLang's result rows share (hardware, replicas,
# model, precision, latencies), each with its own key variants and error; one mapping, one place.
def _common(src: Source, row: dict, where: str, tool: str, e2el_metric: str) -> dict:
    hw_name = first_present(row, *_HW_KEYS)
    accelerator = src.accelerator(hw_name, f"{where}{_HW_KEYS[0]}")
    replicas = _replicas(src, row, where)
    if replicas > 1 and src.found_count:
        # "gpu=4xNVIDIA_L40S decode_replicas=4": the count is the deployment's, not a replica's.
        if src.found_count % replicas:
            raise src.fail(
                f"{where}{_REPLICA_KEYS[0]}",
                f"{src.found_count} accelerators do not split evenly over {replicas} replicas;"
                " pass --accelerators-per-replica",
            )
        src.found_count //= replicas
    per_replica = src.per_replica(
        src.number(row, next((k for k in _COUNT_KEYS if k in row), "num_gpus"), where)
    )
    model = src.required_text(first_present(row, "model_id", "model"), "--model", "model")
    precision = src.required_text(first_present(row, *_PRECISION_KEYS), "--precision", "precision")
    precision = TORCH_DTYPES.get(str(precision).lower(), str(precision).lower())
    completed = src.number(row, "completed", where, required=True)
    failed = src.number(row, "failed", where)
    num_prompts = src.number(row, "num_prompts", where)
    if failed is None and num_prompts is not None:
        failed = max(0.0, num_prompts - completed)
    duration = src.number(row, "duration", where)
    tin = src.number(row, "total_input_tokens", where)
    tout = src.number(row, "total_output_tokens", where)
    out_tok_s = src.number(row, "output_throughput", where, required=True)
    if out_tok_s <= 0:
        raise src.fail(f"{where}output_throughput", f"must be positive, got {out_tok_s}")
    if completed <= 0:
        raise src.fail(
            f"{where}completed",
            f"no request completed ({failed or 0:g} failed); a run without a successful request"
            " measured no throughput",
        )
    if tout is not None and tout <= 0:
        raise src.fail(
            f"{where}total_output_tokens",
            f"is {tout:g} while output_throughput is {out_tok_s:g} tok/s; one of them is wrong",
        )
    notes = []
    if replicas > 1:
        # One endpoint in front of several replicas: the client measured their sum. A result is
        # one replica's operating point, so throughput and load are shared out in _finish
        # (latency is per request and stays as measured).
        notes.append(
            f"measured across {replicas} replicas behind one endpoint; throughput and offered"
            f" load divided by {replicas} (the file's figures are the deployment's)"
        )
    rate = src.number(row, "request_rate", where)
    max_conc = src.number(row, "max_concurrency", where)
    concurrency = max_conc if max_conc else None
    if row.get("ramp_up_strategy"):
        raise src.fail(
            f"{where}ramp_up_strategy",
            f"the request rate ramped ({row['ramp_up_strategy']}) from"
            f" {row.get('ramp_up_start_rps')} to {row.get('ramp_up_end_rps')} req/s during the"
            " run, so its figures mix many loads; a result is one operating point — import a"
            " run at a fixed --request-rate or --max-concurrency",
        )
    if row.get("dataset_name") == "timed_trace":
        # The trace's own timestamps set the arrivals; request_rate (inf by default) did not.
        rate = None
        notes.append("arrivals followed the timed trace's timestamps")
    request_rate = None if rate is None or math.isinf(rate) else rate
    if rate is not None and math.isinf(rate):
        notes.append(
            "request_rate=inf" + ("" if max_conc else " (burst: every prompt sent at once)")
        )
        if not max_conc and num_prompts:
            concurrency = num_prompts
    goodput = first_present(row, "request_goodput", "request_goodput:")
    if goodput is not None:
        notes.append(f"goodput {float(goodput):.3f} req/s")
    isl = round(tin / completed) if tin and completed else None
    osl = round(tout / completed) if tout and completed else None
    unit = latency_unit(src, row, where)
    if unit == "s":
        notes.append("latencies read as seconds (keys without _ms) and converted to ms")
    ttft = _percentiles(src, row, "ttft", where, unit)
    tpot = _percentiles(src, row, "tpot", where, unit)
    e2el = _percentiles(src, row, e2el_metric, where, unit)
    dataset = row.get("dataset_name") or "serving"
    return dict(
        accelerator_id=accelerator,
        accelerators_per_replica=per_replica,
        model=str(model),
        precision=str(precision),
        workload=f"{dataset}-isl{isl}-osl{osl}" if isl and osl else str(dataset),
        input_tokens=isl or None,
        output_tokens=osl or None,
        concurrency=concurrency,
        request_rate_rps=request_rate,
        output_tok_s=out_tok_s,
        replicas=replicas,
        duration=duration,
        tin=tin,
        tout=tout,
        ttft_ms_p50=ttft["50"],
        ttft_ms_p90=ttft["90"],
        ttft_ms_p95=ttft["95"],
        ttft_ms_p99=ttft["99"],
        tpot_ms_p50=tpot["50"],
        tpot_ms_p95=tpot["95"],
        tpot_ms_p99=tpot["99"],
        e2el_ms_p50=e2el["50"],
        e2el_ms_p95=e2el["95"],
        requests_ok=int(completed),
        requests_failed=None if failed is None else int(failed),
        source_tool=tool,
        notes="; ".join(notes),
    )


def _date(row: dict) -> datetime | None:
    start = row.get("benchmark_start_time_unix")
    if isinstance(start, int | float):
        return datetime.fromtimestamp(start, UTC)
    date = row.get("date")
    if isinstance(date, str):
        try:
            return datetime.strptime(date, "%Y%m%d-%H%M%S").replace(tzinfo=UTC)
        except ValueError:
            return None
    return None


def _finish(src: Source, fields: dict, row: dict, where: str) -> BenchmarkResult:
    duration, tin, tout = fields.pop("duration"), fields.pop("tin"), fields.pop("tout")
    total = src.number(row, "total_token_throughput", where) or src.number(
        row, "total_throughput", where
    )
    if total is None and src.number(row, "input_throughput", where) is not None:
        total = src.number(row, "input_throughput", where) + fields["output_tok_s"]
    if total is None and duration and tin is not None and tout is not None:
        total = (tin + tout) / duration
    replicas = fields.pop("replicas")
    fields["output_tok_s"] /= replicas
    fields["total_tok_s"] = None if total is None else total / replicas
    for load in ("request_rate_rps", "concurrency"):
        if fields[load] is not None:
            fields[load] /= replicas
    return src.result(
        measured_at=src.when(_date(row)),
        runtime=_runtime(src, row, where),
        runtime_version=str(first_present(row, "runtime_version", "vllm_version", "version") or ""),
        **fields,
    )


def parse_vllm(src: Source) -> list[BenchmarkResult]:
    rows = _rows(src)
    out = []
    for i, row in enumerate(rows):
        where = f"line {i + 1}: " if src.kind == "jsonl" else ""
        fields = _common(
            src,
            row,
            where,
            "vllm-bench-serve" if "endpoint_type" in row else "vllm-benchmark-serving",
            "e2el",
        )
        out.append(_finish(src, fields, row, where))
    return out


def parse_sglang(src: Source) -> list[BenchmarkResult]:
    rows = _rows(src)
    out = []
    for i, row in enumerate(rows):
        where = f"line {i + 1}: " if src.kind == "jsonl" else ""
        fields = _common(src, row, where, "sglang-bench-serving", "e2e_latency")
        out.append(_finish(src, fields, row, where))
    return out


IMPORTERS = [
    Importer(
        "vllm",
        "vllm-bench-serve",
        "vLLM benchmark_serving.py / `vllm bench serve` JSON or JSONL",
        sniff_vllm,
        parse_vllm,
    ),
    Importer(
        "sglang",
        "sglang-bench-serving",
        "SGLang `python -m sglang.bench_serving` JSONL",
        sniff_sglang,
        parse_sglang,
    ),
]
