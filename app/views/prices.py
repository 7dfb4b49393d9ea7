"""Prices: the current price quotes with their sources and dates, a SKU's prices by region and over
time, $/accelerator-hour across providers, the integrity report and a live refresh."""

from __future__ import annotations

from datetime import UTC, datetime
from functools import partial

import numpy as np
import pandas as pd
import streamlit as st

from app import auth, charts, data, ui
from app.models import prices as price_model
from app.safe import plain
from app.style import VENDOR_COLOURS
from app.url_state import UrlInput
from pricing.base import ProgressEvent
from pricing.integrity import RULE_EXPIRED, RULE_MOVED, check_snapshot
from pricing.registry import PROVIDERS, provider_names
from tokendesk import formatting
from tokendesk.access import Action
from tokendesk.exports import safe_csv

#: One colour per pricing model, so bars read the same in every chart of this page.
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
}
HISTORY_COLOURS = {
    "current": "#2ca02c",
    "historical": "#7f7f7f",
    "quarantined": "#d62728",
    "partial snapshot": "#ff7f0e",
}
#: Integrity rules that flag a row for review instead of quarantining it.
REVIEW_RULES = {RULE_MOVED, RULE_EXPIRED}
REFRESH_STATE = "prices_last_refresh"
#: Explorer filters: URL key = widget key = warehouse column, with its label.
FILTERS = {
    "provider": "Cloud / provider",
    "region": "Region",
    "accelerator": "Accelerator",
    "pricing_model": "Pricing model",
}
INPUTS = (*(UrlInput(name, "choices", []) for name in FILTERS), ui.UNIT_INPUT)


def _day(value: object) -> str:
    return formatting.day(None if value is None or pd.isna(value) else pd.Timestamp(value))


def _present(column: pd.Series) -> pd.Series:
    """Whether each cell holds a non-empty text (a reason or a flag)."""
    return column.fillna("").astype(str) != ""


def _status(prices: pd.DataFrame) -> pd.Series:
    """current, or the labels that apply: quarantined · expired · review (not for an expired quote)."""
    quarantined = _present(prices["quarantine_reason"])
    expired = prices["quote_expired"].fillna(False).astype(bool)
    review = _present(prices["review_flag"]) & ~expired
    labels = pd.DataFrame(
        {"quarantined": quarantined, "expired": expired, "review": review}, index=prices.index
    )
    # Columns, not rows: one pass per label instead of a Python call per quote.
    joined = pd.Series("", index=prices.index)
    for name in labels.columns:
        joined = joined.where(~labels[name], joined + np.where(joined == "", "", " · ") + name)
    return joined.where(joined != "", "current")


def _flag_detail(prices: pd.DataFrame) -> pd.Series:
    reason, flag = (
        prices["quarantine_reason"].fillna("").astype(str),
        prices["review_flag"].fillna("").astype(str),
    )
    return reason + np.where((reason != "") & (flag != ""), "; ", "") + flag


st.title("Cloud prices")
st.caption(
    "The current prices are the newest good snapshot of each source, "
    "region by region; older snapshots are kept "
    "and shown in the price history. $/accelerator-hour = instance $/h ÷ "
    "accelerators on the instance (a quote "
    "priced per accelerator-hour is already per accelerator). Every price "
    "shows its source and the source's date."
)

path = data.db_path()
header = st.container()
tab_list, tab_region, tab_accel, tab_history, tab_integrity, tab_refresh = st.tabs(
    ["Explorer", "By region", "$/accelerator-hour", "Price history", "Integrity", "Refresh prices"]
)

