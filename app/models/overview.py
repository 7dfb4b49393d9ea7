"""The Overview's model: headline cards per vendor, the incumbent sentence, the freshness table."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from app.models.tables import MISSING, Table, readable
from tokendesk import formatting
from tokendesk.labels import sku_label

#: A price older than this many days gets a "stale" badge (prices move every quarter).
STALE_PRICE_DAYS = 90
#: A benchmark older than one quarter is stale: runtimes improve faster than that.
STALE_RESULT_DAYS = 91


@dataclass(frozen=True)
class Card:
    title: str
    value: str
    caption: str
    help: str


def _day(value: object) -> str:
    return "date unknown" if value is None or pd.isna(value) else f"{pd.Timestamp(value):%Y-%m-%d}"


def vendor_cards(
    best: pd.DataFrame, percentile: str, unit: str = formatting.DEFAULT_TOKEN_UNIT
) -> list[Card]:
    """One card per vendor's cheapest option meeting the SLO (its $/output token in ``unit``),
    with its evidence in the help."""
    cards = []
    for row in best.itertuples():
        bound = "≤ " if row.ftl_basis != percentile else ""
        ftl = f"FTL {bound}{formatting.ms(row.ftl_ms)}"
        cards.append(
            Card(
                row.accelerator_name,
                # The figure alone: a card is a quarter of the page wide, and with its unit the
                # value was cut short at 1280 pixels. The unit leads the caption under it.
                formatting.usd_per_1k(formatting.per_tokens(row.usd_per_1k_output_tokens, unit)),
                f"{formatting.cost_label(unit, 'output')} · "
                f"{sku_label(row.provider, None, row.instance_type, row.pricing_model)} · {ftl}",
                f"{sku_label(row.provider, row.region, row.instance_type, row.pricing_model)} · "
                f"{row.model} {row.precision} · {ftl} ({row.ftl_basis}) · price: "
                f"{row.price_source} ({_day(row.price_observed_at)}) · result: "
                f"{row.bench_source_title} ({_day(row.bench_measured_at)})",
            )
        )
    return cards


def plotted_options(nearby: pd.DataFrame, frontier: pd.DataFrame) -> pd.DataFrame:
    """The cheapest options plus every frontier point not among them (each option once)."""
    extra = frontier[~frontier["option_id"].isin(nearby["option_id"])]
    return pd.concat([nearby, extra], ignore_index=True)


def freshness_state(kind: str, age_days: float | None, date_known: bool = True) -> str:
    """🟢 fresh, 🟠 stale (past the kind's limit), ⚪ date unknown (the source states no date:
    never counted fresh) or 🔴 no good snapshot."""
    if not date_known:
        return "⚪ date unknown"
    if age_days is None or pd.isna(age_days):
        return "🔴 no good snapshot"
    limit = STALE_PRICE_DAYS if kind == "prices" else STALE_RESULT_DAYS
    return f"🟠 stale (> {limit} days)" if age_days > limit else "🟢 fresh"


def freshness_table(fresh: pd.DataFrame) -> tuple[Table, int]:
    """The freshness table and how many sources are stale."""
    known = (
        fresh["date_known"] | ~fresh["has_good_snapshot"]
        if "date_known" in fresh
        else pd.Series(True, index=fresh.index)
    )
    frame = fresh.assign(
        state=[
            freshness_state(k, a, d)
            for k, a, d in zip(fresh["kind"], fresh["age_days"], known, strict=True)
        ],
        # The data's own date, "date unknown" when its rows carry none (never the write date).
        data_as_of=[
            formatting.DATE_UNKNOWN if not d else MISSING if pd.isna(v) else formatting.day(v)
            for v, d in zip(fresh["data_as_of"], known, strict=True)
        ],
    )
    stale = int(frame["state"].str.contains("stale").sum())
    table = readable(
        frame,
        {
            "kind": "Kind",
            "source": "Source",
            "state": "State",
            "data_as_of": "Data as of",
            "age_days": "Age",
            "last_attempt": "Last refresh attempt",
            "last_status": "Last status",
            "last_error": "Last error",
        },
        numbers={"age_days": "%d days"},
        dates=("last_attempt",),
    )
    return table, stale
