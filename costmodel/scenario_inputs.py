"""The inputs of a scenario comparison as explicit, validated keys.

The dashboard keeps them in the URL (so a shared link reproduces the view) and the brief command
takes the same names, so the one parser below serves both. A bad value never raises: it falls back
to its default and yields a notice that says which key, what was wrong and what was used instead.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields
from typing import Any

from costmodel import domain
from costmodel.demand import model_key
from tokendesk.metrics import PERCENTILES

#: Model families a segment can ask for; any listed model may serve it (same architecture class).
MODEL_FAMILIES: dict[str, tuple[str, ...]] = {
    "70b": ("Llama-3.3-70B", "Llama-3.1-70B", "Llama-3-70B", "Llama-2-70B"),
    "8b": ("Llama-3.1-8B", "Llama-3-8B", "Llama-2-7B", "Mistral-7B"),
}

#: Backends a custom scenario can allocate traffic to.
BACKENDS = ("cuda", "rocm", "hpu", "xla", "neuron", "qaic", "cpu")


@dataclass(frozen=True)
class ScenarioInputs:
    """Demand, SLO, fleet policy and scenario knobs. Field name = URL key."""

    model: str = "70b"  # the main (chat) segment's model family
    out_b: float = 30.0  # main segment: billions of output tokens per month
    in_b: float = 60.0  # main segment: billions of input tokens per month
    small_b: float = (
        10.0  # small-model segment (routing, classification): billions of output tokens/month
    )
    inter: float = 0.9  # interactive share of traffic (the rest is batch)
    peak: float = 1.8  # peak hour / mean hour
    slo: float = 2000.0  # FTL SLO, ms
    pct: str = "p95"  # FTL percentile the SLO is set on
    amd: float = 0.25  # "Shift N% to AMD": N
    cpu: float = 0.10  # "Add CPU fallback": share of small-model traffic on CPUs
    util: float = 0.8  # utilisation cap of at-SLO capacity
    rate: float = 5000.0  # loaded cost of one engineer-week, USD
    custom: str = ""  # custom scenario: "cuda:0.5,rocm:0.3,hpu:0.2"


#: (low, high) inclusive bounds for numeric keys, from the one input domain the widgets and the
#: model use too (so a value a link carries is one the model accepts).
BOUNDS: dict[str, tuple[float, float]] = {
    key: (domain.BOUNDS[key].low, domain.BOUNDS[key].high)
    for key in ("out_b", "in_b", "small_b", "inter", "peak", "slo", "amd", "cpu", "util", "rate")
}

DEFAULTS = ScenarioInputs()

#: The keys the dashboard's Scenarios page reads from its address. It prices the company's
#: workspace, so the market-demand keys (model, out_b, in_b, small_b) are not among them; the
#: FTL percentile (pct) is, as a what-if on every workload's SLO. A link back to that page carries
#: only these (and the page's own switches).
PAGE_KEYS = ("peak", "slo", "inter", "pct", "amd", "cpu", "util", "rate", "custom")


def parse_custom(text: str) -> tuple[tuple[str, float], ...]:
    """``cuda:0.5,rocm:0.5`` -> (("cuda", 0.5), ("rocm", 0.5)); shares must sum to 1 (±0.001)."""
    if not text.strip():
        return ()
    pairs = []
    for part in text.split(","):
        backend, sep, share = part.partition(":")
        backend = backend.strip().lower()
        if not sep or backend not in BACKENDS:
            raise ValueError(
                f"{part.strip()!r} is not backend:share with a backend among {', '.join(BACKENDS)}"
            )
        value = float(share)
        if not 0 < value <= 1:
            raise ValueError(f"share of {backend} must be in (0, 1], got {share}")
        pairs.append((backend, value))
    if len({b for b, _ in pairs}) != len(pairs):
        raise ValueError("each backend may appear once")
    total = sum(v for _, v in pairs)
    if abs(total - 1) > 1e-3:
        raise ValueError(f"shares sum to {total:g}, not 1")
    return tuple(pairs)


def from_params(params: Mapping[str, str | list[str]]) -> tuple[ScenarioInputs, list[str]]:
    """Validated inputs from URL query parameters (or CLI options), plus a notice per bad key."""
    values: dict[str, Any] = {}
    notices: list[str] = []
    known = {f.name: f for f in fields(ScenarioInputs)}
    for key, raw in params.items():
        if key not in known:
            continue  # other pages' keys share the URL
        text = raw[-1] if isinstance(raw, list) else str(raw)
        default = getattr(DEFAULTS, key)
        try:
            values[key] = _coerce(key, text, default)
        except ValueError as exc:
            notices.append(f"Ignored {key}={text!r}: {exc}. Using the default, {_show(default)}.")
    return ScenarioInputs(**values), notices


def _coerce(key: str, text: str, default: object) -> object:
    if isinstance(default, float):
        try:
            value = float(text)
        except ValueError:
            raise ValueError("not a number") from None
        low, high = BOUNDS[key]
        if not math.isfinite(value) or not low <= value <= high:
            raise ValueError(f"must be a number between {low:g} and {high:g}")
        return value
    if key == "model" and text not in MODEL_FAMILIES:
        raise ValueError(f"unknown model family; choose one of {', '.join(MODEL_FAMILIES)}")
    if key == "pct" and text not in PERCENTILES:
        raise ValueError(f"choose one of {', '.join(PERCENTILES)}")
    if key == "custom":
        parse_custom(text)
    return text


def _show(value: object) -> str:
    return repr(value) if isinstance(value, str) else f"{value}"


def to_params(inputs: ScenarioInputs) -> dict[str, str]:
    """Only the keys that differ from the defaults, so shared links stay short."""
    out = {}
    for key, value in asdict(inputs).items():
        if value != getattr(DEFAULTS, key):
            out[key] = f"{value:g}" if isinstance(value, float) else str(value)
    return out


def page_params(inputs: ScenarioInputs) -> dict[str, str]:
    """The Scenarios-page keys of ``inputs`` that differ from the defaults (see PAGE_KEYS)."""
    return {key: value for key, value in to_params(inputs).items() if key in PAGE_KEYS}


def models_in_family(family: str, models: list[str]) -> list[str]:
    """The model ids (as stored) that belong to a family, e.g. "70b" -> llama-2-70b-chat, …"""

    prefixes = [model_key(name) for name in MODEL_FAMILIES[family]]
    return [m for m in models if any(model_key(m).startswith(prefix) for prefix in prefixes)]
