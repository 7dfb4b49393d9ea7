"""Scenarios: stay / shift to AMD / add CPU fallback / custom, side by side, with cost, FTL against
the SLO, fleet, risk, timeline and uncertainty. The whole state lives in the URL."""

from __future__ import annotations

from dataclasses import asdict, replace

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from app import charts, data
from app.safe import plain
from costmodel import cost_range, tornado
from tokendesk import formatting
from tokendesk import scenario_inputs as si
from tokendesk.metrics import PERCENTILES

st.title("Scenarios")
st.caption(
    "What the workload costs per month on each plan, whether first-token latency still meets the SLO, "
    "how concentrated the fleet is, and how long the move takes. Change any input: the link in your "
    "address bar reproduces this exact view."
)

inputs, notices = si.from_params(st.query_params.to_dict())
for notice in notices:
    st.warning(notice, icon="⚠️")

with st.sidebar:
    st.header("Demand and SLO")
    model = st.selectbox(
        "Main workload model",
        list(si.MODEL_FAMILIES),
        index=list(si.MODEL_FAMILIES).index(inputs.model),
        format_func=lambda f: f"{f.upper()} class ({', '.join(si.MODEL_FAMILIES[f][:2])}, …)",
        key="s_model",
    )
    out_b = st.number_input(
        "Output tokens per month (billions)",
        0.001,
        100_000.0,
        inputs.out_b,
        step=5.0,
        key="s_out_b",
    )
    in_b = st.number_input(
        "Input tokens per month (billions)", 0.0, 1_000_000.0, inputs.in_b, step=10.0, key="s_in_b"
    )
    small_b = st.number_input(
        "Small-model output tokens per month (billions)",
        0.0,
        100_000.0,
        inputs.small_b,
        step=1.0,
        key="s_small_b",
        help="Routing / classification traffic an 8B model serves; CPU fallback can take a share.",
    )
    inter = st.slider(
        "Interactive share",
        0.0,
        1.0,
        inputs.inter,
        0.05,
        key="s_inter",
        help="The rest is batch, routed to the cheapest allowed region.",
    )
    peak = st.number_input("Peak hour ÷ mean hour", 1.0, 24.0, inputs.peak, step=0.1, key="s_peak")
    slo = st.number_input("FTL SLO (ms)", 10.0, 120_000.0, inputs.slo, step=100.0, key="s_slo")
    pct = st.selectbox(
        "SLO percentile", PERCENTILES, index=PERCENTILES.index(inputs.pct), key="s_pct"
    )
    st.header("Scenarios")
    amd = st.slider("Shift to AMD: share", 0.01, 0.99, inputs.amd, 0.01, key="s_amd")
    cpu = st.slider(
        "CPU fallback: share of small-model traffic", 0.01, 0.99, inputs.cpu, 0.01, key="s_cpu"
    )
    custom = st.text_input(
        "Custom scenario (backend:share, …)",
        inputs.custom,
        key="s_custom",
        placeholder="cuda:0.5,rocm:0.3,hpu:0.2",
        help=f"Backends: {', '.join(si.BACKENDS)}. Shares must sum to 1.",
    )
    st.header("Fleet and migration")
    util = st.slider("Utilisation cap", 0.1, 1.0, inputs.util, 0.05, key="s_util")
    spot = st.checkbox("Batch may run on spot", inputs.spot, key="s_spot")
    rate = st.number_input(
        "Loaded cost per engineer-week ($)", 0.0, 100_000.0, inputs.rate, step=500.0, key="s_rate"
    )

chosen = replace(
    inputs,
    model=model,
    out_b=out_b,
    in_b=in_b,
    small_b=small_b,
    inter=inter,
    peak=peak,
    slo=slo,
    pct=pct,
    amd=amd,
    cpu=cpu,
    util=util,
    spot=spot,
    rate=rate,
)
try:
    si.parse_custom(custom)
    chosen = replace(chosen, custom=custom)
except ValueError as exc:
    st.warning(f"Custom scenario ignored: {plain(exc)}.", icon="⚠️")
    chosen = replace(chosen, custom="")

