# Long by design: the Prices page's one model. Its sections (explorer, one SKU by region,
# $/accelerator-hour, one SKU over time, integrity and refresh) share the page's status and
# date helpers and are read in page order; split, one page would be followed through five files.
"""The Prices page's model: each quote's status, the explorer table and its headline figures, one
SKU's price by region and over time, $/accelerator-hour across providers with what it comes to per
token, the integrity report, and what a refresh did. Plain frames in, labelled frames and text out.

Tables keep the warehouse's column names (the page's URL, its downloads and its tests speak them);
each ``*_COLUMNS`` mapping says how a column reads on the page.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

import numpy as np
import pandas as pd

from app.models.costs import Headline
from app.models.tables import Column
from app.safe import plain
from pricing.integrity import RULE_EXPIRED, RULE_MOVED, check_snapshot
from pricing.provider import ProgressEvent
from pricing.refresh import RefreshReport
from pricing.registry import ProviderSpec
from tokendesk import formatting
from tokendesk.labels import label, sku_label
from tokendesk.records import PriceQuote

#: Explorer filters: URL key = widget key = warehouse column -> label.
FILTERS = {
    "provider": "Cloud / provider",
    "region": "Region",
    "accelerator": "Accelerator",
    "pricing_model": "Pricing model",
}
#: Integrity rules that flag a row for review instead of quarantining it.
REVIEW_RULES = {RULE_MOVED, RULE_EXPIRED}
#: The SKU a tab starts on when ties leave a choice: the AWS P5 price cut, where it is stored.
PREFERRED_SKU = ("p5.48xlarge", "on_demand")
#: The accelerator the $/accelerator-hour tab starts on, where it is priced.
PREFERRED_ACCELERATOR = "nvidia-h100-sxm-80gb"
#: Integrity results, worst first.
RESULT_ORDER = {"fail": 0, "review": 1, "pass": 2}


def _day(value: object) -> str:
    return formatting.day(None if value is None or pd.isna(value) else pd.Timestamp(value))


def _zone_suffix(zones: pd.Series) -> pd.Series:
    """ " (zone)" for a zonal quote, "" for a regional one."""
    return zones.fillna("").map(lambda zone: f" ({zone})" if zone else "")


# -- explorer ---------------------------------------------------------------------------------
def _present(column: pd.Series) -> pd.Series:
    """Whether each cell holds a non-empty text (a reason or a flag)."""
    return column.fillna("").astype(str) != ""


def status(prices: pd.DataFrame) -> pd.Series:
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


def flag_detail(prices: pd.DataFrame) -> pd.Series:
    """Why a quote is flagged: its quarantine reason and its review flag, either or both."""
    reason = prices["quarantine_reason"].fillna("").astype(str)
    flag = prices["review_flag"].fillna("").astype(str)
    return reason + np.where((reason != "") & (flag != ""), "; ", "") + flag


def with_status(prices: pd.DataFrame) -> pd.DataFrame:
    """``prices`` plus ``status`` and ``flag_detail``."""
    return prices.assign(status=status(prices), flag_detail=flag_detail(prices))


def explorer_headline(summary: Mapping) -> list[Headline]:
    """Current quotes, providers · regions, flagged quotes and the newest price date (when any
    quote is dated) of every quote the explorer matches, from its summary
    (``catalog_queries.price_explorer_summary``: counted by the warehouse, not from loaded rows)."""
    figures = [
        Headline(
            "Current quotes",
            f"{summary['current']:,}",
            "Quarantined rows are kept in their snapshot but are not current",
        ),
        Headline("Providers · regions", f"{summary['providers']} · {summary['regions']}"),
        Headline(
            "Flagged",
            f"{summary['flagged']:,}",
            "Quarantined, expired negotiated quotes, or moved > 50% since the last snapshot",
        ),
    ]
    newest = summary.get("newest")
    if newest:
        figures.append(
            Headline(
                "Newest price date",
                _day(newest["observed_at"]),
                plain(
                    sku_label(
                        newest["provider"], None, newest["instance_type"], newest["pricing_model"]
                    )
                )
                + f": {plain(newest['source'])}",
            )
        )
    return figures


#: Quotes the explorer's table shows at most; the rest are counted, and the filters narrow them.
EXPLORER_PAGE_ROWS = 500


def explorer_shown(shown: int, total: int) -> str | None:
    """What the table leaves out: None when it shows every matching quote."""
    if shown >= total:
        return None
    return (
        f"Showing {shown:,} of {total:,} quotes (in provider, region and instance order) —"
        " narrow with the filters."
    )


#: Who sells it, what it is and its price first (what fits a 1280 px window), then the evidence.
EXPLORER_COLUMNS = {
    "provider": Column("Provider"),
    "region": Column("Region"),
    "zone": Column("Zone"),
    "instance_type": Column("Instance"),
    "pricing_model": Column("Pricing"),
    "usd_per_hour": Column("$/hour", "number", "$%.4f"),
    "usd_per_accelerator_hour": Column("$/accelerator-hour", "number", "$%.4f"),
    "accelerator_name": Column("Accelerator"),
    "accelerator_count": Column("Accelerators", "number", "%d"),
    "price_basis": Column("Priced per", help="the instance, or one accelerator-hour"),
    "status": Column(
        "Status",
        help="current, review (flagged), expired (negotiated quote past its date) "
        "or quarantined (failed an integrity rule, not current)",
    ),
    "source": Column("Source"),
    "observed_at": Column("Price date", "date"),
    "confidence": Column("Confidence"),
    "flag_detail": Column("Flag detail"),
    "quote_id": Column("Quote id"),
    "expires_on": Column("Expires", "date"),
    "snapshot_id": Column("Snapshot"),
    "source_url": Column("Source link", "link"),
}
EXPLORER_DATES = ("observed_at", "expires_on")


def explorer_table(prices: pd.DataFrame) -> pd.DataFrame:
    """The explorer's columns in reading order; the zone only where some quote names one (most
    sources price per region, and an empty column is noise)."""
    table = prices[list(EXPLORER_COLUMNS)].assign(
        pricing_model=prices["pricing_model"].map(label),  # "On demand", not ``on_demand``
        price_basis=prices["price_basis"].map(label),  # "per accelerator"
    )
    return table.drop(columns="zone") if table["zone"].isna().all() else table


# -- one SKU by region ------------------------------------------------------------------------
def _preferred(frame: pd.DataFrame) -> pd.Series:
    instance, pricing_model = PREFERRED_SKU
    return (frame["instance_type"] == instance) & (frame["pricing_model"] == pricing_model)


def widest_sku(spread: pd.DataFrame) -> pd.Series:
    """The SKU (instance_type, pricing_model) sold in the most regions (``spread``: one row per
    SKU with its ``regions`` count), so the tab starts on a real comparison; ties go to the
    preferred SKU, then by instance type."""
    ranked = spread.assign(preferred=_preferred(spread))
    widest = ranked.sort_values(
        ["regions", "preferred", "instance_type"], ascending=[False, False, True]
    ).iloc[0]
    return widest[["instance_type", "pricing_model"]]


def options(frame: pd.DataFrame, column: str, **chosen: str) -> list[str]:
    """The sorted values of ``column`` among the rows that match every ``chosen`` column=value."""
    rows = frame
    for name, value in chosen.items():
        rows = rows[rows[name] == value]
    return sorted(rows[column].unique())


def region_prices(current: pd.DataFrame, instance_type: str, pricing_model: str) -> pd.DataFrame:
    """One SKU's current quotes, cheapest first, each labelled "provider · region (zone)"."""
    sku = current[
        (current["instance_type"] == instance_type) & (current["pricing_model"] == pricing_model)
    ]
    sku = sku.assign(label=sku["provider"] + " · " + sku["region"] + _zone_suffix(sku["zone"]))
    return sku.sort_values("usd_per_hour")


