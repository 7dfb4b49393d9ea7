"""The Futures page's model: which review to show (since the last one, or since a snapshot's
date), its headline, and its tables as people read them.

Every figure comes from the one report ``planning.review.company_review`` builds, the same one
``tokendesk futures compare --format json`` prints; this module only chooses and labels columns.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

import pandas as pd

from app.models.tables import Table, readable
from planning.review import FuturesReport, ReviewWindow, default_window
from planning.verdicts import BUY_WORD
from tokendesk import formatting
from tokendesk.labels import label, sku_label
from warehouse.decisions import LastReview

#: The URL value of the default start: the end of the last review closed on purpose (recorded
#: decisions do not close one), or the oldest snapshot when none was closed.
SINCE_LAST_REVIEW = "last-review"


def since_choices(days: Sequence[date], today: date) -> tuple[str, ...]:
    """The starts a person may pick: the last review, then every snapshot's day before today."""
    return (SINCE_LAST_REVIEW, *(d.isoformat() for d in days if d < today))


def window_of(choice: str, last: LastReview | None, today: date) -> ReviewWindow:
    """The day a choice stands for and why; a None start says in words why nothing compares."""
    if choice == SINCE_LAST_REVIEW:
        return default_window(last, today)
    return ReviewWindow(date.fromisoformat(choice), f"the snapshot of {choice}")


def start_of(choice: str, last: LastReview | None, today: date) -> date | None:
    """The day a choice stands for; None when there is nothing to compare from."""
    return window_of(choice, last, today).start


def nothing_to_compare(choice: str, last: LastReview | None, today: date) -> str:
    """Why a choice has nothing to compare, as the page says it."""
    return (
        f"There is nothing to compare: {window_of(choice, last, today).why}. Pick an earlier"
        " snapshot above to see what changed before it."
    )


def since_label(choice: str, last: LastReview | None, today: date) -> str:
    """A choice as the select box shows it."""
    if choice != SINCE_LAST_REVIEW:
        return f"Snapshot of {choice}"
    window = default_window(last, today)
    if window.start is None:
        return "The last review (nothing to compare)"
    return f"The last review ({window.start.isoformat()}: {window.why})"


@dataclass(frozen=True)
class Headline:
    """The review's four figures, each with what it rests on."""

    stay_change_usd_per_month: float
    moves_on_your_fleet: int
    new_skus: int
    buys: int
    price_moves: int


def headline(report: FuturesReport) -> Headline:
    effects = report.fleet_effects if report.fleet_effects is not None else pd.DataFrame()
    suggestions = report.suggestions
    return Headline(
        stay_change_usd_per_month=float(effects["stay_change_usd_per_month"].sum())
        if len(effects)
        else 0.0,
        moves_on_your_fleet=len(effects),
        new_skus=len(report.new_skus),
        buys=int((suggestions["suggestion"] == BUY_WORD).sum()) if len(suggestions) else 0,
        price_moves=len(report.price_changes),
    )


def stay_sentence(h: Headline) -> str:
    """What the price moves did to Stay, exact at zero."""
    if h.moves_on_your_fleet == 0:
        return "No price moved on a SKU your fleet runs: Stay costs what it did."
    change = h.stay_change_usd_per_month
    if abs(change) < 0.005:
        return (
            f"{h.moves_on_your_fleet} price move(s) on SKUs your fleet runs, none on a line that"
            " pays the list price: Stay costs what it did."
        )
    verb = "lower" if change < 0 else "higher"
    return (
        f"Price moves on SKUs your fleet runs make Stay {formatting.usd(abs(change), 0)} a month"
        f" {verb} (lines paying the list price; a line at a rate of its own is unchanged)."
    )


def _dated(frame: pd.DataFrame, columns: Sequence[str]) -> pd.DataFrame:
    """Date columns as YYYY-MM-DD, "date unknown" where the source states none."""
    out = frame.copy()
    for column in columns:
        out[column] = [formatting.day(v) for v in out[column]]
    return out


def _confidence(value: object) -> str:
    text = "" if value is None or (isinstance(value, float) and value != value) else str(value)
    return text or "not stated"


def fleet_effects_table(report: FuturesReport) -> Table:
    """Each price move on a SKU the company runs and what it does to Stay per month."""
    frame = report.fleet_effects if report.fleet_effects is not None else pd.DataFrame()
    if frame.empty:
        frame = pd.DataFrame(columns=list(_EFFECT_LABELS))
    frame = _dated(_percent_points(frame, ["change_pct"]), ["observed_to"]).assign(
        confidence_to=lambda f: f["confidence_to"].map(_confidence),
        fleet_line=lambda f: f["fleet_line"].astype(str).str.removeprefix("your fleet: "),
    )
    return readable(
        frame,
        _EFFECT_LABELS,
        numbers={
            "usd_per_hour_from": "$%,.2f",
            "usd_per_hour_to": "$%,.2f",
            "change_pct": "%+.1f%%",
            "stay_change_usd_per_month": "%+,.0f",
        },
    )


#: The decision column (what it does to Stay) next to the line, so a narrow window shows it.
_EFFECT_LABELS = {
    "fleet_line": "Your fleet line",
    "stay_change_usd_per_month": "Stay per month ($)",
    "change_pct": "Price change",
    "usd_per_hour_from": "$/h then",
    "usd_per_hour_to": "$/h now",
    "pays": "The line pays",
    "source_to": "Source",
    "observed_to": "Source date",
    "confidence_to": "Confidence",
}


