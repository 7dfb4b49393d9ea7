"""The optimizer's problem for a workspace: candidates for every workload from the plan engine's
option table and fleet (the same at-SLO capacities, approved providers and regions and one-time
costs the scenarios use), and the company's owned servers added as options beside the cloud
options they would replace."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from costmodel.commit_levels import TERM_MODELS
from costmodel.demand import HOURS_PER_MONTH
from costmodel.market import Engine
from costmodel.optimizer_horizon import FleetPath, HorizonProblem, horizon_offers
from costmodel.optimizer_problem import HELD, HOURLY, Candidate, Problem
from costmodel.option_table import BLOCK_OR_CONTRACT, OWNED, Option
from costmodel.owned import (
    OWNED_PROVIDER,
    CloudAlternative,
    ElectricityPrice,
    OwnedRate,
    OwnedServer,
    cloud_alternatives,
    electricity_input,
    owned_options,
    owned_rates,
)
from costmodel.plan import WorkspaceEngine
from costmodel.plan_inputs import MONTHS, PAID_WHETHER_USED, growth_factor, hourly_load
from costmodel.workspace_model import Workload, Workspace


def workspace_problem(
    planner: WorkspaceEngine,
    *,
    max_vendor_share: float | None = None,
    n_plus_one: bool = False,
    horizon_months: int = MONTHS,
) -> Problem:
    """Candidates for every workload from the planner's option table and fleet, with the same
    at-SLO capacities, approved providers / regions and one-time costs the scenarios use."""
    ws = planner.ws
    allowed = _pricing_models_allowed(planner)
    cands: list[Candidate] = []
    loads: dict[str, tuple[float, ...]] = {}
    for w in ws.demand:
        loads[w.workload] = tuple(float(v) for v in hourly_load(w))
        cands += _market_candidates(planner, w, allowed)
    cands += _fleet_candidates(planner, horizon_months)
    new_backends = {c.backend for c in cands} - set(planner.incumbent_backends)
    per_backend = {b: planner._one_time([b])[0] for b in sorted(new_backends)}
    return Problem(
        loads=loads,
        candidates=tuple(cands),
        max_vendor_share=(
            ws.constraints.max_vendor_share if max_vendor_share is None else max_vendor_share
        ),
        n_plus_one=n_plus_one,
        one_time_usd_by_backend=per_backend,
        horizon_months=horizon_months,
    )


def _owned_allowed(planner: WorkspaceEngine) -> bool:
    return planner.ws.constraints.allow_owned and planner.ws.owned is not None


def _pricing_models_allowed(planner: WorkspaceEngine) -> set[str]:
    """The pricing models new capacity may be bought on besides on-demand: the policy's
    commitments, contracts where allowed, and owned servers where the workspace has them."""
    policy = planner.policy
    allowed = set(policy.commitments) | (
        set(BLOCK_OR_CONTRACT) if policy.allow_block_or_contract else set()
    )
    if _owned_allowed(planner):
        allowed.add(OWNED)
    return allowed


def _market_candidates(planner: WorkspaceEngine, w: Workload, allowed: set[str]) -> list[Candidate]:
    """The cheapest approved option of each configuration and pricing model that serves ``w``
    at its SLO, as candidates for new capacity."""
    ws, engine, policy = planner.ws, planner.engine, planner.policy
    t = engine.table
    seg = planner.segments[w.workload]
    alloc = planner._allocation("optimal", "Optimal", None)
    alloc = replace(alloc, backends=None)
    if _owned_allowed(planner) and ws.owned is not None:
        alloc = _with_owned_site(alloc, ws.owned.site_region)
    gm = engine.group_mask(seg, alloc, "interactive", policy)
    _, cap_i, _ = engine.segment_capacity(seg)
    ok_group = gm & np.isfinite(cap_i) & (cap_i > 0)
    # Estimated capacity is bought only for a workload no measured option serves: where a
    # measured result serves it, that is what the cheapest plan rests on. (The scenarios' backend
    # shares may still open a backend no result reaches, each such line marked estimated.)
    estimated = np.array(
        [t.options[int(engine.rep[g])].basis == "estimated" for g in range(engine.n_groups)],
        dtype=bool,
    )
    if (ok_group & ~estimated).any():
        ok_group &= ~estimated
    labels = t.pricing_model.labels
    codes = t.pricing_model.codes
    best: dict[tuple[int, str], int] = {}
    for i in np.flatnonzero(ok_group[t.group]).tolist():
        model = labels[codes[i]]
        if model != "on_demand" and model not in allowed:
            continue
        key = (int(t.group[i]), model)
        j = best.get(key)
        if j is None or t.price[i] < t.price[j]:
            best[key] = i
    cands: list[Candidate] = []
    for (g, model), i in best.items():
        o = t.options[i]
        if o.backend == "cpu" and not w.small_model:
            continue  # a CPU fallback serves small models only (as in the scenarios)
        unit_cap = float(cap_i[g]) * policy.utilisation_cap * policy.availability
        per = o.accelerators_per_unit if o.price_basis == "per_accelerator" else 1
        rate = float(t.price[i])
        # One pricing basis with every plan: on-demand capacity follows the hourly load only
        # where the workspace says it does; otherwise it is held, and paid, all month.
        hourly = model == "on_demand" and planner.autoscaled
        cands.append(
            Candidate(
                workload=w.workload,
                kind=HOURLY if hourly else HELD,
                role="new",
                provider=o.provider,
                region=o.region,
                instance_type=o.instance_type,
                pricing_model=model,
                backend=o.backend,
                unit_capacity=unit_cap,
                usd_per_unit=rate if hourly else rate * HOURS_PER_MONTH,
                accelerator_id=o.accelerator_id,
                option_id=o.option_id,
                count_per_unit=per,
                note=f"{float(cap_i[g]):,.0f} output tok/s per unit at {seg.slo.describe()}"
                f" ({o.model}, {o.precision}, {o.runtime})"
                + (OWNED_NOTE if model == OWNED else ""),
            )
        )
    return cands


def _fleet_candidates(planner: WorkspaceEngine, horizon_months: int) -> list[Candidate]:
    """Each fleet line as a candidate that may be kept whole or in part; a released unit still
    costs its rate while its commitment runs (or its termination fee over the horizon)."""
    cands: list[Candidate] = []
    for c in planner.fleet:
        e = c.entry
        per_count_cap = (
            planner._unit_capacity(c) * c.units / e.count if e.count and c.option else 0.0
        )
        month_rate = c.rate * HOURS_PER_MONTH
        release = 0.0
        if e.pricing_model in PAID_WHETHER_USED and planner._in_term(c, 1):
            release = month_rate
            if e.early_termination_usd is not None:
                release = min(release, e.early_termination_usd / e.count / horizon_months)
        cands.append(
            Candidate(
                workload=e.serves,
                kind=HELD,
                role="fleet",
                provider=e.provider,
                region=e.region,
                instance_type=e.instance_type,
                pricing_model=e.pricing_model,
                backend=c.backend if c.backend != "unknown" else planner.incumbent_backends[0],
                unit_capacity=per_count_cap,
                usd_per_unit=month_rate,
                max_units=e.count,
                release_usd_per_unit_month=release,
                accelerator_id=c.option.accelerator_id if c.option else "",
                option_id=c.option.option_id if c.option else "",
                fleet_index=c.index,
                commitment_end=e.commitment_end,
                note=c.note,
            )
        )
    return cands


# ---- owned hardware ----------------------------------------------------------------------------
OWNED_NOTE = (
    "; an owned server priced at its total cost of ownership (capital, power × PUE, colocation,"
    " staff), paid every hour of its depreciation horizon; the operating points are the same"
    " hardware's measured on a cloud instance"
)


def _with_owned_site(alloc, site_region: str):
    """The allocation widened to the company's own servers at its site."""
    providers = alloc.providers and (*alloc.providers, OWNED_PROVIDER)
    regions = alloc.regions and (*alloc.regions, site_region)
    return replace(alloc, providers=providers, regions=regions)