def billing_unit(quotes: pd.DataFrame) -> str:
    """What the quotes' $/hour is per: an accelerator-hour when every one is priced per
    accelerator, otherwise an instance-hour."""
    per_accelerator = (quotes["price_basis"] == "per_accelerator").all()
    return "accelerator-hour" if per_accelerator else "instance-hour"


def region_sources(instance_type: str, pricing_model: str, sku: pd.DataFrame) -> str:
    """How many regions price the SKU, and each region's source with its date."""
    return (
        f"{plain(instance_type)} · {plain(pricing_model)}: {len(sku)} current region price(s). "
        + (
            "Sources: "
            + "; ".join(
                f"{plain(r.region)}: {plain(r.source)} ({_day(r.observed_at)})"
                for r in sku.itertuples()
            )
        )
    )


# -- $/accelerator-hour across providers ------------------------------------------------------
#: Bars the $/accelerator-hour chart draws at most: the cheapest quotes of the accelerator.
ACCELERATOR_BARS = 200
ACCELERATOR_BARS_NOTE = (
    f"The {ACCELERATOR_BARS} cheapest quotes per accelerator-hour are drawn; narrow the pricing"
    " models to see others."
)


def accelerator_names(priced: pd.DataFrame) -> dict[str, str]:
    """Accelerator id -> its name (the id where the catalog has none), in order of name."""
    names = priced.drop_duplicates("accelerator_id").set_index("accelerator_id")["accelerator_name"]
    named = {
        str(i): (name if isinstance(name, str) and name else str(i)) for i, name in names.items()
    }
    return dict(sorted(named.items(), key=lambda item: item[1]))


