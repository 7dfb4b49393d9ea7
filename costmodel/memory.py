"""Memory fit: minimum accelerators per replica for a model, precision and context length.

weights = params × bytes/param; KV cache per token = 2 (K and V) × layers × KV heads × head dim
× bytes (modeling.md §6.1). Multi-head latent attention (DeepSeek-V2/V3/R1, Kimi K2) caches one
compressed latent and one shared rotary key per layer instead: (kv_lora_rank + qk_rope_head_dim)
× layers × bytes per token (DeepSeek-V2 paper, arXiv:2405.04434, Table 1: "(d_c + d_h^R) l").
Sliding-window layers (gpt-oss) hold at most ``attention_window`` tokens of a sequence. Usable
memory per device = usable_fraction × capacity − runtime overhead; at least ``min_kv_fraction``
of usable memory must remain for the KV cache. Tensor parallel (TP) is a power of two that
divides the attention heads and the KV heads and stays within a node; pipeline stages (PP) must
divide the layer count.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

GIB = 1024**3

#: Bytes per parameter. INT4 grouped quantisation adds scales/zeros; ~3% is typical for g=128.
BYTES_PER_PARAM = {"bf16": 2.0, "fp16": 2.0, "fp8": 1.0, "int8": 1.0, "int4": 0.5, "fp4": 0.5}
INT4_SCALE_OVERHEAD = 0.03


@dataclass(frozen=True)
class ModelArchitecture:
    model_id: str
    name: str
    family: str
    params_b: float
    active_params_b: float
    layers: int
    hidden_size: int
    attention_heads: int
    kv_heads: int
    head_dim: int
    vocab_size: int
    max_context: int
    source_url: str
    aliases: tuple[str, ...] = ()
    notes: str = ""
    #: "mha" | "gqa" | "mla"; MLA caches a latent of kv_lora_rank plus a rotary key per layer.
    attention: str = "gqa"
    kv_lora_rank: int = 0
    qk_rope_head_dim: int = 0
    #: Layers that cache every token of a sequence; 0 means all. The rest keep a window.
    full_attention_layers: int = 0
    attention_window: int = 0
    experts: int = 0
    experts_per_token: int = 0

    @property
    def windowed_layers(self) -> int:
        if not self.full_attention_layers or not self.attention_window:
            return 0
        return self.layers - self.full_attention_layers


def bytes_per_param(precision: str) -> float:
    key = precision.lower()
    if key not in BYTES_PER_PARAM:
        raise ValueError(f"precision {precision!r} is not one of {sorted(BYTES_PER_PARAM)}")
    return BYTES_PER_PARAM[key]


def weight_bytes(arch: ModelArchitecture, precision: str) -> float:
    """All parameters stay resident (MoE experts included)."""
    b = bytes_per_param(precision)
    overhead = 1.0 + (INT4_SCALE_OVERHEAD if b == 0.5 else 0.0)
    return arch.params_b * 1e9 * b * overhead


def _kv_bytes_per_layer_token(arch: ModelArchitecture, kv_precision: str) -> float:
    if arch.kv_lora_rank:
        return (arch.kv_lora_rank + arch.qk_rope_head_dim) * bytes_per_param(kv_precision)
    return 2.0 * arch.kv_heads * arch.head_dim * bytes_per_param(kv_precision)


def kv_bytes_per_token(arch: ModelArchitecture, kv_precision: str) -> float:
    """Every layer's cache for one token: 2 × layers × KV heads × head dim × bytes, or for MLA
    layers × (kv_lora_rank + qk_rope_head_dim) × bytes. Counts windowed layers too, so token
    capacities built on it never overstate."""
    return arch.layers * _kv_bytes_per_layer_token(arch, kv_precision)


def kv_bytes_per_sequence(arch: ModelArchitecture, kv_precision: str, tokens: int) -> float:
    """One sequence's KV cache: full-attention layers hold every token, windowed layers at most
    ``attention_window`` of them."""
    windowed = arch.windowed_layers
    held = (arch.layers - windowed) * tokens + windowed * min(tokens, arch.attention_window)
    return held * _kv_bytes_per_layer_token(arch, kv_precision)


@dataclass(frozen=True)
class MemoryFit:
    model_id: str
    accelerator_id: str
    precision: str
    context_tokens: int
    fits: bool
    accelerators_per_replica: int | None
    tensor_parallel: int | None
    pipeline_parallel: int | None
    weights_gib: float
    kv_gib_per_sequence: float
    usable_gib_per_device: float
    kv_tokens_capacity: float | None
    rejected: tuple[str, ...]
    explanation: str


def _fmt_tokens(tokens: float) -> str:
    return f"{tokens / 1e6:.1f}M" if tokens >= 1e6 else f"{tokens / 1e3:.0f}K"


def memory_fit(
    arch: ModelArchitecture,
    precision: str,
    context_tokens: int,
    *,
    accelerator_id: str,
    accelerator_name: str = "",
    memory_gib: float | None,
    usable_fraction: float = 0.9,
    overhead_gib_per_device: float = 4.0,
    kv_precision: str | None = None,
    concurrent_sequences: int = 1,
    min_kv_fraction: float = 0.1,
    max_tp_per_node: int = 8,
    max_accelerators: int = 64,
) -> MemoryFit:
    """Smallest power-of-two accelerator count (TP × PP) that holds the weights plus KV cache."""
    name = accelerator_name or accelerator_id
    if kv_precision is None:
        kv_precision = "bf16" if bytes_per_param(precision) >= 2 else "fp8"
    w = weight_bytes(arch, precision)
    kv_tok = kv_bytes_per_token(arch, kv_precision)
    kv_seq = kv_bytes_per_sequence(arch, kv_precision, context_tokens)
    base: dict[str, Any] = dict(
        model_id=arch.model_id,
        accelerator_id=accelerator_id,
        precision=precision,
        context_tokens=context_tokens,
        weights_gib=w / GIB,
        kv_gib_per_sequence=kv_seq / GIB,
    )
    if context_tokens > arch.max_context:
        return _no_fit(
            base,
            f"{arch.name} supports at most {arch.max_context:,} tokens of context; "
            f"{context_tokens:,} were asked for",
        )
    if memory_gib is None:
        return _no_fit(
            base,
            f"{name} has no device memory in the catalog (a CPU uses host DRAM); "
            "pass the host's memory_gib",
        )
    usable = memory_gib * usable_fraction * GIB - overhead_gib_per_device * GIB
    need_kv_seq = kv_seq * concurrent_sequences
    rejected: list[str] = []
    n = 1
    while n <= max_accelerators:
        tp = min(n, max_tp_per_node)
        pp = n // tp
        why = _layout_refused(arch, tp, pp)
        if why is None:
            total = n * usable
            kv_room = total - w
            floor = min_kv_fraction * total
            if total > 0 and kv_room >= max(floor, need_kv_seq):
                head = (
                    f"{arch.name} in {precision} needs {w / GIB:,.1f} GiB of weights; {n} × {name} give"
                    f" {total / GIB:,.1f} GiB usable ({usable_fraction:.2f} × "
                    f"{memory_gib:g} GiB − {overhead_gib_per_device:g} GiB"
                    f" overhead each), leaving {kv_room / GIB:,.1f} GiB "
                    f"({kv_room / total:.0%}) for KV cache ≈"
                    f" {_fmt_tokens(kv_room / kv_tok)} tokens at {kv_tok / 1024:,.0f} KiB/token"
                )
                if rejected:
                    head += "; smaller counts fail: " + "; ".join(rejected)
                return MemoryFit(
                    **base,
                    fits=True,
                    accelerators_per_replica=n,
                    tensor_parallel=tp,
                    pipeline_parallel=pp,
                    usable_gib_per_device=usable / GIB,
                    kv_tokens_capacity=kv_room / kv_tok,
                    rejected=tuple(rejected),
                    explanation=head,
                )
            if kv_room < 0:
                why = f"{n} × {name} = {total / GIB:,.1f} GiB usable < {w / GIB:,.1f} GiB weights"
            else:
                need = max(floor, need_kv_seq)
                why = (
                    f"{n} × {name} leaves {kv_room / GIB:,.1f} GiB for KV, below the"
                    f" {need / GIB:,.1f} GiB needed ({min_kv_fraction:.0%} floor or "
                    f"{concurrent_sequences} × {context_tokens:,}-token sequence)"
                )
        rejected.append(why)
        n *= 2
    return _no_fit(
        base,
        f"{arch.name} in {precision} does not fit on up to {max_accelerators} × {name}: "
        + "; ".join(rejected[-2:]),
        usable_gib_per_device=usable / GIB,
        rejected=tuple(rejected),
    )


def _layout_refused(arch: ModelArchitecture, tp: int, pp: int) -> str | None:
    """Why a tensor × pipeline split cannot shard the model (None when it can)."""
    if arch.attention_heads % tp or arch.kv_heads % tp:
        return (
            f"TP={tp} does not divide {arch.attention_heads} attention / {arch.kv_heads} KV heads"
        )
    if arch.layers % pp:
        return f"PP={pp} does not divide {arch.layers} layers"
    return None


def _no_fit(
    base: dict[str, Any],
    explanation: str,
    *,
    usable_gib_per_device: float = 0.0,
    rejected: tuple[str, ...] = (),
) -> MemoryFit:
    return MemoryFit(
        **base,
        fits=False,
        accelerators_per_replica=None,
        tensor_parallel=None,
        pipeline_parallel=None,
        usable_gib_per_device=usable_gib_per_device,
        kv_tokens_capacity=None,
        rejected=rejected,
        explanation=explanation,
    )
