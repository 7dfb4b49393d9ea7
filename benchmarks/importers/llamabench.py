"""llama.cpp ``llama-bench`` output (``-o json``, ``jsonl`` or ``csv``; same fields in each), and
the ``-o md`` tables it prints by default: one pasted run, or a log of several runs (one table
each, with their log lines between).

Every record is one test: ``pp`` (prompt processing, ``n_gen == 0``; ``avg_ts`` = prefill tok/s),
``tg`` (generation, ``n_prompt == 0``; ``avg_ts`` = single-stream decode tok/s) or a combined
``pg`` test. There is no TTFT in llama-bench, so one result is made per (pp, tg) pair of the same
configuration:

* ``output_tok_s`` = tg ``avg_ts``; ``tpot_ms`` = 1000 / tg ``avg_ts``; concurrency 1;
* ``ttft_ms`` = 1000 × pp ``n_prompt`` / pp ``avg_ts``, with ``ttft_basis`` saying it is derived
  from prefill speed (it omits tokenisation, sampling and HTTP, so it is a lower bound).

Fields are read by name (the schema varies across builds). Precision comes from ``model_type``
(``"qwen2 7B Q4_K - Medium"`` -> ``q4_k_m``); the device from ``backends``/``gpu_info``/``cpu_info``.
"""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import PurePath
from typing import Any

from benchmarks.importers.base import Importer, Source
from tokendesk.records import BenchmarkResult

_TEST_FIELDS = {
    "n_prompt",
    "n_gen",
    "n_depth",
    "test_time",
    "avg_ns",
    "stddev_ns",
    "avg_ts",
    "stddev_ts",
    "samples_ns",
    "samples_ts",
}
_REQUIRED = ("model_type", "n_prompt", "n_gen", "avg_ts")


#: Markdown column headers (``-o md``, the default printer) -> JSON field names.
_MD_COLUMNS = {
    "model": "model_type",
    "backend": "backends",
    "ngl": "n_gpu_layers",
    "threads": "n_threads",
    "n_batch": "n_batch",
    "n_ubatch": "n_ubatch",
    "type_k": "type_k",
    "type_v": "type_v",
    "fa": "flash_attn",
    "mmap": "use_mmap",
    "sm": "split_mode",
    "dev": "devices",
}
#: "pp 512" (older builds), "pp512", "tg128 @ d512", "pp512+tg128"
_MD_TEST = re.compile(r"^(pp|tg|pg)\s*(\d+)(?:\s*\+\s*tg\s*(\d+))?(?:\s*@\s*d\s*(\d+))?$")
_MD_TS = re.compile(r"^([\d.]+)(?:\s*±\s*([\d.]+))?$")


#: Log lines llama-bench prints to stderr around its table (kept when a run is saved with 2>&1):
#: "  Device 0: NVIDIA A30, compute capability 8.0, VMM: yes" and "build: 8c32d9d96 (7199)".
_MD_DEVICE = re.compile(r"^\s*Device \d+: (?P<name>.+?), compute capability\b")
_MD_BUILD = re.compile(r"^build: (?P<commit>[0-9a-f]+|unknown) \((?P<number>\d+)\)\s*$")


def _markdown_context(text: str) -> dict[str, Any]:
    """What the log lines around a table state: the GPUs the CUDA backend found and the build."""
    devices = [m["name"] for m in map(_MD_DEVICE.match, text.splitlines()) if m]
    builds = [m for m in map(_MD_BUILD.match, text.splitlines()) if m]
    context: dict[str, Any] = {}
    if devices:
        context["gpu_info"] = ", ".join(devices)
    if builds and builds[0]["number"] != "0":
        context["build_number"] = builds[0]["number"]
        context["build_commit"] = "" if builds[0]["commit"] == "unknown" else builds[0]["commit"]
    return context


def _is_table_line(line: str) -> bool:
    return line.strip().startswith("|")


def _is_header(line: str) -> bool:
    return bool(re.search(r"\|\s*test\s*\|(?:.*\|)?\s*t/s\s*\|", line))


def _table_lines(text: str) -> list[str]:
    return [ln.strip() for ln in text.splitlines() if _is_table_line(ln)]