def first_accelerator(ids: Sequence[str]) -> str:
    """The accelerator the tab starts on: the preferred one where priced, else the first."""
    return PREFERRED_ACCELERATOR if PREFERRED_ACCELERATOR in ids else ids[0]


def accelerator_prices(
    priced: pd.DataFrame, accelerator_id: str, pricing_models: Sequence[str]
) -> pd.DataFrame:
    """One accelerator's quotes in the chosen pricing models, cheapest per accelerator-hour
    first, each labelled as :func:`tokendesk.labels.sku_label` orders a SKU."""
    subset = priced[
        (priced["accelerator_id"] == accelerator_id)
        & priced["pricing_model"].isin(list(pricing_models))
    ]
    columns = ("provider", "region", "instance_type", "pricing_model", "zone")
    label = [
        sku_label(provider, region, instance, pricing, zone=zone if isinstance(zone, str) else None)
        for provider, region, instance, pricing, zone in zip(
            *(subset[c] for c in columns), strict=True
        )
    ]
    return subset.assign(label=pd.Series(label, index=subset.index, dtype=object)).sort_values(
        "usd_per_accelerator_hour"
    )


def cheapest_accelerator_hour(subset: pd.DataFrame) -> str:
    """The cheapest $/accelerator-hour among ``subset``, where it is sold and its source."""
    cheapest = subset.loc[subset["usd_per_accelerator_hour"].idxmin()]
    return (
        f"Cheapest: {formatting.usd(cheapest['usd_per_accelerator_hour'])} per accelerator-hour on "
        + plain(
            sku_label(
                cheapest["provider"],
                cheapest["region"],
                cheapest["instance_type"],
                cheapest["pricing_model"],
            )
        )
        + "; "
        f"source: {plain(cheapest['source'])} ({_day(cheapest['observed_at'])}). "
        "Prices that differ in date or confidence are not equally reliable: check both in the hover."
    )


def cheapest_token_cost(option: pd.Series, unit: str) -> tuple[str, str]:
    """(headline value, the sentence saying where it comes from) for the cheapest option of a
    cost join: its $/output token in ``unit``, the price and the result it rests on, with dates."""
    value = formatting.usd_per_tokens(option["usd_per_1k_output_tokens"], unit, "output")
    load = (
        f"concurrency {option['concurrency']:g}"
        if pd.notna(option["concurrency"])
        else str(option["scenario"])
    )
    sku = sku_label(
        option["provider"], option["region"], option["instance_type"], option["pricing_model"]
    )
    evidence = (
        f"{sku} serving {option['model']} at {option['precision']} ({load}), "
        f"{formatting.tok_s(option['instance_output_tok_s'])} per instance. Price: "
        f"{option['price_source']} ({_day(option['price_observed_at'])}); result: "
        f"{option['bench_source_title']} ({_day(option['bench_measured_at'])})."
    )
    return value, evidence


# -- one SKU over time ------------------------------------------------------------------------
def longest_history(skus: pd.DataFrame) -> pd.Series:
    """The SKU with the most stored quotes (ties: the preferred SKU, then by instance type)."""
    ranked = skus.assign(preferred=_preferred(skus))
    return ranked.sort_values(
        ["quotes", "preferred", "instance_type"], ascending=[False, False, True]
    ).iloc[0]


def history_status(history: pd.DataFrame) -> list[str]:
    """quarantined, current, partial snapshot or historical, for each stored quote."""
    return [
        "quarantined"
        if isinstance(reason, str) and reason
        else "current"
        if is_current
        else ("partial snapshot" if snapshot_status == "partial" else "historical")
        for reason, is_current, snapshot_status in zip(
            history["quarantine_reason"],
            history["is_current"],
            history["snapshot_status"],
            strict=True,
        )
    ]


