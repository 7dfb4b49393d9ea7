"""Chart builders the dashboard pages share, on ``plotly.graph_objects``.

``plotly.express`` spends ~50 ms of Python per figure before anything is drawn; building the
same traces directly costs a few ms, which is most of a page rerun. Every builder takes a frame,
draws one trace per group and puts the hover fields in ``customdata`` with their labels, so a
point's source and date are always one hover away.

It stays one module (about 1,000 lines) because the rules every chart shares live here once: the
margins worked out from the labels' drawn widths, the font-width table, the colours per vendor and
pricing model, the hover layout; each builder below is short and reads on its own.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from app.glyphs import label_px
from app.style import VENDOR_COLOURS
from costmodel.timeline import ScheduledGate
from tokendesk import formatting
from tokendesk.labels import label as id_label

#: label -> a column of the frame, or a Series aligned with it (already formatted as wanted).
Hover = Mapping[str, "str | pd.Series"]

#: For groups a colour map does not name; none of them is a vendor colour.
FALLBACK_COLOURS = (
    "#636EFA",
    "#AB63FA",
    "#19D3F3",
    "#FF6692",
    "#B6E880",
    "#FF97FF",
    "#8C564B",
    "#17BECF",
)
#: Marker symbols in the order a second grouping (e.g. pricing model) takes them.
SYMBOLS = (
    "circle",
    "diamond",
    "square",
    "x",
    "cross",
    "triangle-up",
    "pentagon",
    "star",
    "hexagram",
    "hourglass",
)
MARGIN = {"l": 10, "r": 10, "t": 30, "b": 10}
#: Left of a vertical axis's tick labels: its title (14 px, turned), the title's standoff and the
#: ticks' padding, as drawn; a chart's left margin is this plus its widest tick label.
Y_TITLE_PX = 54
#: Below the plot: the x tick labels, the x title and a legend of one row (``LEGEND_BELOW``).
X_TITLE_AND_LEGEND_PX = 116


def left_margin(tick_labels: Iterable[str]) -> int:
    """The left margin that holds a vertical axis's widest tick label and its title."""
    return Y_TITLE_PX + math.ceil(max((label_px(t) for t in tick_labels), default=0))


def _ftl_scatter_margin(ftl_ms: Iterable[float]) -> dict[str, int]:
    """Margins that already hold a cost-against-FTL scatter's ms ticks (the top one at most 5%
    above the highest value drawn), its titles and a one-row legend below: given up front, the
    first drawing fits, where a figure that has to grow its margins is drawn again (a third of
    the chart's drawing on every visit to the page). Longer labels still grow them."""
    highest = max((v for v in ftl_ms if v == v), default=0.0)  # NaN: no latency to draw
    return {
        "l": left_margin([f"{highest * 1.05:.0f} ms"]),
        "r": MARGIN["r"],
        "t": MARGIN["t"],
        "b": X_TITLE_AND_LEGEND_PX,
    }


#: Where every legend goes: under the plot, at the foot of the figure, entries side by side. The
#: toolbar (Plotly's mode bar) shows over the top right corner, where a legend would otherwise
#: sit, and covers its first entries; at the foot nothing covers it. Its margin grows to fit it.
LEGEND_BELOW: dict[str, Any] = {
    "orientation": "h",
    "yref": "container",
    "y": 0,
    "yanchor": "bottom",
    "xanchor": "left",
    "x": 0,
    "tracegroupgap": 0,
}
MISSING = "—"

#: $ on a log axis, ticks at 1, 2 and 5 of every decade: "$0.0002", "$0.0005", "$0.001", …
LOG_USD_AXIS: dict[str, Any] = {"type": "log", "tickformat": "$.2~g", "dtick": "D2"}
MS_AXIS: dict[str, Any] = {"ticksuffix": " ms", "rangemode": "tozero"}
USD_AXIS: dict[str, Any] = {"tickprefix": "$", "rangemode": "tozero"}


def axis(title: str | None, *presets: Mapping[str, Any], **settings: Any) -> dict[str, Any]:
    """An axis layout: its title, then any presets (LOG_USD_AXIS, MS_AXIS, …), then settings."""
    merged: dict[str, Any] = {"title": {"text": title}} if title is not None else {}
    for preset in presets:
        merged.update(preset)
    merged.update(settings)
    return merged


def _text(values: pd.Series) -> np.ndarray:
    """Hover text for a column: dates as YYYY-MM-DD, missing values as a dash."""
    is_date = pd.api.types.is_datetime64_any_dtype(values)
    shown = values.dt.strftime("%Y-%m-%d") if is_date else values
    return np.where(values.isna().to_numpy(), MISSING, shown.astype(str).to_numpy()).astype(object)


def _hover(frame: pd.DataFrame, hover: Hover | None) -> tuple[np.ndarray | None, list[str]]:
    """customdata for the whole frame (one column per field) and the labelled template lines for it."""
    rows, columns = [], []
    for n, (label, source) in enumerate((hover or {}).items()):
        values = frame[source] if isinstance(source, str) else source
        if len(values) != len(frame):
            raise ValueError(
                f"hover field {label!r} has {len(values)} values for {len(frame)} rows"
            )
        columns.append(_text(values))
        rows.append(f"{label}: %{{customdata[{n}]}}")
    return (np.column_stack(columns) if columns else None), rows


