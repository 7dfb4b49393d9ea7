"""Costs: $/1K tokens and first-token latency for every priced option, with sources and dates."""

from __future__ import annotations

from functools import partial
from typing import Any

import streamlit as st

from app import charts, data, downloads, ui
from app.models import costs as model
from app.safe import plain
from app.url_state import UrlInput
from tokendesk import formatting
from tokendesk.exports import safe_csv
from tokendesk.metrics import PERCENTILES

#: Rows the page reads and shows at most (the cheapest first).
MAX_ROWS = 1000
#: Filters, in sidebar order: URL key = warehouse column = widget key, with its label.
FILTERS = {
    "vendor": "Vendor",
    "accelerator": "Accelerator",
    "provider": "Cloud / provider",
    "region": "Region",
    "pricing_model": "Pricing model",
    "model": "Model",
    "precision": "Precision",
    "workload": "Workload",
}
INPUTS = (
    *(UrlInput(name, "choices", []) for name in FILTERS),
    UrlInput("percentile", "choice", "p95", choices=PERCENTILES),
    UrlInput("tokens", "choice", "output", choices=tuple(model.TOKEN_BASES)),
    UrlInput(
        "target",
        "number",
        model.DEFAULT_TARGET,
        low=model.TARGET_BOUNDS[0],
        high=model.TARGET_BOUNDS[1],
    ),
    UrlInput("energy", "flag", False),
    ui.UNIT_INPUT,
)
TARGET = INPUTS[-3]


def sidebar(values: dict[str, list[str]], start: dict) -> dict:
    with st.sidebar:
        st.header("Filters")
        chosen: dict[str, Any] = {
            name: st.multiselect(label, values[name], default=start[name], key=name)
            for name, label in FILTERS.items()
        }
        chosen["percentile"] = st.selectbox(
            "Latency percentile (FTL and TPOT)",
            PERCENTILES,
            PERCENTILES.index(start["percentile"]),
            key="percentile",
        )
        chosen["tokens"] = st.radio(
            "Tokens counted",
            list(model.TOKEN_BASES),
            list(model.TOKEN_BASES).index(start["tokens"]),
            format_func=model.TOKEN_BASES.get,
            key="tokens",
            horizontal=True,
        )
        chosen["target"] = st.number_input(
            "Target interactivity (output tok/s per user)",
            TARGET.low,
            TARGET.high,
            float(start["target"]),
            step=1.0,
            key="target",
            help="The pace each user receives tokens at, 1000 ÷ TPOT (ms); the Interactivity frontier tab "
            "prices every configuration at it.",
        )
        chosen["energy"] = st.toggle(
            "Energy and carbon columns",
            bool(start["energy"]),
            key="energy",
            help="J per output token (measured power, else datasheet TDP: an estimate) and "
            "gCO₂e per 1M output tokens from the region's grid intensity.",
        )
    chosen["unit"] = ui.unit_switch(start["unit"])
    return chosen


def headline(options, total: int, basis: str, percentile: str, unit: str) -> None:
    left, middle, right = st.columns(3)
    left.metric("Options", f"{total:,}", help="Price quote × compatible benchmark result pairs")
    best, fastest = data.derived(
        "costs_headline",
        inputs,
        lambda: (
            model.cheapest(options, basis, percentile, unit),
            model.fastest(options, percentile),
        ),
    )
    middle.metric(best.label, best.value, help=plain(best.help, limit=2000))
    if fastest:
        right.metric(fastest.label, fastest.value, help=plain(fastest.help, limit=2000))
    if total > len(options):
        st.caption(
            f"Showing the {len(options):,} cheapest of {total:,} options. Narrow the filters, or "
            "run `tokendesk costs --format csv` for all of them."
        )


def scatter(options, basis: str, percentile: str, unit: str) -> None:
    st.subheader(f"{formatting.cost_label(unit, model.COUNTED[basis])} against FTL {percentile}")
    plotted = options[options["cost"].notna() & options["ftl_ms"].notna()]
    if plotted.empty:
        st.info(f"None of these options has a published TTFT at {percentile} or above to plot.")
    else:
        figure, upper = data.derived(
            "costs_scatter",
            inputs,
            lambda: (
                charts.cost_against_ftl(plotted, model.COUNTED[basis], percentile, unit),
                model.upper_bound_count(plotted, percentile),
            ),
        )
        st.plotly_chart(figure, width="stretch", key="cost_scatter")
        if upper:
            st.caption(
                f"{upper} of {len(plotted)} plotted points publish no {percentile}; they are "
                "shown at their next higher published percentile (an upper bound, in the hover)."
            )
    missing = options[options["cost"].notna() & options["ftl_ms"].isna()]
    if not missing.empty:
        st.caption(
            f"{len(missing)} options have no published first-token latency (e.g. MLPerf Offline "
            'results, which have no latency bound). They are in the table with FTL "—" and are '
            "not plotted at a made-up latency."
        )