def with_history_status(history: pd.DataFrame) -> pd.DataFrame:
    """``history`` plus ``status`` and ``price_date`` (YYYY-MM-DD or "date unknown")."""
    return history.assign(
        status=history_status(history), price_date=history["observed_at"].map(_day)
    )


def history_summary(history: pd.DataFrame) -> str:
    """Every stored price in order, with its status and date: "**$98.32** (historical, …) → …"."""
    return " → ".join(
        f"**{formatting.usd(r.usd_per_hour)}** ({r.status}, {r.price_date})"
        for r in history.itertuples()
    )


def price_in_force(history: pd.DataFrame, today: datetime) -> tuple[list, list]:
    """The step line's points: each dated price that was (or is) in force, from its date until the
    next one, and a current price held until ``today``. Quarantined prices never were in force;
    an undated one is listed but has no place on a time axis."""
    line = history[
        (history["status"] != "quarantined") & history["observed_at"].notna()
    ].sort_values(["observed_at", "snapshot_created_at"])
    xs, ys = list(line["observed_at"]), list(line["usd_per_hour"])
    if not line.empty and line["status"].iloc[-1] == "current":
        xs.append(pd.Timestamp(today.date()))
        ys.append(ys[-1])
    return xs, ys


HISTORY_COLUMNS = {
    "price_date": Column("Price date"),
    "usd_per_hour": Column("$/hour", "number", "$%.4f"),
    "status": Column("Status"),
    "price_basis": Column("Priced per"),
    "zone": Column("Zone"),
    "source": Column("Source"),
    "confidence": Column("Confidence"),
    "snapshot_id": Column("Snapshot"),
    "snapshot_created_at": Column("Stored at (UTC)", "datetime", "YYYY-MM-DD HH:mm"),
    "snapshot_created_by": Column("Stored by"),
    "quarantine_reason": Column("Quarantined because"),
    "review_flag": Column("Review flag"),
    "source_url": Column("Source link", "link"),
}


def history_table(history: pd.DataFrame) -> pd.DataFrame:
    """The SKU's stored quotes in reading order; the zone only where some quote names one."""
    table = history[list(HISTORY_COLUMNS)]
    return table.drop(columns="zone") if table["zone"].isna().all() else table


# -- integrity --------------------------------------------------------------------------------
def unchecked_sources(stored: pd.DataFrame, sources: pd.DataFrame) -> list[str]:
    """Current price sources whose snapshot was stored without an integrity report."""
    if sources.empty:
        return []
    return sorted(set(sources["source"]) - set(stored["source"]))


def quotes_to_check(quotes: Sequence[PriceQuote], unchecked: Sequence[str]) -> list[PriceQuote]:
    """The current quotes of the unchecked sources (a negotiated sheet is stored per provider)."""
    return [
        q
        for q in quotes
        if q.provider in unchecked or (q.quote_id and f"sheet:{q.provider}:negotiated" in unchecked)
    ]


INTEGRITY_COLUMNS = {
    "result": Column("Result"),
    "rule": Column("Rule"),
    "checked": Column("Checked", "number", "%d"),
    "failed": Column("Failed", "number", "%d"),
    "detail": Column("Detail"),
    "source": Column("Source"),
    "basis": Column("Report"),
}
FLAG_COLUMNS = {"usd_per_hour": Column("$/hour", "number", "$%.4f")}


@dataclass(frozen=True)
class IntegrityView:
    """Every rule check, worst first, and the rows the rules flag (when checked on the page)."""

    checks: pd.DataFrame
    flagged: pd.DataFrame

    @property
    def failing(self) -> int:
        return int((self.checks["result"] == "fail").sum())

    @property
    def reviews(self) -> int:
        return int((self.checks["result"] == "review").sum())

    def sentence(self) -> str:
        return (
            f"{len(self.checks)} rule checks: {self.failing} failing, "
            f"{self.reviews} needing review."
        )


def _stored_checks(stored: pd.DataFrame) -> pd.DataFrame:
    basis = "stored with " + stored["snapshot_id"] + " (" + stored["as_of"].dt.strftime("%Y-%m-%d")
    return stored.assign(basis=basis + ")")


def _flagged_rows(quotes: Sequence[PriceQuote], flags: Mapping[int, str], label: str) -> list:
    return [
        {
            "flag": label,
            "provider": quotes[index].provider,
            "region": quotes[index].region,
            "instance_type": quotes[index].instance_type,
            "pricing_model": str(quotes[index].pricing_model),
            "usd_per_hour": quotes[index].usd_per_hour,
            "reason": reason,
            "source": quotes[index].source,
            "price_date": _day(quotes[index].observed_at),
        }
        for index, reason in sorted(flags.items())
    ]


