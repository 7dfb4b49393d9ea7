"""Prices: the current price quotes with their sources and dates, a SKU's prices by region and over
time, $/accelerator-hour across providers, the integrity report and a live refresh."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from functools import partial
from typing import Any

import pandas as pd
import streamlit as st

from app import charts, data, ui
from app.models import prices as model
from app.safe import plain
from app.url_state import UrlInput
from pricing.base import ProgressEvent
from pricing.refresh import refresh
from pricing.registry import PROVIDERS, provider_names
from tokendesk import formatting
from tokendesk.exports import safe_csv

REFRESH_STATE = "prices_last_refresh"
#: Explorer filters: URL key = widget key = warehouse column, with its label.
FILTERS = {
    "provider": "Cloud / provider",
    "region": "Region",
    "accelerator": "Accelerator",
    "pricing_model": "Pricing model",
}
#: The price-history pickers, in order (each narrows the next): column, label, URL/widget key.
HISTORY_PICKERS = (
    ("instance_type", "Instance type", "history_instance"),
    ("pricing_model", "Pricing model", "history_pricing_model"),
    ("provider", "Provider", "history_provider"),
    ("region", "Region", "history_region"),
)
#: The tabs' own picks are kept in the URL too; empty = what the tab starts on from the data.
TAB_INPUTS = (
    UrlInput("region_instance", "choice", ""),
    UrlInput("region_pricing_model", "choice", ""),
    UrlInput("accelerator_hour_accelerator", "choice", ""),
    UrlInput("accelerator_hour_pricing_models", "choices", []),
    *(UrlInput(key, "choice", "") for _, _, key in HISTORY_PICKERS),
)
INPUTS = (*(UrlInput(name, "choices", []) for name in FILTERS), ui.UNIT_INPUT, *TAB_INPUTS)


def choose(place: Any, label: str, choices: list, start: str, default: str, key: str, **extra):
    """A selectbox on the URL's value where it is a choice, else on ``default``: (the value, its
    URL value, empty when it is the default)."""
    first = start if start in choices else default
    value = place.selectbox(label, choices, index=choices.index(first), key=key, **extra)
    return value, "" if value == default else value


def url_choices(filters: dict[str, list[str]], current: pd.DataFrame, skus: pd.DataFrame) -> dict:
    priced = model.with_accelerator_hour(current)
    return filters | {
        "region_instance": model.options(current, "instance_type"),
        "region_pricing_model": model.options(current, "pricing_model"),
        "accelerator_hour_accelerator": model.options(priced, "accelerator_id"),
        "accelerator_hour_pricing_models": model.options(priced, "pricing_model"),
        **{key: model.options(skus, column) for column, _, key in HISTORY_PICKERS},
    }


def refresh_tab(path: str) -> None:
    st.subheader("Refresh prices from the providers")
    st.caption(
        "Each provider's prices are fetched, checked by the integrity rules and written as one "
        "new, immutable snapshot. A provider that fails is recorded as a failed snapshot with its "
        "error, and its last good snapshot stays current; nothing is overwritten or deleted."
    )
    providers = st.multiselect(
        "Providers", provider_names(), provider_names(defaults_only=True), key="refresh_providers"
    )
    regions = st.text_input(
        "Regions (optional, comma separated, in each provider's naming)",
        key="refresh_regions",
        placeholder="us-east-1, eastus — empty: each provider's default regions",
    )
    with st.expander("What each provider needs"):
        st.dataframe(model.provider_needs(PROVIDERS), hide_index=True, width="stretch")
    if st.button("Refresh prices", type="primary", key="refresh_run", disabled=not providers):
        run_refresh(path, providers, model.region_list(regions))
    last = st.session_state.get(REFRESH_STATE)
    if last:
        st.markdown(f"**Last refresh** ({last['at']})")
        for row in last["rows"]:
            level, sentence = model.refresh_notice(row)
            getattr(st, level)(sentence)
        for name in last["not_applicable"]:
            st.info(model.not_applicable_notice(name))


def run_refresh(path: str, providers: list[str], regions: list[str] | None) -> None:
    """Refresh, showing each step in a status box, and keep what it did for the page's reruns."""
    before = data.current_price_sources(path)
    with st.status("Refreshing prices…", expanded=True) as box:

        def show(event: ProgressEvent) -> None:
            box.write(model.progress_line(event))
            box.update(label=f"Refreshing prices… {event.provider}")

        try:
            with data.writer(lambda wait: box.write(wait.message(with_path=False))) as warehouse:
                report = refresh(providers, regions, warehouse, show)
        except Exception as exc:  # shown to the person, never as a traceback
            box.update(label="Refresh could not run", state="error")
            st.error(f"The refresh could not write to the warehouse: {plain(exc)}")
            return
        box.update(
            label="Refresh finished" if report.ok else "Refresh finished with failures",
            state="complete" if report.ok else "error",
            expanded=not report.ok,
        )
    st.session_state[REFRESH_STATE] = {
        "at": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "rows": model.refresh_rows(report, before, data.current_price_sources(path)),
        "not_applicable": list(report.not_applicable),
    }


