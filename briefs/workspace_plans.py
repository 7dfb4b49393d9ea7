"""The one path from a workspace to its scenario comparison, shared by the command line, the
dashboard's Scenarios and Overview pages, the futures day and the gate: read the workspace (a
YAML file, or the warehouse's current version, or the bundled example), build the cost engine from
the current prices and results, evaluate the built-in scenarios, and render them."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import yaml

from costmodel import Engine, FleetPolicy
from costmodel import scenario_inputs as si
from costmodel.plan import (
    PlanContext,
    PlanResult,
    PlanScenario,
    WorkspaceEngine,
    builtin_plans,
    cheapest,
    custom_plan,
)
from costmodel.scenarios import MigrationInputs
from costmodel.workspace import Workspace, WorkspaceError, workspace_from_dict, workspace_to_dict
from warehouse import Warehouse, queries
from warehouse.workspaces import current_workspace, example_workspace_body, save_workspace


class WorkspaceFileError(ValueError):
    """A workspace file could not be read; the message names the file and the field."""


def parse_workspace_text(text: str, source: str) -> tuple[Workspace, dict]:
    try:
        body = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise WorkspaceFileError(f"{source}: not valid YAML ({exc})") from None
    try:
        return workspace_from_dict(body), body
    except WorkspaceError as exc:
        raise WorkspaceFileError(f"{source}: {exc.where}: {exc.message}") from None


def read_workspace_file(path: Path) -> tuple[Workspace, dict]:
    if not path.exists():
        raise WorkspaceFileError(f"{path}: file not found")
    return parse_workspace_text(path.read_text(encoding="utf-8"), str(path.name))


def example_workspace() -> Workspace:
    return workspace_from_dict(example_workspace_body())


def stored_workspace(warehouse: Warehouse) -> tuple[int | None, Workspace]:
    """The warehouse's current workspace (version, workspace); the bundled example if none."""
    hit = current_workspace(warehouse)
    if hit is None:
        return None, example_workspace()
    version, body = hit
    return version, workspace_from_dict(body)


def engine_for(warehouse: Warehouse) -> Engine:
    return Engine.from_frame(queries.cost_options(warehouse, sort=None))


@dataclass(frozen=True)
class Knobs:
    """The scenario inputs beyond the workspace (URL keys on the Scenarios page)."""

    amd_share: float = 0.25
    cpu_share: float = 0.10
    custom: tuple[tuple[str, float], ...] = ()
    loaded_usd_per_engineer_week: float = 5000.0
    utilisation_cap: float = 0.8
    #: One-time cost per new backend (e.g. from a portability audit), overriding the estimate.
    one_time_usd_by_backend: tuple[tuple[str, float], ...] = ()


#: URL keys that change the workspace's demand for a what-if (every workload alike).
DEMAND_OVERRIDES = {"peak": "peak_to_mean", "inter": "interactive_share", "slo": "ttft_ms"}


@dataclass(frozen=True)
class ScenarioView:
    workspace: Workspace
    knobs: Knobs
    notices: tuple[str, ...]
    #: What-ifs applied on top of the stored workspace, as URL key -> value.
    overrides: dict


def scenario_view(params: Mapping, ws: Workspace) -> ScenarioView:
    """Validated URL what-ifs on top of the workspace; a bad value falls back with a notice."""
    inputs, notices = si.from_params(params)
    present = {k for k in params if k in DEMAND_OVERRIDES}
    good = {k for k in present if not any(n.startswith(f"Ignored {k}=") for n in notices)}
    overrides = {k: getattr(inputs, k) for k in sorted(good)}
    demand = tuple(
        replace(w, **{DEMAND_OVERRIDES[k]: float(v) for k, v in overrides.items()})
        for w in ws.demand
    )
    custom = si.parse_custom(inputs.custom) if inputs.custom else ()
    knobs = Knobs(
        amd_share=inputs.amd,
        cpu_share=inputs.cpu,
        custom=custom,
        loaded_usd_per_engineer_week=inputs.rate,
        utilisation_cap=inputs.util,
    )
    return ScenarioView(replace(ws, demand=demand), knobs, tuple(notices), overrides)


