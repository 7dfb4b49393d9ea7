"""Scenarios: stay / shift to AMD / add CPU fallback / custom, side by side, with cost, FTL against
the SLO, fleet, risk, timeline and uncertainty. The whole state lives in the URL."""

from __future__ import annotations

from dataclasses import asdict, replace

import streamlit as st

from app import charts, data, ui
from app.models import scenarios as model
from costmodel import cost_range, tornado
from costmodel import scenario_inputs as si
from tokendesk import formatting
from tokendesk.metrics import PERCENTILES

#: Brief formats and their MIME types.
MIME = {
    "pdf": "application/pdf",
    "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    "md": "text/markdown",
    "html": "text/html",
    "csv": "text/csv",
}


def number(label: str, key: str, start: si.ScenarioInputs, step: float, **more) -> float:
    """A number input bounded like its URL key; widget key = URL key = ScenarioInputs field."""
    low, high = map(float, si.BOUNDS[key])
    return st.number_input(label, low, high, getattr(start, key), step=step, key=key, **more)


def share(label: str, key: str, start: si.ScenarioInputs, step: float, **more) -> float:
    low, high = map(float, si.BOUNDS[key])
    return st.slider(label, low, high, getattr(start, key), step, key=key, **more)


def sidebar(start: si.ScenarioInputs) -> si.ScenarioInputs:
    families = list(si.MODEL_FAMILIES)
    with st.sidebar:
        st.header("Demand and SLO")
        chosen = {
            "model": st.selectbox(
                "Main workload model",
                families,
                families.index(start.model),
                format_func=lambda f: (
                    f"{f.upper()} class ({', '.join(si.MODEL_FAMILIES[f][:2])}, …)"
                ),
                key="model",
            ),
            "out_b": number("Output tokens per month (billions)", "out_b", start, 5.0),
            "in_b": number("Input tokens per month (billions)", "in_b", start, 10.0),
            "small_b": number(
                "Small-model output tokens per month (billions)",
                "small_b",
                start,
                1.0,
                help="Routing / classification traffic an 8B model serves; CPU fallback can take "
                "a share.",
            ),
            "inter": share(
                "Interactive share",
                "inter",
                start,
                0.05,
                help="The rest is batch, routed to the cheapest allowed region.",
            ),
            "peak": number("Peak hour ÷ mean hour", "peak", start, 0.1),
            "slo": number("FTL SLO (ms)", "slo", start, 100.0),
            "pct": st.selectbox(
                "SLO percentile", PERCENTILES, PERCENTILES.index(start.pct), key="pct"
            ),
        }
        st.header("Scenarios")
        chosen["amd"] = share("Shift to AMD: share", "amd", start, 0.01)
        chosen["cpu"] = share("CPU fallback: share of small-model traffic", "cpu", start, 0.01)
        custom = st.text_input(
            "Custom scenario (backend:share, …)",
            start.custom,
            key="custom",
            placeholder="cuda:0.5,rocm:0.3,hpu:0.2",
            help=f"Backends: {', '.join(si.BACKENDS)}. Shares must sum to 1.",
        )
        st.header("Fleet and migration")
        chosen["util"] = share("Utilisation cap", "util", start, 0.05)
        chosen["spot"] = st.checkbox("Batch may run on spot", start.spot, key="spot")
        chosen["rate"] = number("Loaded cost per engineer-week ($)", "rate", start, 500.0)
    try:
        si.parse_custom(custom)
        chosen["custom"] = custom
    except ValueError as exc:
        st.warning(f"Custom scenario ignored: {exc}.", icon="⚠️")
        chosen["custom"] = ""
    return replace(start, **chosen)


def keep_in_url(chosen: si.ScenarioInputs) -> None:
    """Only non-default keys, so the link reproduces the view and stays short."""
    wanted = si.to_params(chosen)
    if {k: v for k, v in st.query_params.to_dict().items() if k in asdict(si.DEFAULTS)} != wanted:
        for key in asdict(si.DEFAULTS):
            if key in wanted:
                st.query_params[key] = wanted[key]
            elif key in st.query_params:
                del st.query_params[key]


