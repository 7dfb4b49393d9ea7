"""The optimal fleet and the price of diversification as document sections and text: the brief,
the Scenarios page and ``tokendesk optimize`` show the same sentences and tables."""

from __future__ import annotations

from briefs.document import BarChart, Block, Bullets, Paragraph, Section, table
from costmodel.optimizer import plan_lines, spend_hhi
from costmodel.optimizer_horizon import HorizonSolution
from costmodel.optimizer_workspace import OwnedComparison
from costmodel.risk import RISK_BASIS
from planning.optimal_plan import Optimized, owned_rows, price_source, proven_sentence
from tokendesk import formatting
from tokendesk.labels import label, sku_label


def owned_sentences(owned: tuple[OwnedComparison, ...]) -> list[str]:
    """One sentence per owned server: its rate and its break-even against the cloud."""
    out = []
    for c in owned:
        r = c.rate
        text = (
            f"Owned {r.server.name}: ${r.usd_per_server_hour:,.2f}/server-hour ="
            f" ${r.usd_per_accelerator_hour:,.2f}/accelerator-hour ({r.confidence} confidence)"
        )
        if c.cloud:
            alt = c.cloud[0]
            o, months = alt.option, alt.break_even_months
            where = price_source(o)
            against = (
                "the cheapest approved cloud option with the same accelerator, "
                f"{sku_label(o.provider, o.region, o.instance_type, alt.pricing_model)} at"
                f" ${alt.usd_per_server_hour:,.2f}/h ({alt.basis}; {where['source']},"
                f" {where['as_of']}, {where['confidence']} confidence)"
            )
            text += (
                f"; pays back in {months:,.1f} months against {against}"
                if months is not None
                else f"; never pays back against {against}"
            )
        out.append(text + ".")
    return out


def optimal_rows(o: Optimized) -> list[dict[str, str]]:
    """The plan's lines, then its one-time cost per month: the $/month column adds up to the
    headline."""
    rows = [
        {
            "Workload": ln.workload,
            "Role": f"{ln.role}: {ln.allocation.removeprefix('Optimal: ')}",
            "Provider / region": f"{ln.provider} {ln.region}",
            "Instance": ln.instance_type,
            "Pricing": label(ln.pricing_model),
            "Count": str(ln.count),
            "$/h": formatting.usd_rate(ln.usd_per_hour),
            "$/month": f"{ln.monthly_usd:,.0f}",
        }
        for ln in plan_lines(o.solution)
    ]
    if o.solution.one_time_usd:
        rows.append(
            {
                "Workload": "all",
                "Role": "one-time",
                "Provider / region": "",
                "Instance": "migration and early termination",
                "Pricing": f"${o.solution.one_time_usd:,.0f} ÷ {o.horizon_months} months",
                "Count": "",
                "$/h": "",
                "$/month": f"{o.one_time_usd_per_month:,.0f}",
            }
        )
    if rows:
        rows.append(
            {
                "Workload": "total",
                "Role": "",
                "Provider / region": "",
                "Instance": "",
                "Pricing": "",
                "Count": "",
                "$/h": "",
                "$/month": f"{o.solution.objective_usd_per_month or 0:,.0f}",
            }
        )
    return rows


def _sentence(text: str) -> str:
    """The text as a sentence: a capital first letter (the rest as written) and a full stop."""
    return text[:1].upper() + text[1:] + ("" if text.endswith(".") else ".")


def _whole_dollars(v: float | None) -> float:
    """A dollar figure to print in whole dollars: solver noise of a fraction of a cent either side
    of zero prints as 0, never "-0"."""
    return 0.0 if v is None or abs(v) < 0.5 else v


def solved_in(h: HorizonSolution) -> str:
    """How long the search over the horizon took, and whether this run did it."""
    if h.reused:
        return f"solved in {h.solve_seconds:.1f} s by an earlier run, its answer reused"
    return f"{h.solve_seconds:.1f} s"


def optimal_summary(o: Optimized) -> list[str]:
    s = o.solution
    out = [
        f"Search: {s.status}, {proven_sentence(s)} ({o.n_candidates} candidates,"
        f" {o.solve_seconds:.2f} s).",
    ]
    if s.feasible:
        shares = ", ".join(f"{k} {v:.0%}" for k, v in s.vendor_shares.items())
        out.append(
            ("Optimal" if s.status == "optimal" else "Best plan found (not proven optimal)")
            + f": ${s.objective_usd_per_month:,.0f}/month (run rate"
            f" ${s.run_rate_usd_per_month:,.0f}, one-time ${s.one_time_usd:,.0f});"
            f" Stay ${o.comparable[o.stay.name]:,.0f}/month; saving"
            f" ${o.saving_vs_stay:,.0f}/month. Traffic: {shares}; vendor HHI"
            f" {spend_hhi(s):,.0f} (weighted by {RISK_BASIS}, as every plan's)."
        )
    else:
        out.append(f"No fleet meets every constraint: {s.message}")
    h = o.horizon
    if h is not None and h.feasible and h.horizon_usd is not None:
        totals = "; ".join(f"{r.name} ${r.horizon_usd:,.0f}" for r in o.builtins)
        out.append(
            f"Over {len(h.monthly_usd)} months the cheapest path costs ${h.horizon_usd:,.0f}"
            f" ({h.status}; bound ${h.bound_usd or 0:,.0f}; {solved_in(h)}): {totals}."
            " Its month 1 is what to buy now; the other $/month figures here are the month-1"
            " programme's."
        )
    for r in o.builtins:
        flag = "" if r.feasible and not r.constraint_violations else " (breaks a constraint)"
        out.append(f"{r.name}: ${o.comparable[r.name]:,.0f}/month{flag}")
    out += owned_sentences(o.owned)
    out.append(
        f"Price of diversification (vendor-share cap → $/month, premium, HHI by {RISK_BASIS}):"
    )
    for p in o.frontier:
        if p.feasible:
            out.append(
                f"  ≤ {p.max_vendor_share:.0%}: ${p.objective_usd_per_month:,.0f}"
                f" (+${_whole_dollars(p.premium_usd_per_month):,.0f}), HHI {p.hhi:,.0f}"
            )
        else:
            out.append(f"  ≤ {p.max_vendor_share:.0%}: no feasible fleet")
    return out