def _template(*lines: str | None) -> str:
    # <extra></extra> drops plotly's second box with the trace name: the lines already say it.
    return "<br>".join(line for line in lines if line is not None) + "<extra></extra>"


def _escape(name: object) -> str:
    """A literal for a hover template: plotly reads %{…} as a variable."""
    return str(name).replace("%{", "%​{")


def _value_line(ax: Mapping[str, Any], letter: str, fmt: str | None) -> str | None:
    return None if fmt is None else f"{_title(ax, letter)}: %{{{letter}:{fmt}}}"


def _groups(
    frame: pd.DataFrame, keys: str | list[str], order: Iterable[Any] | None = None
) -> list[tuple[Any, np.ndarray]]:
    """(group, row positions) in order of first appearance, or in ``order`` where given."""
    positions = frame.groupby(keys, sort=False, dropna=False).indices
    found = list(positions)
    if order is not None:
        ranked = {value: n for n, value in enumerate(order)}
        found.sort(key=lambda g: ranked.get(g, len(ranked)))
    return [(g, positions[g]) for g in found]


def _colour_for(colours: Mapping[str, str] | None, spare: dict[Any, str]) -> Any:
    def pick(group: Any) -> str | None:
        if colours is None:
            return None  # the theme's palette, in trace order
        if group in colours:
            return colours[group]
        return spare.setdefault(group, FALLBACK_COLOURS[len(spare) % len(FALLBACK_COLOURS)])

    return pick


def _layout(
    x_axis: Mapping[str, Any],
    y_axis: Mapping[str, Any],
    height: int | None,
    legend_title: str | None,
    **more: Any,
) -> dict[str, Any]:
    # tracegroupgap 0: each trace is its own legend group, and the default gap spaces the entries out
    layout: dict[str, Any] = {
        "xaxis": dict(x_axis),
        "yaxis": dict(y_axis),
        "margin": dict(MARGIN),
        "legend": dict(LEGEND_BELOW),
        "hoverlabel": {"align": "left"},
    }
    if height is not None:
        layout["height"] = height
    if legend_title is not None:
        layout["legend"]["title"] = {"text": legend_title}
    layout.update(more)
    return layout


def scatter_by(
    frame: pd.DataFrame,
    x: str,
    y: str,
    group: str,
    *,
    colours: Mapping[str, str] | None = VENDOR_COLOURS,
    hover: Hover | None = None,
    title: str | None = None,
    symbol: str | None = None,
    x_axis: Mapping[str, Any] | None = None,
    y_axis: Mapping[str, Any] | None = None,
    x_hover: str | None = None,
    y_hover: str | None = None,
    marker_size: float | None = None,
    legend_title: str | None = None,
    height: int | None = None,
    margin: Mapping[str, int] = MARGIN,
) -> go.Figure:
    """One marker trace per ``group`` (and per ``symbol`` value, which picks the marker shape).

    ``title`` names a column shown in bold at the top of the hover; ``x_hover``/``y_hover`` are
    d3 formats that add the axis values to it, labelled with the axis titles.
    """
    x_axis, y_axis = x_axis or {}, y_axis or {}
    customdata, fields = _hover(frame, hover)
    template = _template(
        "<b>%{hovertext}</b><br>" if title else None,
        _value_line(x_axis, "x", x_hover),
        _value_line(y_axis, "y", y_hover),
        *fields,
    )
    titles = _text(frame[title]) if title else None
    xs, ys = frame[x].to_numpy(), frame[y].to_numpy()
    shapes = {}
    if symbol is not None:
        shapes = {
            value: SYMBOLS[n % len(SYMBOLS)] for n, value in enumerate(pd.unique(frame[symbol]))
        }
    colour_of = _colour_for(colours, {})
    groups = _groups(frame, [group, symbol] if symbol else group)
    if symbol is not None:  # the legend lists each group's shapes together
        first = {value: n for n, value in enumerate(pd.unique(frame[group]))}
        rank = {value: n for n, value in enumerate(shapes)}
        groups.sort(
            key=lambda item: (first.get(item[0][0], len(first)), rank.get(item[0][1], len(rank)))
        )
    traces = []
    for key, rows in groups:
        name, shape = (key[0], shapes.get(key[1], SYMBOLS[0])) if symbol else (key, None)
        marker: dict[str, Any] = {}
        if (colour := colour_of(name)) is not None:
            marker["color"] = colour
        if shape is not None:
            marker["symbol"] = shape
        if marker_size is not None:
            marker["size"] = marker_size
        label = f"{name} · {key[1]}" if symbol else str(name)
        traces.append(
            go.Scatter(
                x=xs[rows],
                y=ys[rows],
                mode="markers",
                name=label,
                legendgroup=label,
                marker=marker,
                customdata=None if customdata is None else customdata[rows],
                hovertext=None if titles is None else titles[rows],
                hovertemplate=template,
            )
        )
    return go.Figure(traces, _layout(x_axis, y_axis, height, legend_title, margin=dict(margin)))


