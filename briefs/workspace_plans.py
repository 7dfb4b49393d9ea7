"""The scenario comparison of a workspace, rendered: the rows the command line, the Scenarios
page and the brief show, the Overview's sentence, and the brief in every format. Every figure
comes from the evaluation (``planning``); nothing here prices a plan."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import UTC, date, datetime

import pandas as pd

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
from costmodel.demand import HOURS_PER_MONTH
from costmodel.plan import ON_DEMAND_BASIS_NOTES, PlanLine, PlanResult
from costmodel.workspace import Workspace
from planning.evaluation import verdicts_of
from planning.verdicts import BUY_WORD, RULE_SENTENCE, PlanVerdict, decided_plan
from planning.workspaces import Knobs, view_params
from tokendesk import formatting


# ---- rendering ---------------------------------------------------------------------------------
def results_json(results: Sequence[PlanResult]) -> str:
    verdicts = {v.scenario: v for v in verdicts_of(results)}
    decided = decided_plan(list(verdicts.values()))
    rows = [
        dict(
            r.as_dict(),
            cheapest=r.name == decided and verdicts[r.name].verdict == BUY_WORD,
            decision=verdicts[r.name].verdict,
            decision_reason=verdicts[r.name].reason,
            compared_usd_per_month=round(r.compared_usd_per_month, 2),
        )
        for r in results
    ]
    return json.dumps(rows, indent=2, ensure_ascii=False)


def _shares(shares: Mapping[str, float]) -> str:
    return ", ".join(f"{k} {v:.2%}".replace(".00%", "%") for k, v in shares.items() if v > 0)


def _payback(r: PlanResult) -> str:
    if r.is_baseline:
        return "baseline"
    return f"month {r.payback_month}" if r.payback_month else "never (36 months)"


def results_rows(results: Sequence[PlanResult]) -> list[dict[str, str]]:
    """One row per scenario, the same text on the command line, in markdown and on the page."""
    verdicts = {v.scenario: v for v in verdicts_of(results)}
    rows = []
    for r in results:
        rows.append(
            {
                "Scenario": r.name,
                "Verdict": "INFEASIBLE: demand unserved"
                if not r.feasible
                else verdicts[r.name].verdict.upper(),
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


def headline(results: Sequence[PlanResult]) -> str:
    """The Overview's sentence: the fleet as it runs against the plan the verdicts name, from the
    same evaluation the Scenarios page and the brief show (same workspace, same rule)."""
    stay = next(r for r in results if r.is_baseline)
    verdicts = {v.scenario: v for v in verdicts_of(results)}
    moves = [r for r in results if not r.is_baseline and r.feasible]
    own = any(ln.role == "fleet" for ln in stay.fleet)
    subject = (
        "Your fleet as it runs (Stay)"
        if own
        else "Buying every token on the incumbent backend at market prices (Stay)"
    )
    text = f"{subject} costs ${stay.monthly_usd:,.0f}/month"
    if not stay.feasible:
        text += f" and leaves {stay.unserved_tokens_per_month:,.0f} output tokens/month unserved"
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
    change = best.monthly_usd / stay.monthly_usd - 1 if stay.monthly_usd else 0.0
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
        f" ({abs(change):.1%} {direction}){payback}."
    )


# ---- the brief of a workspace comparison -------------------------------------------------------
def recommended_plan(results: Sequence[PlanResult]) -> str:
    return decided_plan(verdicts_of(results))


def brief_stem_for(results: Sequence[PlanResult], day: date | None = None) -> str:
    """``brief-2026-11-30-shift-25-amd``: the file name (without extension) of the brief."""
    return brief_stem(day or datetime.now(UTC).date(), recommended_plan(results))


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
    verdicts = {v.scenario: v for v in verdicts_of(results)}
    prices, benches = fleet_evidence(results, ws, options)
    # Fleet sheets are numbered after the sections before them (decision, side by side, optimal).
    first_fleet = 1 + len(optimal)
    weak = weakest_evidence(results, ws, options)
    assumptions = plan_assumptions(ws, knobs, unit)
    sections = (
        plan_decision_section(results, verdicts, weak),
        Section(
            "Assumptions",
            (
                Bullets(
                    tuple(f"{item}: {value}" for item, value in assumptions.itertuples(index=False))
                ),
            ),
            new_page=True,
        ),
        Section("Scenarios side by side", (side_by_side_table(results, ws, unit),)),
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
        "Stay, moves and their payback from the company's own fleet, contracts and demand"
        if ws.fleet
        else "Buying every token at market prices against moving shares of it to other vendors,"
        " for the demand under Assumptions",
        meta,
        sections,
        assumptions,
        workspace_csv_frame(results, verdicts),
        file_stem=brief_stem(generated_at.date(), recommended_plan(results)),
        link=link,
        live_model=workspace_live_model(results, stay.name),
    )


#: The column of the money table the verdicts are read from.
COMPARED = "$/month compared"


def plan_decision_section(
    results: Sequence[PlanResult],
    verdicts: Mapping[str, PlanVerdict],
    weak: Mapping[str, list[str]] | None = None,
) -> Section:
    """Page 1: the headline, one sentence per plan, the money, its chart, risks and timeline."""
    feasible = [r for r in results if r.feasible]
    return Section(
        "Decision",
        (
            Paragraph(headline(results)),
            Bullets(tuple(plan_sentences(results, verdicts, weak))),
            plan_money_table(results, verdicts),
            BarChart(
                "Cost per month as compared (feasible plans only)",
                tuple(r.name for r in feasible),
                tuple(verdicts[r.name].usd_per_month for r in feasible),
                "USD per month: month 1's run rate + committed units given back but still paid"
                " + one-time cost ÷ 36",
                groups=tuple(verdicts[r.name].verdict for r in feasible),
                value_format=lambda v: f"${v:,.0f}",
            ),
            Bullets(tuple(plan_risks(results)), title="Top risks"),
            Bullets(tuple(plan_timeline(results)), title="Timeline"),
        ),
    )


def plan_sentences(
    results: Sequence[PlanResult],
    verdicts: Mapping[str, PlanVerdict],
    weak: Mapping[str, list[str]] | None = None,
) -> list[str]:
    """One sentence per plan: the verdict, the compared monthly cost and the reason, flagged
    where the plan's money rests on a low-confidence price (``weakest_evidence``)."""
    stay = next((r for r in results if r.is_baseline), results[0])
    out = []
    for r in results:
        v = verdicts[r.name]
        parts = [f"{_usd(r.monthly_usd)} run rate at month 1"]
        if r.stranded_usd_per_month > 0.005:
            parts.append(f"{_usd(r.stranded_usd_per_month)} of commitments still paid")
        if r.one_time_usd > 0.005:
            parts.append(f"{_usd(r.one_time_usd)} one-time")
        against = "" if r is stay else f", {_signed(v.vs_stay_usd_per_month)} against {stay.name}"
        flagged = (weak or {}).get(r.name)
        caveat = f" Rests on low-confidence figures: {'; '.join(flagged)}." if flagged else ""
        out.append(
            f"{v.verdict.upper()} {r.name}: {_usd(v.usd_per_month)}/month as compared"
            f" ({'; '.join(parts)}){against} — {v.reason}.{caveat}"
        )
    return out


