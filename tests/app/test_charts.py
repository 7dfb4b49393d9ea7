import numpy as np
import pandas as pd
import pytest

from app import charts
from app.style import VENDOR_COLOURS
from costmodel.timeline import ScheduledGate


@pytest.fixture
def options() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "vendor": ["NVIDIA", "AMD", "NVIDIA", "AMD", "Acme"],
            "pricing_model": ["spot", "on_demand", "on_demand", "on_demand", "spot"],
            "accelerator_name": ["H100", "MI300X", "H200", "MI325X", "X1"],
            "provider": ["aws", "azure", "gcp", "oci", None],
            "cost": [0.0002, 0.0001, 0.0003, 0.0004, 0.0005],
            "ftl_ms": [400.0, 900.0, 300.0, 1200.0, 50.0],
            "price_observed_at": pd.to_datetime(
                ["2025-09-10", "2025-08-01", "2025-07-01", "2025-06-01", "2025-05-01"]
            ),
        }
    )


def test_scatter_by_draws_one_trace_per_group_with_labelled_hover(options):
    figure = charts.scatter_by(
        options,
        "cost",
        "ftl_ms",
        "vendor",
        title="accelerator_name",
        hover={
            "provider": "provider",
            "price date": "price_observed_at",
            "pricing": options["pricing_model"].str.upper(),
        },
        x_axis=charts.axis("$ per 1K output tokens (log scale)", charts.LOG_USD_AXIS),
        y_axis=charts.axis("FTL p95 (ms)", charts.MS_AXIS),
        x_hover="$.3g",
        y_hover=",.0f",
        legend_title="Vendor",
    )
    traces = {t.name: t for t in figure.data}
    assert list(traces) == ["NVIDIA", "AMD", "Acme"]  # order of first appearance
    nvidia = traces["NVIDIA"]
    assert list(nvidia.x) == [0.0002, 0.0003] and list(nvidia.y) == [400.0, 300.0]
    assert nvidia.marker.color == VENDOR_COLOURS["NVIDIA"] and nvidia.mode == "markers"
    assert list(nvidia.hovertext) == ["H100", "H200"]
    # customdata columns follow the hover dict; dates are days, missing values a dash
    assert [list(row) for row in nvidia.customdata] == [
        ["aws", "2025-09-10", "SPOT"],
        ["gcp", "2025-07-01", "ON_DEMAND"],
    ]
    assert traces["Acme"].customdata[0][0] == charts.MISSING
    assert traces["Acme"].marker.color in charts.FALLBACK_COLOURS
    template = nvidia.hovertemplate
    assert template.startswith("<b>%{hovertext}</b>")
    for line in (
        "$ per 1K output tokens (log scale): %{x:$.3g}",
        "FTL p95 (ms): %{y:,.0f}",
        "provider: %{customdata[0]}",
        "price date: %{customdata[1]}",
        "pricing: %{customdata[2]}",
    ):
        assert line in template
    assert template.endswith("<extra></extra>")
    layout = figure.layout
    assert (
        layout.xaxis.type == "log"
        and layout.xaxis.tickformat == "$.2~g"
        and layout.xaxis.dtick == "D2"
    )
    assert layout.yaxis.ticksuffix == " ms" and layout.yaxis.rangemode == "tozero"
    assert (
        layout.xaxis.title.text == "$ per 1K output tokens (log scale)"
        and layout.legend.title.text == "Vendor"
    )


def test_scatter_by_symbol_splits_groups_and_keeps_each_vendor_together(options):
    figure = charts.scatter_by(options, "cost", "ftl_ms", "vendor", symbol="pricing_model")
    names = [t.name for t in figure.data]
    assert names == ["NVIDIA · spot", "NVIDIA · on_demand", "AMD · on_demand", "Acme · spot"]
    symbols = {t.name: t.marker.symbol for t in figure.data}
    assert symbols["NVIDIA · spot"] == symbols["Acme · spot"] == charts.SYMBOLS[0]
    assert symbols["NVIDIA · on_demand"] == symbols["AMD · on_demand"] == charts.SYMBOLS[1]
    assert sum(len(t.x) for t in figure.data) == len(options)


def test_hover_series_must_match_the_frame(options):
    with pytest.raises(ValueError, match="hover field 'short'"):
        charts.scatter_by(options, "cost", "ftl_ms", "vendor", hover={"short": pd.Series(["a"])})


