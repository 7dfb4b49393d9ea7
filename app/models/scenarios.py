"""The Scenarios page's model: the side-by-side table, the risk lines, the optimal fleet."""

from __future__ import annotations

import pandas as pd

from app.models.tables import MISSING, Table, readable
from app.safe import plain
from app.url_state import UNIT_INPUT, UrlInput, owned_keys
from briefs.commitment_doc import basis_sentence, commitment_table_rows, scenario_table_rows
from briefs.plan_evidence import workload_shape_rows
from briefs.workspace_plans import COMPARED, plan_token_costs
from planning import what_ifs as si
from tokendesk import formatting
from tokendesk.labels import sku_label

#: The optimizer switch (off by default: a solve takes seconds).
OPTIMAL = UrlInput(si.OPTIMAL_KEY, "flag", False)
#: The page's own URL inputs beside the scenario keys (``planning.what_ifs.PAGE_KEYS``).
INPUTS = (UNIT_INPUT, OPTIMAL)


def accepted_keys() -> set[str]:
    """Every key the Scenarios page reads from its address."""
    return set(si.PAGE_KEYS) | owned_keys(INPUTS)


#: Risk figures as people name them (the cost model keys them for machines).
RISK_NAMES = {
    "hhi_vendor": "Silicon-vendor concentration",
    "hhi_cloud": "Cloud-provider concentration",
    "hhi_region": "Region concentration",
    "reservation_only_share": "Spend on reservation-only SKUs",
    "single_region_share": "Spend in a single region",
    "spot_share": "Spend on spot capacity",
    "software_maturity": "Software maturity",
    "stale_benchmark_share": "Spend resting on stale benchmarks",
}


def shape_frame(results) -> pd.DataFrame:
    """Per workload, the shape Stay's capacity was read at and each configuration's basis: the
    rows the brief's Assumptions section carries (``briefs.workspace_plans``)."""
    stay = next((r for r in results if r.is_baseline), None)
    rows = workload_shape_rows(stay) if stay is not None else []
    return pd.DataFrame(
        [{"Workload": item, "Shape and capacity basis": value} for item, value in rows],
        columns=["Workload", "Shape and capacity basis"],
    )


def risk_name(key: str) -> str:
    return RISK_NAMES.get(key, key.replace("_", " ").capitalize())


def risk_value(value: float, unit: str) -> str:
    """A risk figure in its unit: shares as percentages, HHI and scores as numbers."""
    if unit == "share of spend":
        return f"{value:.0%} of spend"
    if unit.startswith("score"):
        return f"{value:.0f}/100"
    if unit.startswith("HHI"):
        return f"HHI {value:,.0f} of 10,000"
    return f"{value:,.0f} {unit}"


def risk_lines(report) -> list[str]:
    """One markdown line per risk figure: readable name, value in its unit, and its reason."""
    return [
        f"**{risk_name(f.name)}: {risk_value(f.value, f.unit)}** — {plain(f.sentence, limit=2000)}"
        for f in report.figures()
    ]


def token_cost_columns(results, workspace, unit: str) -> dict[str, list[str]]:
    """Per scenario, month 1's cost per output and per total token, in ``unit``, as text (the
    figures the brief prints too: ``briefs.workspace_plans.plan_token_costs``)."""
    return {
        label: [MISSING if v is None else formatting.usd_per_1k(v) for v in values]
        for label, values in plan_token_costs(results, workspace, unit).items()
    }


#: The side-by-side table's columns a reader decides on, first: a 1280-pixel window shows the
#: scenario, its verdict, the figure the verdict compares and what it costs (month 1, per token)
#: without scrolling sideways.
DECIDING_FIRST = ("Scenario", "Verdict", COMPARED, "Monthly (month 1)")


def side_by_side_order(columns: list[str], token_costs: list[str]) -> list[str]:
    """The side-by-side columns in reading order: scenario, verdict, month 1's cost, its cost per
    token, then the rest as the brief lists them."""
    first = [c for c in (*DECIDING_FIRST, *token_costs) if c in columns]
    return first + [c for c in columns if c not in first]


