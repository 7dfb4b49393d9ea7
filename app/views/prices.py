"""Prices: the current price quotes with their sources and dates, a SKU's prices by region and over
time, $/accelerator-hour across providers, the integrity report and a live refresh."""

from __future__ import annotations

from datetime import UTC, datetime
from functools import partial

import pandas as pd
import streamlit as st

from app import auth, charts, data, downloads, price_reads, ui
from app.models import prices as model
from app.safe import plain
from app.url_state import UrlInput
from pricing.provider import ProgressEvent
from pricing.refresh import refresh
from pricing.registry import PROVIDERS, provider_names
from tokendesk import formatting
from tokendesk.access import Action
from tokendesk.exports import safe_csv
from tokendesk.labels import label

REFRESH_STATE = "prices_last_refresh"
#: Every pick is in the URL; a tab's pick is empty there while it is what the tab starts on.
INPUTS = (
    *(UrlInput(name, "choices", []) for name in model.FILTERS),
    ui.UNIT_INPUT,
    *(UrlInput(key, "choice", "") for key in model.REGION_PICKERS | model.HISTORY_PICKERS),
    UrlInput("accelerator_hour_accelerator", "choice", ""),
    UrlInput("accelerator_hour_pricing_models", "choices", []),
)
#: The URL keys the tabs' own pickers write (every input after the filters and the unit).
TAB_PICKS = tuple(i.key for i in INPUTS[len(model.FILTERS) + 1 :])


def pick_sku(frame: pd.DataFrame, pickers: dict, top: pd.Series, start: dict) -> tuple[dict, dict]:
    """One selectbox per picker, each offering what the ones before leave, starting on the URL's
    pick or else on ``top``'s: (column -> value picked, URL key -> value for the URL)."""
    picked: dict[str, str] = {}
    url: dict[str, str] = {}
    for place, key in zip(st.columns(len(pickers)), pickers, strict=True):
        column, title = pickers[key]
        offered = model.options(frame, column, **picked)
        default = model.starting_pick(offered, top[column])
        first = offered.index(start[key] if start[key] in offered else default)
        picked[column] = place.selectbox(title, offered, first, format_func=label, key=key)
        url[key] = "" if picked[column] == default else picked[column]
    return picked, url


def refresh_tab(path: str) -> None:
    st.subheader("Refresh prices from the providers")
    st.caption(model.REFRESH_NOTE)
    # Why this person may not refresh (None: they may); the refresh controls say so.
    blocked = auth.why_not(Action.REFRESH_PRICES)
    if blocked:
        st.info(blocked)
    providers = st.multiselect(
        "Providers",
        provider_names(),
        provider_names(defaults_only=True),
        key="refresh_providers",
        disabled=blocked is not None,
    )
    regions = st.text_input(
        "Regions (optional, comma separated, in each provider's naming)",
        key="refresh_regions",
        disabled=blocked is not None,
        placeholder="us-east-1, eastus — empty: each provider's default regions",
    )
    with st.expander("What each provider needs"):
        ui.dataframe(model.provider_needs(PROVIDERS), key="provider_needs")
    if st.button(
        "Refresh prices",
        type="primary",
        key="refresh_run",
        disabled=not providers or blocked is not None,
        help=blocked,
    ):
        run_refresh(path, providers, model.region_list(regions))
    last = st.session_state.get(REFRESH_STATE)
    if last:
        st.markdown(f"**Last refresh** ({last['at']})")
        for level, sentence in map(model.refresh_notice, last["rows"]):
            getattr(st, level)(sentence)
        for name in last["not_applicable"]:
            st.info(model.not_applicable_notice(name))


def run_refresh(path: str, providers: list[str], regions: list[str] | None) -> None:
    """Refresh, showing each step in a status box, and keep what it did for the page's reruns."""
    before = price_reads.current_price_sources(path)
    with st.status("Refreshing prices…", expanded=True) as box:

        def show(event: ProgressEvent) -> None:
            box.write(model.progress_line(event))
            box.update(label=f"Refreshing prices… {event.provider}")

        try:
            with data.writer(
                Action.REFRESH_PRICES, lambda wait: box.write(wait.message(with_path=False))
            ) as warehouse:
                report = refresh(providers, regions, warehouse, show)
        except Exception as exc:  # shown to the person, never as a traceback
            box.update(label="Refresh could not run", state="error")
            st.error(f"The refresh could not write to the warehouse: {plain(exc)}")
            return
        finished = "Refresh finished" if report.ok else "Refresh finished with failures"
        box.update(
            label=finished, state="complete" if report.ok else "error", expanded=not report.ok
        )
    after = price_reads.current_price_sources(path)
    st.session_state[REFRESH_STATE] = model.refresh_record(report, before, after, datetime.now(UTC))


