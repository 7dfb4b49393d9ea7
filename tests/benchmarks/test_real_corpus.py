"""Files the real tools wrote (tests/fixtures/real/README.md gives repository, path and commit):
each imports to the figures its tool printed, or is rejected with a true reason."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from benchmarks.errors import ResultFileError
from benchmarks.importers import ImportOverrides, import_files, import_sources
from benchmarks.plausibility import check_result, disagreeing_duplicates
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


# -- LLMPerf: ray-project/llmperf-leaderboard raw_data/summary/*.json (hosted endpoints) ----------

HOSTED = replace(NONE, accelerator_id="nvidia-h100-sxm-80gb", runtime="vllm", precision="fp16")


@pytest.mark.parametrize("name", ["anyscale_70b", "groq_70b", "perplexity_70b"])
def test_llmperf_summary_of_a_hosted_endpoint_asks_for_the_hardware(name):
    # A hosted API hides what served it: the file names the provider ("framework"), never the
    # accelerator, the runtime or the precision, and the importer asks for all three at once.
    with pytest.raises(ResultFileError, match="pass --accelerator … --runtime … --precision …"):
        one(f"llmperf/{name}.json")


# (file, model, tok/s, TTFT p50/p95/p99 ms (LLMPerf writes seconds), E2EL p50 ms, ok, failed, date)
LLMPERF = [
    (
        "anyscale_70b",
        "meta-llama/Llama-2-70b-chat-hf",
        207.52121071152493,
        (212.82956000001718, 362.00837719999276, 474.53051906000235),
        2259.5330279999926,
        150,
        0,
        "2023-12-21T05:22:09+00:00",
    ),
    (
        "groq_70b",
        "llama2-70b-4096",
        441.84737788500206,
        (221.8883791938424, 303.739271685481, 350.0269545800982),
        805.1837999373674,
        150,
        0,
        "2024-01-10T01:55:04+00:00",
    ),
    (
        "perplexity_70b",
        "llama-2-70b-chat",
        126.05102586791163,
        (366.06876099999397, 634.2550717999984, 658.680477129984),
        4972.203165499991,
        148,
        2,
        "2023-12-23T01:14:33+00:00",
    ),
]


@pytest.mark.parametrize(("name", "model", "tok", "ttft", "e2el", "ok", "failed", "when"), LLMPERF)
def test_llmperf_summaries_import_to_what_llmperf_wrote(
    name, model, tok, ttft, e2el, ok, failed, when
):
    (r,) = one(f"llmperf/{name}.json", HOSTED)
    assert (r.model, r.output_tok_s, r.requests_ok, r.requests_failed) == (model, tok, ok, failed)
    assert (r.ttft_ms_p50, r.ttft_ms_p95, r.ttft_ms_p99) == pytest.approx(ttft)
    assert r.e2el_ms_p50 == pytest.approx(e2el)
    assert (r.input_tokens, r.output_tokens, r.concurrency) == (550, 150, 5)
    assert r.measured_at.isoformat() == when  # LLMPerf's "timestamp", a Unix time
    # LLMPerf's inter_token_latency includes the first token; the TPOT is derived from medians.
    written = json.loads((REAL / f"llmperf/{name}.json").read_text())
    n_p50 = written["results_number_output_tokens_quantiles_p50"]
    assert r.tpot_ms_p50 == pytest.approx((e2el - ttft[0]) / (n_p50 - 1))
    assert "inter_token_latency includes the first token" in r.notes


def test_llmperf_groq_tpot_is_not_its_inter_token_latency():
    # groq_70b.json: results_inter_token_latency_s_quantiles_p50 = 0.00532 s, which spreads the
    # 222 ms TTFT over 150 tokens; the decode-only median is (805.2 - 221.9) / 149 = 3.91 ms.
    (r,) = one("llmperf/groq_70b.json", HOSTED)
    assert r.tpot_ms_p50 == pytest.approx(3.9147, abs=1e-4)


def test_llmperf_70b_on_one_80gb_accelerator_is_implausible():
    # Without --accelerators-per-replica one accelerator is assumed; 70B fp16 weights (140 GB) do
    # not fit in 80 GB, so the plausibility gate refuses the reading.
    (r,) = one("llmperf/anyscale_70b.json", HOSTED)
    assert r.accelerators_per_replica == 1 and "assumed" in r.notes
    assert check_result(r, load_catalog()).verdict == "implausible"


def test_llmperf_run_where_most_requests_failed_is_refused():
    # lepton_70b.json: 130 of 150 requests got HTTP 429; the 20 that finished give 53 tok/s and a
    # normal-looking latency, which would read as a slow server, not a rate-limited one.
    with pytest.raises(ResultFileError, match=r"results_number_errors.*130 of 150 requests failed"):
        one("llmperf/lepton_70b.json", HOSTED)


def test_llmperf_run_with_some_failed_requests_says_so():
    # bedrock_70b.json: 49 of 150 requests ended with LLMPerf's client-side error code -100.
    (r,) = one("llmperf/bedrock_70b.json", HOSTED)
    assert (r.requests_ok, r.requests_failed, r.output_tok_s) == (101, 49, 62.867056292903534)
    assert "49 of 150 requests failed (error codes {-100.0: 49})" in r.notes


# -- vLLM benchmark_serving.py: nerdalert/vllm-bench-automation vllm-benchmark-graphs/results.json -

LLM_D = "vllm/results.json"  # 9 JSON lines: 3 llm-d deployments x request rate 10, 30, inf


def test_vllm_results_without_a_precision_ask_for_one():
    with pytest.raises(ResultFileError, match="precision: the file does not say the precision"):
        one(LLM_D)


def test_vllm_deployment_of_four_replicas_is_read_per_replica():
    # --metadata "gpu=4xNVIDIA_L40S ... prefill_replicas=0 decode_replicas=4": four one-GPU vLLM
    # replicas behind a gateway. The client measured their sum, so a replica's share is a quarter
    # of the throughput and offered load; latency is per request and stays as written.
    results = one(LLM_D, replace(NONE, precision="bf16"))
    assert len(results) == 9
    assert {(r.accelerator_id, r.accelerators_per_replica) for r in results} == {
        ("nvidia-l40s-48gb", 1)
    }
    first = results[0]  # "no-features", request_rate 10.0, 300 prompts
    assert first.model == "meta-llama/Llama-3.2-3B-Instruct" and first.runtime == "vllm"
    assert first.output_tok_s == pytest.approx(2258.212337970085 / 4)
    assert first.total_tok_s == pytest.approx(10619.275253401978 / 4)
    assert first.request_rate_rps == pytest.approx(10.0 / 4)
    assert (first.ttft_ms_p50, first.ttft_ms_p99) == (52.868896000063614, 98.69780922984769)
    assert (first.tpot_ms_p50, first.tpot_ms_p99) == (13.686303201518745, 15.793261194984588)
    assert (first.requests_ok, first.requests_failed) == (300, 0)
    assert (first.input_tokens, first.output_tokens) == (round(299700 / 300), round(80945 / 300))
    assert first.measured_at.isoformat() == "2025-05-30T19:47:38+00:00"  # "date": "20250530-194738"
    assert "4 replicas behind one endpoint" in first.notes
    # request_rate "inf" (a string in that vLLM version): a burst of all 900 prompts.
    burst = results[2]
    assert burst.request_rate_rps is None and burst.concurrency == pytest.approx(900 / 4)
    assert burst.output_tok_s == pytest.approx(8321.230575856995 / 4)
    assert burst.ttft_ms_p50 == 4066.1594384998807


def test_vllm_replica_count_overrides_do_not_double_count():
    # --accelerators-per-replica says how many GPUs one replica holds; the file's four replicas
    # still share the measured throughput.
    results = one(LLM_D, replace(NONE, precision="bf16", accelerators_per_replica=2))
    assert results[0].accelerators_per_replica == 2
    assert results[0].output_tok_s == pytest.approx(2258.212337970085 / 4)


# -- SGLang bench_serving: datacrunch-research/h200-benchmarks sglang/outputs/*.jsonl --------------

H200_TP4 = replace(
    NONE,
    accelerator_id="nvidia-h200-141gb",
    accelerators_per_replica=4,
    model="meta-llama/Llama-3.3-70B-Instruct",
    precision="bf16",
)


def test_sglang_output_file_asks_for_what_it_does_not_say():
    # That SGLang version wrote no model, hardware or precision into --output-file; the
    # repository's script says "Llama 3.3 70B on 4 x H200 (bf16)", --tp-size 4.
    with pytest.raises(ResultFileError, match="pass --accelerator … --model … --precision …"):
        one("sglang/llama_3_3_70b_online_output.jsonl")


def test_sglang_online_lines_import_to_what_bench_serving_wrote():
    results = one("sglang/llama_3_3_70b_online_output.jsonl", H200_TP4)
    assert [r.request_rate_rps for r in results] == [1.0, 2.0, 4.0, 8.0, 16.0, 4.0, 8.0]
    first = results[0]
    assert (first.runtime, first.source_tool) == ("sglang", "sglang-bench-serving")
    assert first.output_tok_s == 537.4142851849319
    assert first.ttft_ms_p50 == 85.74514742940664  # only the median TTFT was written
    assert first.ttft_ms_p99 is None and first.tpot_ms_p50 is None
    assert first.e2el_ms_p50 == 7819.046192569658
    assert first.requests_ok == 300
    assert first.total_tok_s == pytest.approx((152612 + 160347) / 298.3675805060193)
    assert (first.input_tokens, first.output_tokens) == (round(152612 / 300), round(160347 / 300))
    assert first.measured_at is None and "date unknown" in first.notes
    assert results[-2].workload.startswith("sharegpt-")
    assert all(check_result(r, load_catalog()).verdict == "within" for r in results)


def test_sglang_offline_burst_lines_are_labelled_as_bursts():
    results = one("sglang/llama_3_3_70b_offline_output.jsonl", H200_TP4)
    assert len(results) == 7
    assert [r.output_tok_s for r in results][:2] == [4520.698730654741, 3492.2944910189917]
    assert all(r.request_rate_rps is None and "burst" in r.notes for r in results)
    assert results[0].ttft_ms_p50 == 91282.20983641222  # 3000 prompts sent at once


# -- Written by the real tools against tokendesk's fake server (README: command, version, date) ----

FAKE = replace(NONE, accelerator_id="nvidia-l4-24gb", runtime="tokendesk-fake", precision="bf16")
AIPERF = "aiperf/fake_echo-1-openai-chat-concurrency4/profile_export_aiperf"


def test_aiperf_013_json_imports_to_what_aiperf_wrote():
    # AIPerf 0.13 names the model under input_config.models.items[].name and writes
    # total_token_throughput itself.
    (r,) = one(f"{AIPERF}.json", FAKE)
    assert (r.model, r.source_tool, r.concurrency) == ("fake/echo-1", "aiperf", 4)
    assert r.output_tok_s == 307.3792468024217
    assert r.total_tok_s == 1012.4785943061847
    assert (r.ttft_ms_p50, r.ttft_ms_p99) == (55.783376499999996, 133.49119170999998)
    assert r.tpot_ms_p50 == 9.959941615207374  # AIPerf's inter_token_latency
    assert (r.input_tokens, r.requests_ok) == (64, 40)
    assert r.measured_at.isoformat() == "2026-12-01T06:28:49.076139+00:00"


def test_aiperf_013_csv_imports_to_what_aiperf_wrote():
    # The 0.13 CSV header is "Metric,avg,min,max,sum,p1,..." (a sum column before p1); the CSV
    # names no model, and the concurrency comes from the artifact directory's name.
    with pytest.raises(ResultFileError, match="pass --model"):
        one(f"{AIPERF}.csv", FAKE)
    (r,) = one(f"{AIPERF}.csv", replace(FAKE, model="fake/echo-1"))
    assert (r.output_tok_s, r.total_tok_s, r.concurrency) == (307.38, 1012.48, 4)
    assert (r.ttft_ms_p50, r.ttft_ms_p99, r.tpot_ms_p50) == (55.78, 133.49, 9.96)
    assert r.measured_at is None  # the CSV carries no date


def test_guidellm_081_benchmarks_json_imports_to_what_guidellm_wrote():
    (r,) = one("guidellm/benchmarks.json", FAKE)
    assert (r.model, r.source_tool, r.concurrency) == ("fake/echo-1", "guidellm", 4)
    assert r.output_tok_s == 313.66809628967195  # printed as 313.7 output tokens per second
    assert r.total_tok_s == 1074.6645739419266
    assert (r.ttft_ms_p50, r.ttft_ms_p99) == (52.22940444946289, 71.81382179260254)
    assert r.tpot_ms_p50 == 9.999590535317697  # inter_token_latency_ms, not time_per_output_token
    assert r.e2el_ms_p50 == pytest.approx(362.0476722717285)  # request_latency is in seconds
    assert (r.requests_ok, r.requests_failed) == (40, 0)
    assert r.measured_at.isoformat() == "2026-12-01T06:26:43.119085+00:00"


GENAI_PERF = "genai-perf/fake_echo-1-openai-chat-concurrency4/profile_export_genai_perf"


def test_genai_perf_0016_json_imports_to_what_genai_perf_wrote():
    # genai-perf 0.0.16 keeps the concurrency under perf_analyzer.stimulus; its "analyze" sweep
    # bounds ({"min": 1, "max": 1024}) carry the same key and must not be read as the load.
    (r,) = one(f"{GENAI_PERF}.json", FAKE)
    assert (r.model, r.source_tool, r.concurrency) == ("fake/echo-1", "genai-perf", 4)
    assert r.output_tok_s == 319.6681587890046  # printed as 319.67
    assert (r.ttft_ms_p50, r.ttft_ms_p99) == (51.384480499999995, 59.76985814)
    assert r.tpot_ms_p50 == 9.9989065  # genai-perf's inter_token_latency
    assert (r.input_tokens, r.output_tokens, r.requests_ok) == (17, 29, 40)
    assert r.total_tok_s is None  # genai-perf writes no total throughput
    assert r.measured_at is None  # nor a date: "date unknown", never the import time


def test_genai_perf_0016_backend_default_is_not_taken_for_the_server():
    # The file says backend "tensorrtllm" (genai-perf's default) for a run against an
    # OpenAI-compatible endpoint that was tokendesk's fake server.
    with pytest.raises(ResultFileError, match="pass --runtime"):
        one(f"{GENAI_PERF}.json", replace(FAKE, runtime=None))


def test_genai_perf_0016_csv_imports_to_what_genai_perf_wrote():
    with pytest.raises(ResultFileError, match="pass --model"):
        one(f"{GENAI_PERF}.csv", FAKE)
    (r,) = one(f"{GENAI_PERF}.csv", replace(FAKE, model="fake/echo-1"))
    assert (r.output_tok_s, r.concurrency) == (319.67, 4)  # concurrency from the folder name
    assert (r.ttft_ms_p50, r.ttft_ms_p99, r.tpot_ms_p50) == (51.38, 59.77, 10.0)


# llama-bench from llama.cpp 0c1e570 (the copy vendored in llama-cpp-python 0.3.36), run here on
# the tests' tiny random-weight model: the 42-column schema of late 2026, every output format.
NEW_LLAMA_BENCH = "llama-bench/b1_0c1e570_new_schema"
ON_THIS_CPU = replace(NONE, accelerator_id="cpu-amd-genoa", accelerators_per_replica=1)


@pytest.mark.parametrize(
    ("ext", "tg_ts", "pp_ts"),
    [
        ("csv", 5607.015151, 65761.546721),
        ("json", 6985.725614, 168.664181),
        ("jsonl", 6141.472759, 37775.917755),
    ],
)
def test_new_llama_bench_schema_imports_to_what_llama_bench_wrote(ext, tg_ts, pp_ts):
    # "AMD EPYC" names no generation, so the CPU has to be given.
    with pytest.raises(ResultFileError, match="pass --accelerator"):
        one(f"{NEW_LLAMA_BENCH}.{ext}")
    (r,) = one(f"{NEW_LLAMA_BENCH}.{ext}", ON_THIS_CPU)
    assert (r.model, r.precision, r.workload) == ("tiny", "f32", "pp64+tg16")  # "all F32"
    assert r.output_tok_s == tg_ts
    assert r.ttft_ms_p50 == pytest.approx(1000 * 64 / pp_ts)
    assert (r.runtime, r.runtime_version) == ("llama.cpp", "b1 (0c1e570)")
    assert r.measured_at.isoformat().startswith("2026-12-01T10:03:4")


def test_new_llama_bench_markdown_of_an_unsized_model_asks_for_its_name():
    # The table's model column is "llama ?B all F32": an architecture with no size is not a
    # model anyone could price, so the importer asks rather than storing that text as the model.
    with pytest.raises(ResultFileError, match="pass --model"):
        one(f"{NEW_LLAMA_BENCH}.md", ON_THIS_CPU)
    (r,) = one(f"{NEW_LLAMA_BENCH}.md", replace(ON_THIS_CPU, model="tiny"))
    assert (r.output_tok_s, r.precision, r.input_tokens) == (11224.35, "f32", 64)
    assert r.ttft_ms_p50 == pytest.approx(1000 * 64 / 79595.83)


VLLM_BENCH_SERVE = "vllm/openai-chat-infqps-concurrency4-echo-1-20261201-101900.json"


def test_vllm_033_bench_serve_result_imports_to_what_vllm_printed():
    # `vllm bench serve --save-result` (vLLM 0.33.0). Its max_concurrent_requests (16: the peak
    # seen in flight) is not the concurrency the run was capped at (max_concurrency, 4).
    with pytest.raises(ResultFileError, match="pass --accelerator"):
        one(VLLM_BENCH_SERVE)
    (r,) = one(VLLM_BENCH_SERVE, FAKE)
    assert (r.model, r.concurrency, r.requests_ok, r.requests_failed) == ("fake/echo-1", 4, 40, 0)
    assert r.output_tok_s == 335.613217962156  # printed as 335.61
    assert r.total_tok_s == 1174.0533066520652  # printed as 1174.05
    assert (r.ttft_ms_p50, r.ttft_ms_p99) == (52.40734849940054, 54.94312902015736)
    assert r.tpot_ms_p50 == 10.00103905517884  # printed as Median TPOT 10.00
    assert (r.input_tokens, r.output_tokens) == (71, 28)  # 2828 and 1132 tokens over 40 requests
    assert r.measured_at.isoformat() == "2026-12-01T10:19:00+00:00"


GUIDELLM_BOTH = "guidellm/csv_and_json/benchmarks"


def test_guidellm_081_csv_imports_to_the_figures_of_its_json_twin():
    # One run written both ways (--output kind=csv and kind=json): the CSV's percentile list is
    # [min, p001 … p25, p75 … p99, max] with the median in its own column, so every figure read
    # from it must equal the JSON's.
    (from_csv,) = one(f"{GUIDELLM_BOTH}.csv", FAKE)
    (from_json,) = one(f"{GUIDELLM_BOTH}.json", FAKE)
    assert from_csv.output_tok_s == 312.6663252783019  # printed as 312.7
    assert (from_csv.ttft_ms_p50, from_csv.ttft_ms_p99) == (52.620887756347656, 62.41869926452637)
    assert from_csv.concurrency == 4 and from_csv.source_tool == "guidellm"
    fields = (
        "model",
        "concurrency",
        "output_tok_s",
        "total_tok_s",
        "ttft_ms_p50",
        "ttft_ms_p90",
        "ttft_ms_p95",
        "ttft_ms_p99",
        "tpot_ms_p50",
        "tpot_ms_p95",
        "tpot_ms_p99",
        "e2el_ms_p50",
        "e2el_ms_p95",
        "input_tokens",
        "output_tokens",
        "requests_ok",
        "requests_failed",
    )
    assert {f: getattr(from_csv, f) for f in fields} == {f: getattr(from_json, f) for f in fields}
    assert from_csv.measured_at.date() == from_json.measured_at.date()


LLMD_V01 = "llm-d-benchmark/br_v0_1_inference-perf_tpu7x_stage0.yaml"


def test_llm_d_report_01_asks_for_the_hardware_it_does_not_state():
    # The report of a run on an existing stack states no host and no engine precision: the
    # import asks for every flag at once instead of guessing a TPU or a precision.
    with pytest.raises(ResultFileError) as caught:
        one(LLMD_V01)
    for flag in ("--accelerator", "--accelerators-per-replica", "--precision"):
        assert flag in caught.value.reason


def test_llm_d_report_01_imports_to_what_the_report_states():
    # The guide quoting it says 8 TPU 7x chips served it; the report itself does not.
    flags = replace(
        NONE, accelerator_id="google-tpu-v7", accelerators_per_replica=8, precision="fp8"
    )
    (r,) = one(LLMD_V01, flags)
    assert (r.accelerator_id, r.accelerators_per_replica, r.source_tool) == (
        "google-tpu-v7",
        8,
        "llm-d-benchmark",
    )
    # scenario.model.name is "unknown"; the harness configuration names the model it requested.
    assert r.model == "Qwen/Qwen3.5-397B-A17B-FP8" and "'unknown'" in r.notes
    assert r.runtime == "vllm" and "server type" in r.notes
    # inference-perf stage 0 of a constant-rate load at 1 req/s; its 100 workers are a cap.
    assert (r.request_rate_rps, r.concurrency) == (1.0, None)
    assert r.output_tok_s == 536.2990930576744
    assert r.total_tok_s == 1361.179763925593
    assert (r.ttft_ms_p50, r.ttft_ms_p99) == (2560.1073873694986, 5700.49525849987)
    assert (r.tpot_ms_p50, r.tpot_ms_p99) == (37.827638220733206, 42.248297349610766)
    assert r.e2el_ms_p50 == 41635.87325881235
    assert (r.input_tokens, r.output_tokens) == (1050, 683)  # means 1050.175 and 682.775
    assert (r.requests_ok, r.requests_failed) == (120, 0)
    assert r.workload == "random-isl1050-osl683"
    assert r.measured_at is None and "date unknown" in r.notes
    assert "not understood" not in r.notes


LLMD_RATE45 = "llm-d-benchmark/br_v0_1_inference-perf_gpt-oss-120b_h200_rate45.yaml"
LLMD_STAGE2 = "llm-d-benchmark/br_v0_1_inference-perf_qwen3-32b_shared-prefix_stage2_rate10.yaml"
LLMD_1500 = (
    "llm-d-benchmark/br_v0_1_inference-perf_qwen3-32b_shared-prefix_stage2_1500requests.yaml"
)


def test_llm_d_report_01_of_a_constant_rate_run_on_h200():
    # The guide quoting it: "running on 16 H200 GPUs"; gpt-oss-120b's weights are MXFP4.
    flags = replace(
        NONE, accelerator_id="nvidia-h200-141gb", accelerators_per_replica=16, precision="mxfp4"
    )
    (r,) = one(LLMD_RATE45, flags)
    assert (r.model, r.request_rate_rps, r.concurrency) == ("openai/gpt-oss-120b", 45.0, None)
    assert (r.output_tok_s, r.total_tok_s) == (12236.597879353767, 236554.83733748455)
    assert (r.ttft_ms_p50, r.ttft_ms_p99) == (1264.039859175682, 4425.801018970096)
    assert (r.tpot_ms_p50, r.tpot_ms_p99) == (8.331082850694656, 9.630139790810645)
    assert (r.input_tokens, r.output_tokens, r.requests_ok) == (5151, 281, 5400)


def test_llm_d_report_01_of_one_stage_of_many_carries_that_stage_s_rate():
    # 17 Poisson stages (15, 3, 10, 15 … 60 req/s); the report is stage 2's: 10 req/s for 20 s,
    # 200 requests. The guide names no accelerator, so a stand-in is passed.
    flags = replace(NONE, accelerator_id="nvidia-h100-sxm-80gb", precision="bf16")
    with pytest.raises(ResultFileError, match="--accelerators-per-replica"):
        one(LLMD_STAGE2, flags)
    (r,) = one(LLMD_STAGE2, replace(flags, accelerators_per_replica=2))
    assert (r.model, r.request_rate_rps, r.concurrency) == ("Qwen/Qwen3-32B", 10.0, None)
    assert "stage 2 of 17" in r.notes and "poisson" in r.notes
    assert (r.output_tok_s, r.total_tok_s) == (4023.797460896292, 37479.873410757944)
    assert (r.ttft_ms_p50, r.ttft_ms_p99) == (136.047175998101, 391.44611745723483)
    assert r.e2el_ms_p50 == 23907.766903503216
    assert (r.input_tokens, r.output_tokens, r.requests_ok) == (7577, 911, 200)
    assert r.workload == "shared_prefix-isl7577-osl911"


def test_llm_d_report_01_whose_figures_do_not_fit_its_stage_is_refused():
    # A later revision of the same guide quotes a "stage 2" report of 1,500 requests in 25 s:
    # stage 2 sends about 200 (the last stage, 60 req/s for 25 s, sends 1,500). Recording it at
    # 10 req/s would pair its figures with a load they were not measured at.
    flags = replace(
        NONE, accelerator_id="nvidia-h100-sxm-80gb", accelerators_per_replica=2, precision="bf16"
    )
    with pytest.raises(ResultFileError, match="1500 requests, but stage 2 sends about 200"):
        one(LLMD_1500, flags)


# -- MLPerf v6.0 and v6.1 ---------------------------------------------------------------------

V60 = "mlperf_v6.0/closed"
V60_B300 = f"{V60}/NVIDIA/results/B300-SXM-270GBx8_TRT/deepseek-r1/Server"
V60_AMD87 = f"{V60}/AMD/results/87xMI355X_22xEPYC_9575F/llama2-70b-99/Offline"
V60_MIXED = (
    f"{V60}/Dell_MangoBoost/results/8xMI300X_2xEPYC_9534_8xMI325X_2xEPYC_9655_8xMI355X_2xEPYC_9965/"
    "llama2-70b-99/Offline"
)
V61_B300_QWEN = (
    "mlperf_v6.1/closed/NVIDIA/results/B300-SXM-270GBx8_TRT/qwen3-vl-235b-a22b/Server/"
    "performance/result_summary.json"
)


def test_v60_run_reads_the_measurements_json_beside_it(tmp_path):
    # v6.0 keeps results/<system>/<benchmark>/<Scenario>/measurements.json beside performance/;
    # NVIDIA's says weight_data_types "fp4".
    (r,) = one(f"{V60_B300}/{RUN}")
    assert (r.precision, r.scenario, r.model, r.workload) == (
        "fp4",
        "server",
        "deepseek-r1",
        "mlperf-deepseek-r1-server",
    )
    # The summary prints "Completed tokens per second: 42721.39" and a 767649790 ns p95 TTFT.
    assert (r.output_tok_s, round(r.ttft_ms_p95, 1), r.request_rate_rps) == (42721.39, 767.6, 11.5)
    # Without that file the precision is asked for, not guessed.
    copy = tmp_path / V60_B300
    shutil.copytree(REAL / V60_B300, copy)
    shutil.copytree(REAL / f"{V60}/NVIDIA/systems", tmp_path / f"{V60}/NVIDIA/systems")
    (copy / "measurements.json").unlink()
    with pytest.raises(ResultFileError, match="precision unknown"):
        import_files([copy / RUN])


def test_v60_b300_270gb_is_the_catalog_s_b300_and_trt_llm_ran_deepseek():
    # "NVIDIA B300-SXM-270GB", accelerator_memory_capacity "270 GB": the 288 GB part. The system's
    # framework lists TensorRT-LLM and a vLLM build labelled for Qwen3-VL ("mm-q3vl").
    (r,) = one(f"{V60_B300}/{RUN}")
    assert (r.accelerator_id, r.accelerators_per_replica, r.nodes) == ("nvidia-b300-288gb", 8, 1)
    assert r.runtime == "trt-llm" and "build is labelled for qwen3-vl" in r.notes
    # "unchecked" until deepseek-r1 is in data/model_architectures.csv; never out of bounds.
    assert check_result(r, load_catalog()).verdict in ("within", "unchecked")


def test_v60_x87_system_is_87_accelerators_on_11_nodes():
    # systems/87xMI355X_22xEPYC_9575F.json: "AMD Instinct MI355X 288GB HBM3e (x87)", 8 per node,
    # 11 nodes (88 slots); the run's README sets harness_config.device_count=87.
    (r,) = one(f"{V60_AMD87}/{RUN}")
    assert (r.accelerator_id, r.accelerators_per_replica, r.nodes) == ("amd-mi355x-288gb", 87, 11)
    assert r.output_tok_s == 1042110.0  # "Tokens per second: 1.04211e+06"
    assert "(x87)" in r.notes and "would be 88" in r.notes
    assert check_result(r, load_catalog()).verdict == "within"


def test_v60_mixed_accelerator_system_is_refused_naming_its_parts():
    with pytest.raises(ResultFileError) as err:
        one(f"{V60_MIXED}/{RUN}")
    reason = err.value.reason
    assert "mixed accelerators" in reason and "--accelerator" not in reason
    for part in ("MI300X 192GB HBM3 (x8)", "MI325X 256GB HBM3e (x8)", "MI355X 288GB HBM3e (x8)"):
        assert part in reason


def test_v60_summary_rows_name_the_models_the_benchmarks_run():
    path = "mlperf_v6.0/summary_results.json"
    # The mixed AMD system's row stops the file until --skip-unknown-hardware leaves it out.
    with pytest.raises(ResultFileError, match="mixed accelerators.*pass --skip-unknown-hardware"):
        one(path)
    results = one(path, replace(NONE, skip_unknown_accelerators=True))
    by = {r.workload: r for r in results}
    # Eleven rows: the mixed one is left out, whisper and Qwen3-VL (Samples/s) are no token rows.
    assert len(results) == 8
    assert {r.model for r in results} == {
        "llama-2-70b",
        "llama-3.1-8b",
        "llama-3.1-70b",
        "llama-3.1-405b",
        "mixtral-8x7b",
        "deepseek-r1",
        "gpt-oss-120b",
    }
    amd = by["mlperf-llama2-70b-99-offline"]  # "Total Accelerators": 88 in the row
    assert (amd.accelerators_per_replica, amd.nodes, amd.output_tok_s) == (87, 11, 1042110.0)
    deepseek = by["mlperf-deepseek-r1-server"]
    assert (deepseek.accelerator_id, deepseek.runtime) == ("nvidia-b300-288gb", "trt-llm")
    # Krai (open division) ran "llama3_1-70b-fp8_dyn" for the llama2-70b-99.9 benchmark.
    krai = by["mlperf-llama2-70b-99.9-offline"]
    assert (krai.model, krai.runtime) == ("llama-3.1-70b", "vllm")
    assert "for the llama2-70b-99.9 benchmark" in krai.notes
    # v6.0 carries no publication date: "date unknown", never a guess.
    assert all(r.measured_at is None for r in results)


def test_v61_endpoints_result_summary_imports_its_figures():
    # No measurements.json beside this run in the stored copy: the precision is asked for.
    with pytest.raises(ResultFileError, match="precision unknown"):
        one(V61_B300_QWEN)
    # NVIDIA's Qwen3-VL configs load an NVFP4 checkpoint (v6.0 closed/NVIDIA/configs/
    # GB200-NVL72_GB200-186GB_aarch64x4/Offline/qwen3-vl-235b-a22b.py, model_repo_id).
    (r,) = one(V61_B300_QWEN, replace(NONE, precision="fp4"))
    assert (r.accelerator_id, r.accelerators_per_replica, r.runtime) == (
        "nvidia-b300-288gb",
        8,
        "vllm",  # the framework's vLLM build labelled "mm-q3vl"
    )
    assert (r.model, r.scenario, r.workload) == (
        "qwen3-vl-235b-a22b",
        "server",
        "mlperf-qwen3-vl-235b-a22b-server",
    )
    # "tps": 4488.921717582117; ttft "95.0": 2894474188.0 ns; tpot "99.0": 210068247.32608697 ns;
    # run_config.load_pattern: poisson, target_qps 105.0.
    assert r.output_tok_s == 4488.921717582117
    assert (round(r.ttft_ms_p95, 3), round(r.tpot_ms_p99, 3)) == (2894.474, 210.068)
    assert r.request_rate_rps == 105.0 and r.measured_at is None
    assert "legacy LoadGen Server window" in r.notes


def test_v61_endpoints_run_that_did_not_complete_is_refused(tmp_path):
    data = json.loads((REAL / V61_B300_QWEN).read_text(encoding="utf-8"))
    data.update(state="interrupted", complete=False)
    path = tmp_path / V61_B300_QWEN
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ResultFileError, match="only a complete run is a result"):
        import_files([path], replace(NONE, precision="fp4"))


def test_v61_endpoints_summary_of_a_non_llm_benchmark_is_refused(tmp_path):
    # The same harness writes result_summary.json for Wan 2.2 text-to-video runs.
    path = tmp_path / V61_B300_QWEN.replace("qwen3-vl-235b-a22b", "wan-2.2-t2v-a14b")
    path.parent.mkdir(parents=True)
    shutil.copyfile(REAL / V61_B300_QWEN, path)
    with pytest.raises(ResultFileError, match="wan-2.2-t2v-a14b is not an LLM benchmark"):
        import_files([path], replace(NONE, precision="fp4"))


def test_v60_whisper_tokens_per_second_is_refused():
    # Whisper's LoadGen summary prints "Tokens per second: 47433.9": speech-to-text tokens.
    with pytest.raises(ResultFileError, match="whisper is not an LLM benchmark"):
        one(f"{V60}/NVIDIA/results/B200-SXM-180GBx8_TRT/whisper/Offline/{RUN}")


# -- latencies in seconds (InferenceX's benchmark_serving_random.py) -----------------------------

GLM5 = "inferencex/glm5_fp8_vllm_tp8_isl1024_osl128_conc4.json"
#: Stand-ins for what the file does not say (its scripts name no GPU model); checked: none.
GLM5_FLAGS = replace(
    NONE,
    accelerator_id="nvidia-h100-sxm-80gb",
    accelerators_per_replica=8,
    runtime="vllm",
    precision="fp8",
)


def test_a_serving_result_in_seconds_asks_for_what_it_does_not_say():
    with pytest.raises(ResultFileError, match="pass --accelerator"):
        one(GLM5)


def test_a_serving_result_in_seconds_has_its_latencies_in_ms():
    # The script prints "Median TTFT (s):" and stores the same seconds under median_ttft; every
    # expected figure below is the file's own value x 1000.
    (r,) = one(GLM5, GLM5_FLAGS)
    assert r.ttft_ms_p50 == pytest.approx(0.26499967742711306 * 1000)  # "median_ttft"
    assert r.ttft_ms_p99 == pytest.approx(0.5848183088190854 * 1000)  # "p99_ttft"
    assert r.tpot_ms_p50 == pytest.approx(0.021372462615488082 * 1000)  # "median_tpot"
    assert r.tpot_ms_p99 == pytest.approx(0.026454948791720733 * 1000)  # "p99_tpot"
    assert r.e2el_ms_p50 == pytest.approx(3.0225854497402906 * 1000)  # "median_e2el"
    assert r.output_tok_s == 164.72765441223032  # "output_throughput"
    assert r.total_tok_s == pytest.approx(1317.8212352978426 + 164.72765441223032)
    assert (r.model, r.concurrency, r.workload) == (
        "zai-org/GLM-5-FP8",
        4,
        "serving-isl1024-osl128",
    )
    assert "latencies read as seconds" in r.notes
    assert r.measured_at.isoformat() == "2026-02-13T14:13:21+00:00"  # "date": "20260213-141321"


def test_a_serving_result_mixing_seconds_and_ms_is_refused():
    data = json.loads((REAL / GLM5).read_bytes())
    data["median_ttft_ms"] = 265.0
    path = REAL / GLM5
    with pytest.raises(ResultFileError, match="cannot be told") as err:
        import_sources([(path.name, json.dumps(data).encode())], GLM5_FLAGS)
    assert err.value.key == "median_e2el" and path.name in str(err.value)


def test_an_inferencex_aggregate_with_ms_latencies_too_is_refused():
    path = (
        REAL
        / "inferencex"
        / (
            "agg_kimik2.5_1k1k_int4_vllm_tp8-ep1-dpafalse_disagg-false_spec-mtp_conc4_"
            "MI355-gbt350-odcdh5-wbb3.json"
        )
    )
    data = json.loads(path.read_bytes())
    data["median_ttft_ms"] = 296.9768075272441
    with pytest.raises(ResultFileError, match="_ms suffix"):
        import_sources([(path.name, json.dumps(data).encode())])


# -- trtllm-bench throughput reports (TensorRT-LLM's docs) ---------------------------------------

TRT_017 = "trtllm-bench/v0.17_throughput_engine_log.txt"
TRT_STREAMING = "trtllm-bench/perf_overview_streaming_report.txt"
H100 = replace(NONE, accelerator_id="nvidia-h100-sxm-80gb")


def test_a_trtllm_bench_report_names_no_gpu_so_asks_for_it():
    with pytest.raises(ResultFileError, match="pass --accelerator") as err:
        one(TRT_017)
    assert err.value.key == "MACHINE DETAILS"


def test_trtllm_bench_017_log_imports_to_what_the_report_printed():
    (r,) = one(TRT_017, H100)
    # "Token Throughput (tokens/sec):  28390.4265" is the output throughput: the report's own
    # "Number of requests: 3000" x "Average Output Length (tokens): 128.0000" / "Total Latency
    # (ms): 13525.6862" gives the same figure (the input tokens would double it).
    assert r.output_tok_s == 28390.4265
    assert r.output_tok_s == pytest.approx(3000 * 128 / 13.5256862, rel=1e-6)
    assert (r.model, r.runtime, r.runtime_version) == (
        "meta-llama/Llama-3.1-8B",
        "trt-llm",
        "0.17.0",
    )
    assert (r.precision, r.accelerators_per_replica) == (
        "fp8",
        1,
    )  # "Quantization: FP8", TP 1 x PP 1
    assert (r.workload, r.requests_ok, r.scenario) == ("isl128-osl128", 3000, "offline")
    assert r.ttft_ms_p50 is None and "did not stream" in r.notes
    # "[01/18/2025-01:01:42] [TRT-LLM] [I] Benchmark complete."
    assert r.measured_at.isoformat() == "2025-01-18T01:01:42+00:00"


def test_trtllm_bench_log_saved_without_its_command_line_is_read_not_refused_as_json():
    # The log as `trtllm-bench ... | tee` saves it starts with "[TensorRT-LLM] TensorRT-LLM
    # version: 0.17.0": not JSON, though its first character is "[".
    text = (REAL / TRT_017).read_bytes().split(b"\n", 1)[1]
    assert text.startswith(b"[TensorRT-LLM]")
    [(_, fmt, [r])] = import_sources([("trtllm.log", text)], H100)
    assert fmt == "trtllm-bench" and r.output_tok_s == 28390.4265


def test_a_streaming_trtllm_bench_report_has_ttft_and_tpot_percentiles():
    with pytest.raises(ResultFileError, match="pass --accelerator .* --model .* --precision"):
        one(TRT_STREAMING)
    (r,) = one(TRT_STREAMING, replace(H100, model="m", precision="fp8"))
    assert r.output_tok_s == 5530.7382  # "Total Output Throughput (tokens/sec)"
    assert r.total_tok_s == 94022.5497  # "Total Token Throughput (tokens/sec)"
    # "[TTFT] P50    : 52269.7072" ... "[TTFT] P99    : 106563.4497"
    assert (r.ttft_ms_p50, r.ttft_ms_p90, r.ttft_ms_p95, r.ttft_ms_p99) == (
        52269.7072,
        96583.7187,
        101978.4566,
        106563.4497,
    )
    assert (r.tpot_ms_p50, r.tpot_ms_p95, r.tpot_ms_p99) == (204.0463, 206.5064, 206.5821)
    assert (r.e2el_ms_p50, r.e2el_ms_p95) == (78509.2102, 111302.9101)  # "[Latency] P50 / P95"
    assert r.measured_at is None and "date unknown" in r.notes


def test_a_trtllm_bench_report_without_an_output_throughput_is_refused():
    text = (REAL / TRT_STREAMING).read_text().replace("Total Output Throughput", "Output")
    with pytest.raises(ResultFileError, match="no positive output throughput") as err:
        import_sources([("report.txt", text.encode())], replace(H100, model="m", precision="fp8"))
    assert err.value.key == "Total Output Throughput (tokens/sec)"


def test_a_trtllm_bench_report_with_a_garbled_figure_names_its_line():
    text = (
        (REAL / TRT_STREAMING).read_text().replace("[TTFT] P50    : 52269.7072", "[TTFT] P50 : x")
    )
    with pytest.raises(ResultFileError, match="expected a number") as err:
        import_sources([("report.txt", text.encode())], replace(H100, model="m", precision="fp8"))
    assert err.value.key == "line 30: [TTFT] P50"  # the line it sits on in the file


# -- GuideLLM's YAML report ----------------------------------------------------------------------

GUIDELLM_YAML = "guidellm/yaml_and_json/benchmarks"


def test_guidellm_081_yaml_imports_to_the_figures_of_its_json_twin():
    # One run written both ways (--output kind=yaml and kind=json).
    (from_yaml,) = one(f"{GUIDELLM_YAML}.yaml", FAKE)
    (from_json,) = one(f"{GUIDELLM_YAML}.json", FAKE)
    # benchmarks.yaml line 860: "mean: 320.90982840779134" under output_tokens_per_second
    assert from_yaml.output_tok_s == 320.90982840779134
    # lines 4608 and 4612: time_to_first_token_ms successful percentiles p50 and p99
    assert (from_yaml.ttft_ms_p50, from_yaml.ttft_ms_p99) == (53.801774978637695, 67.6729679107666)
    assert (from_yaml.model, from_yaml.concurrency) == ("fake/echo-1", 4)
    assert from_yaml.model_dump(exclude={"source_file"}) == from_json.model_dump(
        exclude={"source_file"}
    )


def test_a_guidellm_yaml_without_its_metrics_names_the_key():
    text = (REAL / f"{GUIDELLM_YAML}.yaml").read_text()
    broken = text.replace("    output_tokens_per_second:\n", "    output_tokens_per_second_x:\n", 1)
    with pytest.raises(ResultFileError, match="required metric is missing") as err:
        import_sources([("benchmarks.yaml", broken.encode())], FAKE)
    assert err.value.key == "benchmarks[0].metrics.output_tokens_per_second"


# -- llama-bench: a wrapper's log of several runs ------------------------------------------------

THREE_RUNS = "llama-bench/b1_0c1e570_wrapper_three_runs.log"


def test_a_log_of_three_llama_bench_runs_imports_every_table():
    rows = one(THREE_RUNS, replace(ON_THIS_CPU, model="tiny"))
    # Each table's tg row and its pp row, as printed ("tg16 | 31779.53 ± 3524.41", ...).
    assert [r.output_tok_s for r in rows] == [31779.53, 26077.81, 10536.95]
    assert [r.ttft_ms_p50 for r in rows] == pytest.approx(
        [1000 * 64 / 117704.66, 1000 * 64 / 62800.33, 1000 * 64 / 69428.18]
    )
    assert [r.workload for r in rows] == ["pp64+tg16", "pp64+tg16", "pp64+tg16@d32"]
    assert ["threads=1" in rows[0].notes, "threads=2" in rows[1].notes] == [True, True]
    assert {r.runtime_version for r in rows} == {"b1 (0c1e570)"}  # each run's "build:" line


def test_a_cut_short_table_in_a_log_of_several_runs_names_its_table_and_line():
    lines = (REAL / THREE_RUNS).read_text().splitlines(keepends=True)
    cut = "".join(lines[:11] + lines[13:])  # run 2's pp64 and tg16 rows gone
    with pytest.raises(ResultFileError, match="cut short") as err:
        import_sources([("runs.log", cut.encode())], replace(ON_THIS_CPU, model="tiny"))
    assert err.value.key == "table 2, line 10"


def test_a_row_with_a_missing_cell_in_a_later_table_names_its_table_and_line():
    text = (
        (REAL / THREE_RUNS).read_text().replace("|       2 |      tg16 @ d32 |", "| tg16 @ d32 |")
    )
    with pytest.raises(ResultFileError, match="cells but the header has 7") as err:
        import_sources([("runs.log", text.encode())], replace(ON_THIS_CPU, model="tiny"))
    assert err.value.key == "table 3, line 21"


def test_a_transcript_of_a_cpu_run_then_a_sycl_run_reads_both_tables():
    # Two llama-bench runs pasted one after the other; SYCL's warnings sit inside the second
    # table, between its separator and its rows.
    path = "llama-bench/b6082_cpu_then_sycl_two_runs.log"
    with pytest.raises(ResultFileError, match="pass --accelerator"):
        one(path)
    cpu, sycl = one(path, ON_THIS_CPU)
    # "tg1 | 27.86 ± 1.62" and "pp512 | 58.31 ± 1.75" (CPU); "tg1 | 23.02 ± 12.81" and
    # "pp512 | 629.25 ± 288.96" (SYCL)
    assert (cpu.output_tok_s, sycl.output_tok_s) == (27.86, 23.02)
    assert (cpu.ttft_ms_p50, sycl.ttft_ms_p50) == pytest.approx(
        (1000 * 512 / 58.31, 512e3 / 629.25)
    )
    assert {(r.model, r.precision, r.runtime_version) for r in (cpu, sycl)} == {
        ("llama-1b", "q4_k_m", "b6082 (5aa1105da)")
    }
    assert "backends=CPU" in cpu.notes and "backends=SYCL" in sycl.notes
    # One --accelerator for a CPU run and an Intel GPU run makes them one operating point with
    # two sets of figures, which the import command refuses to store.
    assert disagreeing_duplicates(path, [cpu, sycl])


def test_a_cut_short_json_result_is_still_refused_as_json_not_read_as_a_log():
    # Only a first line like "[TensorRT-LLM] ..." (a tag with words, then text) is a log.
    for text in ((REAL / GLM5).read_bytes()[:200], b'[{"date": "20260213-141321", "model_id": "z'):
        with pytest.raises(ResultFileError, match="not valid JSON") as err:
            import_sources([("cut.json", text)], GLM5_FLAGS)
        assert err.value.key.startswith("line ")
