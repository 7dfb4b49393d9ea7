"""The what-ifs of a scenario comparison: one table of keys, types, bounds, defaults and words.

The dashboard keeps them in the URL (so a shared link reproduces the view), the brief command
takes the same names and ``tokendesk scenarios`` the same defaults, so this table is their one
home. A bad value never raises: it falls back to its default and is returned as a
:class:`Rejected` key that says which key, what was wrong and what was used instead.
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
class WhatIf:
    """One what-if key: its type, its bounds (numbers only), its default and what it means."""

    key: str
    kind: type
    default: float | str
    words: str
    bound: domain.Bound | None = None

    @property
    def bounds(self) -> tuple[float, float] | None:
        return None if self.bound is None else (self.bound.low, self.bound.high)


def _n(bound: domain.Bound, default: float, words: str) -> WhatIf:
    return WhatIf(bound.key, float, default, words, bound)


#: The one table of what-if defaults (field name = URL key). Bounds come from the one input
#: domain the widgets and the model use too, so a value a link carries is one the model accepts.
TABLE: dict[str, WhatIf] = {
    w.key: w
    for w in (
        WhatIf("model", str, "70b", "the main (chat) segment's model family"),
        _n(domain.OUTPUT_BILLIONS, 30.0, "main segment: billions of output tokens per month"),
        _n(domain.INPUT_BILLIONS, 60.0, "main segment: billions of input tokens per month"),
        _n(
            domain.SMALL_BILLIONS,
            10.0,
            "small-model segment (routing, classification): billions of output tokens per month",
        ),
        _n(domain.INTERACTIVE_SHARE, 0.9, "interactive share of traffic (the rest is batch)"),
        _n(domain.PEAK_TO_MEAN, 1.8, "peak hour ÷ mean hour"),
        _n(domain.SLO_MS, 2000.0, "FTL SLO, ms"),
        WhatIf("pct", str, "p95", "FTL percentile the SLO is set on"),
        _n(domain.AMD_SHARE, 0.25, "'Shift N% to AMD': N"),
        _n(domain.CPU_SHARE, 0.10, "'Add CPU fallback': share of small-model traffic on CPUs"),
        _n(domain.UTILISATION_CAP, 0.8, "utilisation cap of at-SLO capacity"),
        _n(domain.ENGINEER_WEEK_USD, 5000.0, "loaded cost of one engineer-week, USD"),
        WhatIf("custom", str, "", 'custom scenario: "cuda:0.5,rocm:0.3,hpu:0.2"'),
    )
}


def _num(key: str) -> float:
    return float(TABLE[key].default)


def _text(key: str) -> str:
    return str(TABLE[key].default)


@dataclass(frozen=True)
class ScenarioInputs:
    """Demand, SLO, fleet policy and scenario knobs; field name = URL key, defaults from TABLE."""

    model: str = _text("model")
    out_b: float = _num("out_b")
    in_b: float = _num("in_b")
    small_b: float = _num("small_b")
    inter: float = _num("inter")
    peak: float = _num("peak")
    slo: float = _num("slo")
    pct: str = _text("pct")
    amd: float = _num("amd")
    cpu: float = _num("cpu")
    util: float = _num("util")
    rate: float = _num("rate")
    custom: str = _text("custom")


DEFAULTS = ScenarioInputs()

#: (low, high) inclusive bounds of the numeric keys.
BOUNDS: dict[str, tuple[float, float]] = {
    key: w.bounds for key, w in TABLE.items() if w.bounds is not None
}

#: The keys the dashboard's Scenarios page reads from its address. It prices the company's
#: workspace, so the market-demand keys (model, out_b, in_b, small_b) are not among them; the
#: FTL percentile (pct) is, as a what-if on every workload's SLO. A link back to that page carries
#: only these (and the page's own switches).
PAGE_KEYS = ("peak", "slo", "inter", "pct", "amd", "cpu", "util", "rate", "custom")
#: The Scenarios page's switch that solves for the optimal fleet (``optimal=true``): a brief
#: always holds the optimal fleet, so its link back turns it on.
OPTIMAL_KEY = "optimal"


@dataclass(frozen=True)
class Rejected:
    """A what-if the parser set aside: the key, the value given, why, and the default used."""

    key: str
    value: str
    why: str
    default: float | str

    @property
    def notice(self) -> str:
        return f"Ignored {self.key}={self.value!r}: {self.why}. Using the default, {_show(self.default)}."


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


def from_params(
    params: Mapping[str, str | list[str]],
) -> tuple[ScenarioInputs, tuple[Rejected, ...]]:
    """Validated inputs from URL query parameters (or CLI options), and the keys set aside."""
    values: dict[str, Any] = {}
    rejected: list[Rejected] = []
    known = {f.name for f in fields(ScenarioInputs)}
    for key, raw in params.items():
        if key not in known:
            continue  # other pages' keys share the URL
        text = raw[-1] if isinstance(raw, list) else str(raw)
        try:
            values[key] = _coerce(key, text)
        except ValueError as exc:
            rejected.append(Rejected(key, text, str(exc), getattr(DEFAULTS, key)))
    return ScenarioInputs(**values), tuple(rejected)


def _coerce(key: str, text: str) -> object:
    bounds = TABLE[key].bounds
    if bounds is not None:
        try:
            value = float(text)
        except ValueError:
            raise ValueError("not a number") from None
        low, high = bounds
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
