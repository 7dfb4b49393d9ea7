"""Scenarios that start from the company's own workspace.

* **Stay** keeps the fleet as it is: Σ count × effective $/h × 730 h. Where that fleet cannot carry a
  workload's load at its SLO, the cheapest approved top-up is a separate, labelled line.
* **Moves** (shift a share to AMD, add a CPU fallback, a custom mix) keep the part of the fleet the
  remaining traffic needs and buy the rest on the market within the approved providers and regions.
  Committed capacity is paid until its ``commitment_end`` (or ended early for its termination cost
  when that is cheaper), and nothing changes before the stage-gate timeline's cut-over.
* Every scenario carries 36 months of cost with demand growing quarter by quarter; payback is the
  first month whose cumulative savings against Stay cover the one-time cost.
* The allocation achieved is computed beside the one requested; a plan that leaves demand unserved
  is infeasible and never ranked as cheaper.

Load model (stated so a figure can be checked by hand): a workload's hourly output load is
``mean × (interactive_share × c_h + (1 − interactive_share))`` with ``c_h`` the day's curve (mean 1,
peak = peak_to_mean); batch runs flat at its mean and is served at the same SLO capacity. One unit
carries ``unit tok/s at SLO × utilisation cap × availability``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import date, datetime

import numpy as np

from costmodel.demand import HOURS_PER_MONTH, HourlyProfile, Segment, Slo
from costmodel.options import BLOCK_OR_CONTRACT, COMMITTED, OWNED, Option, canonical_precision
from costmodel.risk import RiskReport, SpendLine, assess_risk
from costmodel.scenarios import (
    DEFAULT_POLICY,
    Allocation,
    Engine,
    MigrationInputs,
    Scenario,
    _naive,
    segment_mix,
    segment_shape,
)
from costmodel.shape import cache_rule, mean_basis
from costmodel.sizing import FleetPolicy
from costmodel.timeline import StageGate, Timeline, plan_timeline
from costmodel.workspace import FleetEntry, Workload, Workspace
from tokendesk.labels import label

MONTHS = 36
DAYS_PER_MONTH = 365.25 / 12
_EPS = 1e-9
#: Paid for every hour of the term, used or not.
PAID_WHETHER_USED = COMMITTED | BLOCK_OR_CONTRACT | {OWNED}

VENDOR_OF_BACKEND = {
    "cuda": "NVIDIA",
    "rocm": "AMD",
    "hpu": "Intel Gaudi",
    "cpu": "CPU",
    "xla": "Google TPU",
    "neuron": "AWS",
    "qaic": "Qualcomm",
}


def month_start(start: date, month: int) -> date:
    """The first day of month ``month`` (1-based) of a curve that starts on ``start``."""
    index = start.month - 1 + month - 1
    return date(start.year + index // 12, index % 12 + 1, 1)


def growth_factor(workload: Workload, month: int) -> float:
    """Demand grows in steps, once a quarter: month 1-3 = 1, month 4-6 = 1 + g, …"""
    return (1.0 + workload.growth_per_quarter) ** ((month - 1) // 3)


def hourly_load(workload: Workload, factor: float = 1.0) -> np.ndarray:
    """24 hourly output tok/s: interactive follows the day's curve, batch runs flat."""
    curve = HourlyProfile(peak_factor=workload.peak_to_mean).normalised()
    mean = workload.output_tokens_per_month / (HOURS_PER_MONTH * 3600.0) * factor
    return mean * (workload.interactive_share * curve + (1.0 - workload.interactive_share))


def tokens_per_month(load_h: np.ndarray) -> float:
    """Output tokens per month of an hourly tok/s profile (the average day, 730 h)."""
    return float(load_h.mean() * HOURS_PER_MONTH * 3600.0)


# ---- outputs -----------------------------------------------------------------------------------
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
    on_demand_basis: str = "held"
    #: Month-1 cost by kind: the fleet's own lines, top-ups, new capacity (standby included).
    month1_parts: tuple[tuple[str, float], ...] = ()
    #: Committed fleet units the plan gives back that are still paid in month 1 (not ended early).
    stranded_usd_per_month: float = 0.0

    @property
    def compared_usd_per_month(self) -> float:
        """The basis every plan is compared on (``planning.verdicts``): month 1's run rate, plus
        the committed units it gives back that are still paid, plus one-time ÷ the horizon."""
        months = len(self.monthly_usd_by_month) or MONTHS
        return self.monthly_usd + self.stranded_usd_per_month + self.one_time_usd / months

    @property
    def feasible(self) -> bool:
        return self.unserved_tokens_per_month <= 0.5

    @property
    def requested_by_vendor(self) -> dict[str, float]:
        return by_vendor(self.requested_allocation)

    @property
    def achieved_by_vendor(self) -> dict[str, float]:
        return by_vendor(self.achieved_allocation)

    @property
    def horizon_usd(self) -> float:
        """What the plan costs over the horizon, one-time costs included."""
        return sum(self.monthly_usd_by_month) + self.one_time_usd

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
            "horizon_usd": round(self.horizon_usd, 2),
            "on_demand_basis": self.on_demand_basis,
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


#: Traffic with nothing to serve it (a plan that leaves demand unserved carries this share).
UNSERVED_KEY = "unserved"


def vendor_of(backend: str) -> str:
    return VENDOR_OF_BACKEND.get(backend, backend)


def by_vendor(shares: Mapping[str, float]) -> dict[str, float]:
    """Backend shares summed per vendor (``rocm`` -> AMD, ``cuda`` -> NVIDIA, …)."""
    out: dict[str, float] = {}
    for backend, share in shares.items():
        key = backend if backend == UNSERVED_KEY else vendor_of(backend)
        out[key] = out.get(key, 0.0) + share
    return out


def _rounded(shares: Mapping[str, float]) -> dict[str, float]:
    return {k: round(v, 6) for k, v in shares.items()}


# ---- scenario definitions -------------------------------------------------------------------------
@dataclass(frozen=True)
class Move:
    """A share of each workload's traffic moved from the fleet's other backends onto ``key``,
    on top of what the fleet's own ``key`` lines already carry."""

    key: str  # backend, e.g. "rocm"
    label: str
    share: float
    small_models_only: bool = False
    standby_share: float = 0.0


