"""scripts/build_models.py rebuilds data/model_architectures.csv from the pinned files in
tests/fixtures/real/model_configs (byte-for-byte copies; README.md there names each source)."""

from __future__ import annotations

import csv
import importlib.util
import io
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.plausibility import architecture_for
from costmodel import kv_bytes_per_sequence, kv_bytes_per_token, memory_fit
from costmodel.bundled_tables import model_architectures, resolve_architecture
from costmodel.demand import model_key
from tokendesk.paths import REPO_ROOT

SCRIPT = REPO_ROOT / "scripts" / "build_models.py"
CACHE = REPO_ROOT / "tests" / "fixtures" / "real" / "model_configs"
TABLE = REPO_ROOT / "data" / "model_architectures.csv"
AIC = CACHE / "ai-dynamo/aiconfigurator/095f58a51c4ca8e61b66ec108d86f223f8d559ce"
CONFIGS = AIC / "aic-core/src/aiconfigurator_core/model_configs"


def _load_script():
    spec = importlib.util.spec_from_file_location("build_models", SCRIPT)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while it loads
    spec.loader.exec_module(module)
    return module


build_models = _load_script()


def _rows(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


def test_the_build_on_the_pinned_files_gives_the_committed_table_byte_for_byte(tmp_path):
    out = tmp_path / "model_architectures.csv"
    for _ in range(2):  # twice: the second run must not differ from the first
        done = subprocess.run(
            [sys.executable, str(SCRIPT), "--cache", str(CACHE), "--offline", "--out", str(out)],
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        assert out.read_bytes() == TABLE.read_bytes()


def test_a_changed_cached_file_is_refused_by_its_sha256(tmp_path):
    cache = tmp_path / "cache"
    shutil.copytree(CACHE, cache)
    target = cache / CONFIGS.relative_to(CACHE) / "openai--gpt-oss-20b_config.json"
    target.write_bytes(
        target.read_bytes().replace(b'"num_hidden_layers": 24', b'"num_hidden_layers": 25')
    )
    with pytest.raises(build_models.BuildError, match="sha256 .* is not the pinned"):
        build_models.build(cache, offline=True)


def test_a_missing_file_offline_names_the_download(tmp_path):
    with pytest.raises(build_models.BuildError, match="raw.githubusercontent.com/ai-dynamo"):
        build_models.build(tmp_path, offline=True)


def test_every_row_names_its_source_and_keeps_the_carried_figures():
    carried = {
        r["model_id"]: r
        for r in _rows((REPO_ROOT / "data/sources/model_architectures_carried.csv").read_text())
    }
    rows = {r["model_id"]: r for r in _rows(TABLE.read_text())}
    assert len(carried) == 13 and set(carried) <= set(rows)
    for model_id, old in carried.items():
        for column in (
            "params_b",
            "active_params_b",
            "layers",
            "kv_heads",
            "head_dim",
            "max_context",
        ):
            assert rows[model_id][column] == old[column]
        assert rows[model_id]["source_url"] == old["source_url"]
    for row in rows.values():
        assert row["source_url"].startswith("https://")
        assert row["confidence"] in {"high", "medium"}
        assert 0 < float(row["active_params_b"]) <= float(row["params_b"])


def test_the_parameter_count_matches_what_the_cards_state():
    # Qwen3 model cards: "235B in total and 22B activated", "30.5B in total and 3.3B activated";
    # Mistral: Mixtral 8x22B "141B" total, "39B" active; the carried Llama 3.1 8B row says 8.03.
    cases = {
        "Qwen--Qwen3-235B-A22B": (235, 22),
        "Qwen--Qwen3-30B-A3B": (30.5, 3.3),
        "mistralai--Mixtral-8x22B-v0.1": (141, 39),
        "meta-llama--Meta-Llama-3.1-8B": (8.03, 8.03),
    }
    for name, (total, active) in cases.items():
        config = json.loads((CONFIGS / f"{name}_config.json").read_text())
        got = build_models.count_params(config, name)
        assert got[0] == pytest.approx(total, rel=0.01)
        assert got[1] == pytest.approx(active, rel=0.03)


def test_moe_rows_state_experts_and_active_parameters():
    archs = model_architectures()
    for model_id, experts, per_token in (
        ("deepseek-r1", 256, 8),
        ("gpt-oss-120b", 128, 4),
        ("qwen3-235b-a22b", 128, 8),
        ("llama-4-maverick-17b-128e", 128, 1),
        ("kimi-k2", 384, 8),
        ("mixtral-8x22b", 8, 2),
    ):
        arch = archs[model_id]
        assert (arch.experts, arch.experts_per_token) == (experts, per_token)
        assert arch.active_params_b < arch.params_b / 3
    # DeepSeek's README: "671B total parameters with 37B activated for each token".
    assert (archs["deepseek-v3"].params_b, archs["deepseek-v3"].active_params_b) == (671, 37)


def _all_aliases():
    for arch in model_architectures().values():
        for alias in (arch.model_id, *arch.aliases):
            yield alias, arch.model_id


@pytest.mark.parametrize(("alias", "model_id"), list(_all_aliases()))
def test_every_alias_resolves_to_its_own_model_in_both_matchers(alias, model_id):
    got = resolve_architecture(alias)
    assert got is not None and got.model_id == model_id
    bound = architecture_for(alias)
    assert bound is not None and bound.model_id == model_id


def test_no_alias_belongs_to_two_models():
    owners: dict[str, set[str]] = {}
    for alias, model_id in _all_aliases():
        owners.setdefault(model_key(alias), set()).add(model_id)
    assert {k: v for k, v in owners.items() if len(v) > 1} == {}


@pytest.mark.parametrize(
    ("name", "want"),
    [
        ("deepseek-ai/DeepSeek-R1-0528", "deepseek-r1"),
        ("nvidia/DeepSeek-R1-0528-NVFP4-v2", "deepseek-r1"),
        ("deepseek-ai/DeepSeek-R1-Distill-Llama-70B", "llama-3.3-70b"),
        ("openai/gpt-oss-120b", "gpt-oss-120b"),
        ("gpt-oss-20b", "gpt-oss-20b"),
        ("Qwen/Qwen3-235B-A22B-FP8", "qwen3-235b-a22b"),
        ("qwen3-vl-235b-a22b", "qwen3-vl-235b-a22b"),
        ("Qwen/Qwen3-30B-A3B", "qwen3-30b-a3b"),
        ("meta-llama/Llama-4-Scout-17B-16E-Instruct", "llama-4-scout-17b-16e"),
        ("moonshotai/Kimi-K2-Instruct", "kimi-k2"),
        ("moonshotai/Kimi-K2.5", "kimi-k2.5"),
        ("llama3.1-405b", "llama-3.1-405b"),
        ("Mixtral-8x22B-Instruct-v0.1", "mixtral-8x22b"),
    ],
)
def test_names_as_tools_spell_them(name, want):
    assert resolve_architecture(name).model_id == want


def test_deepseek_mla_kv_cache_follows_the_latent_not_the_heads():
    config = json.loads((CONFIGS / "deepseek-ai--DeepSeek-V3_config.json").read_text())
    layers, rank, rope = (
        config["num_hidden_layers"],
        config["kv_lora_rank"],
        config["qk_rope_head_dim"],
    )
    arch = model_architectures()["deepseek-v3"]
    # DeepSeek-V2 (arXiv:2405.04434) Table 1: MLA caches (d_c + d_h^R) x l elements per token.
    assert kv_bytes_per_token(arch, "bf16") == layers * (rank + rope) * 2
    assert kv_bytes_per_token(arch, "bf16") == 61 * 576 * 2  # 70,272 B, about 68.6 KiB
    # The same table's heads x head dim formula would claim 2 x 61 x 128 x 192 x 2 bytes: 83x more.
    assert (
        2 * layers * config["num_key_value_heads"] * 192 * 2 / kv_bytes_per_token(arch, "bf16") > 80
    )


def test_sliding_window_layers_hold_only_the_window():
    config = json.loads((CONFIGS / "openai--gpt-oss-120b_config.json").read_text())
    arch = model_architectures()["gpt-oss-120b"]
    full = config["layer_types"].count("full_attention")
    window = config["sliding_window"]
    per_layer_token = 2 * config["num_key_value_heads"] * config["head_dim"] * 2
    tokens = 100_000
    want = (full * tokens + (config["num_hidden_layers"] - full) * window) * per_layer_token
    assert kv_bytes_per_sequence(arch, "bf16", tokens) == want
    assert kv_bytes_per_sequence(arch, "bf16", 64) == kv_bytes_per_token(arch, "bf16") * 64


def test_deepseek_r1_memory_fit_uses_the_mla_cache():
    arch = model_architectures()["deepseek-r1"]
    fit = memory_fit(arch, "fp8", 32768, accelerator_id="nvidia-h200-141gb", memory_gib=141)
    assert fit.fits and fit.accelerators_per_replica == 8
    assert fit.kv_gib_per_sequence == pytest.approx(61 * 576 * 32768 / 1024**3)


def test_carried_rows_are_checked_against_their_pinned_config(tmp_path, monkeypatch):
    carried = tmp_path / "carried.csv"
    text = (REPO_ROOT / "data/sources/model_architectures_carried.csv").read_text()
    # The first 70.55/80-layer row is llama-3.1-70b, checked against Meta-Llama-3.1-70B's config.
    carried.write_text(text.replace(",70.55,70.55,80,8192,", ",70.55,70.55,81,8192,", 1))
    monkeypatch.setattr(build_models, "CARRIED", carried)
    with pytest.raises(build_models.BuildError, match="llama-3.1-70b disagrees .* layers 81 != 80"):
        build_models.build(CACHE, offline=True)


def test_the_table_path_is_the_one_the_loaders_read():
    assert Path(build_models.OUT) == TABLE
