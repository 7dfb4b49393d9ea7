"""The commitment analysis for a workspace: per workload, the unit its fleet runs on, that unit's
at-SLO capacity, its on-demand and committed rates (each with where it comes from) and the demand
scenarios, handed to ``costmodel.commit_levels``."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from costmodel.commit_levels import (
    HORIZON_MONTHS,
    CommitmentProblem,
    CommitmentResult,
    HeldCommitment,
    default_scenarios,
    evaluate,
    hidden_levels_note,
    option_rows,
    recommendation_sentence,
    terms_from,
)
from costmodel.demand import HOURS_PER_MONTH
from costmodel.plan import WorkspaceEngine
from costmodel.plan_inputs import PAID_WHETHER_USED, hourly_load
from tokendesk.labels import sku_label
from tokendesk.records import PricingModel

#: Committed pricing models by term, as the option table and the fleet spell them.
TERM_MODELS = {
    "1y": (
        PricingModel.RESERVED_1Y.value,
        PricingModel.SAVINGS_PLAN_1Y.value,
        PricingModel.COMMITTED_USE_1Y.value,
    ),
    "3y": (
        PricingModel.RESERVED_3Y.value,
        PricingModel.SAVINGS_PLAN_3Y.value,
        PricingModel.COMMITTED_USE_3Y.value,
    ),
}
TERM_MONTHS = {"1y": 12, "3y": 36}


@dataclass(frozen=True)
class WorkloadCommitment:
    workload: str
    provider: str = ""
    region: str = ""
    instance_type: str = ""
    #: Peak output tok/s one unit carries at the SLO (after utilisation cap and availability).
    unit_output_tok_s: float = 0.0
    on_demand_basis: str = ""
    result: CommitmentResult | None = None
    #: Why there is no result, or what was left out (a term without a price).
    notes: tuple[str, ...] = ()
    #: True where the workspace states no scenarios and the default low/base/high is used.
    default_scenarios: bool = False


def _rate(planner: WorkspaceEngine, provider: str, region: str, instance: str, models) -> tuple:
    """(cheapest $ per unit-hour, basis) under ``models``: the price list, else a fleet line."""
    found: list[tuple[float, str]] = []
    for o in planner.engine.table.options:
        if (
            o.provider == provider
            and o.region == region
            and o.instance_type == instance
            and o.pricing_model in models
        ):
            found.append((o.usd_per_unit_hour, f"{o.pricing_model} list price"))
    for c in planner.fleet:
        e = c.entry
        if (e.provider, e.region, e.instance_type) == (provider, region, instance) and (
            e.pricing_model in models
        ):
            found.append((planner._billed(c), f"the fleet's {e.pricing_model} effective rate"))
    return min(found) if found else (None, "")


def _held(
    planner: WorkspaceEngine, workload: str, capacity: float, months: int = HORIZON_MONTHS
) -> tuple[tuple[HeldCommitment, ...], tuple[float, ...], tuple[float, ...]]:
    """The workload's committed fleet lines (paid whether used or not), and per month of the
    horizon the units they hold (in the analysed unit's capacity) and what they cost."""
    held: list[HeldCommitment] = []
    units = np.zeros(months)
    usd = np.zeros(months)
    for c in planner.fleet:
        e = c.entry
        if e.serves != workload or e.pricing_model not in PAID_WHETHER_USED:
            continue
        in_term = np.array([planner._in_term(c, m) for m in range(1, months + 1)])
        if not in_term.any():
            continue
        equivalent = c.units * planner._unit_capacity(c) / capacity
        monthly = c.units * planner._billed(c) * HOURS_PER_MONTH
        units += np.where(in_term, equivalent, 0.0)
        usd += np.where(in_term, monthly, 0.0)
        line = sku_label(e.provider, e.region, e.instance_type, e.pricing_model)
        held.append(HeldCommitment(line, e.count, equivalent, e.commitment_end, monthly))
    return tuple(held), tuple(float(u) for u in units), tuple(float(v) for v in usd)


def workspace_commitments(planner: WorkspaceEngine) -> list[WorkloadCommitment]:
    """The analysis for every workload of the planner's workspace (see the module docstring)."""
    ws = planner.ws
    out = []
    for w in ws.demand:
        lines = [
            c
            for c in planner.fleet
            if c.entry.serves == w.workload and c.option is not None and c.unit_tok_s > 0
        ]
        if not lines:
            out.append(
                WorkloadCommitment(
                    w.workload,
                    notes=(
                        "no fleet line with a benchmark result at the SLO: nothing to size the"
                        " commitment in",
                    ),
                )
            )
            continue
        # The line that carries most of the workload is the unit a commitment would buy.
        main = max(lines, key=lambda c: c.units * planner._unit_capacity(c))
        e = main.entry
        capacity = planner._unit_capacity(main)
        where = (e.provider, e.region, e.instance_type)
        on_demand, od_basis = _rate(planner, *where, (PricingModel.ON_DEMAND.value,))
        if on_demand is None:
            out.append(
                WorkloadCommitment(
                    w.workload,
                    *where,
                    capacity,
                    notes=(f"no on-demand price for {e.instance_type} in {e.region}",),
                )
            )
            continue
        committed = [
            (term, TERM_MONTHS[term], *_rate(planner, *where, models))
            for term, models in TERM_MODELS.items()
        ]
        c = ws.commitment
        terms, missing = terms_from(
            on_demand, committed, {"1y": c.discount_1y, "3y": c.discount_3y}
        )
        if not terms:
            out.append(
                WorkloadCommitment(w.workload, *where, capacity, od_basis, notes=tuple(missing))
            )
            continue
        units = np.asarray(hourly_load(w), dtype=float) / capacity
        held, held_units, held_usd = _held(planner, w.workload, capacity)
        problem = CommitmentProblem(
            on_demand_usd_per_unit_hour=on_demand,
            terms=terms,
            units_by_hour=tuple(float(u) for u in units),
            growth_per_quarter=w.growth_per_quarter,
            scenarios=c.scenarios or default_scenarios(w.growth_per_quarter),
            held_units_by_month=held_units if held else (),
            held_usd_by_month=held_usd if held else (),
            held_commitments=held,
        )
        out.append(
            WorkloadCommitment(
                w.workload,
                *where,
                capacity,
                od_basis,
                evaluate(problem),
                tuple(missing),
                default_scenarios=not c.scenarios,
            )
        )
    return out


def brief_rows(analysis: list[WorkloadCommitment]) -> tuple[list[dict], list[str]]:
    """What a brief section prints: one row per workload × option, and one sentence per
    workload (the recommendation, or why there is none)."""
    rows: list[dict] = []
    sentences: list[str] = []
    for a in analysis:
        if a.result is None:
            sentences.append(f"{a.workload}: no commitment analysis — {'; '.join(a.notes)}.")
            continue
        hidden = hidden_levels_note(a.result)
        sentences.append(
            recommendation_sentence(a.workload, a.result)
            + (f" {hidden[0].upper()}{hidden[1:]}." if hidden else "")
        )
        sentences += [f"{a.workload}: {note}." for note in a.notes]
        rows += [{"workload": a.workload, **row} for row in option_rows(a.result, every=False)]
    return rows, sentences
