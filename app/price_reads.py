"""The Prices and Benchmarks pages' cached reads: the price explorer and its aggregates, SKU
histories, integrity, sources, instance catalog and benchmark results. Negotiated quotes are
withheld here, as in ``app.data``, from every role that may not see them.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from app import data
from pricing.integrity import RULE_EXPIRED
from tokendesk.records import PricingModel
from warehouse import catalog_queries


def price_explorer(path: str, filters: data.Filters, limit: int | None = None) -> pd.DataFrame:
    """The quotes of the current price snapshots matching ``filters`` (quarantined included),
    in the explorer's order, at most ``limit`` of them."""
    visible = data.visible_filters(filters)
    if visible is None:
        return _price_explorer(path, (), 0)
    return _price_explorer(path, visible, limit)


@st.cache_data(show_spinner=False, ttl=600)
def _price_explorer(path: str, filters: data.Filters, limit: int | None = None) -> pd.DataFrame:
    with data.reading(path) as warehouse:
        return catalog_queries.price_explorer(warehouse, limit=limit, **data.filter_args(filters))


def explorer_summary(path: str, filters: data.Filters) -> dict[str, Any]:
    """The explorer's headline figures over every quote matching ``filters``
    (``catalog_queries.price_explorer_summary``), of the quotes this person may see."""
    visible = data.visible_filters(filters)
    if visible is None:
        return dict.fromkeys(("quotes", "current", "providers", "regions", "flagged"), 0) | {
            "newest": None
        }
    return data.price_read(path, "summary", visible)


def price_sku_spread(path: str) -> pd.DataFrame:
    """Per current SKU (instance type, pricing model) this person may see: its region count."""
    return data.price_read(path, "sku_spread", data.visible_filters(()) or ())


def sku_quotes(path: str, instance_type: str, pricing_model: str) -> pd.DataFrame:
    """One SKU's current quotes (every region), of those this person may see."""
    filters = (("instance_type", (instance_type,)), ("pricing_model", (pricing_model,)))
    visible = data.visible_filters(filters)
    if visible is None:
        return _current_quotes(path, (), 0)
    return _current_quotes(path, visible, None)


def accelerator_hour_offer(path: str) -> pd.DataFrame:
    """Each accelerator and pricing model with a $/accelerator-hour this person may see."""
    return data.price_read(path, "accelerator_hour", data.visible_filters(()) or ())


def cheapest_accelerator_quotes(
    path: str, accelerator_id: str, pricing_models: tuple[str, ...], limit: int
) -> pd.DataFrame:
    """The ``limit`` current quotes of one accelerator in these pricing models with the lowest
    $/accelerator-hour, cheapest first, of those this person may see."""
    filters = (("accelerator", (accelerator_id,)), ("pricing_model", pricing_models))
    visible = data.visible_filters(filters) if pricing_models else None
    if visible is None:
        return _current_quotes(path, (), 0, by_accelerator_hour=True)
    return _current_quotes(path, visible, limit, by_accelerator_hour=True)


@st.cache_data(show_spinner=False, ttl=600)
def _current_quotes(
    path: str, filters: data.Filters, limit: int | None, *, by_accelerator_hour: bool = False
) -> pd.DataFrame:
    with data.reading(path) as warehouse:
        return catalog_queries.price_explorer(
            warehouse,
            limit=limit,
            current_only=True,
            order_by_accelerator_hour=by_accelerator_hour,
            **data.filter_args(filters),
        )


def price_skus(path: str) -> pd.DataFrame:
    return data.without_negotiated(_price_skus(path))


@st.cache_data(show_spinner=False, ttl=600)
def _price_skus(path: str) -> pd.DataFrame:
    with data.reading(path) as warehouse:
        return catalog_queries.price_skus(warehouse)


@st.cache_data(show_spinner=False, ttl=600)
def instance_catalog(path: str) -> pd.DataFrame:
    """Every instance type the current prices list, with its accelerators and on-demand list
    price (the Workspace page's instance search)."""
    with data.reading(path) as warehouse:
        return catalog_queries.instance_catalog(warehouse)


def price_history(
    path: str, provider: str, region: str, instance_type: str, pricing_model: str
) -> pd.DataFrame:
    frame = _price_history(path, provider, region, instance_type, pricing_model)
    return (
        frame.iloc[0:0]
        if pricing_model == data.NEGOTIATED and not data.sees_negotiated()
        else frame
    )


@st.cache_data(show_spinner=False, ttl=600)
def _price_history(
    path: str, provider: str, region: str, instance_type: str, pricing_model: str
) -> pd.DataFrame:
    with data.reading(path) as warehouse:
        return catalog_queries.price_history(
            warehouse, provider, region, instance_type, pricing_model
        )


def current_integrity(path: str) -> pd.DataFrame:
    """The stored integrity reports of the current snapshots; without the negotiated-quote rule
    and the negotiated-only snapshots for a person who may not see them."""
    frame = _current_integrity(path)
    if data.sees_negotiated() or frame.empty:
        return frame
    hidden = data.hidden_snapshot_ids(path)
    keep = (frame["rule"] != RULE_EXPIRED) & ~frame["snapshot_id"].isin(hidden)
    return frame[keep].reset_index(drop=True)


@st.cache_data(show_spinner=False, ttl=600)
def _current_integrity(path: str) -> pd.DataFrame:
    with data.reading(path) as warehouse:
        return catalog_queries.current_integrity(warehouse)


def current_price_sources(path: str) -> pd.DataFrame:
    frame = _current_price_sources(path)
    hidden = data.hidden_snapshot_ids(path)
    if not hidden or frame.empty:
        return frame
    return frame[~frame["snapshot_id"].isin(hidden)].reset_index(drop=True)


@st.cache_data(show_spinner=False, ttl=600)
def _current_price_sources(path: str) -> pd.DataFrame:
    with data.reading(path) as warehouse:
        return catalog_queries.current_price_sources(warehouse)


def current_price_quotes(path: str) -> list:
    quotes = every_current_quote(path)
    if data.sees_negotiated():
        return quotes
    return [q for q in quotes if q.pricing_model is not PricingModel.NEGOTIATED]


@st.cache_data(show_spinner=False, ttl=600)
def every_current_quote(path: str) -> list:
    with data.reading(path) as warehouse:
        return warehouse.current_price_quotes()


@st.cache_data(show_spinner=False, ttl=600)
def benchmark_results(path: str) -> pd.DataFrame:
    with data.reading(path) as warehouse:
        return catalog_queries.current_benchmark_results(warehouse)


@st.cache_data(show_spinner=False, ttl=600)
def benchmark_history(path: str) -> pd.DataFrame:
    with data.reading(path) as warehouse:
        return catalog_queries.benchmark_snapshot_history(warehouse)
