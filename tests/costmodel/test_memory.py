import pytest

from costmodel import kv_bytes_per_token, memory_fit, weight_bytes
from costmodel.bundled_tables import model_architectures, resolve_architecture
from costmodel.memory import GIB
from tokendesk.catalog import accelerator


def fit(model, precision, acc_id, context=8192, **kw):
    acc = accelerator(acc_id)
    return memory_fit(
        model_architectures()[model],
        precision,
        context,
        accelerator_id=acc_id,
        accelerator_name=acc.name,
        memory_gib=acc.memory_gib,
        **kw,
    )


def test_kv_and_weights_hand_computed():
    arch = model_architectures()["llama-3.1-70b"]
    # 2 x 80 layers x 8 KV heads x 128 x 2 bytes = 327,680 B = 320 KiB
    assert kv_bytes_per_token(arch, "bf16") == 327_680
    assert kv_bytes_per_token(arch, "fp8") == 163_840
    assert weight_bytes(arch, "bf16") == pytest.approx(141.1e9)
    assert weight_bytes(arch, "int4") == pytest.approx(70.55e9 * 0.5 * 1.03)


def test_70b_bf16_fits_one_mi300x_not_one_h100():
    amd = fit("llama-3.1-70b", "bf16", "amd-mi300x-192gb")
    assert amd.fits and amd.accelerators_per_replica == 1
    # 0.9 x 192 - 4 = 168.8 GiB usable; 131.4 GiB weights; 37.4 GiB left for KV
    assert amd.usable_gib_per_device == pytest.approx(168.8)
    assert amd.kv_tokens_capacity * 327_680 / GIB == pytest.approx(168.8 - 141.1e9 / GIB, rel=1e-6)
    nv = fit("llama-3.1-70b", "bf16", "nvidia-h100-sxm-80gb")
    assert nv.accelerators_per_replica == 4
    assert "68.0 GiB usable < 131.4 GiB weights" in nv.rejected[0]
    assert "below the" in nv.rejected[1]  # 2 GPUs hold the weights but leave under 10% for KV
    assert "fits" not in nv.explanation or nv.explanation.startswith("Llama")


@pytest.mark.parametrize(
    ("model", "precision", "acc", "want"),
    [
        ("llama-3.1-70b", "fp8", "nvidia-h100-sxm-80gb", 2),
        ("llama-3.1-70b", "bf16", "nvidia-h200-141gb", 2),
        ("llama-3.1-70b", "fp8", "nvidia-h200-141gb", 1),
        ("llama-3.1-405b", "bf16", "nvidia-h100-sxm-80gb", 16),
        ("llama-3.1-405b", "fp8", "nvidia-h100-sxm-80gb", 8),
        ("llama-3.1-405b", "fp8", "amd-mi300x-192gb", 4),
        ("llama-3.1-8b", "bf16", "nvidia-l4-24gb", 1),
    ],
)
def test_min_accelerators_match_reference_table(model, precision, acc, want):
    assert fit(model, precision, acc).accelerators_per_replica == want


def test_405b_on_h100_uses_pipeline_stages():
    f = fit("llama-3.1-405b", "bf16", "nvidia-h100-sxm-80gb")
    assert (f.tensor_parallel, f.pipeline_parallel) == (8, 2)


def test_tp_must_divide_heads():
    # Qwen2.5-7B has 28 attention heads and 4 KV heads: TP 8 is impossible
    f = fit(
        "qwen2.5-7b",
        "bf16",
        "nvidia-l4-24gb",
        context=32768,
        concurrent_sequences=40,
        max_accelerators=8,
    )
    assert not f.fits
    assert any("TP=8 does not divide 28 attention / 4 KV heads" in r for r in f.rejected)


def test_context_and_cpu_rejections():
    assert (
        "at most 4,096" in fit("llama-2-70b", "bf16", "amd-mi300x-192gb", context=8192).explanation
    )
    cpu = fit("llama-3.1-8b", "int8", "cpu-intel-spr-amx")
    assert not cpu.fits and "host" in cpu.explanation
    ok = memory_fit(
        model_architectures()["llama-3.1-8b"],
        "int8",
        8192,
        accelerator_id="cpu-intel-spr-amx",
        memory_gib=256,
    )
    assert ok.fits


def test_moe_counts_all_experts():
    arch = model_architectures()["mixtral-8x7b"]
    assert weight_bytes(arch, "bf16") == pytest.approx(46.7e9 * 2)


def test_architecture_table_is_consistent():
    archs = model_architectures()
    for needed in (
        "llama-3.1-8b",
        "llama-3.1-70b",
        "llama-3.1-405b",
        "llama-3.3-70b",
        "llama-2-70b",
        "mixtral-8x7b",
        "qwen2.5-72b",
        "mistral-7b",
    ):
        assert needed in archs
    for a in archs.values():
        assert a.source_url.startswith("https://") and a.source_url.endswith("config.json")
        # Qwen3, gpt-oss and MLA models widen or narrow the heads: only the older ones add up.
        if a.family in {"llama", "mistral", "mixtral", "qwen2", "gptj"}:
            assert a.attention_heads * a.head_dim == a.hidden_size
        assert a.attention_heads % a.kv_heads == 0


@pytest.mark.parametrize(
    ("name", "want"),
    [
        ("Llama-2-70B-Chat (99% acc target)", "llama-2-70b"),
        ("Llama-3.1-8B-Instruct (CNN-DM)", "llama-3.1-8b"),
        ("Llama-3.3-70B-Instruct", "llama-3.3-70b"),
        ("LLaMA 3.1 70B", "llama-3.1-70b"),
        # A hub id whose owner the table does not list: the name after the owner is the model's.
        ("meta-llama/Llama-2-70b-chat-hf", "llama-2-70b"),
        ("TheBloke/Llama-2-7B-GGUF", "llama-2-7b"),
        ("someorg/unknown-model", None),
        ("unknown model", None),
    ],
)
def test_resolve_architecture(name, want):
    got = resolve_architecture(name)
    assert (got.model_id if got else None) == want