def weakest_evidence(
    results: Sequence[PlanResult], ws: Workspace, options: pd.DataFrame | None
) -> dict[str, list[str]]:
    """Per plan, the low-confidence price quotes its lines are priced from (a rate the
    workspace states is the company's own and never flagged): what a reader should check
    before signing."""
    out: dict[str, list[str]] = {}
    for r in results:
        prices, _ = fleet_evidence((r,), ws, options)
        if prices.empty:
            continue
        low = prices[prices["price_confidence"].astype(str).str.lower() == "low"]
        flagged = [
            f"{row.provider} {row.instance_type} ({row.region}, {row.pricing_model}) at"
            f" ${row.quote_usd_per_hour:,.2f}/h"
            f"{' per accelerator' if row.price_basis == 'per_accelerator' else ''},"
            f" {formatting.day(row.price_observed_at)}"
            for row in low.itertuples()
        ]
        if flagged:
            out[r.name] = list(dict.fromkeys(flagged))
    return out


def plan_money_table(results: Sequence[PlanResult], verdicts: Mapping[str, PlanVerdict]) -> Table:
    """Per plan: the compared cost the verdict reads, month 1 and the last month, one-time, the
    horizon's total, the difference from Stay and payback."""
    stay = next((r for r in results if r.is_baseline), results[0])
    months = len(results[0].monthly_usd_by_month)
    rows = [
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
            "weeks to cutover": lambda w: f"{w:g} w",
        },
        sheet="Money",
        note=f"{COMPARED} = month 1's run rate + committed units given back but still paid + the"
        f" one-time cost ÷ {months} (the basis the verdicts and the optimizer read); {months}"
        " months = the sum of the monthly curve (demand growth, commitments paid until they end)"
        " + the one-time cost.",
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
    """The inputs behind the comparison, for the Assumptions section and sheet: the horizon and
    pricing basis, every workload's demand and SLO, the what-ifs and the decision rule."""
    rows = [
        ("workspace", ws.name),
        ("month 1 starts", ws.start.isoformat()),
        ("hours per month", "730"),
        ("on-demand capacity", ON_DEMAND_BASIS_NOTES[ws.on_demand_basis]),
        ("growth", "applied once a quarter"),
    ]
    for w in ws.demand:
        stand_in = (
            f"; results for {', '.join(w.accept_results_from)} stand in"
            if w.accept_results_from
            else ""
        )
        rows += [
            (
                f"{w.workload}: demand",
                f"{w.output_tokens_per_month / 1e9:,.3g} B output and"
                f" {w.input_tokens_per_month / 1e9:,.3g} B input tokens a month of {w.model}"
                f"{stand_in}",
            ),
            (
                f"{w.workload}: SLO and load",
                f"first token within {w.ttft_ms:,.0f} ms at {w.percentile}; peak hour"
                f" {w.peak_to_mean:g}× the mean; {w.interactive_share:.0%} interactive;"
                f" growth {w.growth_per_quarter:.0%} a quarter",
            ),
        ]
    rows += [
        ("AMD share (Shift N% to AMD)", f"{knobs.amd_share:.0%}"),
        ("CPU share (Add CPU fallback)", f"{knobs.cpu_share:.0%}"),
        ("utilisation cap", f"{knobs.utilisation_cap:.0%}"),
        ("loaded cost of an engineer-week", f"${knobs.loaded_usd_per_engineer_week:,.0f}"),
        ("token costs quoted", f"{formatting.token_unit_label(unit)} tokens"),
        ("decision rule", RULE_SENTENCE),
    ]
    return pd.DataFrame(rows, columns=["item", "value"])


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