# -- the optimal fleet -----------------------------------------------------------------------------
def optimal_sentence(optimized) -> str:
    """What the optimizer found, its saving against Stay, and how close it is proven to be."""
    s = optimized.solution
    if not s.feasible:
        return f"No fleet meets every constraint of this workspace ({plain(s.message)})."
    stay = optimized.comparable[optimized.stay.name]
    proof = (
        "proven optimal"
        if s.gap is not None and s.gap <= 1e-9
        else f"proven within {s.gap:.2%} of the cheapest possible"
        if s.gap is not None
        else "no proven bound"
    )
    return (
        f"Optimal: ${s.objective_usd_per_month:,.0f}/month against Stay's ${stay:,.0f}/month "
        f"(saving ${stay - s.objective_usd_per_month:,.0f}/month), {proof}; priced as the month-1 "
        "run rate with committed fleet units paid whether used or not, plus one-time costs spread "
        "over 36 months."
    )


def optimal_table(optimized) -> pd.DataFrame:
    """Every built-in scenario and Optimal priced the same way (the optimizer's basis)."""
    stay = optimized.comparable[optimized.stay.name]
    rows = [
        {
            "Scenario": r.name,
            "$/month (optimizer basis)": optimized.comparable[r.name],
            "vs Stay ($/month)": optimized.comparable[r.name] - stay,
            "Meets every constraint": "yes" if r.feasible and not r.constraint_violations else "no",
        }
        for r in optimized.builtins
    ]
    s = optimized.solution
    if s.feasible:
        rows.append(
            {
                "Scenario": "Optimal",
                "$/month (optimizer basis)": s.objective_usd_per_month,
                "vs Stay ($/month)": s.objective_usd_per_month - stay,
                "Meets every constraint": "yes",
            }
        )
    return pd.DataFrame(rows)


def frontier_frame(points) -> pd.DataFrame:
    """The price of diversification: one row per vendor-share cap that has a feasible fleet."""
    return pd.DataFrame(
        [
            {
                "Vendor-share cap": p.max_vendor_share,
                "Vendor HHI": p.hhi,
                "$/month": p.objective_usd_per_month,
                "Premium ($/month)": p.premium_usd_per_month,
                "Largest vendor share": max(p.vendor_shares.values()),
            }
            for p in points
            if p.feasible and p.vendor_shares
        ],
        columns=[
            "Vendor-share cap",
            "Vendor HHI",
            "$/month",
            "Premium ($/month)",
            "Largest vendor share",
        ],
    )


def owned_table(optimized) -> Table:
    """Owned servers next to the cloud instance with the same accelerators (cheapest first):
    their equivalent rate, its confidence and the months until buying beats renting."""
    rows = []
    for c in optimized.owned:
        r = c.rate
        first = c.cloud[0] if c.cloud else None
        rows.append(
            {
                "Server": r.server.name,
                "$/server-hour": r.usd_per_server_hour,
                "$/accelerator-hour": r.usd_per_accelerator_hour,
                "Confidence": r.confidence,
                "Cloud option it replaces": (
                    sku_label(
                        first.option.provider,
                        first.option.region,
                        first.option.instance_type,
                        first.pricing_model,
                    )
                    if first
                    else None
                ),
                "Cloud $/hour": first[2] if first else None,
                "Break-even (months)": first[3] if first else None,
                "Sources": r.source_note,
            }
        )
    frame = pd.DataFrame(rows)
    return readable(
        frame,
        {column: column for column in frame.columns},
        numbers={
            "$/server-hour": "$%.2f",
            "$/accelerator-hour": "$%.2f",
            "Cloud $/hour": "$%.2f",
            "Break-even (months)": "%.1f",
        },
    )


def commitment_sentences(plan) -> list[str]:
    """One line per workload (what it holds, what the path commits): the same words as
    ``tokendesk commit``."""
    return [plain(s, limit=2000) for s in plan.summary()]


def demand_scenario_sentences(plan) -> list[str]:
    """One line per demand scenario (what the path commits if demand turns out so): the same
    words as ``tokendesk commit``."""
    return [plain(s, limit=2000) for s in plan.scenario_sentences()]


def commitment_table(plan) -> Table:
    """Every commitment on the optimizer's path: what is held and each new commitment."""
    frame = pd.DataFrame(commitment_table_rows(plan))
    return readable(frame, {column: column for column in frame.columns}, numbers={"Units": "%d"})


def commitment_scenario_table(plan) -> Table:
    """The new units the path commits under each demand scenario."""
    frame = pd.DataFrame(scenario_table_rows(plan))
    return readable(frame, {column: column for column in frame.columns})