def test_lines_by_draws_one_line_with_markers_per_configuration():
    sweep = pd.DataFrame(
        {
            "config": ["a", "a", "a", "b", "b"],
            "tok_s": [10.0, 80.0, 240.0, 50.0, 90.0],
            "ftl_ms": [60.0, 210.0, 900.0, 100.0, 150.0],
            "load": ["c1", "c8", "c32", "c1", "c4"],
        }
    )
    figure = charts.lines_by(
        sweep,
        "tok_s",
        "ftl_ms",
        "config",
        hover={"load": "load"},
        x_axis=charts.axis("Output tokens/s per replica"),
        y_axis=charts.axis("FTL (ms)", charts.MS_AXIS),
    )
    assert [t.name for t in figure.data] == ["a", "b"]
    first = figure.data[0]
    assert (
        first.mode == "lines+markers"
        and list(first.x) == [10.0, 80.0, 240.0]
        and list(first.y) == [60.0, 210.0, 900.0]
    )
    assert [row[0] for row in first.customdata] == ["c1", "c8", "c32"]
    assert first.hovertemplate.startswith("<b>a</b>")
    assert (
        "Output tokens/s per replica: %{x:,.0f}" in first.hovertemplate
        and "load: %{customdata[0]}" in first.hovertemplate
    )
    assert first.line.color is None  # no colour map: the theme's palette


def test_hover_template_escapes_a_name_that_looks_like_a_variable():
    frame = pd.DataFrame({"g": ["50%{x}"], "x": [1.0], "y": [2.0]})
    template = charts.lines_by(frame, "x", "y", "g").data[0].hovertemplate
    assert "<b>50%{x}</b>" not in template and template.startswith("<b>50%")


def test_bars_horizontal_grouped_by_colour_with_text_and_reading_order():
    prices = pd.DataFrame(
        {
            "label": ["gcp spot", "aws spot", "aws on demand"],
            "usd": [1.98, 2.62, 6.88],
            "pricing": ["spot", "spot", "on_demand"],
            "source": ["sheet", "api", "blog"],
        }
    )
    figure = charts.bars(
        prices,
        "label",
        "usd",
        orientation="h",
        colour="pricing",
        colours={"on_demand": "#1f77b4", "spot": "#ff7f0e"},
        colour_order=["on_demand", "spot"],
        text=prices["usd"].map("${:.2f}".format),
        hover={"source": "source"},
        value_hover="$,.2f",
        category_axis=charts.axis("Provider"),
        value_axis=charts.axis("$ per hour", charts.USD_AXIS),
        category_order=list(prices["label"]),
        legend_title="Pricing",
    )
    assert [t.name for t in figure.data] == ["on_demand", "spot"]
    spot = figure.data[1]
    assert (
        spot.orientation == "h"
        and list(spot.y) == ["gcp spot", "aws spot"]
        and list(spot.x) == [1.98, 2.62]
    )
    assert list(spot.text) == ["$1.98", "$2.62"] and spot.marker.color == "#ff7f0e"
    assert "Pricing: spot" in spot.hovertemplate and "$ per hour: %{x:$,.2f}" in spot.hovertemplate
    assert "source: %{customdata[0]}" in spot.hovertemplate and spot.hovertemplate.startswith(
        "<b>%{y}</b>"
    )
    # the first category reads at the top: plotly draws a category axis upwards
    assert list(figure.layout.yaxis.categoryarray) == ["aws on demand", "aws spot", "gcp spot"]
    assert figure.layout.xaxis.tickprefix == "$" and figure.layout.xaxis.title.text == "$ per hour"
    assert figure.layout.barmode == "relative"


def test_bars_vertical_single_trace():
    frame = pd.DataFrame({"region": ["us-east-1", "eu-west-1"], "usd": [55.04, 60.0]})
    figure = charts.bars(frame, "region", "usd", category_order=["eu-west-1", "us-east-1"])
    assert len(figure.data) == 1 and list(figure.data[0].x) == ["us-east-1", "eu-west-1"]
    assert list(figure.layout.xaxis.categoryarray) == [
        "eu-west-1",
        "us-east-1",
    ]  # left to right as given


