"""The first-principles half of the performance model: what an accelerator's datasheet and a
model's architecture allow, before calibration on measured results.

Per replica of ``tp`` accelerators serving a batch of ``B`` sequences (all figures per request):

* **prefill** (the first token): 2 × active parameters × input tokens FLOPs at the part's peak
  for the precision, spread over the replica, plus one tensor-parallel exchange per layer;
* **decode step** (every further token): the larger of the memory traffic (the weights the batch
  touches — for a mixture of experts only the experts the batch routes to — plus every
  sequence's KV cache, at the part's bandwidth) and the compute (2 × active parameters × B);
* **batch**: as many sequences as the KV cache left beside the weights holds (capacity), cut by
  the scenario: offline runs the largest batch (up to ``MAX_BATCH``), a server or interactive
  run the largest whose decode step meets its time-per-output-token target, a concurrency run
  that many;
* **throughput** per accelerator: B × output tokens / (B × prefill + output × step) / tp, with
  ``tp`` the power-of-two replica size (within the system) that gives the most per accelerator.

These are the bounds at datasheet peaks. The achievable fraction of each bound per part,
vendor, runtime, precision and regime is fitted on the measured results in
:mod:`costmodel.perf_calibration`; nothing here is fitted.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from costmodel.memory import GIB, ModelArchitecture

#: Bytes per weight by the precision names results use (mxfp4 is a 4-bit format with a shared
#: scale per 32 values; q4_0 is llama.cpp's 4-bit block format; fp32 is unquantised).
WEIGHT_BYTES = {
    "fp32": 4.0,
    "bf16": 2.0,
    "fp16": 2.0,
    "fp8": 1.0,
    "int8": 1.0,
    "int4": 0.5,
    "int4-awq": 0.5,
    "q4_0": 0.5,
    "q4_k_m": 0.5,
    "fp4": 0.5,
    "nvfp4": 0.5,
    "mxfp4": 0.5,
}
#: Peak compute relative to dense BF16 (the one peak the accelerator table holds): tensor cores
#: of the parts that run FP8 double BF16, FP4 doubles FP8 (NVIDIA Hopper/Blackwell, AMD CDNA3/4
#: datasheets). A part without the format runs it no faster; the fitted precision factor takes
#: up that difference.
COMPUTE_SPEEDUP = {"fp32": 0.5, "bf16": 1.0, "fp16": 1.0, "fp8": 2.0, "int8": 2.0, "fp4": 4.0}
#: Share of device memory a runtime hands the model (the rest: activations, graphs, fragments)
#: and a fixed runtime overhead per device; the same figures as the memory-fit rule.
USABLE_FRACTION = 0.9
OVERHEAD_GIB = 4.0
#: Below this share of usable memory left for the KV cache a layout is not a serving layout.
MIN_KV_SHARE = 0.05
#: The largest batch a runtime schedules (vLLM's and TensorRT-LLM's max_num_seqs defaults are
#: 256–2048; beyond this step time, not memory, limits offline throughput).
MAX_BATCH = 1024.0
#: Replica sizes tried: powers of two up to the system's accelerator count.
REPLICA_SIZES = (1, 2, 4, 8, 16, 32, 64)
#: A tensor-parallel all-reduce costs about this much per layer and step (NVLink/xGMI latency,
#: two per transformer layer); the fitted factors take up what a part's fabric does better.
ALLREDUCE_S = 8e-6
#: Achievable all-reduce bandwidth per accelerator (bytes/s) of the two kinds of fabric the
#: catalog's parts sit on: a scale-up link (NVLink 900 GB/s on H100 SXM, xGMI 896 GB/s on MI300X,
#: of which all-reduce reaches roughly a third) or PCIe Gen4/5 between cards (32–64 GB/s a
#: direction, of which about 20 GB/s in an 8-card ring). The table states neither; the part's
#: form factor in its id says which.
SCALE_UP_LINK_B_S = 300e9
PCIE_LINK_B_S = 20e9
PCIE_PARTS = ("pcie", "l40s", "l4-", "a10g", "rtx", "inferentia", "ai100")


def link_bytes_per_s(accelerator_id: str, backend: str) -> float:
    """The all-reduce bandwidth assumed for a part (see :data:`PCIE_PARTS`); CPUs split a model
    over sockets, which UPI links at about PCIe's rate."""
    if backend == "cpu" or any(tag in accelerator_id for tag in PCIE_PARTS):
        return PCIE_LINK_B_S
    return SCALE_UP_LINK_B_S