def _title(ax: Mapping[str, Any], letter: str) -> str:
    return (ax.get("title") or {}).get("text") or letter


def lines_by(
    frame: pd.DataFrame,
    x: str,
    y: str,
    group: str,
    *,
    colours: Mapping[str, str] | None = None,
    hover: Hover | None = None,
    x_axis: Mapping[str, Any] | None = None,
    y_axis: Mapping[str, Any] | None = None,
    x_hover: str | None = ",.0f",
    y_hover: str | None = ",.0f",
    legend_title: str | None = None,
    height: int | None = None,
) -> go.Figure:
    """One line with markers per ``group`` (e.g. a configuration across its load sweep), in frame order."""
    x_axis, y_axis = x_axis or {}, y_axis or {}
    customdata, fields = _hover(frame, hover)
    values = (_value_line(x_axis, "x", x_hover), _value_line(y_axis, "y", y_hover), *fields)
    xs, ys = frame[x].to_numpy(), frame[y].to_numpy()
    colour_of = _colour_for(colours, {})
    traces = []
    for name, rows in _groups(frame, group):
        colour = colour_of(name)
        traces.append(
            go.Scatter(
                x=xs[rows],
                y=ys[rows],
                mode="lines+markers",
                name=str(name),
                line={"color": colour} if colour else None,
                customdata=None if customdata is None else customdata[rows],
                hovertemplate=_template(f"<b>{_escape(name)}</b>", *values),
            )
        )
    return go.Figure(traces, _layout(x_axis, y_axis, height, legend_title))


def bars(
    frame: pd.DataFrame,
    category: str,
    value: str,
    *,
    orientation: Literal["v", "h"] = "v",
    colour: str | None = None,
    colours: Mapping[str, str] | None = None,
    colour_order: Iterable[str] | None = None,
    text: pd.Series | None = None,
    hover: Hover | None = None,
    value_hover: str | None = None,
    category_axis: Mapping[str, Any] | None = None,
    value_axis: Mapping[str, Any] | None = None,
    category_order: Sequence[str] | None = None,
    barmode: Literal["relative", "stack", "overlay", "group"] = "relative",
    legend_title: str | None = None,
    height: int | None = None,
    margin: Mapping[str, int] = MARGIN,
) -> go.Figure:
    """Bars of ``value`` per ``category``, one trace per ``colour`` value where given.

    ``category_order`` is the reading order: left to right, or top to bottom on a horizontal chart.
    ``text`` labels each bar (e.g. the formatted price).
    """
    category_axis, value_axis = dict(category_axis or {}), value_axis or {}
    if category_order is not None:
        # plotly draws a category axis from the origin, so a vertical one starts at the bottom
        ordered = list(category_order) if orientation == "v" else list(category_order)[::-1]
        category_axis.update(categoryorder="array", categoryarray=ordered)
    along_letter, value_letter = ("x", "y") if orientation == "v" else ("y", "x")
    customdata, fields = _hover(frame, hover)
    value_line = _value_line(value_axis, value_letter, value_hover)
    categories, values = frame[category].to_numpy(), frame[value].to_numpy()
    labels = None if text is None else _text(text)
    colour_of = _colour_for(colours, {})
    groups = _groups(frame, colour, colour_order) if colour else [(None, np.arange(len(frame)))]
    traces = []
    for name, rows in groups:
        filled = colour_of(name) if name is not None else None
        along, across = (
            (categories[rows], values[rows])
            if orientation == "v"
            else (values[rows], categories[rows])
        )
        traces.append(
            go.Bar(
                x=along,
                y=across,
                orientation=orientation,
                name=None if name is None else str(name),
                marker={"color": filled} if filled else None,
                text=None if labels is None else labels[rows],
                customdata=None if customdata is None else customdata[rows],
                hovertemplate=_template(
                    f"<b>%{{{along_letter}}}</b>",
                    None if name is None else f"{legend_title or colour}: {_escape(name)}",
                    value_line,
                    *fields,
                ),
            )
        )
    x_axis, y_axis = (
        (category_axis, value_axis) if orientation == "v" else (value_axis, category_axis)
    )
    return go.Figure(
        traces, _layout(x_axis, y_axis, height, legend_title, barmode=barmode, margin=dict(margin))
    )


def stacked_bars(
    frame: pd.DataFrame,
    category: str,
    value: str,
    part: str,
    colours: Mapping[str, str],
    **options: Any,
) -> go.Figure:
    """Horizontal bars of ``value`` per ``category``, stacked by ``part`` in the order of ``colours``."""
    options.setdefault("orientation", "h")
    # "relative" stacks like "stack" but keeps the legend in the order of the parts (plotly reverses
    # it for "stack")
    return bars(
        frame,
        category,
        value,
        colour=part,
        colours=colours,
        colour_order=list(colours),
        barmode="relative",
        **options,
    )