@dataclass(frozen=True)
class PlanScenario:
    name: str
    moves: tuple[Move, ...] = ()
    description: str = ""
    #: A custom mix: the share of traffic each backend should carry (adds up to 1). Backends the
    #: fleet runs but the mix leaves out are released (as their commitments allow).
    mix: tuple[tuple[str, float], ...] = ()

    @property
    def is_stay(self) -> bool:
        return not self.moves and not self.mix


def builtin_plans(amd_share: float = 0.25, cpu_share: float = 0.10) -> tuple[PlanScenario, ...]:
    return (
        PlanScenario("Stay", (), "Keep the fleet as it runs today, at its own rates."),
        PlanScenario(
            f"Shift {amd_share:.0%} to AMD",
            (Move("rocm", "AMD Instinct", amd_share),),
            f"Move {amd_share:.0%} of every workload's traffic from the fleet's other vendors to"
            " AMD Instinct GPUs on ROCm, on top of what the fleet's own AMD lines carry; the"
            " fleet keeps what the rest needs.",
        ),
        PlanScenario(
            "Add CPU fallback",
            (Move("cpu", "CPU fallback", cpu_share, small_models_only=True, standby_share=0.25),),
            f"Serve {cpu_share:.0%} of small-model traffic on CPUs and hold CPU emergency capacity"
            " for 25% of the small-model peak for days without GPUs.",
        ),
    )


def custom_plan(pairs: Sequence[tuple[str, float]]) -> PlanScenario:
    """``(("cuda", 0.5), ("rocm", 0.5))``: each backend carries that share of every workload's
    traffic; the fleet's lines of a backend keep what its share needs."""
    total = sum(s for _, s in pairs) or 1.0
    mix = tuple((b, s / total) for b, s in pairs if s > 0)
    label = " / ".join(f"{vendor_of(b)} {s:.0%}" for b, s in mix)
    return PlanScenario(
        f"Custom: {label}",
        (),
        "User-defined traffic shares by backend.",
        mix=mix,
    )


@dataclass
class _Month:
    """One workload (or all of them) in one month: cost by kind, who served what, what not."""

    fleet_usd: float = 0.0
    topup_usd: float = 0.0
    new_usd: float = 0.0
    unserved: float = 0.0
    reason: str = ""
    parts: list = field(default_factory=list)
    #: Output tokens per month each backend serves.
    served: dict[str, float] = field(default_factory=dict)

    @property
    def total(self) -> float:
        return self.fleet_usd + self.topup_usd + self.new_usd

    def serve(self, backend: str, tokens: float) -> None:
        self.served[backend] = self.served.get(backend, 0.0) + tokens

    def add(self, other: _Month) -> None:
        self.fleet_usd += other.fleet_usd
        self.topup_usd += other.topup_usd
        self.new_usd += other.new_usd
        self.unserved += other.unserved


# ---- the engine ------------------------------------------------------------------------------------
#: The slice of a workload's traffic the fleet's own lines carry (topped up where they fall short).
FLEET_KEY = "fleet"


@dataclass
class _FleetCap:
    entry: FleetEntry
    index: int
    rate: float  # $ per billed unit-hour (instance or accelerator)
    units: float  # purchasable units the count stands for
    unit_tok_s: float  # at SLO and the workload's input:output mix, per unit (0 = no result)
    option: Option | None
    note: str
    backend: str = "unknown"
    accelerator_id: str = ""
    vendor: str = ""
    #: How the unit's capacity was read at the workload's input:output mix.
    mix_basis: str = ""
    mix_basis_detail: dict | None = None


@dataclass
class _Slice:
    """One workload × one allocation inside a scenario."""

    workload: Workload
    key: str  # FLEET_KEY, or the backend new capacity is bought on
    label: str
    share: float
    move: Move | None


@dataclass
class _WorkloadPlan:
    """What a scenario does to one workload: the slices it serves on, the fleet units it gives
    back, the backend shares it asked for, and why anything asked for could not be had."""

    slices: list[_Slice]
    released: dict[int, float]
    requested: dict[str, float]
    requested_new: float
    notes: list[str]
    unserved: str = ""
    #: A custom mix's share no approved option can carry: refused, so left unserved.
    refused_share: float = 0.0

    @property
    def fleet_share(self) -> float:
        return sum(s.share for s in self.slices if s.move is None)

    @property
    def new_share(self) -> float:
        return sum(s.share for s in self.slices if s.move is not None)


@dataclass
class PlanContext:
    """What every scenario of one comparison shares."""

    workspace: Workspace
    policy: FleetPolicy = DEFAULT_POLICY
    migration: MigrationInputs = field(default_factory=MigrationInputs)
    gates: Mapping[str, Sequence[StageGate]] | None = None
    maturity: Sequence | None = None
    #: One-time cost per new backend, overriding the engineering estimate (e.g. a portability
    #: audit's figure); merged over the workspace's own ``one_time_usd``.
    one_time_usd_by_backend: Mapping[str, float] | None = None


