"""The physical plausibility gate: bounds from the datasheet and the architecture table."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from benchmarks.plausibility import (
    UNSIZED,
    architecture_for,
    check,
    check_result,
    gate,
    precision_class,
    smallest_active_share,
    stated_architecture,
)
from cli.main import _register_subcommands, app
from tests.factories import result
from tokendesk.catalog import accelerator, load_catalog
from tokendesk.paths import data_dir

L4_70B = {
    "accelerator_id": "nvidia-l4-24gb",
    "accelerators_per_replica": 1,
    "model": "llama-2-70b-chat",
    "precision": "fp16",
    "output_tok_s": 5_000_000,
}


def test_five_million_tok_s_for_a_70b_model_on_one_l4_is_rejected_with_the_bound():
    verdict = check_result(L4_70B, load_catalog())
    assert verdict.verdict == "implausible"
    # 121e12 FLOP/s / (2 x 68.98e9 FLOP per token) = 877 tok/s
    assert verdict.decode_tok_s_max == pytest.approx(121e12 / (2 * 68.98e9))
    (reason,) = verdict.reasons
    assert "exceeds the physical upper bound of 877 tok/s" in reason
    assert "1 x 121 TFLOPS dense BF16 x 1 (fp16) / (2 x 68.98e9 FLOP per token)" in reason


def test_a_real_mlperf_result_sits_inside_the_bounds():
    # v5.1 NVIDIA 8x B200 Llama-2-70B Offline FP4: 101,527 tok/s.
    verdict = check(
        accelerator=accelerator("nvidia-b200-180gb"),
        accelerators=8,
        arch=architecture_for("llama-2-70b-chat"),
        precision="fp4",
        output_tok_s=101_527,
    )
    bound = 8 * 2250e12 * 4 / (2 * 68.98e9)
    assert verdict.verdict == "within"
    assert verdict.decode_tok_s_max == pytest.approx(bound)
    assert verdict.roofline_pct == pytest.approx(100 * 101_527 / bound)


def test_batch_one_decode_is_bounded_by_memory_bandwidth():
    # One stream of an 8B bf16 model on one H100: 3.35e12 B/s / (8.03e9 x 2 B) = 208.6 tok/s.
    verdict = check(
        accelerator=accelerator("nvidia-h100-sxm-80gb"),
        accelerators=1,
        arch=architecture_for("meta-llama/Llama-3.1-8B-Instruct"),
        precision="bf16",
        output_tok_s=250,
        concurrency=1,
    )
    assert verdict.verdict == "implausible"
    assert verdict.decode_tok_s_max == pytest.approx(3.35e12 / (8.03e9 * 2))


def test_a_first_token_faster_than_reading_the_weights_is_rejected():
    verdict = check(
        accelerator=accelerator("nvidia-h100-sxm-80gb"),
        accelerators=1,
        arch=architecture_for("llama-3.1-8b"),
        precision="bf16",
        output_tok_s=100,
        input_tokens=1000,
        ttft_ms={"p50": 1.0, "p99": 2.0},
    )
    # max(16.06 GB / 3.35 TB/s, 2 x 8.03e9 x 1000 / 989e12) = max(4.79, 16.24) ms
    assert verdict.ttft_ms_min == pytest.approx(2 * 8.03e9 * 1000 / 989e12 * 1000)
    assert any("below the physical lower bound of 16.24 ms" in r for r in verdict.reasons)


def test_an_unknown_precision_gets_the_most_generous_reading():
    assert precision_class("mostly_q4_0") == "int4" and precision_class("Q4_K_M") == "int4"
    assert precision_class("unstated") == ""  # -> the most generous speed-up (fp4)


def test_a_model_the_table_lacks_is_bounded_from_the_size_its_name_states():
    # 221 million tok/s (the size of an InferenceX file's claim) for a 70b model on one H100.
    claim = {
        "accelerator_id": "nvidia-h100-sxm-80gb",
        "accelerators_per_replica": 1,
        "model": "acme-private-chat-70b",
        "precision": "fp8",
        "output_tok_s": 221e6,
    }
    assert architecture_for(claim["model"]) is None
    verdict = check_result(claim, load_catalog())
    assert verdict.verdict == "implausible"
    # A name may hide a mixture of experts: 70e9 x the table's smallest active share (Kimi K2's
    # 32e9 of 1e12 in data/model_architectures.csv) = 2.24e9 active parameters; 989 TFLOPS x 2
    # (fp8) / (2 x 2.24e9) = 441,518 tok/s.
    active = 70e9 * smallest_active_share()
    assert smallest_active_share() == pytest.approx(32 / 1000)
    assert verdict.decode_tok_s_max == pytest.approx(989e12 * 2 / (2 * active))
    assert "70e9 parameters as its name states them" in verdict.arithmetic[0]
    # A realistic figure for the same name is within the bound.
    assert check_result({**claim, "output_tok_s": 3000}, load_catalog()).verdict == "within"


@pytest.mark.parametrize(
    ("name", "total", "active"),
    [
        ("Qwen3-30B-A3B", 30, 3),  # the active count stated
        ("mistralai/Mixtral-8x7B-v0.1", 56, 56 * 0.032),  # experts x size; v0.1 is no size
        ("SmolLM-135M", 0.135, 0.135 * 0.032),
        ("phi-3-mini-4k", None, None),  # 4k is a context length
        ("dsr1-fp8", None, None),
    ],
)
def test_the_size_a_name_states(name, total, active):
    arch = stated_architecture(name)
    if total is None:
        assert arch is None
        return
    assert arch.params_b == pytest.approx(total) and arch.active_params_b == pytest.approx(active)


def test_a_model_with_no_size_anywhere_is_refused_in_words_not_skipped():
    unsized = {**L4_70B, "model": "some-private-model", "output_tok_s": 9e8}
    verdict = check_result(unsized, load_catalog())
    assert verdict.verdict == UNSIZED
    assert "states no parameter count" in verdict.reasons[0]
    row = result(model="some-private-model", output_tok_s=9e8)
    kept, _, rejected = gate("rows.csv", [row])
    (error,) = rejected
    assert "rows.csv" in str(error) and "some-private-model" in str(error)
    assert "model_architectures.csv" in str(error) and "--accept-implausible" in str(error)
    kept, _, rejected = gate("rows.csv", [row], accept=True)
    assert not rejected and kept[0].plausibility_flag  # kept on purpose, flagged
    # The harness's own measurement against a server (``bench run``) is no claim from a file.
    kept, checks, rejected = gate("harness:x", [row], measured_here=True)
    assert not rejected and checks[0].verdict == "unchecked" and not kept[0].plausibility_flag


def test_the_whole_seed_sits_within_the_bounds():
    with (data_dir() / "seed_results.csv").open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    verdicts = [check_result(row, load_catalog()) for row in rows]
    assert [v.verdict for v in verdicts].count("implausible") == 0
    checked = [v for v in verdicts if v.roofline_pct is not None]
    # Only CPU results lack a decode bound: the catalog has no peak FLOPS for CPUs and an
    # offline CPU run states no stream count for the bandwidth bound.
    unchecked = [row for row, v in zip(rows, verdicts, strict=True) if v.roofline_pct is None]
    assert all(row["accelerator_id"].startswith("cpu-") for row in unchecked)
    assert len(checked) >= 60 and max(v.roofline_pct for v in checked) < 60


def test_import_dry_run_json_prints_records_with_bounds_and_rejects_the_impossible(tmp_path):
    _register_subcommands()
    runner = CliRunner()
    good = Path(__file__).parent / "fixtures" / "vllm_bench_serve.json"
    flags = ["--accelerator", "nvidia-h100-sxm-80gb", "--accelerators-per-replica", "1"]
    flags += ["--precision", "bf16", "--dry-run", "--format", "json", "--db", str(tmp_path / "w")]
    result = runner.invoke(app, ["bench", "import", str(good), *flags])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    (record,) = payload["records"]
    assert record["output_tok_s"] == 1952.3 and record["plausibility"]["verdict"] == "within"
    assert record["plausibility"]["decode_tok_s_max"] > record["output_tok_s"]

    bad = tmp_path / "l4.json"
    data = json.loads(good.read_text())
    data.update(output_throughput=5_000_000.0, total_token_throughput=6_000_000.0)
    bad.write_text(json.dumps(data))
    l4 = ["--accelerator", "nvidia-l4-24gb", "--accelerators-per-replica", "1", "--model"]
    l4 += ["llama-2-70b-chat", "--precision", "fp16", "--dry-run", "--format", "json"]
    result = runner.invoke(app, ["bench", "import", str(bad), *l4, "--db", str(tmp_path / "w")])
    assert result.exit_code == 2  # bad input
    (rejected,) = json.loads(result.stdout.splitlines()[0])["rejected"]
    # 64 streams x 0.3 TB/s / 138 GB of fp16 weights = 139 tok/s, under the compute bound.
    assert "exceeds the physical upper bound of 139 tok/s" in rejected["reason"]
    assert "1 x 121 TFLOPS dense BF16" in rejected["reason"]

    kept = runner.invoke(
        app, ["bench", "import", str(bad), *l4, "--accept-implausible", "--db", str(tmp_path / "w")]
    )
    assert kept.exit_code == 0, kept.output
    (record,) = json.loads(kept.stdout)["records"]
    assert record["plausibility_flag"].startswith("5,000,000 output tok/s")