def gantt_weeks(
    gates: Sequence[ScheduledGate], colours: Mapping[str, str] | None = None
) -> go.Figure:
    """Stage gates as bars on a numeric plan-week axis, red where the gate is on the critical path."""
    colours = colours or {"critical": "#C0392B", "has slack": "#7FB3A8"}
    frame = pd.DataFrame(
        {
            "gate": [
                f"{g.gate} ({'all backends' if g.backend == '*' else g.backend})" for g in gates
            ],
            "start": [g.start_week for g in gates],
            "weeks": [g.end_week - g.start_week for g in gates],
            "end": [g.end_week for g in gates],
            "path": ["critical" if g.critical else "has slack" for g in gates],
            "basis": [g.basis or MISSING for g in gates],
        }
    )
    traces = []
    for name, rows in _groups(frame, "path", list(colours)):
        template = _template(
            "<b>%{y}</b>",
            f"weeks %{{base:.3~g}}–%{{customdata[0]:.3~g}} (%{{x:.3~g}} w, {name})",
            "Basis: %{customdata[1]}",
        )
        part = frame.iloc[rows]
        traces.append(
            go.Bar(
                y=part["gate"].to_numpy(),
                x=part["weeks"].to_numpy(),
                base=part["start"].to_numpy(),
                orientation="h",
                name=name,
                marker={"color": colours.get(name)},
                customdata=part[["end", "basis"]].to_numpy(dtype=object),
                hovertemplate=template,
            )
        )
    x_axis = axis(
        "Plan week (week 0 = start of the plan)", rangemode="tozero", tick0=0, zeroline=True
    )
    y_axis = axis(
        None, autorange="reversed", categoryorder="array", categoryarray=list(frame["gate"])
    )
    return go.Figure(
        traces,
        _layout(
            x_axis,
            y_axis,
            120 + 34 * len(frame),
            "Critical path",
            barmode="overlay",
            margin={"l": 10, "r": 10, "t": 10, "b": 10},
        ),
    )


def add_step_line(
    figure: go.Figure,
    x: Sequence[Any],
    y: Sequence[Any],
    name: str,
    *,
    colour: str,
    dash: str | None = None,
    width: float | None = None,
) -> go.Figure:
    """A step line (each value holds until the next x) without hover: the points carry it."""
    line: dict[str, Any] = {"shape": "hv", "color": colour}
    if dash:
        line["dash"] = dash
    if width:
        line["width"] = width
    figure.add_trace(
        go.Scatter(x=list(x), y=list(y), mode="lines", line=line, name=name, hoverinfo="skip")
    )
    return figure


def add_threshold(figure: go.Figure, y: float, text: str, *, colour: str = "#C0392B") -> go.Figure:
    """A dashed horizontal line across the plot at ``y`` with its label at the right end."""
    figure.add_shape(
        type="line",
        xref="x domain",
        x0=0,
        x1=1,
        yref="y",
        y0=y,
        y1=y,
        line={"color": colour, "dash": "dash"},
    )
    figure.add_annotation(
        text=text,
        xref="x domain",
        x=1,
        xanchor="right",
        yref="y",
        y=y,
        yanchor="bottom",
        showarrow=False,
    )
    return figure


#: Hover fields of a cost option: label -> column.
OPTION_HOVER = {
    "provider": "provider",
    "instance": "instance_type",
    "region": "region",
    "pricing": "pricing_model",
    "model": "model",
    "precision": "precision",
    "scenario": "scenario",
    "FTL basis": "ftl_basis",
    "price source": "price_source",
    "price date": "price_observed_at",
    "result source": "bench_source_title",
    "result date": "bench_measured_at",
}


def _option_hover(options: pd.DataFrame) -> dict[str, Any]:
    """OPTION_HOVER with the pricing model in words ("On demand", not its stored id)."""
    return {**OPTION_HOVER, "pricing": options["pricing_model"].map(lambda m: id_label(str(m)))}


def cost_against_ftl(
    options: pd.DataFrame, basis: str, percentile: str, unit: str = formatting.DEFAULT_TOKEN_UNIT
) -> go.Figure:
    """The Costs page's scatter: each option's ``cost`` ($/1K ``basis`` tokens) against its FTL,
    drawn in ``unit`` ($/1K or $/1M)."""
    shown = options.assign(cost=formatting.per_tokens(options["cost"], unit))
    words = f"$ per {formatting.token_unit_label(unit)[2:]} {basis} tokens (log scale)"
    grouping = by_pricing(shown) if shown["pricing_model"].nunique() > 1 else {}
    figure = scatter_by(
        grouping.pop("frame", shown),
        "cost",
        "ftl_ms",
        grouping.pop("group", "vendor"),
        title="accelerator_name",
        hover=_option_hover(shown),
        x_axis=axis(words, LOG_USD_AXIS),
        y_axis=axis(f"First-token latency {percentile} (ms)", MS_AXIS),
        x_hover="$.3g",
        y_hover=",.0f",
        legend_title=grouping.pop("legend_title", "Vendor"),
        height=520,
        margin=_ftl_scatter_margin(shown["ftl_ms"]),
        **grouping,
    )
    return open_spot_markers(figure)