def side_by_side(results) -> None:
    st.subheader("Side by side")
    ui.show_table(
        model.summary_table(results),
        key="scenario_summary",
        **{
            "$/1K tokens": st.column_config.NumberColumn(
                format="$%.5f", help="Blended over input and output tokens"
            ),
            "Vendor HHI": st.column_config.NumberColumn(
                format="%,.0f", help="0-10,000; above 1,800 is highly concentrated"
            ),
        },
    )
    ranges = [cost_range(r) for r in results if r.lines]
    if ranges:
        st.plotly_chart(charts.cost_bands(ranges), width="stretch", key="cost_bands")
        st.caption(" ".join(c.sentence for c in ranges))


def fleet_tab(result) -> None:
    if not result.lines:
        st.info("No fleet: nothing in the current data can serve this scenario.")
    else:
        ui.show_table(model.fleet_table(result.lines), key=f"fleet_{result.name}")
    for warning in result.warnings:
        st.caption(f"⚠️ {warning}")


def latency_tab(result) -> None:
    for segment in result.latency:
        (st.success if segment.meets else st.error)(segment.sentence)
    if not result.latency:
        st.info("No interactive segment is served, so there is no FTL to check.")


def risk_tab(result) -> None:
    for line in model.risk_lines(result.risk):
        st.markdown(line)
    if result.risk.maturity_details:
        st.caption(" · ".join(result.risk.maturity_details))


def timeline_tab(result) -> None:
    st.write(result.timeline.sentence)
    if result.timeline.gates:
        figure = charts.gantt_weeks(result.timeline.gates)
        st.plotly_chart(figure, width="stretch", key=f"gantt_{result.name}")
    st.caption(f"{result.migration.sentence} {result.payback_sentence}")


def sensitivity_tab(result) -> None:
    bars = tornado(result) if result.lines else ()
    if not bars:
        st.info("No fleet, so nothing to vary.")
        return
    frame = model.sensitivity_frame(bars, result.monthly_usd)
    st.plotly_chart(charts.tornado(frame), width="stretch", key=f"tornado_{result.name}")
    for bar in bars:
        st.caption(bar.sentence)


def details(result, expanded: bool) -> None:
    title = f"{result.name} — {formatting.usd(result.monthly_usd, 0)}/month"
    with st.expander(title, expanded=expanded):
        if result.scenario.description:
            st.write(result.scenario.description)
        for problem in result.unserved:
            st.error(problem)
        tabs = st.tabs(["Fleet", "FTL vs SLO", "Risk", "Timeline", "Sensitivity"])
        for tab, show in zip(
            tabs, (fleet_tab, latency_tab, risk_tab, timeline_tab, sensitivity_tab), strict=True
        ):
            with tab:
                show(result)


def brief(chosen: si.ScenarioInputs) -> None:
    st.subheader("Buy / no-buy brief")
    st.caption(
        "A document procurement can forward: a recommendation per scenario with the rule behind "
        "it, cost, risk and timeline tables, assumptions, sensitivity, and the source, date and "
        "snapshot id of every price and benchmark used. The same brief from the command line: "
        "`tokendesk brief --link '<this page's address>' --format pdf -o brief.pdf`."
    )
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


st.title("Scenarios")
st.caption(
    "What the workload costs per month on each plan, whether first-token latency still meets the "
    "SLO, how concentrated the fleet is, and how long the move takes. Change any input: the link "
    "in your address bar reproduces this exact view."
)
start, notices = si.from_params(st.query_params.to_dict())
for notice in notices:
    st.warning(notice, icon="⚠️")
chosen = sidebar(start)
keep_in_url(chosen)
results = data.compare_scenarios(data.db_path(), chosen)
side_by_side(results)
for result in results:
    details(result, expanded=result is results[0])
brief(chosen)
