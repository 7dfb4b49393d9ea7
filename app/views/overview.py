"""Overview: the headline figures, the $/1K-tokens-vs-FTL Pareto frontier, and how fresh the data is."""

from __future__ import annotations

from typing import Any

import streamlit as st

from app import charts, data, plan_reads, ui
from app.models import overview as model
from app.models.withheld import WITHHELD_NOTE
from app.safe import plain
from app.url_state import UrlInput
from briefs.workspace_plans import headline
from costmodel import domain
from planning import what_ifs as si
from planning.workspaces import Knobs, is_example, market_view_defaults, scenario_view
from tokendesk import formatting
from tokendesk.labels import label
from tokendesk.metrics import PERCENTILES
from tokendesk.records import PRICING_FAMILIES

#: Points the Pareto chart draws at most (the cheapest first).
MAX_POINTS = 3000


def page_inputs(model: str, slo: float, pct: str) -> tuple[UrlInput, ...]:
    """The same keys (and bounds) as the Scenarios page, so a link carries them from page to
    page; the model class, SLO and percentile start at the company's own (its largest
    workload's), so the market view answers for the workspace the Scenarios page prices."""
    low, high = float(si.BOUNDS["slo"][0]), float(si.BOUNDS["slo"][1])
    return (
        UrlInput("model", "choice", model, choices=tuple(si.MODEL_FAMILIES)),
        UrlInput("slo", "number", min(max(slo, low), high), low=low, high=high),
        UrlInput("pct", "choice", pct, choices=PERCENTILES),
        UrlInput("pricing", "choice", "on-demand", choices=tuple(PRICING_FAMILIES)),
        ui.UNIT_INPUT,
    )


def workspace_headline(percentile: str, default_percentile: str) -> tuple:
    """Your fleet against the plan the verdicts buy, from the evaluation the Scenarios page
    shows; a percentile chosen here (not the workspace's) reads every workload's SLO at it, as
    the same link does on the Scenarios page. Returns the comparison and its workspace."""
    _, stored = data.workspace(path)
    chosen = {"pct": percentile} if percentile != default_percentile else {}
    view = scenario_view(chosen, stored)
    comparison = plan_reads.workspace_evaluation(path, view.workspace, Knobs())
    example = is_example(stored)
    st.markdown(
        f"**Your {label('incumbent')} against the plan to buy** ({plain(stored.name)}"
        f"{', the bundled example' if example else ''}): "
        f"{plain(headline(comparison), limit=2000)}"
    )
    st.caption(
        "From the same evaluation as the Scenarios page and the brief: your fleet at your rates "
        "against every plan, each judged by one rule, "
        + (
            f"every SLO read at {percentile}. "
            if chosen
            else "each workload's SLO at its own percentile. "
        )
        + "Edit the fleet on the Workspace page."
    )
    if plan_reads.withheld_notes(path, view.workspace):
        st.caption(WITHHELD_NOTE)
    return comparison, view.workspace


def gap_sentence(comparison, ws, cheapest_usd_per_1k: float, unit: str) -> str | None:
    """Why Stay's cost per output token is not the cheapest card's, in named factors."""
    gap = plan_reads.cost_gap(path, ws, Knobs(), cheapest_usd_per_1k)
    if gap is None:
        return None
    per = formatting.per_tokens
    parts = "; ".join(f"{name} ×{factor:,.2f}" for name, factor in gap.factors)
    label = formatting.cost_label(unit, "output")
    return (
        f"Stay pays {formatting.usd_per_1k(per(gap.stay_usd_per_1k, unit))} ({label}) for the"
        f" tokens its demand asks for, {gap.ratio:,.1f}× the cheapest card"
        f" ({formatting.usd_per_1k(per(gap.market_usd_per_1k, unit))}): {parts}."
    )


def inputs(declared: tuple[UrlInput, ...]) -> dict:
    start = ui.url_inputs(declared)
    slo_input = declared[1]
    families = list(si.MODEL_FAMILIES)
    # The model class names two of its models: it gets the room to show them at 1280 px.
    left, middle, right, far = st.columns([1.6, 1, 0.8, 1])
    chosen = {
        "model": left.selectbox(
            "Model class",
            families,
            families.index(start["model"]),
            format_func=lambda f: f"{f.upper()} ({', '.join(si.MODEL_FAMILIES[f][:2])}, …)",
            key="model",
        ),
        "slo": middle.number_input(
            domain.SLO_MS.label,
            slo_input.low,
            slo_input.high,
            start["slo"],
            step=domain.SLO_MS.step,
            format=domain.SLO_MS.widget_format,
            key="slo",
        ),
        "pct": right.selectbox(
            "Percentile", PERCENTILES, PERCENTILES.index(start["pct"]), key="pct"
        ),
        "pricing": far.selectbox(
            "Pricing",
            list(PRICING_FAMILIES),
            list(PRICING_FAMILIES).index(start["pricing"]),
            key="pricing",
        ),
        "unit": ui.unit_switch(start["unit"]),
    }
    ui.keep_in_url(chosen, declared)
    return chosen


