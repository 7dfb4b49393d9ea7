"""Importers on files shaped exactly as each tool writes them (see reference/benchmarks.md)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from typer.testing import CliRunner

from benchmarks.errors import ResultFileError
from benchmarks.importers import (
    MAX_IMPORT_BYTES,
    REGISTRY,
    ImportOverrides,
    import_bytes,
    import_files,
    import_sources,
)
from benchmarks.importers.hardware import accelerator_for
from benchmarks.importers.llamabench import precision_of
from cli.bench_command import bench_app
from warehouse import Warehouse

FIX = Path(__file__).parent / "fixtures"
MLPERF_RUN = (
    "mlperf_v4.1/closed/NVIDIA/results/H200-SXM-141GBx8_TRT/llama2-70b-99/Server/performance/run_1/"
    "mlperf_log_summary.txt"
)
H100 = ImportOverrides(
    accelerator_id="nvidia-h100-sxm-80gb",
    accelerators_per_replica=1,
    runtime="vllm",
    precision="bf16",
)

#: importer name -> (fixture, overrides) proving it on a real-shaped file
CASES = {
    "tokendesk-harness": ("harness_results.json", ImportOverrides()),
    "vllm": ("vllm_bench_serve.json", ImportOverrides()),
    "sglang": (
        "sglang_bench_serving.jsonl",
        ImportOverrides(accelerator_id="amd-mi300x-192gb", model="m", precision="bf16"),
    ),
    "llama-bench": ("llama_bench_cpu.json", ImportOverrides()),
    "genai-perf-json": (
        "profile_export_genai_perf.json",
        ImportOverrides(accelerator_id="nvidia-h100-sxm-80gb", precision="fp8", runtime="trt-llm"),
    ),
    "genai-perf-csv": (
        "profile_export_genai_perf.csv",
        replace(H100, model="m", runtime="trt-llm"),
    ),
    "aiperf-json": ("profile_export_aiperf.json", H100),
    "aiperf-csv": ("profile_export_aiperf.csv", replace(H100, model="m")),
    "guidellm": ("guidellm_benchmarks.json", H100),
    # Written by GuideLLM itself (tests/fixtures/real/README.md), not shaped from a description.
    "guidellm-csv": ("../../fixtures/real/guidellm/csv_and_json/benchmarks.csv", H100),
    "llmperf": ("meta-llama-Llama-2-7b-chat-hf_550_150_summary.json", H100),
    # Written by InferenceX's benchmark (tests/fixtures/real/README.md).
    "inferencex-agg": (
        "../../fixtures/real/inferencex/agg_kimik2.5_1k1k_int4_vllm_tp8-ep1-dpafalse_disagg-"
        "false_spec-mtp_conc4_MI355-gbt350-odcdh5-wbb3.json",
        ImportOverrides(),
    ),
    # Printed by trtllm-bench 0.17 (tests/fixtures/real/README.md); it names no GPU.
    "trtllm-bench": (
        "../../fixtures/real/trtllm-bench/v0.17_throughput_engine_log.txt",
        ImportOverrides(accelerator_id="nvidia-h100-sxm-80gb"),
    ),
    # Written by llm-d-benchmark's converter (tests/fixtures/real/README.md).
    "llmd-report": (
        "../../fixtures/real/llm-d-benchmark/br_v0_1_inference-perf_tpu7x_stage0.yaml",
        ImportOverrides(
            accelerator_id="google-tpu-v7", accelerators_per_replica=8, precision="fp8"
        ),
    ),
    "mlperf-summary-results": ("mlperf_summary_results.json", ImportOverrides()),
    "mlperf-log-summary": (MLPERF_RUN, ImportOverrides()),
    # Written by the endpoints harness (tests/fixtures/real/README.md); its measurements JSON is
    # not in the stored copy, so the precision is a flag.
    "mlperf-endpoints-summary": (
        "../../fixtures/real/mlperf_v6.1/closed/NVIDIA/results/B300-SXM-270GBx8_TRT/"
        "qwen3-vl-235b-a22b/Server/performance/result_summary.json",
        ImportOverrides(precision="fp4"),
    ),
    "mlperf-system": (
        "mlperf_v4.1/closed/NVIDIA/systems/H200-SXM-141GBx8_TRT.json",
        ImportOverrides(),
    ),
    "mlperf-measurements": (
        "mlperf_v4.1/closed/NVIDIA/measurements/H200-SXM-141GBx8_TRT/llama2-70b-99/Server/"
        "H200-SXM-141GBx8_TRT_Server.json",
        ImportOverrides(),
    ),
}


NO_OVERRIDES = ImportOverrides()


def one(name: str, overrides: ImportOverrides = NO_OVERRIDES):
    [(path, results)] = import_files([FIX / name], overrides)
    assert path == FIX / name
    return results


def test_every_importer_is_registered_and_has_a_case():
    names = [imp.name for imp in REGISTRY]
    assert len(names) == len(set(names))
    assert set(names) == set(CASES), "each registered importer needs a real-shaped fixture in CASES"


@pytest.mark.parametrize("name", sorted(CASES))
def test_every_importer_detects_its_fixture(name):
    fixture, overrides = CASES[name]
    imp = next(i for i in REGISTRY if i.name == name)
    if imp.context_only:
        run = (FIX / MLPERF_RUN).read_bytes()
        out = import_sources(
            [(str(FIX / fixture), (FIX / fixture).read_bytes()), (str(FIX / MLPERF_RUN), run)]
        )
        assert [fmt for _, fmt, _ in out] == ["mlperf-log-summary"]
        with pytest.raises(ResultFileError, match="only context files"):
            import_sources([(str(FIX / fixture), (FIX / fixture).read_bytes())])
        return
    [(_, fmt, results)] = import_sources(
        [(str(FIX / fixture), (FIX / fixture).read_bytes())], overrides
    )
    assert fmt == name
    assert results and all(r.output_tok_s > 0 for r in results)


def test_vllm_bench_serve_maps_keys_units_and_metadata():
    [r] = one("vllm_bench_serve.json")
    assert r.accelerator_id == "nvidia-h100-sxm-80gb"  # from --metadata gpu=...
    assert (r.runtime, r.precision, r.model) == ("vllm", "bf16", "meta-llama/Llama-3.1-8B-Instruct")
    assert (
        r.concurrency == 64 and r.request_rate_rps is None
    )  # request_rate "inf" + max_concurrency
    assert (r.ttft_ms_p50, r.ttft_ms_p90, r.ttft_ms_p95, r.ttft_ms_p99) == (
        188.1,
        291.7,
        333.0,
        421.9,
    )
    assert (r.tpot_ms_p50, r.e2el_ms_p50, r.e2el_ms_p95) == (29.1, 3901.0, 4702.9)
    assert (r.output_tok_s, r.total_tok_s) == (1952.3, 17571.2)
    assert (r.requests_ok, r.requests_failed) == (638, 2)
    assert (r.input_tokens, r.output_tokens) == (1024, 128)
    assert r.measured_at.isoformat().startswith("2025-10-14T09:30:12")
    assert r.source_tool == "vllm-bench-serve"


def test_vllm_legacy_goodput_colon_inf_rate_and_missing_percentiles():
    [r] = one(
        "vllm_legacy_benchmark_serving.json",
        ImportOverrides(
            accelerator_id="nvidia-h100-sxm-80gb", accelerators_per_replica=4, precision="bf16"
        ),
    )
    assert r.source_tool == "vllm-benchmark-serving" and r.runtime == "vllm"
    # request_rate "inf" with no max_concurrency: a burst of all 1000 prompts
    assert r.concurrency == 1000 and r.request_rate_rps is None and "burst" in r.notes
    assert r.ttft_ms_p90 is None and r.ttft_ms_p95 is None and r.ttft_ms_p99 == 81233.7
    assert r.e2el_ms_p50 is None  # e2el is only written when --percentile-metrics asks for it
    assert (r.requests_ok, r.requests_failed) == (997, 3)  # legacy files have no "failed"


def test_vllm_append_result_jsonl_gives_one_result_per_line():
    results = one("vllm_append_result.jsonl", H100)
    assert [r.concurrency for r in results] == [4, 16]
    assert "goodput 3.100 req/s" in results[0].notes


def test_sglang_total_from_input_plus_output_and_rate():
    results = one("sglang_bench_serving.jsonl", CASES["sglang"][1])
    assert results[0].runtime == "sglang" and results[0].concurrency == 32
    assert results[0].total_tok_s == pytest.approx(13403.1 + 3350.8)
    assert results[0].e2el_ms_p50 == 2380.9
    assert results[1].request_rate_rps == 4.0 and results[1].concurrency is None


@pytest.mark.parametrize("name", ["llama_bench_cpu.json", "llama_bench_cpu.csv"])
def test_llama_bench_derives_ttft_from_prefill(name):
    [r] = one(name)
    assert (
        r.accelerator_id == "cpu-intel-spr-amx"
        and r.runtime == "llama.cpp"
        and r.precision == "q4_0"
    )
    assert r.output_tok_s == 12.32
    assert r.ttft_ms_p50 == pytest.approx(1000 * 512 / 84.09)
    assert r.ttft_basis.startswith("derived: n_prompt / prefill tok/s")
    assert r.tpot_ms_p50 == pytest.approx(1000 / 12.32)
    assert r.concurrency == 1 and r.workload == "pp512+tg128"


def test_llama_bench_jsonl_on_gpu():
    [r] = one("llama_bench_cuda.jsonl")
    assert (r.accelerator_id, r.precision, r.runtime_version) == (
        "nvidia-l40s-48gb",
        "q4_k_m",
        "b6715 (3f4fc97f)",
    )


def test_genai_perf_itl_is_tpot_and_units_read_from_file():
    [r] = one("profile_export_genai_perf.json", CASES["genai-perf-json"][1])
    data = json.loads((FIX / "profile_export_genai_perf.json").read_text())
    assert r.tpot_ms_p50 == data["inter_token_latency"]["p50"]
    assert r.ttft_ms_p99 == data["time_to_first_token"]["p99"]
    assert (r.runtime, r.concurrency, r.model) == (
        "trt-llm",
        16,
        "meta-llama/Meta-Llama-3-8B-Instruct",
    )
    [c] = one("profile_export_genai_perf.csv", CASES["genai-perf-csv"][1])
    assert c.ttft_ms_p99 == pytest.approx(r.ttft_ms_p99, abs=0.01)
    assert c.output_tok_s == pytest.approx(2024.6)


def test_genai_perf_backend_of_an_openai_endpoint_is_not_the_runtime():
    # service_kind "openai": genai-perf writes its default backend ("tensorrtllm") but the
    # server behind the endpoint could be anything, so the runtime has to be given.
    bare = replace(CASES["genai-perf-json"][1], runtime=None)
    with pytest.raises(ResultFileError, match="pass --runtime"):
        one("profile_export_genai_perf.json", bare)


def test_aiperf_total_throughput_is_derived():
    [r] = one("profile_export_aiperf.json", H100)
    assert r.total_tok_s == pytest.approx((220000 + 102400) / 50.58)
    assert (r.requests_ok, r.requests_failed, r.model) == (400, 3, "Qwen/Qwen3-0.6B")


def test_guidellm_uses_itl_and_converts_tpot_that_includes_first_token():
    sync, conc = one("guidellm_benchmarks.json", H100)
    assert sync.concurrency == 1 and conc.concurrency == 8
    assert sync.tpot_ms_p50 == pytest.approx(7.4 * 0.99)  # inter_token_latency_ms, used as is
    # second benchmark has no inter_token_latency_ms: (7.5 * 256 - TTFT_p50) / 255
    assert conc.tpot_ms_p50 == pytest.approx((7.5 * 256 - 95.0 * 0.97) / 255)
    assert "includes the first token" in conc.notes
    assert sync.e2el_ms_p50 == pytest.approx(1930.0)  # request_latency is seconds


def test_llmperf_seconds_and_first_token_conversion():
    [r] = one("meta-llama-Llama-2-7b-chat-hf_550_150_summary.json", H100)
    assert r.ttft_ms_p50 == pytest.approx(210.0) and r.ttft_ms_p99 == pytest.approx(480.0)
    assert r.tpot_ms_p50 == pytest.approx((3370.0 - 210.0) / 149)
    assert (r.concurrency, r.requests_ok, r.requests_failed) == (8, 158, 2)


def test_mlperf_summary_results_rows():
    results = one("mlperf_summary_results.json")
    by_acc = {(r.accelerator_id, r.scenario, r.model): r for r in results}
    h200 = by_acc[("nvidia-h200-141gb", "server", "llama-2-70b")]
    assert h200.workload == "mlperf-llama2-70b-99-server"  # the benchmark, with its target
    assert (h200.accelerators_per_replica, h200.output_tok_s, h200.precision) == (
        8,
        34029.38,
        "fp8",
    )
    assert h200.runtime == "trt-llm" and h200.measured_at.date().isoformat() == "2025-09-09"
    cpu = by_acc[("cpu-intel-gnr-amx", "offline", "llama-3.1-8b")]
    assert (cpu.accelerators_per_replica, cpu.precision) == (2, "int4")
    assert len(results) == 5  # the ResNet (samples/s) row is skipped


def test_mlperf_log_summary_with_system_json_from_layout():
    [r] = one(MLPERF_RUN)
    assert (r.accelerator_id, r.accelerators_per_replica, r.precision) == (
        "nvidia-h200-141gb",
        8,
        "fp8",
    )
    assert r.output_tok_s == 29228.22 and r.scenario == "server"
    assert r.ttft_ms_p99 == pytest.approx(452.709234)  # ns -> ms
    assert r.tpot_ms_p99 == pytest.approx(146.012345)


@pytest.mark.parametrize(
    ("name", "key", "reason"),
    [
        ("bad_vllm_missing_output_throughput.json", "output_throughput", "missing"),
        ("bad_genai_perf_unit.json", "time_to_first_token.unit", "furlongs"),
        ("bad_llama_bench_pp_only.json", "n_gen", "no generation"),
        ("bad_mlperf_invalid_log_summary.txt", "Result is", "INVALID"),
        ("bad_mlperf_unknown_accelerator.json", "[6].Accelerator", "Quantum Widget 9000"),
    ],
)
def test_bad_file_rejected_whole_with_file_key_reason(name, key, reason):
    overrides = H100 if "mlperf" not in name else ImportOverrides()
    with pytest.raises(ResultFileError) as info:
        import_files([FIX / name], overrides)
    assert info.value.file.endswith(name) and info.value.key == key and reason in info.value.reason


def test_unknown_accelerator_asks_for_flag():
    with pytest.raises(ResultFileError, match="--accelerator"):
        import_files([FIX / "vllm_append_result.jsonl"], ImportOverrides(precision="bf16"))
    assert accelerator_for("NVIDIA H100 80GB HBM3") == "nvidia-h100-sxm-80gb"
    assert accelerator_for("NVIDIA A100") is None  # 40 or 80 GB: ambiguous, left to --accelerator
    assert precision_of("qwen2 7B Q4_K - Medium") == "q4_k_m"


def test_import_bytes_size_limit_and_garbage():
    with pytest.raises(ResultFileError, match="limit"):
        import_bytes("huge.json", b" " * (MAX_IMPORT_BYTES + 1))
    with pytest.raises(ResultFileError, match="unrecognised"):
        import_bytes("notes.txt", b"hello world")
    results = import_bytes("upload.json", (FIX / "vllm_bench_serve.json").read_bytes())
    assert results[0].source_file == "upload.json"


def test_cli_import_all_or_nothing(tmp_path):
    db = tmp_path / "w.duckdb"
    runner = CliRunner()
    bad = runner.invoke(
        bench_app,
        [
            "import",
            str(FIX / "vllm_bench_serve.json"),
            str(FIX / "bad_vllm_missing_output_throughput.json"),
            "--db",
            str(db),
        ],
    )
    assert bad.exit_code == 2
    with Warehouse.open(db) as wh:
        snaps = wh.snapshots()
        assert (
            wh.query(
                "SELECT count(*) AS n FROM benchmark_results WHERE source_tool = 'vllm-bench-serve'"
            )["n"][0]
            == 0
        )
        assert (snaps["status"] == "failed").sum() == 1
    ok = runner.invoke(bench_app, ["import", str(FIX / MLPERF_RUN), "--db", str(db)])
    assert ok.exit_code == 0, ok.output
    with Warehouse.open(db) as wh:
        assert (
            wh.query(
                "SELECT count(*) AS n FROM benchmark_results WHERE source_tool = 'mlperf' "
                "AND source_file LIKE '%mlperf_log_summary.txt'"
            )["n"][0]
            == 1
        )