def open_spot_markers(figure: go.Figure) -> go.Figure:
    """Spot points drawn hollow (a vendor's shape, open): on top of their own colour, a reader
    tells spot from on demand by shape as well, in print and for colour-blind eyes."""
    spot = id_label("spot") + " · "
    for trace in figure.data:
        if str(trace.name or "").startswith(spot) and trace.marker.symbol:
            trace.marker.symbol = f"{trace.marker.symbol}-open"
            trace.marker.line = {"width": 2, "color": trace.marker.color}
    return figure


def by_pricing(options: pd.DataFrame) -> dict[str, Any]:
    """How a scatter draws options of several pricing models: each pricing model in its own
    colour (spot is never drawn like on demand), each vendor in its own marker shape, and the
    legend naming both ("Spot · NVIDIA"). The arguments for ``scatter_by``."""
    pricing = options["pricing_model"].map(lambda m: id_label(str(m)))
    return {
        "frame": options.assign(pricing=pricing),
        "group": "pricing",
        "symbol": "vendor",
        "colours": {id_label(model): colour for model, colour in PRICING_COLOURS.items()},
        "legend_title": "Pricing · vendor",
    }


def pareto(
    plotted: pd.DataFrame,
    frontier: pd.DataFrame,
    percentile: str,
    slo_ms: float,
    unit: str = formatting.DEFAULT_TOKEN_UNIT,
) -> go.Figure:
    """The Overview's $/1K-output-tokens-vs-FTL scatter (in ``unit``) with its frontier and the
    SLO line."""
    column = "usd_per_1k_output_tokens"
    plotted = plotted.assign(**{column: formatting.per_tokens(plotted[column], unit)})
    frontier = frontier.assign(**{column: formatting.per_tokens(frontier[column], unit)})
    words = f"$ per {formatting.token_unit_label(unit)[2:]} output tokens (log scale)"
    # A pricing family (committed) holds several pricing models: then each gets its own colour.
    grouping = by_pricing(plotted) if plotted["pricing_model"].nunique() > 1 else {}
    figure = scatter_by(
        grouping.pop("frame", plotted),
        column,
        "ftl_ms",
        grouping.pop("group", "vendor"),
        title="accelerator_name",
        hover=_option_hover(plotted),
        x_axis=axis(words, LOG_USD_AXIS),
        y_axis=axis(f"FTL {percentile} (ms)", MS_AXIS),
        x_hover="$.3g",
        y_hover=",.0f",
        legend_title=grouping.pop("legend_title", "Vendor"),
        height=460,
        margin=_ftl_scatter_margin([*plotted["ftl_ms"], slo_ms]),
        **grouping,
    )
    open_spot_markers(figure)
    frontier = frontier.sort_values(column)
    add_step_line(
        figure,
        frontier[column],
        frontier["ftl_ms"],
        "Pareto frontier",
        colour=NEUTRAL_LINE,
        dash="dot",
    )
    add_threshold(figure, slo_ms, f"SLO {slo_ms:,.0f} ms")
    return figure


#: A line that is no series of its own (a frontier, the price in force): a mid grey that reads on
#: the light and the dark theme alike (near-black vanished on the dark background).
NEUTRAL_LINE = "#8C9A95"

#: The Memory-fit breakdown's parts, in stacking order, with their colours.
MEMORY_PART_COLOURS = {
    "Weights": "#4C78A8",
    "KV cache (requested sequences)": "#F58518",
    "Spare (more KV cache)": "#BAB0AC",
    # A mid grey, not near-white: on the dark theme a near-white bar glared over the rest.
    "Reserved (runtime overhead, headroom)": "#858D8A",
}


def memory_breakdown(frame: pd.DataFrame) -> go.Figure:
    """Memory per fitting replica, stacked by part, smallest replica first."""
    order = list(frame.drop_duplicates("replica").sort_values("total")["replica"])
    # Margins that already hold the replicas' names, the last GiB tick (half of it overhangs the
    # plot) and the legend below, so the chart is not drawn again to grow them.
    last_tick = f"{frame['total'].max() * 1.05:,.0f} GiB"
    margin = {
        "l": left_margin(order),
        "r": math.ceil(label_px(last_tick) / 2) + 6,
        "t": MARGIN["t"],
        "b": X_TITLE_AND_LEGEND_PX,
    }
    figure = stacked_bars(
        frame,
        "replica",
        "gib",
        "part",
        MEMORY_PART_COLOURS,
        value_hover=",.1f",
        hover={"replica memory (GiB)": frame["total"].map("{:,.0f}".format)},
        category_axis=axis("Accelerators per replica"),
        category_order=order,
        value_axis=axis("Memory per replica (GiB)", ticksuffix=" GiB", rangemode="tozero"),
        legend_title="",
        height=max(320, 36 * len(order) + 160),
        margin=margin,
    )
    return figure