# The refresh runs before anything is read, so the rest of the page shows the new snapshots.
with tab_refresh:
    st.subheader("Refresh prices from the providers")
    st.caption(
        "Each provider's prices are fetched, checked by the integrity rules "
        "and written as one new, immutable "
        "snapshot. A provider that fails is recorded as a failed snapshot with its error, and its last good "
        "snapshot stays current; nothing is overwritten or deleted."
    )
    #: Why this person may not refresh (None: they may); the refresh controls say so.
    refresh_blocked = auth.why_not(Action.REFRESH_PRICES)
    if refresh_blocked:
        st.info(refresh_blocked)
    chosen_providers = st.multiselect(
        "Providers",
        provider_names(),
        default=provider_names(defaults_only=True),
        key="refresh_providers",
        disabled=refresh_blocked is not None,
    )
    regions_text = st.text_input(
        "Regions (optional, comma separated, in each provider's naming)",
        key="refresh_regions",
        disabled=refresh_blocked is not None,
        placeholder="us-east-1, eastus — empty: each provider's default regions",
    )
    with st.expander("What each provider needs"):
        st.dataframe(
            pd.DataFrame(
                [
                    {"provider": s.name, "reads": s.description, "needs": s.needs}
                    for s in PROVIDERS.values()
                ]
            ),
            hide_index=True,
            width="stretch",
        )
    if st.button(
        "Refresh prices",
        type="primary",
        key="refresh_run",
        disabled=not chosen_providers or refresh_blocked is not None,
        help=refresh_blocked,
    ):
        from pricing.refresh import refresh

        regions = [r.strip() for r in regions_text.split(",") if r.strip()] or None
        before = data.current_price_sources(path)
        report = None
        with st.status("Refreshing prices…", expanded=True) as box:

            def show(event: ProgressEvent) -> None:
                if event.stage == "start":
                    box.write(f"**{plain(event.provider)}** — {plain(event.message)}")
                elif event.stage == "region":
                    count = f" ({event.completed}/{event.total})" if event.total else ""
                    box.write(
                        f"{event.provider} · {event.region or '—'}{count} {event.message}".rstrip()
                    )
                elif event.stage == "done":
                    box.write(
                        f":green[:material/check_circle:] {plain(event.provider)}:"
                        f" {plain(event.message)}"
                    )
                elif event.stage == "failed":
                    box.write(
                        f":red[:material/error:] {plain(event.provider)}: {plain(event.message)}"
                    )
                else:
                    box.write(
                        f":material/remove_circle_outline: {plain(event.provider)}:"
                        f" {plain(event.message)}"
                    )
                box.update(label=f"Refreshing prices… {event.provider}")

            try:
                with data.writer(
                    Action.REFRESH_PRICES, lambda wait: box.write(wait.message(with_path=False))
                ) as warehouse:
                    report = refresh(chosen_providers, regions, warehouse, show)
            except Exception as exc:  # shown to the person, never as a traceback
                box.update(label="Refresh could not run", state="error")
                st.error(f"The refresh could not write to the warehouse: {plain(exc)}")
            else:
                box.update(
                    label="Refresh finished" if report.ok else "Refresh finished with failures",
                    state="complete" if report.ok else "error",
                    expanded=not report.ok,
                )
        if report is not None:
            after = data.current_price_sources(path)
            rows = []
            for outcome in report.outcomes:
                old = before[before["source"] == outcome.source]
                new = after[after["source"] == outcome.source]
                current_ids = ", ".join(new["snapshot_id"])
                stays = (
                    f"The previous good snapshot {', '.join(old['snapshot_id'])} (data as of "
                    f"{_day(old['as_of'].max())}) stays current."
                    if not old.empty and set(old["snapshot_id"]) == set(new["snapshot_id"])
                    else (
                        "There is no earlier good snapshot, so this source has no current prices."
                        if new.empty
                        else f"Current now: {current_ids}."
                    )
                )
                rows.append(
                    {
                        "provider": outcome.provider,
                        "source": outcome.source,
                        "status": outcome.status.value,
                        "rows": outcome.rows,
                        "quarantined": outcome.quarantined,
                        "review": outcome.review_flagged,
                        "snapshot_id": outcome.snapshot_id,
                        "error": outcome.error,
                        "current_after": stays,
                    }
                )
            st.session_state[REFRESH_STATE] = {
                "at": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
                "rows": rows,
                "not_applicable": list(report.not_applicable),
            }

    last = st.session_state.get(REFRESH_STATE)
    if last:
        st.markdown(f"**Last refresh** ({last['at']})")
        for row in last["rows"]:
            if row["status"] == "failed":
                st.error(
                    f"**{plain(row['provider'])}** failed: {plain(row['error'] or 'no detail')}\n\n"
                    f"Recorded as failed snapshot `{row['snapshot_id']}`. {row['current_after']}"
                )
            elif row["status"] == "partial":
                st.warning(
                    f"**{plain(row['provider'])}** ({plain(row['source'])}) was read only in part:"
                    f" {plain(row['error'])}\n\n"
                    f"Kept for inspection as partial snapshot `{row['snapshot_id']}` ({row['rows']} prices); "
                    f"it is not current. {row['current_after']}"
                )
            else:
                st.success(
                    f"**{plain(row['provider'])}** ({plain(row['source'])}): {row['rows']} prices in "
                    f"snapshot `{row['snapshot_id']}`"
                    f" ({row['quarantined']} quarantined, {row['review']} flagged for review)."
                )
        for name in last["not_applicable"]:
            st.info(
                f"{plain(name)}: nothing to refresh (no requested region applies, or no price"
                " sheet exists)."
            )