def _checked_now(
    unchecked: Sequence[str], quotes: Sequence[PriceQuote]
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The rules run now over quotes stored without a report (e.g. the bundled seed)."""
    report = check_snapshot(quotes, [])
    checks = pd.DataFrame(
        [(", ".join(unchecked), r.rule, r.checked, r.failed, r.detail) for r in report.rules],
        columns=["source", "rule", "checked", "failed", "detail"],
    ).assign(basis="checked now (snapshot stored without a report, e.g. the bundled seed)")
    flagged = _flagged_rows(quotes, report.quarantine, "would be quarantined")
    flagged += _flagged_rows(quotes, report.review_flags, "review")
    return checks, pd.DataFrame(flagged)


def integrity_view(
    stored: pd.DataFrame, unchecked: Sequence[str], quotes: Sequence[PriceQuote]
) -> IntegrityView | None:
    """The stored reports of the current snapshots, plus the rules run now over ``quotes`` of the
    ``unchecked`` sources; each check passes, fails or (a review rule) needs review. None when
    there is nothing to check."""
    frames, flagged = [], pd.DataFrame()
    if not stored.empty:
        frames.append(_stored_checks(stored))
    if unchecked and quotes:
        checks, flagged = _checked_now(unchecked, quotes)
        frames.append(checks)
    if not frames:
        return None
    checks = pd.concat(frames, ignore_index=True)
    checks["result"] = [
        "pass" if failed == 0 else ("review" if rule in REVIEW_RULES else "fail")
        for rule, failed in zip(checks["rule"], checks["failed"], strict=True)
    ]
    checks = checks.sort_values(
        ["result", "source", "rule"],
        key=lambda c: c.map(RESULT_ORDER) if c.name == "result" else c,
    )
    return IntegrityView(checks[list(INTEGRITY_COLUMNS)], flagged)


# -- refresh ----------------------------------------------------------------------------------
def region_list(text: str) -> list[str] | None:
    """The regions typed, comma separated; None (each provider's default regions) when empty."""
    return [region.strip() for region in text.split(",") if region.strip()] or None


def provider_needs(providers: Mapping[str, ProviderSpec]) -> pd.DataFrame:
    """What each provider reads and what a live call needs."""
    return pd.DataFrame(
        [{"provider": s.name, "reads": s.description, "needs": s.needs} for s in providers.values()]
    )


def progress_line(event: ProgressEvent) -> str:
    """One line of the refresh's status box for a progress event."""
    provider, message = plain(event.provider), plain(event.message)
    if event.stage == "start":
        return f"**{provider}** — {message}"
    if event.stage == "region":
        count = f" ({event.completed}/{event.total})" if event.total else ""
        return f"{provider} · {plain(event.region or '—')}{count} {message}".rstrip()
    if event.stage == "done":
        return f":green[:material/check_circle:] {provider}: {message}"
    if event.stage == "failed":
        return f":red[:material/error:] {provider}: {message}"
    return f":material/remove_circle_outline: {provider}: {message}"


def still_current(old: pd.DataFrame, new: pd.DataFrame) -> str:
    """What is current for a source after a refresh, from its current snapshots before (``old``)
    and after (``new``)."""
    if not old.empty and set(old["snapshot_id"]) == set(new["snapshot_id"]):
        return (
            f"The previous good snapshot {', '.join(old['snapshot_id'])} (data as of "
            f"{_day(old['as_of'].max())}) stays current."
        )
    if new.empty:
        return "There is no earlier good snapshot, so this source has no current prices."
    return f"Current now: {', '.join(new['snapshot_id'])}."


def refresh_rows(
    report: RefreshReport, before: pd.DataFrame, after: pd.DataFrame
) -> list[dict[str, object]]:
    """One row per snapshot the refresh wrote (or failure it recorded), with what is current now."""
    return [
        {
            "provider": outcome.provider,
            "source": outcome.source,
            "status": outcome.status.value,
            "rows": outcome.rows,
            "quarantined": outcome.quarantined,
            "review": outcome.review_flagged,
            "snapshot_id": outcome.snapshot_id,
            "error": outcome.error,
            "current_after": still_current(
                before[before["source"] == outcome.source], after[after["source"] == outcome.source]
            ),
        }
        for outcome in report.outcomes
    ]


def refresh_record(
    report: RefreshReport, before: pd.DataFrame, after: pd.DataFrame, now: datetime
) -> dict[str, object]:
    """What the page keeps of a refresh to show on its next runs: when (UTC), one row per
    snapshot (``refresh_rows``) and the providers nothing applied to."""
    return {
        "at": now.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "rows": refresh_rows(report, before, after),
        "not_applicable": list(report.not_applicable),
    }


def refresh_notice(row: Mapping[str, object]) -> tuple[str, str]:
    """(error | warning | success, the Markdown sentence) for one row of ``refresh_rows``."""
    provider, source = plain(row["provider"]), plain(row["source"])
    if row["status"] == "failed":
        return "error", (
            f"**{provider}** failed: {plain(row['error'] or 'no detail')}\n\n"
            f"Recorded as failed snapshot `{row['snapshot_id']}`. {row['current_after']}"
        )
    if row["status"] == "partial":
        return "warning", (
            f"**{provider}** ({source}) was read only in part: {plain(row['error'])}\n\n"
            f"Kept for inspection as partial snapshot `{row['snapshot_id']}` ({row['rows']} "
            f"prices); it is not current. {row['current_after']}"
        )
    return "success", (
        f"**{provider}** ({source}): {row['rows']} prices in snapshot `{row['snapshot_id']}`"
        f" ({row['quarantined']} quarantined, {row['review']} flagged for review)."
    )


def not_applicable_notice(provider: str) -> str:
    return (
        f"{plain(provider)}: nothing to refresh (no requested region applies, or no price"
        " sheet exists)."
    )


# -- the tabs' pickers -----------------------------------------------------------------------
#: The SKU pickers of the By-region and Price-history tabs, each narrowing the next: URL key =
#: widget key -> (column, label).
REGION_PICKERS = {
    "region_instance": ("instance_type", "Instance type"),
    "region_pricing_model": ("pricing_model", "Pricing model"),
}
HISTORY_PICKERS = {
    "history_instance": ("instance_type", "Instance type"),
    "history_pricing_model": ("pricing_model", "Pricing model"),
    "history_provider": ("provider", "Provider"),
    "history_region": ("region", "Region"),
}


def pick_choices(
    spread: pd.DataFrame, offer: pd.DataFrame, skus: pd.DataFrame
) -> dict[str, list[str]]:
    """What a link may name for each tab's pick (URL key -> values): the region pickers choose
    among current SKUs (``spread``), the history pickers among every SKU ever stored, the
    accelerator-hour tab among quotes with a known accelerator count (``offer``)."""
    return {
        **{key: options(spread, column) for key, (column, _) in REGION_PICKERS.items()},
        **{key: options(skus, column) for key, (column, _) in HISTORY_PICKERS.items()},
        "accelerator_hour_accelerator": options(offer, "accelerator_id"),
        "accelerator_hour_pricing_models": options(offer, "pricing_model"),
    }


def starting_pick(offered: Sequence[str], preferred: object) -> str:
    """The choice a picker starts on: ``preferred`` where it is offered, else the first offered."""
    return str(preferred) if preferred in offered else offered[0]


# -- what the page says -----------------------------------------------------------------------
PAGE_NOTE = (
    "The current prices are the newest good snapshot of each source, region by region; older "
    "snapshots are kept and shown in the price history. $/accelerator-hour = instance $/h ÷ "
    "accelerators on the instance (a quote priced per accelerator-hour is already per "
    "accelerator). Every price shows its source and the source's date."
)
EXPLORER_NOTE = (
    "Price date is the source's own date (for undated sources, the earliest plausible date, so "
    "staleness is never understated). A CPU instance sold with less than one socket has no "
    "$/accelerator-hour."
)
NO_MATCH = (
    "No current price matches these filters. Remove a filter in the sidebar to see more quotes."
)
HISTORY_NOTE = (
    "Every snapshot is kept: a superseded price stays here as historical, dated by its source. "
    "The step line shows the price in force from each date until the next one."
)
INTEGRITY_NOTE = (
    "Hard rules (price > 0, spot and committed prices at or below on-demand, known accelerator "
    "and count, within tolerance of a sourced anchor price) quarantine a row; a move of more than "
    "50% since the previous snapshot or an expired negotiated quote only flags it for review."
)
REFRESH_NOTE = (
    "Each provider's prices are fetched, checked by the integrity rules and written as one new, "
    "immutable snapshot. A provider that fails is recorded as a failed snapshot with its error, "
    "and its last good snapshot stays current; nothing is overwritten or deleted."
)