class WorkspaceEngine:
    """Evaluate scenarios for one workspace over an option table (see the module docstring)."""

    def __init__(self, engine: Engine, ctx: PlanContext):
        self.engine = engine
        self.ctx = ctx
        self.ws = ctx.workspace
        # One pricing basis for every plan: the workspace says how on-demand capacity is paid.
        self.autoscaled = self.ws.on_demand_basis == "autoscaled"
        self.policy = replace(ctx.policy, autoscale_on_demand=self.autoscaled)
        self.segments = {w.workload: self._segment(w) for w in self.ws.demand}
        self._options = {o.option_id: o for o in engine.table.options}
        self._option_index = {o.option_id: i for i, o in enumerate(engine.table.options)}
        self.fleet = [self._match(i, e) for i, e in enumerate(self.ws.fleet)]
        running = [c.backend for c in self.fleet if c.entry.count > 0 and c.backend != "unknown"]
        #: Backends the fleet runs today: moving traffic onto one of them needs no port.
        self.fleet_backends = tuple(sorted(set(running)))
        self.incumbent_backends = self.fleet_backends or ("cuda",)
        self._market_cache: dict[tuple, tuple] = {}

    # -- inputs -----------------------------------------------------------------------------------
    def _segment(self, w: Workload) -> Segment:
        return Segment(
            w.workload,
            w.models,
            monthly_input_tokens=w.input_tokens_per_month,
            monthly_output_tokens=w.output_tokens_per_month,
            interactive_share=1.0,
            slo=Slo(ftl_ms=w.ttft_ms, percentile=w.percentile),
            profile=HourlyProfile(peak_factor=w.peak_to_mean),
            small_model=w.small_model,
            prefix_cache_share=w.prefix_cache_share,
        )

    def _match(self, index: int, entry: FleetEntry) -> _FleetCap:
        """The fleet line's rate and its at-SLO capacity from the benchmark results."""
        t = self.engine.table
        seg = self.segments[entry.serves]
        _, cap_i, _ = self.engine.segment_capacity(seg)
        same_sku = [
            i
            for i, o in enumerate(t.options)
            if o.provider == entry.provider and o.instance_type == entry.instance_type
        ]
        price_rows = [i for i in same_sku if t.options[i].region == entry.region] or same_sku
        rate = entry.usd_per_hour
        if rate is None:
            listed = [
                t.options[i].usd_per_unit_hour
                for i in price_rows
                if t.options[i].pricing_model == entry.pricing_model
            ]
            if not listed:
                from costmodel.workspace import WorkspaceError

                raise WorkspaceError(
                    f"fleet[{index}].usd_per_hour",
                    f"no current {label(entry.pricing_model).lower()} list price for"
                    f" {entry.instance_type} in {entry.provider} {entry.region}; give the rate"
                    " you pay",
                )
            rate = min(listed)
        model_ok = t.model_mask(seg.model_keys)
        best, best_cap = None, 0.0
        for pool in (price_rows, same_sku):
            for i in pool:
                g = int(t.group[i])
                if model_ok[i] and np.isfinite(cap_i[g]) and cap_i[g] > best_cap:
                    best, best_cap = i, float(cap_i[g])
            if best is not None:
                break
        option = t.options[best] if best is not None else None
        units = float(entry.count)
        if option is not None and option.price_basis == "per_accelerator":
            units = entry.count / option.accelerators_per_unit
        # The hardware is known from any quote of the same SKU, with or without a usable result.
        hardware = option or (t.options[same_sku[0]] if same_sku else None)
        shape = segment_shape(seg)
        detail = None
        if option is None:
            note = (
                f"no benchmark result for {' / '.join(seg.models)} on {entry.instance_type}"
                f" meets {seg.slo.describe()}: counted as no capacity"
            )
            basis = ""
        else:
            note = (
                f"{best_cap:,.0f} output tok/s per unit at {seg.slo.describe()}"
                f" ({option.model}, {option.precision}, {option.runtime})"
            )
            found = self.engine.capacity_basis(int(t.group[best]), shape)
            basis, detail = found.sentence, found.as_dict()
        return _FleetCap(
            entry,
            index,
            rate,
            units,
            best_cap,
            option,
            note,
            hardware.backend if hardware is not None else "unknown",
            hardware.accelerator_id if hardware is not None else "",
            hardware.vendor if hardware is not None else "",
            basis,
            detail,
        )

    def _unit_capacity(self, cap: _FleetCap) -> float:
        return cap.unit_tok_s * self.policy.utilisation_cap * self.policy.availability

    def fleet_capacity(self, workload: str) -> float:
        """Peak output tok/s the fleet serving ``workload`` carries at its SLO."""
        return sum(
            c.units * self._unit_capacity(c) for c in self.fleet if c.entry.serves == workload
        )

    def fleet_shares(self, workload: str) -> dict[str, float]:
        """The share of the workload's fleet capacity each backend carries today."""
        caps = [c for c in self.fleet if c.entry.serves == workload]
        total = sum(c.units * self._unit_capacity(c) for c in caps)
        out: dict[str, float] = {}
        if total <= _EPS:
            return out
        for c in caps:
            share = c.units * self._unit_capacity(c) / total
            if share > 0:
                out[c.backend] = out.get(c.backend, 0.0) + share
        return out

    def _allocation(self, key: str, label: str, move: Move | None) -> Allocation:
        c = self.ws.constraints
        backends = (key,) if move is not None else self.incumbent_backends
        return Allocation(
            label,
            1.0,
            backends=backends,
            providers=c.providers,
            regions=c.regions,
        )

    # -- market sizing ---------------------------------------------------------------------------
    def _market(
        self, w: Workload, alloc: Allocation, load_h: np.ndarray, mode: str = "interactive"
    ):
        """(cost, PlanLine | None, reason) to carry ``load_h`` on the cheapest approved option."""
        mean = float(load_h.mean())
        if mean <= _EPS:
            return 0.0, None, ""
        curve = tuple(float(v) for v in np.round(load_h / mean, 9))
        key = (w.workload, alloc.filter_key, alloc.label, curve, round(mean, 6), mode)
        hit = self._market_cache.get(key)
        if hit is not None:
            return hit
        seg = replace(
            self.segments[w.workload], profile=HourlyProfile(peak_factor=None, curve=curve)
        )
        scn = Scenario("plan", (alloc,))
        line, reason = self.engine._line(scn, seg, alloc, mode, 1.0, mean, self.policy)
        hit = (math.inf, None, reason) if line is None else (line.monthly_usd, line, "")
        self._market_cache[key] = hit
        return hit

    # -- fleet use ----------------------------------------------------------------------------------
    def _in_term(self, c: _FleetCap, month: int) -> bool:
        """A committed line is paid for every hour until its commitment ends."""
        if c.entry.pricing_model not in PAID_WHETHER_USED:
            return False
        end = c.entry.commitment_end
        return end is None or month_start(self.ws.start, month) < end

    def _releases(self, workload: str, release: Mapping[str, float]) -> dict[int, float]:
        """Whole units of the fleet a plan gives back: for each backend, the share of the
        workload's traffic it moves off that backend's lines, released from the lines that cost
        least to give back (no commitment, dearest per tok/s) first. Only what the moved traffic
        frees is released, so a plan is compared with Stay like with like."""
        current = self.fleet_shares(workload)
        out: dict[int, float] = {}
        for backend, share in release.items():
            caps = [c for c in self.fleet if c.entry.serves == workload and c.backend == backend]
            held = current.get(backend, 0.0)
            if share <= _EPS or held <= _EPS:
                continue
            if share >= held - _EPS:
                out |= {c.index: c.units for c in caps}
                continue
            target = share / held * sum(c.units * self._unit_capacity(c) for c in caps)

            def order(c: _FleetCap):
                cap = self._unit_capacity(c)
                committed = c.entry.pricing_model in PAID_WHETHER_USED
                end = c.entry.commitment_end or date.max
                return (committed, end, -(c.rate / cap) if cap > 0 else 0.0, c.index)

            for c in sorted(caps, key=order):
                cap = self._unit_capacity(c)
                if cap <= 0 or target <= _EPS:
                    continue
                k = min(c.units, float(math.floor(target / cap + _EPS)))
                if k > 0:
                    out[c.index] = k
                    target -= k * cap
        return out

    def _paid_fleet(
        self,
        workload: str,
        month: int,
        *,
        released: Mapping[int, float],
        terminated: Mapping[int, float],
        carry: bool = True,
        load_h: np.ndarray | None = None,
    ) -> tuple[float, float, dict[int, tuple[float, float]], dict[str, float]]:
        """(fleet $ this month, peak tok/s the held units carry, (held, paid) units per line,
        tok/s capacity per backend).

        Released units stop being held, except committed ones while their term runs (unless
        ended early, ``terminated``); ``carry=False`` prices the plan once those terms are over.
        On the ``held`` basis every held unit is paid all month (Stay pays Σ count × rate × 730);
        on ``autoscaled``, lines paid whether used carry the load first and the others are paid
        for the units the hourly load needs, cheapest per tok/s first.
        """
        held: list[tuple[_FleetCap, float]] = []
        capacity = 0.0
        by_backend: dict[str, float] = {}
        for c in self.fleet:
            if c.entry.serves != workload:
                continue
            gone = released.get(c.index, 0.0)
            if carry and self._in_term(c, month):
                gone = terminated.get(c.index, 0.0)
            units = c.units - gone
            held.append((c, units))
            cap = units * self._unit_capacity(c)
            capacity += cap
            by_backend[c.backend] = by_backend.get(c.backend, 0.0) + cap
        paid: dict[int, tuple[float, float]] = {}
        cost = 0.0
        scaled = [
            (c, u)
            for c, u in held
            if self.autoscaled
            and load_h is not None
            and c.entry.pricing_model not in PAID_WHETHER_USED
            and self._unit_capacity(c) > 0
        ]
        scaled_lines = {c.index for c, _ in scaled}
        fixed = [(c, u) for c, u in held if c.index not in scaled_lines]
        for c, units in fixed:
            cost += units * self._billed(c) * HOURS_PER_MONTH
            paid[c.index] = (units, units)
        if scaled and load_h is not None:
            rest = np.maximum(load_h - sum(u * self._unit_capacity(c) for c, u in fixed), 0.0)
            for c, units in sorted(
                scaled, key=lambda cu: self._billed(cu[0]) / self._unit_capacity(cu[0])
            ):
                cap = self._unit_capacity(c)
                served = np.minimum(rest, units * cap)
                rest = rest - served
                hourly_units = np.minimum(np.ceil(served / cap - _EPS), units)
                average = float(np.maximum(hourly_units, 0.0).mean())
                cost += average * self._billed(c) * HOURS_PER_MONTH
                paid[c.index] = (units, average)
        return cost, capacity, paid, by_backend

    def _billed(self, c: _FleetCap) -> float:
        """$ per hour of one purchasable unit (the rate is per instance or per accelerator)."""
        if c.option is not None and c.option.price_basis == "per_accelerator":
            return c.rate * c.option.accelerators_per_unit
        return c.rate

    # -- one workload, one month --------------------------------------------------------------------
    def _workload_month(
        self,
        w: Workload,
        wp: _WorkloadPlan,
        month: int,
        *,
        terminated: Mapping[int, float],
        steady: bool = False,
    ) -> _Month:
        """What one workload costs and who serves it in one month.

        ``steady``: the plan in place with the commitments it releases already ended (the
        month-1 run rate); otherwise committed capacity is paid as its term says.
        """
        base = hourly_load(w, growth_factor(w, month))
        out = _Month()
        load_fleet = base * wp.fleet_share
        c_fleet, capacity, paid, by_backend = self._paid_fleet(
            w.workload,
            month,
            released=wp.released,
            terminated=terminated,
            carry=not steady,
            load_h=load_fleet,
        )
        out.fleet_usd = c_fleet
        out.parts.append(("fleet", paid))
        if capacity > _EPS:
            carried = tokens_per_month(np.minimum(load_fleet, capacity))
            for backend, cap in by_backend.items():
                out.serve(backend, carried * cap / capacity)
        residual = np.maximum(load_fleet - capacity, 0.0)
        if wp.fleet_share > 0 and residual.max() > _EPS:
            alloc = self._allocation(FLEET_KEY, "Top-up (the fleet's own vendors)", None)
            c_top, top_line, why = self._market(w, alloc, residual)
            if top_line is None:
                out.unserved += tokens_per_month(residual)
                out.reason = f"{w.workload}: the fleet falls short and {why}"
            else:
                out.topup_usd += c_top
                out.parts.append(("top-up", top_line))
                out.serve(top_line.backend, tokens_per_month(residual))
        if wp.refused_share > _EPS:
            out.unserved += tokens_per_month(base * wp.refused_share)
            out.reason = f"{w.workload}: {wp.notes[-1] if wp.notes else 'no approved option'}"
        for s in wp.slices:
            if s.move is None:
                continue
            load = base * s.share
            alloc = self._allocation(s.key, s.label, s.move)
            c_new, new_line, why = self._market(w, alloc, load)
            if new_line is None:
                out.unserved += tokens_per_month(load)
                out.reason = f"{w.workload}: {why}"
            else:
                out.new_usd += c_new
                out.parts.append(("new", new_line, s))
                out.serve(new_line.backend, tokens_per_month(load))
            if s.move.standby_share > 0:
                peak = float(base.max()) * w.interactive_share * s.move.standby_share
                c_sb, sb_line, _ = self._market(w, alloc, np.full(24, peak), mode="standby")
                if sb_line is not None:
                    out.new_usd += c_sb
                    out.parts.append(("standby", sb_line, s))
        return out

    # -- what a scenario asks of each workload ------------------------------------------------------
    def _targets(self, scenario: PlanScenario, w: Workload, current: Mapping[str, float]):
        """The backend shares the scenario asks of ``w``, and notes on what it set aside."""
        notes: list[str] = []
        if scenario.mix:
            targets = dict(scenario.mix)
            if not w.small_model and targets.get("cpu", 0.0) > 0:
                notes.append(
                    f"{w.workload}: the CPU share applies to small models only; {w.model} keeps"
                    " it on the other backends of the mix"
                )
                targets.pop("cpu")
            total = sum(targets.values())
            if total <= _EPS:
                return dict(current), notes
            return {b: v / total for b, v in targets.items()}, notes
        targets = dict(current)
        for m in scenario.moves:
            if m.small_models_only and not w.small_model:
                continue
            mine = targets.get(m.key, 0.0)
            others = 1.0 - mine
            add = min(m.share, others)
            if others > _EPS:
                targets = {
                    b: (v * (others - add) / others if b != m.key else v)
                    for b, v in targets.items()
                }
            targets[m.key] = mine + add
        return targets, notes

    def _plan(self, scenario: PlanScenario, w: Workload) -> _WorkloadPlan:
        """The fleet keeps, per backend, the smaller of what it carries and what the plan asks;
        a backend asked for more than the fleet carries is bought on the market for the
        difference; what cannot be bought stays on the fleet, with the reason."""
        current = self.fleet_shares(w.workload) or {self.incumbent_backends[0]: 1.0}
        targets, notes = self._targets(scenario, w, current)
        new = {b: t - current.get(b, 0.0) for b, t in targets.items()}
        new = {b: v for b, v in new.items() if v > 1e-9}
        release = {b: current[b] - min(current[b], targets.get(b, 0.0)) for b in current}
        requested_new = sum(new.values())
        slices: list[_Slice] = []
        for b, share in new.items():
            move = next((m for m in scenario.moves if m.key == b), None) or Move(
                b, f"{label(b)} share", share, small_models_only=b == "cpu"
            )
            s = _Slice(w, b, move.label, share, move)
            if self._can_buy(w, s):
                slices.append(s)
            else:
                notes.append(
                    f"no {vendor_of(b)} result for {w.model} ({w.workload}) — {self._why(w, s)}"
                )
        achieved_new = sum(s.share for s in slices)
        refused = 0.0
        if scenario.mix:
            # A mix is honoured or refused: what no approved option carries is left unserved
            # (the plan is infeasible, with the reason), never quietly put back on the fleet.
            refused = requested_new - achieved_new
        else:
            scale = achieved_new / requested_new if requested_new > _EPS else 0.0
            release = {b: v * scale for b, v in release.items()}
        fleet_share = max(0.0, 1.0 - achieved_new - refused)
        unserved = ""
        if fleet_share > _EPS:
            fleet = _Slice(w, FLEET_KEY, "The fleet as it runs", fleet_share, None)
            if self.fleet_capacity(w.workload) > 0 or self._can_buy(w, fleet):
                slices.insert(0, fleet)
            else:
                notes.append(
                    f"no capacity of the fleet or option for {w.model} ({w.workload}) meets its SLO"
                )
                unserved = f"{w.workload}: nothing approved can serve {w.model}"
        return _WorkloadPlan(
            slices,
            self._releases(w.workload, release),
            targets,
            requested_new,
            notes,
            unserved,
            refused,
        )

    def _can_buy(self, w: Workload, s: _Slice) -> bool:
        alloc = self._allocation(s.key, s.label, s.move)
        ranked, _ = self.engine.ranking(
            self.segments[w.workload], alloc, "interactive", self.policy
        )
        return ranked.size > 0

    def _why(self, w: Workload, s: _Slice) -> str:
        alloc = self._allocation(s.key, s.label, s.move)
        _, reason = self.engine.ranking(
            self.segments[w.workload], alloc, "interactive", self.policy
        )
        return reason

    # -- evaluation ----------------------------------------------------------------------------------
    def evaluate(self, scenarios: Sequence[PlanScenario]) -> tuple[PlanResult, ...]:
        stay = next((s for s in scenarios if s.is_stay), PlanScenario("Stay"))
        stay_result = self._evaluate(stay, None)
        results = []
        for s in scenarios:
            results.append(stay_result if s is stay else self._evaluate(s, stay_result))
        return tuple(results)

    def _evaluate(self, scenario: PlanScenario, stay: PlanResult | None) -> PlanResult:
        is_stay = stay is None
        total_out = sum(w.output_tokens_per_month for w in self.ws.demand) or 1.0
        plans = {w.workload: self._plan(scenario, w) for w in self.ws.demand}
        weight = {w.workload: w.output_tokens_per_month / total_out for w in self.ws.demand}
        requested: dict[str, float] = {}
        for w in self.ws.demand:
            for b, v in plans[w.workload].requested.items():
                requested[b] = requested.get(b, 0.0) + v * weight[w.workload]
        notes = [n for wp in plans.values() for n in wp.notes]
        moved_requested = sum(plans[k].requested_new * weight[k] for k in plans)
        moved_achieved = sum(plans[k].new_share * weight[k] for k in plans)
        new_backends = tuple(
            sorted(
                {
                    s.key
                    for wp in plans.values()
                    for s in wp.slices
                    if s.move is not None and s.key not in self.fleet_backends
                }
            )
        )
        timeline = self._timeline(new_backends)
        cutover = 1 + math.ceil(timeline.weeks_to_cutover * 7 / DAYS_PER_MONTH - _EPS)
        cutover = min(max(cutover, 1), MONTHS + 1)
        one_time, one_time_notes = self._one_time(new_backends)
        released: dict[int, float] = {}
        for wp in plans.values():
            released |= wp.released
        terminated, etc_usd, etc_notes = self._terminations(released, cutover)
        porting_usd = one_time
        stranded = sum(
            (units - terminated.get(i, 0.0)) * self._billed(c) * HOURS_PER_MONTH
            for c in self.fleet
            if (units := released.get(c.index, 0.0)) > 0
            and c.entry.pricing_model in PAID_WHETHER_USED
            and self._in_term(c, 1)
            for i in (c.index,)
        )
        one_time += etc_usd
        one_time_notes += etc_notes

        # Month-1 steady state: the plan in place, commitments it releases already ended.
        month1 = _Month()
        lines: list[PlanLine] = []
        reasons = [wp.unserved for wp in plans.values() if wp.unserved]
        served: dict[str, float] = {}
        for w in self.ws.demand:
            wp = plans[w.workload]
            m = self._workload_month(w, wp, 1, terminated={}, steady=True)
            if not wp.slices:
                m.unserved = w.output_tokens_per_month
            month1.add(m)
            if m.reason:
                reasons.append(m.reason)
            lines += self._plan_lines(w, m.parts)
            total_w = w.output_tokens_per_month or 1.0
            for b, tok in m.served.items():
                served[b] = served.get(b, 0.0) + tok / total_w * weight[w.workload]
            if m.unserved > 0.5:
                served[UNSERVED_KEY] = (
                    served.get(UNSERVED_KEY, 0.0) + m.unserved / total_w * weight[w.workload]
                )
        monthly = month1.total

        curve: list[float] = []
        steady_curve: list[float] = []
        for mth in range(1, MONTHS + 1):
            if stay is not None and mth < cutover:  # the fleet runs as it is until cut-over
                curve.append(stay.monthly_usd_by_month[mth - 1])
                steady_curve.append(stay.monthly_usd_by_month[mth - 1])
                continue
            total, steady_total = 0.0, 0.0
            for w in self.ws.demand:
                wp = plans[w.workload]
                total += self._workload_month(w, wp, mth, terminated=terminated).total
                if stay is not None:
                    steady_total += self._workload_month(
                        w, wp, mth, terminated=terminated, steady=True
                    ).total
            curve.append(total)
            steady_curve.append(steady_total if stay is not None else total)

        shortfall = 0.0
        if is_stay:
            for w in self.ws.demand:
                residual = np.maximum(hourly_load(w) - self.fleet_capacity(w.workload), 0.0)
                shortfall += tokens_per_month(residual)

        violations = self._violations(served, lines)
        risk = self._risk(lines)
        parts: tuple[tuple[str, float], ...] = ()
        horizon_parts: tuple[tuple[str, float], ...] = ()
        if stay is None:
            payback, sentence, savings = None, "Baseline: the fleet as it runs today.", 0.0
        else:
            savings = stay.monthly_usd - monthly
            unserved_now = month1.unserved
            payback, sentence = _payback(curve, stay.monthly_usd_by_month, one_time, unserved_now)
            base = stay_month1_parts(stay)
            parts = (
                ("Fleet capacity given back", base["fleet"] - month1.fleet_usd),
                ("Top-ups the fleet needs", base["top-up"] - month1.topup_usd),
                ("New capacity bought", base["new"] - month1.new_usd),
            )
            after = range(cutover - 1, MONTHS)
            horizon_parts = (
                (
                    f"Run-rate saving from cut-over (month {min(cutover, MONTHS)}) to month"
                    f" {MONTHS}",
                    sum(stay.monthly_usd_by_month[i] - steady_curve[i] for i in after),
                ),
                (
                    "Released commitments still paid until their term ends",
                    sum(steady_curve[i] - curve[i] for i in after),
                ),
                ("Porting and certification (one-time)", -porting_usd),
                ("Early termination fees (one-time)", -etc_usd),
            )
        plan_notes = [c.note for c in self.fleet if c.option is None]
        plan_notes.append(
            "A commitment that ends is assumed renewed at the same rate for units still needed."
        )
        plan_notes.append(ON_DEMAND_BASIS_NOTES[self.ws.on_demand_basis])
        return PlanResult(
            name=scenario.name,
            description=scenario.description,
            requested_allocation=_rounded_shares(requested),
            achieved_allocation=_rounded_shares(served),
            allocation_notes=tuple(dict.fromkeys(notes)),
            unserved_tokens_per_month=month1.unserved,
            unserved_reasons=tuple(dict.fromkeys(reasons)),
            monthly_usd=monthly,
            monthly_usd_by_month=tuple(curve),
            one_time_usd=one_time,
            one_time_notes=tuple(one_time_notes),
            payback_month=payback,
            payback_sentence=sentence,
            fleet=tuple(lines),
            risk=risk,
            timeline=timeline,
            cutover_month=cutover if not is_stay else 1,
            constraint_violations=tuple(violations),
            notes=tuple(plan_notes),
            fleet_shortfall_tokens_per_month=shortfall,
            savings_vs_stay_usd=savings,
            is_baseline=is_stay,
            requested_share=moved_requested,
            achieved_share=moved_achieved,
            savings_parts=parts,
            horizon_savings_parts=horizon_parts,
            workload_shapes=tuple(self._shape(w, lines) for w in self.ws.demand),
            on_demand_basis=self.ws.on_demand_basis,
            stranded_usd_per_month=stranded,
            month1_parts=(
                ("fleet", month1.fleet_usd),
                ("top-up", month1.topup_usd),
                ("new", month1.new_usd),
            ),
        )

    def _shape(self, w: Workload, lines: Sequence[PlanLine]) -> dict:
        """The traffic shape a workload's capacity was read at, and the basis of each figure:
        per fleet line and configuration, ``measured`` at which shape or ``estimated`` with the
        rule and the gap (``costmodel.shape``)."""
        seg = self.segments[w.workload]
        mix = segment_mix(seg)
        bases = sorted({c.mix_basis for c in self.fleet if c.entry.serves == w.workload})
        per_line: dict[tuple, dict] = {}
        for ln in lines:
            if ln.workload != w.workload or ln.capacity_basis_detail is None:
                continue
            key = (ln.role, ln.provider, ln.region, ln.instance_type, ln.option_id)
            per_line.setdefault(
                key,
                {
                    "role": ln.role,
                    "provider": ln.provider,
                    "region": ln.region,
                    "instance_type": ln.instance_type,
                    "model": ln.model,
                    "precision": ln.precision,
                    **ln.capacity_basis_detail,
                },
            )
        for c in self.fleet:
            if c.entry.serves != w.workload or c.option is None or c.unit_tok_s <= 0:
                continue
            split = self.engine.cost_split(
                self._option_index[c.option.option_id], segment_shape(seg), c.rate, c.unit_tok_s
            )
            for key, entry in per_line.items():
                if (
                    key[0] == "fleet"
                    and key[3] == c.entry.instance_type
                    and key[4] == (c.option.option_id)
                ):
                    entry.setdefault("unit_cost_at_slo", split)
        return {
            "workload": w.workload,
            "input_tokens_per_month": w.input_tokens_per_month,
            "output_tokens_per_month": w.output_tokens_per_month,
            "input_per_output_token": None if mix is None else round(mix, 6),
            "input_tokens_mean": w.input_tokens_mean,
            "output_tokens_mean": w.output_tokens_mean,
            "mean_basis": mean_basis(w.input_tokens_mean, w.output_tokens_mean, w.shape_source),
            "prefix_cache_share": w.prefix_cache_share,
            "prefix_cache_rule": cache_rule(w.prefix_cache_share),
            "capacity_basis": list(per_line.values()),
            "fleet_capacity_basis": [b for b in bases if b],
        }

    def _terminations(self, released: Mapping[int, float], cutover: int):
        """Released committed units ended early where the termination cost is below the
        payments left after cut-over; otherwise they stay paid until ``commitment_end``."""
        terminated: dict[int, float] = {}
        usd = 0.0
        notes: list[str] = []
        for c in self.fleet:
            e = c.entry
            units = released.get(c.index, 0.0)
            if units <= 0 or e.early_termination_usd is None or e.commitment_end is None:
                continue
            if e.pricing_model not in PAID_WHETHER_USED or cutover > MONTHS:
                continue
            months_left = sum(1 for m in range(cutover, MONTHS + 1) if self._in_term(c, m))
            remaining = units * self._billed(c) * HOURS_PER_MONTH * months_left
            fee = e.early_termination_usd * units / c.units
            if months_left and fee < remaining:
                terminated[c.index] = units
                usd += fee
                notes.append(
                    f"End {units:g} of {c.units:g} {e.instance_type} early for ${fee:,.0f}"
                    f" instead of paying ${remaining:,.0f} until {e.commitment_end}."
                )
        return terminated, usd, notes

    def _one_time(self, backends: Sequence[str]) -> tuple[float, list[str]]:
        explicit = dict(self.ws.one_time_usd_by_backend)
        explicit.update(self.ctx.one_time_usd_by_backend or {})
        m = self.ctx.migration
        weeks = dict(m.engineer_weeks)
        usd = 0.0
        notes = []
        certify = m.certification_runs_per_backend * m.usd_per_certification_run
        rate = m.loaded_usd_per_engineer_week
        for b in backends:
            if b in explicit:
                usd += explicit[b]
                notes.append(f"{b}: ${explicit[b]:,.0f} one-time (given).")
                continue
            audit = self.ws.audit_for(b)
            if audit is not None:
                cost = audit.weeks_base * rate + certify
                usd += cost
                notes.append(
                    f"{b}: ${cost:,.0f} one-time = {audit.weeks_base:g} engineer-weeks"
                    f" {self.ws.audit_basis} ({audit.blocking_findings} blocking findings,"
                    f" {audit.confidence} confidence; range ${audit.weeks_low * rate + certify:,.0f}"
                    f"–${audit.weeks_high * rate + certify:,.0f}) at ${rate:,.0f} per week"
                    f" + {m.certification_runs_per_backend} certification runs at"
                    f" ${m.usd_per_certification_run:,.0f}."
                )
                continue
            w = weeks.get(b, max(weeks.values()))
            cost = (
                w * m.loaded_usd_per_engineer_week
                + m.certification_runs_per_backend * m.usd_per_certification_run
            )
            usd += cost
            notes.append(
                f"{b}: ${cost:,.0f} one-time = {w:g} engineer-weeks at"
                f" ${m.loaded_usd_per_engineer_week:,.0f} + {m.certification_runs_per_backend}"
                f" certification runs at ${m.usd_per_certification_run:,.0f} (estimate)."
            )
        return usd, notes

    def _timeline(self, backends: tuple[str, ...]) -> Timeline:
        gates = self.ctx.gates
        if gates is None:
            from costmodel.tables import stage_gates

            gates = stage_gates()
        return plan_timeline(backends, self._audited_gates(gates))

    def _audited_gates(
        self, gates: Mapping[str, Sequence[StageGate]]
    ) -> Mapping[str, Sequence[StageGate]]:
        """Where the workspace holds an audit, its gates come from it: the audit gate is done, and
        the certify gate also carries the porting work the audit estimated (base engineer-weeks
        spread over the engineers porting)."""
        if not self.ws.audit:
            return gates
        out = dict(gates)
        engineers = max(self.ctx.migration.engineers_porting, 1)
        for audit in self.ws.audit:
            if audit.backend not in out:
                continue
            port = audit.weeks_base / engineers
            changed = []
            for g in out[audit.backend]:
                if g.gate == "audit":
                    g = replace(g, weeks=0.0, basis=f"Done: {self.ws.audit_basis}")
                elif g.gate == "certify":
                    g = replace(
                        g,
                        weeks=g.weeks + port,
                        basis=f"{g.weeks:g} weeks to certify + {port:g} weeks porting"
                        f" ({audit.weeks_base:g} engineer-weeks {self.ws.audit_basis},"
                        f" {engineers} engineers; range {audit.weeks_low / engineers:g}–"
                        f"{audit.weeks_high / engineers:g} weeks)",
                    )
                changed.append(g)
            out[audit.backend] = tuple(changed)
        return out

    def _plan_lines(self, w: Workload, parts: list) -> list[PlanLine]:
        out: list[PlanLine] = []
        for part in parts:
            if part[0] == "fleet":
                paid = part[1]
                for c in self.fleet:
                    if c.entry.serves != w.workload:
                        continue
                    e = c.entry
                    held, used = paid.get(c.index, (0.0, 0.0))
                    o = c.option
                    per = o.accelerators_per_unit if o and o.price_basis == "per_accelerator" else 1
                    count = int(round(held * per))
                    note = c.note
                    if count != e.count:
                        note += f"; {e.count - count} of {e.count} released"
                    if abs(used - held) > 1e-9:
                        note += (
                            f"; autoscaled: {used * HOURS_PER_MONTH:,.0f} unit-hours a month"
                            f" of {held * HOURS_PER_MONTH:,.0f} held"
                        )
                    out.append(
                        PlanLine(
                            w.workload,
                            "fleet",
                            "The fleet as it runs",
                            e.provider,
                            e.region,
                            e.instance_type,
                            e.pricing_model,
                            count,
                            c.rate,
                            e.commitment_end,
                            used * self._billed(c) * HOURS_PER_MONTH,
                            c.accelerator_id,
                            c.vendor or vendor_of(c.backend),
                            c.backend,
                            c.unit_tok_s,
                            note,
                            o.model if o else "",
                            o.precision if o else "",
                            o.bench_measured_at if o else None,
                            o.option_id if o else "",
                            capacity_basis=c.mix_basis,
                            capacity_basis_detail=c.mix_basis_detail,
                        )
                    )
                continue
            role, line = part[0], part[1]
            label = part[2].label if len(part) > 2 else "Top-up"
            if role == "top-up":
                label = "Top-up: the fleet falls short at the SLO (cheapest approved option)"
            if role == "standby":
                label += " (standby)"
            option = self._options.get(line.option_id)
            per_acc = option is not None and option.price_basis == "per_accelerator"
            per = option.accelerators_per_unit if option is not None and per_acc else 1
            prices = line.sizing.prices
            list_rate = prices.on_demand if prices.on_demand is not None else prices.committed
            index = self._option_index.get(line.option_id)
            found = (
                self.engine.capacity_basis(
                    int(self.engine.table.group[index]), segment_shape(self.segments[w.workload])
                )
                if index is not None
                else None
            )
            out.append(
                PlanLine(
                    w.workload,
                    role,
                    label,
                    line.provider,
                    line.region,
                    line.instance_type,
                    line.pricing,
                    int(line.units_peak) * per,
                    (list_rate or 0.0) / per,
                    None,
                    line.monthly_usd,
                    line.accelerator_id,
                    line.vendor,
                    line.backend,
                    line.unit_output_tok_s,
                    f"{line.units_peak} units at peak; {line.capacity_note}",
                    line.model,
                    line.precision,
                    line.bench_measured_at,
                    line.option_id,
                    capacity_basis=found.sentence if found is not None else "",
                    capacity_basis_detail=found.as_dict() if found is not None else None,
                )
            )
        return out

    def _violations(self, served: Mapping[str, float], lines) -> list[str]:
        """Constraints the plan breaks: a vendor above the share cap (from the traffic each
        vendor actually carries), capacity on a provider that is not approved."""
        c = self.ws.constraints
        out = []
        for vendor, share in by_vendor(served).items():
            if vendor == UNSERVED_KEY:
                continue
            if share > c.max_vendor_share + 1e-9:
                out.append(
                    f"{vendor} carries {share:.0%} of traffic, above the {c.max_vendor_share:.0%} cap"
                )
        for ln in lines:
            if ln.role != "fleet" and c.providers and ln.provider not in c.providers:
                out.append(f"{ln.instance_type} on {ln.provider} is not an approved provider")
        return list(dict.fromkeys(out))

    def _risk(self, lines: Sequence[PlanLine]) -> RiskReport:
        maturity = self.ctx.maturity
        if maturity is None:
            from costmodel.tables import software_maturity

            maturity = software_maturity()
        spend = [
            SpendLine(
                ln.monthly_usd,
                ln.vendor or "unknown",
                ln.provider,
                ln.region,
                ln.accelerator_id or ln.instance_type,
                ln.backend or "unknown",
                self.engine.family(ln.model) if ln.model else "*",
                canonical_precision(ln.precision),
                ln.pricing_model,
                "spot" in ln.pricing_model,
                False,
                _naive(ln.bench_measured_at)
                if isinstance(ln.bench_measured_at, datetime)
                else None,
            )
            for ln in lines
            if ln.monthly_usd > 0
        ]
        return assess_risk(spend, maturity, self.engine.as_of)


