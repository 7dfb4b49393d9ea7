"""Scenarios: Stay (the company's fleet as it runs) against moves, from the stored workspace, with
36 months of cost, payback, the allocation achieved beside the one asked for, risk and the
stage-gate timeline. What-ifs live in the URL, so a shared link reproduces the view."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from app import charts, data, downloads, plan_reads, ui
from app.models import workspace as model
from app.models.scenarios import (
    OPTIMAL,
    allocation_sentence,
    commitment_basis,
    commitment_scenario_table,
    commitment_sentences,
    commitment_table,
    demand_scenario_sentences,
    fleet_frame,
    frontier_frame,
    optimal_sentence,
    optimal_table,
    owned_table,
    risk_lines,
    savings_sentence,
    shape_frame,
    side_by_side_order,
    token_cost_columns,
    unchanged_reason,
    what_ifs_sentence,
)
from app.models.withheld import WITHHELD_NOTE
from app.safe import plain
from briefs.workspace_plans import TOKEN_COST_NOTE, brief_stem_for, headline, results_rows
from costmodel import domain
from costmodel.optimizer import plan_lines
from planning import what_ifs as si
from tokendesk.metrics import PERCENTILES

st.title("Scenarios")
st.caption(
    "What your workload costs per month if you keep the fleet you run (Stay) or move part of it, "
    "month by month for 36 months with demand growth, commitments paid until they end. Edit the "
    "fleet and demand on the Workspace page; change the what-ifs here — the link in your address "
    "bar reproduces this exact view."
)

path = data.db_path()
version, stored = data.workspace(path)
bill_source = model.bill_provenance(data.workspace_versions(path), version)
if bill_source:
    st.caption(plain(bill_source, limit=2000))
params = st.query_params.to_dict()
view = model.scenario_view(params, stored)
for rejected in view.rejected:
    st.warning(plain(rejected.notice, limit=2000), icon="⚠️")
inputs, _ = si.from_params(params)
first = stored.demand[0]


def _number(bound: domain.Bound, value: float, key: str, **extra) -> float:
    return st.number_input(
        bound.label,
        bound.low,
        bound.high,
        float(value),
        step=bound.step,
        format=bound.widget_format,
        key=key,
        **extra,
    )


def _slider(bound: domain.Bound, value: float, key: str, **extra) -> float:
    return st.slider(bound.label, bound.low, bound.high, float(value), bound.step, key=key, **extra)


unit = ui.unit_switch(ui.url_inputs((ui.UNIT_INPUT,))[ui.UNIT_INPUT.key])
ui.keep_in_url({ui.UNIT_INPUT.key: unit}, (ui.UNIT_INPUT,))

with st.sidebar:
    st.header("What if (every workload)")
    peak = _number(
        domain.PEAK_TO_MEAN,
        view.overrides.get("peak", first.peak_to_mean),
        "peak",
        help=domain.PEAK_TO_MEAN.why,
    )
    slo = _number(domain.SLO_MS, view.overrides.get("slo", first.ttft_ms), "slo")
    pct = st.selectbox(
        "Latency percentile (every SLO)",
        PERCENTILES,
        PERCENTILES.index(view.overrides.get("pct", first.percentile)),
        key="pct",
        help="The percentile every first-token latency is read at; the workspace sets one per "
        "workload, a choice here applies to all of them.",
    )
    inter = _slider(
        domain.INTERACTIVE_SHARE,
        view.overrides.get("inter", first.interactive_share),
        "inter",
    )
    st.header("Scenarios")
    amd = _slider(domain.AMD_SHARE, inputs.amd, "amd")
    cpu = _slider(domain.CPU_SHARE, inputs.cpu, "cpu")
    custom = st.text_input(
        "Custom scenario (backend:share, …)",
        inputs.custom,
        key="custom",
        placeholder="cuda:0.5,rocm:0.3,hpu:0.2",
        help=f"Backends: {', '.join(si.BACKENDS)}. Shares must sum to 1.",
    )
    st.header("Fleet and migration")
    util = _slider(domain.UTILISATION_CAP, inputs.util, "util")
    rate = _number(domain.ENGINEER_WEEK_USD, inputs.rate, "rate")

try:
    si.parse_custom(custom)
except ValueError as exc:
    st.warning(f"Custom scenario ignored: {plain(exc)}.", icon="⚠️")
    custom = ""

# Keep the URL in step: what-ifs only where they differ from the workspace, knobs where they
# differ from the defaults.
wanted = si.to_params(si.ScenarioInputs(amd=amd, cpu=cpu, util=util, rate=rate, custom=custom))
for key, value, own in (
    ("peak", peak, first.peak_to_mean),
    ("slo", slo, first.ttft_ms),
    ("inter", inter, first.interactive_share),
):
    if key in view.overrides or abs(value - own) > 1e-9:
        wanted[key] = f"{value:g}"
if "pct" in view.overrides or pct != first.percentile:
    wanted["pct"] = pct
managed = set(si.PAGE_KEYS)
if {k: v for k, v in params.items() if k in managed} != wanted:
    for key in managed:
        if key in wanted:
            st.query_params[key] = wanted[key]
        elif key in st.query_params:
            del st.query_params[key]

view = model.scenario_view(wanted, stored)
evaluation = plan_reads.workspace_evaluation(path, view.workspace, view.knobs)
results = evaluation.plans

st.caption(
    f"Workspace: **{plain(stored.name)}**"
    + (f" (version {version})" if version else " (the bundled example)")
    + (" · what-ifs: " + plain(what_ifs_sentence(view.overrides)) if view.overrides else "")
)
st.info(plain(headline(evaluation), limit=2000))
withheld_notes = plan_reads.withheld_notes(path, view.workspace)
if withheld_notes:
    st.caption(WITHHELD_NOTE + " " + plain("; ".join(withheld_notes), limit=2000) + ".")

st.subheader("Side by side")
side_by_side = pd.DataFrame(results_rows(evaluation))
token_costs = token_cost_columns(evaluation, view.workspace, unit)
for offset, (label, values) in enumerate(token_costs.items(), start=1):
    side_by_side.insert(side_by_side.columns.get_loc("Monthly (month 1)") + offset, label, values)
side_by_side = side_by_side[side_by_side_order(list(side_by_side), list(token_costs))]
ui.dataframe(side_by_side, key="summary")
st.caption(TOKEN_COST_NOTE)
st.markdown("**Workload shape**: what each workload's capacity was read at, and how.")
ui.dataframe(shape_frame(results), key="shapes")
for r in results:
    if r.headline != r.name:
        (st.warning if r.feasible else st.error)(plain(r.headline, limit=2000))
    for reason in r.unserved_reasons:
        st.error(f"{plain(r.name)}: {plain(reason, limit=2000)}")

st.subheader("Monthly cost over 36 months")
# The optimal fleet's path is a plan over the same 36 months: it is drawn with the others.
solved = evaluation.optimal
curves = [*results, *([solved] if solved is not None and solved.feasible else [])]
st.plotly_chart(charts.monthly_cost_curve(curves), width="stretch", key="curve")
st.caption(
    "Before a move's cut-over month the fleet runs as it is; committed capacity a move releases is "
    "paid until its commitment ends (or ended early when that is cheaper); demand grows once a "
    "quarter and the cheapest approved top-up carries what the fleet cannot."
)

#: The fleet tables' money columns (headers as :func:`fleet_frame` names them).
FLEET_NUMBERS = {
    "$/month": st.column_config.NumberColumn("$/month", format="$%,.2f"),
    "$/hour": st.column_config.NumberColumn("$/hour", format="$%.4f"),
}


def _dash_for_missing(frame: pd.DataFrame) -> pd.DataFrame:
    """A dash where a cell has no value (a rate withheld from this person); the columns holding
    one become text columns, the others keep their numbers."""
    for column in frame.columns[frame.isna().any()]:
        frame[column] = frame[column].astype(object).where(frame[column].notna(), "—")
    return frame


def plan_details(r) -> None:
    """One plan's fleet, allocation and notes, risk, and timeline, one tab each; only the tab a
    person has open is drawn (a Gantt chart in an unseen tab cost the browser as much as one in
    view)."""
    st.markdown(plain(r.description, limit=2000))
    unchanged = unchanged_reason(r, STAY)
    if unchanged:
        st.info(plain(unchanged, limit=2000), icon=":material/info:")
    fleet_tab, notes_tab, risk_tab, timeline_tab = st.tabs(
        ["Fleet", "Allocation and notes", "Risk", "Timeline and payback"],
        key=f"plan_tabs_{r.name}",
        on_change="rerun",
    )
    if fleet_tab.open:
        with fleet_tab:
            if r.fleet:
                ui.dataframe(
                    _dash_for_missing(
                        fleet_frame(plan_reads.shown_lines([ln.as_dict() for ln in r.fleet]))
                    ),
                    key=f"fleet_{r.name}",
                    column_config=FLEET_NUMBERS,
                )
            else:
                st.info("No fleet: nothing approved can serve this plan.")
    if notes_tab.open:
        with notes_tab:
            st.write(allocation_sentence(r))
            if not r.is_baseline:
                st.markdown(plain(savings_sentence(r), limit=4000))
            for note in (*r.allocation_notes, *r.constraint_violations, *r.notes):
                st.caption(f"⚠️ {plain(note, limit=2000)}")
    if risk_tab.open:
        with risk_tab:
            for line in risk_lines(r.risk):
                st.markdown(line)
    if timeline_tab.open:
        with timeline_tab:
            st.markdown(plain(r.timeline.sentence, limit=2000))
            if r.timeline.gates:
                st.plotly_chart(
                    charts.gantt_weeks(r.timeline.gates), width="stretch", key=f"gantt_{r.name}"
                )
            st.caption(plain(" ".join((r.payback_sentence, *r.one_time_notes)), limit=4000))


STAY = evaluation.stay
for r in results:
    title = f"{plain(r.name)} — \\${r.monthly_usd:,.0f}/month" + (
        "" if r.feasible else " — INFEASIBLE"
    )
    if unchanged_reason(r, STAY):
        title += " — changes nothing (why inside)"
    # Drawn when opened (Stay is open to begin with): closed plans cost the browser nothing.
    details = st.expander(title, expanded=r.is_baseline, key=f"plan_{r.name}", on_change="rerun")
    if details.open:
        with details:
            plan_details(r)

# Solved last, so that every scenario above is on screen while the optimizer works.
st.subheader("Optimal")
st.caption(
    "The cheapest fleet (SKU × region × pricing model × count) that carries every hour of the "
    "demand at its SLOs within the approved providers, regions and vendor-share cap, keeping "
    "commitments that are paid anyway; solved as a mixed-integer programme. Here every scenario "
    "is priced the same way as the optimizer prices a plan, so the rows compare directly."
)
solve_it = st.toggle(
    "Find the optimal fleet and the price of diversification (about 5 s each time an input "
    "changes; the brief always includes it)",
    ui.url_inputs((OPTIMAL,))[OPTIMAL.key],
    key="optimal",
)
ui.keep_in_url({OPTIMAL.key: solve_it}, (OPTIMAL,))
if solve_it:
    with st.spinner("Solving for the optimal fleet…"):
        optimum = plan_reads.workspace_optimum(path, view.workspace, view.knobs)
    (st.success if optimum.solution.feasible else st.error)(
        plain(optimal_sentence(optimum), limit=2000)
    )
    ui.dataframe(
        optimal_table(optimum),
        key="optimal_summary",
        column_config={
            "$/month (optimizer basis)": st.column_config.NumberColumn(format="$%,.0f"),
            "vs Stay ($/month)": st.column_config.NumberColumn(format="%+,.0f"),
        },
    )
    if optimum.solution.feasible:
        with st.expander("Optimal fleet"):
            ui.dataframe(
                fleet_frame(
                    plan_reads.shown_lines([ln.as_dict() for ln in plan_lines(optimum.solution)])
                ).fillna("—"),
                key="optimal_fleet",
                column_config=FLEET_NUMBERS,
            )
    if optimum.owned:
        st.markdown(
            "**Owned servers** (the workspace allows them): each server's total cost of ownership "
            "per hour beside the cheapest approved cloud instance with the same accelerators."
        )
        ui.show_table(owned_table(optimum), key="owned")
        st.caption(
            "$/server-hour = (capex repaid with interest over the depreciation years + colocation "
            "+ staff) ÷ 8,760 h + power × PUE × electricity price. Break-even = capex ÷ (the cloud "
            "instance's monthly cost − the server's monthly running cost)."
        )
    frontier = frontier_frame(optimum.frontier)
    st.markdown("**Price of diversification**: the optimal fleet under each vendor-share cap.")
    if len(frontier):
        st.plotly_chart(charts.frontier_chart(frontier), width="stretch", key="frontier")
        st.caption(
            "Each point is a separate solve with that cap (the cap binds each vendor's share of "
            "traffic); the line only joins solved caps. HHI is weighted by month-1 spend by "
            "vendor, as every plan's (0-10,000; 10,000 = a single vendor)."
        )
    else:
        st.info("No vendor-share cap has a feasible fleet for this workspace.")

st.subheader("How much to commit")
st.caption(
    "What to commit, when and for how long: the commitments on the optimizer's cheapest path over "
    "the 36 months (the fleet's commitments to their end, new 1- or 3-year commitments at quarter "
    "starts), and, in the section below, the same path solved again under each demand scenario "
    "(a solve each, made when the section is opened). Same figures as `tokendesk commit` and "
    "`tokendesk optimize`."
)
on_the_path = plan_reads.workspace_commitment(path, view.workspace, view.knobs, scenarios=False)
for sentence in commitment_sentences(on_the_path):
    st.markdown(f"- {sentence}")
# Drawn and solved when opened, like the plans above: a closed section costs the page nothing,
# and a what-if does not wait for every demand scenario's path (seconds to tens of seconds).
section = st.expander(
    "Every commitment, and under each scenario", key="commitment", on_change="rerun"
)
if section.open:
    with section, st.spinner("Solving the path under each demand scenario…"):
        commitment = plan_reads.workspace_commitment(path, view.workspace, view.knobs)
        for sentence in demand_scenario_sentences(commitment):
            st.markdown(f"- {sentence}")
        ui.show_table(commitment_table(commitment), key="commit_table")
        ui.show_table(commitment_scenario_table(commitment), key="commit_scenarios")
        st.caption(commitment_basis(commitment))

st.subheader("Brief")
st.caption(
    "The same comparison as a document to forward. From the command line: "
    "`tokendesk scenarios --link '<this page's address>' --format pdf -o brief.pdf`."
)
MIME = {
    "pdf": "application/pdf",
    "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    "md": "text/markdown",
    "html": "text/html",
    "csv": "text/csv",
}
left, right = st.columns([1, 3])
brief_format = left.selectbox("Format", list(MIME), key="brief_format")
if right.button("Prepare the brief", key="brief_prepare"):
    with st.spinner("Rendering the brief…"):
        payload = plan_reads.workspace_brief(path, view.workspace, view.knobs, brief_format, unit)
    downloads.download_button(
        right,
        f"Download brief ({brief_format.upper()}, {len(payload) / 1024:,.0f} KiB)",
        payload,
        file_name=f"{brief_stem_for(evaluation)}.{brief_format}",
        mime=MIME[brief_format],
        key="brief_download",
    )