def check_workspace(engine: Engine, ws: Workspace) -> WorkspaceEngine:
    """Raises WorkspaceError when a fleet line has neither a rate nor a current list price."""
    return WorkspaceEngine(engine, PlanContext(ws))


def compare(engine: Engine, ws: Workspace, knobs: Knobs | None = None) -> tuple[PlanResult, ...]:
    knobs = knobs or Knobs()
    ctx = PlanContext(
        ws,
        policy=FleetPolicy(utilisation_cap=knobs.utilisation_cap),
        migration=MigrationInputs(loaded_usd_per_engineer_week=knobs.loaded_usd_per_engineer_week),
        one_time_usd_by_backend=dict(knobs.one_time_usd_by_backend),
    )
    planner = WorkspaceEngine(engine, ctx)
    plans: list[PlanScenario] = list(builtin_plans(knobs.amd_share, knobs.cpu_share))
    if knobs.custom:
        plans.append(custom_plan(knobs.custom, planner.incumbent_backends))
    return planner.evaluate(plans)


def import_workspace(warehouse: Warehouse, path: Path) -> int:
    """Validate a YAML file whole (fields, then rates against current prices) and append it."""
    ws, body = read_workspace_file(path)
    try:
        check_workspace(engine_for(warehouse), ws)
    except WorkspaceError as exc:
        raise WorkspaceFileError(f"{path.name}: {exc.where}: {exc.message}") from None
    return save_workspace(warehouse, workspace_to_dict(ws), origin="import", source=path.name)


def export_yaml(ws: Workspace) -> str:
    return yaml.safe_dump(workspace_to_dict(ws), sort_keys=False, allow_unicode=True)


# ---- rendering ---------------------------------------------------------------------------------
def results_json(results: Sequence[PlanResult]) -> str:
    best = cheapest(results)
    rows = [dict(r.as_dict(), cheapest=r is best) for r in results]
    return json.dumps(rows, indent=2, ensure_ascii=False)


def _shares(shares: Mapping[str, float]) -> str:
    return ", ".join(f"{k} {v:.2%}".replace(".00%", "%") for k, v in shares.items() if v > 0)


def _payback(r: PlanResult) -> str:
    if r.is_baseline:
        return "baseline"
    return f"month {r.payback_month}" if r.payback_month else "never (36 months)"


def results_rows(results: Sequence[PlanResult]) -> list[dict[str, str]]:
    """One row per scenario, the same text on the command line, in markdown and on the page."""
    best = cheapest(results)
    rows = []
    for r in results:
        rows.append(
            {
                "Scenario": r.name,
                "Verdict": "INFEASIBLE: demand unserved"
                if not r.feasible
                else "cheapest"
                if r is best and len(results) > 1
                else "",
                "Requested": _shares(r.requested_allocation),
                "Achieved": _shares(r.achieved_allocation),
                "Feasible": "yes" if r.feasible else "NO",
                "Unserved tok/month": f"{r.unserved_tokens_per_month:,.0f}",
                "Monthly (month 1)": f"${r.monthly_usd:,.2f}",
                "Month 36": f"${r.monthly_usd_by_month[-1]:,.0f}",
                "One-time": f"${r.one_time_usd:,.0f}",
                "Payback": _payback(r),
                "Cut-over": f"month {r.cutover_month}",
            }
        )
    return rows


# ---- the fleet as the incumbent elsewhere -----------------------------------------------------
def fleet_rates(engine: Engine, ws: Workspace):
    """The SKUs the company runs at the rates it pays, for the futures day's suggestions."""
    from briefs.futures import FleetRate

    planner = WorkspaceEngine(engine, PlanContext(ws))
    out = []
    for cap in planner.fleet:
        e = cap.entry
        out.append(
            FleetRate(
                e.provider,
                e.instance_type,
                cap.rate,
                f"your fleet: {e.count} × {e.provider} {e.instance_type} ({e.region},"
                f" {e.pricing_model} at ${cap.rate:,.2f}/h)",
            )
        )
    return tuple(out)