def brief_sections(o: Optimized) -> tuple[Section, ...]:
    """Optimal and the price of diversification, for the scenario brief (same figures as the
    Scenarios page and ``tokendesk optimize``)."""
    s = o.solution
    stay = o.comparable[o.stay.name]
    rows = [
        {
            "scenario": r.name,
            "usd_per_month": round(o.comparable[r.name], 2),
            "vs_stay_usd_per_month": round(o.comparable[r.name] - stay, 2),
            "meets_every_constraint": "yes" if r.feasible and not r.constraint_violations else "no",
        }
        for r in o.builtins
    ]
    if s.feasible and s.objective_usd_per_month is not None:
        rows.append(
            {
                "scenario": "Optimal",
                "usd_per_month": round(s.objective_usd_per_month, 2),
                "vs_stay_usd_per_month": round(s.objective_usd_per_month - stay, 2),
                "meets_every_constraint": "yes",
            }
        )
    frontier = [
        {
            "max_vendor_share": p.max_vendor_share,
            "usd_per_month": round(p.objective_usd_per_month, 2),
            "premium_usd_per_month": round(p.premium_usd_per_month or 0.0, 2),
            "vendor_hhi_by_month_1_spend": round(p.hhi, 1),
        }
        for p in o.frontier
        if p.feasible and p.objective_usd_per_month is not None and p.hhi is not None
    ]
    blocks: list[Block] = [
        Paragraph(_sentence(o.as_dict()["basis"])),
        Bullets(tuple(optimal_summary(o))),
        table("Every scenario and Optimal, priced the same way", rows, sheet="Optimal"),
    ]
    if s.feasible:
        fleet = [ln.as_dict() for ln in plan_lines(s)]
        if s.one_time_usd:
            # so that the table's $/month adds up to Optimal's
            fleet.append(
                {
                    "workload": "all",
                    "role": "one-time",
                    "allocation": f"${s.one_time_usd:,.0f} one-time ÷ {o.horizon_months} months",
                    "monthly_usd": round(o.one_time_usd_per_month, 2),
                }
            )
        blocks.append(table("Optimal: fleet", fleet, sheet="Optimal fleet"))
    diversification: list[Block] = [
        Paragraph(
            "The optimal fleet solved again under each vendor-share cap: what each step away from "
            "concentration costs. The cap binds each vendor's share of traffic; the HHI is weighted"
            f" by {RISK_BASIS} by vendor, as every plan's (0-10,000; 10,000 = one vendor)."
        ),
        table("Cost against vendor concentration", frontier, sheet="Diversification"),
    ]
    if frontier:
        diversification.append(
            BarChart(
                "Optimal cost under each vendor-share cap",
                tuple(
                    f"cap {p['max_vendor_share']:.0%}, HHI {p['vendor_hhi_by_month_1_spend']:,.0f}"
                    for p in frontier
                ),
                tuple(p["usd_per_month"] for p in frontier),
                "USD per month",
                value_format=lambda v: f"${v:,.0f}",
            )
        )
    sections = [
        Section("Optimal", tuple(blocks)),
        Section("Price of diversification", tuple(diversification)),
    ]
    if o.owned:
        sections.append(owned_section(o.owned))
    return tuple(sections)


def owned_section(owned: tuple[OwnedComparison, ...]) -> Section:
    """Owned servers next to the cloud: their rate, how it is made, break-even months."""
    rows = [
        {k: v for k, v in row.items() if k not in ("inputs", "versus_cloud")}
        for row in owned_rows(owned)
    ]
    inputs = [{"server": row["server"], **i} for row in owned_rows(owned) for i in row["inputs"]]
    return Section(
        "Owned hardware",
        (
            Paragraph(
                "Each server's equivalent hourly rate: capital repaid with interest over the"
                " depreciation years, plus colocation and staff, over 8,760 hours a year, plus"
                " power × PUE × electricity price. Break-even months = capex ÷ (the cloud"
                " instance's monthly cost − the server's monthly running cost)."
            ),
            Bullets(tuple(owned_sentences(owned))),
            table("Owned servers: equivalent rates", rows, sheet="Owned"),
            table("Owned servers: every input and its source", inputs, sheet="Owned inputs"),
        ),
    )


def optimal_markdown(o: Optimized) -> str:
    rows = optimal_rows(o)
    lines = [f"# Optimal fleet for {o.workspace.name}", ""]
    lines += [f"- {text}" for text in optimal_summary(o)]
    lines.append("")
    if rows:
        lines.append("| " + " | ".join(rows[0]) + " |")
        lines.append("|" + "---|" * len(rows[0]))
        lines += ["| " + " | ".join(r.values()) + " |" for r in rows]
    lines.append("")
    lines.append(_sentence(o.as_dict()["basis"]))
    return "\n".join(lines) + "\n"
