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


#: The width (px) a table is laid out for: the main column at 1280×720 with the sidebar open is
#: 818 px wide (measured in Chromium), 784 px inside an expander's tab; a table wider than that
#: scrolls sideways and hides columns.
FIT_PX = 760
#: A column's width bounds (px): a long text column is cut with an ellipsis (its whole value shows
#: on hover) rather than pushing the columns after it out of view.
COLUMN_PX = (56, 260)
#: Roughly the width of one character of the grid's 14 px font, and a cell's padding (px).
_CHAR_PX, _PAD_PX = 6.6, 16


def _header(name: str, config: Any) -> str:
    if isinstance(config, str):
        return config
    if isinstance(config, dict) and config.get("label"):
        return str(config["label"])
    return str(name)


def column_px(frame: pd.DataFrame, column: str, header: str) -> int:
    """A column's width (px): its header or its longest cell (of the first 200 rows), bounded by
    :data:`COLUMN_PX`."""
    if pd.api.types.is_numeric_dtype(frame[column]):
        cells = [12]  # a formatted figure ("$0.000024", "1,234 ms"), not the float's repr
    else:
        cells = [len(str(v)) for v in frame[column].head(200)]
    chars = max([*cells, min(len(header), 30)])
    low, high = COLUMN_PX
    return int(min(max(chars * _CHAR_PX + _PAD_PX, low), high))


def fitted(
    frame: pd.DataFrame, column_config: Mapping[str, Any] | None, order: Sequence[str] | None = None
) -> tuple[list[str], dict[str, Any]]:
    """The columns (in ``order``, else the frame's) that fit :data:`FIT_PX` side by side, and a
    column config giving every column its width, so the grid is as wide as computed."""
    config: dict[str, Any] = dict(column_config or {})
    columns = [c for c in (order or list(frame.columns)) if c in frame.columns]
    shown: list[str] = []
    used, full = 0, False
    for column in columns:
        old = config.get(column)
        if old is None and column in config:  # hidden on purpose
            continue
        px = column_px(frame, column, _header(column, old))
        if isinstance(old, dict):
            config[column] = {**old, "width": px}
        else:
            config[column] = {"label": _header(column, old), "width": px}
        full = full or bool(shown) and used + px > FIT_PX
        if not full:  # past the width, this column and every one after it wait for the switch
            shown.append(column)
            used += px
    return shown, config


def fit_layout(
    frame: pd.DataFrame,
    key: str,
    column_config: Mapping[str, Any] | None = None,
    column_order: Sequence[str] | None = None,
) -> tuple[dict[str, Any], list[str] | None, list[str]]:
    """(column config, column order, columns left out) for a grid under ``key`` that fits the
    page at 1280 px: the leading columns that fit, or every column once the person has turned on
    the switch :func:`more_columns` draws."""
    shown, config = fitted(frame, column_config, column_order)
    every = list(column_order) if column_order else None
    hidden = [c for c in (every or list(frame.columns)) if c not in shown and c in frame.columns]
    hidden = [c for c in hidden if not (c in config and config[c] is None)]
    if hidden and st.session_state.get(f"{key}__all", False):
        return config, every, hidden
    return config, shown, hidden


def _pending_edits(key: str) -> bool:
    state = st.session_state.get(key)
    return isinstance(state, Mapping) and any(
        state.get(part) for part in ("edited_rows", "added_rows", "deleted_rows")
    )


def more_columns(key: str, hidden: Sequence[str], config: Mapping[str, Any]) -> None:
    """The switch under a fitted grid that shows the columns left out (named). Under an editor
    with edits not yet saved it is held: Streamlit starts an editor afresh when its columns
    change, which would drop those edits."""
    if hidden:
        names = ", ".join(_header(c, config.get(c)) for c in hidden)
        held = _pending_edits(key)
        st.toggle(
            f"Show {len(hidden)} more columns (the table then scrolls sideways): {names}",
            key=f"{key}__all",
            disabled=held,
            help="Save or undo the edits in this table first." if held else None,
        )


def dataframe(
    frame: pd.DataFrame,
    *,
    key: str,
    column_config: Mapping[str, Any] | None = None,
    column_order: Sequence[str] | None = None,
    **kwargs: Any,
) -> None:
    """``st.dataframe`` laid out to fit the page at 1280 px: the leading columns (the pages put
    the ones a decision rests on first) that fit; a switch under the table shows the others."""
    config, order, hidden = fit_layout(frame, key, column_config, column_order)
    st.dataframe(
        frame,
        hide_index=True,
        width="stretch",
        key=key,
        column_config=config,
        column_order=order,
        **kwargs,
    )
    more_columns(key, hidden, config)


def show_table(table: Table, *, key: str, **config: Any) -> None:
    """A page-model table: numbers keep their formats, dates read YYYY-MM-DD, the rest is text."""
    column_config: dict[str, Any] = {
        label: st.column_config.NumberColumn(format=fmt) for label, fmt in table.numbers.items()
    }
    column_config.update(
        {label: st.column_config.DateColumn(format="YYYY-MM-DD") for label in table.dates}
    )
    column_config.update(config)
    dataframe(table.frame, key=key, column_config=column_config)


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
    dataframe(shown, key=key, column_config=config)


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


def bundled_note(changes: Sequence[str] | None) -> None:
    """In the sidebar, where the warehouse was built from another copy of the bundled data than
    this installation's: its figures are that copy's (``tokendesk db init`` says the same)."""
    if changes == []:
        return
    if changes is None:
        said = (
            "This warehouse does not record which copy of the bundled data it was built from:"
            " its bundled prices and results may be older than this installation's."
        )
    else:
        said = (
            "This warehouse was built from another copy of the bundled data"
            f" ({', '.join(changes)} {'differs' if len(changes) == 1 else 'differ'} from this"
            " installation's): its bundled prices and results are that copy's."
        )
    st.sidebar.caption(f"{said} `tokendesk db rebuild` builds it afresh from the bundled data.")