def estimated_options(path: str, filters: dict, percentile: str, unit: str) -> None:
    """Beside the measured options: the estimated ones the workspace's plans may buy."""
    _, ws = data.workspace(path)
    if not ws.constraints.allow_estimates:
        return
    engine = data.scenario_engine(path, data.sees_negotiated(), ws)
    rows = model.estimated_rows(engine.table.options, filters)
    if rows.empty:
        return
    st.subheader("Estimated options (no measured result)")
    st.caption(model.ESTIMATED_NOTE)
    ui.show_table(model.estimated_table(rows, percentile, unit), key="costs_estimated_table")


def option_table(options, basis: str, percentile: str, unit: str, energy: bool) -> None:
    st.subheader("All options")
    table = data.derived(
        "costs_table", inputs, lambda: model.option_table(options, basis, percentile, unit, energy)
    )
    ui.show_table(table, key="cost_table")
    st.caption(
        "Dates are the source's own date (for undated sources, the earliest plausible date, so "
        "staleness is never understated). Per-accelerator-hour quotes are billed for exactly the "
        "accelerators one replica needs. " + model.APPORTIONING_NOTE
    )
    if energy:
        st.caption(model.ENERGY_NOTE)
    downloads.download_button(  # the CSV is written when clicked, not on every rerun
        st,
        "Download these options (CSV)",
        partial(safe_csv, table.frame),
        file_name="tokendesk-costs.csv",
        mime="text/csv",
    )


def frontier(found, percentile: str, target: float, unit: str, shown_all: bool) -> None:
    """``found``: ``model.interactivity_frontier`` of the options on the page."""
    st.subheader(
        f"Interactivity frontier: {formatting.cost_label(unit, 'output')} at a pace per user"
    )
    if found.points.empty:
        st.info(
            f"None of these options publishes a time per output token at {percentile} or above, "
            "so there is no interactivity to plot."
        )
        return
    figure = data.derived(
        "costs_frontier",
        inputs,
        lambda: charts.interactivity_frontier(found.points, target, percentile, unit),
    )
    st.plotly_chart(figure, width="stretch", key="interactivity_frontier")
    st.caption(model.frontier_caption(found, percentile, target))
    if not shown_all:
        st.caption(
            "Drawn from the options on this page (the cheapest first): narrow the filters to see "
            "every point of a curve."
        )
    ui.show_table(found.at_target, key="frontier_table")


title = st.empty()  # its unit is known once the inputs are read
path = data.db_path()
values = data.filter_values(path)
start = ui.url_inputs(INPUTS, choices=values)
chosen = sidebar(values, start)
ui.keep_in_url(chosen, INPUTS)
basis, percentile, unit = chosen["tokens"], chosen["percentile"], chosen["unit"]
title.title(f"{formatting.token_unit_label(unit)} tokens and first-token latency")
st.caption(
    "Every current price quote joined to every benchmark result it can host: replicas per instance "
    "= ⌊instance accelerators ÷ accelerators per replica⌋, $/1K tokens = "
    "instance $/h ÷ (instance tok/s × 3.6); $/1M tokens = 1,000 × $/1K tokens."
)
filters = tuple((name, tuple(chosen[name])) for name in FILTERS if chosen[name])
total = data.count_options(path, filters)
settings = {
    "limit": MAX_ROWS,
    "percentile": percentile,
    "basis": basis,
    "energy": chosen["energy"],
    "target": chosen["target"],
    "unit": unit,
}
options, found_frontier = data.costs_page_frames(path, filters, **settings)
#: Everything the page's figures and tables are made from: they are made once per these.
inputs = (path, filters, *settings.values())
if options.empty:
    st.info("No priced option matches these filters. Remove a filter to see more options.")
    st.stop()
headline(options, total, basis, percentile, unit)
if options["cost"].isna().all():
    st.warning(f"None of these results can be priced per {model.TOKEN_BASES[basis]}.")
# Two views of the same options; only the open one is drawn (a chart costs a page switch as much
# as the rest of the page).
scatter_tab, frontier_tab = st.tabs(
    ["Cost against FTL", "Interactivity frontier"], key="costs_chart", on_change="rerun"
)
if scatter_tab.open:
    with scatter_tab:
        scatter(options, basis, percentile, unit)
if frontier_tab.open:
    with frontier_tab:
        frontier(found_frontier, percentile, chosen["target"], unit, total <= len(options))
option_table(options, basis, percentile, unit, chosen["energy"])
estimated_options(path, dict(filters), percentile, unit)
