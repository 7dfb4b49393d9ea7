"""Fleet sizing: units to carry demand at SLO under a utilisation cap and an availability factor,
priced on an allocation basis (every paid hour counts, idle or not; 730 h/month), with a
reserved / on-demand / spot mix from the reserve-up-to-a-demand-percentile rule:
a committed unit at discount d pays off while P(hourly demand > R) > 1 - d, so R* = F_D^-1(d)
(modeling.md §4.5)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum

import numpy as np

from costmodel.demand import HOURS_PER_MONTH

HOURS_PER_DAY = 24
#: Guard against 2.0000000001 units becoming 3 through float noise.
_CEIL_EPS = 1e-9


class OnDemandBasis(StrEnum):
    """How on-demand capacity is paid: every unit held all month, or only the hours the load
    needs it (``Workspace.on_demand_basis``, ``FleetPolicy.on_demand_basis``)."""

    HELD = "held"
    AUTOSCALED = "autoscaled"


#: The one default, for a workspace and a fleet policy alike.
DEFAULT_ON_DEMAND_BASIS = OnDemandBasis.HELD


@dataclass(frozen=True)
class FleetPolicy:
    """How a fleet is bought and loaded."""

    #: Plan to load at most this fraction of the at-SLO capacity (headroom for bursts).
    utilisation_cap: float = 0.8
    #: Fraction of units healthy at any time; units = ceil(raw / availability) (modeling.md §4.3).
    availability: float = 0.95
    #: Committed pricing models the reserved base may use.
    commitments: tuple[str, ...] = ("reserved_1y", "savings_plan_1y", "committed_use_1y")
    #: Capacity blocks / negotiated contracts may serve as committed capacity.
    allow_block_or_contract: bool = True
    #: Autoscaled: on-demand burst follows the hourly curve (paid per hour held); held: held at
    #: peak all month.
    on_demand_basis: OnDemandBasis = DEFAULT_ON_DEMAND_BASIS
    #: Batch traffic may run on spot capacity.
    batch_spot: bool = True
    #: Extra spot units held against interruptions (fraction of the spot fleet).
    spot_overprovision: float = 0.15
    #: Regions batch traffic may be routed to (None = any); interactive stays in each home region.
    batch_regions: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        if not 0 < self.utilisation_cap <= 1:
            raise ValueError(
                f"FleetPolicy.utilisation_cap must be in (0, 1], got {self.utilisation_cap}"
            )
        if not 0 < self.availability <= 1:
            raise ValueError(f"FleetPolicy.availability must be in (0, 1], got {self.availability}")
        if self.spot_overprovision < 0:
            raise ValueError("FleetPolicy.spot_overprovision must be >= 0")

    @property
    def autoscaled(self) -> bool:
        return self.on_demand_basis == OnDemandBasis.AUTOSCALED

    @property
    def price_key(self) -> tuple:
        return (self.commitments, self.allow_block_or_contract)

    @property
    def key(self) -> tuple:
        return (
            self.utilisation_cap,
            self.availability,
            self.commitments,
            self.allow_block_or_contract,
            self.on_demand_basis,
            self.batch_spot,
            self.spot_overprovision,
            self.batch_regions,
        )


@dataclass(frozen=True)
class GroupPrices:
    """Per-unit hourly prices available for one SKU x region x configuration."""

    on_demand: float | None = None
    committed: float | None = None
    committed_model: str | None = None
    spot: float | None = None

    @property
    def discount(self) -> float:
        if self.on_demand is None or self.committed is None:
            return 0.0
        return 1.0 - self.committed / self.on_demand


@dataclass(frozen=True)
class SizingInputs:
    """Everything needed to size and price one fleet line (kept so a line can be re-costed)."""

    mode: str  # "interactive" | "batch" | "standby"
    mean_tok_s: float  # mean output tok/s this line carries (standby: the peak it must cover)
    curve: tuple[float, ...]  # 24 hourly multipliers with mean 1
    unit_tok_s: float  # output tok/s one unit delivers at SLO (batch: at max throughput)
    prices: GroupPrices
    policy: FleetPolicy


@dataclass(frozen=True)
class Sizing:
    units_peak: int
    units_reserved: int
    on_demand_unit_hours: float
    units_spot: int
    monthly_usd: float
    pricing: str


def units_needed(
    tok_s: float, unit_tok_s: float, utilisation_cap: float, availability: float
) -> int:
    """ceil(tok/s ÷ (unit tok/s × utilisation cap) ÷ availability)."""
    if tok_s <= 0:
        return 0
    raw = tok_s / (unit_tok_s * utilisation_cap) / availability
    return int(math.ceil(raw - _CEIL_EPS))


def reserve_level(hourly_units, discount: float) -> int:
    """R* = F^-1(d): the smallest level whose share of hours at or below it reaches d."""
    if discount <= 0:
        return 0
    ordered = sorted(hourly_units)
    k = max(int(math.ceil(discount * len(ordered) - _CEIL_EPS)) - 1, 0)
    return int(ordered[min(k, len(ordered) - 1)])


def size_line(inp: SizingInputs) -> Sizing:
    """Units and monthly cost for one line; allocation basis (paid idle hours count)."""
    pol, pr = inp.policy, inp.prices
    hours = HOURS_PER_MONTH
    if inp.mode == "batch":
        # Deferrable work runs flat at the mean rate; pick the cheapest way to buy it.
        units = units_needed(inp.mean_tok_s, inp.unit_tok_s, pol.utilisation_cap, pol.availability)
        choices: list[tuple[float, str, int, int, float]] = []
        if pr.on_demand is not None:
            choices.append((units * pr.on_demand * hours, "on_demand", 0, 0, units * hours))
        if pr.committed is not None:
            choices.append(
                (units * pr.committed * hours, pr.committed_model or "committed", units, 0, 0.0)
            )
        if pol.batch_spot and pr.spot is not None:
            spot_units = int(math.ceil(units * (1 + pol.spot_overprovision) - _CEIL_EPS))
            choices.append(
                (
                    spot_units * pr.spot * hours,
                    f"spot (+{pol.spot_overprovision:.0%} for interruptions)",
                    0,
                    spot_units,
                    0.0,
                )
            )
        cost, label, reserved, spot_units, od_hours = min(choices, key=lambda c: c[0])
        return Sizing(
            units + (spot_units - units if spot_units else 0),
            reserved,
            od_hours,
            spot_units,
            cost,
            label,
        )

    scale = inp.mean_tok_s / (inp.unit_tok_s * pol.utilisation_cap * pol.availability)
    ceil = math.ceil
    hourly = (
        [ceil(scale * c - _CEIL_EPS) if c > 0 else 0 for c in inp.curve]
        if scale > 0
        else [0] * len(inp.curve)
    )
    if inp.mode == "standby":
        # Emergency capacity: held all month, carrying no base traffic.
        units = units_needed(inp.mean_tok_s, inp.unit_tok_s, pol.utilisation_cap, pol.availability)
        price = min(p for p in (pr.committed, pr.on_demand) if p is not None)
        label = (
            pr.committed_model or "committed"
            if pr.committed is not None and price == pr.committed
            else "on_demand"
        )
        return Sizing(
            units,
            units if label != "on_demand" else 0,
            0.0 if label != "on_demand" else units * hours,
            0,
            units * price * hours,
            f"standby on {label}",
        )

    peak = max(hourly) if hourly else 0
    if pr.on_demand is None:
        # Reservation- or block-only SKU: the whole peak fleet is committed.
        assert pr.committed is not None, "a SKU without an on-demand price has a committed one"
        return Sizing(
            peak,
            peak,
            0.0,
            0,
            peak * pr.committed * hours,
            f"{pr.committed_model} for the whole fleet (no on-demand price)",
        )
    reserved = reserve_level(hourly, pr.discount) if pr.committed is not None else 0
    if pol.autoscaled:
        od_hours = sum(max(0, u - reserved) for u in hourly) * hours / HOURS_PER_DAY
    else:
        od_hours = max(0, peak - reserved) * hours
    committed_cost = reserved * pr.committed * hours if reserved and pr.committed else 0.0
    cost = od_hours * pr.on_demand + committed_cost
    if reserved:
        label = (
            f"{pr.committed_model} base of {reserved} (reserve to the "
            f"{pr.discount:.0%} demand percentile) + on-demand burst"
        )
    else:
        label = "on_demand" + (" following the hourly curve" if pol.autoscaled else " held at peak")
    return Sizing(peak, reserved, od_hours, 0, cost, label)


def commitment_factor_table(curve: np.ndarray, autoscale: bool) -> tuple[np.ndarray, np.ndarray]:
    """For the vectorised ranking: with continuous units, monthly cost of an SKU is
    on_demand_price × mean_units × 730 × k(d), k(d) = (1 - d)·q(d) + mean_t max(0, c_t - q(d)),
    q(d) the d-quantile of the normalised curve. Returns (sorted curve, k at each quantile index)."""
    ordered = np.sort(curve)
    if autoscale:
        excess = np.array([np.maximum(curve - q, 0.0).mean() for q in ordered])
    else:
        excess = ordered[-1] - ordered
    return ordered, excess


def commitment_factor(
    discount: np.ndarray, ordered: np.ndarray, excess: np.ndarray, autoscale: bool
) -> np.ndarray:
    n = ordered.size
    idx = np.clip(np.ceil(discount * n - _CEIL_EPS).astype(np.int64) - 1, 0, n - 1)
    k = (1.0 - discount) * ordered[idx] + excess[idx]
    no_reserve = 1.0 if autoscale else float(ordered[-1])
    return np.where(discount > 0, np.minimum(k, no_reserve), no_reserve)