def commitment_basis(plan) -> str:
    """How the commitments are worked out: the optimizer's path, its bases and the scenarios."""
    return plain(basis_sentence(plan), limit=2000)


def _shares(shares) -> str:
    return ", ".join(f"{k} {v:.1%}" for k, v in shares.items() if v > 0) or "—"


def allocation_sentence(r) -> str:
    """The traffic each vendor carries, asked for and achieved (from each line's own hardware)."""
    return (
        f"Traffic by vendor — requested: {_shares(r.requested_by_vendor)}; achieved:"
        f" {_shares(r.achieved_by_vendor)}."
    )


def savings_sentence(r) -> str:
    """The month-1 saving against Stay and the horizon's, each in named parts that add up."""
    month = "; ".join(f"{name} {value:+,.0f}" for name, value in r.savings_parts)
    horizon = "; ".join(f"{name} {value:+,.0f}" for name, value in r.horizon_savings_parts)
    total = sum(v for _, v in r.horizon_savings_parts)
    return (
        f"Saving against Stay at month 1: ${r.savings_vs_stay_usd:+,.0f}/month = {month}."
        f" Over 36 months: ${total:+,.0f} = {horizon}."
    )


#: What-if keys with no numeric bound, as the page's inputs name them.
_WHAT_IF_NAMES = {"pct": "Latency percentile", "custom": "Custom scenario"}


def what_ifs_sentence(overrides: dict) -> str:
    """The page's what-ifs as people read them, under their input's name ("Interactive share
    1"), never the URL key ("inter=1")."""
    from costmodel.domain import BOUNDS

    words = []
    for key, value in overrides.items():
        name = BOUNDS[key].label if key in BOUNDS else _WHAT_IF_NAMES.get(key, key)
        words.append(f"{name} {value}" if isinstance(value, str) else f"{name} {value:g}")
    return "; ".join(words)


#: A plan line's stored field names (``PlanLine.as_dict()``) as a fleet table's headers.
FLEET_HEADERS = {
    "workload": "Workload",
    "role": "Role",
    "allocation": "Allocation",
    "provider": "Provider",
    "region": "Region",
    "instance_type": "Instance type",
    "pricing_model": "Pricing model",
    "count": "Count",
    "usd_per_hour": "$/hour",
    "monthly_usd": "$/month",
    "commitment_end": "Commitment ends",
    "backend": "Backend",
    "accelerator_id": "Accelerator",
    "vendor": "Vendor",
    "capacity_basis": "Capacity basis",
    "note": "Note",
}


def fleet_frame(rows: list[dict]) -> pd.DataFrame:
    """Plan lines as a fleet table people read: labelled headers, pricing models and backends
    as their labels (``Reserved 1 yr``, not ``reserved_1y``); numbers stay numbers."""
    from tokendesk.labels import label, labelled_column

    frame = pd.DataFrame(rows)
    for column in frame.columns:
        if labelled_column(column) or labelled_column(str(column).replace("_", " ")):
            frame[column] = [v if v is None or v != v else label(v) for v in frame[column]]
    return frame.rename(
        columns=lambda c: FLEET_HEADERS.get(str(c), str(c).replace("_", " ").capitalize())
    )


def _same_lines(plan, stay) -> bool:
    def lines(r) -> list[tuple]:
        return sorted(
            (ln.workload, ln.provider, ln.region, ln.instance_type, ln.pricing_model, ln.count)
            for ln in r.fleet
        )

    return lines(plan) == lines(stay)


def unchanged_reason(plan, stay) -> str | None:
    """Why a move leaves the fleet as Stay runs it, in words ("Add CPU fallback changes nothing:
    no CPU result for llama-3.1-8b-instruct (routing-8b)…"); None when it changes something.
    Plain text: the page escapes it."""
    if plan.is_baseline or plan.achieved_share > 1e-9 or not _same_lines(plan, stay):
        return None
    if plan.requested_share <= 1e-9:
        why = "it asks to move no traffic (its share is 0)"
    elif plan.allocation_notes:
        why = "; ".join(plan.allocation_notes)
    else:
        why = "nothing approved could take the traffic it asks to move"
    return (
        f"{plan.name} changes nothing: its fleet and cost are Stay's, because {why}."
        " Change what it needs (a benchmark result, an approved provider or region) or its"
        " share in the sidebar to see it move."
    )