def test_stacked_bars_stack_parts_in_colour_order():
    parts = pd.DataFrame(
        {
            "replica": ["1 × MI300X"] * 2 + ["4 × H100"] * 2,
            "part": ["KV", "Weights", "KV", "Weights"],
            "gib": [2.5, 131.4, 2.5, 131.4],
        }
    )
    figure = charts.stacked_bars(
        parts, "replica", "gib", "part", {"Weights": "#4C78A8", "KV": "#F58518"}
    )
    assert [t.name for t in figure.data] == ["Weights", "KV"]
    assert figure.layout.barmode == "relative" and all(t.orientation == "h" for t in figure.data)
    assert sum(np.sum(t.x) for t in figure.data) == pytest.approx(2 * 133.9)


def test_gantt_weeks_on_a_numeric_axis():
    gates = [
        ScheduledGate("*", "audit", 0.0, 1.0, True, "seed playbook"),
        ScheduledGate("rocm", "certify", 1.0, 3.0, True, ""),
        ScheduledGate("rocm", "canary", 3.0, 6.0, False, "modeling.md"),
    ]
    figure = charts.gantt_weeks(gates)
    critical, slack = figure.data
    assert (critical.name, slack.name) == ("critical", "has slack")
    assert list(critical.y) == ["audit (all backends)", "certify (rocm)"]
    assert list(critical.base) == [0.0, 1.0] and list(critical.x) == [1.0, 2.0]
    assert critical.marker.color == "#C0392B" and slack.marker.color == "#7FB3A8"
    assert [list(row) for row in slack.customdata] == [[6.0, "modeling.md"]]
    assert critical.customdata[1][1] == charts.MISSING
    assert "Basis: %{customdata[1]}" in critical.hovertemplate
    layout = figure.layout
    assert layout.xaxis.type is None and layout.xaxis.rangemode == "tozero"
    assert layout.xaxis.title.text.startswith("Plan week")
    assert (
        layout.yaxis.autorange == "reversed"
        and list(layout.yaxis.categoryarray)[0] == "audit (all backends)"
    )
    assert layout.height == 120 + 34 * 3 and layout.legend.title.text == "Critical path"


def test_step_line_and_threshold(options):
    figure = charts.scatter_by(options, "cost", "ftl_ms", "vendor")
    charts.add_step_line(
        figure, [0.0001, 0.0002], [900.0, 400.0], "Pareto frontier", colour="#1B2421", dash="dot"
    )
    charts.add_threshold(figure, 2000.0, "SLO 2,000 ms")
    line = figure.data[-1]
    assert line.name == "Pareto frontier" and line.line.shape == "hv" and line.line.dash == "dot"
    assert line.hoverinfo == "skip" and list(line.y) == [900.0, 400.0]
    [shape] = figure.layout.shapes
    assert (shape.y0, shape.y1, shape.xref, shape.line.dash) == (2000.0, 2000.0, "x domain", "dash")
    assert figure.layout.annotations[0].text == "SLO 2,000 ms"


def test_axis_merges_presets_then_settings():
    assert charts.axis("Price date", charts.USD_AXIS, rangemode="normal") == {
        "title": {"text": "Price date"},
        "tickprefix": "$",
        "rangemode": "normal",
    }
    assert charts.axis(None, charts.MS_AXIS) == {"ticksuffix": " ms", "rangemode": "tozero"}


def test_the_interactivity_frontier_draws_each_vendors_curves_in_one_broken_line():
    points = pd.DataFrame(
        {
            "vendor": ["NVIDIA", "NVIDIA", "NVIDIA", "NVIDIA", "AMD"],
            "curve": [0, 0, 0, 1, 2],
            "tok_s_per_user": [5.0, 8.0, 10.0, 12.0, 20.0],
            "cost": [1.0, 2.5, 2.0, 3.0, 4.0],
            "on_frontier": [True, False, True, True, True],
            "curve_label": ["H200 a", "H200 a", "H200 a", "H200 b", "MI300X"],
            "tpot_basis": ["p95"] * 5,
            "price_source": ["sheet"] * 5,
            "price_observed_at": pd.to_datetime(["2026-08-01"] * 5),
            "bench_source_title": ["run"] * 5,
            "bench_measured_at": pd.to_datetime(["2026-07-01"] * 5),
        }
    )
    figure = charts.interactivity_frontier(points, 9.0, "p95", "1m")
    by_name = {trace.name: trace for trace in figure.data}
    assert set(by_name) == {"NVIDIA", "NVIDIA (off the frontier)", "AMD"}
    # Two NVIDIA curves in one trace, broken between them; the dominated point is apart.
    assert list(by_name["NVIDIA"].x) == [5.0, 10.0, None, 12.0]
    assert list(by_name["NVIDIA (off the frontier)"].x) == [8.0]
    assert by_name["NVIDIA"].marker.color == VENDOR_COLOURS["NVIDIA"]
    assert figure.layout.shapes[0].x0 == 9.0  # the target
    assert "tok/s per user" in figure.layout.xaxis.title.text