def _rounded_shares(shares: Mapping[str, float]) -> dict[str, float]:
    """Shares above rounding noise, largest first."""
    return dict(sorted(((k, v) for k, v in shares.items() if v > 1e-9), key=lambda kv: -kv[1]))


def stay_month1_parts(stay: PlanResult) -> dict[str, float]:
    return dict(stay.month1_parts) | {"new": dict(stay.month1_parts).get("new", 0.0)}


#: What each on-demand basis means, said once on every plan.
ON_DEMAND_BASIS_NOTES = {
    "held": "On-demand capacity is paid for every unit held, all month (730 h), in every plan"
    " alike; set on_demand_basis: autoscaled in the workspace where it follows the load.",
    "autoscaled": "On-demand capacity follows the hourly load (units held only in the hours"
    " needed), in every plan alike, the fleet's own on-demand lines included; committed"
    " capacity is paid every hour.",
}


def _payback(
    curve: Sequence[float], stay: Sequence[float], one_time: float, unserved: float
) -> tuple[int | None, str]:
    """The first month whose cumulative savings against Stay cover the one-time cost."""
    if unserved > 0.5:
        return None, "Infeasible: leaves demand unserved, so there is nothing to pay back."
    cumulative = -one_time
    gained = 0.0
    for m, (x, s) in enumerate(zip(curve, stay, strict=True), start=1):
        cumulative += s - x
        gained += s - x
        if cumulative >= 0 and gained > 0.005:
            return m, (
                f"Pays back in month {m}: cumulative savings ${gained:,.0f} cover the"
                f" ${one_time:,.0f} one-time cost."
            )
    return None, (
        f"Never pays back within {len(curve)} months: cumulative savings ${gained:,.0f}"
        f" against a one-time cost of ${one_time:,.0f}."
    )


def stay_result(results: Sequence[PlanResult]) -> PlanResult:
    return next(r for r in results if r.is_baseline)


def cheapest(results: Sequence[PlanResult]) -> PlanResult | None:
    """The cheapest feasible scenario (an infeasible plan is never the cheapest)."""
    feasible = [r for r in results if r.feasible]
    return min(feasible, key=lambda r: r.monthly_usd) if feasible else None