#: A part whose datasheet states no dense peak: compute assumed at this many FLOPs per byte of
#: memory bandwidth, the ratio of its kind's parts that state both (H100 SXM 295, B200 281, MI300X
#: 247 BF16 FLOPs per byte; a Sapphire/Granite Rapids socket with AMX near 100-200 at BF16).
FALLBACK_FLOPS_PER_BYTE = 250.0
FALLBACK_CPU_FLOPS_PER_BYTE = 150.0
#: A CPU's memory when the table states none (host DRAM of a two-socket server).
FALLBACK_MEMORY_GIB = 512.0


@dataclass(frozen=True)
class Hardware:
    """The datasheet figures the physics reads (one accelerator)."""

    accelerator_id: str
    vendor: str
    backend: str
    memory_gib: float | None
    memory_bandwidth_tb_s: float | None
    peak_dense_bf16_tflops: float | None


def weight_bytes_per_param(precision: str) -> float:
    key = precision.lower()
    if key not in WEIGHT_BYTES:
        raise ValueError(
            f"precision {precision!r} is not one the performance model knows;"
            f" use one of {', '.join(sorted(WEIGHT_BYTES))}"
        )
    return WEIGHT_BYTES[key]


def compute_speedup(precision: str) -> float:
    b = weight_bytes_per_param(precision)
    return COMPUTE_SPEEDUP.get(precision.lower(), {0.5: 4.0, 1.0: 2.0}.get(b, 1.0))


def shared_params_b(arch: ModelArchitecture) -> float:
    """Parameters every token uses (attention, embeddings, shared experts): solved from
    active = shared + (total − shared) × k / E."""
    if not arch.experts or not arch.experts_per_token or arch.params_b <= arch.active_params_b:
        return arch.params_b
    e, k = float(arch.experts), float(arch.experts_per_token)
    shared = (arch.active_params_b * e - arch.params_b * k) / (e - k)
    return min(max(shared, 0.0), arch.active_params_b)


def kv_bytes_per_token(arch: ModelArchitecture, precision: str, context: float) -> float:
    """KV cache per token of context, windowed layers (gpt-oss) counted for the share of the
    context they hold; FP8 cache for 8-bit and smaller weights, BF16 otherwise."""
    kv_b = 2.0 if weight_bytes_per_param(precision) >= 2 else 1.0
    if arch.kv_lora_rank:
        per_layer = (arch.kv_lora_rank + arch.qk_rope_head_dim) * kv_b
    else:
        per_layer = 2.0 * arch.kv_heads * arch.head_dim * kv_b
    layers = float(arch.layers)
    if arch.windowed_layers and context > 0:
        held = min(1.0, arch.attention_window / context)
        layers = arch.layers - arch.windowed_layers * (1.0 - held)
    return layers * per_layer


@dataclass
class Cases:
    """Many physics questions at once, one array element each (see :func:`cases_from`)."""

    params: np.ndarray  # all parameters (B)
    active: np.ndarray  # active parameters per token (B)
    shared: np.ndarray  # parameters every token reads (B)
    expert_share: np.ndarray  # experts_per_token / experts (1 for a dense model)
    layers: np.ndarray
    hidden: np.ndarray
    link: np.ndarray  # all-reduce bytes/s per accelerator
    wbytes: np.ndarray  # bytes per weight
    kv_tok: np.ndarray  # KV bytes per token of context
    speedup: np.ndarray  # compute relative to BF16
    memory_gib: np.ndarray
    bw: np.ndarray  # bytes/s
    peak: np.ndarray  # FLOP/s at BF16
    system: np.ndarray  # accelerators available (replica size at most this)
    fixed_tp: np.ndarray  # 0: choose; else the replica size asked for
    input_tokens: np.ndarray
    output_tokens: np.ndarray
    regime: np.ndarray  # 0 offline, 1 server, 2 interactive, 3 concurrency
    tpot_limit_s: np.ndarray  # server / interactive target (NaN: none)
    concurrency: np.ndarray  # NaN unless regime 3