@dataclass(frozen=True)
class OwnedComparison:
    """An owned server beside the cloud options with the same accelerators."""

    rate: OwnedRate
    #: The cheapest approved cloud option with the same accelerator per pricing model, cheapest
    #: first (instances and per-accelerator quotes alike).
    cloud: tuple[CloudAlternative, ...]


def with_owned(
    engine: Engine,
    ws: Workspace,
    servers: Sequence[OwnedServer],
    electricity: Sequence[ElectricityPrice],
) -> tuple[Engine, tuple[OwnedComparison, ...]]:
    """The engine with the workspace's owned servers added as options (when it allows owned
    hardware), and each server beside the cheapest cloud options it would replace."""
    if not ws.constraints.allow_owned or ws.owned is None:
        return engine, ()
    rates = owned_rates(servers, ws.owned, electricity_input(ws.owned, electricity))
    extra = owned_options(engine.table, rates, ws.owned.site_region)
    comparisons = tuple(
        OwnedComparison(r, cloud_alternatives(engine.table.options, r, ws.constraints.providers))
        for r in rates
    )
    return Engine(engine.table.with_options(extra)), comparisons


# ---- the horizon ---------------------------------------------------------------------------------
def horizon_problem(
    planner: WorkspaceEngine, *, max_vendor_share: float | None = None
) -> HorizonProblem:
    """The optimizer-over-time's problem for a workspace (``costmodel.optimizer_horizon``): the
    month-1 candidates, each month's loads with growth, the fleet's commitments to their real end
    and then as ``commitment.at_end`` says, committed terms where a rate is known, and each new
    backend from its cut-over month."""
    ws = planner.ws
    month1 = workspace_problem(planner, max_vendor_share=max_vendor_share)
    loads = {
        w.workload: tuple(
            tuple(float(v) for v in hourly_load(w, growth_factor(w, t)))
            for t in range(1, MONTHS + 1)
        )
        for w in ws.demand
    }
    market = [c for c in month1.candidates if c.role == "new"]
    first_month = {
        b: planner.cutover_month(planner._timeline((b,)))
        for b in {c.backend for c in market} - set(planner.incumbent_backends)
    }
    fleet = []
    for c in month1.candidates:
        if c.role != "fleet" or c.fleet_index is None:
            continue
        cap = planner.fleet[c.fleet_index]
        e = cap.entry
        rates = tuple(
            planner._billed_in(cap, t) / planner._billed(cap) * c.usd_per_unit
            if planner._billed(cap) > 0
            else c.usd_per_unit
            for t in range(1, MONTHS + 1)
        )
        in_term = tuple(planner._in_term(cap, t) for t in range(1, MONTHS + 1))
        fee = (
            e.early_termination_usd / e.count
            if e.early_termination_usd is not None and e.count
            else None
        )
        fleet.append(FleetPath(c, e.count, rates, in_term, fee))
    return HorizonProblem(
        loads=loads,
        offers=horizon_offers(market, _term_shares(planner, market), first_month),
        fleet=tuple(fleet),
        max_vendor_share=month1.max_vendor_share,
        one_time_usd_by_backend=month1.one_time_usd_by_backend,
        discount_rate_per_year=ws.commitment.discount_rate_per_year,
    )


