"""Overview: the headline figures, the $/1K-tokens-vs-FTL Pareto frontier, and how fresh the data is."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from app import charts, data
from app.safe import plain
from tokendesk import formatting
from tokendesk import scenario_inputs as si
from tokendesk.metrics import PERCENTILES

#: Points the Pareto chart draws at most (the cheapest first).
MAX_POINTS = 3000
#: A price older than this many days gets a "stale" badge (prices move every quarter).
STALE_PRICE_DAYS = 90
#: A benchmark older than one quarter is stale: runtimes improve faster than that.
STALE_RESULT_DAYS = 91

st.title("Overview")
st.caption(
    "Cheapest $/1K output tokens that meets your first-token-latency SLO, "
    "per vendor, from current prices and benchmarks."
)

path = data.db_path()
inputs, notices = si.from_params(st.query_params.to_dict())
for notice in notices:
    st.warning(notice, icon="⚠️")
left, middle, right = st.columns(3)
family = left.selectbox(
    "Model class",
    list(si.MODEL_FAMILIES),
    index=list(si.MODEL_FAMILIES).index(inputs.model),
    format_func=lambda f: f"{f.upper()} ({', '.join(si.MODEL_FAMILIES[f][:2])}, …)",
    key="o_model",
)
slo = middle.number_input("FTL SLO (ms)", 10.0, 120_000.0, inputs.slo, step=100.0, key="o_slo")
percentile = right.selectbox(
    "Percentile", PERCENTILES, index=PERCENTILES.index(inputs.pct), key="o_pct"
)

models = tuple(si.models_in_family(family, data.filter_values(path)["model"]))
scope = (("model", models),)
best = data.cost_options(path, scope, ftl_percentile=percentile, max_ftl_ms=slo, best_per="vendor")

st.subheader(f"Cheapest per vendor meeting FTL {percentile} ≤ {slo:,.0f} ms")
if best.empty:
    st.info(
        "No measured operating point of this model class meets the SLO. Relax "
        "the SLO or add benchmarks on the Benchmarks page."
    )
else:
    columns = st.columns(min(len(best), 4))
    for column, row in zip(columns, best.itertuples(), strict=False):
        bound = "≤ " if row.ftl_basis != percentile else ""
        column.metric(
            plain(row.accelerator_name),
            formatting.usd_per_1k(row.usd_per_1k_output_tokens) + " /1K",
            help=f"{plain(row.provider)} {plain(row.instance_type)} ({row.pricing_model}, "
            f"{plain(row.region)}) · {plain(row.model)} {plain(row.precision)} · "
            f"FTL {bound}{formatting.ms(row.ftl_ms)} ({row.ftl_basis}) · price: "
            f"{plain(row.price_source)} ({row.price_observed_at:%Y-%m-%d}) · "
            f"result: {plain(row.bench_source_title)} ({row.bench_measured_at:%Y-%m-%d})",
        )
        column.caption(
            f"{plain(row.provider)} · {plain(row.instance_type)} · {row.pricing_model} · FTL "
            f"{bound}{formatting.ms(row.ftl_ms)}"
        )
    incumbent = best[best["vendor"] == "NVIDIA"]
    others = best[best["vendor"] != "NVIDIA"]
    if not incumbent.empty and not others.empty:
        inc, alt = incumbent.iloc[0], others.iloc[0]
        change = alt.usd_per_1k_output_tokens / inc.usd_per_1k_output_tokens - 1
        verdict = "cheaper" if change < 0 else "dearer"
        st.markdown(
            f"**Incumbent against the best alternative:** {plain(alt.accelerator_name)} on "
            f"{plain(alt.provider)} is **{abs(change):.0%} {verdict}** per 1K output tokens than "
            f"{plain(inc.accelerator_name)} on {plain(inc.provider)} "
            f"({formatting.usd_per_1k(alt.usd_per_1k_output_tokens)} vs "
            f"{formatting.usd_per_1k(inc.usd_per_1k_output_tokens)}), "
            f"both meeting FTL {percentile} ≤ {slo:,.0f} ms."
        )

st.subheader("Pareto frontier: $/1K output tokens against FTL")
# The exact frontier (computed in DuckDB) plus the cheapest options around it for context.
frontier = data.cost_options(
    path, scope, ftl_percentile=percentile, max_ftl_ms=float("inf"), frontier_only=True
)
nearby = data.cost_options(
    path, scope, ftl_percentile=percentile, max_ftl_ms=float("inf"), limit=MAX_POINTS
)
plotted = pd.concat(
    [nearby, frontier[~frontier["option_id"].isin(nearby["option_id"])]], ignore_index=True
)
if plotted.empty:
    st.info("No option of this model class publishes a first-token latency.")
else:
    figure = charts.scatter_by(
        plotted,
        "usd_per_1k_output_tokens",
        "ftl_ms",
        "vendor",
        title="accelerator_name",
        hover={
            "provider": "provider",
            "instance": "instance_type",
            "pricing model": "pricing_model",
            "region": "region",
            "model": "model",
            "FTL basis": "ftl_basis",
            "price source": "price_source",
            "price date": "price_observed_at",
            "result source": "bench_source_title",
            "result date": "bench_measured_at",
        },
        x_axis=charts.axis("$ per 1K output tokens (log scale)", charts.LOG_USD_AXIS),
        y_axis=charts.axis(f"FTL {percentile} (ms)", charts.MS_AXIS),
        x_hover="$.3g",
        y_hover=",.0f",
        legend_title="Vendor",
        height=460,
    )
    frontier = frontier.sort_values("usd_per_1k_output_tokens")
    charts.add_step_line(
        figure,
        frontier["usd_per_1k_output_tokens"],
        frontier["ftl_ms"],
        "Pareto frontier",
        colour="#1B2421",
        dash="dot",
    )
    charts.add_threshold(figure, slo, f"SLO {slo:,.0f} ms")
    st.plotly_chart(figure, width="stretch", key="pareto")
    st.caption(
        f"{len(frontier)} options are on the frontier: nothing else is both cheaper and faster. "
        "Points shown at a higher percentile than chosen are upper bounds (see the hover)."
    )

st.subheader("Data freshness")
fresh = data.freshness(path)
if fresh.empty:
    st.info("The warehouse has no snapshots yet.")
else:

    def badge(row: pd.Series) -> str:
        if pd.isna(row["age_days"]):
            return "🔴 no good snapshot"
        limit = STALE_PRICE_DAYS if row["kind"] == "prices" else STALE_RESULT_DAYS
        return f"🟠 stale (> {limit} days)" if row["age_days"] > limit else "🟢 fresh"

    fresh = fresh.assign(state=fresh.apply(badge, axis=1))
    stale = (fresh["state"].str.contains("stale")).sum()
    st.caption(
        f"{stale} of {len(fresh)} sources are stale. Prices are stale after "
        f"{STALE_PRICE_DAYS} days, benchmarks after one quarter."
    )
    st.dataframe(
        fresh[
            [
                "kind",
                "source",
                "state",
                "data_as_of",
                "age_days",
                "last_attempt",
                "last_status",
                "last_error",
            ]
        ],
        hide_index=True,
        width="stretch",
        key="freshness",
        column_config={
            "kind": "Kind",
            "source": "Source",
            "state": "State",
            "data_as_of": st.column_config.DateColumn("Data as of"),
            "age_days": st.column_config.NumberColumn("Age", format="%d days"),
            "last_attempt": st.column_config.DatetimeColumn(
                "Last refresh attempt", format="YYYY-MM-DD HH:mm"
            ),
            "last_status": "Last status",
            "last_error": "Last error",
        },
    )
