"""What a workspace plan reads as: its fleet lines at month-1 steady state (``PlanLine``) and the
whole result of one scenario (``PlanResult``: cost by month, allocation, feasibility, payback,
risk, timeline), with the helpers that pick Stay and the cheapest feasible plan."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date

from costmodel.plan_inputs import MONTHS, by_vendor
from costmodel.risk import RiskReport
from costmodel.sizing import DEFAULT_ON_DEMAND_BASIS, OnDemandBasis
from costmodel.timeline import Timeline


@dataclass(frozen=True)
class PlanLine:
    """One line of a scenario's fleet at month-1 steady state."""

    workload: str
    role: str  # fleet | top-up | new
    allocation: str
    provider: str
    region: str
    instance_type: str
    pricing_model: str
    count: int
    usd_per_hour: float
    commitment_end: date | None
    monthly_usd: float
    accelerator_id: str = ""
    vendor: str = ""
    backend: str = ""
    unit_output_tok_s: float | None = None
    note: str = ""
    model: str = ""
    precision: str = ""
    bench_measured_at: object = None
    #: The option (quote x configuration) the line was priced or sized from; "" when none was.
    option_id: str = ""
    #: How the unit's capacity was read at the workload's input:output mix.
    capacity_basis: str = ""
    #: The same as data: ``costmodel.shape.CapacityBasis.as_dict`` (None where no result).
    capacity_basis_detail: dict | None = None
    #: "measured" (read from results) or "estimated ±x%" (the calibrated performance model's
    #: capacity and the wider side of its 80% interval).
    basis: str = "measured"
    #: Monthly cost at the capacity interval's ends (None: the same as ``monthly_usd``).
    monthly_usd_low: float | None = None
    monthly_usd_high: float | None = None

    @property
    def estimated(self) -> bool:
        return self.basis.startswith("estimated")

    @property
    def band(self) -> tuple[float, float, float]:
        """(low, base, high) monthly cost; low ≤ base ≤ high."""
        low = self.monthly_usd if self.monthly_usd_low is None else self.monthly_usd_low
        high = self.monthly_usd if self.monthly_usd_high is None else self.monthly_usd_high
        return min(low, self.monthly_usd), self.monthly_usd, max(high, self.monthly_usd)

    def as_dict(self) -> dict:
        return {
            "workload": self.workload,
            "role": self.role,
            "allocation": self.allocation,
            "provider": self.provider,
            "region": self.region,
            "instance_type": self.instance_type,
            "pricing_model": self.pricing_model,
            "count": self.count,
            "usd_per_hour": round(self.usd_per_hour, 6),
            "commitment_end": self.commitment_end.isoformat() if self.commitment_end else None,
            "monthly_usd": round(self.monthly_usd, 2),
            "accelerator_id": self.accelerator_id,
            "vendor": self.vendor,
            "backend": self.backend,
            "capacity_basis": self.capacity_basis,
            "basis": self.basis,
            "monthly_usd_band": band_dict(self.band),
            "note": self.note,
        }


