"""TensorRT-LLM ``trtllm-bench ... throughput`` reports: the text it prints when a run ends, as a
saved console log or a pasted report.

The report is a run of sections, each a ``= NAME`` line between two ``=====`` rules:
``ENGINE DETAILS`` or ``PYTORCH BACKEND`` (model, TensorRT-LLM version, dtype, quantization),
``MACHINE DETAILS`` (the GPU, in newer versions), ``REQUEST DETAILS``, ``WORLD + RUNTIME
INFORMATION`` (TP/PP/EP sizes, issue rate), ``PERFORMANCE OVERVIEW`` and ``DATASET DETAILS``.
Lines are ``Label:  value``; a streaming run (``--streaming``) adds per-request breakdowns as
``[TTFT] P50    : 159.7857`` lines. Units are in the labels: latencies in ms, throughputs in
tokens or requests per second (``tensorrt_llm/bench/dataclasses/reporting.py``).

The benchmark issues every request at once (the issue rate is effectively infinite), so a result is
an offline throughput point: no controlled concurrency or request rate is stated, and the measured
average concurrency goes to the notes. Throughput counts every output token including the first;
``[TPOT]`` is (end − first token) / (output tokens − 1) per request, the TPOT the record keeps
(``tensorrt_llm/bench/dataclasses/statistics.py``). Version 0.17 printed the output throughput as
``Token Throughput (tokens/sec)``: its own figures show it (requests × average output length /
total latency).
"""

from __future__ import annotations

import re
from datetime import datetime

from benchmarks.importers.base import Importer, Source
from benchmarks.importers.serving import TORCH_DTYPES
from tokendesk.records import BenchmarkResult

_RULE = re.compile(r"^\s*={20,}\s*$")
_SECTION = re.compile(r"^\s*=\s+(?P<name>\S.*?)\s*$")
_PAIR = re.compile(r"^\s*(?P<label>[^\s\[:\-][^:]*?)\s*:\s*(?P<value>\S.*?)\s*$")
_STAT = re.compile(r"^\s*\[(?P<family>\w+)\]\s*(?P<stat>\w+)\s*:\s*(?P<value>\S+)\s*$")
#: "[01/18/2025-01:01:42] [TRT-LLM] [I] Benchmark complete." (the local clock; no zone)
_DONE = re.compile(r"^\[(\d\d/\d\d/\d{4}-\d\d:\d\d:\d\d)\] \[TRT-LLM\] \[I\] Benchmark complete\.")
_OVERVIEW = "PERFORMANCE OVERVIEW"
#: The output-throughput label of each report version, newest first.
_OUTPUT_TPUT = ("Total Output Throughput (tokens/sec)", "Token Throughput (tokens/sec)")
_STAT_FIELDS = {
    "TTFT": {
        "P50": "ttft_ms_p50",
        "P90": "ttft_ms_p90",
        "P95": "ttft_ms_p95",
        "P99": "ttft_ms_p99",
    },
    "TPOT": {"P50": "tpot_ms_p50", "P95": "tpot_ms_p95", "P99": "tpot_ms_p99"},
    "Latency": {"P50": "e2el_ms_p50", "P95": "e2el_ms_p95"},
}


def _sections(text: str) -> list[tuple[str, list[str], int]]:
    """(section name, its lines, line number of its name) in file order. A section's body runs
    from the rule under its name to the next rule; log lines outside sections are not read."""
    lines = text.splitlines()
    out: list[tuple[str, list[str], int]] = []
    i = 0
    while i < len(lines):
        named = _SECTION.match(lines[i]) if i > 0 and _RULE.match(lines[i - 1]) else None
        if named and i + 1 < len(lines) and _RULE.match(lines[i + 1]):
            body = []
            j = i + 2
            while j < len(lines) and not _RULE.match(lines[j]):
                body.append(lines[j])
                j += 1
            out.append((named["name"].upper(), body, i + 1))
            i = j
            continue
        i += 1
    return out


def report_fields(text: str) -> list[str]:
    """Every label a report carries, ``[TTFT] P50`` style for the breakdown lines (the ledger's
    fields)."""
    names: list[str] = []
    for _, body, _ in _sections(text):
        for line in body:
            stat = _STAT.match(line)
            pair = None if stat else _PAIR.match(line)
            if stat:
                names.append(f"[{stat['family']}] {stat['stat']}")
            elif pair:
                names.append(pair["label"])
    return list(dict.fromkeys(names))


def sniff(src: Source) -> bool:
    if src.kind != "text":
        return False
    sections = [name for name, _, _ in _sections(src.text)]
    return _OVERVIEW in sections


def _reports(src: Source) -> list[tuple[dict[str, str], dict[str, float], int]]:
    """One (labels, breakdown figures, line of its overview) per report; a section name seen
    again starts the next report (a log that saved several runs)."""
    reports: list[tuple[dict[str, str], dict[str, float], int]] = []
    seen: set[str] = set()
    labels: dict[str, str] = {}
    stats: dict[str, float] = {}
    overview_line = 0
    for name, body, line_no in _sections(src.text):
        if name in seen:
            reports.append((labels, stats, overview_line))
            seen, labels, stats, overview_line = set(), {}, {}, 0
        seen.add(name)
        if name == _OVERVIEW:
            overview_line = line_no
        if name.startswith("DATASET DETAILS"):
            continue  # length statistics of the dataset, not of the run
        for offset, line in enumerate(body, start=line_no + 2):
            stat = _STAT.match(line)
            if stat:
                key = f"[{stat['family']}] {stat['stat']}"
                stats[key] = src.number(
                    {key: stat["value"]}, key, f"line {offset}: ", required=True
                )
                continue
            pair = _PAIR.match(line)
            if pair:
                labels.setdefault(pair["label"], pair["value"])
    reports.append((labels, stats, overview_line))
    return [r for r in reports if r[2]]


