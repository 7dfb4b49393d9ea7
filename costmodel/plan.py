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

The engine is one class, ``WorkspaceEngine``, written in layers, one module each:
``plan_fleet`` (the fleet's lines: rates, at-SLO capacity, units given back, what held units
cost), ``plan_allocation`` (what a plan asks of each workload, and the market lines that carry
it), ``plan_monthly`` (one workload in one month, the 36-month curve, payback and savings against
Stay), ``plan_lines`` (the plan read as fleet lines, shapes, constraint breaches and risk) and this
module (the evaluation that puts them together, one-time costs and the timeline). What a plan
starts from is in ``plan_inputs``; what it returns in ``plan_result``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import replace

import numpy as np

from costmodel.commit_levels import AT_END
from costmodel.plan_allocation import WorkloadPlan
from costmodel.plan_inputs import (
    DAYS_PER_MONTH,
    EPS,
    MONTHS,
    UNSERVED_KEY,
    PlanScenario,
    hourly_load,
    tokens_per_month,
)
from costmodel.plan_lines import PlanReading
from costmodel.plan_monthly import MonthCost, MonthlyCost, against_stay
from costmodel.plan_result import ON_DEMAND_BASIS_NOTES, PlanLine, PlanResult
from costmodel.timeline import StageGate, Timeline, plan_timeline


class WorkspaceEngine(MonthlyCost, PlanReading):
    """Evaluate scenarios for one workspace over an option table (see the module docstring)."""

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
        plans = {w.workload: self._plan(scenario, w) for w in self.ws.demand}
        weight = self._traffic_weights()
        requested: dict[str, float] = {}
        for w in self.ws.demand:
            for b, v in plans[w.workload].requested.items():
                requested[b] = requested.get(b, 0.0) + v * weight[w.workload]
        notes = [n for wp in plans.values() for n in wp.notes]
        new_backends = self._new_backends(plans)
        timeline = self._timeline(new_backends)
        cutover = self.cutover_month(timeline)
        porting_usd, one_time_notes = self._one_time(new_backends)
        released: dict[int, float] = {}
        for wp in plans.values():
            released |= wp.released
        terminated, etc_usd, etc_notes = self._terminations(released, cutover)
        one_time = porting_usd + etc_usd
        month1, lines, reasons, served = self._month_one(plans, weight)
        curve, steady_curve = self._curves(plans, stay, cutover, terminated)
        saving = against_stay(stay, month1, curve, steady_curve, cutover, porting_usd, etc_usd)
        one_time_by_month = [0.0] * MONTHS
        one_time_by_month[0] += porting_usd  # the porting work starts now
        one_time_by_month[min(cutover, MONTHS) - 1] += etc_usd  # ended at cut-over
        return PlanResult(
            name=scenario.name,
            description=scenario.description,
            requested_allocation=_rounded_shares(requested),
            achieved_allocation=_rounded_shares(served),
            allocation_notes=tuple(dict.fromkeys(notes)),
            unserved_tokens_per_month=month1.unserved,
            unserved_reasons=tuple(dict.fromkeys(reasons)),
            monthly_usd=month1.total,
            monthly_usd_by_month=tuple(curve),
            one_time_usd=one_time,
            one_time_notes=tuple(one_time_notes + etc_notes),
            payback_month=saving.payback_month,
            payback_sentence=saving.payback_sentence,
            fleet=tuple(lines),
            risk=self._risk(lines),
            timeline=timeline,
            cutover_month=cutover if not is_stay else 1,
            constraint_violations=tuple(self._violations(served, lines)),
            notes=tuple(self._plan_notes()),
            fleet_shortfall_tokens_per_month=self._fleet_shortfall() if is_stay else 0.0,
            savings_vs_stay_usd=saving.usd,
            is_baseline=is_stay,
            requested_share=sum(plans[k].requested_new * weight[k] for k in plans),
            achieved_share=sum(plans[k].new_share * weight[k] for k in plans),
            savings_parts=saving.parts,
            horizon_savings_parts=saving.horizon_parts,
            workload_shapes=tuple(self._shape(w, lines) for w in self.ws.demand),
            on_demand_basis=self.ws.on_demand_basis,
            stranded_usd_per_month=self._stranded_usd(released, terminated),
            month1_parts=(
                ("fleet", month1.fleet_usd),
                ("top-up", month1.topup_usd),
                ("new", month1.new_usd),
            ),
            one_time_usd_by_month=tuple(one_time_by_month),
            discount_rate_per_year=self.ws.commitment.discount_rate_per_year,
        )

    @staticmethod
    def cutover_month(timeline: Timeline) -> int:
        """The first month the new backends carry traffic (MONTHS + 1: not within the horizon)."""
        cutover = 1 + math.ceil(timeline.weeks_to_cutover * 7 / DAYS_PER_MONTH - EPS)
        return min(max(cutover, 1), MONTHS + 1)

    def _traffic_weights(self) -> dict[str, float]:
        """Each workload's share of all output tokens (what the plan's shares are weighted by)."""
        total_out = sum(w.output_tokens_per_month for w in self.ws.demand) or 1.0
        return {w.workload: w.output_tokens_per_month / total_out for w in self.ws.demand}

    def _new_backends(self, plans: Mapping[str, WorkloadPlan]) -> tuple[str, ...]:
        """Backends the plan buys on that the fleet does not run yet (each needs a port)."""
        return tuple(
            sorted(
                {
                    s.key
                    for wp in plans.values()
                    for s in wp.slices
                    if s.move is not None and s.key not in self.fleet_backends
                }
            )
        )

    def _month_one(
        self, plans: Mapping[str, WorkloadPlan], weight: Mapping[str, float]
    ) -> tuple[MonthCost, list[PlanLine], list[str], dict[str, float]]:
        """Month-1 steady state, the plan in place and the commitments it releases already ended:
        (its cost, its fleet lines, why demand is unserved, the share each backend serves)."""
        month1 = MonthCost()
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
        return month1, lines, reasons, served

    def _fleet_shortfall(self) -> float:
        """Output tokens per month the fleet as it is cannot serve at month 1 (Stay only)."""
        shortfall = 0.0
        for w in self.ws.demand:
            residual = np.maximum(hourly_load(w) - self.fleet_capacity(w.workload), 0.0)
            shortfall += tokens_per_month(residual)
        return shortfall

    def _plan_notes(self) -> list[str]:
        plan_notes = [c.note for c in self.fleet if c.option is None]
        plan_notes.append(commitment_note(self.ws.commitment.at_end))
        rate = self.ws.commitment.discount_rate_per_year
        plan_notes.append(
            f"The horizon total is discounted at {rate:.1%} a year (month m × 1/(1+r)^((m−1)/12))."
            if rate
            else "The horizon total is the plain sum of the 36 months and the one-time costs"
            " (no discount rate stated: commitment.discount_rate_per_year)."
        )
        plan_notes.append(ON_DEMAND_BASIS_NOTES[self.ws.on_demand_basis])
        return plan_notes

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
            from costmodel.bundled_tables import stage_gates

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


def commitment_note(at_end: str) -> str:
    """The workspace's one commitment assumption, in the words every plan carries."""
    return (
        f"A commitment the fleet holds is, when it ends, {AT_END[at_end]} (commitment.at_end:"
        f" {at_end}), in Stay, every plan, Optimal and commit alike."
    )


def _rounded_shares(shares: Mapping[str, float]) -> dict[str, float]:
    """Shares above rounding noise, largest first."""
    return dict(sorted(((k, v) for k, v in shares.items() if v > 1e-9), key=lambda kv: -kv[1]))
