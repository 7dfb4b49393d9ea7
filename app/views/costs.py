"""Costs: $/1K tokens and first-token latency for every priced option, with sources and dates."""

from __future__ import annotations

from functools import partial

import streamlit as st

from app import charts, data
from app.safe import plain
from tokendesk import formatting
from tokendesk.exports import safe_csv
from tokendesk.metrics import PERCENTILES

#: Rows the page reads and shows at most (the cheapest first).
MAX_ROWS = 2000

st.title("$/1K tokens and first-token latency")
st.caption(
    "Every current price quote joined to every benchmark result it can host: replicas per instance "
    "= ⌊instance accelerators ÷ accelerators per replica⌋, $/1K tokens = "
    "instance $/h ÷ (instance tok/s × 3.6)."
)

path = data.db_path()
values = data.filter_values(path)

with st.sidebar:
    st.header("Filters")
    chosen = {
        "vendor": st.multiselect("Vendor", values["vendor"], key="f_vendor"),
        "accelerator": st.multiselect("Accelerator", values["accelerator"], key="f_accelerator"),
        "provider": st.multiselect("Cloud / provider", values["provider"], key="f_provider"),
        "region": st.multiselect("Region", values["region"], key="f_region"),
        "pricing_model": st.multiselect(
            "Pricing model", values["pricing_model"], key="f_pricing_model"
        ),
        "model": st.multiselect("Model", values["model"], key="f_model"),
        "precision": st.multiselect("Precision", values["precision"], key="f_precision"),
        "workload": st.multiselect("Workload", values["workload"], key="f_workload"),
    }
    percentile = st.selectbox(
        "FTL percentile", PERCENTILES, index=PERCENTILES.index("p95"), key="f_percentile"
    )
    token_basis = st.radio(
        "Tokens counted", ["output", "total (input + output)"], key="f_tokens", horizontal=True
    )

filters = tuple((name, tuple(selection)) for name, selection in chosen.items() if selection)
cost_column = "usd_per_1k_output_tokens" if token_basis == "output" else "usd_per_1k_total_tokens"
total = data.count_options(path, filters)
# The page shows the cheapest MAX_ROWS options; the rest stay in DuckDB (CSV/CLI for all of them).
options = data.cost_options(
    path, filters, sort=cost_column, limit=MAX_ROWS, ftl_percentile=percentile
).copy()

if options.empty:
    st.info("No priced option matches these filters. Remove a filter to see more options.")
    st.stop()

options["cost"] = options[cost_column]
priced = options[options["cost"].notna()]

best = priced.nsmallest(1, "cost")
col1, col2, col3 = st.columns(3)
col1.metric("Options", f"{total:,}", help="Price quote × compatible benchmark result pairs")
if total > len(options):
    st.caption(
        f"Showing the {len(options):,} cheapest of {total:,} options. Narrow the filters, or run "
        "`tokendesk costs --format csv` for all of them."
    )
if not best.empty:
    top = best.iloc[0]
    col2.metric(
        f"Cheapest $/1K {token_basis.split()[0]} tokens",
        formatting.usd_per_1k(top["cost"]),
        help=f"{plain(top['accelerator_id'])} on {plain(top['provider'])} "
        f"{plain(top['instance_type'])} ({top['pricing_model']}, {plain(top['region'])}); "
        f"price: {plain(top['price_source'])} ({top['price_observed_at']:%Y-%m-%d}); "
        f"result: {plain(top['bench_source_title'])} "
        f"({top['bench_measured_at']:%Y-%m-%d})",
    )
with_ftl = priced[priced["ftl_ms"].notna()]
if not with_ftl.empty:
    fastest = with_ftl.nsmallest(1, "ftl_ms").iloc[0]
    bound = fastest["ftl_basis"] != percentile
    col3.metric(
        f"Lowest FTL {percentile}" + (" (upper bound)" if bound else ""),
        ("≤ " if bound else "") + formatting.ms(fastest["ftl_ms"]),
        help=f"{plain(fastest['accelerator_id'])} · {plain(fastest['model'])} · "
        f"{plain(fastest['bench_source_title'])} "
        f"({fastest['bench_measured_at']:%Y-%m-%d}); basis "
        f"{fastest['ftl_basis']}",
    )