@dataclass(frozen=True)
class PlanResult:
    name: str
    description: str
    requested_allocation: dict[str, float]
    achieved_allocation: dict[str, float]
    allocation_notes: tuple[str, ...]
    unserved_tokens_per_month: float
    unserved_reasons: tuple[str, ...]
    monthly_usd: float
    monthly_usd_by_month: tuple[float, ...]
    one_time_usd: float
    one_time_notes: tuple[str, ...]
    payback_month: int | None
    payback_sentence: str
    fleet: tuple[PlanLine, ...]
    risk: RiskReport
    timeline: Timeline
    cutover_month: int
    constraint_violations: tuple[str, ...]
    notes: tuple[str, ...] = ()
    #: Stay only: tokens per month the fleet as it is cannot serve at month 1 (before top-ups).
    fleet_shortfall_tokens_per_month: float = 0.0
    savings_vs_stay_usd: float = 0.0
    is_baseline: bool = False
    #: The share of traffic the plan asked to move off the fleet onto new capacity, and moved.
    requested_share: float = 0.0
    achieved_share: float = 0.0
    #: Month-1 saving against Stay in named parts that add up to ``savings_vs_stay_usd``.
    savings_parts: tuple[tuple[str, float], ...] = ()
    #: The 36-month saving (one-time costs included) in named parts that add up to it.
    horizon_savings_parts: tuple[tuple[str, float], ...] = ()
    #: Per workload: the traffic shape the capacity was read at, and how.
    workload_shapes: tuple[dict, ...] = ()
    on_demand_basis: OnDemandBasis = DEFAULT_ON_DEMAND_BASIS
    #: Month-1 cost by kind: the fleet's own lines, top-ups, new capacity (standby included).
    month1_parts: tuple[tuple[str, float], ...] = ()
    #: Committed fleet units the plan gives back that are still paid in month 1 (not ended early).
    stranded_usd_per_month: float = 0.0
    #: One-time costs in the month they fall (porting in month 1, early terminations at
    #: cut-over); empty = all of ``one_time_usd`` in month 1.
    one_time_usd_by_month: tuple[float, ...] = ()
    #: Yearly rate the horizon total is discounted at (the workspace's; 0 = a plain sum).
    discount_rate_per_year: float = 0.0

    @property
    def run_rate_usd_per_month(self) -> float:
        """Month 1's run rate plus the committed units it gives back that are still paid."""
        return self.monthly_usd + self.stranded_usd_per_month

    @property
    def compared_usd_per_month(self) -> float:
        """The basis every plan is compared on (``planning.verdicts``): the horizon total ÷ the
        months of the horizon (a month's average over the whole decision)."""
        return self.horizon_usd / (len(self.monthly_usd_by_month) or MONTHS)

    @property
    def feasible(self) -> bool:
        return self.unserved_tokens_per_month <= 0.5

    @property
    def monthly_usd_band(self) -> tuple[float, float, float]:
        """(low, base, high) month-1 cost: each estimated line at its capacity interval's ends
        (more capacity per unit, fewer units: the low cost), measured lines as they are."""
        return lines_band(self.monthly_usd, self.fleet)

    @property
    def requested_by_vendor(self) -> dict[str, float]:
        return by_vendor(self.requested_allocation)

    @property
    def achieved_by_vendor(self) -> dict[str, float]:
        return by_vendor(self.achieved_allocation)

    @property
    def one_time_by_month(self) -> tuple[float, ...]:
        months = len(self.monthly_usd_by_month)
        if self.one_time_usd_by_month:
            return self.one_time_usd_by_month
        return (self.one_time_usd,) + (0.0,) * (months - 1) if months else ()

    @property
    def horizon_usd(self) -> float:
        """What the plan costs over the horizon, one-time costs in the month they fall, each
        month discounted at the workspace's rate (the figure every verdict ranks on)."""
        return horizon_total(
            self.monthly_usd_by_month, self.one_time_by_month, self.discount_rate_per_year
        )

    @property
    def horizon_usd_band(self) -> tuple[float, float, float]:
        """(low, base, high) horizon total from the estimated lines' intervals."""
        return horizon_band(
            self.fleet,
            self.monthly_usd_by_month,
            self.one_time_by_month,
            self.discount_rate_per_year,
        )

    @property
    def headline(self) -> str:
        """ "Shift 25% to AMD — 18.75% achieved: no AMD result for …" when they differ."""
        text = self.name
        if not self.is_baseline and abs(self.requested_share - self.achieved_share) > 1e-9:
            text += f" — {self.achieved_share:.2%} achieved".replace(".00%", "%")
            if self.allocation_notes:
                text += f": {self.allocation_notes[0].split(' — ')[0]}"
        if not self.feasible:
            text += " — INFEASIBLE: demand unserved"
        return text

    def as_dict(self) -> dict:
        return {
            "name": self.name,
            "requested_allocation": _rounded(self.requested_allocation),
            "achieved_allocation": _rounded(self.achieved_allocation),
            "allocation_notes": list(self.allocation_notes),
            "feasible": self.feasible,
            "unserved_tokens_per_month": round(self.unserved_tokens_per_month),
            "unserved_reasons": list(self.unserved_reasons),
            "monthly_usd": round(self.monthly_usd, 2),
            "monthly_usd_band": band_dict(self.monthly_usd_band),
            "monthly_usd_by_month": [round(v, 2) for v in self.monthly_usd_by_month],
            "one_time_usd": round(self.one_time_usd, 2),
            "one_time_notes": list(self.one_time_notes),
            "payback_month": self.payback_month,
            "payback": self.payback_sentence,
            "fleet": [ln.as_dict() for ln in self.fleet],
            "risk": {f.name: round(float(f.value), 4) for f in self.risk.figures()}
            | {"sentences": [f.sentence for f in self.risk.figures()]},
            "timeline": {
                "weeks_to_cutover": self.timeline.weeks_to_cutover,
                "cutover_month": self.cutover_month,
                "sentence": self.timeline.sentence,
            },
            "constraint_violations": list(self.constraint_violations),
            "notes": list(self.notes),
            "allocation_by_vendor": {
                "requested": _rounded(self.requested_by_vendor),
                "achieved": _rounded(self.achieved_by_vendor),
            },
            "allocation_by_backend": {
                "requested": _rounded(self.requested_allocation),
                "achieved": _rounded(self.achieved_allocation),
            },
            "one_time_usd_by_month": [round(v, 2) for v in self.one_time_by_month],
            "horizon_usd": round(self.horizon_usd, 2),
            "horizon_usd_band": band_dict(self.horizon_usd_band),
            "discount_rate_per_year": self.discount_rate_per_year,
            "run_rate_usd_per_month": round(self.run_rate_usd_per_month, 2),
            "on_demand_basis": OnDemandBasis(self.on_demand_basis).value,
            "savings_vs_stay_usd": round(self.savings_vs_stay_usd, 2),
            # (``or 0.0``: a part of nothing is written as 0.0, never -0.0)
            "savings_parts": [
                {"part": name, "usd": round(usd, 2) or 0.0} for name, usd in self.savings_parts
            ],
            "horizon_savings_parts": [
                {"part": name, "usd": round(usd, 2) or 0.0}
                for name, usd in self.horizon_savings_parts
            ],
            "workloads": list(self.workload_shapes),
        }