values = data.filter_values(path)
start = ui.url_inputs(INPUTS, choices=values)
with st.sidebar:
    st.header("Explorer filters")
    st.caption("The other tabs compare across every provider and region.")
    chosen = {
        name: st.multiselect(label, values[name], default=start[name], key=name)
        for name, label in FILTERS.items()
    }
unit = ui.unit_switch(start["unit"])
ui.keep_in_url({**chosen, "unit": unit}, INPUTS)
filters = tuple((name, tuple(selection)) for name, selection in chosen.items() if selection)
prices = data.price_explorer(path, filters).copy()
everything = data.price_explorer(path, ()) if filters else prices
if not prices.empty:
    prices["status"] = _status(prices)
    prices["flag_detail"] = _flag_detail(prices)

with header:
    live = prices[prices["quarantine_reason"].isna()] if not prices.empty else prices
    col1, col2, col3, col4 = st.columns(4)
    col1.metric(
        "Current quotes",
        f"{len(live):,}",
        help="Quarantined rows are kept in their snapshot but are not current",
    )
    col2.metric(
        "Providers · regions",
        f"{live['provider'].nunique() if len(live) else 0} · {live['region'].nunique() if len(live) else 0}",
    )
    flagged = int((prices["status"] != "current").sum()) if not prices.empty else 0
    col3.metric(
        "Flagged",
        f"{flagged:,}",
        help="Quarantined, expired negotiated quotes, or moved > 50% since the last snapshot",
    )
    if live["observed_at"].notna().any():
        newest = live.loc[live["observed_at"].idxmax()]
        col4.metric(
            "Newest price date",
            _day(newest["observed_at"]),
            help=f"{plain(newest['provider'])} {plain(newest['instance_type'])} "
            f"({newest['pricing_model']}): {plain(newest['source'])}",
        )