def _tables(text: str) -> list[tuple[int, int, int]]:
    """Where each ``-o md`` table sits: (header line, line after its last row, line the next
    table's header starts at), as 0-based line indexes. A log that saved several llama-bench runs
    (a wrapper looping over models or builds) holds one table per run, each with its own header;
    lines that are not table rows may sit inside a table (a backend's warning printed between two
    rows), so a table runs from its header to the next header or the end."""
    lines = text.splitlines()
    headers = [i for i, ln in enumerate(lines) if _is_table_line(ln) and _is_header(ln)]
    out = []
    for n, start in enumerate(headers):
        stop = headers[n + 1] if n + 1 < len(headers) else len(lines)
        rows = [i for i in range(start, stop) if _is_table_line(lines[i])]
        out.append((start, rows[-1] + 1, stop))
    return out


def _markdown_context_of(lines: list[str], start: int, end: int, before: int) -> dict[str, Any]:
    """The device lines a run printed above its table (since the previous table) and the build
    line it printed below (before the next table starts)."""
    context = _markdown_context("\n".join(lines[before:start]))
    build = _markdown_context("\n".join(lines[end:]))
    context.pop("build_number", None)
    context.pop("build_commit", None)
    context.update({k: v for k, v in build.items() if k.startswith("build_")})
    return context


def _markdown_records(src: Source) -> list[dict]:
    """Rows of every pasted ``llama-bench -o md`` table as JSON-schema records (log lines around
    and between the tables are allowed; each table's own device and build lines are read)."""
    lines = src.text.splitlines()
    tables = _tables(src.text)
    out: list[dict] = []
    previous_end = 0
    for number, (start, end, stop) in enumerate(tables, start=1):
        context = _markdown_context_of(lines[:stop], start, end, previous_end)
        previous_end = end
        where = f"table {number}, " if len(tables) > 1 else ""
        out += _table_records(src, lines, start, end, context, where, number)
    return out


def _table_records(
    src: Source,
    lines: list[str],
    start: int,
    end: int,
    context: dict[str, Any],
    where: str,
    number: int,
) -> list[dict]:
    table = [(i, lines[i].strip()) for i in range(start, end) if _is_table_line(lines[i])]
    if len(table) < 3 or not re.match(r"^\|[\s:|-]+\|$", table[1][1]):
        raise src.fail(
            f"{where}line {start + 1}",
            "a llama-bench table header without its |---| separator and rows; the table was"
            " cut short",
        )
    header = [c.strip() for c in table[0][1].strip("|").split("|")]
    out = []
    for line_no, line in table[2:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) != len(header):
            raise src.fail(
                f"{where}line {line_no + 1}",
                f"has {len(cells)} cells but the header has {len(header)} columns",
            )
        row = dict(zip(header, cells, strict=True))
        test = _MD_TEST.match(row["test"])
        speed = _MD_TS.match(row["t/s"])
        if not test or not speed:
            raise src.fail(
                f"{where}line {line_no + 1}",
                f"test {row['test']!r} / t/s {row['t/s']!r} not understood",
            )
        kind, first, gen, depth = test.groups()
        rec: dict[str, Any] = dict(context)
        rec.update({_MD_COLUMNS[k]: v for k, v in row.items() if k in _MD_COLUMNS})
        rec.update(
            n_prompt=int(first) if kind in ("pp", "pg") else 0,
            n_gen=int(first) if kind == "tg" else int(gen or 0),
            n_depth=int(depth or 0),
            avg_ts=float(speed.group(1)),
            stddev_ts=float(speed.group(2) or 0),
            # Tests pair only within the run that printed them (see parse's configuration key).
            md_table=number,
        )
        out.append(rec)
    return out


def _records(src: Source) -> list[dict]:
    if src.kind == "json" and isinstance(src.data, list):
        return src.data
    if src.kind == "jsonl":
        return src.data
    if src.kind == "csv" and src.data:
        header = src.data[0]
        for row_no, row in enumerate(src.data[1:], start=2):
            if row and len(row) != len(header):
                # One value too many shifts every later column: reject, never guess.
                raise src.fail(
                    f"row {row_no}",
                    f"has {len(row)} values but the header has {len(header)} columns; the "
                    "values cannot be matched to their columns",
                )
        return [dict(zip(header, row, strict=True)) for row in src.data[1:] if row]
    if src.kind == "text":
        return _markdown_records(src)
    return []