def sidebar(filters: dict[str, list[str]], start: dict) -> dict:
    with st.sidebar:
        st.header("Explorer filters")
        st.caption("The other tabs compare across every provider and region.")
        chosen = {
            name: st.multiselect(
                title, filters[name], default=start[name], format_func=label, key=name
            )
            for name, title in model.FILTERS.items()
        }
    return chosen | {"unit": ui.unit_switch(start["unit"])}


def explorer_tab(prices: pd.DataFrame, total: int) -> None:
    """The first ``model.EXPLORER_PAGE_ROWS`` matching quotes (``prices``) of ``total``."""
    if prices.empty:
        st.info(model.NO_MATCH)
        return
    table = model.explorer_table(prices)
    shown = model.explorer_shown(len(table), total)
    if shown:
        st.info(shown)
    ui.show_columns(table, model.EXPLORER_COLUMNS, key="price_table", dates=model.EXPLORER_DATES)
    st.caption(model.EXPLORER_NOTE)
    downloads.download_button(  # the CSV is written when clicked, not on every rerun
        st,
        "Download these prices (CSV)",
        partial(safe_csv, table),
        file_name="tokendesk-prices.csv",
        mime="text/csv",
    )


def region_tab(path: str, spread: pd.DataFrame, start: dict) -> dict[str, str]:
    """``spread``: every current SKU with its region count; the picked SKU's quotes are read."""
    st.subheader("One SKU's price in every region")
    if spread.empty:
        st.info("There are no current prices yet. Refresh prices or ingest a price sheet.")
        return {}
    sku, url = pick_sku(spread, model.REGION_PICKERS, model.widest_sku(spread), start)
    quotes = model.region_prices(
        price_reads.sku_quotes(path, sku["instance_type"], sku["pricing_model"]),
        sku["instance_type"],
        sku["pricing_model"],
    )
    figure = charts.region_price_bars(quotes, model.billing_unit(quotes))
    st.plotly_chart(figure, width="stretch", key="region_bars")
    st.caption(model.region_sources(sku["instance_type"], sku["pricing_model"], quotes))
    return url


def accelerator_hour_tab(path: str, offer: pd.DataFrame, start: dict, unit: str) -> dict:
    """``offer``: each accelerator and pricing model with a known accelerator count; the picked
    accelerator's cheapest quotes are read."""
    st.subheader("$ per accelerator-hour across providers")
    if offer.empty:
        st.info("There are no current prices with a known accelerator count.")
        return {}
    accelerator, pricing, url = accelerator_pickers(offer, start)
    cheapest = price_reads.cheapest_accelerator_quotes(
        path, accelerator, tuple(pricing), model.ACCELERATOR_BARS
    )
    quotes = model.accelerator_prices(cheapest, accelerator, pricing)
    if quotes.empty:
        st.info("Choose at least one pricing model.")
        return url
    st.plotly_chart(charts.accelerator_hour_bars(quotes), width="stretch", key="accel_bars")
    st.caption(model.cheapest_accelerator_hour(quotes))
    if len(quotes) >= model.ACCELERATOR_BARS:
        st.caption(model.ACCELERATOR_BARS_NOTE)
    token_cost(path, accelerator, pricing, unit)
    return url


def accelerator_pickers(priced: pd.DataFrame, start: dict) -> tuple[str, list[str], dict]:
    """The accelerator (by name; the H100 to start) and its pricing models (all to start), and
    their URL values (empty while they are where the tab starts)."""
    names = model.accelerator_names(priced)
    ids, default = list(names), model.first_accelerator(list(names))
    linked = start["accelerator_hour_accelerator"]
    first = ids.index(linked if linked in ids else default)
    left, right = st.columns(2)
    accelerator = left.selectbox(
        "Accelerator", ids, first, format_func=names.__getitem__, key="accelerator_hour_accelerator"
    )
    offered = model.options(priced, "pricing_model", accelerator_id=accelerator)
    wanted = [m for m in start["accelerator_hour_pricing_models"] if m in offered] or offered
    pricing = right.multiselect(
        "Pricing models", offered, wanted, key="accelerator_hour_pricing_models"
    )
    return (
        accelerator,
        pricing,
        {
            "accelerator_hour_accelerator": "" if accelerator == default else accelerator,
            "accelerator_hour_pricing_models": [] if set(pricing) == set(offered) else pricing,
        },
    )