def monthly_cost_curve(plans: Sequence[Any]) -> go.Figure:
    """Each plan's monthly cost over its months (an infeasible one dotted), the legend below and
    the margins its dollar ticks need, so the chart is drawn once."""
    figure = go.Figure()
    for plan in plans:
        figure.add_scatter(
            x=list(range(1, len(plan.monthly_usd_by_month) + 1)),
            y=list(plan.monthly_usd_by_month),
            name=plan.name + ("" if plan.feasible else " (infeasible)"),
            mode="lines",
            line={"dash": "solid" if plan.feasible else "dot"},
            hovertemplate="month %{x}<br>$%{y:,.0f}<extra>" + _escape(plan.name) + "</extra>",
        )
    # The top tick is at most the top of the range Plotly gives the data (5% above its highest).
    highest = max((max(p.monthly_usd_by_month, default=0) for p in plans), default=0)
    margin = {
        "l": left_margin([f"${highest * 1.05:,.0f}"]),
        "r": 10,
        "t": 10,
        "b": X_TITLE_AND_LEGEND_PX,
    }
    x_axis = axis("Month")
    y_axis = axis("USD per month", tickprefix="$", tickformat=",.0f")
    figure.update_layout(_layout(x_axis, y_axis, 360, None, margin=margin))
    return figure


def frontier_chart(frame: pd.DataFrame) -> go.Figure:
    """Cost against vendor concentration (vendor HHI by month-1 spend, as every plan's; the cap
    binds traffic shares): what each step of diversification
    costs. Only solved caps are drawn; nothing between them is implied."""
    figure = go.Figure()
    figure.add_scatter(
        x=frame["Vendor HHI"].tolist(),
        y=frame["$/month"].tolist(),
        mode="lines+markers+text",
        text=[f"cap {c:.0%}" for c in frame["Vendor-share cap"]],
        textposition="top center",
        customdata=frame[["Premium ($/month)", "Largest vendor share"]].to_numpy().tolist(),
        hovertemplate="HHI %{x:,.0f} (month-1 spend)<br>$%{y:,.0f}/month<br>premium"
        " $%{customdata[0]:,.0f}<br>largest vendor traffic share %{customdata[1]:.0%}<extra></extra>",
        name="Optimal at each cap",
    )
    figure.update_layout(height=360, margin={"l": 10, "r": 10, "t": 10, "b": 10})
    figure.update_xaxes(
        title="Vendor HHI by month-1 spend (10,000 = one vendor)", autorange="reversed"
    )
    figure.update_yaxes(title="USD per month", tickprefix="$", tickformat=",.0f")
    return figure


#: One colour per pricing model, so bars read the same in every chart of the Prices page.
PRICING_COLOURS = {
    "on_demand": "#1f77b4",
    "spot": "#ff7f0e",
    "reserved_1y": "#2ca02c",
    "reserved_3y": "#98df8a",
    "savings_plan_1y": "#9467bd",
    "savings_plan_3y": "#c5b0d5",
    "committed_use_1y": "#8c564b",
    "committed_use_3y": "#c49c94",
    "capacity_block": "#e377c2",
    "negotiated": "#7f7f7f",
    "owned": "#bcbd22",
}
#: A stored price's status in the price history.
HISTORY_COLOURS = {
    "current": "#2ca02c",
    "historical": "#7f7f7f",
    "quarantined": "#d62728",
    "partial snapshot": "#ff7f0e",
}


def region_price_bars(sku: pd.DataFrame, billing_unit: str) -> go.Figure:
    """One SKU's $/hour in every region (bars labelled "provider · region", in frame order),
    coloured by vendor; ``billing_unit`` (instance-hour or accelerator-hour) names the axis."""
    figure = bars(
        sku,
        "label",
        "usd_per_hour",
        colour="vendor",
        colours=VENDOR_COLOURS,
        legend_title="vendor",
        text=sku["usd_per_hour"].map(formatting.usd),
        value_hover="$,.2f",
        hover={"source": "source", "price date": "observed_at", "confidence": "confidence"},
        category_axis=axis("Provider · region"),
        value_axis=axis(f"$ per {billing_unit}", USD_AXIS),
        height=380,
    )
    # A handful of regions should not stretch into slabs as wide as the page.
    figure.update_layout(showlegend=False, bargap=max(0.2, 1 - 0.12 * len(sku)))
    figure.update_traces(textposition="outside", cliponaxis=False)
    return figure


def accelerator_hour_bars(quotes: pd.DataFrame) -> go.Figure:
    """$/accelerator-hour per quote (horizontal bars labelled by ``label``, top to bottom in frame
    order), coloured by pricing model, with the quote's own $/hour and source in the hover."""
    return bars(
        quotes,
        "label",
        "usd_per_accelerator_hour",
        orientation="h",
        colour="pricing_model",
        colours=PRICING_COLOURS,
        colour_order=list(PRICING_COLOURS),
        legend_title="Pricing",
        value_hover="$,.2f",
        text=quotes["usd_per_accelerator_hour"].map(formatting.usd),
        hover={
            "$/hour (quote)": quotes["usd_per_hour"].map(formatting.usd),
            "accelerators": "accelerator_count",
            "priced per": "price_basis",
            "source": "source",
            "price date": "observed_at",
        },
        category_axis=axis("Provider · instance · region"),
        category_order=list(quotes["label"]),
        value_axis=axis("$ per accelerator-hour", USD_AXIS),
        height=max(320, 34 * len(quotes) + 120),
    )