with tab_list:
    if prices.empty:
        st.info(
            "No current price matches these filters. Remove a filter in the sidebar to see more quotes."
        )
    else:
        table = prices[
            [
                "status",
                "provider",
                "region",
                "zone",
                "instance_type",
                "accelerator_name",
                "accelerator_count",
                "pricing_model",
                "price_basis",
                "usd_per_hour",
                "usd_per_accelerator_hour",
                "source",
                "observed_at",
                "confidence",
                "flag_detail",
                "quote_id",
                "expires_on",
                "snapshot_id",
                "source_url",
            ]
        ]
        if table["zone"].isna().all():  # most sources price per region; an empty column is noise
            table = table.drop(columns="zone")
        ui.show_frame(
            table,
            key="price_table",
            dates=("observed_at", "expires_on"),
            column_config={
                "status": st.column_config.TextColumn(
                    "Status",
                    help="current, review (flagged), expired (negotiated quote past its date) "
                    "or quarantined (failed an integrity rule, not current)",
                ),
                "provider": "Provider",
                "region": "Region",
                "zone": "Zone",
                "instance_type": "Instance",
                "accelerator_name": "Accelerator",
                "accelerator_count": st.column_config.NumberColumn("Accelerators", format="%d"),
                "pricing_model": "Pricing",
                "price_basis": st.column_config.TextColumn(
                    "Priced per", help="instance, or one accelerator-hour (per_accelerator)"
                ),
                "usd_per_hour": st.column_config.NumberColumn("$/hour", format="$%.4f"),
                "usd_per_accelerator_hour": st.column_config.NumberColumn(
                    "$/accelerator-hour", format="$%.4f"
                ),
                "source": "Source",
                "observed_at": st.column_config.DateColumn("Price date"),
                "confidence": "Confidence",
                "flag_detail": "Flag detail",
                "quote_id": "Quote id",
                "expires_on": st.column_config.DateColumn("Expires"),
                "snapshot_id": "Snapshot",
                "source_url": st.column_config.LinkColumn("Source link"),
            },
        )
        st.caption(
            "Price date is the source's own date (for undated sources, the "
            "earliest plausible date, so staleness is "
            "never understated). A CPU instance sold with less than one socket has no $/accelerator-hour."
        )
        # The CSV is written when the button is clicked, not on every rerun.
        st.download_button(
            "Download these prices (CSV)",
            partial(safe_csv, table),
            file_name="tokendesk-prices.csv",
            mime="text/csv",
        )

current = everything[everything["quarantine_reason"].isna()] if not everything.empty else everything

with tab_region:
    st.subheader("One SKU's price in every region")
    if current.empty:
        st.info("There are no current prices yet. Refresh prices or ingest a price sheet.")
    else:
        instances = sorted(current["instance_type"].unique())
        # Start on the SKU sold in the most regions (after a live refresh, a real comparison).
        spread = (
            current.groupby(["instance_type", "pricing_model"])["region"].nunique().reset_index()
        )
        spread["preferred"] = (spread["instance_type"] == "p5.48xlarge") & (
            spread["pricing_model"] == "on_demand"
        )
        widest = spread.sort_values(
            ["region", "preferred", "instance_type"], ascending=[False, False, True]
        ).iloc[0]
        col1, col2 = st.columns(2)
        instance = col1.selectbox(
            "Instance type",
            instances,
            index=instances.index(widest["instance_type"]),
            key="region_instance",
        )
        models = sorted(current.loc[current["instance_type"] == instance, "pricing_model"].unique())
        default_model = widest["pricing_model"] if widest["pricing_model"] in models else models[0]
        model = col2.selectbox(
            "Pricing model", models, index=models.index(default_model), key="region_pricing_model"
        )
        sku = current[
            (current["instance_type"] == instance) & (current["pricing_model"] == model)
        ].copy()
        sku["label"] = (
            sku["provider"]
            + " · "
            + sku["region"]
            + sku["zone"].fillna("").map(lambda z: f" ({z})" if z else "")
        )
        sku = sku.sort_values("usd_per_hour")
        basis = (
            "accelerator-hour"
            if (sku["price_basis"] == "per_accelerator").all()
            else "instance-hour"
        )
        figure = charts.bars(
            sku,
            "label",
            "usd_per_hour",
            colour="vendor",
            colours=VENDOR_COLOURS,
            legend_title="vendor",
            text=sku["usd_per_hour"].map(formatting.usd),
            value_hover="$,.2f",
            hover={"source": "source", "price date": "observed_at", "confidence": "confidence"},
            category_axis=charts.axis("Provider · region"),
            value_axis=charts.axis(f"$ per {basis}", charts.USD_AXIS),
            height=380,
        )
        # A handful of regions should not stretch into slabs as wide as the page.
        figure.update_layout(showlegend=False, bargap=max(0.2, 1 - 0.12 * len(sku)))
        figure.update_traces(textposition="outside", cliponaxis=False)
        st.plotly_chart(figure, width="stretch", key="region_bars")
        st.caption(
            f"{plain(instance)} · {plain(model)}: {len(sku)} current region price(s). Sources: "
            + "; ".join(
                f"{plain(r.region)}: {plain(r.source)} ({_day(r.observed_at)})"
                for r in sku.itertuples()
            )
        )

