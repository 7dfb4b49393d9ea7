"""The scenario comparison of a workspace, rendered: the rows the command line, the Scenarios
page and the brief show, the Overview's sentence, and the brief in every format. Every figure
comes from the evaluation (``planning``); nothing here prices a plan. The evidence sections
(shapes, assumptions, the rows behind each figure) are in ``plan_evidence.py``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, date, datetime

import pandas as pd

from briefs.document import (
    BarChart,
    Bullets,
    Document,
    Paragraph,
    Section,
    Table,
    brief_stem,
    dashboard_link,
    how_to_open,
    table,
)
from briefs.plan_evidence import (
    PRICE_NOTE,
    fleet_evidence,
    plan_assumptions,
    workload_shape_rows,
)
from briefs.plan_exports import workspace_csv_frame, workspace_live_model
from briefs.sources import (
    snapshot_ids,
    source_tables,
)
from costmodel.plan_inputs import by_vendor
from costmodel.plan_result import PlanLine, PlanResult
from costmodel.risk import RISK_BASIS, hhi_figure, vendor_spend
from costmodel.workspace_model import Workspace
from planning.evaluation import Evaluation, as_evaluation
from planning.optimal_plan import OptimalPlan
from planning.verdicts import BUY_WORD, PlanVerdict
from planning.workspaces import Knobs, view_params
from tokendesk import formatting, jsontext
from tokendesk.labels import sku_label

# ---- rendering ---------------------------------------------------------------------------------
#: The column of the tables the verdicts are read from: the horizon total ÷ 36, beside the
#: horizon total itself.
COMPARED = "$/month compared"
HORIZON = "36 months"
#: What the command line, the page and the brief are given: an evaluation, or bare plans.
Found = Evaluation | Sequence[PlanResult]


def results_json(found: Found) -> str:
    """Every plan with its verdict (the optimal fleet last, where it was solved)."""
    ev = as_evaluation(found)
    verdicts = ev.by_name
    rows = [
        dict(
            r.as_dict(),
            cheapest=r.name == ev.bought,
            decision=verdicts[r.name].verdict,
            decision_reason=verdicts[r.name].reason,
            compared_usd_per_month=round(r.compared_usd_per_month, 2),
        )
        for r in ev.plans
    ]
    if ev.optimal is not None:
        o = ev.optimal
        rows.append(
            dict(
                o.as_dict(),
                cheapest=o.name == ev.bought,
                decision=verdicts[o.name].verdict,
                decision_reason=verdicts[o.name].reason,
            )
        )
    return jsontext.dumps(rows)


def _shares(shares: Mapping[str, float]) -> str:
    return ", ".join(f"{k} {v:.2%}".replace(".00%", "%") for k, v in shares.items() if v > 0)


def _payback(r: PlanResult | OptimalPlan) -> str:
    if isinstance(r, PlanResult) and r.is_baseline:
        return "baseline"
    return (
        f"month {r.payback_month}"
        if r.payback_month
        else f"never ({len(r.monthly_usd_by_month)} months)"
    )


def results_rows(found: Found) -> list[dict[str, str]]:
    """One row per plan, the same text on the command line, in markdown and on the page."""
    ev = as_evaluation(found)
    verdicts = ev.by_name
    rows = []
    for r in ev.plans:
        rows.append(
            {
                "Scenario": r.name,
                "Verdict": "INFEASIBLE: demand unserved"
                if not r.feasible
                else verdicts[r.name].verdict.upper(),
                "Requested": _shares(by_vendor(r.requested_allocation)),
                "Achieved": _shares(r.achieved_by_vendor),
                "Feasible": "yes" if r.feasible else "NO",
                "Unserved tok/month": f"{r.unserved_tokens_per_month:,.0f}",
                "Monthly (month 1)": f"${r.monthly_usd:,.2f}",
                COMPARED: f"${r.compared_usd_per_month:,.2f}",
                HORIZON: f"${r.horizon_usd:,.0f}",
                "Month 36": f"${r.monthly_usd_by_month[-1]:,.0f}",
                "One-time": f"${r.one_time_usd:,.0f}",
                "Payback": _payback(r),
                "Cut-over": f"month {r.cutover_month}",
            }
        )
    o = ev.optimal
    if o is not None:
        rows.append(
            {
                "Scenario": o.name,
                "Verdict": verdicts[o.name].verdict.upper() if o.feasible else "INFEASIBLE",
                "Requested": "the cheapest mix",
                "Achieved": _shares(o.achieved_by_vendor),
                "Feasible": "yes" if o.feasible else "NO",
                "Unserved tok/month": "0" if o.feasible else "—",
                "Monthly (month 1)": f"${o.monthly_usd:,.2f}" if o.feasible else "—",
                COMPARED: f"${o.compared_usd_per_month:,.2f}" if o.feasible else "—",
                HORIZON: f"${o.horizon_usd:,.0f}" if o.feasible else "—",
                "Month 36": f"${o.monthly_usd_by_month[-1]:,.0f}" if o.feasible else "—",
                "One-time": f"${o.one_time_usd:,.0f}",
                "Payback": f"month {o.payback_month}" if o.payback_month else "never (36 months)",
                "Cut-over": "per backend",
            }
        )
    return rows


def headline(found: Found) -> str:
    """The Overview's sentence: the fleet as it runs against the plan the verdicts name, from the
    same evaluation the Scenarios page and the brief show (same workspace, same rule)."""
    ev = as_evaluation(found)
    results = ev.plans
    stay = ev.stay
    verdicts = ev.by_name
    moves = [r for r in results if not r.is_baseline and r.feasible]
    optimal = ev.optimal
    own = any(ln.role == "fleet" for ln in stay.fleet)
    subject = (
        "Your fleet as it runs (Stay)"
        if own
        else "Buying every token on the incumbent backend at market prices (Stay)"
    )
    text = f"{subject} costs ${stay.monthly_usd:,.0f}/month"
    if not stay.feasible:
        text += f" and leaves {stay.unserved_tokens_per_month:,.0f} output tokens/month unserved"
    if optimal is not None and ev.bought == optimal.name:
        change = optimal.compared_usd_per_month / stay.compared_usd_per_month - 1
        parts = [f"${optimal.monthly_usd:,.0f}/month at month 1"]
        if optimal.stranded_usd_per_month > 0.005:
            parts.append(
                f"${optimal.stranded_usd_per_month:,.0f}/month of commitments it gives back"
                " but still pays"
            )
        if optimal.one_time_usd > 0.005:
            parts.append(f"${optimal.one_time_usd:,.0f} one-time")
        saved = stay.horizon_usd - optimal.horizon_usd
        after = (
            f" (its commitments run on after month 36 for another"
            f" ${optimal.after_horizon_usd:,.0f}, outside that total)"
            if optimal.after_horizon_usd > 0.005
            else ""
        )
        return (
            f"{text}; the plan to buy, the optimal fleet, costs {' + '.join(parts)}, and"
            f" ${optimal.horizon_usd:,.0f} over 36 months{after}, ${saved:,.0f}"
            f" ({abs(change):.1%}) less than Stay's ${stay.horizon_usd:,.0f}."
        )
    if not moves:
        return text + "; no alternative plan serves the whole demand."
    # A plan that could move nothing (no result for the target hardware) is Stay by another name.
    moved = [r for r in moves if r.achieved_share > 1e-9]
    if not moved:
        return (
            f"{text}; no alternative changes the fleet: "
            + "; ".join(r.headline for r in moves)
            + "."
        )
    bought = [r for r in moved if verdicts[r.name].verdict == BUY_WORD]
    if not bought:
        closest = min(moved, key=lambda r: r.compared_usd_per_month)
        v = verdicts[closest.name]
        return (
            f"{text}; no alternative to buy: the closest, {closest.headline},"
            f" {v.verdict} — {v.reason}."
        )
    best = bought[0]
    change = best.horizon_usd / stay.horizon_usd - 1 if stay.horizon_usd else 0.0
    payback = (
        f", paying back its ${best.one_time_usd:,.0f} one-time cost in month {best.payback_month}"
        if best.payback_month
        else ", and never pays back within 36 months"
        if best.one_time_usd
        else ""
    )
    direction = "less" if change < 0 else "more"
    return (
        f"{text}; the plan to buy, {best.headline}, costs ${best.monthly_usd:,.0f}/month at month 1"
        f" and ${best.horizon_usd:,.0f} over 36 months ({abs(change):.1%} {direction} than"
        f" Stay){payback}."
    )


# ---- the brief of a workspace comparison -------------------------------------------------------
def recommended_plan(found: Found) -> str:
    return as_evaluation(found).decision


def brief_stem_for(found: Found, day: date | None = None) -> str:
    """``brief-2026-11-30-shift-25-amd``: the file name (without extension) of the brief."""
    return brief_stem(day or datetime.now(UTC).date(), recommended_plan(found))


def plan_token_costs(
    found: Found, ws: Workspace, unit: str = formatting.DEFAULT_TOKEN_UNIT
) -> dict[str, list[float | None]]:
    """Per plan (the optimal fleet last, where solved), month 1's cost per output token and per
    total (input + output) token the workspace's demand asks for, in ``unit``; None for a plan
    that leaves demand unserved (its money does not buy the tokens, so a per-token figure would
    flatter it). The per-total-token figure is None too while a workload does not state its input
    tokens: counting them as none would make it the per-output-token figure."""
    ev = as_evaluation(found)
    results: list = [*ev.plans, *([ev.optimal] if ev.optimal is not None else [])]
    output = sum(w.output_tokens_per_month for w in ws.demand)
    inputs = [w.input_tokens_per_month for w in ws.demand]
    total = None if None in inputs else output + sum(i for i in inputs if i is not None)
    columns: dict[str, list[float | None]] = {}
    for counted, tokens in (("output", output), ("total (input + output)", total)):
        column = formatting.cost_label(unit, counted) + " (month 1)"
        columns[column] = [
            formatting.per_tokens(r.monthly_usd / (tokens / 1000), unit)
            if r.feasible and tokens
            else None
            for r in results
        ]
    return columns


#: How the per-token columns are worked out, wherever they are shown.
TOKEN_COST_NOTE = (
    "Cost per token = month 1's cost ÷ the tokens the workspace's demand asks for in a month; "
    "a plan that leaves demand unserved has none, and there is no cost per total token while a "
    "workload does not state its input tokens a month."
)


def side_by_side_table(
    found: Found, ws: Workspace, unit: str = formatting.DEFAULT_TOKEN_UNIT
) -> Table:
    """The Scenarios page's side-by-side table, its per-token columns after month 1's cost."""
    frame = pd.DataFrame(results_rows(found))
    costs = plan_token_costs(found, ws, unit)
    for offset, (column, values) in enumerate(costs.items(), start=1):
        frame.insert(frame.columns.get_loc("Monthly (month 1)") + offset, column, values)
    return table(
        "Scenarios side by side",
        frame,
        formats=dict.fromkeys(costs, formatting.usd_per_1k),
        sheet="Scenarios",
        note=TOKEN_COST_NOTE,
    )


def _usd(v: float | None) -> str:
    if v is None or v != v:
        return "—"
    return ("−" if v < 0 else "") + f"${abs(v):,.0f}"


def _signed(v: float | None) -> str:
    if v is None or v != v:
        return "—"
    return ("+" if v > 0 else "") + _usd(v)


def workspace_document(
    found: Found,
    ws: Workspace,
    knobs: Knobs | None = None,
    base_url: str | None = None,
    generated_at: datetime | None = None,
    optimal: Sequence = (),
    unit: str = formatting.DEFAULT_TOKEN_UNIT,
    options: pd.DataFrame | None = None,
    snapshots: pd.DataFrame | None = None,
    provenance: str | None = None,
):
    """The scenario brief of a workspace comparison, in every export format (same figures as the
    page and ``tokendesk scenarios``): the decision on page 1, then the evidence; ``optimal``:
    the optimizer's sections, placed after the side-by-side comparison; per-token figures in
    ``unit``; ``options`` (the cost-options rows the engine was built from) and ``snapshots``
    (the warehouse's snapshot list): the sources behind every fleet line."""
    knobs = knobs or Knobs()
    ev = as_evaluation(found)
    results = ev.plans
    generated_at = generated_at or datetime.now(UTC)
    params = view_params(ws, knobs, unit)
    link = dashboard_link(params, base_url)
    prices, benches = fleet_evidence(results, ws, options)
    # Fleet sheets are numbered after the sections before them (decision, side by side, optimal).
    first_fleet = 1 + len(optimal)
    weak = weakest_evidence(results, ws, options)
    stay = next((r for r in results if r.is_baseline), results[0])
    assumptions = plan_assumptions(ws, knobs, unit, provenance, workload_shape_rows(stay))
    sections = (
        plan_decision_section(ev, weak),
        Section(
            "Assumptions",
            (
                Bullets(
                    tuple(f"{item}: {value}" for item, value in assumptions.itertuples(index=False))
                ),
            ),
        ),
        Section("Scenarios side by side", (side_by_side_table(ev, ws, unit),)),
        *optimal,
        *(plan_fleet_section(r, first_fleet + i) for i, r in enumerate(results)),
        monthly_curve_section(
            [*results, *([ev.optimal] if ev.optimal is not None and ev.optimal.feasible else [])]
        ),
        Section("Sources", source_tables(prices, benches, snapshots, PRICE_NOTE)),
    )
    meta = (
        ("generated", f"{generated_at:%Y-%m-%d %H:%M} UTC"),
        ("workspace", ws.name),
        ("token costs", f"{formatting.token_unit_label(unit)} tokens"),
        ("snapshots", f"{len(snapshot_ids(prices, benches))} (listed under Sources)"),
        ("dashboard view", link or how_to_open(params)),
    )
    return Document(
        f"Scenarios for {ws.name}",
        "Stay, moves and their payback from the company's own fleet, contracts and demand"
        if ws.fleet
        else "Buying every token at market prices against moving shares of it to other vendors,"
        " for the demand under Assumptions",
        meta,
        sections,
        assumptions,
        workspace_csv_frame(ev),
        file_stem=brief_stem(generated_at.date(), ev.decision),
        link=link,
        live_model=workspace_live_model(ev, stay.name),
    )


def plan_decision_section(ev: Evaluation, weak: Mapping[str, list[str]] | None = None) -> Section:
    """Page 1: the headline, one sentence per plan, the money, its chart, risks and timeline."""
    verdicts = ev.by_name
    feasible = [r.name for r in ev.plans if r.feasible]
    if ev.optimal is not None and ev.optimal.feasible:
        feasible.append(ev.optimal.name)
    return Section(
        "Decision",
        (
            Paragraph(headline(ev)),
            Bullets(tuple(plan_sentences(ev, weak))),
            plan_money_table(ev),
            Bullets(tuple(plan_risks(ev)), title="Top risks"),
            Bullets(tuple(plan_timeline(ev)), title="Timeline"),
            BarChart(
                "Cost per month as compared (feasible plans only)",
                tuple(feasible),
                tuple(verdicts[name].usd_per_month for name in feasible),
                f"USD per month: {COMPARED}, the {len(ev.plans[0].monthly_usd_by_month)}-month"
                " total ÷ its months (the basis the verdicts read)",
                groups=tuple(verdicts[name].verdict for name in feasible),
                value_format=lambda v: f"${v:,.0f}",
                live_total="compared",
            ),
        ),
    )


def _sentence(plan, v: PlanVerdict, stay: PlanResult, flagged: Sequence[str] | None) -> str:
    parts = [f"{_usd(plan.monthly_usd)} run rate at month 1"]
    low, _, high = plan.monthly_usd_band
    if high - low > 0.005:
        parts.append(f"{_usd(low)}–{_usd(high)} within the estimates' 80% intervals")
    if plan.stranded_usd_per_month > 0.005:
        parts.append(f"{_usd(plan.stranded_usd_per_month)} of commitments still paid")
    if plan.one_time_usd > 0.005:
        parts.append(f"{_usd(plan.one_time_usd)} one-time")
    against = "" if plan is stay else f", {_signed(v.vs_stay_usd_per_month)} against {stay.name}"
    caveat = f" Rests on low-confidence figures: {'; '.join(flagged)}." if flagged else ""
    return (
        f"{v.verdict.upper()} {plan.name}: {_usd(v.usd_per_month)}/month as compared"
        f" ({'; '.join(parts)}){against} — {v.reason}.{caveat}"
    )


def plan_sentences(found: Found, weak: Mapping[str, list[str]] | None = None) -> list[str]:
    """One sentence per plan: the verdict, the compared monthly cost and the reason, flagged
    where the plan's money rests on a low-confidence price (``weakest_evidence``)."""
    ev = as_evaluation(found)
    verdicts, stay = ev.by_name, ev.stay
    out = [_sentence(r, verdicts[r.name], stay, (weak or {}).get(r.name)) for r in ev.plans]
    o = ev.optimal
    if o is not None:
        if o.feasible:
            out.append(_sentence(o, verdicts[o.name], stay, estimated_evidence(o.fleet)))
        else:
            out.append(f"{verdicts[o.name].verdict.upper()} {o.name}: {o.status_sentence}")
    return out


def estimated_evidence(lines: Sequence[PlanLine]) -> list[str]:
    """The lines whose capacity the performance model estimated, each with its cost band."""
    return list(
        dict.fromkeys(
            f"{ln.workload} on {_sku(ln)}: {ln.basis} capacity, {_band_words(ln)}"
            for ln in lines
            if ln.estimated
        )
    )


def _sku(line: PlanLine) -> str:
    return sku_label(line.provider, line.region, line.instance_type, line.pricing_model)


def _band_words(line: PlanLine) -> str:
    """The line's monthly cost at the interval's ends; one figure where both ends need the same
    whole units (a line of one unit costs that unit whatever its capacity)."""
    low, _, high = line.band
    if high - low < 0.5:
        return f"${low:,.0f}/month at either end of the interval (the same whole units)"
    return f"${low:,.0f}–${high:,.0f}/month"


def weakest_evidence(
    results: Sequence[PlanResult], ws: Workspace, options: pd.DataFrame | None
) -> dict[str, list[str]]:
    """Per plan, its estimated lines first (capacity no measured result backs, with the
    interval's width), then the low-confidence price quotes its lines are priced from (a rate
    the workspace states is the company's own and never flagged): what a reader should check
    before signing."""
    out: dict[str, list[str]] = {}
    for r in results:
        estimated = estimated_evidence(r.fleet)
        if estimated:
            out[r.name] = list(dict.fromkeys(estimated))
        prices, _ = fleet_evidence((r,), ws, options)
        if prices.empty:
            continue
        low = prices[prices["price_confidence"].astype(str).str.lower() == "low"]
        flagged = [
            f"{sku_label(row.provider, row.region, row.instance_type, row.pricing_model)} at"
            f" ${row.quote_usd_per_hour:,.2f}/h"
            f"{' per accelerator' if row.price_basis == 'per_accelerator' else ''},"
            f" {formatting.day(row.price_observed_at)}"
            for row in low.itertuples()
        ]
        if flagged:
            out[r.name] = list(dict.fromkeys([*out.get(r.name, []), *flagged]))
    return out


def plan_money_table(found: Found) -> Table:
    """Per plan, the optimal fleet's path included: the compared cost the verdict reads, month 1
    and the last month, one-time, the horizon's total, the difference from Stay and payback."""
    ev = as_evaluation(found)
    verdicts, stay, results = ev.by_name, ev.stay, ev.plans
    months = len(results[0].monthly_usd_by_month)
    rows: list[dict] = [
        {
            "option": r.name,
            "decision": verdicts[r.name].verdict,
            COMPARED: round(verdicts[r.name].usd_per_month, 2),
            f"vs {stay.name} ($/month)": round(verdicts[r.name].vs_stay_usd_per_month, 2),
            "$/month (month 1)": round(r.monthly_usd, 2),
            f"$/month (month {months})": round(r.monthly_usd_by_month[-1], 2),
            "one-time": round(r.one_time_usd, 2),
            f"{months} months": round(r.horizon_usd, 2),
            "payback": _payback(r),
            "weeks to cutover": r.timeline.weeks_to_cutover,
        }
        for r in results
    ]
    o = ev.optimal
    if o is not None and o.feasible:
        rows.append(
            {
                "option": o.name,
                "decision": verdicts[o.name].verdict,
                COMPARED: round(verdicts[o.name].usd_per_month, 2),
                f"vs {stay.name} ($/month)": round(verdicts[o.name].vs_stay_usd_per_month, 2),
                "$/month (month 1)": round(o.monthly_usd, 2),
                f"$/month (month {months})": round(o.monthly_usd_by_month[-1], 2),
                "one-time": round(o.one_time_usd, 2),
                f"{months} months": round(o.horizon_usd, 2),
                "payback": _payback(o),
                "weeks to cutover": None,
            }
        )
    return table(
        "The money",
        rows,
        formats={
            COMPARED: _usd,
            f"vs {stay.name} ($/month)": _signed,
            "$/month (month 1)": _usd,
            f"$/month (month {months})": _usd,
            "one-time": _usd,
            f"{months} months": _usd,
            "weeks to cutover": lambda w: "—" if w is None or w != w else f"{w:g} w",
        },
        sheet="Money",
        note=f"{COMPARED} = the {months}-month total ÷ {months} (the basis the verdicts read);"
        f" {months} months = the sum of the monthly curve (demand growth, commitments paid until"
        " they end) + the one-time costs, discounted at the workspace's rate where one is set.",
    )


def plan_risks(found: Found) -> list[str]:
    """Per plan its two risks that matter most: unserved demand and broken constraints first,
    then silicon-vendor concentration and software maturity."""
    ev = as_evaluation(found)
    out = []
    for r in ev.plans:
        found_risks = [*(f"unserved: {u}" for u in r.unserved_reasons), *r.constraint_violations]
        found_risks += [
            r.risk.hhi_vendor.sentence.split(":")[0],
            f"software maturity {r.risk.maturity.value:.0f}/100",
        ]
        out.append(f"{r.name}: " + "; ".join(found_risks[:2]) + ".")
    o = ev.optimal
    if o is not None and o.feasible:
        # On the same basis as every other plan: month-1 spend by vendor.
        spend = vendor_spend((ln.vendor, ln.monthly_usd) for ln in o.fleet)
        figure = hhi_figure("hhi_vendor", spend, "Silicon vendor")
        out.append(f"{o.name}: {figure.sentence.split(':')[0]}.")
    out.append(f"Every HHI above is weighted by {RISK_BASIS}, the same basis for every plan.")
    return out


def plan_timeline(found: Found) -> list[str]:
    """Per plan: how long the migration takes and the month it cuts over."""
    ev = as_evaluation(found)
    out = [
        f"{r.name}: {r.timeline.sentence.split('; ')[0].rstrip('.')}; "
        f"cut-over in month {r.cutover_month}."
        for r in ev.plans
    ]
    if ev.optimal is not None and ev.optimal.feasible:
        out.append(
            f"{ev.optimal.name}: the fleet to reach at month 1; its moves take the stage gates"
            " of the backends it adds (see the plans above)."
        )
    return out


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


def monthly_curve_section(results: Sequence) -> Section:
    """Every plan's cost month by month over the horizon (the optimal fleet's path included)."""
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
