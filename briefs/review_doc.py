"""Futures day's document: renders the review ``planning.review`` computes (a ``FuturesReport``)
into sections and tables — the counts and price moves, the effect on the company's fleet, the
buy/no-buy suggestions with their rule in words, SKUs, perf per dollar, stale benchmarks, the
decision log and the snapshots compared."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from briefs.document import BarChart, Block, Bullets, Document, Paragraph, Section, table
from costmodel.risk import STALE_AFTER
from planning.review import FuturesReport, FuturesRules
from planning.verdicts import new_sku_rule_sentence
from tokendesk import formatting
from tokendesk.labels import sku_label


def _pct(v: Any) -> str:
    return "—" if v is None or (isinstance(v, float) and v != v) else f"{float(v):+.1%}"


def _d(v: object) -> str:
    return (
        "—"
        if v is None or v is pd.NaT or (isinstance(v, float) and v != v)
        else f"{pd.Timestamp(v):%Y-%m-%d}"
    )


def _usd3(v: Any) -> str:
    return formatting.usd(v, 3)


def futures_document(report: FuturesReport) -> Document:
    r = report
    sections = (
        _summary_section(r),
        _fleet_effects_section(r),
        _suggestions_section(r),
        _skus_section(r),
        _perf_per_dollar_section(r),
        _stale_section(r),
        _decisions_section(r),
        _snapshots_section(r),
    )
    return Document(
        title=f"Futures day: {r.date_from} → {r.date_to}",
        subtitle="What changed in prices, SKUs and perf per dollar, with buy/no-buy suggestions for new SKUs",
        meta=(
            ("compared", f"{r.date_from} and {r.date_to}"),
            ("snapshots", f"{len(r.snapshots_from)} then, {len(r.snapshots_to)} now"),
        ),
        sections=sections,
        assumptions=_assumptions(r),
        csv_frame=_change_rows(r),
        file_stem="futures",
    )


def _summary_section(r: FuturesReport) -> Section:
    """The counts of every kind of change, the largest price moves, and the price changes."""
    counts = (
        f"{len(r.new_skus)} new SKUs, {len(r.removed_skus)} removed, {len(r.price_changes)} price changes, "
        f"{len(r.stale)} stale benchmark configurations; suggestions: "
        + (
            ", ".join(f"{n} {k}" for k, n in r.suggestions["suggestion"].value_counts().items())
            if len(r.suggestions)
            else "none"
        )
        + "."
    )
    blocks: list[Block] = [Paragraph(counts)]
    chart = _price_moves_chart(r.price_changes.head(12))
    if chart is not None:
        blocks.append(chart)
    blocks.append(
        table(
            "Price changes",
            r.price_changes,
            formats={
                "usd_per_hour_from": _usd3,
                "usd_per_hour_to": _usd3,
                "change_pct": _pct,
                "observed_from": _d,
                "observed_to": _d,
            },
            sheet="Price changes",
        )
    )
    return Section("Summary", tuple(blocks))


def _fleet_effects_section(r: FuturesReport) -> Section:
    """What the price moves on the SKUs the company runs do to Stay per month."""
    effects = r.fleet_effects if r.fleet_effects is not None else pd.DataFrame()
    if not len(effects):
        return Section("Your fleet", (Paragraph("No price moved on a SKU your fleet runs."),))
    total = float(effects["stay_change_usd_per_month"].sum())
    said = (
        "Stay costs what it did: no line that moved pays the list price."
        if abs(total) < 0.5
        else f"These price moves make Stay {formatting.usd(abs(total), 0)} a month "
        f"{'lower' if total < 0 else 'higher'} (lines paying the list price; a line at a rate "
        "of its own is unchanged)."
    )
    return Section(
        "Your fleet",
        (
            Paragraph(said),
            table(
                "Price moves on the SKUs you run",
                effects,
                formats={
                    "usd_per_hour_from": _usd3,
                    "usd_per_hour_to": _usd3,
                    "change_pct": _pct,
                    "stay_change_usd_per_month": formatting.usd_change,
                    "observed_to": _d,
                },
                sheet="Your fleet",
            ),
        ),
    )


def _price_moves_chart(cuts: pd.DataFrame) -> BarChart | None:
    """Bars of the given price changes' sizes, coloured by direction; None when there are none."""
    if not len(cuts):
        return None
    return BarChart(
        "Largest price moves (size of the change in $/h; green = cut, red = rise)",
        tuple(
            sku_label(p.provider, p.region, p.instance_type, p.pricing_model)
            for p in cuts.itertuples()
        ),
        tuple(abs(float(p.change_pct)) * 100 for p in cuts.itertuples()),
        "% change in $/h",
        groups=tuple("cut" if p.change_pct < 0 else "rise" for p in cuts.itertuples()),
        value_format=lambda v: f"{v:.0f}%",
        note="Green: price cut; red: price rise.",
    )