def fleet_accelerator_hour_prices(engine: Engine, ws: Workspace) -> dict[str, float]:
    """$ per accelerator-hour the company pays for each accelerator it runs (count-weighted over
    its fleet lines), the gate's reference price for those accelerators."""
    planner = WorkspaceEngine(engine, PlanContext(ws))
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


def headline(results: Sequence[PlanResult]) -> str:
    """The Overview's sentence: the fleet as it runs against the cheapest feasible move, both
    from the same comparison the Scenarios page shows (same workspace, same rules)."""
    stay = next(r for r in results if r.is_baseline)
    moves = [r for r in results if not r.is_baseline and r.feasible]
    text = f"Your fleet as it runs (Stay) costs ${stay.monthly_usd:,.0f}/month"
    if not stay.feasible:
        text += f" and leaves {stay.unserved_tokens_per_month:,.0f} output tokens/month unserved"
    if not moves:
        return text + "; no alternative plan serves the whole demand."
    best = min(moves, key=lambda r: r.monthly_usd)
    change = best.monthly_usd / stay.monthly_usd - 1 if stay.monthly_usd else 0.0
    verdict = "less" if change < 0 else "more"
    payback = (
        f", paying back its ${best.one_time_usd:,.0f} one-time cost in month {best.payback_month}"
        if best.payback_month
        else ", and never pays back within 36 months"
        if change >= 0 or best.one_time_usd
        else ""
    )
    return (
        f"{text}; the best alternative, {best.headline}, costs ${best.monthly_usd:,.0f}/month"
        f" ({abs(change):.1%} {verdict}){payback}."
    )


def workspace_document(results: Sequence[PlanResult], ws: Workspace, optimal: Sequence = ()):
    """The scenario brief of a workspace comparison, in every export format (same figures as the
    page and ``tokendesk scenarios``); ``optimal``: the optimizer's sections, placed after the
    recommendation."""
    import pandas as pd

    from briefs.document import BarChart, Bullets, Document, Paragraph, Section, table

    rows = results_rows(results)
    sections = [
        Section(
            "Recommendation",
            (
                Paragraph(headline(results)),
                table("Scenarios side by side", rows, sheet="Scenarios"),
                BarChart(
                    "Monthly cost at month 1 (feasible plans only)",
                    tuple(r.name for r in results if r.feasible),
                    tuple(r.monthly_usd for r in results if r.feasible),
                    "USD per month",
                    value_format=lambda v: f"${v:,.0f}",
                ),
            ),
        ),
        *optimal,
    ]
    for r in results:
        notes = (
            *r.allocation_notes,
            *r.unserved_reasons,
            *r.constraint_violations,
            r.payback_sentence,
            *r.one_time_notes,
            r.timeline.sentence,
        )
        fleet = [ln.as_dict() for ln in r.fleet]
        sections.append(
            Section(
                r.name,
                (
                    Paragraph(f"{r.headline}. {r.description}"),
                    Bullets(tuple(n for n in notes if n)),
                    table(f"{r.name}: fleet at month 1", fleet, sheet=f"Fleet {len(sections)}"),
                ),
            )
        )
    curves = pd.DataFrame(
        {"month": range(1, len(results[0].monthly_usd_by_month) + 1)}
        | {r.name: [round(v, 2) for v in r.monthly_usd_by_month] for r in results}
    )
    sections.append(Section("36 months", (table("Monthly cost by month", curves, sheet="Months"),)))
    assumptions = pd.DataFrame(
        [
            ("workspace", ws.name),
            ("month 1 starts", ws.start.isoformat()),
            ("hours per month", "730"),
            ("growth", "applied once a quarter"),
        ],
        columns=["item", "value"],
    )
    return Document(
        f"Scenarios for {ws.name}",
        "Stay, moves and their payback from the company's own fleet, contracts and demand",
        (("workspace", ws.name),),
        tuple(sections),
        assumptions,
        curves,
        file_stem="scenarios",
    )