def price_history(
    history: pd.DataFrame, in_force: tuple[Sequence[Any], Sequence[Any]]
) -> go.Figure:
    """A SKU's stored prices over time, coloured by status, with the step line of the price in
    force (``in_force``: its dates and prices; none drawn when empty)."""
    figure = scatter_by(
        history,
        "observed_at",
        "usd_per_hour",
        "status",
        colours=HISTORY_COLOURS,
        marker_size=11,
        title="price_date",
        y_hover="$,.2f",
        hover={"source": "source", "snapshot": "snapshot_id", "confidence": "confidence"},
        x_axis=axis("Price date", tickformat="%Y-%m-%d"),
        y_axis=axis("$ per instance-hour", USD_AXIS),
        legend_title="Status",
        height=380,
    )
    xs, ys = in_force
    if len(xs):
        add_step_line(figure, xs, ys, "price in force", colour=NEUTRAL_LINE, width=2)
    return figure


#: Sizes of the throughput-against-FTL chart, in pixels: the plot, the x axis under it and one
#: legend entry.
CURVE_PLOT_PX, CURVE_AXIS_PX, CURVE_LEGEND_ENTRY_PX = 460, 70, 20
#: Hover fields of a benchmark operating point: label -> column.
POINT_HOVER = {
    "load": "load",
    "model": "model",
    "workload": "workload",
    "scenario": "scenario",
    "FTL basis": "ftl_basis",
    "source": "source",
    "result date": "measured_at",
}


def throughput_against_ftl(
    points: pd.DataFrame, throughput: str, throughput_words: str, percentile: str
) -> go.Figure:
    """One line per ``configuration`` across its load sweep: ``throughput`` (a tok/s column,
    described by ``throughput_words``, e.g. "per replica") against FTL at ``percentile``."""
    figure = lines_by(
        points,
        throughput,
        "ftl_ms",
        "configuration",
        hover=POINT_HOVER,
        x_axis=axis(
            f"Output tokens/s {throughput_words}",
            ticksuffix=" tok/s",
            rangemode="tozero",
            tickformat=",.0f",
        ),
        y_axis=axis(f"First-token latency {percentile} (ms)", MS_AXIS),
        legend_title="Accelerator · runtime · precision",
    )
    # The labels are long, so the legend goes under the plot, one entry per line, in a bottom
    # margin sized for it: the axes keep their size however many configurations are shown.
    legend_px = CURVE_LEGEND_ENTRY_PX * (points["configuration"].nunique() + 1)
    figure.update_layout(
        height=30 + CURVE_PLOT_PX + CURVE_AXIS_PX + legend_px,
        margin={"l": 10, "r": 10, "t": 30, "b": CURVE_AXIS_PX + legend_px},
        legend={
            "orientation": "v",
            "yref": "paper",  # under the plot area, past the x axis (not the figure's foot)
            "yanchor": "top",
            "y": -CURVE_AXIS_PX / CURVE_PLOT_PX,
            "xanchor": "left",
            "x": 0,
        },
    )
    return figure


#: Hover fields of a point on the interactivity frontier: label -> column.
INTERACTIVITY_HOVER = {
    "TPOT basis": "tpot_basis",
    "on the frontier": "frontier_text",
    "price source": "price_source",
    "price date": "price_observed_at",
    "result source": "bench_source_title",
    "result date": "bench_measured_at",
}


def _broken_at(rows: np.ndarray, curves: np.ndarray) -> np.ndarray:
    """Positions ``rows`` with -1 inserted wherever the curve changes: plotly breaks a line at a
    gap, so one trace draws many separate curves."""
    out: list[int] = []
    for n, row in enumerate(rows.tolist()):
        if n and curves[row] != curves[rows[n - 1]]:
            out.append(-1)
        out.append(row)
    return np.array(out, dtype=np.int64)


def _with_gaps(values: np.ndarray, positions: np.ndarray, gap: Any) -> list[Any]:
    return [gap if p < 0 else values[p] for p in positions.tolist()]