# -- legends clear of the toolbar; spot and on demand told apart --------------------------------
def _legend_below(figure) -> bool:
    legend = figure.layout.legend
    return (
        legend.orientation == "h"
        and legend.yref == "container"
        and legend.y == 0
        and legend.yanchor == "bottom"
    )


def _scatter_options(options: pd.DataFrame) -> pd.DataFrame:
    """The options with every field the cost scatters' hover names."""
    return options.assign(
        usd_per_1k_output_tokens=options["cost"],
        ftl_basis="p95",
        option_id=range(len(options)),
        instance_type="i",
        region="r",
        model="m",
        precision="bf16",
        scenario="server",
        price_source="list",
        bench_source_title="run",
        bench_measured_at=pd.Timestamp("2026-01-01"),
    )


def test_every_legend_sits_under_the_plot_where_the_toolbar_cannot_cover_it(options):
    # The toolbar shows over the top right corner: Plotly's default legend place.
    frame = _scatter_options(options)
    breakdown = pd.DataFrame(
        {
            "replica": ["1 × H100"] * 2,
            "gib": [60.0, 20.0],
            "total": [80.0] * 2,
            "part": ["Weights", "KV cache (requested sequences)"],
        }
    )
    figures = {
        "cost_against_ftl": charts.cost_against_ftl(frame, "output", "p95"),
        "pareto": charts.pareto(frame, frame.head(2), "p95", 1000.0),
        "scatter_by": charts.scatter_by(options, "cost", "ftl_ms", "vendor"),
        "bars": charts.bars(options, "accelerator_name", "cost", colour="vendor"),
        "memory_breakdown": charts.memory_breakdown(breakdown),
    }
    for name, figure in figures.items():
        assert _legend_below(figure), (name, figure.layout.legend)


def test_spot_and_on_demand_points_differ_in_colour_and_shape_and_the_legend_says_which(options):
    figure = charts.cost_against_ftl(_scatter_options(options), "output", "p95")
    traces = {t.name: t for t in figure.data}
    assert set(traces) == {"Spot · NVIDIA", "Spot · Acme", "On demand · AMD", "On demand · NVIDIA"}
    spot, on_demand = traces["Spot · NVIDIA"], traces["On demand · NVIDIA"]
    assert spot.marker.color != on_demand.marker.color
    assert spot.marker.symbol != on_demand.marker.symbol
    assert spot.marker.symbol.endswith("-open") and not on_demand.marker.symbol.endswith("-open")
    # One colour per pricing model, whatever the vendor.
    assert traces["Spot · Acme"].marker.color == spot.marker.color
    assert traces["On demand · AMD"].marker.color == on_demand.marker.color
    assert figure.layout.legend.title.text == "Pricing · vendor"


def test_one_pricing_model_keeps_the_vendor_colours(options):
    one = _scatter_options(options[options["pricing_model"] == "on_demand"])
    figure = charts.pareto(one, one.head(1), "p95", 1000.0)
    markers = {t.name: t.marker.color for t in figure.data if t.mode == "markers"}
    assert markers == {"AMD": VENDOR_COLOURS["AMD"], "NVIDIA": VENDOR_COLOURS["NVIDIA"]}


def test_the_option_hover_names_the_pricing_model_in_words(options):
    figure = charts.cost_against_ftl(_scatter_options(options), "output", "p95")
    column = list(charts.OPTION_HOVER).index("pricing")  # customdata follows the hover fields
    values = {row[column] for trace in figure.data for row in trace.customdata}
    assert values == {"Spot", "On demand"}
