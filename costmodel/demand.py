"""Demand inputs: what the workload asks of the fleet, and the latency it must be served at."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, replace
from functools import cached_property, lru_cache

import numpy as np

from costmodel.domain import PEAK_TO_MEAN
from tokendesk.metrics import PERCENTILES

#: Cloud billing convention: 730 hours per month (8,760 h / 12).
HOURS_PER_MONTH = 730.0
SECONDS_PER_MONTH = HOURS_PER_MONTH * 3600.0


def model_key(name: str) -> str:
    """Normalise a model name for matching ("Llama-3.1-70B-Instruct" -> "llama3170binstruct")."""
    return re.sub(r"[^a-z0-9]", "", name.lower())


@dataclass(frozen=True)
class Slo:
    """First-token latency target at a chosen percentile, plus an optional TPOT target."""

    ftl_ms: float = 800.0
    percentile: str = "p95"
    tpot_ms: float | None = None

    def __post_init__(self) -> None:
        if self.percentile not in PERCENTILES:
            raise ValueError(f"Slo.percentile {self.percentile!r}: use one of {PERCENTILES}")
        if not self.ftl_ms > 0:
            raise ValueError(f"Slo.ftl_ms must be positive, got {self.ftl_ms}")
        if self.tpot_ms is not None and not self.tpot_ms > 0:
            raise ValueError(f"Slo.tpot_ms must be positive or None, got {self.tpot_ms}")

    @property
    def key(self) -> tuple:
        return (
            float(self.ftl_ms),
            self.percentile,
            None if self.tpot_ms is None else float(self.tpot_ms),
        )

    def describe(self) -> str:
        text = f"FTL {self.percentile} ≤ {self.ftl_ms:,.0f} ms"
        if self.tpot_ms is not None:
            text += f" and TPOT {self.percentile} ≤ {self.tpot_ms:,.0f} ms"
        return text


#: Up to this peak ÷ mean the day is a sinusoid; above it (a sinusoid would need negative hours)
#: a single narrower peak.
SINUSOID_PEAK_LIMIT = 2.0


def _peaked(peak_factor: float, angle: np.ndarray) -> np.ndarray:
    """A day with one peak whose busiest hour is ``peak_factor`` times its mean and no hour below
    zero: exp(k·cos(angle)), k found by bisection (peak ÷ mean rises with k from 1 towards 24)."""

    def ratio(k: float) -> float:
        values = np.exp(k * (np.cos(angle) - 1.0))
        return float(values.max() / values.mean())

    low, high = 0.0, 1.0
    while ratio(high) < peak_factor:
        high *= 2.0
    for _ in range(80):
        middle = (low + high) / 2.0
        low, high = (middle, high) if ratio(middle) < peak_factor else (low, middle)
    return np.exp(high * (np.cos(angle) - 1.0))


@lru_cache(maxsize=256)
def _normalised(peak_factor, curve, peak_hour) -> np.ndarray:
    if curve is not None:
        values = np.asarray(curve, dtype=float)
    else:
        angle = 2 * np.pi * (np.arange(24) - peak_hour) / 24
        if peak_factor <= SINUSOID_PEAK_LIMIT:
            values = 1.0 + (peak_factor - 1.0) * np.cos(angle)
        else:
            values = _peaked(peak_factor, angle)
    return values / values.mean()


@dataclass(frozen=True)
class HourlyProfile:
    """Shape of demand over a day: a peak factor (peak / mean) or 24 hourly values (any scale).

    With only a peak factor the day peaks at ``peak_hour`` at ``peak_factor`` times the mean: a
    sinusoid up to 2 (above that a sinusoid would need negative hours), a single narrower peak
    above 2 (up to ``PEAK_TO_MEAN.high``); any other day is given as a 24-value curve.
    """

    peak_factor: float | None = 1.5
    curve: tuple[float, ...] | None = None
    peak_hour: int = 14

    def __post_init__(self) -> None:
        if self.curve is not None:
            if len(self.curve) != 24:
                raise ValueError(f"HourlyProfile.curve needs 24 values, got {len(self.curve)}")
            if any((not math.isfinite(v)) or v < 0 for v in self.curve) or sum(self.curve) <= 0:
                raise ValueError("HourlyProfile.curve values must be finite, >= 0 and not all zero")
        elif self.peak_factor is None or not PEAK_TO_MEAN.contains(self.peak_factor):
            raise ValueError(
                f"HourlyProfile.peak_factor {self.peak_factor!r} must be within"
                f" [{PEAK_TO_MEAN.low:g}, {PEAK_TO_MEAN.high:g}]; give a 24-value curve for a"
                " spikier day"
            )

    def normalised(self) -> np.ndarray:
        """24 hourly multipliers with mean exactly 1."""
        return _normalised(self.peak_factor, self.curve, self.peak_hour).copy()

    @property
    def peak(self) -> float:
        return float(_normalised(self.peak_factor, self.curve, self.peak_hour).max())

    @property
    def key(self) -> tuple:
        return (self.peak_factor, self.curve, self.peak_hour)

    def scaled(self, amplitude: float) -> HourlyProfile:
        """The same day with its swing around the mean multiplied by ``amplitude``."""
        values = 1.0 + (self.normalised() - 1.0) * amplitude
        return HourlyProfile(peak_factor=None, curve=tuple(float(max(v, 0.0)) for v in values))


@dataclass(frozen=True)
class Segment:
    """One workload in the mix: which models may serve it, its volume, shape and SLO."""

    name: str
    models: tuple[str, ...]
    monthly_input_tokens: float
    monthly_output_tokens: float
    interactive_share: float = 1.0
    slo: Slo = field(default_factory=Slo)
    profile: HourlyProfile = field(default_factory=HourlyProfile)
    #: Precisions allowed for this segment (None = any); e.g. ("bf16", "fp8") keeps INT4 out.
    precisions: tuple[str, ...] | None = None
    #: Regions interactive traffic must stay in (None = any); batch goes to the cheapest region.
    home_regions: tuple[str, ...] | None = None
    #: A small model (3B-13B) that a CPU fallback may serve.
    small_model: bool = False
    #: Share of the input tokens a prefix cache serves (None = not known).
    prefix_cache_share: float | None = None

    def __post_init__(self) -> None:
        if not self.models:
            raise ValueError(f"segment {self.name!r}: models must name at least one model")
        if self.monthly_input_tokens < 0 or self.monthly_output_tokens < 0:
            raise ValueError(f"segment {self.name!r}: monthly token volumes must be >= 0")
        if not 0.0 <= self.interactive_share <= 1.0:
            raise ValueError(f"segment {self.name!r}: interactive_share must be within [0, 1]")

    @cached_property
    def model_keys(self) -> tuple[str, ...]:
        return tuple(model_key(m) for m in self.models)

    @property
    def monthly_tokens(self) -> float:
        return self.monthly_input_tokens + self.monthly_output_tokens

    @property
    def mean_output_tok_s(self) -> float:
        return self.monthly_output_tokens / SECONDS_PER_MONTH

    def scaled(self, factor: float) -> Segment:
        return replace(
            self,
            monthly_input_tokens=self.monthly_input_tokens * factor,
            monthly_output_tokens=self.monthly_output_tokens * factor,
        )


@dataclass(frozen=True)
class Demand:
    segments: tuple[Segment, ...]

    def __post_init__(self) -> None:
        names = [s.name for s in self.segments]
        if len(set(names)) != len(names):
            raise ValueError(f"segment names must be unique, got {names}")

    @property
    def monthly_tokens(self) -> float:
        return sum(s.monthly_tokens for s in self.segments)

    @property
    def monthly_output_tokens(self) -> float:
        return sum(s.monthly_output_tokens for s in self.segments)

    def scaled(self, factor: float) -> Demand:
        return Demand(tuple(s.scaled(factor) for s in self.segments))