def lines_band(base: float, lines: Sequence[PlanLine]) -> tuple[float, float, float]:
    """(low, base, high) of a plan costing ``base`` whose lines carry their own bands."""
    low = sum(ln.band[0] - ln.monthly_usd for ln in lines)
    high = sum(ln.band[2] - ln.monthly_usd for ln in lines)
    return base + low, base, base + high


def horizon_band(
    lines: Sequence[PlanLine],
    monthly: Sequence[float],
    one_time: Sequence[float],
    rate_per_year: float = 0.0,
) -> tuple[float, float, float]:
    """(low, base, high) horizon total: every month's cost moves by the share month 1's cost
    moves with its estimated lines at their intervals' ends (that share held over the
    horizon); one-time costs are quotes, not estimates, and do not move."""
    total = horizon_total(monthly, one_time, rate_per_year)
    month1 = monthly[0] if monthly else 0.0
    if month1 <= 0:
        return total, total, total
    low, _, high = lines_band(month1, lines)
    return (
        horizon_total([m * low / month1 for m in monthly], one_time, rate_per_year),
        total,
        horizon_total([m * high / month1 for m in monthly], one_time, rate_per_year),
    )


def band_dict(band: tuple[float, float, float]) -> dict[str, float]:
    low, base, high = band
    return {"low": round(low, 2), "base": round(base, 2), "high": round(high, 2)}


def _rounded(shares: Mapping[str, float]) -> dict[str, float]:
    return {k: round(v, 6) for k, v in shares.items()}


def stay_month1_parts(stay: PlanResult) -> dict[str, float]:
    return dict(stay.month1_parts) | {"new": dict(stay.month1_parts).get("new", 0.0)}


#: What each on-demand basis means, said once on every plan.
ON_DEMAND_BASIS_NOTES = {
    OnDemandBasis.HELD: "On-demand capacity is paid for every unit held, all month (730 h), in every plan"
    " alike; set on_demand_basis: autoscaled in the workspace where it follows the load.",
    OnDemandBasis.AUTOSCALED: "On-demand capacity follows the hourly load (units held only in the hours"
    " needed), in every plan alike, the fleet's own on-demand lines included; committed"
    " capacity is paid every hour.",
}


def stay_result(results: Sequence[PlanResult]) -> PlanResult:
    return next(r for r in results if r.is_baseline)


def cheapest(results: Sequence[PlanResult]) -> PlanResult | None:
    """The feasible scenario with the lowest horizon total (an infeasible plan is never the
    cheapest)."""
    feasible = [r for r in results if r.feasible]
    return min(feasible, key=lambda r: r.horizon_usd) if feasible else None


def discount_factor(month: int, rate_per_year: float) -> float:
    """What a dollar paid in ``month`` (1-based) is worth in month 1 at ``rate_per_year``."""
    return (1.0 + rate_per_year) ** (-(month - 1) / 12.0) if rate_per_year else 1.0


def horizon_total(
    monthly: Sequence[float], one_time: Sequence[float], rate_per_year: float = 0.0
) -> float:
    """Σ over the months of (cost + one-time cost falling that month) × the month's discount."""
    spent = list(one_time) + [0.0] * (len(monthly) - len(one_time))
    return sum(
        (m + o) * discount_factor(i, rate_per_year)
        for i, (m, o) in enumerate(zip(monthly, spent, strict=True), start=1)
    )
