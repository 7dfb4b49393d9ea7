"""The company's fleet as the reference elsewhere: what it pays per SKU and per accelerator-hour,
for futures day's suggestions and the regression gate's reference price."""

from __future__ import annotations

from dataclasses import dataclass

from costmodel import Engine
from costmodel.workspace_model import Workspace
from planning.context import planner_for


@dataclass(frozen=True)
class FleetRate:
    """A SKU the company runs and the rate it pays (same basis as the SKU's list price)."""

    provider: str
    instance_type: str
    usd_per_hour: float
    label: str
    region: str = ""
    pricing_model: str = ""
    count: int = 0
    #: The models the line's workload runs (its model and the results that stand in for it);
    #: empty = any model (a line whose workload is not known).
    models: tuple[str, ...] = ()
    #: True when the line pays the current list price (no rate of its own in the workspace), so a
    #: list price move changes what it costs.
    list_priced: bool = False


def fleet_rates(engine: Engine, ws: Workspace):
    """The SKUs the company runs at the rates it pays, for the futures day's suggestions."""
    planner = planner_for(engine, ws)
    models = {w.workload: w.models for w in ws.demand}
    out = []
    for cap in planner.fleet:
        e = cap.entry
        out.append(
            FleetRate(
                e.provider,
                e.instance_type,
                cap.rate,
                f"your fleet: {e.label} at ${cap.rate:,.2f}/h",
                region=e.region,
                pricing_model=e.pricing_model,
                count=e.count,
                models=models.get(e.serves, ()),
                list_priced=e.usd_per_hour is None,
            )
        )
    return tuple(out)


def fleet_accelerator_hour_prices(engine: Engine, ws: Workspace) -> dict[str, float]:
    """$ per accelerator-hour the company pays for each accelerator it runs (count-weighted over
    its fleet lines), the gate's reference price for those accelerators."""
    planner = planner_for(engine, ws)
    paid: dict[str, float] = {}
    hours: dict[str, float] = {}
    for cap in planner.fleet:
        option = cap.option
        if option is None or option.accelerators_per_unit <= 0:
            continue
        per_acc = planner._billed(cap) / option.accelerators_per_unit
        accelerators = cap.units * option.accelerators_per_unit
        paid[option.accelerator_id] = paid.get(option.accelerator_id, 0.0) + per_acc * accelerators
        hours[option.accelerator_id] = hours.get(option.accelerator_id, 0.0) + accelerators
    return {acc: paid[acc] / hours[acc] for acc in paid if hours[acc] > 0}