def sniff(src: Source) -> bool:
    if src.kind == "text":
        # The table's header row, wherever it sits: a run saved with 2>&1 has the backend's log
        # lines ("ggml_cuda_init: …") above it.
        lines = _table_lines(src.text)
        return bool(lines) and _is_header(lines[0])
    if src.kind == "csv":  # the header says whose file it is; a bad row is parse's to report
        return bool(src.data) and all(k in src.data[0] for k in ("avg_ts", "n_prompt", "n_gen"))
    rows = _records(src)
    return (
        bool(rows)
        and isinstance(rows[0], dict)
        and all(k in rows[0] for k in ("avg_ts", "n_prompt", "n_gen"))
    )


def precision_of(model_type: str) -> str:
    """``"llama 7B Q4_K - Medium"`` -> ``q4_k_m``; ``"... F16"`` -> ``f16``."""
    match = re.search(r"\b\d+(?:\.\d+)?[BMK]\b\s+(.+)$|\?B\s+(.+)$", model_type)
    quant = (match.group(1) or match.group(2)) if match else model_type.split()[-1]
    # "mostly Q4_0" (older GGML builds), "all F32" (every tensor in one type)
    quant = re.sub(r"^(?:mostly|all)\s+", "", quant.strip(), flags=re.IGNORECASE)
    size = {"medium": "m", "small": "s", "large": "l", "extra small": "xs"}
    parts = [p.strip() for p in quant.split(" - ")]
    if len(parts) == 2 and parts[1].lower() in size:
        quant = f"{parts[0]}_{size[parts[1].lower()]}"
    return re.sub(r"[^a-z0-9_.-]+", "_", quant.lower()).strip("_") or "unknown"


def model_of_type(model_type: str) -> str | None:
    """``"llama 7B mostly Q4_0"`` -> ``llama-7b``: the architecture and size, the only model name
    a table without file names carries. None when the size is unknown (``"llama ?B all F32"``,
    a model llama.cpp could not size): then only the person importing can name it."""
    match = re.match(r"\s*(\S+)\s+(\d+(?:\.\d+)?[BMK])\b", model_type)
    return f"{match.group(1)}-{match.group(2)}".lower() if match else None


#: Older builds (before the ``backends`` field) flag each compiled GPU backend as a boolean.
_OLD_GPU_FLAGS = ("cuda", "vulkan", "metal", "sycl", "kompute", "opencl", "gpu_blas")


def _truthy(value: object) -> bool:
    return str(value).strip().lower() in ("1", "true", "yes")


def _device(src: Source, rec: dict) -> tuple[str, int | None]:
    backends = str(rec.get("backends") or rec.get("backend") or "")
    if not backends:
        backends = ",".join(f for f in _OLD_GPU_FLAGS if _truthy(rec.get(f))) or "CPU"
    gpu_info = str(rec.get("gpu_info") or "")
    # n_gpu_layers -1 (or 99) means every layer on the GPU; only 0 keeps the model on the CPU.
    n_gpu_layers = src.number(rec, "n_gpu_layers")
    on_gpu = n_gpu_layers != 0 and backends.upper() not in ("CPU", "BLAS", "")
    if on_gpu and not gpu_info:
        return src.accelerator(None, "gpu_info"), None
    if on_gpu:
        gpus = [g for g in gpu_info.split(",") if g.strip()]
        return src.accelerator(gpus[0], "gpu_info"), len(gpus)
    return src.accelerator(rec.get("cpu_info") or None, "cpu_info"), None


def _config_key(rec: dict) -> tuple:
    return tuple(sorted((k, str(v)) for k, v in rec.items() if k not in _TEST_FIELDS))