def sidebar(filters: dict[str, list[str]], start: dict) -> dict:
    with st.sidebar:
        st.header("Explorer filters")
        st.caption("The other tabs compare across every provider and region.")
        chosen: dict[str, Any] = {
            name: st.multiselect(label, filters[name], default=start[name], key=name)
            for name, label in FILTERS.items()
        }
    chosen["unit"] = ui.unit_switch(start["unit"])
    return chosen


def headline(prices: pd.DataFrame) -> None:
    for place, figure in zip(st.columns(4), model.explorer_headline(prices), strict=False):
        place.metric(figure.label, figure.value, help=figure.help or None)


def explorer_tab(prices: pd.DataFrame) -> None:
    if prices.empty:
        st.info(
            "No current price matches these filters. Remove a filter in the sidebar to see more "
            "quotes."
        )
        return
    table = model.explorer_table(prices)
    config = ui.column_config(model.EXPLORER_COLUMNS)
    ui.show_frame(table, key="price_table", dates=model.EXPLORER_DATES, column_config=config)
    st.caption(
        "Price date is the source's own date (for undated sources, the earliest plausible date, "
        "so staleness is never understated). A CPU instance sold with less than one socket has "
        "no $/accelerator-hour."
    )
    st.download_button(  # the CSV is written when clicked, not on every rerun
        "Download these prices (CSV)",
        partial(safe_csv, table),
        file_name="tokendesk-prices.csv",
        mime="text/csv",
    )


def region_tab(current: pd.DataFrame, start: dict) -> dict[str, str]:
    st.subheader("One SKU's price in every region")
    if current.empty:
        st.info("There are no current prices yet. Refresh prices or ingest a price sheet.")
        return {}
    widest_instance, widest_pricing = model.widest_sku(current)
    left, right = st.columns(2)
    instance, instance_url = choose(
        left,
        "Instance type",
        model.options(current, "instance_type"),
        start["region_instance"],
        widest_instance,
        "region_instance",
    )
    offered = model.options(current, "pricing_model", instance_type=instance)
    pricing, pricing_url = choose(
        right,
        "Pricing model",
        offered,
        start["region_pricing_model"],
        widest_pricing if widest_pricing in offered else offered[0],
        "region_pricing_model",
    )
    sku = model.region_prices(current, instance, pricing)
    figure = charts.region_price_bars(sku, model.billing_unit(sku))
    st.plotly_chart(figure, width="stretch", key="region_bars")
    st.caption(model.region_sources(instance, pricing, sku))
    return {"region_instance": instance_url, "region_pricing_model": pricing_url}


def accelerator_hour_tab(path: str, current: pd.DataFrame, start: dict, unit: str) -> dict:
    st.subheader("$ per accelerator-hour across providers")
    priced = model.with_accelerator_hour(current)
    if priced.empty:
        st.info("There are no current prices with a known accelerator count.")
        return {}
    names = model.accelerator_names(priced)
    left, right = st.columns(2)
    accelerator, accelerator_url = choose(
        left,
        "Accelerator",
        list(names),
        start["accelerator_hour_accelerator"],
        model.first_accelerator(list(names)),
        "accelerator_hour_accelerator",
        format_func=lambda accelerator_id: names[accelerator_id],
    )
    offered = model.options(priced, "pricing_model", accelerator_id=accelerator)
    pricing = right.multiselect(
        "Pricing models",
        offered,
        default=[m for m in start["accelerator_hour_pricing_models"] if m in offered] or offered,
        key="accelerator_hour_pricing_models",
    )
    url = {
        "accelerator_hour_accelerator": accelerator_url,
        "accelerator_hour_pricing_models": [] if set(pricing) == set(offered) else pricing,
    }
    quotes = model.accelerator_prices(priced, accelerator, pricing)
    if quotes.empty:
        st.info("Choose at least one pricing model.")
        return url
    st.plotly_chart(charts.accelerator_hour_bars(quotes), width="stretch", key="accel_bars")
    st.caption(model.cheapest_accelerator_hour(quotes))
    token_cost(path, accelerator, pricing, unit)
    return url