def token_cost(path: str, accelerator: str, pricing: list[str], unit: str) -> None:
    """What the cheapest of these prices comes to per output token, on the best result."""
    filters = (("accelerator", (accelerator,)), ("pricing_model", tuple(pricing)))
    best = data.cost_options(path, filters, limit=1)
    if best.empty:
        st.caption("No benchmark result on this accelerator, so no cost per token.")
        return
    value, evidence = model.cheapest_token_cost(best.iloc[0], unit)
    st.metric(f"Cheapest {formatting.cost_label(unit, 'output')} on this accelerator", value)
    st.caption(plain(evidence, limit=2000))


def history_tab(path: str, skus: pd.DataFrame, start: dict) -> dict[str, str]:
    st.subheader("A SKU's price across every snapshot")
    if skus.empty:
        st.info("No price has been stored yet.")
        return {}
    sku, url = pick_sku(skus, model.HISTORY_PICKERS, model.longest_history(skus), start)
    columns = ("provider", "region", "instance_type", "pricing_model")
    history = price_reads.price_history(path, *(sku[column] for column in columns))
    if history.empty:
        st.info("This SKU has no stored price.")
        return url
    history = model.with_history_status(history)
    st.markdown(model.history_summary(history))
    in_force = model.price_in_force(history, datetime.now(UTC))
    st.plotly_chart(charts.price_history(history, in_force), width="stretch", key="history_chart")
    ui.show_columns(model.history_table(history), model.HISTORY_COLUMNS, key="history_table")
    st.caption(model.HISTORY_NOTE)
    return url


def integrity_tab(path: str) -> None:
    st.subheader("Integrity of the current price snapshots")
    st.caption(model.INTEGRITY_NOTE)
    stored = price_reads.current_integrity(path)
    unchecked = model.unchecked_sources(stored, price_reads.current_price_sources(path))
    quotes = (
        model.quotes_to_check(price_reads.current_price_quotes(path), unchecked)
        if unchecked
        else []
    )
    report = model.integrity_view(stored, unchecked, quotes)
    if report is None:
        st.info("There are no current price snapshots to check yet.")
        return
    (st.warning if report.failing else st.success)(report.sentence())
    ui.show_columns(report.checks, model.INTEGRITY_COLUMNS, key="integrity_table")
    if not report.flagged.empty:
        st.markdown("**Rows the rules flag**")
        ui.show_columns(report.flagged, model.FLAG_COLUMNS, key="integrity_flags")


st.title("Cloud prices")
st.caption(model.PAGE_NOTE)
path = data.db_path()
header = st.container()
tab_list, tab_region, tab_accelerator, tab_history, tab_integrity, tab_refresh = st.tabs(
    ["Explorer", "By region", "$/accelerator-hour", "Price history", "Integrity", "Refresh prices"],
    key="prices_tab",
    on_change="rerun",  # only the open tab is drawn: each closed one would cost as much
)
# The refresh runs before anything is read, so the rest of the page shows the new snapshots.
if tab_refresh.open:
    with tab_refresh:
        refresh_tab(path)
# Every figure over all quotes is counted by the warehouse; only the rows shown are read.
spread = price_reads.price_sku_spread(path)
offer = price_reads.accelerator_hour_offer(path)
skus = price_reads.price_skus(path)
filter_values = data.filter_values(path)
start = ui.url_inputs(INPUTS, choices=filter_values | model.pick_choices(spread, offer, skus))
chosen = sidebar(filter_values, start)
filters = tuple((name, tuple(chosen[name])) for name in model.FILTERS if chosen[name])
summary = price_reads.explorer_summary(path, filters)
with header:
    for place, figure in zip(st.columns(4), model.explorer_headline(summary), strict=False):
        place.metric(figure.label, figure.value, help=figure.help or None)
# A closed tab's picks stay in the URL as the link gave them; the open tab's replace them.
picked = {name: start[name] for name in TAB_PICKS}
if tab_list.open:
    with tab_list:
        prices = model.with_status(
            price_reads.price_explorer(path, filters, model.EXPLORER_PAGE_ROWS)
        )
        explorer_tab(prices, summary["quotes"])
if tab_region.open:
    with tab_region:
        picked |= region_tab(path, spread, start)
if tab_accelerator.open:
    with tab_accelerator:
        picked |= accelerator_hour_tab(path, offer, start, chosen["unit"])
if tab_history.open:
    with tab_history:
        picked |= history_tab(path, skus, start)
if tab_integrity.open:
    with tab_integrity:
        integrity_tab(path)
ui.keep_in_url(chosen | picked, INPUTS)