def _percent_points(frame: pd.DataFrame, columns: Sequence[str]) -> pd.DataFrame:
    """Fractions as percentages (0.12 -> 12.0), for a "%+.1f%%" column format."""
    out = frame.copy()
    for column in columns:
        out[column] = pd.to_numeric(out[column], errors="coerce") * 100.0
    return out


def suggestions_table(report: FuturesReport) -> Table:
    """Each new SKU judged for each model your workloads run, against the fleet line serving it."""
    frame = report.suggestions.copy()
    frame["sku"] = [
        sku_label(provider, None, instance)
        for provider, instance in zip(frame["provider"], frame["instance_type"], strict=True)
    ]
    frame["incumbent"] = [
        v.removeprefix("your fleet: ") if isinstance(v, str) else v for v in frame["incumbent"]
    ]
    frame = _percent_points(frame, ["cost_change_pct", "ftl_change_pct"])
    frame = _dated(frame, ["price_observed_at", "bench_measured_at"])
    for column in ("price_confidence", "bench_confidence"):
        frame[column] = frame[column].map(_confidence)
    return readable(
        frame,
        {
            "suggestion": "Suggestion",
            "sku": "New SKU",
            "pricing_model": "Pricing",
            "model": "Model",
            "cost_change_pct": "Cost change",
            "ftl_change_pct": "FTL change",
            "usd_per_1k_output": "$/1K output",
            "incumbent_usd_per_1k_output": "Yours $/1K output",
            "incumbent": "Against",
            "compared_on": "Compared on",
            "rule": "Why",
            "price_source": "Price source",
            "price_observed_at": "Price date",
            "price_confidence": "Price confidence",
            "bench_source_title": "Result source",
            "bench_measured_at": "Result date",
            "bench_confidence": "Result confidence",
        },
        numbers={
            "usd_per_1k_output": "$%.5f",
            "incumbent_usd_per_1k_output": "$%.5f",
            "cost_change_pct": "%+.1f%%",
            "ftl_change_pct": "%+.1f%%",
        },
    )


def price_moves_table(report: FuturesReport) -> Table:
    """Every list price that moved between the two dates, with both sources."""
    frame = _percent_points(report.price_changes, ["change_pct"])
    frame = _dated(frame, ["observed_from", "observed_to"])
    for column in ("confidence_from", "confidence_to"):
        frame[column] = frame[column].map(_confidence)
    return readable(
        frame,
        {
            "provider": "Provider",
            "region": "Region",
            "instance_type": "Instance type",
            "pricing_model": "Pricing",
            "usd_per_hour_from": "$/h then",
            "usd_per_hour_to": "$/h now",
            "change_pct": "Change",
            "source_to": "Source now",
            "observed_to": "Source date",
            "confidence_to": "Confidence",
            "source_from": "Source then",
            "observed_from": "Then dated",
        },
        numbers={
            "usd_per_hour_from": "$%,.2f",
            "usd_per_hour_to": "$%,.2f",
            "change_pct": "%+.1f%%",
        },
    )


def new_skus_table(report: FuturesReport) -> Table:
    """SKUs sold on the later date only, with where and how they are sold."""
    frame = _dated(report.new_skus, ["observed_at"])
    frame["confidence"] = frame["confidence"].map(_confidence)
    frame["pricing_models"] = [
        ", ".join(label(m) for m in str(v).split(", ") if m) for v in frame["pricing_models"]
    ]
    return readable(
        frame,
        {
            "provider": "Provider",
            "instance_type": "Instance type",
            "accelerator_id": "Accelerator",
            "regions": "Regions",
            "pricing_models": "Pricing",
            "price_source": "Source",
            "observed_at": "Source date",
            "confidence": "Confidence",
        },
    )


def results_table(report: FuturesReport) -> Table:
    """Output tokens per dollar of the best option per accelerator, then and now, for the
    models your workloads run (every model when the fleet names none): what new results and
    price moves did to each accelerator's perf per dollar."""
    frame = report.perf_per_dollar
    runs = {m for line in report.rules.fleet for m in line.models}
    if runs:
        frame = frame[frame["model"].isin(runs)]
    frame = _percent_points(frame, ["change_pct"])
    return readable(
        frame,
        {
            "accelerator_id": "Accelerator",
            "model": "Model",
            "tokens_per_usd_from": "Output tokens per $ then",
            "tokens_per_usd_to": "Output tokens per $ now",
            "change_pct": "Change",
            "best_option_to": "Best option now",
        },
        numbers={
            "tokens_per_usd_from": "%,.0f",
            "tokens_per_usd_to": "%,.0f",
            "change_pct": "%+.1f%%",
        },
    )


def decisions_table(log: pd.DataFrame | None) -> Table:
    """The decision log, oldest first, with what replaced what."""
    frame = log.copy() if log is not None else pd.DataFrame()
    if frame.empty:
        return Table(pd.DataFrame())
    frame = _dated(frame, ["decided_on"])
    frame["review"] = [
        "—" if pd.isna(a) and pd.isna(b) else f"{formatting.day(a)} → {formatting.day(b)}"
        for a, b in zip(frame["review_from"], frame["review_to"], strict=True)
    ]
    frame["snapshots"] = [
        0 if v is None or isinstance(v, str | float) else len(v) for v in frame["snapshot_ids"]
    ]
    return readable(
        frame,
        {
            "decision_id": "Id",
            "decided_on": "Decided",
            "subject": "Subject",
            "decision": "Decision",
            "rationale": "Why",
            "decided_by": "By",
            "review": "Review",
            "snapshots": "Snapshots linked",
            "superseded_by": "Replaced by",
        },
        numbers={"decision_id": "%d", "snapshots": "%d", "superseded_by": "%d"},
    )
