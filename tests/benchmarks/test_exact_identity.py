"""Importers never guess: the exact accelerator a file names (or a refusal that names the string
and the flag), every scenario as the submission states it, the context depth of a llama-bench
test, and summaries whose throughput LoadGen inferred. Each case is a file a real tool wrote
(tests/fixtures/real/README.md gives repository, path and commit)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from benchmarks.errors import ResultFileError
from benchmarks.importers import ImportOverrides, import_files, import_sources
from benchmarks.importers.hardware import FAMILIES, identify
from benchmarks.importers.mlperf_naming import scenario_and_model
from benchmarks.plausibility import check_result
from tokendesk.catalog import load_catalog

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "real"
RUN = "performance/run_1/mlperf_log_summary.txt"
NONE = ImportOverrides()
FP8 = replace(NONE, precision="fp8")


def one(relative: str, overrides: ImportOverrides = NONE):
    [(_, results)] = import_files([REAL / relative], overrides)
    return results


# -- accelerator identity: the part the system description names, never its neighbour -----------


def test_an_8x_h200_nvl_system_is_the_nvl_card_not_the_sxm_module():
    # ASUSTeK ESC8000A-E12, v5.1: accelerator_model_name "NVIDIA H200-NVL-141GB" (PCIe cards,
    # 600 W) — not the 700 W SXM part the family name alone used to land on.
    (r,) = one(
        "mlperf_v5.1/closed/ASUSTeK/results/ESC8000_H200_NVLx8_TRT/llama2-70b-99/Server/" + RUN, FP8
    )
    assert (r.accelerator_id, r.accelerators_per_replica, r.nodes) == (
        "nvidia-h200-nvl-141gb",
        8,
        1,
    )
    assert (r.scenario, r.output_tok_s, r.request_rate_rps) == ("server", 25614.68, 88.0)
    assert round(r.ttft_ms_p99, 1) == 665.6
    assert check_result(r, load_catalog()).verdict == "within"


def test_a_gh200_144gb_system_is_the_hbm3e_part_not_the_96gb_one():
    # NVIDIA v4.1 "NVIDIA GH200 Grace Hopper Superchip 144GB" (HBM3e, 4.9 TB/s).
    (r,) = one(
        "mlperf_v4.1/closed/NVIDIA/results/GH200-GraceHopper-Superchip_GH200-144GB_aarch64x1_TRT/"
        "llama2-70b-99.9/Server/" + RUN,
        FP8,
    )
    assert (r.accelerator_id, r.accelerators_per_replica) == ("nvidia-gh200-144gb", 1)
    assert load_catalog()[r.accelerator_id].memory_gib == 144
    assert (r.output_tok_s, r.model) == (3883.67, "llama-2-70b")
    assert check_result(r, load_catalog()).verdict == "within"


def test_a_gpu_the_catalog_lacks_stops_the_import_naming_the_string_and_the_flag():
    # Two RTX 5090s, named only by the CUDA backend's log line above the llama-bench table.
    with pytest.raises(ResultFileError) as caught:
        one("llama-bench/b5600_markdown_with_cuda_log.md")
    reason = caught.value.reason
    assert "'NVIDIA GeForce RTX 5090'" in reason and "pass --accelerator" in reason
    assert caught.value.key == "gpu_info"


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        # MLPerf system descriptions (accelerator_model_name)
        ("NVIDIA H200-NVL-141GB", "nvidia-h200-nvl-141gb"),
        ("NVIDIA H200-SXM-141GB", "nvidia-h200-141gb"),
        ("NVIDIA H200-SXM-141GB-CTS", "nvidia-h200-141gb"),
        ("NVIDIA GH200 Grace Hopper Superchip 144GB", "nvidia-gh200-144gb"),
        ("NVIDIA GH200 Grace Hopper Superchip 96GB", "nvidia-gh200-96gb"),
        ("NVIDIA H100-NVL-94GB", "nvidia-h100-nvl-94gb"),
        ("NVIDIA H100-SXM-80GB", "nvidia-h100-sxm-80gb"),
        ("NVIDIA H100-PCIe-80GB", "nvidia-h100-pcie-80gb"),
        ("NVIDIA B200-SXM-180GB", "nvidia-b200-180gb"),
        ("NVIDIA GB200", "nvidia-gb200-186gb"),
        ("GB200-186GB", "nvidia-gb200-186gb"),
        ("GB300-288GB", "nvidia-gb300-288gb"),
        ("AMD MI300X-NPS1-SPX-192GB-750W", "amd-mi300x-192gb"),
        ("AMD Instinct MI325X 256GB HBM3E", "amd-mi325x-256gb"),
        ("Intel Gaudi 2", "intel-gaudi2-96gb"),
        # Driver / CUDA device names (nvidia-smi, llama-bench gpu_info)
        ("NVIDIA H100 80GB HBM3", "nvidia-h100-sxm-80gb"),
        ("NVIDIA H100 PCIe", "nvidia-h100-pcie-80gb"),
        ("NVIDIA H100 NVL", "nvidia-h100-nvl-94gb"),
        ("NVIDIA H200", "nvidia-h200-141gb"),
        ("NVIDIA H200 NVL", "nvidia-h200-nvl-141gb"),
        ("NVIDIA GH200 480GB", "nvidia-gh200-96gb"),
        ("NVIDIA GH200 144G HBM3e", "nvidia-gh200-144gb"),
        ("NVIDIA A100-SXM4-80GB", "nvidia-a100-80gb"),
        ("NVIDIA A100-SXM4-40GB", "nvidia-a100-40gb"),
        ("NVIDIA A100 80GB PCIe", "nvidia-a100-pcie-80gb"),
        ("NVIDIA A100-PCIE-40GB", "nvidia-a100-pcie-40gb"),
        ("NVIDIA RTX PRO 6000 Blackwell Server Edition", "nvidia-rtx-pro-6000-96gb"),
        ("NVIDIA L40S", "nvidia-l40s-48gb"),
        ("NVIDIA L4", "nvidia-l4-24gb"),
        # Host processors (MLPerf CPU submissions, llama-bench cpu_info)
        ("INTEL(R) XEON(R) 6980P", "cpu-intel-gnr-amx"),
        ("INTEL(R) XEON(R) PLATINUM 8592+", "cpu-intel-emr-amx"),
        ("Intel(R) Xeon(R) Platinum 8480C", "cpu-intel-spr-amx"),
        ("AMD EPYC 9374F 32-Core Processor", "cpu-amd-genoa"),
        ("AMD EPYC 9575F 64-Core Processor", "cpu-amd-turin"),
        # Google and AWS parts
        ("TPU v6e", "google-tpu-v6e"),
        ("TPU v7 (Ironwood)", "google-tpu-v7"),
        ("AWS Trainium2", "aws-trainium2"),
        ("AWS Inferentia2", "aws-inferentia2"),
    ],
)
def test_each_name_places_exactly_one_part(name, expected):
    assert identify(name).accelerator_id == expected


@pytest.mark.parametrize(
    ("name", "memory_gb", "says"),
    [
        # A family name alone: the form factor or memory that tells its parts apart is missing.
        ("H200", None, "could be any of nvidia-h200-141gb, nvidia-h200-nvl-141gb"),
        ("NVIDIA H100", None, "could be any of"),
        ("GH200", None, "nvidia-gh200-96gb, nvidia-gh200-144gb"),
        ("NVIDIA A100 80GB", None, "nvidia-a100-80gb, nvidia-a100-pcie-80gb"),
        ("AWS Trainium", None, "aws-trainium1, aws-trainium2"),
        ("Intel Gaudi", None, "could be any of"),
        # A stated size no catalog part has is not rounded to the nearest one.
        ("NVIDIA B200 192GB", None, "no B200 in the catalog has"),
        ("NVIDIA H100-SXM5-94GB", None, "no H100 in the catalog has"),
        ("NVIDIA H200", 80, "no H200 in the catalog has"),
        # Parts outside the catalog.
        ("NVIDIA GeForce RTX 5090", None, "not an accelerator the catalog knows"),
        ("NVIDIA L40", None, "not an accelerator the catalog knows"),
        ("Intel(R) Xeon(R) 6780E", None, "not an accelerator the catalog knows"),
    ],
)
def test_a_name_that_does_not_place_one_part_places_none(name, memory_gb, says):
    placed = identify(name, memory_gb)
    assert placed.accelerator_id is None
    assert says in placed.reason and repr(name) in placed.reason


def test_memory_the_system_description_states_settles_a_family_name():
    assert identify("NVIDIA GH200", 144).accelerator_id == "nvidia-gh200-144gb"
    assert identify("NVIDIA A100 PCIe", 40).accelerator_id == "nvidia-a100-pcie-40gb"


def test_every_part_the_names_place_is_in_the_catalog_and_every_gpu_has_a_name():
    catalog = load_catalog()
    placed = {p.accelerator_id for f in FAMILIES for p in f.parts}
    assert placed <= set(catalog)
    # Every accelerator in the catalog (CPUs named by model number aside) can be named.
    assert {a for a, acc in catalog.items() if acc.backend != "cpu"} <= placed


def test_the_catalog_covers_the_market_with_a_source_for_every_row():
    catalog = load_catalog()
    for required in (
        "nvidia-h100-pcie-80gb",
        "nvidia-h100-sxm-80gb",
        "nvidia-h100-nvl-94gb",
        "nvidia-h200-141gb",
        "nvidia-h200-nvl-141gb",
        "nvidia-gh200-96gb",
        "nvidia-gh200-144gb",
        "nvidia-gb200-186gb",
        "nvidia-b200-180gb",
        "nvidia-b300-288gb",
        "nvidia-gb300-288gb",
        "amd-mi300x-192gb",
        "amd-mi325x-256gb",
        "amd-mi355x-288gb",
        "intel-gaudi2-96gb",
        "intel-gaudi3-128gb",
        "nvidia-l4-24gb",
        "nvidia-l40s-48gb",
        "nvidia-a100-40gb",
        "nvidia-a100-80gb",
        "nvidia-a100-pcie-40gb",
        "nvidia-a100-pcie-80gb",
        "nvidia-rtx-pro-6000-96gb",
        "google-tpu-v5e",
        "google-tpu-v6e",
        "google-tpu-v7",
        "aws-trainium1",
        "aws-trainium2",
        "aws-inferentia2",
        "cpu-intel-spr-amx",
        "cpu-intel-emr-amx",
        "cpu-intel-gnr-amx",
    ):
        acc = catalog[required]
        assert acc.source_url.startswith("https://") and acc.source_title and acc.source_date


# -- the scenario as the submission states it --------------------------------------------------


def test_a_v50_interactive_benchmark_run_as_server_is_the_interactive_scenario():
    # v5.0 ran "llama2-70b-interactive-99.9" as its own benchmark under the Server scenario
    # with 450 ms TTFT / 40 ms TPOT bounds (Fujitsu, 8 x H100 NVL; its system JSON is not in the
    # corpus, so the hardware comes from flags).
    flags = replace(FP8, accelerator_id="nvidia-h100-nvl-94gb", accelerators_per_replica=8)
    (r,) = one(
        "mlperf_v5.0/closed/Fujitsu/results/H100-NVL-94GBx8_TRT/llama2-70b-interactive-99.9/"
        "Server/" + RUN,
        flags,
    )
    # The model is what the benchmark runs; the workload keeps the benchmark's accuracy target.
    assert (r.scenario, r.model, r.workload) == (
        "interactive",
        "llama-2-70b",
        "mlperf-llama2-70b-99.9-interactive",
    )
    assert (r.output_tok_s, r.request_rate_rps) == (11041.48, 38.5)
    assert round(r.ttft_ms_p99, 1) == 416.1 and round(r.tpot_ms_p99, 1) == 35.5


# -- throughput LoadGen inferred ---------------------------------------------------------------


def test_a_cpu_gptj_summary_with_inferred_tokens_per_second_imports_and_says_so():
    # Intel v4.1, 2 x Xeon 6980P: "Tokens per second (inferred): 498.316" (samples/s times
    # GPT-J's fixed tokens per sample). Its measurements JSON is not in the corpus: --precision.
    (r,) = one(
        "mlperf_v4.1/closed/Intel/results/1-node-2S-GNR-PyTorch/gptj-99/Offline/" + RUN,
        replace(NONE, precision="int4"),
    )
    assert (r.accelerator_id, r.accelerators_per_replica) == ("cpu-intel-gnr-amx", 2)
    assert (r.scenario, r.output_tok_s, r.request_rate_rps) == ("offline", 498.316, None)
    assert "LoadGen inferred" in r.notes


# -- llama-bench: context depth and log lines --------------------------------------------------

LLAMA = replace(NONE, accelerator_id="nvidia-l40s-48gb", model="qwen2.5-7b")


def test_each_llama_bench_context_depth_is_its_own_workload():
    # "pp512" / "tg128" and "pp512 @ d512" / "tg128 @ d512": the same tests after 512 tokens of
    # context are another workload, not a second speed for the first.
    results = one("llama-bench/b5163_markdown_depth.md", LLAMA)
    by_workload = {r.workload: r for r in results}
    assert set(by_workload) == {"pp512+tg128", "pp512+tg128@d512"}
    assert by_workload["pp512+tg128"].output_tok_s == 120.60
    assert by_workload["pp512+tg128@d512"].output_tok_s == 116.71
    assert "context depth 512" in by_workload["pp512+tg128@d512"].notes


def test_a_llama_bench_table_with_the_backend_log_above_it_imports():
    # Saved with 2>&1: four ggml_cuda_init / Device lines above the table, the build line below.
    (r,) = one(
        "llama-bench/b5600_markdown_with_cuda_log.md",
        replace(NONE, accelerator_id="nvidia-l40s-48gb"),
    )
    assert (r.output_tok_s, r.precision, r.model) == (83.01, "f16", "rwkv7-2.9b")
    # The two CUDA devices the log lists hold the model between them.
    assert r.accelerators_per_replica == 2
    assert r.runtime_version == "b5600 (d17a809e)"
    assert r.ttft_ms_p50 == pytest.approx(1000 * 512 / 12004.34)


# -- AIPerf: what the run set and how it counted -----------------------------------------------

AIPERF = REAL / "aiperf/fake_echo-1-openai-chat-concurrency4/profile_export_aiperf.json"
STAND_INS = ImportOverrides(accelerator_id="nvidia-h100-sxm-80gb", runtime="vllm", precision="bf16")


def _aiperf(edit) -> list:
    data = json.loads(AIPERF.read_bytes())
    edit(data)
    [(_, _, records)] = import_sources([(AIPERF.name, json.dumps(data).encode())], STAND_INS)
    return records


def test_aiperf_013_counted_tokens_client_side_and_says_so():
    # The corpus's AIPerf 0.13 run re-tokenised the text (no --use-server-token-count).
    (r,) = one(str(AIPERF.relative_to(REAL)), STAND_INS)
    assert "re-tokenising the text" in r.notes and r.concurrency == 4


@pytest.mark.parametrize(("key", "value"), [("was_cancelled", True), ("is_complete", False)])
def test_a_cancelled_or_incomplete_aiperf_run_is_refused(key, value):
    with pytest.raises(ResultFileError, match="import a run that completed"):
        _aiperf(lambda data: data.__setitem__(key, value))


# -- InferenceX per-run aggregates ---------------------------------------------------------------

INFX = (
    "inferencex/agg_kimik2.5_1k1k_int4_vllm_tp8-ep1-dpafalse_disagg-false_spec-mtp_conc4_"
    "MI355-gbt350-odcdh5-wbb3.json"
)


def test_an_inferencex_aggregate_is_one_tp8_replica_at_the_concurrency_it_ran():
    (r,) = one(INFX)
    assert (r.accelerator_id, r.accelerators_per_replica) == ("amd-mi355x-288gb", 8)
    assert (r.concurrency, r.request_rate_rps, r.workload) == (4.0, None, "isl1024-osl1024")
    # Throughput per GPU x 8 GPUs; latencies are seconds in the file.
    assert r.output_tok_s == pytest.approx(27.678011491816765 * 8)
    assert r.total_tok_s == pytest.approx(55.62670336516291 * 8)
    assert r.ttft_ms_p50 == pytest.approx(296.9768075272441)
    assert r.tpot_ms_p99 == pytest.approx(18.459965544077445)
    assert (r.runtime, r.runtime_version, r.precision) == ("vllm", "0.21.0", "int4")
    assert "speculative decoding: mtp" in r.notes and r.measured_at is None
    # Kimi K2.5 (32B active of 1T, its README) is in data/model_architectures.csv: the run sits
    # inside both physical bounds of 8 x MI355X.
    bound = check_result(r, load_catalog())
    assert bound.verdict == "within" and bound.roofline_pct < 100
    assert "32e9 FLOP per token" in bound.arithmetic[0]


def test_a_disaggregated_inferencex_run_asks_how_many_gpus_a_replica_holds():
    path = REAL / INFX
    data = json.loads(path.read_bytes())
    data.update(disagg=True)
    with pytest.raises(ResultFileError, match="pass --accelerators-per-replica"):
        import_sources([(path.name, json.dumps(data).encode())])


@pytest.mark.parametrize(
    ("scenario", "benchmark", "expected"),
    [
        ("Server", "llama2-70b-interactive-99.9", ("interactive", "llama-2-70b")),
        ("Offline", "llama2-70b-interactive-99", ("offline", "llama-2-70b")),
        ("Server", "llama2-70b-99", ("server", "llama-2-70b")),
        ("Interactive", "llama3.1-8b", ("interactive", "llama-3.1-8b")),
        ("SingleStream", "gptj-99", ("singlestream", "gpt-j-6b")),
        ("MultiStream", "llama2-70b-99", ("multistream", "llama-2-70b")),
    ],
)
def test_the_scenario_is_the_submission_s_own(scenario, benchmark, expected):
    assert scenario_and_model(scenario, benchmark) == expected


# -- GuideLLM: the load its strategy set, never the worker cap -----------------------------------


def test_a_guidellm_constant_rate_run_is_recorded_at_its_rate_not_its_worker_cap():
    # GuideLLM 0.8.1 at a constant 2 requests/s: its strategy also says max_concurrency 10240
    # (the scheduler's cap on open requests), which is not a load the run held.
    (r,) = one("guidellm/constant_rate2/benchmarks.json", STAND_INS)
    assert (r.request_rate_rps, r.concurrency) == (2.0, None)
    assert "guidellm strategy constant" in r.notes


def test_a_guidellm_concurrent_run_is_recorded_at_its_streams():
    (r,) = one("guidellm/benchmarks.json", STAND_INS)
    assert (r.concurrency, r.request_rate_rps) == (4.0, None)


AIPERF_08 = "aiperf/v0.8.0_server_token_count/profile_export_aiperf"


def test_an_aiperf_08_export_keeps_its_concurrency_and_its_server_token_counts():
    # AIPerf 0.8.0 keeps --concurrency under input_config.loadgen and, run with
    # --use-server-token-count, says so under input_config.endpoint.
    (r,) = one(AIPERF_08 + ".json", STAND_INS)
    assert (r.concurrency, r.request_rate_rps) == (4.0, None)
    assert "as the server reported them" in r.notes and "re-tokenising the text" not in r.notes
    assert r.output_tok_s == pytest.approx(324.091434837393)


def test_an_aiperf_csv_does_not_claim_a_token_basis_it_does_not_state():
    (r,) = one(AIPERF_08 + ".csv", replace(STAND_INS, model="fake/echo-1"))
    assert "token-count basis not stated" in r.notes
    assert r.output_tok_s == 324.09
