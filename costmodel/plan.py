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
from costmodel.fleet import FleetPolicy, rescale, size_line
from costmodel.options import BLOCK_OR_CONTRACT, COMMITTED, OWNED, Option, canonical_precision
from costmodel.risk import RiskReport, SpendLine, assess_risk
from costmodel.scenarios import (
    DEFAULT_POLICY,
    Allocation,
    Engine,
    MigrationInputs,
    Scenario,
    _naive,
)
from costmodel.timeline import StageGate, Timeline, plan_timeline
from costmodel.workspace import FleetEntry, Workload, Workspace

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

    @property
    def feasible(self) -> bool:
        return self.unserved_tokens_per_month <= 0.5

    @property
    def requested_share(self) -> float:
        """The share the scenario asked to move off the incumbent fleet."""
        return 1.0 - self.requested_allocation.get(INCUMBENT_KEY, 0.0)

    @property
    def achieved_share(self) -> float:
        return 1.0 - self.achieved_allocation.get(INCUMBENT_KEY, 0.0)

    @property
    def headline(self) -> str:
        """ "Shift 25% to AMD — 18.75% achieved: no AMD result for …" when they differ."""
        text = self.name
        if not self.is_baseline and not _same(self.requested_allocation, self.achieved_allocation):
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
        }


INCUMBENT_KEY = "incumbent"


def _rounded(shares: Mapping[str, float]) -> dict[str, float]:
    return {k: round(v, 6) for k, v in shares.items()}


def _same(a: Mapping[str, float], b: Mapping[str, float]) -> bool:
    keys = set(a) | set(b)
    return all(abs(a.get(k, 0.0) - b.get(k, 0.0)) < 1e-6 for k in keys)


# ---- scenario definitions -------------------------------------------------------------------------
@dataclass(frozen=True)
class Move:
    """A share of each workload's traffic moved off the fleet onto a backend bought on the market."""

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
    #: A custom mix with no incumbent share: the fleet is released (as commitments allow).
    keep_fleet: bool = True

    @property
    def is_stay(self) -> bool:
        return not self.moves and self.keep_fleet


def builtin_plans(amd_share: float = 0.25, cpu_share: float = 0.10) -> tuple[PlanScenario, ...]:
    return (
        PlanScenario("Stay", (), "Keep the fleet as it runs today, at its own rates."),
        PlanScenario(
            f"Shift {amd_share:.0%} to AMD",
            (Move("rocm", "AMD Instinct", amd_share),),
            f"Move {amd_share:.0%} of every workload's traffic to AMD Instinct GPUs on ROCm;"
            " the fleet keeps what the rest needs.",
        ),
        PlanScenario(
            "Add CPU fallback",
            (Move("cpu", "CPU fallback", cpu_share, small_models_only=True, standby_share=0.25),),
            f"Serve {cpu_share:.0%} of small-model traffic on CPUs and hold CPU emergency capacity"
            " for 25% of the small-model peak for days without GPUs.",
        ),
    )


def custom_plan(
    pairs: Sequence[tuple[str, float]], incumbent_backends: Sequence[str]
) -> PlanScenario:
    """``(("cuda", 0.5), ("rocm", 0.5))``: the incumbent backends' share stays on the fleet."""
    moves = tuple(
        Move(b, f"{b} share", s, small_models_only=b == "cpu")
        for b, s in pairs
        if b not in incumbent_backends
    )
    label = " / ".join(f"{b} {s:.0%}" for b, s in pairs)
    kept = sum(s for b, s in pairs if b in incumbent_backends)
    return PlanScenario(
        f"Custom: {label}",
        moves,
        "User-defined traffic shares by backend.",
        keep_fleet=kept > 0,
    )


# ---- the engine ------------------------------------------------------------------------------------
@dataclass
class _FleetCap:
    entry: FleetEntry
    index: int
    rate: float  # $ per billed unit-hour (instance or accelerator)
    units: float  # purchasable units the count stands for
    unit_tok_s: float  # at SLO, per unit (0 = no usable result)
    option: Option | None
    note: str


