"""NVIDIA genai-perf (``profile_export_genai_perf.json|csv``) and AIPerf
(``profile_export_aiperf.json|csv``) summaries.

Both write one object per metric, ``{"unit": "ms", "avg", "p50", "p90", "p95", "p99", ...}``;
the unit is read from the file and converted (genai-perf/AIPerf summaries are ms, their raw data
ns). Their ``inter_token_latency`` is (E2EL − TTFT)/(OSL − 1), i.e. vLLM's TPOT, so it maps onto
``tpot_ms_*``; AIPerf's ``inter_chunk_latency`` is vLLM's ITL and is not a TPOT. Total
(input+output) throughput is AIPerf 0.13's ``total_token_throughput``; for older files it is
derived from ``total_isl``/``total_osl``/``benchmark_duration`` when present. The CSVs carry
the same figures with the unit in the row name (``Time To First Token (ms)``) and no run
configuration, so model, concurrency and hardware come from flags (a concurrency in the
artifact directory name such as ``-concurrency16`` is used). The load is read where each version
keeps it (AIPerf 0.8: ``input_config.loadgen``; 0.13: ``input_config.phases[]``; genai-perf:
``perf_analyzer.stimulus``), and the token-count basis as the configuration states it
(``endpoint.use_server_token_count``); a CSV states neither, and its records say so.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

from benchmarks.importers.base import Importer, Source, find_key
from tokendesk.metrics import PERCENTILES
from tokendesk.records import BenchmarkResult
from tokendesk.units import UnitError, to_tok_s

_AIPERF_ONLY = (
    "was_cancelled",
    "error_summary",
    "benchmark_duration",
    "inter_chunk_latency",
    "total_osl",
    "error_request_count",
    "good_request_count",
)
_RUNTIME_ALIASES = {
    "tensorrtllm": "trt-llm",
    "trtllm": "trt-llm",
    "vllm": "vllm",
    "sglang": "sglang",
    "tgi": "tgi",
    "dynamo": "dynamo",
}

# CSV row names (lower case, unit removed) -> JSON metric keys
_CSV_NAMES = {
    "time to first token": "time_to_first_token",
    "time to second token": "time_to_second_token",
    "inter token latency": "inter_token_latency",
    "inter chunk latency": "inter_chunk_latency",
    "request latency": "request_latency",
    "output sequence length": "output_sequence_length",
    "input sequence length": "input_sequence_length",
    "output token throughput": "output_token_throughput",
    "output token throughput per user": "output_token_throughput_per_user",
    "request throughput": "request_throughput",
    "request count": "request_count",
    "error request count": "error_request_count",
    "benchmark duration": "benchmark_duration",
    "total input sequence length": "total_isl",
    "total output sequence length": "total_osl",
    "total token throughput": "total_token_throughput",
}


def _is_summary_json(src: Source) -> bool:
    data = src.data
    return (
        src.kind == "json"
        and isinstance(data, dict)
        and isinstance(data.get("time_to_first_token"), dict)
        and "unit" in data["time_to_first_token"]
    ) or (
        src.kind == "json"
        and isinstance(data, dict)
        and isinstance(data.get("output_token_throughput"), dict)
        and "unit" in data["output_token_throughput"]
    )


def sniff_genai_perf_json(src: Source) -> bool:
    return _is_summary_json(src) and not any(k in src.data for k in _AIPERF_ONLY)


def sniff_aiperf_json(src: Source) -> bool:
    return _is_summary_json(src) and any(k in src.data for k in _AIPERF_ONLY)


def _csv_metrics(src: Source) -> tuple[dict[str, dict], list[str]]:
    metrics: dict[str, dict] = {}
    header: list[str] = []
    first_header: list[str] = []
    for row in src.data:
        if not row or not any(cell.strip() for cell in row):
            header = []
            continue
        if row[0].strip() == "Metric":
            header = [c.strip() for c in row]
            first_header = first_header or header
            continue
        if not header:
            continue
        name = row[0].strip()
        match = re.match(r"^(.*?)\s*\(([^)]*)\)\s*$", name)
        base, unit = (match.group(1), match.group(2)) if match else (name, "")
        key = _CSV_NAMES.get(base.strip().lower())
        if key is None:
            continue  # telemetry and other blocks
        entry: dict = {"unit": unit}
        if len(row) > len(header):
            raise src.fail(
                f"row {name!r}",
                f"has {len(row)} values but the header has {len(header)} columns; the values "
                "cannot be matched to their columns (was the file edited or concatenated?)",
            )
        for col, cell in zip(header[1:], row[1:], strict=False):
            cell = cell.strip().replace(",", "")
            if cell in ("", "N/A"):
                continue
            try:
                entry["avg" if col == "Value" else col] = float(cell)
            except ValueError:
                continue
        metrics[key] = entry
    return metrics, first_header


def _is_csv(src: Source) -> bool:
    return (
        src.kind == "csv"
        and bool(src.data)
        and src.data[0]
        and src.data[0][0].strip() == "Metric"
        and any(
            r
            and r[0]
            .lower()
            .startswith(("time to first token", "output token throughput", "request latency"))
            for r in src.data
        )
    )


def sniff_genai_perf_csv(src: Source) -> bool:
    return _is_csv(src) and [c.strip() for c in src.data[0][1:5]] == ["avg", "min", "max", "p99"]


def sniff_aiperf_csv(src: Source) -> bool:
    # AIPerf 0.1 wrote avg,min,max,p1,...; 0.13 puts a "sum" column before p1.
    header = [c.strip() for c in src.data[0][1:]] if _is_csv(src) else []
    return header[:3] == ["avg", "min", "max"] and "p1" in header


def _stat(src: Source, metrics: dict, key: str, stat: str) -> float | None:
    entry = metrics.get(key)
    if not isinstance(entry, dict):
        return None
    return src.number(entry, stat, f"{key}.")


def _latency(src: Source, metrics: dict, key: str) -> dict[str, float | None]:
    entry = metrics.get(key)
    if not isinstance(entry, dict):
        return {}
    unit = entry.get("unit")
    return {q: src.ms(_stat(src, metrics, key, q), unit, f"{key}.unit") for q in PERCENTILES}


def _load_setting(config: dict, key: str) -> float | None:
    """The number the run was driven at (``concurrency``, ``request_rate``).

    genai-perf 0.0.16 keeps it under ``perf_analyzer.stimulus`` and also writes an ``analyze``
    section whose sweep bounds (``{"min": 1, "max": 1024}``) carry the same key names; older
    genai-perf writes it at the top of ``input_config``, AIPerf under ``phases[]``. Only a plain
    number counts, so a sweep range is never read as the measured load."""
    stimulus = (config.get("perf_analyzer") or {}).get("stimulus")
    # AIPerf before 0.13 keeps the load settings under input_config.loadgen.
    loadgen = config.get("loadgen")
    for place in (stimulus, loadgen, config, *(config.get("phases") or [])):
        value = place.get(key) if isinstance(place, dict) else None
        if isinstance(value, int | float) and not isinstance(value, bool):
            return float(value)
    return None


def _measured_runtime(config: dict) -> str | None:
    """The server runtime the file names, if it names one.

    genai-perf's ``backend`` (default ``tensorrtllm``) only means something for the Triton
    service kind; against an OpenAI-compatible endpoint it is written but ignored, so it says
    nothing about the server that was measured."""
    endpoint = config.get("endpoint")
    if not isinstance(endpoint, dict):
        endpoint = {}
    service_kind = config.get("service_kind") or endpoint.get("service_kind")
    backend = config.get("backend") or endpoint.get("backend")
    if str(service_kind or "").lower() != "triton":
        return None
    return _RUNTIME_ALIASES.get(str(backend or "").lower())


def _token_basis(config: dict) -> str:
    """How the file's token counts were made, as its configuration states it (a CSV carries no
    configuration, so it does not say)."""
    if not config:
        return (
            "token-count basis not stated in the file (client-side re-tokenising unless the run "
            "used --use-server-token-count; its JSON export says which)"
        )
    endpoint = config.get("endpoint")
    if isinstance(endpoint, dict) and endpoint.get("use_server_token_count") is True:
        return "tokens as the server reported them (usage), not re-tokenised"
    return "tokens counted client-side by re-tokenising the text"


def _refuse_unfinished(src: Source) -> None:
    """A cancelled or incomplete AIPerf run measured part of what it set out to."""
    data = src.data if isinstance(src.data, dict) else {}
    if data.get("was_cancelled") is True:
        raise src.fail(
            "was_cancelled",
            "the run was cancelled before it finished, so its figures cover part of it; "
            "import a run that completed",
        )
    if data.get("is_complete") is False:
        raise src.fail(
            "is_complete",
            "the run did not complete, so its figures cover part of it; import a run that "
            "completed",
        )


def _build(src: Source, metrics: dict, config: dict, tool: str) -> list[BenchmarkResult]:
    _refuse_unfinished(src)
    out_entry = metrics.get("output_token_throughput")
    if not isinstance(out_entry, dict):
        raise src.fail("output_token_throughput", "required metric is missing")
    out_value = src.number(out_entry, "avg", "output_token_throughput.", required=True)
    unit = str(out_entry.get("unit", "")).replace("tokens/sec/user", "")
    try:
        out_tok_s = to_tok_s(out_value, unit or None)
    except UnitError as exc:
        raise src.fail("output_token_throughput.unit", str(exc)) from exc
    ttft = _latency(src, metrics, "time_to_first_token")
    tpot = _latency(src, metrics, "inter_token_latency")
    e2el = _latency(src, metrics, "request_latency")
    isl = _stat(src, metrics, "input_sequence_length", "avg")
    osl = _stat(src, metrics, "output_sequence_length", "avg")
    total = _stat(src, metrics, "total_token_throughput", "avg")  # AIPerf 0.13 writes it
    t_isl, t_osl = _stat(src, metrics, "total_isl", "avg"), _stat(src, metrics, "total_osl", "avg")
    duration = metrics.get("benchmark_duration")
    if total is None and t_isl is not None and t_osl is not None and isinstance(duration, dict):
        seconds = src.ms(
            src.number(duration, "avg", "benchmark_duration."),
            duration.get("unit"),
            "benchmark_duration.unit",
        )
        if seconds:
            total = (t_isl + t_osl) / (seconds / 1000.0)
    model = find_key(config, "model_names", "model", "model_name")
    if model is None:  # AIPerf 0.13: input_config.models.items[].name
        items = find_key(config, "models")
        items = items.get("items") if isinstance(items, dict) else items
        model = [i.get("name") if isinstance(i, dict) else i for i in items or []]
    if isinstance(model, list):
        model = model[0] if model else None
    concurrency = _load_setting(config, "concurrency")
    rate = _load_setting(config, "request_rate")
    if concurrency is None:
        match = re.search(r"concurrency[-_]?(\d+)", src.name)
        concurrency = int(match.group(1)) if match else None
    runtime = src.overrides.runtime or _measured_runtime(config)
    if not runtime:
        raise src.fail(
            "input_config.backend",
            "the file does not say which server runtime was measured (it measured an "
            "OpenAI-compatible endpoint); pass --runtime",
        )
    ok = _stat(src, metrics, "request_count", "avg")
    failed = _stat(src, metrics, "error_request_count", "avg")
    measured = None
    start = src.data.get("start_time") if isinstance(src.data, dict) else None
    if isinstance(start, str):
        try:
            measured = datetime.fromisoformat(start.replace("Z", "+00:00"))
        except ValueError:
            measured = None
    elif isinstance(start, int | float):
        measured = datetime.fromtimestamp(start / 1e9 if start > 1e12 else start, UTC)
    return [
        src.result(
            accelerator_id=src.accelerator(None, "accelerator"),
            accelerators_per_replica=src.per_replica(None),
            runtime=runtime,
            model=src.required_text(model, "--model", "model"),
            precision=src.required_text(None, "--precision", "precision"),
            workload=f"isl{round(isl)}-osl{round(osl)}" if isl and osl else "genai-perf",
            input_tokens=round(isl) if isl else None,
            output_tokens=round(osl) if osl else None,
            concurrency=float(concurrency)
            if isinstance(concurrency, int | float) and concurrency > 0
            else None,
            request_rate_rps=float(rate) if isinstance(rate, int | float) and rate > 0 else None,
            output_tok_s=out_tok_s,
            total_tok_s=total,
            ttft_ms_p50=ttft.get("p50"),
            ttft_ms_p90=ttft.get("p90"),
            ttft_ms_p95=ttft.get("p95"),
            ttft_ms_p99=ttft.get("p99"),
            tpot_ms_p50=tpot.get("p50"),
            tpot_ms_p95=tpot.get("p95"),
            tpot_ms_p99=tpot.get("p99"),
            e2el_ms_p50=e2el.get("p50"),
            e2el_ms_p95=e2el.get("p95"),
            requests_ok=int(ok) if ok is not None else None,
            requests_failed=int(failed) if failed is not None else None,
            measured_at=src.when(measured),
            source_tool=tool,
            notes=_token_basis(config),
        )
    ]


def parse_json(tool: str):
    def parse(src: Source) -> list[BenchmarkResult]:
        return _build(src, src.data, src.data.get("input_config") or {}, tool)

    return parse


def parse_csv(tool: str):
    def parse(src: Source) -> list[BenchmarkResult]:
        metrics, _ = _csv_metrics(src)
        return _build(src, metrics, {}, tool)

    return parse


IMPORTERS = [
    Importer(
        "genai-perf-json",
        "genai-perf",
        "genai-perf profile_export_genai_perf.json",
        sniff_genai_perf_json,
        parse_json("genai-perf"),
    ),
    Importer(
        "genai-perf-csv",
        "genai-perf",
        "genai-perf profile_export_genai_perf.csv",
        sniff_genai_perf_csv,
        parse_csv("genai-perf"),
    ),
    Importer(
        "aiperf-json",
        "aiperf",
        "AIPerf profile_export_aiperf.json",
        sniff_aiperf_json,
        parse_json("aiperf"),
    ),
    Importer(
        "aiperf-csv",
        "aiperf",
        "AIPerf profile_export_aiperf.csv",
        sniff_aiperf_csv,
        parse_csv("aiperf"),
    ),
]