with tab_accel:
    st.subheader("$ per accelerator-hour across providers")
    priced = current[current["usd_per_accelerator_hour"].notna()] if not current.empty else current
    if priced.empty:
        st.info("There are no current prices with a known accelerator count.")
    else:
        names = (
            priced.drop_duplicates("accelerator_id")
            .set_index("accelerator_id")["accelerator_name"]
            .to_dict()
        )
        ids = sorted(names, key=lambda i: names[i] or i)
        default_acc = "nvidia-h100-sxm-80gb" if "nvidia-h100-sxm-80gb" in ids else ids[0]
        col1, col2 = st.columns(2)
        acc = col1.selectbox(
            "Accelerator",
            ids,
            index=ids.index(default_acc),
            format_func=lambda i: names[i] or i,
            key="accelerator_hour_accelerator",
        )
        available = sorted(priced.loc[priced["accelerator_id"] == acc, "pricing_model"].unique())
        shown_models = col2.multiselect(
            "Pricing models", available, default=available, key="accelerator_hour_pricing_models"
        )
        subset = priced[
            (priced["accelerator_id"] == acc) & priced["pricing_model"].isin(shown_models)
        ].copy()
        if subset.empty:
            st.info("Choose at least one pricing model.")
        else:
            subset["label"] = (
                subset["provider"]
                + " · "
                + subset["instance_type"]
                + " · "
                + subset["region"]
                + " · "
                + subset["pricing_model"]
                + subset["zone"].fillna("").map(lambda z: f" ({z})" if z else "")
            )
            subset = subset.sort_values("usd_per_accelerator_hour")  # the cheapest at the top
            figure = charts.bars(
                subset,
                "label",
                "usd_per_accelerator_hour",
                orientation="h",
                colour="pricing_model",
                colours=PRICING_COLOURS,
                colour_order=list(PRICING_COLOURS),
                legend_title="Pricing",
                value_hover="$,.2f",
                text=subset["usd_per_accelerator_hour"].map(formatting.usd),
                hover={
                    "$/hour (quote)": subset["usd_per_hour"].map(formatting.usd),
                    "accelerators": "accelerator_count",
                    "priced per": "price_basis",
                    "source": "source",
                    "price date": "observed_at",
                },
                category_axis=charts.axis("Provider · instance · region"),
                category_order=list(subset["label"]),
                value_axis=charts.axis("$ per accelerator-hour", charts.USD_AXIS),
                height=max(320, 34 * len(subset) + 120),
            )
            st.plotly_chart(figure, width="stretch", key="accel_bars")
            cheapest = subset.loc[subset["usd_per_accelerator_hour"].idxmin()]
            st.caption(
                f"Cheapest: {formatting.usd(cheapest['usd_per_accelerator_hour'])} per accelerator-hour on "
                f"{plain(cheapest['provider'])} {plain(cheapest['instance_type'])} "
                f"({cheapest['pricing_model']}, {plain(cheapest['region'])}); "
                f"source: {plain(cheapest['source'])} ({_day(cheapest['observed_at'])}). "
                "Prices that differ in date or confidence "
                "are not equally reliable: check both in the hover."
            )
            # What the cheapest of these prices comes to per output token, on the best result.
            per_token = data.cost_options(
                path,
                (("accelerator", (acc,)), ("pricing_model", tuple(shown_models))),
                limit=1,
            )
            if per_token.empty:
                st.caption("No benchmark result on this accelerator, so no cost per token.")
            else:
                value, evidence = price_model.cheapest_token_cost(per_token.iloc[0], unit)
                st.metric(
                    f"Cheapest {formatting.cost_label(unit, 'output')} on this accelerator",
                    value,
                )
                st.caption(plain(evidence, limit=2000))