REGIMES = ("offline", "server", "interactive", "concurrency")


def regime_code(name: str) -> int:
    return REGIMES.index(name)


def case_fields(
    arch: ModelArchitecture,
    hw: Hardware,
    precision: str,
    *,
    system: int,
    fixed_tp: int,
    input_tokens: float,
    output_tokens: float,
    regime: str,
    tpot_limit_ms: float | None,
    concurrency: float | None,
) -> dict[str, float]:
    """One case's fields (stack many with :func:`cases_from`)."""
    wb = weight_bytes_per_param(precision)
    bw = hw.memory_bandwidth_tb_s or 0.1
    ratio = FALLBACK_CPU_FLOPS_PER_BYTE if hw.backend == "cpu" else FALLBACK_FLOPS_PER_BYTE
    peak = hw.peak_dense_bf16_tflops or bw * ratio
    dense = not (arch.experts and arch.experts_per_token)
    return {
        "params": arch.params_b,
        "active": arch.active_params_b,
        "shared": shared_params_b(arch),
        "expert_share": 1.0 if dense else arch.experts_per_token / arch.experts,
        "layers": float(arch.layers),
        "hidden": float(arch.hidden_size),
        "link": link_bytes_per_s(hw.accelerator_id, hw.backend),
        "wbytes": wb,
        "kv_tok": kv_bytes_per_token(arch, precision, input_tokens + output_tokens / 2),
        "speedup": compute_speedup(precision),
        "memory_gib": hw.memory_gib or FALLBACK_MEMORY_GIB,
        "bw": bw * 1e12,
        "peak": peak * 1e12,
        "system": float(system),
        "fixed_tp": float(fixed_tp),
        "input_tokens": float(input_tokens),
        "output_tokens": float(output_tokens),
        "regime": float(regime_code(regime)),
        "tpot_limit_s": np.nan if tpot_limit_ms is None else tpot_limit_ms / 1000.0,
        "concurrency": np.nan if concurrency is None else float(concurrency),
    }


def cases_from(fields: list[dict[str, float]]) -> Cases:
    names = Cases.__dataclass_fields__
    return Cases(**{n: np.array([f[n] for f in fields], dtype=float) for n in names})


@dataclass
class Physics:
    """The bounds per case: output tok/s per accelerator, TTFT and TPOT (seconds), the replica
    size and batch chosen, and whether the model fits at all."""

    tok_s_per_acc: np.ndarray
    ttft_s: np.ndarray
    tpot_s: np.ndarray
    replica: np.ndarray
    batch: np.ndarray
    fits: np.ndarray


def _allreduce_time(c: Cases, tp: np.ndarray, tokens: np.ndarray) -> np.ndarray:
    """Two all-reduces per layer of ``tokens`` activations (BF16) across a ``tp`` replica:
    a ring moves 2 (tp − 1) / tp of the data per accelerator, after a fixed latency."""
    data = 2.0 * c.layers * tokens * c.hidden * 2.0 * 2.0 * (tp - 1.0) / tp
    return np.where(tp > 1, 2.0 * c.layers * ALLREDUCE_S + data / c.link, 0.0)


