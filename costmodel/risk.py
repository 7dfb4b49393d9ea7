"""Risk: concentration (HHI), supply, software maturity and benchmark staleness. Every figure
carries a sentence that explains it."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import lru_cache

#: US 2023 Merger Guidelines: above 1,800 is highly concentrated; 1,000-1,800 moderately
#: (modeling.md §5.1).
HHI_HIGH = 1800.0
HHI_MODERATE = 1000.0
#: The one basis every plan's concentration is weighed on: month 1's spend per line (the same for
#: Stay, every move and Optimal; traffic shares are shown beside it, never mixed in).
RISK_BASIS = "month-1 spend"
#: A benchmark older than one quarter is stale: engines move fast (modeling.md §5.3).
STALE_AFTER = timedelta(days=92)


@dataclass(frozen=True)
class RiskFigure:
    name: str
    value: float
    unit: str
    sentence: str


def hhi(weights: Mapping[str, float]) -> float:
    """Herfindahl-Hirschman index on 0-10,000 from non-negative weights (shares in percent)."""
    total = sum(w for w in weights.values() if w > 0)
    if total <= 0:
        return 0.0
    return sum((100.0 * w / total) ** 2 for w in weights.values() if w > 0)


def vendor_spend(lines: Iterable[tuple[str, float]]) -> dict[str, float]:
    """Month-1 $ by silicon vendor from (vendor, $/month) pairs: the weights of every plan's
    vendor HHI (``RISK_BASIS``), Optimal's and each diversification cap's included."""
    out: dict[str, float] = {}
    for vendor, usd in lines:
        out[vendor or "unknown"] = out.get(vendor or "unknown", 0.0) + usd
    return out


def hhi_figure(name: str, weights: Mapping[str, float], what: str) -> RiskFigure:
    value = hhi(weights)
    total = sum(w for w in weights.values() if w > 0) or 1.0
    shares = sorted(((k, w / total) for k, w in weights.items() if w > 0), key=lambda kv: -kv[1])
    parts = ", ".join(f"{k} {s:.0%}" for k, s in shares) or "no spend"
    level = "highly" if value > HHI_HIGH else "moderately" if value > HHI_MODERATE else "not"
    effective = 10000.0 / value if value else 0.0
    sentence = (
        f"{what} HHI {value:,.0f} ({parts}): {effective:.1f} effective suppliers; {level} concentrated"
        f" under the 2023 US Merger Guidelines (>1,800 high)."
    )
    return RiskFigure(name, value, "HHI (0-10,000)", sentence)


@dataclass(frozen=True)
class SpendLine:
    """The slice of a fleet the risk figures weigh (one fleet line)."""

    monthly_usd: float
    vendor: str
    provider: str
    region: str
    sku: str  # accelerator id
    backend: str
    family: str
    precision: str
    pricing: str  # pricing model actually used
    spot: bool
    no_on_demand: bool  # sold only as reservation / capacity block
    bench_measured_at: datetime | None


@dataclass(frozen=True)
class MaturityScore:
    score: float
    sentence: str
    source_url: str


@lru_cache(maxsize=1024)
def maturity_lookup(backend: str, family: str, precision: str, table: Sequence) -> MaturityScore:
    """An exact (backend, family, precision) row wins; otherwise the lower of the family row
    (backend, family, *) and the precision row (backend, *, precision), since both gaps apply;
    otherwise (backend, *, *)."""
    rows = {(r.family, r.precision): r for r in table if r.backend == backend}
    pick = rows.get((family, precision))
    if pick is None:
        both = [r for r in (rows.get((family, "*")), rows.get(("*", precision))) if r is not None]
        pick = min(both, key=lambda r: r.score) if both else rows.get(("*", "*"))
    if pick is None:
        return MaturityScore(
            0.0,
            f"{backend}/{precision}: no maturity evidence in "
            "data/software_maturity.csv; scored 0 until certified",
            "",
        )
    return MaturityScore(
        pick.score,
        f"{backend}/{family}/{precision}: {pick.score:.0f}/100 — "
        f"{pick.known_gaps} ({pick.source_title}, {pick.source_date})",
        pick.source_url,
    )


@dataclass(frozen=True)
class RiskReport:
    hhi_vendor: RiskFigure
    hhi_cloud: RiskFigure
    hhi_region: RiskFigure
    supply: tuple[RiskFigure, ...]
    maturity: RiskFigure
    maturity_details: tuple[str, ...]
    staleness: RiskFigure

    def figures(self) -> tuple[RiskFigure, ...]:
        return (
            self.hhi_vendor,
            self.hhi_cloud,
            self.hhi_region,
            *self.supply,
            self.maturity,
            self.staleness,
        )


def _weights(lines: Iterable[SpendLine], attr: str) -> dict[str, float]:
    out: dict[str, float] = {}
    for ln in lines:
        out[getattr(ln, attr)] = out.get(getattr(ln, attr), 0.0) + ln.monthly_usd
    return out


def assess_risk(
    lines: Sequence[SpendLine], maturity_table: Sequence, as_of: datetime | None
) -> RiskReport:
    lines = [ln for ln in lines if ln.monthly_usd > 0]
    total = sum(ln.monthly_usd for ln in lines) or 1.0
    supply: list[RiskFigure] = []
    blocked = sum(ln.monthly_usd for ln in lines if ln.no_on_demand) / total
    supply.append(
        RiskFigure(
            "reservation_only_share",
            blocked,
            "share of spend",
            f"{blocked:.0%} of spend is on SKUs sold only as reservations or capacity blocks"
            + (
                ": no on-demand fallback if the block is not renewed."
                if blocked
                else "; all have on-demand fallback."
            ),
        )
    )
    regions_by_sku: dict[str, set[str]] = {}
    for ln in lines:
        regions_by_sku.setdefault(ln.sku, set()).add(ln.region)
    single = sorted(s for s, r in regions_by_sku.items() if len(r) == 1)
    single_spend = sum(ln.monthly_usd for ln in lines if ln.sku in single) / total
    supply.append(
        RiskFigure(
            "single_region_share",
            single_spend,
            "share of spend",
            f"{single_spend:.0%} of spend is on accelerators bought in a single region"
            + (
                f" ({', '.join(single)}): a regional shortage or outage has no in-plan alternative."
                if single
                else "."
            ),
        )
    )
    spot = sum(ln.monthly_usd for ln in lines if ln.spot) / total
    supply.append(
        RiskFigure(
            "spot_share",
            spot,
            "share of spend",
            f"{spot:.0%} of spend is on spot capacity, which can be reclaimed at short notice"
            " (interruptions correlate within a zone)."
            if spot
            else "No spend on spot capacity.",
        )
    )
    details: list[str] = []
    weighted = 0.0
    seen: set[tuple[str, str, str]] = set()
    for ln in lines:
        m = maturity_lookup(ln.backend, ln.family, ln.precision, tuple(maturity_table))
        weighted += m.score * ln.monthly_usd / total
        key = (ln.backend, ln.family, ln.precision)
        if key not in seen:
            seen.add(key)
            details.append(m.sentence)
    maturity = RiskFigure(
        "software_maturity",
        weighted,
        "score (0-100, spend-weighted)",
        f"Spend-weighted software maturity {weighted:.0f}/100 across {len(seen)} backend × model × precision"
        " combinations (attention-kernel parity, FP8/INT4 support, known gaps; see details).",
    )
    stale_spend, undated = 0.0, 0.0
    if as_of is not None:
        for ln in lines:
            if ln.bench_measured_at is None:
                undated += ln.monthly_usd
            elif as_of - ln.bench_measured_at.replace(tzinfo=None) > STALE_AFTER:
                stale_spend += ln.monthly_usd
    stale = stale_spend / total
    staleness = RiskFigure(
        "stale_benchmark_share",
        stale,
        "share of spend",
        (
            f"{stale:.0%} of spend rests on benchmarks older than one quarter (before"
            f" {(as_of - STALE_AFTER):%Y-%m-%d}); re-run the harness before committing."
            if as_of is not None
            else "Benchmark age not assessed (no as-of date)."
        )
        + (f" {undated / total:.0%} of spend has undated benchmarks." if undated else ""),
    )
    return RiskReport(
        hhi_figure("hhi_vendor", _weights(lines, "vendor"), "Silicon vendor"),
        hhi_figure("hhi_cloud", _weights(lines, "provider"), "Cloud provider"),
        hhi_figure("hhi_region", _weights(lines, "region"), "Region"),
        tuple(supply),
        maturity,
        tuple(details),
        staleness,
    )