def interactivity_frontier(
    points: pd.DataFrame,
    target: float,
    percentile: str,
    unit: str = formatting.DEFAULT_TOKEN_UNIT,
) -> go.Figure:
    """Output-token cost (``cost``, in ``unit``) against tok/s per user: per vendor, one trace
    draws every curve's frontier as a line (broken between curves) and one its other points as
    open markers, so a hundred curves stay a dozen traces; the target is a vertical line."""
    shown = points.assign(frontier_text=np.where(points["on_frontier"], "yes", "no"))
    customdata, fields = _hover(shown, INTERACTIVITY_HOVER)
    x_axis = axis(f"Output tok/s per user (1000 ÷ TPOT {percentile})", rangemode="tozero")
    words = f"$ per {formatting.token_unit_label(unit)[2:]} output tokens (log scale)"
    y_axis = axis(words, LOG_USD_AXIS)
    template = _template(
        "<b>%{hovertext}</b>",
        _value_line(x_axis, "x", ",.1f"),
        _value_line(y_axis, "y", "$.3g"),
        *fields,
    )
    colour_of = _colour_for(VENDOR_COLOURS, {})
    xs = shown["tok_s_per_user"].to_numpy(dtype=float)
    ys = shown["cost"].to_numpy(dtype=float)
    curves = shown["curve"].to_numpy()
    titles = _text(shown["curve_label"])
    front = shown["on_frontier"].to_numpy(dtype=bool)
    blank = [""] * (0 if customdata is None else customdata.shape[1])
    traces = []
    for vendor, rows in _groups(shown, "vendor"):
        colour = colour_of(vendor)
        for on_front in (True, False):
            part = rows[front[rows] == on_front]
            if part.size == 0:
                continue
            at = _broken_at(part, curves) if on_front else part
            traces.append(
                go.Scatter(
                    x=_with_gaps(xs, at, None),
                    y=_with_gaps(ys, at, None),
                    mode="lines+markers" if on_front else "markers",
                    name=str(vendor) if on_front else f"{vendor} (off the frontier)",
                    legendgroup=str(vendor),
                    connectgaps=False,
                    line={"color": colour, "width": 1.5},
                    marker={"color": colour, "symbol": "circle" if on_front else "circle-open"},
                    customdata=None
                    if customdata is None
                    else [blank if p < 0 else list(customdata[p]) for p in at.tolist()],
                    hovertext=_with_gaps(titles, at, ""),
                    hovertemplate=template,
                )
            )
    figure = go.Figure(traces, _layout(x_axis, y_axis, 480, "Vendor"))
    figure.add_vline(
        x=target,
        line={"color": "#C0392B", "dash": "dash"},
        annotation_text=f"target {target:g} tok/s/user",
        annotation_position="top",
    )
    return figure


def daily_curve(frame: pd.DataFrame, clock: str) -> go.Figure:
    """A trace's rate per hour of the day relative to its mean (1 = average)."""
    figure = bars(
        frame,
        "hour",
        "relative_rate",
        colour=None,
        value_hover=".2f",
        category_axis=axis(f"Hour of day, {clock}"),
        value_axis=axis("Tokens per second ÷ the trace's mean", rangemode="tozero"),
        category_order=list(frame["hour"]),
        height=300,
    )
    return add_threshold(figure, 1.0, "mean")


def length_distribution(frame: pd.DataFrame) -> go.Figure:
    """Requests per doubling of prompt and reply length (tokens)."""
    return bars(
        frame,
        "tokens",
        "requests",
        colour="which",
        colour_order=["Input", "Output"],
        value_hover=",.0f",
        category_axis=axis("Length (tokens)"),
        value_axis=axis("Requests", rangemode="tozero"),
        category_order=list(dict.fromkeys(frame["tokens"])),
        barmode="group",
        legend_title="Tokens",
        height=300,
    )


def rate_over_time(frame: pd.DataFrame) -> go.Figure:
    """Tokens per bucket over a trace relative to its mean: peak ÷ mean is the highest bar."""
    unit = frame["unit"].iloc[0] if len(frame) else "bucket"
    figure = bars(
        frame,
        "after",
        "relative_rate",
        value_hover=".2f",
        category_axis=axis(f"{unit.capitalize()}s after the first request"),
        value_axis=axis("Tokens ÷ the trace's mean", rangemode="tozero"),
        height=300,
    )
    return add_threshold(figure, 1.0, "mean")


def predicted_vs_measured(points: pd.DataFrame, unit: str) -> go.Figure:
    """Log-log: measured (x) against predicted (y), one colour per vendor, the 80% interval as
    an error bar on each point and the y = x line a perfect prediction sits on."""
    fig = go.Figure()
    for vendor, rows in points.groupby("vendor", sort=True):
        fig.add_trace(
            go.Scatter(
                x=rows["measured"],
                y=rows["predicted"],
                mode="markers",
                name=str(vendor),
                marker={"color": VENDOR_COLOURS.get(str(vendor)), "size": 6},
                error_y={
                    "type": "data",
                    "symmetric": False,
                    "array": (rows["high"] - rows["predicted"]).clip(lower=0),
                    "arrayminus": (rows["predicted"] - rows["low"]).clip(lower=0),
                    "thickness": 1,
                    "width": 0,
                },
                hovertext=rows["model"]
                + " on "
                + rows["accelerator_id"]
                + " ("
                + rows["regime"]
                + ")",
                hovertemplate="<b>%{hovertext}</b><br>measured %{x:,.4g}<br>predicted"
                " %{y:,.4g}<extra></extra>",
            )
        )
    if not points.empty:
        span = pd.concat([points["measured"], points["low"], points["high"]])
        span = span[span > 0]
        ends = [float(span.min()), float(span.max())]
        fig.add_trace(
            go.Scatter(
                x=ends,
                y=ends,
                mode="lines",
                name="predicted = measured",
                line={"color": "#888", "dash": "dash", "width": 1},
                hoverinfo="skip",
            )
        )
    fig.update_layout(
        xaxis={"type": "log", "title": f"measured {unit}"},
        yaxis={"type": "log", "title": f"predicted {unit} (80% interval)"},
        margin=MARGIN,
        legend_title_text="vendor",
        height=420,
    )
    return fig
