"""The few Streamlit helpers every page shares: URL-kept inputs and readable tables."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd
import streamlit as st

from app import url_state
from app.models.tables import Column, Table, text_gaps_as_dash
from app.url_state import UNIT_INPUT as UNIT_INPUT  # the pages' unit switch, declared there
from app.url_state import UrlInput
from tokendesk import formatting


def url_inputs(
    inputs: Sequence[UrlInput], choices: Mapping[str, Sequence[str]] | None = None
) -> dict[str, Any]:
    """The page's inputs as the URL gives them; a notice above the page for each value ignored.

    Widgets take these as their initial values under the same key, so the URL key, the widget key
    and the declaration are one name.
    """
    values, notices = url_state.read(st.query_params.to_dict(), inputs, choices)
    for notice in notices:
        st.warning(notice, icon="⚠️")
    return values


def keep_in_url(values: Mapping[str, Any], inputs: Sequence[UrlInput]) -> None:
    """Write the values the page used into the URL (non-default keys only; legacy keys dropped)."""
    wanted = url_state.to_params(values, inputs)
    owned = url_state.owned_keys(inputs)
    current = {k: v for k, v in st.query_params.to_dict().items() if k in owned}
    if current == wanted:
        return
    for key in owned:
        if key in wanted:
            st.query_params[key] = wanted[key]
        elif key in st.query_params:
            del st.query_params[key]


def show_table(table: Table, *, key: str, **config: Any) -> None:
    """A page-model table: numbers keep their formats, dates read YYYY-MM-DD, the rest is text."""
    column_config: dict[str, Any] = {
        label: st.column_config.NumberColumn(format=fmt) for label, fmt in table.numbers.items()
    }
    column_config.update(
        {label: st.column_config.DateColumn(format="YYYY-MM-DD") for label in table.dates}
    )
    column_config.update(config)
    st.dataframe(
        table.frame, hide_index=True, width="stretch", key=key, column_config=column_config
    )


def show_frame(frame, *, key: str, column_config: dict[str, Any], dates: tuple = ()) -> None:
    """A raw frame with its column config, every gap shown as "—" (never None or nan).

    A numeric column with a gap turns to text in its configured format, so its number config
    becomes a text column with the same label and help.
    """
    formats = {}
    for column, config in column_config.items():
        if isinstance(config, dict) and (config.get("type_config") or {}).get("format"):
            formats[column] = config["type_config"]["format"]
    shown = text_gaps_as_dash(frame, dates=dates, numbers=formats)
    config = dict(column_config)
    for column in shown.columns:
        became_text = shown[column].dtype != frame[column].dtype
        if became_text and isinstance(config.get(column), dict):
            old = config[column]
            config[column] = st.column_config.TextColumn(old.get("label"), help=old.get("help"))
    st.dataframe(shown, hide_index=True, width="stretch", key=key, column_config=config)


def unit_switch(start: str) -> str:
    """The sidebar's "$/1K tokens | $/1M tokens" switch; its value is the URL's ``unit``."""
    units = list(formatting.TOKEN_UNITS)
    return st.sidebar.radio(
        "Token costs per",
        units,
        units.index(start),
        format_func=lambda unit: f"{formatting.token_unit_label(unit)} tokens",
        key="unit",
        horizontal=True,
        help="$/1K tokens is this tool's unit; $/1M tokens is how API price lists quote. "
        "The same figures either way, 1,000 times apart.",
    )


def show_columns(
    frame: pd.DataFrame, columns: Mapping[str, Column], *, key: str, dates: tuple = ()
) -> None:
    """A frame under its own column names, read as a page model's ``columns`` declare."""
    show_frame(frame, key=key, column_config=column_config(columns), dates=dates)


def column_config(columns: Mapping[str, Column]) -> dict[str, Any]:
    """Streamlit's column config for a page model's column declarations (raw name -> Column)."""
    config: dict[str, Any] = {}
    for name, column in columns.items():
        if column.kind == "number":
            config[name] = st.column_config.NumberColumn(
                column.label, format=column.format, help=column.help
            )
        elif column.kind == "date":
            config[name] = st.column_config.DateColumn(
                column.label, format=column.format, help=column.help
            )
        elif column.kind == "datetime":
            config[name] = st.column_config.DatetimeColumn(
                column.label, format=column.format, help=column.help
            )
        elif column.kind == "link":
            config[name] = st.column_config.LinkColumn(column.label, help=column.help)
        elif column.help:
            config[name] = st.column_config.TextColumn(column.label, help=column.help)
        else:
            config[name] = column.label
    return config
