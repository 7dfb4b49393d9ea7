"""Golden prompts, model bundles, parity scoring and telemetry parsers."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from benchmarks.bundle import verify_bundle
from benchmarks.errors import BundleError
from benchmarks.parity import compare_outputs, token_similarity
from benchmarks.prompts import (
    approx_tokens,
    load_prompts,
    read_prompt_rows,
    synthetic_document,
)
from benchmarks.telemetry import (
    TelemetrySampler,
    cpu_utilization_pct,
    parse_amd_smi,
    parse_hl_smi,
    parse_nvidia_smi,
    parse_proc_stat,
    parse_rocm_smi,
)
from cli.bench_command import bench_app

ROOT = Path(__file__).parents[2]
BUNDLE = ROOT / "data" / "model_bundles" / "fake-echo-1-bf16"
TEL = Path(__file__).parent / "fixtures" / "telemetry"


def test_golden_prompt_bundle_covers_the_workloads():
    prompts = load_prompts()
    assert 100 <= len(prompts) <= 200
    counts = Counter(p.workload for p in prompts)
    assert set(counts) == {"chat-short", "code", "streaming", "rag", "long-8k", "long-32k"}
    by = {w: [p.approx_input_tokens for p in prompts if p.workload == w] for w in counts}
    assert all(7_500 <= n <= 9_000 for n in by["long-8k"])
    assert all(30_000 <= n <= 34_000 for n in by["long-32k"])
    assert min(by["rag"]) > 2_000
    # stored counts are what the documented rule gives
    for row in read_prompt_rows():
        if "text" in row:
            assert row["approx_input_tokens"] == approx_tokens(
                f"{row.get('system', '')}\n{row['text']}".strip()
            )
    assert (ROOT / "data" / "golden_prompts" / "prompts.jsonl").stat().st_size < 100_000


def test_synthetic_documents_are_deterministic_and_hold_the_answer():
    a, ans = synthetic_document(7, 8000)
    b, ans2 = synthetic_document(7, 8000)
    assert a == b and ans == ans2 and ans in a
    assert approx_tokens("Hello, world!") == 4 and approx_tokens("internationalisation") == 4


def test_example_bundle_verifies():
    bundle = verify_bundle(BUNDLE)
    assert bundle.model == "fake/echo-1" and len(bundle.expected) == 24
    res = CliRunner().invoke(bench_app, ["verify-bundle", str(BUNDLE)])
    assert res.exit_code == 0 and "OK" in res.output


def _copy(tmp_path: Path) -> Path:
    dst = tmp_path / "bundle"
    shutil.copytree(BUNDLE, dst)
    return dst


def test_bundle_errors_are_all_reported(tmp_path):
    b = _copy(tmp_path)
    (b / "tokenizer" / "tokenizer.json").unlink()
    (b / "weights" / "model.safetensors").write_bytes(b"tampered")
    with (b / "expected_outputs.jsonl").open("a") as f:
        f.write(json.dumps({"prompt_id": "no-such-prompt", "output": "x"}) + "\n")
    with pytest.raises(BundleError) as info:
        verify_bundle(b)
    msg = str(info.value)
    assert "tokenizer/tokenizer.json' is missing" in msg
    assert (
        "weights/model.safetensors" in msg
        and "bytes, manifest says" in msg
        and "checksum mismatch" in msg
    )
    assert "checksum mismatch for 'expected_outputs.jsonl'" in msg
    assert "unknown prompt id 'no-such-prompt'" in msg
    res = CliRunner().invoke(bench_app, ["verify-bundle", str(b)])
    assert res.exit_code == 1


def test_bundle_manifest_problems(tmp_path):
    b = _copy(tmp_path)
    manifest = json.loads((b / "manifest.json").read_text())
    manifest["golden"]["temperature"] = 0.7
    manifest["weights"]["files"][0]["path"] = "../outside.bin"
    (b / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(
        BundleError, match=r"(?s)must be relative and inside the bundle.*only comparable at 0"
    ):
        verify_bundle(b)
    with pytest.raises(BundleError, match="no manifest.json"):
        verify_bundle(tmp_path)


def test_parity_scores():
    assert token_similarity("a b c d", "a b c d") == 1.0
    assert token_similarity("a b c d", "a x c d") == pytest.approx(0.75)
    report = compare_outputs(
        {"p1": " a b", "p2": "c d", "p3": "e"}, {"p1": "a b ", "p2": "c x", "p3": None}
    )
    assert report.exact_match == pytest.approx(1 / 3)
    assert report.similarity == pytest.approx((1 + 0.5 + 0) / 3)
    assert report.missing == ["p3"]


def test_nvidia_and_gaudi_csv():
    gpus = parse_nvidia_smi((TEL / "nvidia-smi.csv").read_text())
    assert [g.utilization_pct for g in gpus] == [87, 91]
    assert gpus[0].memory_used_gib == pytest.approx(61234 / 1024)
    gaudi = parse_hl_smi((TEL / "hl-smi.csv").read_text())
    assert gaudi[0].memory_used_gib == pytest.approx(80.0) and gaudi[0].utilization_pct == 76


def test_amd_tools():
    [mi] = parse_amd_smi((TEL / "amd-smi.json").read_text())
    assert mi.memory_used_gib == pytest.approx(176.0) and mi.utilization_pct == 93
    wrapped = json.dumps({"gpu_data": json.loads((TEL / "amd-smi.json").read_text())})
    assert parse_amd_smi(wrapped)[0].memory_total_gib == pytest.approx(196592 / 1024)
    cards = parse_rocm_smi((TEL / "rocm-smi.json").read_text())
    assert (
        cards[0].memory_used_gib == pytest.approx(188978561024 / 1024**3)
        and cards[1].utilization_pct == 0
    )


def test_proc_stat_cpu_utilisation():
    a = parse_proc_stat((TEL / "proc_stat_1.txt").read_text())
    b = parse_proc_stat((TEL / "proc_stat_2.txt").read_text())
    # user +600 and system +200 are busy; idle +150 and iowait +50 are not: 800 / 1000
    assert cpu_utilization_pct(a, b) == pytest.approx(80.0)
    assert cpu_utilization_pct(b, b) is None


def test_sampler_peak_memory_with_a_recorded_tool():
    outputs = iter(
        [
            (TEL / "nvidia-smi.csv").read_text(),
            "0, NVIDIA H100 80GB HBM3, 70000, 81559, 99\n1, NVIDIA H100 80GB HBM3, 100, 81559, 0\n",
        ]
    )
    sampler = TelemetrySampler(
        probes=[("nvidia-smi", ["nvidia-smi"], parse_nvidia_smi)],
        run=lambda cmd: next(outputs),
        proc_stat=TEL / "proc_stat_1.txt",
    )
    sampler.sample_once()
    sampler.sample_once()
    summary = sampler.stop()
    assert summary.tool == "nvidia-smi" and summary.samples == 2
    assert summary.peak_memory_gib == pytest.approx((61234 + 60110) / 1024)
    assert summary.peak_memory_gib_per_device[0] == pytest.approx(70000 / 1024)
    assert summary.peak_utilization_pct == 99
