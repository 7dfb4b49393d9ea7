"""One test per class of importer failure found on files the project had never seen."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.errors import ResultFileError
from benchmarks.importers import ImportOverrides, import_files
from benchmarks.importers.base import count_and_name, model_id
from benchmarks.importers.llamabench import precision_of
from tokendesk.units import to_tok_s

FIX = Path(__file__).parent / "fixtures"
LEGACY = json.loads((FIX / "vllm_legacy_benchmark_serving.json").read_text())


def _write(tmp_path: Path, name: str, data: dict | str) -> Path:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def test_gpu_count_is_read_from_run_metadata(tmp_path):
    # `vllm bench serve --metadata gpu=4xNVIDIA_L40S precision=fp8` puts both keys in the JSON.
    path = _write(tmp_path, "r.json", {**LEGACY, "gpu": "4xNVIDIA_L40S", "precision": "fp8"})
    [(_, [r])] = import_files([path])
    assert (r.accelerator_id, r.accelerators_per_replica) == ("nvidia-l40s-48gb", 4)
    assert count_and_name("8x H100") == (8, "H100") and count_and_name("H100") == (None, "H100")


def test_model_ids_from_hub_cache_and_folder_paths_are_normalised(tmp_path):
    cached = "/models/models--meta-llama--Meta-Llama-3-70B-Instruct/snapshots/0a1b2c3d/"
    path = _write(
        tmp_path,
        "r.json",
        {**LEGACY, "model_id": cached, "gpu": "8xNVIDIA_H100_80GB_HBM3", "precision": "bf16"},
    )
    [(_, [r])] = import_files([path])
    assert r.model == "meta-llama/Meta-Llama-3-70B-Instruct"
    assert model_id("/data/llama-3.1-8b-instruct/") == "llama-3.1-8b-instruct"
    assert model_id("meta-llama/Llama-3.1-8B") == "meta-llama/Llama-3.1-8B"


def test_every_missing_flag_is_reported_at_once(tmp_path):
    data = {k: v for k, v in LEGACY.items() if k not in ("model_id", "tokenizer_id")}
    path = _write(tmp_path, "r.json", data)
    with pytest.raises(ResultFileError) as caught:
        import_files([path])
    message = str(caught.value)
    for flag in ("--accelerator", "--model", "--precision"):
        assert flag in message, message


def test_measured_at_is_the_files_own_date(tmp_path):
    path = _write(
        tmp_path, "r.json", {**LEGACY, "gpu": "8xNVIDIA_H100_80GB_HBM3", "precision": "bf16"}
    )
    [(_, [r])] = import_files([path])
    assert r.measured_at.strftime("%Y%m%d-%H%M%S") == LEGACY["date"]


def test_unit_label_variants_are_one_unit():
    for label in ("tokens/sec", "tokens per sec", "Tokens / second", "tok/s", "per sec"):
        assert to_tok_s(10, label) == 10


def test_genai_perf_csv_row_with_an_extra_value_is_rejected(tmp_path):
    text = (FIX / "profile_export_genai_perf.csv").read_text()
    bad = text.replace("Request Count (count),400.00", "Request Count (count),400.00,1")
    path = _write(tmp_path, "profile_export_genai_perf.csv", bad)
    overrides = ImportOverrides(
        accelerator_id="nvidia-h100-sxm-80gb", model="m", runtime="trt-llm", precision="fp8"
    )
    with pytest.raises(ResultFileError, match="values but the header has 2 columns"):
        import_files([path], overrides)


def test_older_precision_labels_are_normalised():
    assert precision_of("llama 7B mostly Q4_0") == "q4_0"
    assert precision_of("qwen2 7B Q4_K - Medium") == "q4_k_m"