@dataclass
class _Slice:
    """One workload × one allocation inside a scenario."""

    workload: Workload
    key: str
    label: str
    share: float
    move: Move | None


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
        self.policy = ctx.policy
        self.segments = {w.workload: self._segment(w) for w in self.ws.demand}
        self.fleet = [self._match(i, e) for i, e in enumerate(self.ws.fleet)]
        backends = {c.option.backend for c in self.fleet if c.option is not None}
        self.incumbent_backends = tuple(sorted(backends)) or ("cuda",)
        self._options = {o.option_id: o for o in engine.table.options}
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
        )

    def _match(self, index: int, entry: FleetEntry) -> _FleetCap:
        """The fleet line's rate and its at-SLO capacity from the benchmark results."""
        t = self.engine.table
        seg = self.segments[entry.serves]
        arrays, cap_i, _ = self.engine.capacity(seg.slo)
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
                    f"no current {entry.pricing_model} list price for {entry.instance_type} in"
                    f" {entry.provider} {entry.region}; give the rate you pay",
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
        if option is None:
            note = (
                f"no benchmark result for {' / '.join(seg.models)} on {entry.instance_type}"
                f" meets {seg.slo.describe()}: counted as no capacity"
            )
        else:
            note = (
                f"{best_cap:,.0f} output tok/s per unit at {seg.slo.describe()}"
                f" ({option.model}, {option.precision}, {option.runtime})"
            )
        return _FleetCap(entry, index, rate, units, best_cap, option, note)

    def _unit_capacity(self, cap: _FleetCap) -> float:
        return cap.unit_tok_s * self.policy.utilisation_cap * self.policy.availability

    def fleet_capacity(self, workload: str) -> float:
        """Peak output tok/s the fleet serving ``workload`` carries at its SLO."""
        return sum(
            c.units * self._unit_capacity(c) for c in self.fleet if c.entry.serves == workload
        )

    def _allocation(self, key: str, label: str, move: Move | None) -> Allocation:
        c = self.ws.constraints
        backends = (key,) if move is not None else self.incumbent_backends
        return Allocation(
            label,
            1.0,
            backends=backends,
            providers=c.providers,
            regions=c.regions,
            small_models_only=bool(move and move.small_models_only),
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

    def _rescaled(self, line, factor: float) -> float:
        return size_line(rescale(line.sizing, demand=factor)).monthly_usd

    # -- fleet use ----------------------------------------------------------------------------------
    def _in_term(self, c: _FleetCap, month: int) -> bool:
        """A committed line is paid for every hour until its commitment ends."""
        if c.entry.pricing_model not in PAID_WHETHER_USED:
            return False
        end = c.entry.commitment_end
        return end is None or month_start(self.ws.start, month) < end

    def _releases(self, workload: str, moved_share: float) -> dict[int, float]:
        """Whole units of the fleet a move frees: its share of the fleet's capacity, released
        from the lines that cost least to give back (no commitment, dearest per tok/s) first.
        Only what the moved traffic frees is released, so a move is compared with Stay like
        with like: a plan that achieves no move keeps the whole fleet and saves nothing."""
        caps = [c for c in self.fleet if c.entry.serves == workload]
        target = moved_share * sum(c.units * self._unit_capacity(c) for c in caps)
        if moved_share >= 1.0 - _EPS:
            return {c.index: c.units for c in caps}

        def order(c: _FleetCap):
            cap = self._unit_capacity(c)
            committed = c.entry.pricing_model in PAID_WHETHER_USED
            end = c.entry.commitment_end or date.max
            return (committed, end, -(c.rate / cap) if cap > 0 else 0.0, c.index)

        out: dict[int, float] = {}
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
    ) -> tuple[float, float, dict[int, float]]:
        """(fleet $ this month, peak tok/s the paid units carry, paid units per line).

        Released units stop being paid, except committed ones while their term runs (unless
        ended early, ``terminated``); ``carry=False`` prices the plan once those terms are over.
        Stay releases nothing, so it pays Σ count × rate × 730.
        """
        cost = 0.0
        capacity = 0.0
        paid_units: dict[int, float] = {}
        for c in self.fleet:
            if c.entry.serves != workload:
                continue
            gone = released.get(c.index, 0.0)
            if carry and self._in_term(c, month):
                gone = terminated.get(c.index, 0.0)
            paid = c.units - gone
            cost += paid * self._billed(c) * HOURS_PER_MONTH
            capacity += paid * self._unit_capacity(c)
            paid_units[c.index] = paid
        return cost, capacity, paid_units

    def _billed(self, c: _FleetCap) -> float:
        """$ per hour of one purchasable unit (the rate is per instance or per accelerator)."""
        if c.option is not None and c.option.price_basis == "per_accelerator":
            return c.rate * c.option.accelerators_per_unit
        return c.rate

    # -- one workload, one month --------------------------------------------------------------------
    def _workload_month(
        self,
        w: Workload,
        slices: Sequence[_Slice],
        month: int,
        *,
        released: Mapping[int, float],
        terminated: Mapping[int, float],
        steady: bool = False,
    ) -> tuple[float, float, list, str]:
        """(cost, unserved output tokens, the lines, why unserved) of one workload in one month.

        ``steady``: the plan in place with the commitments it releases already ended (the
        month-1 run rate); otherwise committed capacity is paid as its term says.
        """
        base = hourly_load(w, growth_factor(w, month))
        cost, unserved, reason = 0.0, 0.0, ""
        inc_share = sum(s.share for s in slices if s.move is None)
        c_fleet, capacity, paid = self._paid_fleet(
            w.workload, month, released=released, terminated=terminated, carry=not steady
        )
        cost += c_fleet
        lines: list = [("fleet", paid)]
        residual = np.maximum(base * inc_share - capacity, 0.0)
        if inc_share > 0 and residual.max() > _EPS:
            alloc = self._allocation(INCUMBENT_KEY, "Top-up (incumbent)", None)
            c_top, top_line, why = self._market(w, alloc, residual)
            if top_line is None:
                unserved += tokens_per_month(residual)
                reason = f"{w.workload}: the fleet falls short and {why}"
            else:
                cost += c_top
                lines.append(("top-up", top_line))
        for s in slices:
            if s.move is None:
                continue
            load = base * s.share
            alloc = self._allocation(s.key, s.label, s.move)
            c_new, new_line, why = self._market(w, alloc, load)
            if new_line is None:
                unserved += tokens_per_month(load)
                reason = f"{w.workload}: {why}"
            else:
                cost += c_new
                lines.append(("new", new_line, s))
            if s.move.standby_share > 0:
                peak = float(base.max()) * w.interactive_share * s.move.standby_share
                c_sb, sb_line, _ = self._market(w, alloc, np.full(24, peak), mode="standby")
                if sb_line is not None:
                    cost += c_sb
                    lines.append(("standby", sb_line, s))
        return cost, unserved, lines, reason

    # -- slices: requested vs achieved -------------------------------------------------------------
    def _slices(self, scenario: PlanScenario) -> tuple[dict, dict, dict, list[str], list[str]]:
        """Per workload the achieved slices, plus requested / achieved shares overall and notes."""
        out: dict[str, list[_Slice]] = {}
        requested: dict[str, float] = {}
        achieved: dict[str, float] = {}
        notes: list[str] = []
        unserved: list[str] = []
        total = sum(w.output_tokens_per_month for w in self.ws.demand) or 1.0
        for w in self.ws.demand:
            weight = w.output_tokens_per_month / total
            moves = [m for m in scenario.moves if not (m.small_models_only and not w.small_model)]
            moved = sum(m.share for m in moves)
            keep = max(0.0, 1.0 - moved) if scenario.keep_fleet else 0.0
            req = [_Slice(w, INCUMBENT_KEY, "Incumbent fleet", keep, None)] if keep > 0 else []
            req += [_Slice(w, m.key, m.label, m.share, m) for m in moves]
            scale = sum(s.share for s in req)
            req = [replace(s, share=s.share / scale) for s in req] if scale > 0 else req
            ok: list[_Slice] = []
            for s in req:
                requested[s.key] = requested.get(s.key, 0.0) + s.share * weight
                if s.move is None:
                    if self.fleet_capacity(w.workload) > 0 or self._can_buy(w, s):
                        ok.append(s)
                    else:
                        notes.append(
                            f"no incumbent capacity or option for {w.model}"
                            f" ({w.workload}) meets its SLO"
                        )
                elif self._can_buy(w, s):
                    ok.append(s)
                else:
                    vendor = VENDOR_OF_BACKEND.get(s.key, s.key)
                    why = self._why(w, s)
                    notes.append(f"no {vendor} result for {w.model} ({w.workload}) — {why}")
            served = sum(s.share for s in ok)
            if not ok:
                unserved.append(f"{w.workload}: nothing approved can serve {w.model}")
            ok = [replace(s, share=s.share / served) for s in ok] if served > 0 else []
            for s in ok:
                achieved[s.key] = achieved.get(s.key, 0.0) + s.share * weight
            out[w.workload] = ok
        return out, requested, achieved, notes, unserved

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
        slices, requested, achieved, notes, unserved_why = self._slices(scenario)
        new_backends = tuple(sorted({m.key for m in scenario.moves if m.key in achieved}))
        timeline = self._timeline(new_backends)
        cutover = 1 + math.ceil(timeline.weeks_to_cutover * 7 / DAYS_PER_MONTH - _EPS)
        cutover = min(max(cutover, 1), MONTHS + 1)
        one_time, one_time_notes = self._one_time(new_backends)
        released: dict[int, float] = {}
        if not is_stay:
            for w in self.ws.demand:
                moved = 1.0 - sum(x.share for x in slices[w.workload] if x.move is None)
                if not slices[w.workload]:
                    moved = 0.0 if scenario.keep_fleet else 1.0
                released |= self._releases(w.workload, moved)
        terminated, etc_usd, etc_notes = self._terminations(released, cutover)
        one_time += etc_usd
        one_time_notes += etc_notes

        # Month-1 steady state: the plan in place, commitments it releases already ended.
        monthly, unserved, lines, reasons = 0.0, 0.0, [], list(unserved_why)
        for w in self.ws.demand:
            cost, miss, parts, why = self._workload_month(
                w, slices[w.workload], 1, released=released, terminated={}, steady=True
            )
            if not slices[w.workload]:
                miss = w.output_tokens_per_month
            monthly += cost
            unserved += miss
            if why:
                reasons.append(why)
            lines += self._plan_lines(w, parts)

        curve = []
        for m in range(1, MONTHS + 1):
            if stay is not None and m < cutover:  # a move: the fleet runs as it is until cut-over
                curve.append(stay.monthly_usd_by_month[m - 1])
                continue
            total = 0.0
            for w in self.ws.demand:
                cost, _, _, _ = self._workload_month(
                    w, slices[w.workload], m, released=released, terminated=terminated
                )
                total += cost
            curve.append(total)

        shortfall = 0.0
        if is_stay:
            for w in self.ws.demand:
                residual = np.maximum(hourly_load(w) - self.fleet_capacity(w.workload), 0.0)
                shortfall += tokens_per_month(residual)

        violations = self._violations(scenario, achieved, lines)
        risk = self._risk(lines)
        if stay is None:
            payback, sentence, savings = None, "Baseline: the fleet as it runs today.", 0.0
        else:
            savings = stay.monthly_usd - monthly
            payback, sentence = _payback(curve, stay.monthly_usd_by_month, one_time, unserved)
        plan_notes = [c.note for c in self.fleet if c.option is None]
        plan_notes.append(
            "A commitment that ends is assumed renewed at the same rate for units still needed."
        )
        return PlanResult(
            name=scenario.name,
            description=scenario.description,
            requested_allocation=_with_incumbent(requested, self.incumbent_backends),
            achieved_allocation=_with_incumbent(achieved, self.incumbent_backends),
            allocation_notes=tuple(dict.fromkeys(notes)),
            unserved_tokens_per_month=unserved,
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
        )

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
                used = part[1]
                for c in self.fleet:
                    if c.entry.serves != w.workload:
                        continue
                    e = c.entry
                    units = used.get(c.index, 0.0)
                    o = c.option
                    count = units * (
                        o.accelerators_per_unit if o and o.price_basis == "per_accelerator" else 1
                    )
                    count = int(round(count))
                    out.append(
                        PlanLine(
                            w.workload,
                            "fleet",
                            "Incumbent fleet",
                            e.provider,
                            e.region,
                            e.instance_type,
                            e.pricing_model,
                            count,
                            c.rate,
                            e.commitment_end,
                            count * c.rate * HOURS_PER_MONTH,
                            o.accelerator_id if o else "",
                            o.vendor if o else "",
                            o.backend if o else "",
                            c.unit_tok_s,
                            c.note
                            + (
                                ""
                                if count == e.count
                                else f"; {e.count - count} of {e.count} released"
                            ),
                            o.model if o else "",
                            o.precision if o else "",
                            o.bench_measured_at if o else None,
                            o.option_id if o else "",
                        )
                    )
                continue
            role, line = part[0], part[1]
            label = part[2].label if len(part) > 2 else "Top-up (incumbent)"
            if role == "top-up":
                label = "Top-up: the fleet falls short at the SLO (cheapest approved option)"
            if role == "standby":
                label += " (standby)"
            option = self._options.get(line.option_id)
            per_acc = option is not None and option.price_basis == "per_accelerator"
            per = option.accelerators_per_unit if option is not None and per_acc else 1
            prices = line.sizing.prices
            list_rate = prices.on_demand if prices.on_demand is not None else prices.committed
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
                )
            )
        return out

    def _violations(self, scenario, achieved: Mapping[str, float], lines) -> list[str]:
        c = self.ws.constraints
        out = []
        for key, share in achieved.items():
            vendor = (
                " / ".join(VENDOR_OF_BACKEND.get(b, b) for b in self.incumbent_backends)
                if key == INCUMBENT_KEY
                else VENDOR_OF_BACKEND.get(key, key)
            )
            if share > c.max_vendor_share + 1e-9:
                out.append(
                    f"{vendor} carries {share:.0%} of traffic, above the {c.max_vendor_share:.0%} cap"
                )
        for ln in lines:
            if c.providers and ln.provider not in c.providers:
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


def _with_incumbent(shares: Mapping[str, float], backends: Sequence[str]) -> dict[str, float]:
    return {INCUMBENT_KEY: shares.get(INCUMBENT_KEY, 0.0)} | {
        k: v for k, v in shares.items() if k != INCUMBENT_KEY
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