with tab_history:
    st.subheader("A SKU's price across every snapshot")
    skus = data.price_skus(path)
    if skus.empty:
        st.info("No price has been stored yet.")
    else:
        # Start on the SKU with the longest history (the AWS P5 price cut, where it is stored).
        ranked = skus.assign(
            preferred=(skus["instance_type"] == "p5.48xlarge")
            & (skus["pricing_model"] == "on_demand")
        )
        top = ranked.sort_values(
            ["quotes", "preferred", "instance_type"], ascending=[False, False, True]
        ).iloc[0]
        col1, col2, col3, col4 = st.columns(4)
        instances = sorted(skus["instance_type"].unique())
        h_instance = col1.selectbox(
            "Instance type",
            instances,
            index=instances.index(top["instance_type"]),
            key="history_instance",
        )
        rows = skus[skus["instance_type"] == h_instance]
        h_models = sorted(rows["pricing_model"].unique())
        h_model = col2.selectbox(
            "Pricing model",
            h_models,
            index=h_models.index(top["pricing_model"]) if top["pricing_model"] in h_models else 0,
            key="history_pricing_model",
        )
        rows = rows[rows["pricing_model"] == h_model]
        h_providers = sorted(rows["provider"].unique())
        h_provider = col3.selectbox("Provider", h_providers, key="history_provider")
        rows = rows[rows["provider"] == h_provider]
        h_regions = sorted(rows["region"].unique())
        h_region = col4.selectbox(
            "Region",
            h_regions,
            index=h_regions.index(top["region"]) if top["region"] in h_regions else 0,
            key="history_region",
        )
        history = data.price_history(path, h_provider, h_region, h_instance, h_model).copy()
        if history.empty:
            st.info("This SKU has no stored price.")
        else:
            history["status"] = [
                "quarantined"
                if isinstance(q, str) and q
                else "current"
                if cur
                else ("partial snapshot" if s == "partial" else "historical")
                for q, cur, s in zip(
                    history["quarantine_reason"],
                    history["is_current"],
                    history["snapshot_status"],
                    strict=True,
                )
            ]
            history["price_date"] = history["observed_at"].map(_day)
            st.markdown(
                " → ".join(
                    f"**{formatting.usd(r.usd_per_hour)}** ({r.status}, {r.price_date})"
                    for r in history.itertuples()
                )
            )
            figure = charts.scatter_by(
                history,
                "observed_at",
                "usd_per_hour",
                "status",
                colours=HISTORY_COLOURS,
                marker_size=11,
                title="price_date",
                y_hover="$,.2f",
                hover={"source": "source", "snapshot": "snapshot_id", "confidence": "confidence"},
                x_axis=charts.axis("Price date", tickformat="%Y-%m-%d"),
                y_axis=charts.axis("$ per instance-hour", charts.USD_AXIS),
                legend_title="Status",
                height=380,
            )
            # The step line joins the prices that were (or are) in force: quarantined rows never were.
            # An undated price is listed but not placed on the time axis.
            line = history[
                (history["status"] != "quarantined") & history["observed_at"].notna()
            ].sort_values(["observed_at", "snapshot_created_at"])
            if not line.empty:
                xs, ys = list(line["observed_at"]), list(line["usd_per_hour"])
                if line["status"].iloc[-1] == "current":
                    xs.append(pd.Timestamp(datetime.now(UTC).date()))
                    ys.append(ys[-1])
                charts.add_step_line(figure, xs, ys, "price in force", colour="#555", width=2)
            st.plotly_chart(figure, width="stretch", key="history_chart")
            columns = [
                "price_date",
                "usd_per_hour",
                "status",
                "price_basis",
                "zone",
                "source",
                "confidence",
                "snapshot_id",
                "snapshot_created_at",
                "snapshot_created_by",
                "quarantine_reason",
                "review_flag",
                "source_url",
            ]
            ui.show_frame(
                history[[c for c in columns if c != "zone" or history["zone"].notna().any()]],
                key="history_table",
                column_config={
                    "price_date": "Price date",
                    "usd_per_hour": st.column_config.NumberColumn("$/hour", format="$%.4f"),
                    "status": "Status",
                    "price_basis": "Priced per",
                    "zone": "Zone",
                    "source": "Source",
                    "confidence": "Confidence",
                    "snapshot_id": "Snapshot",
                    "snapshot_created_at": st.column_config.DatetimeColumn(
                        "Stored at (UTC)", format="YYYY-MM-DD HH:mm"
                    ),
                    "snapshot_created_by": "Stored by",
                    "quarantine_reason": "Quarantined because",
                    "review_flag": "Review flag",
                    "source_url": st.column_config.LinkColumn("Source link"),
                },
            )
            st.caption(
                "Every snapshot is kept: a superseded price stays here as historical, "
                "dated by its source. The step "
                "line shows the price in force from each date until the next one."
            )

