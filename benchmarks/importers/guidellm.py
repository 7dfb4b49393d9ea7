"""GuideLLM ``benchmarks.json`` (``--output kind=json`` / ``--output-path``), ``benchmarks.yaml``
(``--output kind=yaml`` / ``--output-path report.yaml``) and ``benchmarks.csv``
(``--output kind=csv``).

The YAML is the JSON report's mapping written by ``yaml.dump`` instead of ``json.dumps``
(``GenerativeBenchmarksReport.save_file`` in ``guidellm/benchmark/schemas/report.py``), so both
are read by the same code.

One result per entry of ``benchmarks``. Each metric is ``{successful, errored, incomplete, total}``
distributions with ``mean``, ``median`` and ``percentiles`` (``p50``, ``p90``, ``p95``, ``p99``...);
the successful requests are used. Units by key: ``*_ms`` in ms, ``request_latency`` in seconds,
rates in tokens or requests per second.

GuideLLM's ``time_per_output_token_ms`` *includes* the first token (≈ E2EL / output tokens), so it is
not a TPOT. Its ``inter_token_latency_ms`` = (last − first)/(output_tokens − 1) is, and is used.
When it is absent, the median TPOT is converted from the medians:
(tpot_incl × N − TTFT) / (N − 1), and the note says so.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from datetime import UTC, datetime

from benchmarks.importers.base import Importer, Source, find_key
from tokendesk.metrics import PERCENTILES
from tokendesk.records import BenchmarkResult


def sniff(src: Source) -> bool:
    data = src.data
    return (
        src.kind in ("json", "yaml")
        and isinstance(data, dict)
        and isinstance(data.get("benchmarks"), list)
        and bool(data["benchmarks"])
        and isinstance(data["benchmarks"][0], dict)
        and "metrics" in data["benchmarks"][0]
        and any(
            k in data["benchmarks"][0]["metrics"]
            for k in ("time_to_first_token_ms", "output_tokens_per_second")
        )
    )


def _dist(metrics: dict, key: str) -> dict | None:
    block = metrics.get(key)
    if not isinstance(block, dict):
        return None
    dist = block.get("successful", block)
    return dist if isinstance(dist, dict) else None


def _pct(src: Source, dist: dict | None, q: str, where: str) -> float | None:
    if dist is None:
        return None
    pcts = dist.get("percentiles") or {}
    value = src.number(pcts, q, f"{where}.percentiles.")
    if value is None and q == "p50":
        value = src.number(dist, "median", f"{where}.")
    return value


def _controlled_load(stype: str, strategy: object, notes: list[str]) -> tuple[object, object]:
    """(concurrency, request rate) as the strategy controlled them — never both, and never the
    scheduler's worker cap: GuideLLM writes ``max_concurrency`` (10240 by default) into every
    strategy, and only a ``concurrent`` run holds its streams at a set number."""
    if not isinstance(strategy, dict):
        return None, None
    if stype == "synchronous":
        return 1, None
    if stype == "concurrent":
        streams = strategy.get("streams")
        return (streams if not isinstance(streams, list) else None), None
    if stype in ("constant", "poisson", "async"):
        return None, strategy.get("rate")
    if stype == "throughput":
        notes.append(
            "throughput strategy: requests sent as fast as the worker cap allows "
            f"(max_concurrency {strategy.get('max_concurrency')}); no rate or concurrency was set"
        )
    return None, None


def parse(src: Source) -> list[BenchmarkResult]:
    return _results(src, src.data["benchmarks"], lambda i: f"benchmarks[{i}].")


# Long by design: the GuideLLM JSON's shape, read field by field with each field's place in the
# file named in its error; it follows the file's layout top to bottom.
def _results(src: Source, benches: list, place: Callable[[int], str]) -> list[BenchmarkResult]:
    """One result per GuideLLM benchmark (the JSON's shape; ``place(i)`` names where the i-th
    benchmark sits in the file, for error messages)."""
    out = []
    for i, bench in enumerate(benches):
        where = f"{place(i)}metrics."
        metrics = src.need(bench, "metrics", place(i))
        out_dist = _dist(metrics, "output_tokens_per_second")
        if out_dist is None:
            raise src.fail(f"{where}output_tokens_per_second", "required metric is missing")
        out_tok_s = src.number(
            out_dist, "mean", f"{where}output_tokens_per_second.successful.", required=True
        )
        total_dist = _dist(metrics, "tokens_per_second")
        total = (
            src.number(total_dist, "mean", f"{where}tokens_per_second.successful.")
            if total_dist
            else None
        )
        ttft_d = _dist(metrics, "time_to_first_token_ms")
        ttft = {
            q: src.ms(
                _pct(src, ttft_d, q, f"{where}time_to_first_token_ms"),
                "ms",
                f"{where}time_to_first_token_ms",
            )
            for q in PERCENTILES
        }
        itl_d = _dist(metrics, "inter_token_latency_ms")
        notes = []
        if itl_d is not None:
            tpot = {
                q: _pct(src, itl_d, q, f"{where}inter_token_latency_ms")
                for q in ("p50", "p95", "p99")
            }
        else:
            tpot = {"p50": None, "p95": None, "p99": None}
            incl = _dist(metrics, "time_per_output_token_ms")
            n_out = _dist(metrics, "output_token_count")
            t_incl = _pct(src, incl, "p50", f"{where}time_per_output_token_ms")
            n = _pct(src, n_out, "p50", f"{where}output_token_count")
            if t_incl is not None and n and n > 1 and ttft["p50"] is not None:
                tpot["p50"] = max(0.0, (t_incl * n - ttft["p50"]) / (n - 1))
                notes.append(
                    "tpot p50 converted from time_per_output_token_ms (which includes the first token)"
                )
        lat_d = _dist(metrics, "request_latency")
        e2el = {
            q: src.ms(
                _pct(src, lat_d, q, f"{where}request_latency"), "s", f"{where}request_latency"
            )
            for q in ("p50", "p95")
        }
        prompt_d = _dist(metrics, "prompt_token_count")
        out_d = _dist(metrics, "output_token_count")
        isl = src.number(prompt_d, "mean") if prompt_d else None
        osl = src.number(out_d, "mean") if out_d else None
        strategy = find_key(bench, "strategy") or {}
        stype = (
            str(strategy.get("type_", strategy.get("type", "")))
            if isinstance(strategy, dict)
            else str(strategy)
        )
        concurrency, rate = _controlled_load(stype, strategy, notes)
        counts = find_key(bench, "requests_made") or {}
        model = find_key(bench, "model", "backend_model") or find_key(
            src.data.get("config") or {}, "model"
        )
        start = find_key(
            bench.get("scheduler_metrics") or bench.get("run_stats") or {}, "start_time"
        )
        measured = (
            datetime.fromtimestamp(start, UTC)
            if isinstance(start, int | float) and start > 1e9
            else start
            if isinstance(start, datetime)
            else None
        )
        notes.append(f"guidellm strategy {stype or '?'}")
        out.append(
            src.result(
                accelerator_id=src.accelerator(None, "accelerator"),
                accelerators_per_replica=src.per_replica(None),
                runtime=src.required_text(None, "--runtime", "server runtime"),
                model=src.required_text(
                    model if isinstance(model, str) else None, "--model", "model"
                ),
                precision=src.required_text(None, "--precision", "precision"),
                workload=f"isl{round(isl)}-osl{round(osl)}" if isl and osl else "guidellm",
                input_tokens=round(isl) if isl else None,
                output_tokens=round(osl) if osl else None,
                concurrency=float(concurrency)
                if isinstance(concurrency, int | float) and concurrency > 0
                else None,
                request_rate_rps=float(rate)
                if isinstance(rate, int | float) and rate > 0
                else None,
                output_tok_s=out_tok_s,
                total_tok_s=total,
                ttft_ms_p50=ttft["p50"],
                ttft_ms_p90=ttft["p90"],
                ttft_ms_p95=ttft["p95"],
                ttft_ms_p99=ttft["p99"],
                tpot_ms_p50=tpot["p50"],
                tpot_ms_p95=tpot["p95"],
                tpot_ms_p99=tpot["p99"],
                e2el_ms_p50=e2el["p50"],
                e2el_ms_p95=e2el["p95"],
                requests_ok=int(counts["successful"])
                if isinstance(counts, dict) and "successful" in counts
                else None,
                requests_failed=int(counts["errored"])
                if isinstance(counts, dict) and "errored" in counts
                else None,
                measured_at=src.when(measured),
                source_tool="guidellm",
                notes="; ".join(notes),
            )
        )
    return out


# -- benchmarks.csv ------------------------------------------------------------------------------
# Three header rows (group, name, statistic) over one row per benchmark. A distribution is four
# columns: Mean, Median, Std Dev and Percentiles, the last a list in the order GuideLLM 0.8's
# CSV writer prints it (benchmark/outputs/csv.py): min, p001 … p25, p75 … p99, max — no p50
# (the Median column is the p50) and no p999.
CSV_PERCENTILES = ("min", "p001", "p01", "p05", "p10", "p25", "p75", "p90", "p95", "p99", "max")
#: (group, name) in the CSV -> the JSON metric the same figures sit under.
CSV_METRICS = {
    ("Token Throughput", "Successful Output Tokens/Sec"): "output_tokens_per_second",
    ("Token Throughput", "Successful Total Tokens/Sec"): "tokens_per_second",
    ("Time to First Token", "Successful ms"): "time_to_first_token_ms",
    ("Inter Token Latency", "Successful ms"): "inter_token_latency_ms",
    ("Time per Output Token", "Successful ms"): "time_per_output_token_ms",
    ("Request Latency", "Successful Sec"): "request_latency",
    ("Token Metrics", "Successful Input Tokens"): "prompt_token_count",
    ("Token Metrics", "Successful Output Tokens"): "output_token_count",
}
_STRATEGY = re.compile(r"^(?P<type>[a-z_]+)(?:@(?P<value>[0-9.]+))?$")


def sniff_csv(src: Source) -> bool:
    rows = src.data if src.kind == "csv" else None
    return (
        isinstance(rows, list)
        and len(rows) >= 4
        and rows[0][:1] == ["Run Info"]
        and "Benchmark" in rows[0]
        and "Token Throughput" in rows[0]
    )


def _csv_benchmark(src: Source, columns: list[tuple[str, str, str]], row: list[str], line: int):
    """One data row of benchmarks.csv as the JSON's benchmark object."""
    if len(row) != len(columns):
        raise src.fail(
            f"line {line}",
            f"has {len(row)} values but the header has {len(columns)} columns; the values cannot "
            "be matched to their columns (was the file edited or concatenated?)",
        )
    cell = {col: value.strip() for col, value in zip(columns, row, strict=True)}
    metrics: dict[str, dict] = {}
    for (group, name), key in CSV_METRICS.items():
        dist: dict = {}
        for stat, field in (("Mean", "mean"), ("Median", "median")):
            text = cell.get((group, name, stat), "")
            if text:
                dist[field] = _number(src, text, f"line {line}: {group} {name} {stat}")
        listed = cell.get((group, name, "Percentiles"), "")
        if listed:
            values = json.loads(listed)
            if not isinstance(values, list) or len(values) != len(CSV_PERCENTILES):
                raise src.fail(
                    f"line {line}: {group} {name} Percentiles",
                    f"expected {len(CSV_PERCENTILES)} percentiles, got {listed[:60]!r}",
                )
            dist["percentiles"] = dict(zip(CSV_PERCENTILES, values, strict=True))
        if dist:
            metrics[key] = {"successful": dist}
    strategy: dict = {}
    match = _STRATEGY.match(cell.get(("Benchmark", "Strategy", ""), ""))
    if match:
        strategy["type_"] = match["type"]
        value = float(match["value"]) if match["value"] else None
        strategy["streams" if match["type"] == "concurrent" else "rate"] = value
    backend = cell.get(("Run Info", "Backend", ""), "")
    model = json.loads(backend).get("model") if backend.startswith("{") else None
    counts = {
        key: int(_number(src, cell[("Request Counts", name, "")], f"line {line}: {name}"))
        for key, name in (("successful", "Successful"), ("errored", "Errored"))
        if cell.get(("Request Counts", name, ""))
    }
    started = cell.get(("Timings", "Start Time", ""), "")
    # GuideLLM prints the start as a wall-clock time with no zone: the day is what it says.
    start = datetime.fromisoformat(started).replace(tzinfo=UTC) if started else None
    return {
        "metrics": metrics,
        "strategy": strategy,
        "requests_made": counts,
        "model": model,
        "scheduler_metrics": {"start_time": start},
    }


def _number(src: Source, text: str, where: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise src.fail(where, f"{text[:40]!r} is not a number") from None


def parse_csv(src: Source) -> list[BenchmarkResult]:
    header, rows = src.data[:3], src.data[3:]
    columns = list(zip(*header, strict=False))
    benches = [
        _csv_benchmark(src, columns, row, line)
        for line, row in enumerate(rows, start=4)
        if any(value.strip() for value in row)
    ]
    return _results(src, benches, lambda i: f"line {4 + i}: ")


IMPORTERS = [
    Importer("guidellm", "guidellm", "GuideLLM benchmarks.json / benchmarks.yaml", sniff, parse),
    Importer("guidellm-csv", "guidellm", "GuideLLM benchmarks.csv", sniff_csv, parse_csv),
]