def _step_time(c: Cases, tp: np.ndarray, batch: np.ndarray) -> np.ndarray:
    """One decode step of ``batch`` sequences on ``tp`` accelerators (seconds)."""
    touched = 1.0 - np.power(1.0 - c.expert_share, np.maximum(batch, 1.0))
    weights = (c.shared + (c.params - c.shared) * touched) * 1e9 * c.wbytes
    ctx = c.input_tokens + c.output_tokens / 2.0
    memory = (weights + batch * ctx * c.kv_tok) / (tp * c.bw)
    compute = 2.0 * c.active * 1e9 * batch / (tp * c.peak * c.speedup)
    return np.maximum(memory, compute) + _allreduce_time(c, tp, batch)


def _prefill_time(c: Cases, tp: np.ndarray) -> np.ndarray:
    flops = 2.0 * c.active * 1e9 * c.input_tokens
    return flops / (tp * c.peak * c.speedup) + _allreduce_time(c, tp, c.input_tokens)


def _batch_for(c: Cases, tp: np.ndarray, capacity: np.ndarray) -> np.ndarray:
    """The batch the scenario runs at this replica size (capacity already in sequences)."""
    offline = np.minimum(capacity, MAX_BATCH)
    # Largest batch whose step meets the TPOT target: the step is linear in the batch on each
    # side of the roofline, so solve both and keep the smaller (all experts touched: a bound).
    limit = np.where(np.isfinite(c.tpot_limit_s), c.tpot_limit_s, np.inf)
    comm = np.where(tp > 1, 2.0 * c.layers * ALLREDUCE_S, 0.0)
    budget = np.maximum(limit - comm, 0.0)
    ctx = c.input_tokens + c.output_tokens / 2.0
    w_all = c.params * 1e9 * c.wbytes
    w_one = c.shared * 1e9 * c.wbytes + (c.params - c.shared) * 1e9 * c.wbytes * c.expert_share
    w_read = np.minimum(w_all, np.maximum(w_one, w_all * 0.5))
    by_memory = (budget * tp * c.bw - w_read) / (ctx * c.kv_tok)
    by_compute = budget * tp * c.peak * c.speedup / (2.0 * c.active * 1e9)
    latency = np.clip(np.minimum(by_memory, by_compute), 1.0, None)
    latency_batch = np.minimum(offline, latency)
    conc = np.minimum(capacity, np.where(np.isfinite(c.concurrency), c.concurrency, 1.0))
    return np.select(
        [c.regime == 0, c.regime == 3],
        [offline, np.maximum(conc, 1.0)],
        np.maximum(latency_batch, 1.0),
    )


def physics(c: Cases) -> Physics:
    """The roofline bounds for every case, at the best replica size (see the module doc)."""
    n = len(c.params)
    best = np.full(n, -1.0)
    out = {k: np.full(n, np.nan) for k in ("ttft", "tpot", "tp", "batch")}
    asked = {float(v) for v in c.fixed_tp if v > 0}
    for size in sorted(asked | {float(s) for s in REPLICA_SIZES}):
        tp = np.full(n, size)
        allowed = np.where(c.fixed_tp > 0, c.fixed_tp == size, size <= np.maximum(c.system, 1))
        usable = tp * (USABLE_FRACTION * c.memory_gib - OVERHEAD_GIB) * GIB
        room = usable - c.params * 1e9 * c.wbytes
        ctx = c.input_tokens + c.output_tokens / 2.0
        capacity = room / (ctx * c.kv_tok)
        ok = allowed & (room > MIN_KV_SHARE * usable) & (capacity >= 1.0)
        batch = _batch_for(c, tp, np.maximum(capacity, 1.0))
        step = _step_time(c, tp, batch)
        prefill = _prefill_time(c, tp)
        per_acc = batch * c.output_tokens / (batch * prefill + c.output_tokens * step) / tp
        better = ok & (per_acc > best)
        best = np.where(better, per_acc, best)
        for key, value in (("ttft", prefill + step), ("tpot", step), ("tp", tp), ("batch", batch)):
            out[key] = np.where(better, value, out[key])
    fits = best > 0
    return Physics(
        tok_s_per_acc=np.where(fits, best, np.nan),
        ttft_s=out["ttft"],
        tpot_s=out["tpot"],
        replica=out["tp"],
        batch=out["batch"],
        fits=fits,
    )