with tab_integrity:
    st.subheader("Integrity of the current price snapshots")
    st.caption(
        "Hard rules (price > 0, spot and committed prices at or below "
        "on-demand, known accelerator and count, "
        "within tolerance of a sourced anchor price) quarantine a row; a move "
        "of more than 50% since the previous "
        "snapshot or an expired negotiated quote only flags it for review."
    )
    stored = data.current_integrity(path)
    sources = data.current_price_sources(path)
    unchecked = sorted(set(sources["source"]) - set(stored["source"])) if not sources.empty else []
    frames = []
    if not stored.empty:
        frames.append(
            stored.assign(
                basis="stored with "
                + stored["snapshot_id"]
                + " ("
                + stored["as_of"].dt.strftime("%Y-%m-%d")
                + ")"
            )
        )
    flagged_rows: list[dict[str, object]] = []
    if unchecked:
        quotes = [
            q
            for q in data.current_price_quotes(path)
            if q.provider in unchecked
            or (q.quote_id and f"sheet:{q.provider}:negotiated" in unchecked)
        ]
        if quotes:
            integrity = check_snapshot(quotes, [])
            frames.append(
                pd.DataFrame(
                    [
                        (", ".join(unchecked), r.rule, r.checked, r.failed, r.detail)
                        for r in integrity.rules
                    ],
                    columns=["source", "rule", "checked", "failed", "detail"],
                ).assign(
                    basis="checked now (snapshot stored without a report, e.g. the bundled seed)"
                )
            )
            for label, flags in (
                ("would be quarantined", integrity.quarantine),
                ("review", integrity.review_flags),
            ):
                for index, reason in sorted(flags.items()):
                    q = quotes[index]
                    flagged_rows.append(
                        {
                            "flag": label,
                            "provider": q.provider,
                            "region": q.region,
                            "instance_type": q.instance_type,
                            "pricing_model": str(q.pricing_model),
                            "usd_per_hour": q.usd_per_hour,
                            "reason": reason,
                            "source": q.source,
                            "price_date": _day(q.observed_at),
                        }
                    )
    if not frames:
        st.info("There are no current price snapshots to check yet.")
    else:
        integrity = pd.concat(frames, ignore_index=True)
        integrity["result"] = [
            "pass" if failed == 0 else ("review" if rule in REVIEW_RULES else "fail")
            for rule, failed in zip(integrity["rule"], integrity["failed"], strict=True)
        ]
        integrity = integrity.sort_values(
            ["result", "source", "rule"],
            key=lambda c: c.map({"fail": 0, "review": 1, "pass": 2}) if c.name == "result" else c,
        )
        failing = int((integrity["result"] == "fail").sum())
        reviews = int((integrity["result"] == "review").sum())
        (st.warning if failing else st.success)(
            f"{len(integrity)} rule checks: {failing} failing, {reviews} needing review."
        )
        ui.show_frame(
            integrity[["result", "rule", "checked", "failed", "detail", "source", "basis"]],
            key="integrity_table",
            column_config={
                "result": "Result",
                "rule": "Rule",
                "checked": st.column_config.NumberColumn("Checked", format="%d"),
                "failed": st.column_config.NumberColumn("Failed", format="%d"),
                "detail": "Detail",
                "source": "Source",
                "basis": "Report",
            },
        )
        if flagged_rows:
            st.markdown("**Rows the rules flag**")
            ui.show_frame(
                pd.DataFrame(flagged_rows),
                key="integrity_flags",
                column_config={
                    "usd_per_hour": st.column_config.NumberColumn("$/hour", format="$%.4f")
                },
            )
