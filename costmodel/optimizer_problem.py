"""The optimizer's problem as pure data: the candidates (ways to buy capacity for a workload),
the problem (hourly loads, candidates, caps), a choice of units and a solution; the dominance rule
that drops candidates before solving (``prune``) and the objective of a given plan
(``objective_of``, for brute force and hand checks). See ``costmodel.optimizer`` for the programme.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date

from costmodel.demand import HOURS_PER_MONTH
from costmodel.plan_inputs import MONTHS, VENDOR_OF_BACKEND

HELD = "held"  # paid every hour of the month (committed, contract, a kept fleet line)
HOURLY = "hourly"  # on-demand, paid for the hours of the day it is up
#: Below this a unit count, a capacity or a price is float noise.
EPS = 1e-9


@dataclass(frozen=True)
class Candidate:
    """One way to buy capacity for one workload."""

    workload: str
    kind: str  # held | hourly
    role: str  # fleet | new
    provider: str
    region: str
    instance_type: str
    pricing_model: str
    backend: str
    #: Peak output tok/s one unit carries at the SLO (after utilisation cap and availability).
    unit_capacity: float
    #: held: $ per unit per month; hourly: $ per unit-hour.
    usd_per_unit: float
    #: A fleet line: how many units it has (the most that can be kept).
    max_units: int | None = None
    #: A fleet line: $ per month a released unit still costs (committed, in term at month 1).
    release_usd_per_unit_month: float = 0.0
    accelerator_id: str = ""
    option_id: str = ""
    fleet_index: int | None = None
    #: Accelerators one unit stands for where the price is per accelerator (reported counts).
    count_per_unit: int = 1
    commitment_end: date | None = None
    note: str = ""

    @property
    def vendor(self) -> str:
        return VENDOR_OF_BACKEND.get(self.backend, self.backend)

    @property
    def usd_per_unit_month(self) -> float:
        return self.usd_per_unit if self.kind == HELD else self.usd_per_unit * HOURS_PER_MONTH


@dataclass(frozen=True)
class Problem:
    """Everything the solver needs; pure data, so small cases can be checked by brute force."""

    #: Output tok/s to carry per workload, one value per hour of the average day.
    loads: Mapping[str, tuple[float, ...]]
    candidates: tuple[Candidate, ...]
    max_vendor_share: float = 1.0
    n_plus_one: bool = False
    #: Backends not yet in production and their one-time cost.
    one_time_usd_by_backend: Mapping[str, float] = field(default_factory=dict)
    horizon_months: int = MONTHS

    @property
    def hours(self) -> int:
        return len(next(iter(self.loads.values())))

    @property
    def total_load(self) -> float:
        return float(sum(sum(v) for v in self.loads.values()))


@dataclass(frozen=True)
class Choice:
    candidate: Candidate
    #: held: units; hourly: units in each hour.
    units: tuple[int, ...]

    @property
    def peak_units(self) -> int:
        return max(self.units) if self.units else 0

    @property
    def monthly_usd(self) -> float:
        c = self.candidate
        if c.kind == HELD:
            return self.units[0] * c.usd_per_unit
        return sum(self.units) * c.usd_per_unit * HOURS_PER_MONTH / len(self.units)


@dataclass(frozen=True)
class Solution:
    #: optimal (proven: costs at most PROVEN_USD more than the bound) | feasible (a plan, with its
    #: proven gap) | infeasible | error
    status: str
    objective_usd_per_month: float | None
    gap: float | None
    choices: tuple[Choice, ...]
    vendor_shares: Mapping[str, float]
    one_time_usd: float
    released_paid_usd_per_month: float
    message: str = ""
    #: The solver's proven lower bound on the objective (HiGHS's dual bound): no plan costs less.
    bound_usd_per_month: float | None = None
    #: Hours in the day the plan's hourly counts cover.
    hours: int = 24

    @property
    def feasible(self) -> bool:
        return self.status in ("optimal", "feasible")

    @property
    def run_rate_usd_per_month(self) -> float:
        return sum(c.monthly_usd for c in self.choices) + self.released_paid_usd_per_month


# ---- dominance ---------------------------------------------------------------------------------
def prune(candidates: Sequence[Candidate], n_plus_one: bool = False) -> tuple[Candidate, ...]:
    """Drop market options that whole units of one other option of the same workload and backend
    replace at no more cost: ``k = ceil(capacity / other's capacity)`` units of the other carry at
    least as much and ``k ×`` its monthly price is no dearer. Swapping them in keeps every hour
    carried, the vendor's traffic and the backends used unchanged, so the optimum stays the same. An
    on-demand unit can replace a held one (kept up all month it costs rate × 730 h), never the
    reverse (a held unit is paid in the hours nobody needs it). With N+1 only units no larger than
    the replaced one count, since a larger unit raises the headroom needed. Fleet lines are always
    kept."""
    out = [c for c in candidates if c.role == "fleet"]
    groups: dict[tuple[str, str], list[Candidate]] = {}
    for c in candidates:
        if c.role != "fleet" and c.unit_capacity > 0:
            groups.setdefault((c.workload, c.backend), []).append(c)
    for group in groups.values():
        kept: list[Candidate] = []
        # A replacement never costs more per unit than what it replaces, so cheapest first means
        # every possible replacement is already decided when a candidate comes up.
        order = sorted(
            range(len(group)),
            key=lambda j: (
                group[j].usd_per_unit_month,
                group[j].kind != HOURLY,
                -group[j].unit_capacity,
                j,
            ),
        )
        kept_at: list[int] = []
        for j in order:
            c = group[j]
            if not any(_replaces(d, c, n_plus_one) for d in kept):
                kept.append(c)
                kept_at.append(j)
        out.extend(group[j] for j in sorted(kept_at))
    return tuple(out)


def _replaces(d: Candidate, c: Candidate, n_plus_one: bool) -> bool:
    if c.kind == HOURLY and d.kind != HOURLY:
        return False
    if n_plus_one and d.unit_capacity > c.unit_capacity + EPS:
        return False
    k = math.ceil(c.unit_capacity / d.unit_capacity - EPS)
    return k * d.usd_per_unit_month <= c.usd_per_unit_month + EPS


def objective_of(problem: Problem, choices: Sequence[Choice], backends_used: set[str]) -> float:
    """The objective of a given plan (for brute force and for checking a solution by hand)."""
    run = sum(ch.monthly_usd for ch in choices)
    run += sum(
        ((ch.candidate.max_units or 0) - ch.units[0]) * ch.candidate.release_usd_per_unit_month
        for ch in choices
        if ch.candidate.role == "fleet"
    )
    one_time = sum(problem.one_time_usd_by_backend.get(b, 0.0) for b in backends_used)
    return run + one_time / problem.horizon_months