def token_cost(path: str, accelerator: str, pricing: Sequence[str], unit: str) -> None:
    """What the cheapest of these prices comes to per output token, on the best result."""
    filters = (("accelerator", (accelerator,)), ("pricing_model", tuple(pricing)))
    best = data.cost_options(path, filters, limit=1)
    if best.empty:
        st.caption("No benchmark result on this accelerator, so no cost per token.")
        return
    value, evidence = model.cheapest_token_cost(best.iloc[0], unit)
    st.metric(f"Cheapest {formatting.cost_label(unit, 'output')} on this accelerator", value)
    st.caption(plain(evidence, limit=2000))


def history_pickers(skus: pd.DataFrame, start: dict) -> tuple[dict[str, str], dict[str, str]]:
    """The SKU picked (column -> value), starting on the longest history, and its URL values."""
    top = model.longest_history(skus)
    picked: dict[str, str] = {}
    url: dict[str, str] = {}
    for place, (column, label, key) in zip(st.columns(4), HISTORY_PICKERS, strict=True):
        offered = model.options(skus, column, **picked)
        default = top[column] if top[column] in offered else offered[0]
        picked[column], url[key] = choose(place, label, offered, start[key], default, key)
    return picked, url


def history_tab(path: str, skus: pd.DataFrame, start: dict) -> dict[str, str]:
    st.subheader("A SKU's price across every snapshot")
    if skus.empty:
        st.info("No price has been stored yet.")
        return {}
    sku, url = history_pickers(skus, start)
    history = data.price_history(
        path, sku["provider"], sku["region"], sku["instance_type"], sku["pricing_model"]
    )
    if history.empty:
        st.info("This SKU has no stored price.")
        return url
    history = model.with_history_status(history)
    st.markdown(model.history_summary(history))
    in_force = model.price_in_force(history, datetime.now(UTC))
    st.plotly_chart(charts.price_history(history, in_force), width="stretch", key="history_chart")
    config = ui.column_config(model.HISTORY_COLUMNS)
    ui.show_frame(model.history_table(history), key="history_table", column_config=config)
    st.caption(
        "Every snapshot is kept: a superseded price stays here as historical, dated by its "
        "source. The step line shows the price in force from each date until the next one."
    )
    return url


def integrity_tab(path: str) -> None:
    st.subheader("Integrity of the current price snapshots")
    st.caption(
        "Hard rules (price > 0, spot and committed prices at or below on-demand, known "
        "accelerator and count, within tolerance of a sourced anchor price) quarantine a row; a "
        "move of more than 50% since the previous snapshot or an expired negotiated quote only "
        "flags it for review."
    )
    stored = data.current_integrity(path)
    unchecked = model.unchecked_sources(stored, data.current_price_sources(path))
    quotes = model.quotes_to_check(data.current_price_quotes(path), unchecked) if unchecked else []
    report = model.integrity_view(stored, unchecked, quotes)
    if report is None:
        st.info("There are no current price snapshots to check yet.")
        return
    (st.warning if report.failing else st.success)(report.sentence())
    config = ui.column_config(model.INTEGRITY_COLUMNS)
    ui.show_frame(report.checks, key="integrity_table", column_config=config)
    if not report.flagged.empty:
        st.markdown("**Rows the rules flag**")
        config = ui.column_config(model.FLAG_COLUMNS)
        ui.show_frame(report.flagged, key="integrity_flags", column_config=config)


st.title("Cloud prices")
st.caption(
    "The current prices are the newest good snapshot of each source, region by region; older "
    "snapshots are kept and shown in the price history. $/accelerator-hour = instance $/h ÷ "
    "accelerators on the instance (a quote priced per accelerator-hour is already per "
    "accelerator). Every price shows its source and the source's date."
)
path = data.db_path()
header = st.container()
tab_list, tab_region, tab_accelerator, tab_history, tab_integrity, tab_refresh = st.tabs(
    ["Explorer", "By region", "$/accelerator-hour", "Price history", "Integrity", "Refresh prices"]
)
# The refresh runs before anything is read, so the rest of the page shows the new snapshots.
with tab_refresh:
    refresh_tab(path)
everything = data.price_explorer(path, ())
current = model.current_only(everything)
skus = data.price_skus(path)
filter_values = data.filter_values(path)
start = ui.url_inputs(INPUTS, choices=url_choices(filter_values, current, skus))
chosen = sidebar(filter_values, start)
filters = tuple((name, tuple(chosen[name])) for name in FILTERS if chosen[name])
prices = model.with_status(data.price_explorer(path, filters) if filters else everything)
with header:
    headline(prices)
with tab_list:
    explorer_tab(prices)
with tab_region:
    picked = region_tab(current, start)
with tab_accelerator:
    picked |= accelerator_hour_tab(path, current, start, chosen["unit"])
with tab_history:
    picked |= history_tab(path, skus, start)
with tab_integrity:
    integrity_tab(path)
ui.keep_in_url(chosen | picked, INPUTS)
