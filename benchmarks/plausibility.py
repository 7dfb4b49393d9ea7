"""A physical plausibility gate for benchmark results: no accelerator beats its own datasheet.

For one result (one replica of ``accelerators_per_replica`` accelerators serving a model at a
precision) two bounds follow from the accelerator catalog (memory, memory bandwidth, dense BF16
peak) and the model architecture table (parameters, layers, KV heads, head dim):

* **decode tok/s upper bound** — the smaller of
  - compute: every output token costs at least 2 FLOPs per active parameter, so
    ``tok/s <= N x peak FLOP/s x precision speed-up / (2 x active params)``;
  - bandwidth, for a closed loop of ``concurrency`` streams: each decode step reads the active
    weights at least once and gives each stream at most one token, so
    ``tok/s <= concurrency x N x bandwidth / active weight bytes``;
* **TTFT lower bound** for the result's input length — prefill costs at least
  ``2 x active params x input tokens`` FLOPs and one read of the active weights:
  ``ttft >= max(prefill FLOPs / (N x peak FLOP/s x speed-up), active weight bytes / (N x bandwidth))``.

Every assumption leans towards a *higher* throughput bound and a *lower* TTFT bound (peak
FLOPs are never reached; low-precision speed-ups are applied even where the hardware lacks the
format; an unstated precision gets the most generous one), so a result beyond a bound is
physically impossible as labelled — a misread file, a wrong accelerator count, or a typo — not a
merely good result. The module is pure: callers pass the catalog rows in.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cache

from benchmarks.errors import ResultFileError
from tokendesk.metrics import PERCENTILES
from tokendesk.paths import data_dir
from tokendesk.records import Accelerator

ARCHITECTURES_FILE = "model_architectures.csv"

#: Tensor-core speed-up over dense BF16 a precision can claim (generous: the hardware may lack it).
SPEEDUP = {"bf16": 1.0, "fp16": 1.0, "fp32": 1.0, "fp8": 2.0, "int8": 2.0, "fp4": 4.0, "int4": 4.0}
#: Bytes per parameter; the smallest plausible reading for quantised GGUF types.
BYTES = {"bf16": 2.0, "fp16": 2.0, "fp32": 4.0, "fp8": 1.0, "int8": 1.0, "fp4": 0.5, "int4": 0.5}
MOST_GENEROUS = "fp4"
#: The verdict of a result for a model the table lacks whose name states no size: no bound can
#: be checked, so the gate refuses it as it refuses an implausible one (or keeps it flagged).
UNSIZED = "unsized"


@dataclass(frozen=True)
class Architecture:
    """What the bounds need of a model: parameters (all and active per token)."""

    model_id: str
    params_b: float
    active_params_b: float
    aliases: tuple[str, ...] = ()


@dataclass(frozen=True)
class Plausibility:
    """The bounds for one result and how the result sits against them."""

    verdict: str  # "within" | "implausible" | "unchecked" | UNSIZED
    decode_tok_s_max: float | None = None
    ttft_ms_min: float | None = None
    #: output tok/s as a percentage of the decode bound ("% of roofline").
    roofline_pct: float | None = None
    arithmetic: tuple[str, ...] = ()
    reasons: tuple[str, ...] = field(default=())

    def as_dict(self) -> dict:
        return {
            "verdict": self.verdict,
            "decode_tok_s_max": self.decode_tok_s_max,
            "ttft_ms_min": self.ttft_ms_min,
            "roofline_pct": self.roofline_pct,
            "arithmetic": list(self.arithmetic),
            "reasons": list(self.reasons),
        }


def precision_class(precision: str) -> str:
    """bf16 | fp16 | fp8 | int8 | fp4 | int4 | fp32 for a free-text label, or "" if unknown."""
    text = precision.lower().replace("mostly_", "")
    for needle, name in (
        ("fp4", "fp4"),
        ("nvfp4", "fp4"),
        ("mxfp4", "fp4"),
        ("int4", "int4"),
        ("q4", "int4"),
        ("q3", "int4"),
        ("q2", "int4"),
        ("q5", "int8"),
        ("q6", "int8"),
        ("q8", "int8"),
        ("int8", "int8"),
        ("w8a8", "int8"),
        ("fp8", "fp8"),
        ("bf16", "bf16"),
        ("fp16", "fp16"),
        ("f16", "fp16"),
        ("fp32", "fp32"),
        ("f32", "fp32"),
    ):
        if needle in text:
            return name
    return ""


def _key(name: str) -> str:
    """A model name for matching, case and separators ignored as the model table's other reader
    (``costmodel``) ignores them: MLPerf's ``llama3_1-8b`` and ``gptj-99`` are Llama 3.1 8B and
    GPT-J, and a result on a model left unmatched would skip the physical bounds."""
    return re.sub(r"[^a-z0-9]", "", name.lower())


@cache
def architectures() -> tuple[Architecture, ...]:
    with (data_dir() / ARCHITECTURES_FILE).open(newline="", encoding="utf-8") as handle:
        return tuple(
            Architecture(
                model_id=row["model_id"],
                params_b=float(row["params_b"]),
                active_params_b=float(row["active_params_b"]),
                aliases=tuple(a for a in row["aliases"].split(";") if a),
            )
            for row in csv.DictReader(handle)
        )


def architecture_for(model: str) -> Architecture | None:
    """The architecture whose id or alias is the longest prefix of ``model`` (normalised)."""
    key = _key(model.rsplit("/", 1)[-1])
    best: tuple[int, Architecture] | None = None
    for arch in architectures():
        for alias in (arch.model_id, *arch.aliases):
            a = _key(alias)
            if key.startswith(a) and (best is None or len(a) > best[0]):
                best = (len(a), arch)
    return best[1] if best else None


#: A parameter count a model's name states, as its publisher writes it: ``70b``, ``1.5B``,
#: ``135m``, ``8x7b`` (experts x size). Not preceded by a letter, digit or point and not followed
#: by a letter, so ``v0.1``, ``4k`` (a context length) and ``fp8`` are not read as sizes.
_STATED_SIZE = re.compile(r"(?<![a-z0-9.])(?:(\d+)x)?(\d+(?:\.\d+)?)([bm])(?![a-z])")
#: The active parameters a mixture-of-experts name states: ``qwen3-30b-a3b``.
_STATED_ACTIVE = re.compile(r"(?<![a-z0-9.])a(\d+(?:\.\d+)?)b(?![a-z])")
#: Where a model outside the table gets its parameter count from, for the reasons printed.
STATED_SIZE_NOTE = "parameters as its name states them, the model not being in"


@cache
def smallest_active_share() -> float:
    """The smallest share of its parameters any model in the table activates per token."""
    return min(a.active_params_b / a.params_b for a in architectures() if a.params_b > 0)


def stated_architecture(model: str) -> Architecture | None:
    """The bounds' inputs for a model the table lacks, from the parameter count its name states
    (``acme-chat-70b`` is 70e9 parameters); None when the name states none.

    Generous as every other assumption here: a name may hide a mixture of experts, so unless it
    states its active count (``-a3b``) the active parameters are the stated total times the
    smallest active share of any model in the table (a ``NxMb`` name: M at most)."""
    name = model.rsplit("/", 1)[-1].lower()
    active_found = [float(m.group(1)) for m in _STATED_ACTIVE.finditer(name)]
    name_wo_active = _STATED_ACTIVE.sub(" ", name)
    sizes = []
    for experts, size, unit in _STATED_SIZE.findall(name_wo_active):
        billions = float(size) / (1000 if unit == "m" else 1)
        sizes.append((billions * int(experts) if experts else billions, billions))
    if not sizes:
        return None
    total, smallest_expert = max(sizes)
    active = (
        min(active_found) if active_found else min(smallest_expert, total * smallest_active_share())
    )
    if not total > 0 or not active > 0:
        return None
    return Architecture(model_id=model, params_b=total, active_params_b=min(active, total))


def _n(value: float) -> str:
    return f"{value:,.0f}" if value >= 100 else f"{value:,.3g}"


def check(
    *,
    accelerator: Accelerator,
    accelerators: int,
    arch: Architecture | None,
    precision: str,
    output_tok_s: float,
    model: str = "",
    concurrency: float | None = None,
    input_tokens: int | None = None,
    ttft_ms: dict[str, float | None] | None = None,
) -> Plausibility:
    """The bounds for one replica and whether the result respects them."""
    if arch is None:
        return Plausibility(
            "unchecked", reasons=(f"model {model!r} is not in {ARCHITECTURES_FILE}",)
        )
    label = precision_class(precision) or MOST_GENEROUS
    speedup, active = SPEEDUP[label], arch.active_params_b * 1e9
    active_bytes = active * BYTES[label]
    n = accelerators
    arithmetic: list[str] = []
    bounds: list[tuple[float, str]] = []
    peak = accelerator.peak_dense_bf16_tflops
    bandwidth = accelerator.memory_bandwidth_tb_s
    how = f"{precision or 'unstated'}" + ("" if precision_class(precision) else " -> fp4, generous")
    if peak:
        flops = n * peak * 1e12 * speedup
        bound = flops / (2 * active)
        bounds.append((bound, "compute"))
        arithmetic.append(
            f"compute: {n} x {_n(peak)} TFLOPS dense BF16 x {speedup:g} ({how}) / "
            f"(2 x {arch.active_params_b:g}e9 FLOP per token) = {_n(bound)} tok/s"
        )
    if bandwidth and concurrency:
        bound = concurrency * n * bandwidth * 1e12 / active_bytes
        bounds.append((bound, "bandwidth"))
        arithmetic.append(
            f"bandwidth: {concurrency:g} streams x {n} x {bandwidth:g} TB/s / "
            f"{active_bytes / 1e9:,.1f} GB of active weights read per step = {_n(bound)} tok/s"
        )
    decode_max = min(b for b, _ in bounds) if bounds else None

    ttft_min = None
    if bandwidth or peak:
        parts = []
        if bandwidth:
            parts.append(active_bytes / (n * bandwidth * 1e12))
        if peak and input_tokens:
            parts.append(2 * active * input_tokens / (n * peak * 1e12 * speedup))
        ttft_min = max(parts) * 1000
        arithmetic.append(
            "TTFT >= max("
            + (f"{active_bytes / 1e9:,.1f} GB / ({n} x {bandwidth:g} TB/s)" if bandwidth else "")
            + (
                f", 2 x {arch.active_params_b:g}e9 x {input_tokens} input tokens / "
                f"({n} x {_n(peak)} TFLOPS x {speedup:g})"
                if peak and input_tokens
                else ""
            )
            + f") = {ttft_min:,.2f} ms"
        )

    reasons: list[str] = []
    where = (
        f"{model or arch.model_id} ({precision or 'precision unstated'}) "
        f"on {n} x {accelerator.accelerator_id}"
    )
    if decode_max is not None and output_tok_s > decode_max:
        reasons.append(
            f"{_n(output_tok_s)} output tok/s for {where} exceeds the physical upper bound of "
            f"{_n(decode_max)} tok/s per replica ({'; '.join(arithmetic[: len(bounds)])})"
        )
    published = {k: v for k, v in (ttft_ms or {}).items() if v is not None}
    if ttft_min is not None and published:
        name, worst = max(published.items(), key=lambda item: item[1])
        if worst < ttft_min:
            reasons.append(
                f"TTFT {name} {worst:,.2f} ms for {where} is below the physical lower bound of "
                f"{ttft_min:,.2f} ms ({arithmetic[-1]})"
            )
    if decode_max is None and ttft_min is None:
        return Plausibility(
            "unchecked",
            reasons=(
                f"{accelerator.accelerator_id} has no peak FLOPS or bandwidth in the catalog",
            ),
        )
    return Plausibility(
        "implausible" if reasons else "within",
        decode_tok_s_max=decode_max,
        ttft_ms_min=ttft_min,
        roofline_pct=100 * output_tok_s / decode_max if decode_max else None,
        arithmetic=tuple(arithmetic),
        reasons=tuple(reasons),
    )


def check_result(result: object, catalog: dict[str, Accelerator]) -> Plausibility:
    """:func:`check` for a BenchmarkResult-like object (attributes by the record's names)."""
    get = result.get if isinstance(result, dict) else lambda k: getattr(result, k, None)
    model = str(get("model") or "")
    accelerator = catalog.get(str(get("accelerator_id")))
    if accelerator is None:
        return Plausibility("unchecked", reasons=(f"{get('accelerator_id')!r} not in the catalog",))

    def _num(key: str) -> float | None:
        try:
            value = float(get(key))  # type: ignore[arg-type]  # a None or text is caught below
        except (TypeError, ValueError):
            return None
        return None if value != value else value

    inputs = _num("input_tokens")
    arch = architecture_for(model)
    if arch is None:
        arch = stated_architecture(model)
        if arch is None:
            return Plausibility(
                UNSIZED,
                reasons=(
                    f"model {model!r} is not in {ARCHITECTURES_FILE} and its name states no"
                    " parameter count (such as '70b'), so no physical bound can be checked",
                ),
            )
    found = check(
        accelerator=accelerator,
        accelerators=int(_num("accelerators_per_replica") or 1),
        arch=arch,
        precision=str(get("precision") or ""),
        output_tok_s=float(_num("output_tok_s") or 0),
        model=model,
        concurrency=_num("concurrency"),
        input_tokens=int(inputs) if inputs else None,
        ttft_ms={k: _num(f"ttft_ms_{k}") for k in PERCENTILES},
    )
    if arch.model_id == model and architecture_for(model) is None:
        note = f"{arch.params_b:g}e9 {STATED_SIZE_NOTE} {ARCHITECTURES_FILE}"
        found = replace(found, arithmetic=(note, *found.arithmetic))
    return found


def roofline_pct(rows: Iterable[Mapping], catalog: dict[str, Accelerator]) -> list[float | None]:
    """ "% of roofline" for each cost-option row (instance tok/s / replicas = per replica)."""
    out: list[float | None] = []
    for row in rows:
        replicas = row.get("replicas_per_instance") or 1
        per_replica = dict(row, output_tok_s=float(row["instance_output_tok_s"]) / replicas)
        out.append(check_result(per_replica, catalog).roofline_pct)
    return out


def roofline_label(pct: float | None) -> str:
    return "unchecked" if pct is None or pct != pct else f"{pct:.0f}%"


def gate(
    name: str,
    results: Sequence,
    catalog: dict[str, Accelerator] | None = None,
    *,
    accept: bool = False,
    where: Callable[[int], str] | None = None,
    measured_here: bool = False,
) -> tuple[list, list[Plausibility], list[ResultFileError]]:
    """The gate every result passes before it is written (``bench import``, ``bench run``,
    ``db ingest``, the dashboard's upload): (results, their checks, one rejection per
    implausible result and per pair of results that describe one operating point differently).

    Internal consistency (TTFT <= end-to-end latency, …) is the record's own validation, so no
    result reaches this gate without it. With ``accept`` an implausible result is kept with
    ``plausibility_flag`` set instead; disagreeing duplicates are always refused.

    A result for a model the table lacks is bounded from the size its name states; one whose
    name states none is refused like an implausible one (a file's claim nothing can check could
    otherwise become the cheapest option), except with ``measured_here``: points the harness
    measured itself against a server (``bench run``), where the figure is a measurement, not a
    claim read from a file, and a test model may be any size."""
    if catalog is None:
        from tokendesk.catalog import load_catalog

        catalog = load_catalog()
    where = where or _result_number
    kept, checks, rejected = [], [], list(disagreeing_duplicates(name, results, where))
    for index, result in enumerate(results):
        check_ = check_result(result, catalog)
        if check_.verdict == UNSIZED and measured_here:
            check_ = replace(check_, verdict="unchecked")
        if check_.verdict in ("implausible", UNSIZED):
            reason = "; ".join(check_.reasons)
            if not accept:
                rejected.append(ResultFileError(name, where(index), _refusal(check_, reason)))
            result = result.model_copy(update={"plausibility_flag": reason})
        kept.append(result)
        checks.append(check_)
    return kept, checks, rejected


def _refusal(check_: Plausibility, reason: str) -> str:
    if check_.verdict == UNSIZED:
        return (
            f"not checkable: {reason}; add the model to data/{ARCHITECTURES_FILE}, give it its"
            " published name (with its size, e.g. 'acme-chat-70b'), or keep it flagged with"
            " --accept-implausible"
        )
    return (
        f"physically implausible: {reason}; if the file is right, check the accelerator,"
        " accelerators per replica and precision (--accelerator, --accelerators-per-replica,"
        " --precision), or keep it flagged with --accept-implausible"
    )


#: What makes two results the same operating point: the configuration and the load it ran at.
OPERATING_POINT = (
    "accelerator_id",
    "accelerators_per_replica",
    "instance_type",
    "system",
    "runtime",
    "runtime_version",
    "model",
    "precision",
    "workload",
    "input_tokens",
    "output_tokens",
    "scenario",
    "concurrency",
    "request_rate_rps",
    "nodes",
    "measured_at",
)
#: The measured figures two rows for one operating point must agree on.
MEASURED = (
    "output_tok_s",
    "total_tok_s",
    *(f"ttft_ms_{p}" for p in PERCENTILES),
    "tpot_ms_p50",
    "tpot_ms_p95",
    "tpot_ms_p99",
    "e2el_ms_p50",
    "e2el_ms_p95",
    "peak_memory_gib",
)


def _result_number(index: int) -> str:
    return f"result {index + 1}"


def disagreeing_duplicates(
    name: str, results: Sequence, where: Callable[[int], str] = _result_number
) -> list[ResultFileError]:
    """One rejection per result that repeats an earlier one's operating point with different
    figures: which of the two is right cannot be told, and keeping the later one (what a write
    would otherwise do) silently drops the other."""
    first_at: dict[tuple, int] = {}
    rejected = []
    for index, result in enumerate(results):
        key = tuple(getattr(result, f, None) for f in OPERATING_POINT)
        if key not in first_at:
            first_at[key] = index
            continue
        earlier = results[first_at[key]]
        differing = [f for f in MEASURED if getattr(earlier, f, None) != getattr(result, f, None)]
        if not differing:
            continue
        shown = ", ".join(
            f"{f} {getattr(earlier, f, None)} vs {getattr(result, f, None)}" for f in differing[:3]
        )
        rejected.append(
            ResultFileError(
                name,
                f"{where(first_at[key])} and {where(index)}",
                f"describe the same operating point ({result.model}, {result.accelerator_id},"
                f" {result.workload}) with different figures ({shown}); keep the right one",
            )
        )
    return rejected