if token_basis != "output" and priced.empty:
    st.warning(
        "None of these results publishes total (input + output) throughput; switch to output tokens."
    )

st.subheader(f"$/1K tokens against FTL {percentile}")
plotted = with_ftl
if plotted.empty:
    st.info(
        f"None of these options has a published TTFT at {percentile} or above, so there is nothing to plot."
    )
else:
    tokens = token_basis.split()[0]
    figure = charts.scatter_by(
        plotted,
        "cost",
        "ftl_ms",
        "vendor",
        symbol="pricing_model",
        title="accelerator_name",
        hover={
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
        },
        x_axis=charts.axis(f"$ per 1K {tokens} tokens (log scale)", charts.LOG_USD_AXIS),
        y_axis=charts.axis(f"First-token latency {percentile} (ms)", charts.MS_AXIS),
        x_hover="$.3g",
        y_hover=",.0f",
        legend_title="Vendor · pricing",
        height=520,
    )
    st.plotly_chart(figure, width="stretch", key="cost_scatter")
    upper = (plotted["ftl_basis"] != percentile).sum()
    if upper:
        st.caption(
            f"{upper} of {len(plotted)} plotted points publish no {percentile}; "
            "they are shown at their next higher "
            f"published percentile (an upper bound, labelled in the hover)."
        )

missing_ftl = priced[priced["ftl_ms"].isna()]
if not missing_ftl.empty:
    st.caption(
        f"{len(missing_ftl)} options have no published first-token latency "
        "(e.g. MLPerf Offline results, which "
        'have no latency bound). They are in the table with FTL "unknown" and '
        "are not plotted at a made-up latency."
    )

st.subheader("All options")
table = options[
    [
        "accelerator_name",
        "vendor",
        "provider",
        "region",
        "instance_type",
        "pricing_model",
        "price_basis",
        "model",
        "precision",
        "scenario",
        "replicas_per_instance",
        "instance_output_tok_s",
        "usd_per_hour",
        "cost",
        "ftl_ms",
        "ftl_basis",
        "price_source",
        "price_observed_at",
        "bench_source_title",
        "bench_measured_at",
    ]
].sort_values("cost", na_position="last")
st.dataframe(
    table,
    hide_index=True,
    width="stretch",
    key="cost_table",
    column_config={
        "accelerator_name": st.column_config.TextColumn("Accelerator"),
        "vendor": "Vendor",
        "provider": "Provider",
        "region": "Region",
        "instance_type": "Instance",
        "pricing_model": "Pricing",
        "price_basis": st.column_config.TextColumn(
            "Priced per", help="instance, or one accelerator-hour × accelerators per replica"
        ),
        "model": "Model",
        "precision": "Precision",
        "scenario": "Scenario",
        "replicas_per_instance": st.column_config.NumberColumn("Replicas", format="%d"),
        "instance_output_tok_s": st.column_config.NumberColumn(
            "Instance output tok/s", format="%.0f"
        ),
        "usd_per_hour": st.column_config.NumberColumn("$/hour", format="$%.3f"),
        "cost": st.column_config.NumberColumn(
            f"$/1K {token_basis.split()[0]} tokens", format="$%.6f"
        ),
        "ftl_ms": st.column_config.NumberColumn(f"FTL {percentile} (ms)", format="%.0f ms"),
        "ftl_basis": "FTL basis",
        "price_source": "Price source",
        "price_observed_at": st.column_config.DateColumn("Price date"),
        "bench_source_title": "Result source",
        "bench_measured_at": st.column_config.DateColumn("Result date"),
    },
)
st.caption(
    "Dates are the source's own date (for undated sources, the earliest "
    "plausible date, so staleness is never "
    "understated). Per-accelerator-hour quotes are billed for exactly the accelerators one replica needs."
)
# The CSV is written when the button is clicked, not on every rerun.
st.download_button(
    "Download these options (CSV)",
    partial(safe_csv, table),
    file_name="tokendesk-costs.csv",
    mime="text/csv",
)