def parse(src: Source) -> list[BenchmarkResult]:
    rows = _records(src)
    for i, rec in enumerate(rows):
        for key in _REQUIRED:
            src.need(rec, key, f"record {i}: ")
    groups: dict[tuple, dict[str, list[dict]]] = {}
    for rec in rows:
        n_prompt = int(src.number(rec, "n_prompt") or 0)
        n_gen = int(src.number(rec, "n_gen") or 0)
        kind = (
            "pp" if n_gen == 0 and n_prompt > 0 else "tg" if n_prompt == 0 and n_gen > 0 else "pg"
        )
        groups.setdefault(_config_key(rec), {"pp": [], "tg": [], "pg": []})[kind].append(rec)
    out = []
    for tests in groups.values():
        if not tests["tg"]:
            continue
        for tg in tests["tg"]:
            tg_ts = src.number(tg, "avg_ts", required=True)
            if tg_ts <= 0:
                raise src.fail("avg_ts", f"generation speed must be positive, got {tg_ts}")
            # A prompt test pairs with the generation test at the same context depth (-d).
            depth = str(tg.get("n_depth") or 0)
            pps: list[dict | None] = [
                pp for pp in tests["pp"] if str(pp.get("n_depth") or 0) == depth
            ] or [None]
            for pp in pps:
                ttft = None
                basis = "measured"
                prompt_tokens: int | None = None
                if pp is not None:
                    pp_ts = src.number(pp, "avg_ts", required=True)
                    prompt_tokens = int(src.number(pp, "n_prompt", required=True))
                    if pp_ts <= 0:
                        raise src.fail("avg_ts", f"prefill speed must be positive, got {pp_ts}")
                    ttft = 1000.0 * prompt_tokens / pp_ts
                    basis = (
                        f"derived: n_prompt / prefill tok/s (llama-bench pp{prompt_tokens}, no HTTP "
                        "or sampling)"
                    )
                accelerator, n_gpus = _device(src, tg)
                n_gen = int(src.number(tg, "n_gen", required=True))
                model_file = PurePath(str(tg.get("model_filename") or "")).stem
                model_file = re.sub(
                    r"[-.](?:Q\d\w*|IQ\d\w*|F16|BF16|F32)$", "", model_file, flags=re.I
                )
                build = (
                    f"b{tg.get('build_number')}" if tg.get("build_number") not in (None, "") else ""
                )
                commit = str(tg.get("build_commit") or "")
                test_time = tg.get("test_time")
                measured = None
                if test_time:
                    try:
                        measured = datetime.fromisoformat(str(test_time).replace("Z", "+00:00"))
                    except ValueError:
                        measured = None
                threads = tg.get("n_threads")
                # -d N runs each test after N tokens already sit in the context: a different
                # workload from the same test at depth 0, so the depth is part of its name.
                n_depth = int(src.number(tg, "n_depth") or 0)
                test_name = f"pp{prompt_tokens}+tg{n_gen}" if prompt_tokens else f"tg{n_gen}"
                out.append(
                    src.result(
                        accelerator_id=accelerator,
                        accelerators_per_replica=src.per_replica(n_gpus),
                        runtime=src.overrides.runtime or "llama.cpp",
                        runtime_version=" ".join(
                            x for x in (build, f"({commit})" if commit else "") if x
                        ),
                        model=src.required_text(
                            model_file or model_of_type(str(tg.get("model_type"))),
                            "--model",
                            "model",
                        ),
                        precision=src.overrides.precision
                        or precision_of(str(tg.get("model_type"))),
                        workload=f"{test_name}@d{n_depth}" if n_depth else test_name,
                        input_tokens=prompt_tokens or None,
                        output_tokens=n_gen,
                        scenario="offline",
                        concurrency=1,
                        output_tok_s=tg_ts,
                        ttft_ms_p50=ttft,
                        ttft_basis=basis,
                        tpot_ms_p50=1000.0 / tg_ts,
                        measured_at=src.when(measured),
                        source_tool="llama-bench",
                        notes=f"single stream, batch 1; backends={tg.get('backends')}; threads={threads}"
                        + (f"; context depth {n_depth} tokens before each test" if n_depth else ""),
                    )
                )
    if not out:
        raise src.fail(
            "n_gen",
            "no generation (tg) test in the file, so output tok/s is unknown; "
            "run llama-bench with -n N (e.g. -p 512 -n 128)",
        )
    return out


IMPORTERS = [
    Importer("llama-bench", "llama-bench", "llama.cpp llama-bench JSON / JSONL / CSV", sniff, parse)
]
