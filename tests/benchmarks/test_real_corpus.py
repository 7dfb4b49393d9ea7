"""Files the real tools wrote (tests/fixtures/real/README.md gives repository, path and commit):
each imports to the figures its tool printed, or is rejected with a true reason."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from benchmarks.errors import ResultFileError
from benchmarks.importers import ImportOverrides, import_files
from benchmarks.plausibility import check_result
from tokendesk.catalog import load_catalog

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "real"
RUN = "performance/run_1/mlperf_log_summary.txt"
V40 = "mlperf_v4.0/closed/Intel-HabanaLabs/results/HLS-Gaudi2-PT/llama2-70b-99.9"
V41_H200 = "mlperf_v4.1/closed/NVIDIA/results/H200-SXM-141GBx8_TRT/llama2-70b-99"
V41_AMD = "mlperf_v4.1/closed/AMD/results/8xMI300X_2xEPYC-9374F/llama2-70b-99"
V51_RH = "mlperf_v5.1/closed/RedHat/results/XE8640_4xH100_vLLM/llama3.1-8b"
V51_B200 = "mlperf_v5.1/closed/NVIDIA/results/B200-SXM-180GBx8_TRT/llama2-70b-99"
V51_CISCO = "mlperf_v5.1/closed/Cisco/results/HGX-H100_H100-SXM-80GBx16_TRT/llama2-70b-99"
NONE = ImportOverrides()


def one(relative: str, overrides: ImportOverrides = NONE):
    [(_, results)] = import_files([REAL / relative], overrides)
    return results


# (file, accelerator, per replica, nodes, precision, scenario, tok/s, TTFT p95 ms, TTFT p99 ms)
MLPERF = [
    (
        f"{V40}/Server/{RUN}",
        "intel-gaudi2-96gb",
        8,
        1,
        "fp8-e4m3",
        "server",
        6287.47,
        839.2,
        1621.2,
    ),
    (
        f"{V41_H200}/Offline/{RUN}",
        "nvidia-h200-141gb",
        8,
        1,
        "fp16",
        "offline",
        31302.7,
        None,
        None,
    ),
    (
        f"{V41_H200}/Server/{RUN}",
        "nvidia-h200-141gb",
        8,
        1,
        "fp16",
        "server",
        29228.22,
        354.8,
        452.7,
    ),
    (
        f"{V41_AMD}/Server/{RUN}",
        "amd-mi300x-192gb",
        8,
        1,
        "fp8",
        "server",
        21028.23,
        1411.8,
        1604.2,
    ),
    (
        f"{V51_RH}/Offline/{RUN}",
        "nvidia-h100-sxm-80gb",
        1,
        1,
        "fp8",
        "offline",
        5777.08,
        None,
        None,
    ),
    (
        f"{V51_RH}/Server/{RUN}",
        "nvidia-h100-sxm-80gb",
        1,
        1,
        "fp8",
        "server",
        5103.99,
        1143.4,
        1911.2,
    ),
    (
        f"{V51_B200}/Interactive/{RUN}",
        "nvidia-b200-180gb",
        8,
        1,
        "fp4",
        "interactive",
        59545.45,
        116.2,
        140.4,
    ),
    (
        f"{V51_CISCO}/Server/{RUN}",
        "nvidia-h100-sxm-80gb",
        16,
        2,
        "fp8",
        "server",
        61101.32,
        864.4,
        1896.0,
    ),
]


@pytest.mark.parametrize(
    ("path", "acc", "n", "nodes", "precision", "scenario", "tok", "p95", "p99"), MLPERF
)
def test_mlperf_log_summaries_import_to_what_loadgen_printed(
    path, acc, n, nodes, precision, scenario, tok, p95, p99
):
    (r,) = one(path)
    assert (r.accelerator_id, r.accelerators_per_replica, r.nodes) == (acc, n, nodes)
    assert (r.precision, r.scenario, r.output_tok_s) == (precision, scenario, tok)
    assert (round(r.ttft_ms_p95, 1) if r.ttft_ms_p95 else None) == p95
    assert (round(r.ttft_ms_p99, 1) if r.ttft_ms_p99 else None) == p99
    # A log summary carries no date: "date unknown", never the import time.
    assert r.measured_at is None and "date unknown" in r.notes
    assert check_result(r, load_catalog()).verdict == "within"


def test_v41_fp16_declared_with_quantization_is_flagged():
    (r,) = one(f"{V41_H200}/Server/{RUN}")
    assert "weight_transformations 'quantization'" in r.notes


def test_offline_summary_with_unpadded_separators_parses():
    # v4.0 Offline prints "Tokens per second: 8034.85" (no padding before the colon). Its run
    # has no measurements JSON, so the precision is asked for, not guessed.
    with pytest.raises(ResultFileError, match="precision unknown"):
        one(f"{V40}/Offline/{RUN}")
    (r,) = one(f"{V40}/Offline/{RUN}", replace(NONE, precision="fp8"))
    assert (r.output_tok_s, r.accelerators_per_replica, r.scenario) == (8034.85, 8, "offline")


def test_mlperf_summary_results_rows():
    results = one("mlperf_v5.1/summary_results.json")
    by = {(r.system, r.scenario): r for r in results}
    assert len(results) == 9
    cisco = [r for r in results if r.nodes == 2]
    assert {(r.scenario, r.output_tok_s, r.accelerators_per_replica) for r in cisco} == {
        ("offline", 62351.6, 16),
        ("server", 61101.3, 16),
    }
    xe8640 = [r for r in results if r.output_tok_s in (5777.08, 5103.99)]
    assert {r.accelerators_per_replica for r in xe8640} == {1}
    assert by and all(str(r.measured_at.date()) == "2025-09-09" for r in results)


LLAMA = replace(NONE, accelerator_id="nvidia-l40s-48gb", model="llama-2-7b")


@pytest.mark.parametrize("name", ["b1275_old_schema.json", "b1275_old_schema.jsonl"])
def test_old_llama_bench_schema_is_on_the_gpu_and_q4_0(name):
    # No "backends" field, "cuda": true, n_gpu_layers 99, "llama 7B mostly Q4_0". The RTX 3090 Ti
    # is not in the catalog: the importer says so and asks, then reads the figures.
    with pytest.raises(ResultFileError, match="RTX 3090 Ti.*pass --accelerator"):
        one(f"llama-bench/{name}")
    (r,) = one(f"llama-bench/{name}", LLAMA)
    assert (r.output_tok_s, r.precision, r.input_tokens, r.output_tokens) == (
        130.965708,
        "q4_0",
        512,
        128,
    )
    assert r.ttft_ms_p50 == pytest.approx(1000 * 512 / 2410.974041)
    assert r.measured_at.isoformat() == "2023-09-23T12:09:59+00:00"
    assert r.runtime_version == "b1275 (3469684)"


def test_old_llama_bench_csv_with_one_value_too_many_is_rejected_not_shifted():
    # That build printed 27 values under a 26-column header: every later column would shift.
    with pytest.raises(ResultFileError, match="row 2: has 27 values but the header has 26"):
        one("llama-bench/b1275_old_schema.csv", LLAMA)


def test_pasted_markdown_tables_import():
    with pytest.raises(ResultFileError, match="pass --accelerator"):
        one("llama-bench/b1275_old_markdown.md")
    (r,) = one("llama-bench/b1275_old_markdown.md", LLAMA)  # "pp 512" / "tg 128" with a space
    assert (r.output_tok_s, r.precision, r.input_tokens) == (131.42, "q4_0", 512)
    assert r.ttft_ms_p50 == pytest.approx(1000 * 512 / 2368.80)
    assert r.measured_at is None  # a pasted table carries no date

    results = one("llama-bench/b5163_markdown_depth.md", replace(LLAMA, model="qwen2.5-7b"))
    assert sorted(r.output_tok_s for r in results) == [116.71, 120.60]
    assert {r.precision for r in results} == {"q4_k_m"}