def _suggestions_section(r: FuturesReport) -> Section:
    """The buy / no-buy rule in words, then one suggestion per new SKU."""
    return Section(
        "Buy / no-buy suggestions for new SKUs",
        (
            Paragraph(_suggestion_rule_text(r.rules)),
            table(
                "Suggestions",
                r.suggestions,
                formats={
                    "usd_per_1k_output": formatting.usd_per_1k,
                    "incumbent_usd_per_1k_output": formatting.usd_per_1k,
                    "cost_change_pct": _pct,
                    "ftl_ms": formatting.ms,
                    "incumbent_ftl_ms": formatting.ms,
                    "ftl_change_pct": _pct,
                },
                sheet="Suggestions",
            ),
        ),
    )


def _suggestion_rule_text(rules: FuturesRules) -> str:
    """What a new SKU is compared against (the user's fleet, else the incumbent backends) and
    the thresholds of the verdict."""
    return new_sku_rule_sentence(
        [f.label for f in rules.fleet],
        rules.incumbent_backends,
        rules.min_savings_pct,
        rules.max_ftl_regression_pct,
        allow_spot=rules.allow_spot,
        approved_providers=rules.approved_providers,
    )


def _skus_section(r: FuturesReport) -> Section:
    return Section(
        "SKUs",
        (
            table("New SKUs", r.new_skus, formats={"observed_at": _d}, sheet="New SKUs"),
            table(
                "Removed SKUs",
                r.removed_skus,
                formats={"observed_at": _d},
                sheet="Removed SKUs",
            ),
        ),
    )


def _perf_per_dollar_section(r: FuturesReport) -> Section:
    return Section(
        "Perf per dollar by accelerator",
        (
            table(
                "Output tokens per dollar (best option)",
                r.perf_per_dollar,
                formats={
                    "tokens_per_usd_from": lambda v: f"{v:,.0f}",
                    "tokens_per_usd_to": lambda v: f"{v:,.0f}",
                    "change_pct": _pct,
                },
                sheet="Perf per dollar",
            ),
        ),
    )


def _stale_section(r: FuturesReport) -> Section:
    return Section(
        "Stale benchmarks",
        (
            Paragraph(
                f"Configurations whose newest result is older than {STALE_AFTER.days} "
                f"days on {r.date_to}: re-run the harness."
            ),
            table(
                "Stale benchmarks",
                r.stale,
                formats={"newest_measured_at": _d},
                sheet="Stale benchmarks",
            ),
        ),
    )


_DECISION_COLUMNS = [
    "decision_id",
    "decided_on",
    "subject",
    "decision",
    "rationale",
    "decided_by",
    "review_from",
    "review_to",
    "snapshot_ids",
    "supersedes",
    "superseded_by",
]


def _decisions_section(r: FuturesReport) -> Section:
    """The decision log, its snapshot ids joined into one cell; how to add one when empty."""
    if r.decisions is None or not len(r.decisions):
        return Section(
            "Decisions",
            (Paragraph("No decisions recorded yet: `tokendesk futures decide` appends one."),),
        )
    log = r.decisions.copy()
    log["snapshot_ids"] = log["snapshot_ids"].map(
        lambda v: ", ".join(v) if isinstance(v, list | tuple | np.ndarray) else str(v)
    )
    return Section(
        "Decisions",
        (
            table(
                "Decision log",
                log[_DECISION_COLUMNS],
                formats={"decided_on": _d, "review_from": _d, "review_to": _d},
                sheet="Decision log",
            ),
        ),
    )


def _snapshots_section(r: FuturesReport) -> Section:
    return Section(
        "Snapshots",
        (
            Bullets(
                (
                    f"{r.date_from}: " + (", ".join(r.snapshots_from) or "none"),
                    f"{r.date_to}: " + (", ".join(r.snapshots_to) or "none"),
                )
            ),
        ),
    )


def _assumptions(r: FuturesReport) -> pd.DataFrame:
    """The review dates and the rules the suggestions and staleness follow."""
    return pd.DataFrame(
        [
            ("review", "from", str(r.date_from)),
            ("review", "to", str(r.date_to)),
            ("rule", "incumbent backends", ", ".join(r.rules.incumbent_backends)),
            ("rule", "buy if cheaper by more than", f"{r.rules.min_savings_pct:.0%}"),
            ("rule", "buy only if FTL worse by at most", f"{r.rules.max_ftl_regression_pct:.0%}"),
            ("rule", "stale after", f"{STALE_AFTER.days} days"),
            (
                "rule",
                "prices as of D",
                "per (source, region): newest good snapshot with as_of <= D",
            ),
            ("rule", "results as of D", "good-snapshot results measured on or before D"),
        ],
        columns=["area", "assumption", "value"],
    )


def _change_rows(r: FuturesReport) -> pd.DataFrame:
    """Every change in one frame for the CSV download, its kind in the first column."""
    frame = pd.concat(
        [
            r.new_skus.assign(change="new SKU"),
            r.removed_skus.assign(change="removed SKU"),
            r.price_changes.assign(change="price change"),
            r.suggestions.assign(change="suggestion"),
            r.stale.assign(change="stale benchmark"),
        ],
        ignore_index=True,
    )
    return frame[["change", *[c for c in frame.columns if c != "change"]]]