def _value(src: Source, labels: dict[str, str], label: str, where: str) -> float | None:
    text = labels.get(label)
    if text is None:
        return None
    return src.number({label: text.rstrip("%")}, label, where)


def _precision(src: Source, labels: dict[str, str], where: str) -> str:
    quant = str(labels.get("Quantization") or "").strip()
    if quant and quant.lower() not in ("none", "null", "n/a"):
        return quant.lower()
    dtype = str(labels.get("Dtype") or "").strip().lower()
    found = TORCH_DTYPES.get(dtype, dtype) if dtype not in ("", "none", "auto") else None
    return src.required_text(found, "--precision", f"precision ({where}Quantization / Dtype)")


def _measured_at(text: str) -> datetime | None:
    finished = [m.group(1) for m in map(_DONE.match, text.splitlines()) if m]
    return datetime.strptime(finished[-1], "%m/%d/%Y-%H:%M:%S") if finished else None


def _accelerator(src: Source, labels: dict[str, str], machine: str | None) -> str:
    """MACHINE DETAILS prints ``NVIDIA B200, memory 179.06 GB, 4.00 TB/s``; older reports name
    no GPU, and ``--accelerator`` is needed."""
    if machine and not machine.lower().startswith("no gpu info"):
        name, _, rest = machine.partition(",")
        memory = re.search(r"memory\s+([\d.]+)\s*GB", rest)
        return src.accelerator(
            name.strip(), "MACHINE DETAILS", float(memory[1]) if memory else None
        )
    return src.accelerator(None, "MACHINE DETAILS")


def _machine_line(text: str) -> str | None:
    for name, body, _ in _sections(text):
        if name == "MACHINE DETAILS":
            return next((ln.strip() for ln in body if ln.strip()), None)
    return None


def _result(
    src: Source, labels: dict[str, str], stats: dict[str, float], line: int, many: bool
) -> BenchmarkResult:
    where = f"report at line {line}: " if many else ""
    label = next((k for k in _OUTPUT_TPUT if k in labels), _OUTPUT_TPUT[0])
    out_tok_s = _value(src, labels, label, where)
    if out_tok_s is None or out_tok_s <= 0:
        raise src.fail(
            f"{where}{label}",
            "the report has no positive output throughput; import the report the run printed"
            " when it finished",
        )
    requests = _value(src, labels, "Number of requests", where)
    isl = _value(src, labels, "Average Input Length (tokens)", where)
    osl = _value(src, labels, "Average Output Length (tokens)", where)
    tp = _value(src, labels, "TP Size", where) or 1
    pp = _value(src, labels, "PP Size", where) or 1
    notes = [
        "trtllm-bench throughput: every request issued at once (offline); the report states no"
        " concurrency cap"
    ]
    concurrent = labels.get("Number of concurrent requests")
    if concurrent:
        notes.append(f"{concurrent} requests in flight on average")
    if not any(k.startswith("[TTFT]") for k in stats):
        notes.append("no TTFT: the run did not stream (--streaming)")
    finished = _measured_at(src.text)
    if finished and not src.overrides.measured_at:
        notes.append("measured_at from the log's 'Benchmark complete.' line (local clock)")
    fields: dict = {
        key: stats.get(f"[{family}] {stat}")
        for family, by_stat in _STAT_FIELDS.items()
        for stat, key in by_stat.items()
    }
    return src.result(
        accelerator_id=_accelerator(src, labels, _machine_line(src.text)),
        accelerators_per_replica=src.per_replica(tp * pp),
        runtime=src.overrides.runtime or "trt-llm",
        runtime_version=str(
            labels.get("TensorRT-LLM Version") or labels.get("TensorRT LLM Version") or ""
        ),
        model=src.required_text(labels.get("Model"), "--model", "model"),
        precision=src.overrides.precision or _precision(src, labels, where),
        workload=f"isl{round(isl)}-osl{round(osl)}" if isl and osl else "trtllm-bench",
        input_tokens=round(isl) if isl else None,
        output_tokens=round(osl) if osl else None,
        scenario="offline",
        output_tok_s=out_tok_s,
        total_tok_s=_value(src, labels, "Total Token Throughput (tokens/sec)", where),
        requests_ok=int(requests) if requests is not None else None,
        measured_at=src.when(finished),
        source_tool="trtllm-bench",
        notes="; ".join(notes),
        **fields,
    )


def parse(src: Source) -> list[BenchmarkResult]:
    reports = _reports(src)
    return [_result(src, labels, stats, line, len(reports) > 1) for labels, stats, line in reports]


IMPORTERS = [
    Importer(
        "trtllm-bench",
        "trtllm-bench",
        "TensorRT-LLM `trtllm-bench throughput` report (console text)",
        sniff,
        parse,
    )
]
