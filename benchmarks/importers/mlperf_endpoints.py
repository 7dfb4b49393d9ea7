"""MLPerf endpoints harness results (v6.1): ``performance/result_summary.json``, with the
submission's system description beside it (``mlperf_system.py``).
"""

from __future__ import annotations

from pathlib import Path

from benchmarks.importers.base import Source
from benchmarks.importers.mlperf_naming import LLM_NAMES, model_of, scenario_and_model
from benchmarks.importers.mlperf_system import hardware, path_parts
from tokendesk.records import BenchmarkResult

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
    if benchmark and not LLM_NAMES.search(benchmark):
        raise src.fail(
            "",
            f"{benchmark} is not an LLM benchmark; its tokens are not an LLM's tokens/s",
        )
    _endpoints_complete(src, data)
    tok = src.number(data, "tps", required=True)
    system_name, _ = path_parts(src.name)
    hw = hardware(src, system_name)
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
