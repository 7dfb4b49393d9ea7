"""Uncertainty: low/base/high bands on prices and throughput, and a tornado ranking of which
inputs move monthly cost most. The fleet plan (which SKUs) is held fixed; each line is re-sized
and re-priced under the changed input."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from costmodel.demand import HourlyProfile
from costmodel.fleet import GroupPrices, SizingInputs, rescale, size_line
from costmodel.scenarios import FleetLine, ScenarioResult


@dataclass(frozen=True)
class Band:
    low: float
    base: float = 1.0
    high: float = 1.0

    def __post_init__(self) -> None:
        if not 0 < self.low <= self.base <= self.high:
            raise ValueError(
                f"Band needs 0 < low <= base <= high, got {self.low}, {self.base}, {self.high}"
            )


@dataclass(frozen=True)
class UncertaintyInputs:
    #: Rental prices moved ~±40% within months in 2025-26 (modeling.md §4.5, §7.8).
    price: Band = Band(0.8, 1.0, 1.25)
    #: Engine versions move throughput by tens of percent (modeling.md §5.3).
    throughput: Band = Band(0.8, 1.0, 1.15)
    demand: Band = Band(0.8, 1.0, 1.25)
    utilisation_cap: tuple[float, float] = (0.7, 0.9)
    availability: tuple[float, float] = (0.9, 0.99)
    daily_swing: tuple[float, float] = (0.5, 1.5)
    commitment_price: Band = Band(0.9, 1.0, 1.1)


@dataclass(frozen=True)
class CostRange:
    scenario: str
    monthly_usd_low: float
    monthly_usd_base: float
    monthly_usd_high: float
    usd_per_1k_low: float | None
    usd_per_1k_base: float | None
    usd_per_1k_high: float | None
    sentence: str


@dataclass(frozen=True)
class TornadoBar:
    input: str
    monthly_usd_low_input: float
    monthly_usd_high_input: float
    swing_usd: float
    sentence: str


def recost(lines: tuple[FleetLine, ...], change: Callable[[FleetLine], SizingInputs]) -> float:
    return sum(size_line(change(ln)).monthly_usd for ln in lines)


def cost_range(
    result: ScenarioResult, inputs: UncertaintyInputs = UncertaintyInputs()
) -> CostRange:
    """Best case: low prices and high throughput; worst case: high prices and low throughput."""
    p, t = inputs.price, inputs.throughput
    low = recost(result.lines, lambda ln: rescale(ln.sizing, price=p.low, throughput=t.high))
    base = recost(result.lines, lambda ln: rescale(ln.sizing, price=p.base, throughput=t.base))
    high = recost(result.lines, lambda ln: rescale(ln.sizing, price=p.high, throughput=t.low))
    tokens_k = result.monthly_tokens / 1000 if result.monthly_tokens else None

    def per(v):
        return v / tokens_k if tokens_k else None

    sentence = (
        f"{result.name}: ${low:,.0f}–${high:,.0f}/month (base ${base:,.0f}) "
        f"with prices ×{p.low:g}–×{p.high:g}"
        f" and throughput ×{t.low:g}–×{t.high:g}"
        + (f"; ${per(low):.4f}–${per(high):.4f} per 1K tokens." if tokens_k else ".")
    )
    return CostRange(result.name, low, base, high, per(low), per(base), per(high), sentence)


def _swing_curve(inp: SizingInputs, amplitude: float) -> SizingInputs:
    if inp.mode != "interactive":
        return inp
    curve = HourlyProfile(peak_factor=None, curve=inp.curve).scaled(amplitude).normalised()
    return replace(inp, curve=tuple(float(v) for v in curve))


def _commit_price(inp: SizingInputs, factor: float) -> SizingInputs:
    pr = inp.prices
    if pr.committed is None:
        return inp
    return replace(
        inp, prices=GroupPrices(pr.on_demand, pr.committed * factor, pr.committed_model, pr.spot)
    )


def tornado(
    result: ScenarioResult, inputs: UncertaintyInputs = UncertaintyInputs()
) -> tuple[TornadoBar, ...]:
    """One input at a time from its low to its high value; bars sorted by the monthly-cost swing."""
    lines = result.lines
    changes: list[tuple[str, Callable, Callable]] = []
    for vendor in sorted({ln.vendor for ln in lines}):
        changes.append(
            (
                f"{vendor} prices ×{inputs.price.low:g}/×{inputs.price.high:g}",
                lambda ln, v=vendor: (
                    rescale(ln.sizing, price=inputs.price.low) if ln.vendor == v else ln.sizing
                ),
                lambda ln, v=vendor: (
                    rescale(ln.sizing, price=inputs.price.high) if ln.vendor == v else ln.sizing
                ),
            )
        )
        changes.append(
            (
                f"{vendor} throughput ×{inputs.throughput.low:g}/×{inputs.throughput.high:g}",
                lambda ln, v=vendor: (
                    rescale(ln.sizing, throughput=inputs.throughput.low)
                    if ln.vendor == v
                    else ln.sizing
                ),
                lambda ln, v=vendor: (
                    rescale(ln.sizing, throughput=inputs.throughput.high)
                    if ln.vendor == v
                    else ln.sizing
                ),
            )
        )
    d = inputs.demand
    changes.append(
        (
            f"demand volume ×{d.low:g}/×{d.high:g}",
            lambda ln: rescale(ln.sizing, demand=d.low),
            lambda ln: rescale(ln.sizing, demand=d.high),
        )
    )
    u = inputs.utilisation_cap
    changes.append(
        (
            f"utilisation cap {u[0]:g}/{u[1]:g}",
            lambda ln: rescale(ln.sizing, utilisation_cap=u[0]),
            lambda ln: rescale(ln.sizing, utilisation_cap=u[1]),
        )
    )
    a = inputs.availability
    changes.append(
        (
            f"availability {a[0]:g}/{a[1]:g}",
            lambda ln: rescale(ln.sizing, availability=a[0]),
            lambda ln: rescale(ln.sizing, availability=a[1]),
        )
    )
    s = inputs.daily_swing
    changes.append(
        (
            f"daily peak swing ×{s[0]:g}/×{s[1]:g}",
            lambda ln: _swing_curve(ln.sizing, s[0]),
            lambda ln: _swing_curve(ln.sizing, s[1]),
        )
    )
    c = inputs.commitment_price
    changes.append(
        (
            f"committed price ×{c.low:g}/×{c.high:g}",
            lambda ln: _commit_price(ln.sizing, c.low),
            lambda ln: _commit_price(ln.sizing, c.high),
        )
    )
    bars = []
    for name, lo_fn, hi_fn in changes:
        lo, hi = recost(lines, lo_fn), recost(lines, hi_fn)
        swing = abs(hi - lo)
        bars.append(
            TornadoBar(
                name,
                lo,
                hi,
                swing,
                f"{name}: monthly cost ${lo:,.0f} → ${hi:,.0f} (swing ${swing:,.0f}, "
                f"{swing / result.monthly_usd:.0%} of base)"
                if result.monthly_usd
                else f"{name}: no cost",
            )
        )
    return tuple(sorted(bars, key=lambda b: -b.swing_usd))