# Keep the URL in step with the inputs (only non-default keys), so the link reproduces the view.
wanted = si.to_params(chosen)
if {k: v for k, v in st.query_params.to_dict().items() if k in asdict(si.DEFAULTS)} != wanted:
    for key in asdict(si.DEFAULTS):
        if key in wanted:
            st.query_params[key] = wanted[key]
        elif key in st.query_params:
            del st.query_params[key]


def _payback(result) -> str:
    if result is base:
        return "baseline"
    if result.payback_months is not None:
        return f"{result.payback_months:.1f} months"
    if not result.migration.one_time_usd:
        return "nothing to pay back"
    return "never (costs more per month)" if (result.savings_vs_baseline_usd or 0) <= 0 else "—"


results = data.compare_scenarios(data.db_path(), chosen)
base = results[0]

st.subheader("Side by side")
summary = pd.DataFrame(
    [
        {
            "Scenario": r.name,
            "Monthly cost": r.monthly_usd,
            "$/1K tokens": r.usd_per_1k_tokens,
            "Savings vs Stay ($/month)": r.savings_vs_baseline_usd or 0.0,
            "One-time migration": r.migration.one_time_usd,
            "Payback": _payback(r),
            "Meets FTL SLO": "yes"
            if r.latency and all(seg.meets for seg in r.latency)
            else "no"
            if r.latency
            else "—",
            "Vendor HHI": r.risk.hhi_vendor.value,
            "Weeks to cutover": r.timeline.weeks_to_cutover,
            "Unserved": "; ".join(r.unserved) or "—",
        }
        for r in results
    ]
)
st.dataframe(
    summary,
    hide_index=True,
    width="stretch",
    key="scenario_summary",
    column_config={
        "Monthly cost": st.column_config.NumberColumn(format="$%,.0f"),
        "$/1K tokens": st.column_config.NumberColumn(
            format="$%.5f", help="Blended over input and output tokens"
        ),
        "Savings vs Stay ($/month)": st.column_config.NumberColumn(
            format="%+,.0f", help="Negative means it costs more than Stay"
        ),
        "One-time migration": st.column_config.NumberColumn(format="$%,.0f"),
        "Vendor HHI": st.column_config.NumberColumn(
            format="%,.0f", help="0-10,000; above 1,800 is highly concentrated"
        ),
        "Weeks to cutover": st.column_config.NumberColumn(format="%g w"),
    },
)

ranges = [cost_range(r) for r in results if r.lines]
if ranges:
    chart = go.Figure(
        go.Bar(
            x=[c.scenario for c in ranges],
            y=[c.monthly_usd_base for c in ranges],
            error_y={
                "type": "data",
                "symmetric": False,
                "array": [c.monthly_usd_high - c.monthly_usd_base for c in ranges],
                "arrayminus": [c.monthly_usd_base - c.monthly_usd_low for c in ranges],
            },
            marker_color="#0F6E5A",
            hovertemplate="%{x}<br>base $%{y:,.0f}/month<extra></extra>",
        )
    )
    chart.update_layout(
        height=340,
        margin={"l": 10, "r": 10, "t": 30, "b": 10},
        title="Monthly cost with low/high uncertainty band",
    )
    chart.update_yaxes(title="USD per month", tickprefix="$", tickformat=",.0f")
    st.plotly_chart(chart, width="stretch", key="cost_bands")
    st.caption(" ".join(c.sentence for c in ranges))

