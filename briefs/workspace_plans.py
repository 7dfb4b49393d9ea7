"""The one path from a workspace to its scenario comparison, shared by the command line, the
dashboard's Scenarios and Overview pages, the futures day and the gate: read the workspace (a
YAML file, or the warehouse's current version, or the bundled example), build the cost engine from
the current prices and results, evaluate the built-in scenarios, and render them."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import pandas as pd
import yaml

from briefs.document import (
    MODEL_COLUMNS,
    BarChart,
    Bullets,
    Document,
    LiveModel,
    Paragraph,
    Section,
    Table,
    brief_stem,
    cents,
    dashboard_link,
    table,
)
from briefs.sources import (
    bench_rows,
    option_key,
    price_rows,
    rows_behind,
    snapshot_ids,
    source_tables,
)
from costmodel import Engine, FleetPolicy
from costmodel import scenario_inputs as si
from costmodel.demand import HOURS_PER_MONTH
from costmodel.plan import (
    PlanContext,
    PlanLine,
    PlanResult,
    PlanScenario,
    WorkspaceEngine,
    builtin_plans,
    cheapest,
    custom_plan,
)
from costmodel.scenarios import MigrationInputs
from costmodel.workspace import Workspace, WorkspaceError, workspace_from_dict, workspace_to_dict
from tokendesk import formatting
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


#: URL keys that change the workspace's demand for a what-if (every workload alike). ``pct`` is
#: the percentile every latency is read at, the same key the Overview uses.
DEMAND_OVERRIDES = {
    "peak": "peak_to_mean",
    "inter": "interactive_share",
    "slo": "ttft_ms",
    "pct": "percentile",
}
#: The what-ifs that are text, not numbers.
TEXT_OVERRIDES = frozenset({"pct"})


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
    changes: dict[str, Any] = {
        DEMAND_OVERRIDES[k]: v if k in TEXT_OVERRIDES else float(v) for k, v in overrides.items()
    }
    demand = tuple(replace(w, **changes) for w in ws.demand)
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


def _moved(achieved: Mapping[str, float], baseline: Mapping[str, float]) -> bool:
    keys = set(achieved) | set(baseline)
    return any(abs(achieved.get(k, 0.0) - baseline.get(k, 0.0)) > 1e-9 for k in keys)


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
    # A plan that could move nothing (no result for the target hardware) is Stay by another name.
    moved = [r for r in moves if _moved(r.achieved_allocation, stay.achieved_allocation)]
    if not moved:
        return (
            f"{text}; no alternative changes the fleet: "
            + "; ".join(r.headline for r in moves)
            + "."
        )
    best = min(moved, key=lambda r: r.monthly_usd)
    change = best.monthly_usd / stay.monthly_usd - 1 if stay.monthly_usd else 0.0
    if change >= 0:
        return (
            f"{text}; no alternative costs less: the closest, {best.headline}, costs"
            f" ${best.monthly_usd:,.0f}/month ({change:.1%} more)."
        )
    payback = (
        f", paying back its ${best.one_time_usd:,.0f} one-time cost in month {best.payback_month}"
        if best.payback_month
        else ", and never pays back within 36 months"
        if best.one_time_usd
        else ""
    )
    return (
        f"{text}; the best alternative, {best.headline}, costs ${best.monthly_usd:,.0f}/month"
        f" ({abs(change):.1%} less){payback}."
    )


# ---- the brief of a workspace comparison -------------------------------------------------------
@dataclass(frozen=True)
class PlanVerdict:
    scenario: str
    verdict: str  # keep | buy | no-buy | defer
    reason: str
    horizon_usd: float
    vs_stay_usd: float


def plan_verdicts(results: Sequence[PlanResult]) -> list[PlanVerdict]:
    """keep / buy / no-buy / defer per scenario, from the 36-month money:

    * a plan that leaves demand unserved is no-buy;
    * a plan that costs no less than Stay over the curve (one-time cost included) is no-buy;
    * a cheaper plan that breaks a workspace constraint is defer (settle the constraint first);
    * the cheapest remaining plan is buy (then Stay is no-buy); other cheaper plans are no-buy,
      the buy saves more; with no buy, Stay is keep.
    """
    stay = next((r for r in results if r.is_baseline), results[0])

    def total(r: PlanResult) -> float:
        return sum(r.monthly_usd_by_month) + r.one_time_usd

    base = total(stay)
    candidates = [
        r
        for r in results
        if r is not stay and r.feasible and total(r) < base and not r.constraint_violations
    ]
    best = min(candidates, key=total) if candidates else None
    out = []
    months = len(stay.monthly_usd_by_month)
    for r in results:
        diff = total(r) - base
        if r is stay:
            verdict, reason = (
                (NO_BUY_WORD, f"{best.name} costs less over {months} months")
                if best
                else (KEEP_WORD, "the fleet as it runs; no move costs less and serves the demand")
            )
        elif not r.feasible:
            verdict = NO_BUY_WORD
            reason = f"leaves {r.unserved_tokens_per_month:,.0f} output tokens/month unserved"
        elif diff >= 0:
            verdict = NO_BUY_WORD
            reason = f"costs more than {stay.name} over {months} months"
        elif r.constraint_violations:
            verdict = DEFER_WORD
            reason = "cheaper, but breaks a workspace constraint: " + r.constraint_violations[0]
        elif r is best:
            verdict = BUY_WORD
            pays = r.payback_sentence.rstrip(".")
            reason = f"the cheapest plan that serves the demand; {pays[:1].lower()}{pays[1:]}"
        else:
            verdict = NO_BUY_WORD
            # Reached only with a best plan: r is cheaper, feasible and within the constraints.
            better = best.name if best else "another plan"
            reason = f"cheaper than {stay.name}, but {better} saves more"
        out.append(PlanVerdict(r.name, verdict, reason, total(r), diff))
    return out


KEEP_WORD, BUY_WORD, NO_BUY_WORD, DEFER_WORD = "keep", "buy", "no-buy", "defer"


def recommended_plan(results: Sequence[PlanResult]) -> str:
    verdicts = plan_verdicts(results)
    for word in (BUY_WORD, KEEP_WORD):
        for v in verdicts:
            if v.verdict == word:
                return v.scenario
    return verdicts[0].scenario


def brief_stem_for(results: Sequence[PlanResult], day: date | None = None) -> str:
    """``brief-2026-11-30-shift-25-amd``: the file name (without extension) of the brief."""
    return brief_stem(day or datetime.now(UTC).date(), recommended_plan(results))


def view_params(
    ws: Workspace, knobs: Knobs, unit: str = formatting.DEFAULT_TOKEN_UNIT
) -> dict[str, str]:
    """The Scenarios-page URL keys that reproduce this comparison: the knobs that differ from the
    defaults, the what-ifs (peak, SLO, interactive share) as the comparison used them and the
    token unit; only keys that page reads (``scenario_inputs.PAGE_KEYS`` and its unit).

    The page applies a what-if to every workload alike, so one is written only where every
    workload has the same value: workloads that differ (a 2,000 ms chat SLO beside a 1,000 ms
    routing SLO) are reproduced by leaving the key out."""
    params = si.page_params(
        si.ScenarioInputs(
            amd=knobs.amd_share,
            cpu=knobs.cpu_share,
            util=knobs.utilisation_cap,
            rate=knobs.loaded_usd_per_engineer_week,
            custom=",".join(f"{b}:{s:g}" for b, s in knobs.custom),
        )
    )
    for key, field in DEMAND_OVERRIDES.items():
        values = {getattr(w, field) for w in ws.demand}
        if len(values) == 1:
            value = values.pop()
            params[key] = str(value) if key in TEXT_OVERRIDES else f"{value:g}"
    return params | formatting.token_unit_params(unit)


def plan_token_costs(
    results: Sequence[PlanResult], ws: Workspace, unit: str = formatting.DEFAULT_TOKEN_UNIT
) -> dict[str, list[float | None]]:
    """Per scenario, month 1's cost per output token and per total (input + output) token the
    workspace's demand asks for, in ``unit``; None for a plan that leaves demand unserved (its
    money does not buy the tokens, so a per-token figure would flatter it)."""
    output = sum(w.output_tokens_per_month for w in ws.demand)
    total = output + sum(w.input_tokens_per_month for w in ws.demand)
    columns: dict[str, list[float | None]] = {}
    for counted, tokens in (("output", output), ("total (input + output)", total)):
        label = formatting.cost_label(unit, counted) + " (month 1)"
        columns[label] = [
            formatting.per_tokens(r.monthly_usd / (tokens / 1000), unit)
            if r.feasible and tokens > 0
            else None
            for r in results
        ]
    return columns


#: How the per-token columns are worked out, wherever they are shown.
TOKEN_COST_NOTE = (
    "Cost per token = month 1's cost ÷ the tokens the workspace's demand asks for in a month; "
    "a plan that leaves demand unserved has none."
)


def side_by_side_table(
    results: Sequence[PlanResult], ws: Workspace, unit: str = formatting.DEFAULT_TOKEN_UNIT
) -> Table:
    """The Scenarios page's side-by-side table, its per-token columns after month 1's cost."""
    frame = pd.DataFrame(results_rows(results))
    costs = plan_token_costs(results, ws, unit)
    for offset, (label, values) in enumerate(costs.items(), start=1):
        frame.insert(frame.columns.get_loc("Monthly (month 1)") + offset, label, values)
    return table(
        "Scenarios side by side",
        frame,
        formats=dict.fromkeys(costs, formatting.usd_per_1k),
        sheet="Scenarios",
        note=TOKEN_COST_NOTE,
    )


def _usd(v: float) -> str:
    return ("−" if v < 0 else "") + f"${abs(v):,.0f}"


def _signed(v: float) -> str:
    return ("+" if v > 0 else "") + _usd(v)


def workspace_document(
    results: Sequence[PlanResult],
    ws: Workspace,
    knobs: Knobs | None = None,
    base_url: str | None = None,
    generated_at: datetime | None = None,
    optimal: Sequence = (),
    unit: str = formatting.DEFAULT_TOKEN_UNIT,
    options: pd.DataFrame | None = None,
    snapshots: pd.DataFrame | None = None,
):
    """The scenario brief of a workspace comparison, in every export format (same figures as the
    page and ``tokendesk scenarios``): the decision on page 1, then the evidence; ``optimal``:
    the optimizer's sections, placed after the side-by-side comparison; per-token figures in
    ``unit``; ``options`` (the cost-options rows the engine was built from) and ``snapshots``
    (the warehouse's snapshot list): the sources behind every fleet line."""
    knobs = knobs or Knobs()
    generated_at = generated_at or datetime.now(UTC)
    link = dashboard_link(view_params(ws, knobs, unit), base_url)
    verdicts = {v.scenario: v for v in plan_verdicts(results)}
    prices, benches = fleet_evidence(results, ws, options)
    # Fleet sheets are numbered after the sections before them (decision, side by side, optimal).
    first_fleet = 1 + len(optimal)
    sections = (
        plan_decision_section(results, verdicts),
        Section("Scenarios side by side", (side_by_side_table(results, ws, unit),), new_page=True),
        *optimal,
        *(plan_fleet_section(r, first_fleet + i) for i, r in enumerate(results)),
        monthly_curve_section(results),
        Section("Sources", source_tables(prices, benches, snapshots, PRICE_NOTE)),
    )
    meta = (
        ("generated", f"{generated_at:%Y-%m-%d %H:%M} UTC"),
        ("workspace", ws.name),
        ("token costs", f"{formatting.token_unit_label(unit)} tokens"),
        ("snapshots", f"{len(snapshot_ids(prices, benches))} (listed under Sources)"),
        ("dashboard view", link),
    )
    stay = next((r for r in results if r.is_baseline), results[0])
    return Document(
        f"Scenarios for {ws.name}",
        "Stay, moves and their payback from the company's own fleet, contracts and demand",
        meta,
        sections,
        plan_assumptions(ws, knobs, unit),
        workspace_csv_frame(results, verdicts),
        file_stem=brief_stem(generated_at.date(), recommended_plan(results)),
        link=link,
        live_model=workspace_live_model(results, stay.name),
    )


def plan_decision_section(
    results: Sequence[PlanResult], verdicts: Mapping[str, PlanVerdict]
) -> Section:
    """Page 1: the headline, one sentence per plan, the money, its chart, risks and timeline."""
    months = len(results[0].monthly_usd_by_month)
    feasible = [r for r in results if r.feasible]
    return Section(
        "Decision",
        (
            Paragraph(headline(results)),
            Bullets(tuple(plan_sentences(results, verdicts))),
            plan_money_table(results, verdicts),
            BarChart(
                f"Cost over {months} months (feasible plans only)",
                tuple(r.name for r in feasible),
                tuple(verdicts[r.name].horizon_usd for r in feasible),
                f"USD over {months} months, one-time cost included",
                groups=tuple(verdicts[r.name].verdict for r in feasible),
                value_format=lambda v: f"${v:,.0f}",
            ),
            Bullets(tuple(plan_risks(results)), title="Top risks"),
            Bullets(tuple(plan_timeline(results)), title="Timeline"),
        ),
    )


def plan_sentences(results: Sequence[PlanResult], verdicts: Mapping[str, PlanVerdict]) -> list[str]:
    """One sentence per plan: the verdict, month 1's cost, the horizon's money and the reason."""
    stay = next((r for r in results if r.is_baseline), results[0])
    months = len(results[0].monthly_usd_by_month)
    out = []
    for r in results:
        v = verdicts[r.name]
        one_time = f" including {_usd(r.one_time_usd)} one-time" if r.one_time_usd else ""
        against = "" if r is stay else f" ({_signed(v.vs_stay_usd)} against {stay.name})"
        out.append(
            f"{v.verdict.upper()} {r.name}: {_usd(r.monthly_usd)}/month at month 1, "
            f"{_usd(v.horizon_usd)} over {months} months{one_time}{against} — {v.reason}."
        )
    return out


def plan_money_table(results: Sequence[PlanResult], verdicts: Mapping[str, PlanVerdict]) -> Table:
    """Per plan: month 1 and the last month, one-time, the horizon total against Stay, payback."""
    stay = next((r for r in results if r.is_baseline), results[0])
    months = len(results[0].monthly_usd_by_month)
    rows = [
        {
            "option": r.name,
            "decision": verdicts[r.name].verdict,
            "$/month (month 1)": round(r.monthly_usd, 2),
            f"$/month (month {months})": round(r.monthly_usd_by_month[-1], 2),
            "one-time": round(r.one_time_usd, 2),
            f"{months} months": round(verdicts[r.name].horizon_usd, 2),
            f"vs {stay.name}, {months} months": round(verdicts[r.name].vs_stay_usd, 2),
            "payback": _payback(r),
            "weeks to cutover": r.timeline.weeks_to_cutover,
        }
        for r in results
    ]
    return table(
        "The money",
        rows,
        formats={
            "$/month (month 1)": _usd,
            f"$/month (month {months})": _usd,
            "one-time": _usd,
            f"{months} months": _usd,
            f"vs {stay.name}, {months} months": _signed,
            "weeks to cutover": lambda w: f"{w:g} w",
        },
        sheet="Money",
        note=f"{months} months = the sum of the monthly curve (demand growth, "
        "commitments paid until they end) + the one-time cost.",
    )


def plan_risks(results: Sequence[PlanResult]) -> list[str]:
    """Per plan its two risks that matter most: unserved demand and broken constraints first,
    then silicon-vendor concentration and software maturity."""
    out = []
    for r in results:
        found = [*(f"unserved: {u}" for u in r.unserved_reasons), *r.constraint_violations]
        found += [
            r.risk.hhi_vendor.sentence.split(":")[0],
            f"software maturity {r.risk.maturity.value:.0f}/100",
        ]
        out.append(f"{r.name}: " + "; ".join(found[:2]) + ".")
    return out


def plan_timeline(results: Sequence[PlanResult]) -> list[str]:
    """Per plan: how long the migration takes and the month it cuts over."""
    return [
        f"{r.name}: {r.timeline.sentence.split('; ')[0].rstrip('.')}; "
        f"cut-over in month {r.cutover_month}."
        for r in results
    ]


def plan_fleet_section(r: PlanResult, number: int) -> Section:
    """One plan's evidence: its notes and its fleet at month 1, line by line."""
    notes = (
        *r.allocation_notes,
        *r.unserved_reasons,
        *r.constraint_violations,
        r.payback_sentence,
        *r.one_time_notes,
        r.timeline.sentence,
    )
    fleet = [
        {
            "workload": ln.workload,
            "role": ln.role,
            "allocation": ln.allocation,
            "provider": ln.provider,
            "region": ln.region,
            "instance type": ln.instance_type,
            "pricing": ln.pricing_model,
            "count": ln.count,
            "$/hour": ln.usd_per_hour,
            "$/month": round(ln.monthly_usd, 2),
            "commitment end": ln.commitment_end or "— (no commitment)",
            "accelerator": ln.accelerator_id or "—",
            "benchmark date": formatting.day(ln.bench_measured_at),
            "note": ln.note or "",
        }
        for ln in r.fleet
    ]
    return Section(
        r.name,
        (
            Paragraph(f"{r.headline}. {r.description}"),
            Bullets(tuple(n for n in notes if n)),
            table(
                f"{r.name}: fleet at month 1",
                fleet,
                formats={"$/hour": lambda v: f"${v:,.4f}", "$/month": lambda v: f"${v:,.2f}"},
                sheet=f"Fleet, {r.name}",
            ),
        ),
    )


def monthly_curve_section(results: Sequence[PlanResult]) -> Section:
    """Every plan's cost month by month over the horizon."""
    months = len(results[0].monthly_usd_by_month)
    curves = pd.DataFrame(
        {"month": range(1, months + 1)}
        | {f"{r.name} $/month": [round(v, 2) for v in r.monthly_usd_by_month] for r in results}
    )
    return Section(
        f"{months} months",
        (
            table(
                "Monthly cost by month",
                curves,
                formats={f"{r.name} $/month": lambda v: f"${v:,.2f}" for r in results},
                sheet="Months",
            ),
        ),
    )


def plan_assumptions(ws: Workspace, knobs: Knobs, unit: str) -> pd.DataFrame:
    """The inputs behind the comparison, for the workbook's Assumptions sheet."""
    return pd.DataFrame(
        [
            ("workspace", ws.name),
            ("month 1 starts", ws.start.isoformat()),
            ("hours per month", "730"),
            ("growth", "applied once a quarter"),
            ("AMD share (Shift N% to AMD)", f"{knobs.amd_share:.0%}"),
            ("CPU share (Add CPU fallback)", f"{knobs.cpu_share:.0%}"),
            ("utilisation cap", f"{knobs.utilisation_cap:.0%}"),
            ("loaded cost of an engineer-week", f"${knobs.loaded_usd_per_engineer_week:,.0f}"),
            ("token costs quoted", f"{formatting.token_unit_label(unit)} tokens"),
            (
                "decision rule",
                (plan_verdicts.__doc__ or ":").split(":", 1)[1].strip().replace("\n", " "),
            ),
        ],
        columns=["item", "value"],
    )


#: What the Scenarios brief's price table lists.
PRICE_NOTE = (
    "The quotes of each fleet line's pricing model; a fleet line at the rate your workspace "
    "states rests on that rate, not on a quote (no source address, no snapshot)."
)
#: The source named for a rate the workspace states (the company's own contract).
WORKSPACE_RATE = "your workspace: the rate you pay"


def _stated_rate(ws: Workspace, line: PlanLine) -> float | None:
    """The rate the workspace states for an incumbent fleet line; None when it pays list price."""
    if line.role != "fleet":
        return None
    for e in ws.fleet:
        same = (e.serves, e.provider, e.region, e.instance_type, e.pricing_model) == (
            line.workload,
            line.provider,
            line.region,
            line.instance_type,
            line.pricing_model,
        )
        if same and e.usd_per_hour is not None:
            return e.usd_per_hour
    return None


def _stated_rate_row(line: PlanLine, rate: float) -> dict[str, object]:
    return {
        "provider": line.provider,
        "region": line.region,
        "instance_type": line.instance_type,
        "pricing_model": line.pricing_model,
        "accelerator_id": line.accelerator_id or None,
        "quote_usd_per_hour": rate,
        "price_basis": "instance",
        "price_confidence": "as stated in the workspace",
        "price_source": WORKSPACE_RATE,
    }


def fleet_evidence(
    results: Sequence[PlanResult], ws: Workspace, options: pd.DataFrame | None
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The price quotes and the benchmark results behind every scenario's fleet lines: the quotes
    of each line's pricing model (or the rate the workspace states) and every operating point of
    the configuration the line was sized on, each with its source, date, confidence, snapshot."""
    lines, stated = [], []
    for r in results:
        for ln in r.fleet:
            rate = _stated_rate(ws, ln)
            if rate is not None:
                stated.append(_stated_rate_row(ln, rate))
            if ln.option_id:
                key = option_key(ln.option_id, ln.instance_type)
                lines.append(key | {"line_pricing": ln.pricing_model, "stated": rate is not None})
    rows = rows_behind(options, lines)
    quoted = (
        rows[
            [
                not own and str(model) in str(pricing)
                for model, pricing, own in zip(
                    rows["pricing_model"], rows["line_pricing"], rows["stated"], strict=True
                )
            ]
        ]
        if not rows.empty
        else rows
    )
    priced = [frame for frame in (quoted, pd.DataFrame(stated)) if not frame.empty]
    prices = price_rows(pd.concat(priced, ignore_index=True) if priced else pd.DataFrame())
    return prices, bench_rows(rows)


def workspace_live_model(results: Sequence[PlanResult], baseline: str) -> LiveModel:
    """Month 1 of each plan as units × rate: a line held all month is count × $/hour × hours; a
    line that follows the hourly curve on demand is billed unit-hours × $/hour."""
    rows = []
    for r in results:
        for ln in r.fleet:
            held = abs(ln.count * ln.usd_per_hour * HOURS_PER_MONTH - ln.monthly_usd) < 0.005
            burst = 0.0 if held or not ln.usd_per_hour else ln.monthly_usd / ln.usd_per_hour
            rows.append(
                {
                    "option": r.name,
                    "line": f"{ln.workload} · {ln.role} · {ln.allocation}: {ln.count} × "
                    f"{ln.instance_type} ({ln.provider} {ln.region}), {ln.pricing_model}",
                    MODEL_COLUMNS[0]: ln.count if held else 0,
                    MODEL_COLUMNS[1]: ln.usd_per_hour if held else None,
                    MODEL_COLUMNS[2]: round(burst, 6),
                    MODEL_COLUMNS[3]: None if held else ln.usd_per_hour,
                    MODEL_COLUMNS[4]: 0,
                    MODEL_COLUMNS[5]: None,
                    "monthly_usd": ln.monthly_usd,
                }
            )
    return LiveModel(
        pd.DataFrame(rows, columns=["option", "line", *MODEL_COLUMNS, "monthly_usd"]),
        tuple((r.name, r.one_time_usd) for r in results),
        baseline,
        hours_per_month=HOURS_PER_MONTH,
        money_columns={"$/month (month 1)": "monthly", "one-time": "one_time"},
        flat_horizon=False,
    )


def workspace_csv_frame(results: Sequence[PlanResult], verdicts: Mapping) -> pd.DataFrame:
    """One row per fleet line at month 1, then one total row per scenario (to the cent)."""
    out = []
    for r in results:
        amounts = cents([ln.monthly_usd for ln in r.fleet], r.monthly_usd)
        for ln, amount in zip(r.fleet, amounts, strict=True):
            out.append(
                {
                    "row": "line",
                    "scenario": r.name,
                    "decision": verdicts[r.name].verdict,
                    **{k: v for k, v in ln.as_dict().items() if k != "monthly_usd"},
                    "monthly_usd": amount,
                }
            )
        out.append(
            {
                "row": "total",
                "scenario": r.name,
                "decision": verdicts[r.name].verdict,
                "count": sum(ln.count for ln in r.fleet),
                "monthly_usd": round(r.monthly_usd, 2),
            }
        )
    return pd.DataFrame(out)