def _term_shares(planner: WorkspaceEngine, market: Sequence[Candidate]) -> dict:
    """A 1- or 3-year commitment on each on-demand candidate's SKU as a share of its on-demand
    rate: the price list's committed price, else the fleet's own effective rate for the same SKU
    and term, else the workspace's stated discount (none: no commitment). A share, not dollars:
    options of one SKU price different units (an estimated option on a per-accelerator quote
    holds one replica's accelerators), so each candidate applies it to its own unit's rate."""
    stated = {"1y": planner.ws.commitment.discount_1y, "3y": planner.ws.commitment.discount_3y}
    out: dict[tuple[str, str, str, str], float] = {}
    for c in market:
        if c.pricing_model != "on_demand":
            continue
        sku = (c.provider, c.region, c.instance_type)
        same = [
            o
            for o in planner.engine.table.options
            if (o.provider, o.region, o.instance_type) == sku
        ]
        on_demand = [_per_accelerator(o) for o in same if o.pricing_model == "on_demand"]
        for term, models in TERM_MODELS.items():
            ratios = [
                _per_accelerator(o) / min(on_demand)
                for o in same
                if on_demand and o.pricing_model in models
            ]
            ratios += [
                f.rate / f.list_rate
                for f in planner.fleet
                if (f.entry.provider, f.entry.region, f.entry.instance_type) == sku
                and f.entry.pricing_model in models
                and f.list_rate
            ]
            discount = stated[term]
            if not ratios and discount is not None:
                ratios = [1.0 - discount]
            if ratios:
                out[(*sku, term)] = min(ratios)
    return out


def _per_accelerator(o: Option) -> float:
    """An option's $/hour per accelerator: its options of one SKU compare on one unit."""
    return o.usd_per_unit_hour / max(o.accelerators_per_unit, 1)
