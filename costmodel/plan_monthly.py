"""What a plan costs month by month: one workload in one month (the fleet it holds, top-ups,
new capacity and what stays unserved), the 36-month curve, early terminations of released
commitments, and the payback month against Stay (``MonthlyCost``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from costmodel.demand import HOURS_PER_MONTH
from costmodel.plan_allocation import FLEET_KEY, PlanAllocation, WorkloadPlan
from costmodel.plan_inputs import (
    EPS,
    MONTHS,
    PAID_WHETHER_USED,
    growth_factor,
    hourly_load,
    tokens_per_month,
)
from costmodel.plan_result import PlanResult, stay_month1_parts
from costmodel.workspace_model import Workload


@dataclass
class MonthCost:
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

    def add(self, other: MonthCost) -> None:
        self.fleet_usd += other.fleet_usd
        self.topup_usd += other.topup_usd
        self.new_usd += other.new_usd
        self.unserved += other.unserved


class MonthlyCost(PlanAllocation):
    """The monthly half of the plan engine (see ``costmodel.plan``)."""

    # -- one workload, one month --------------------------------------------------------------------
    def _workload_month(
        self,
        w: Workload,
        wp: WorkloadPlan,
        month: int,
        *,
        terminated: Mapping[int, float],
        steady: bool = False,
    ) -> MonthCost:
        """What one workload costs and who serves it in one month.

        ``steady``: the plan in place with the commitments it releases already ended (the
        month-1 run rate); otherwise committed capacity is paid as its term says.
        """
        base = hourly_load(w, growth_factor(w, month))
        out = MonthCost()
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
        if capacity > EPS:
            carried = tokens_per_month(np.minimum(load_fleet, capacity))
            for backend, cap in by_backend.items():
                out.serve(backend, carried * cap / capacity)
        residual = np.maximum(load_fleet - capacity, 0.0)
        if wp.fleet_share > 0 and residual.max() > EPS:
            alloc = self._allocation(FLEET_KEY, "Top-up (the fleet's own vendors)", None)
            c_top, top_line, why = self._market(w, alloc, residual)
            if top_line is None:
                out.unserved += tokens_per_month(residual)
                out.reason = f"{w.workload}: the fleet falls short and {why}"
            else:
                out.topup_usd += c_top
                out.parts.append(("top-up", top_line))
                out.serve(top_line.backend, tokens_per_month(residual))
        if wp.refused_share > EPS:
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

    def _curves(
        self,
        plans: Mapping[str, WorkloadPlan],
        stay: PlanResult | None,
        cutover: int,
        terminated: Mapping[int, float],
    ) -> tuple[list[float], list[float]]:
        """The plan's cost in each month of the horizon, and the same with the commitments it
        releases already ended (``steady``; Stay's own curve when there is no Stay to compare)."""
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
        return curve, steady_curve

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


def find_payback(
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


@dataclass(frozen=True)
class Saving:
    """A plan against Stay: its payback, its month-1 saving and both savings in named parts."""

    payback_month: int | None
    payback_sentence: str
    usd: float
    parts: tuple[tuple[str, float], ...] = ()
    horizon_parts: tuple[tuple[str, float], ...] = ()


def against_stay(
    stay: PlanResult | None,
    month1: MonthCost,
    curve: Sequence[float],
    steady_curve: Sequence[float],
    cutover: int,
    porting_usd: float,
    etc_usd: float,
) -> Saving:
    """What the plan saves against Stay (nothing when it is Stay): month 1 by kind of cost, and
    the horizon from cut-over on, one-time costs included."""
    if stay is None:
        return Saving(None, "Baseline: the fleet as it runs today.", 0.0)
    one_time = porting_usd + etc_usd
    payback, sentence = find_payback(curve, stay.monthly_usd_by_month, one_time, month1.unserved)
    base = stay_month1_parts(stay)
    parts = (
        ("Fleet capacity given back", base["fleet"] - month1.fleet_usd),
        ("Top-ups the fleet needs", base["top-up"] - month1.topup_usd),
        ("New capacity bought", base["new"] - month1.new_usd),
    )
    after = range(cutover - 1, MONTHS)
    horizon_parts = (
        (
            f"Run-rate saving from cut-over (month {min(cutover, MONTHS)}) to month {MONTHS}",
            sum(stay.monthly_usd_by_month[i] - steady_curve[i] for i in after),
        ),
        (
            "Released commitments still paid until their term ends",
            sum(steady_curve[i] - curve[i] for i in after),
        ),
        ("Porting and certification (one-time)", -porting_usd),
        ("Early termination fees (one-time)", -etc_usd),
    )
    return Saving(payback, sentence, stay.monthly_usd - month1.total, parts, horizon_parts)