for result in results:
    with st.expander(
        f"{result.name} — {formatting.usd(result.monthly_usd, 0)}/month", expanded=result is base
    ):
        if result.scenario.description:
            st.write(result.scenario.description)
        for problem in result.unserved:
            st.error(problem)
        fleet_tab, latency_tab, risk_tab, timeline_tab, sensitivity_tab = st.tabs(
            ["Fleet", "FTL vs SLO", "Risk", "Timeline", "Sensitivity"]
        )
        with fleet_tab:
            if not result.lines:
                st.info("No fleet: nothing in the current data can serve this scenario.")
            else:
                fleet = pd.DataFrame(
                    [
                        {
                            "Segment": ln.segment,
                            "Mode": ln.mode,
                            "Allocation": ln.allocation,
                            "Provider": ln.provider,
                            "Region": ln.region,
                            "Instance": ln.instance_type,
                            "Accelerator": ln.accelerator_id,
                            "Model": ln.model,
                            "Precision": ln.precision,
                            "Units at peak": ln.units_peak,
                            "Reserved units": ln.units_reserved,
                            "Spot units": ln.units_spot,
                            "Pricing": ln.pricing,
                            "Monthly cost": ln.monthly_usd,
                            "FTL (ms)": ln.ftl_ms,
                            "Meets SLO": {True: "yes", False: "no", None: "n/a (batch)"}[
                                ln.slo_met
                            ],
                            "Price date": ln.price_observed_at,
                            "Result date": ln.bench_measured_at,
                            "Capacity basis": ln.capacity_note,
                        }
                        for ln in result.lines
                    ]
                )
                st.dataframe(
                    fleet,
                    hide_index=True,
                    width="stretch",
                    column_config={
                        "Monthly cost": st.column_config.NumberColumn(format="$%,.0f"),
                        "FTL (ms)": st.column_config.NumberColumn(format="%.0f ms"),
                        "Price date": st.column_config.DateColumn(),
                        "Result date": st.column_config.DateColumn(),
                    },
                )
            for warning in result.warnings:
                st.caption(f"⚠️ {plain(warning)}")
        with latency_tab:
            for segment in result.latency:
                (st.success if segment.meets else st.error)(plain(segment.sentence, limit=2000))
            if not result.latency:
                st.info("No interactive segment is served, so there is no FTL to check.")
        with risk_tab:
            for figure in result.risk.figures():
                st.markdown(
                    f"**{plain(figure.name)}: {figure.value:,.0f} {plain(figure.unit)}** —"
                    f" {plain(figure.sentence, limit=2000)}"
                )
            if result.risk.maturity_details:
                st.caption(" · ".join(plain(d) for d in result.risk.maturity_details))
        with timeline_tab:
            st.markdown(plain(result.timeline.sentence, limit=2000))
            if result.timeline.gates:
                figure = charts.gantt_weeks(result.timeline.gates)
                st.plotly_chart(figure, width="stretch", key=f"gantt_{result.name}")
            st.caption(
                f"{plain(result.migration.sentence, limit=2000)}"
                f" {plain(result.payback_sentence, limit=2000)}"
            )
        with sensitivity_tab:
            bars = tornado(result) if result.lines else ()
            if not bars:
                st.info("No fleet, so nothing to vary.")
            else:
                frame = pd.DataFrame(
                    [
                        {
                            "Input": b.input,
                            "Low": b.monthly_usd_low_input - result.monthly_usd,
                            "High": b.monthly_usd_high_input - result.monthly_usd,
                        }
                        for b in bars
                    ]
                )
                figure = go.Figure()
                figure.add_bar(
                    y=frame["Input"],
                    x=frame["Low"],
                    orientation="h",
                    name="input at low",
                    marker_color="#7FB3A8",
                )
                figure.add_bar(
                    y=frame["Input"],
                    x=frame["High"],
                    orientation="h",
                    name="input at high",
                    marker_color="#C0392B",
                )
                figure.update_layout(
                    barmode="overlay",
                    height=120 + 40 * len(frame),
                    margin={"l": 10, "r": 10, "t": 10, "b": 10},
                )
                figure.update_xaxes(
                    title="Change in monthly cost (USD)", tickprefix="$", tickformat=",.0f"
                )
                figure.update_yaxes(autorange="reversed")
                st.plotly_chart(figure, width="stretch", key=f"tornado_{result.name}")
                for bar in bars:
                    st.caption(bar.sentence)

st.subheader("Buy / no-buy brief")
st.caption(
    "A document procurement can forward: a recommendation per scenario "
    "with the rule behind it, cost, risk and "
    "timeline tables, assumptions, sensitivity, and the source, date and "
    "snapshot id of every price and benchmark used. "
    "The same brief from the command line: `tokendesk brief --link '<this "
    "page's address>' --format pdf -o brief.pdf`."
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
        payload = data.brief_bytes(data.db_path(), chosen, brief_format)
    right.download_button(
        f"Download brief ({brief_format.upper()}, {len(payload) / 1024:,.0f} KiB)",
        payload,
        file_name=f"tokendesk-brief.{brief_format}",
        mime=MIME[brief_format],
        key="brief_download",
    )