def cheapest_per_vendor(scope, percentile: str, slo: float, pricing: str, unit: str):
    priced = (*scope, ("pricing_model", PRICING_FAMILIES[pricing]))
    best = data.cost_options(
        path, priced, ftl_percentile=percentile, max_ftl_ms=slo, best_per="vendor"
    )
    st.subheader(
        f"Cheapest {pricing} {formatting.cost_label(unit, 'output')} per vendor meeting "
        f"FTL {percentile} ≤ {slo:,.0f} ms"
    )
    if best.empty:
        st.info(
            "No measured operating point of this model class meets the SLO. Relax the SLO or add "
            "benchmarks on the Benchmarks page."
        )
        return None
    cards = model.vendor_cards(best, percentile, unit)
    for column, card in zip(st.columns(min(len(cards), 4)), cards, strict=False):
        column.metric(plain(card.title), card.value, help=plain(card.help, limit=2000))
        column.caption(plain(card.caption, limit=2000))
    return float(best["usd_per_1k_output_tokens"].min())


def pareto(scope, percentile: str, slo: float, pricing: str, unit: str) -> None:
    """The frontier among the options priced as chosen (the cards above use the same choice)."""
    st.subheader(f"Pareto frontier: {pricing} {formatting.cost_label(unit, 'output')} against FTL")
    priced = (*scope, ("pricing_model", PRICING_FAMILIES[pricing]))
    unbounded: dict[str, Any] = {"ftl_percentile": percentile, "max_ftl_ms": float("inf")}
    frontier = data.cost_options(path, priced, frontier_only=True, **unbounded)
    nearby = data.cost_options(path, priced, limit=MAX_POINTS, **unbounded)

    def draw() -> tuple[bool, Any]:
        plotted = model.plotted_options(nearby, frontier)
        if plotted.empty:
            return False, None
        return True, charts.pareto(plotted, frontier, percentile, slo, unit)

    # Made once per these inputs until the warehouse changes, not on every visit to the page.
    any_plotted, figure = data.derived("pareto", (path, priced, percentile, slo, unit), draw)
    if not any_plotted:
        st.info("No option of this model class publishes a first-token latency.")
        return
    st.plotly_chart(figure, width="stretch", key="pareto")
    st.caption(
        f"{len(frontier)} options are on the frontier: nothing else is both cheaper and faster. "
        "Points shown at a higher percentile than chosen are upper bounds (see the hover)."
    )


def freshness() -> None:
    st.subheader("Data freshness")
    fresh = data.freshness(path)
    if fresh.empty:
        st.info("The warehouse has no snapshots yet.")
        return
    table, stale = model.freshness_table(fresh)
    st.caption(
        f"{stale} of {len(fresh)} sources are stale. Prices are stale after "
        f"{model.STALE_PRICE_DAYS} days, benchmarks after one quarter."
    )
    ui.show_table(table, key="freshness")


st.title("Overview")
st.caption(
    "Cheapest cost per output token that meets your first-token-latency SLO, "
    "per vendor, from current prices and benchmarks."
)
path = data.db_path()
_, stored_workspace = data.workspace(path)
INPUTS = page_inputs(*market_view_defaults(stored_workspace))
chosen = inputs(INPUTS)
models = tuple(si.models_in_family(chosen["model"], data.filter_values(path)["model"]))
scope = (("model", models),)
# The sections in reading order; the chart and the table are drawn first (into their places),
# so a new visitor's browser loads its chart and table code while the plans are evaluated.
headline_box, cards_box, pareto_box, freshness_box = (st.container() for _ in range(4))
with freshness_box:
    freshness()
with pareto_box:
    pareto(scope, chosen["pct"], chosen["slo"], chosen["pricing"], chosen["unit"])
with headline_box:
    comparison, viewed = workspace_headline(chosen["pct"], str(INPUTS[2].default))
with cards_box:
    cheapest = cheapest_per_vendor(
        scope, chosen["pct"], chosen["slo"], chosen["pricing"], chosen["unit"]
    )
    if cheapest is not None:
        sentence = gap_sentence(comparison, viewed, cheapest, chosen["unit"])
        if sentence:
            st.caption(plain(sentence, limit=2000))
