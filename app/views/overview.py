"""Overview: the headline figures, the $/1K-tokens-vs-FTL Pareto frontier, and how fresh the data is."""

from __future__ import annotations

import streamlit as st

from app import charts, data, ui
from app.models import overview as model
from app.url_state import UrlInput
from costmodel import scenario_inputs as si
from tokendesk.metrics import PERCENTILES

#: Points the Pareto chart draws at most (the cheapest first).
MAX_POINTS = 3000
#: The same keys (and bounds) as the Scenarios page, so a link carries them from page to page.
INPUTS = (
    UrlInput("model", "choice", si.DEFAULTS.model, choices=tuple(si.MODEL_FAMILIES)),
    UrlInput("slo", "number", si.DEFAULTS.slo, *map(float, si.BOUNDS["slo"])),
    UrlInput("pct", "choice", si.DEFAULTS.pct, choices=PERCENTILES),
)

SLO = INPUTS[1]


def inputs() -> dict:
    start = ui.url_inputs(INPUTS)
    families = list(si.MODEL_FAMILIES)
    left, middle, right = st.columns(3)
    chosen = {
        "model": left.selectbox(
            "Model class",
            families,
            families.index(start["model"]),
            format_func=lambda f: f"{f.upper()} ({', '.join(si.MODEL_FAMILIES[f][:2])}, …)",
            key="model",
        ),
        "slo": middle.number_input(
            "FTL SLO (ms)", SLO.low, SLO.high, start["slo"], step=100.0, key="slo"
        ),
        "pct": right.selectbox(
            "Percentile", PERCENTILES, PERCENTILES.index(start["pct"]), key="pct"
        ),
    }
    ui.keep_in_url(chosen, INPUTS)
    return chosen


def cheapest_per_vendor(scope, percentile: str, slo: float) -> None:
    best = data.cost_options(
        path, scope, ftl_percentile=percentile, max_ftl_ms=slo, best_per="vendor"
    )
    st.subheader(f"Cheapest per vendor meeting FTL {percentile} ≤ {slo:,.0f} ms")
    if best.empty:
        st.info(
            "No measured operating point of this model class meets the SLO. Relax the SLO or add "
            "benchmarks on the Benchmarks page."
        )
        return
    cards = model.vendor_cards(best, percentile)
    for column, card in zip(st.columns(min(len(cards), 4)), cards, strict=False):
        column.metric(card.title, card.value, help=card.help)
        column.caption(card.caption)
    sentence = model.incumbent_sentence(best, percentile, slo)
    if sentence:
        st.markdown(sentence)


def pareto(scope, percentile: str, slo: float) -> None:
    st.subheader("Pareto frontier: $/1K output tokens against FTL")
    unbounded = {"ftl_percentile": percentile, "max_ftl_ms": float("inf")}
    frontier = data.cost_options(path, scope, frontier_only=True, **unbounded)
    nearby = data.cost_options(path, scope, limit=MAX_POINTS, **unbounded)
    plotted = model.plotted_options(nearby, frontier)
    if plotted.empty:
        st.info("No option of this model class publishes a first-token latency.")
        return
    st.plotly_chart(
        charts.pareto(plotted, frontier, percentile, slo), width="stretch", key="pareto"
    )
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
    "Cheapest $/1K output tokens that meets your first-token-latency SLO, "
    "per vendor, from current prices and benchmarks."
)
path = data.db_path()
chosen = inputs()
models = tuple(si.models_in_family(chosen["model"], data.filter_values(path)["model"]))
cheapest_per_vendor((("model", models),), chosen["pct"], chosen["slo"])
pareto((("model", models),), chosen["pct"], chosen["slo"])
freshness()
