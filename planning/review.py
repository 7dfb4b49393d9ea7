# Long by design: Futures day's one computation. SKU and price changes, perf per dollar, stale
# benchmarks, suggestions and fleet effects all build one ``FuturesReport`` under one set of
# ``FuturesRules``, and ``compare`` reads them in that order.
"""Futures day's review: what changed between two dates, and a buy/no-buy suggestion for every
new SKU — the one computation ``tokendesk futures compare``, its brief and the dashboard's Futures
page read.

``compare`` is pure: it takes the frames ``warehouse.as_of`` returns for each date (prices,
results and the cost join "as of D") and compares them, so it can be tested on hand-built frames;
``compare_warehouse`` and ``company_review`` read those frames from the warehouse first.

* **SKU** = (provider, instance type, accelerator): new if sold on the later date only,
  removed if on the earlier date only; the regions it is sold in are listed.
* **Price change** per (provider, region, instance type, pricing model) quoted on both dates.
* **Perf/$** per (accelerator, model): output tokens per dollar of the best option
  (1000 / lowest $/1K output tokens), earlier vs later.
* **Stale benchmark**: a configuration whose newest result on the later date is older than one
  quarter (the same 92-day rule as the risk model).
* **Suggestion** for a new SKU, per model it has results for, against the incumbent (the
  cheapest option on an incumbent backend that is not new), by ``planning.verdicts``'s
  ``new_sku_verdict`` with the thresholds of ``FuturesRules``. Against the company's own fleet
  (``FuturesRules.fleet``), only the models its workloads run are judged, each against the fleet
  lines serving that workload, and a SKU it already runs is never a candidate (it is the
  incumbent).
* **Effect on Stay**: a list price move on a SKU the fleet pays list price for changes what Stay
  costs by (new - old $/h) x count x hours per month; a line at a rate of its own is unchanged.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import date, datetime
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from costmodel.demand import HOURS_PER_MONTH
from costmodel.risk import STALE_AFTER
from planning.fleet import FleetRate
from planning.verdicts import new_sku_verdict
from tokendesk.columns import OPTION_FIGURES
from tokendesk.labels import label, sku_label
from warehouse import as_of as wf
from warehouse.decisions import LastReview
from warehouse.decisions import decisions as decision_log

if TYPE_CHECKING:
    from costmodel import Engine
    from costmodel.workspace_model import Workspace

SKU_KEY = ["provider", "instance_type", "accelerator_id"]
PRICE_KEY = ["provider", "region", "instance_type", "pricing_model"]


@dataclass(frozen=True)
class FuturesRules:
    incumbent_backends: tuple[str, ...] = ("cuda",)
    min_savings_pct: float = 0.10
    max_ftl_regression_pct: float = 0.10
    #: A price move smaller than this is not listed as a change (rounding in sources).
    min_price_change_pct: float = 0.005
    #: The company's own fleet: when given, the incumbent is what it runs, at its own rates,
    #: not the cheapest option on the incumbent backends.
    fleet: tuple[FleetRate, ...] = ()
    #: Spot prices compete only where the workload may run on spot (the workspace's
    #: ``constraints.allow_spot``) or against a fleet line that runs on spot itself.
    allow_spot: bool = False
    #: The providers a suggestion may come from (the workspace's approved providers); None = any.
    approved_providers: tuple[str, ...] | None = None


@dataclass(frozen=True)
class FuturesReport:
    date_from: date
    date_to: date
    new_skus: pd.DataFrame
    removed_skus: pd.DataFrame
    price_changes: pd.DataFrame
    perf_per_dollar: pd.DataFrame
    stale: pd.DataFrame
    suggestions: pd.DataFrame
    snapshots_from: tuple[str, ...]
    snapshots_to: tuple[str, ...]
    rules: FuturesRules = field(default_factory=FuturesRules)
    decisions: pd.DataFrame | None = None
    #: Every option (quote × result) on the later date, priced by the cost join's one formula.
    options: pd.DataFrame | None = None
    #: What each price move on a SKU the company runs does to Stay's monthly cost.
    fleet_effects: pd.DataFrame | None = None


def _day(value: date | datetime | str) -> date:
    return pd.Timestamp(value).date()


def _with_confidence(frame: pd.DataFrame) -> pd.DataFrame:
    """Frames built by hand (tests) may carry no confidence: an empty one, never a KeyError."""
    return frame if "confidence" in frame else frame.assign(confidence="")


def _skus(prices: pd.DataFrame) -> pd.DataFrame:
    prices = _with_confidence(prices)
    if prices.empty:
        return pd.DataFrame(
            columns=[
                *SKU_KEY,
                "regions",
                "pricing_models",
                "price_source",
                "observed_at",
                "confidence",
            ]
        )
    grouped = prices.groupby(SKU_KEY, dropna=False)
    return pd.DataFrame(
        {
            "regions": grouped["region"].agg(lambda s: ", ".join(sorted(set(map(str, s))))),
            "pricing_models": grouped["pricing_model"].agg(
                lambda s: ", ".join(sorted(set(map(str, s))))
            ),
            "price_source": grouped["source"].agg(lambda s: "; ".join(sorted(set(map(str, s))))),
            "observed_at": grouped["observed_at"].max(),
            "confidence": grouped["confidence"].agg(lambda s: ", ".join(sorted(set(map(str, s))))),
        }
    ).reset_index()


def sku_changes(old: pd.DataFrame, new: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    a, b = _skus(old), _skus(new)
    keys_a = set(map(tuple, a[SKU_KEY].astype(str).to_numpy())) if len(a) else set()
    keys_b = set(map(tuple, b[SKU_KEY].astype(str).to_numpy())) if len(b) else set()
    added = b[[tuple(k) not in keys_a for k in b[SKU_KEY].astype(str).to_numpy()]] if len(b) else b
    removed = (
        a[[tuple(k) not in keys_b for k in a[SKU_KEY].astype(str).to_numpy()]] if len(a) else a
    )
    return added.reset_index(drop=True), removed.reset_index(drop=True)


def price_changes(old: pd.DataFrame, new: pd.DataFrame, min_change: float = 0.005) -> pd.DataFrame:
    columns = [
        *PRICE_KEY,
        "accelerator_id",
        "usd_per_hour_from",
        "usd_per_hour_to",
        "change_pct",
        "source_from",
        "observed_from",
        "snapshot_from",
        "confidence_from",
        "source_to",
        "observed_to",
        "snapshot_to",
        "confidence_to",
    ]
    if old.empty or new.empty:
        return pd.DataFrame(columns=columns)

    def one(frame: pd.DataFrame) -> pd.DataFrame:
        frame = _with_confidence(frame)
        # Several quotes of one key (zones, sources): the lowest is what a buyer would pay.
        frame = frame.sort_values("usd_per_hour").drop_duplicates(PRICE_KEY, keep="first")
        return frame[
            [
                *PRICE_KEY,
                "accelerator_id",
                "usd_per_hour",
                "source",
                "observed_at",
                "snapshot_id",
                "confidence",
            ]
        ]

    merged = one(old).merge(one(new), on=PRICE_KEY, suffixes=("_from", "_to"))
    merged["change_pct"] = merged["usd_per_hour_to"] / merged["usd_per_hour_from"] - 1.0
    merged = merged[merged["change_pct"].abs() >= min_change]
    merged = merged.rename(
        columns={
            "accelerator_id_from": "accelerator_id",
            "source_from": "source_from",
            "observed_at_from": "observed_from",
            "snapshot_id_from": "snapshot_from",
            "observed_at_to": "observed_to",
            "snapshot_id_to": "snapshot_to",
        }
    )
    return merged.sort_values("change_pct")[columns].reset_index(drop=True)


def perf_per_dollar(old_costs: pd.DataFrame, new_costs: pd.DataFrame) -> pd.DataFrame:
    key = ["accelerator_id", "model"]
    columns = [*key, "tokens_per_usd_from", "tokens_per_usd_to", "change_pct", "best_option_to"]

    def best(frame: pd.DataFrame) -> pd.DataFrame:
        frame = frame[frame["usd_per_1k_output_tokens"] > 0]
        if frame.empty:
            return pd.DataFrame(columns=[*key, "tokens_per_usd", "best_option"])
        idx = frame.groupby(key)["usd_per_1k_output_tokens"].idxmin()
        rows = frame.loc[idx]
        return pd.DataFrame(
            {
                "accelerator_id": rows["accelerator_id"].to_numpy(),
                "model": rows["model"].to_numpy(),
                "tokens_per_usd": 1000.0 / rows["usd_per_1k_output_tokens"].to_numpy(),
                "best_option": [
                    sku_label(*parts)
                    for parts in zip(
                        rows["provider"],
                        rows["region"],
                        rows["instance_type"],
                        rows["pricing_model"],
                        strict=True,
                    )
                ],
            }
        )

    merged = best(old_costs).merge(best(new_costs), on=key, how="outer", suffixes=("_from", "_to"))
    if merged.empty:
        return pd.DataFrame(columns=columns)
    merged["change_pct"] = merged["tokens_per_usd_to"] / merged["tokens_per_usd_from"] - 1.0
    merged = merged.rename(columns={"best_option_to": "best_option_to"})
    return merged.sort_values(["accelerator_id", "model"])[columns].reset_index(drop=True)


def stale_benchmarks(results: pd.DataFrame, as_of: date) -> pd.DataFrame:
    columns = [
        "accelerator_id",
        "model",
        "precision",
        "runtime",
        "runtime_version",
        "newest_measured_at",
        "age_days",
        "source_title",
    ]
    if results.empty:
        return pd.DataFrame(columns=columns)
    cut = pd.Timestamp(as_of) - STALE_AFTER
    key = ["accelerator_id", "model", "precision", "runtime", "runtime_version"]
    frame = results.copy()
    frame["measured_at"] = pd.to_datetime(frame["measured_at"])
    newest = frame.loc[frame.groupby(key, dropna=False)["measured_at"].idxmax()]
    stale = newest[newest["measured_at"] < cut].copy()
    stale["newest_measured_at"] = stale["measured_at"]
    stale["age_days"] = (pd.Timestamp(as_of) - stale["measured_at"]).dt.days
    return stale.sort_values("age_days", ascending=False)[columns].reset_index(drop=True)


def _ftl(frame: pd.DataFrame) -> tuple[pd.Series, pd.Series]:
    p95 = pd.to_numeric(frame["ttft_ms_p95"], errors="coerce")
    p99 = pd.to_numeric(frame["ttft_ms_p99"], errors="coerce")
    return p95.fillna(p99), pd.Series(
        np.where(p95.notna(), "p95", np.where(p99.notna(), "p99", "")), index=frame.index
    )


#: The candidate's evidence, carried into each suggestion: the price and the result it rests on.
EVIDENCE = [
    "price_source",
    "price_observed_at",
    "price_confidence",
    "bench_source_title",
    "bench_measured_at",
    "bench_confidence",
]


#: The columns of a suggestion: the candidate with its pricing model, the fleet line (or
#: incumbent option) it is set against with that line's pricing model, and the terms compared.
SUGGESTION_COLUMNS = [
    "provider",
    "instance_type",
    "pricing_model",
    "accelerator_id",
    "model",
    "suggestion",
    "rule",
    "usd_per_1k_output",
    "incumbent",
    "incumbent_pricing_model",
    "incumbent_usd_per_1k_output",
    "compared_on",
    "cost_change_pct",
    "ftl_ms",
    "incumbent_ftl_ms",
    "ftl_change_pct",
    "ftl_percentile",
    *EVIDENCE,
]

ON_DEMAND, SPOT = "on_demand", "spot"


def candidate_terms(line_pricing_model: str, rules: FuturesRules) -> tuple[str, ...]:
    """The pricing models a new SKU's price may be quoted in to stand against a line paying
    ``line_pricing_model``: on demand always (against on demand, or against the line's effective
    rate), the line's own terms, and spot only where the workload may run on spot."""
    terms = [ON_DEMAND, line_pricing_model]
    if rules.allow_spot:
        terms.append(SPOT)
    return tuple(dict.fromkeys(t for t in terms if t))


def _market_terms(rules: FuturesRules) -> tuple[str, ...]:
    """Without a fleet, options are compared within one pricing model: on demand, and spot where
    spot is allowed."""
    return (ON_DEMAND, SPOT) if rules.allow_spot else (ON_DEMAND,)


def _approved(costs: pd.DataFrame, rules: FuturesRules) -> pd.DataFrame:
    if rules.approved_providers is None:
        return costs
    return costs[costs["provider"].astype(str).str.lower().isin(rules.approved_providers)]


# Long by design: the buy/no-buy rule per new SKU reads the narrowed cost frame, the incumbents
# and the rules built just above it in one place; its comments mark each step.
def suggestions(
    new_costs: pd.DataFrame, new_skus: pd.DataFrame, rules: FuturesRules
) -> pd.DataFrame:
    columns = SUGGESTION_COLUMNS
    if new_costs.empty or new_skus.empty:
        return pd.DataFrame(columns=columns)
    # Only the columns a suggestion reads: the cost join is wide, and every selection below
    # copies each column it carries (most of this function's time on a wide frame).
    wanted = [
        *SKU_KEY,
        "region",
        "pricing_model",
        "backend",
        "model",
        "usd_per_hour",
        "usd_per_1k_output_tokens",
        "ttft_ms_p95",
        "ttft_ms_p99",
        *EVIDENCE,
    ]
    costs = new_costs.loc[
        new_costs["usd_per_1k_output_tokens"] > 0, [c for c in wanted if c in new_costs]
    ].copy()
    # Plain object columns: a row picked from an Arrow-backed string column costs far more.
    costs = costs.astype({c: object for c in costs.columns if costs[c].dtype == "str"})
    costs["pricing_model"] = costs["pricing_model"].astype(str)
    costs["ftl_ms"], costs["ftl_percentile"] = _ftl(costs)
    new_keys = set(map(tuple, new_skus[SKU_KEY].astype(str).to_numpy()))
    costs["is_new"] = [tuple(k) in new_keys for k in costs[SKU_KEY].astype(str).to_numpy()]
    if rules.fleet:
        # A SKU the company runs is its incumbent, never a candidate, even when it is new to the
        # price data; and only the models its workloads run are judged.
        run = {(f.provider, f.instance_type) for f in rules.fleet}
        runs_it = pd.Series(
            [(p, i) in run for p, i in zip(costs["provider"], costs["instance_type"], strict=True)],
            index=costs.index,
            dtype=bool,
        )
        costs["is_new"] = costs["is_new"] & ~runs_it
        incumbents = _fleet_incumbents(costs[~costs["is_new"]], rules.fleet)
        if all(f.models for f in rules.fleet):
            runs_models = {m for f in rules.fleet for m in f.models}
            costs = costs[~costs["is_new"] | costs["model"].isin(runs_models)]
        no_incumbent = "no line of your fleet has a result for {model}"
    else:
        incumbents = costs[
            ~costs["is_new"]
            & costs["backend"].astype(str).isin(rules.incumbent_backends)
            & costs["pricing_model"].isin(_market_terms(rules))
        ].assign(
            line_pricing_model=lambda f: f["pricing_model"], line_rate="the incumbent's list price"
        )
        no_incumbent = (
            f"no incumbent ({', '.join(rules.incumbent_backends)}) option serves " + "{model}"
        )
    rows = []
    by_model = dict(tuple(incumbents.groupby("model", sort=False)))
    no_rows = incumbents.iloc[0:0]
    # Only providers the workspace approves are candidates.
    candidates = _approved(costs[costs["is_new"]], rules)
    for (provider, instance, acc, model), group in candidates.groupby([*SKU_KEY, "model"]):
        row = _judge(group, by_model.get(model, no_rows), rules, no_incumbent.format(model=model))
        if row is not None:
            rows.append(dict(provider=provider, instance_type=instance, accelerator_id=acc, **row))
    return (
        pd.DataFrame(rows, columns=columns)
        .sort_values(["suggestion", "cost_change_pct"])
        .reset_index(drop=True)
    )


def _like_for_like(
    group: pd.DataFrame, inc: pd.DataFrame, rules: FuturesRules
) -> tuple[pd.DataFrame, pd.DataFrame] | None:
    """The candidate's prices and the incumbent rows they may stand against on the same terms,
    for the cheapest incumbent line that has such a price (the line it would replace): its
    on-demand price against the line's on-demand price or effective rate, its price in the line's
    own terms, and spot only where allowed. None when no incumbent has a comparable price."""
    for line_terms, lines in inc.sort_values("usd_per_1k_output_tokens").groupby(
        "line_pricing_model", sort=False
    ):
        terms = (
            candidate_terms(str(line_terms), rules)
            if rules.fleet
            else (str(line_terms),)  # the market: within one pricing model
        )
        comparable = group[group["pricing_model"].isin(terms)]
        if not comparable.empty:
            return comparable, lines
    return None


def _judge(
    group: pd.DataFrame, inc: pd.DataFrame, rules: FuturesRules, no_incumbent: str
) -> dict | None:
    """One new SKU for one model: buy / no-buy / defer, with what it was compared against."""
    pair = None if inc.empty else _like_for_like(group, inc, rules)
    if pair is None:
        # Nothing to set it against on the same terms: defer, naming the price it has.
        allowed = _market_terms(rules) if not rules.fleet else candidate_terms("", rules)
        pool = group[group["pricing_model"].isin(allowed)]
        if pool.empty:
            pool = group
        why = (
            no_incumbent
            if inc.empty
            else "no price of this SKU on the terms of the line it would replace ("
            + ", ".join(sorted({label(t) for t in inc["line_pricing_model"]}))
            + "); spot counts only where the workspace allows spot"
        )
        cand = pool.sort_values("usd_per_1k_output_tokens").iloc[0]
        suggestion, rule = new_sku_verdict(
            None,
            None,
            min_savings_pct=rules.min_savings_pct,
            max_ftl_regression_pct=rules.max_ftl_regression_pct,
            no_incumbent=why,
        )
        return dict(
            _candidate_fields(cand),
            suggestion=suggestion,
            rule=rule,
            compared_on="nothing on the same terms",
        )
    group, inc = pair
    # Compare latency-bearing operating points when both sides have one (cost and FTL from the
    # same point); otherwise compare cost alone and defer until the harness measures FTL.
    cand_online, inc_online = group[group["ftl_ms"].notna()], inc[inc["ftl_ms"].notna()]
    both_online = not cand_online.empty and not inc_online.empty
    pool_c, pool_i = (cand_online, inc_online) if both_online else (group, inc)
    cand = pool_c.sort_values("usd_per_1k_output_tokens").iloc[0]
    best = pool_i.sort_values("usd_per_1k_output_tokens").iloc[0]
    cost_change = cand["usd_per_1k_output_tokens"] / best["usd_per_1k_output_tokens"] - 1.0
    ftl_change = (
        cand["ftl_ms"] / best["ftl_ms"] - 1.0 if both_online and best["ftl_ms"] > 0 else None
    )
    suggestion, rule = new_sku_verdict(
        cost_change,
        ftl_change,
        min_savings_pct=rules.min_savings_pct,
        max_ftl_regression_pct=rules.max_ftl_regression_pct,
    )
    line_terms = str(best["line_pricing_model"])
    return dict(
        _candidate_fields(cand),
        suggestion=suggestion,
        rule=rule,
        incumbent=best["fleet_label"]
        if "fleet_label" in best.index
        else sku_label(best["provider"], best["region"], best["instance_type"], line_terms),
        incumbent_pricing_model=line_terms,
        incumbent_usd_per_1k_output=best["usd_per_1k_output_tokens"],
        compared_on=f"{label(cand['pricing_model']).lower()} price vs {best['line_rate']}"
        f" ({label(line_terms).lower()})",
        cost_change_pct=cost_change,
        incumbent_ftl_ms=best["ftl_ms"],
        ftl_change_pct=ftl_change,
    )


def _candidate_fields(cand: pd.Series) -> dict:
    return dict(
        pricing_model=cand["pricing_model"],
        model=cand["model"],
        usd_per_1k_output=cand["usd_per_1k_output_tokens"],
        ftl_ms=cand["ftl_ms"],
        ftl_percentile=cand["ftl_percentile"] or "unknown",
        **{name: cand.get(name) for name in EVIDENCE},
    )


def _fleet_incumbents(costs: pd.DataFrame, fleet: Sequence[FleetRate]) -> pd.DataFrame:
    """The cost rows of the SKUs the company runs, re-priced at the rate it pays: the same
    operating points, so candidate and incumbent are compared like with like."""
    parts = []
    for line in fleet:
        rows = costs[
            (costs["provider"].astype(str) == line.provider)
            & (costs["instance_type"].astype(str) == line.instance_type)
            # a line is the incumbent for the models its own workload runs only
            & (costs["model"].isin(line.models) if line.models else True)
        ].copy()
        if rows.empty:
            continue
        factor = line.usd_per_hour / pd.to_numeric(rows["usd_per_hour"], errors="coerce")
        rows["usd_per_1k_output_tokens"] = rows["usd_per_1k_output_tokens"] * factor
        rows["fleet_label"] = line.label
        # What the line pays, for comparing on the same terms.
        rows["line_pricing_model"] = line.pricing_model
        rows["line_rate"] = "the line's " + ("list price" if line.list_priced else "effective rate")
        parts.append(rows)
    if not parts:
        return costs.iloc[0:0].assign(
            fleet_label=pd.Series(dtype=str),
            line_pricing_model=pd.Series(dtype=str),
            line_rate=pd.Series(dtype=str),
        )
    return pd.concat(parts, ignore_index=True)


FLEET_EFFECT_COLUMNS = [
    "fleet_line",
    "provider",
    "region",
    "instance_type",
    "pricing_model",
    "count",
    "usd_per_hour_from",
    "usd_per_hour_to",
    "change_pct",
    "pays",
    "stay_change_usd_per_month",
    "source_to",
    "observed_to",
    "snapshot_to",
    "confidence_to",
]


def fleet_effects(changes: pd.DataFrame, fleet: Sequence[FleetRate]) -> pd.DataFrame:
    """Each price move on a SKU a fleet line runs (same provider, region, instance type and
    pricing model), and what it does to Stay per month: a line paying the list price pays the
    move on every instance every hour; a line at a rate of its own pays what it paid."""
    rows = []
    for line in fleet:
        moves = changes[
            (changes["provider"].astype(str) == line.provider)
            & (changes["region"].astype(str) == line.region)
            & (changes["instance_type"].astype(str) == line.instance_type)
            & (changes["pricing_model"].astype(str) == line.pricing_model)
        ]
        for move in moves.itertuples():
            delta = float(move.usd_per_hour_to) - float(move.usd_per_hour_from)
            rows.append(
                dict(
                    fleet_line=line.label,
                    provider=line.provider,
                    region=line.region,
                    instance_type=line.instance_type,
                    pricing_model=line.pricing_model,
                    count=line.count,
                    usd_per_hour_from=move.usd_per_hour_from,
                    usd_per_hour_to=move.usd_per_hour_to,
                    change_pct=move.change_pct,
                    pays="list price" if line.list_priced else "a rate of its own",
                    stay_change_usd_per_month=(
                        delta * line.count * HOURS_PER_MONTH if line.list_priced else 0.0
                    ),
                    source_to=move.source_to,
                    observed_to=move.observed_to,
                    snapshot_to=move.snapshot_to,
                    confidence_to=getattr(move, "confidence_to", ""),
                )
            )
    return pd.DataFrame(rows, columns=FLEET_EFFECT_COLUMNS)


def compare(
    date_from: date | datetime | str,
    date_to: date | datetime | str,
    prices_from: pd.DataFrame,
    prices_to: pd.DataFrame,
    costs_from: pd.DataFrame,
    costs_to: pd.DataFrame,
    results_to: pd.DataFrame,
    *,
    rules: FuturesRules | None = None,
    decisions: pd.DataFrame | None = None,
    snapshots_from: Sequence[str] = (),
    snapshots_to: Sequence[str] = (),
) -> FuturesReport:
    rules = rules or FuturesRules()
    start, end = _day(date_from), _day(date_to)
    if start >= end:
        raise ValueError(f"the earlier date ({start}) must come before the later one ({end})")
    added, removed = sku_changes(prices_from, prices_to)
    moves = price_changes(prices_from, prices_to, rules.min_price_change_pct)
    return FuturesReport(
        date_from=start,
        date_to=end,
        new_skus=added,
        removed_skus=removed,
        price_changes=moves,
        perf_per_dollar=perf_per_dollar(costs_from, costs_to),
        stale=stale_benchmarks(results_to, end),
        suggestions=suggestions(costs_to, added, rules),
        snapshots_from=tuple(sorted(set(snapshots_from))),
        snapshots_to=tuple(sorted(set(snapshots_to))),
        rules=rules,
        decisions=decisions,
        options=costs_to,
        fleet_effects=fleet_effects(moves, rules.fleet),
    )


@dataclass(frozen=True)
class ReviewWindow:
    """Where a review with no dates given starts, and why, in a sentence's words. ``start`` is
    None only when there is nothing to compare; ``why`` then says what is missing."""

    start: date | None
    why: str


def default_window(last: LastReview | None, end: date) -> ReviewWindow:
    """The review a person gets without dates, ending on ``end``: since the end of the last
    review closed on purpose (recorded decisions do not end a review), else since the oldest
    snapshot. A review closed on ``end`` itself is shown again from its own start."""
    if last is None:
        return ReviewWindow(
            None, "the warehouse has no snapshot yet: refresh prices or import results"
        )
    if last.day < end:
        why = (
            f"the end of the last closed review ({last.day.isoformat()})"
            if last.basis == "review"
            else "the oldest snapshot's date, as no review has been closed yet"
        )
        return ReviewWindow(last.day, why)
    if last.basis == "review" and last.review_from is not None and last.review_from < end:
        return ReviewWindow(
            last.review_from,
            f"the start of the last review, which was closed on {last.day.isoformat()}: it is"
            " shown again, as nothing has been added since it closed",
        )
    if last.basis == "review":
        return ReviewWindow(
            None,
            f"the last review was closed on {last.day.isoformat()} and names no start, so no"
            f" day before {end.isoformat()} is left to compare with",
        )
    return ReviewWindow(
        None,
        f"the oldest snapshot is from {last.day.isoformat()}, so there is no earlier price or"
        f" result to compare {end.isoformat()} with yet",
    )


@dataclass(frozen=True)
class AsOf:
    """What a comparison reads for one of its two dates: the warehouse as it stood that day, the
    quotes a reader may not see already left out."""

    snapshots: pd.DataFrame
    results: pd.DataFrame
    prices: pd.DataFrame
    costs: pd.DataFrame

    @property
    def snapshot_ids(self) -> list[str]:
        return [*self.snapshots["snapshot_id"], *self.results["snapshot_id"].unique()]


def as_of_days(warehouse, days: Sequence, hidden_pricing_models: Sequence[str] = ()) -> list[AsOf]:
    """The warehouse on each of ``days`` (a date means the whole day), all read together at
    about what one day costs."""

    def visible(frame: pd.DataFrame) -> pd.DataFrame:
        if not hidden_pricing_models or frame.empty:
            return frame
        return frame[~frame["pricing_model"].isin(hidden_pricing_models)].reset_index(drop=True)

    return [
        AsOf(snapshots=snapshots, results=results, prices=visible(prices), costs=visible(costs))
        for snapshots, results, prices, costs in zip(
            wf.price_snapshots_as_of_days(warehouse, days),
            wf.results_as_of_days(warehouse, days),
            wf.prices_as_of_days(warehouse, days),
            wf.costs_as_of_days(warehouse, days),
            strict=True,
        )
    ]


def compare_warehouse(
    warehouse,
    date_from,
    date_to,
    rules: FuturesRules | None = None,
    *,
    hidden_pricing_models: Sequence[str] = (),
    days: tuple[AsOf, AsOf] | None = None,
) -> FuturesReport:
    """Load both dates' frames from the warehouse and compare them; attach the decision log.

    ``hidden_pricing_models``: quotes a reader may not see (negotiated ones, for a role without
    that right) are left out of every frame before anything is compared. ``days``: both dates'
    frames (``as_of_days``) when the caller has read them already, as the dashboard does for
    every day a review window may start or end on.
    """
    start, end = days or as_of_days(warehouse, [date_from, date_to], hidden_pricing_models)
    return compare(
        date_from,
        date_to,
        start.prices,
        end.prices,
        start.costs,
        end.costs,
        end.results,
        rules=rules,
        decisions=decision_log(warehouse),
        snapshots_from=start.snapshot_ids,
        snapshots_to=end.snapshot_ids,
    )


def company_review(
    warehouse,
    date_from,
    date_to,
    rules: FuturesRules | None = None,
    *,
    hidden_pricing_models: Sequence[str] = (),
    engine: Engine | None = None,
    days: tuple[AsOf, AsOf] | None = None,
    workspace: Workspace | None = None,
) -> FuturesReport:
    """The review judged against the company's own fleet (the stored workspace) at the rates it
    pays: what ``tokendesk futures compare`` prints and the dashboard's Futures page shows.

    A line whose pricing model is hidden from the reader keeps its place as the incumbent, but
    its rate is not named in the label. ``engine``: the stored workspace's engine over every
    current option (``planning.workspaces.engine_for``) when the caller has it already; the same
    for every review window, so the dashboard builds it once. ``workspace``: the fleet as this
    reader may have it priced (a reader who may not see negotiated rates passes the stored one
    with those lines at list price), instead of the stored one.
    """
    from planning import fleet as pf
    from planning import workspaces as pw

    ws = workspace if workspace is not None else pw.stored_workspace(warehouse)[1]
    lines = tuple(
        replace(line, label=line.label.split(" at $")[0] + " at a withheld rate)")
        if line.pricing_model in hidden_pricing_models
        else line
        for line in pf.fleet_rates(
            engine if engine is not None else pw.engine_for(warehouse, ws), ws
        )
    )
    rules = replace(
        rules or FuturesRules(),
        fleet=lines,
        allow_spot=ws.constraints.allow_spot,
        approved_providers=ws.constraints.providers,
    )
    return compare_warehouse(
        warehouse, date_from, date_to, rules, hidden_pricing_models=hidden_pricing_models, days=days
    )


# -- as data ----------------------------------------------------------------------------------------
#: The option columns the JSON carries: the same names and figures as ``tokendesk costs``, and
#: how each price is quoted (per instance or per accelerator).
OPTION_COLUMNS = [*OPTION_FIGURES, "price_basis"]


def _records(frame: pd.DataFrame | None, columns: Sequence[str] | None = None) -> list[dict]:
    if frame is None or frame.empty:
        return []
    frame = frame.reindex(columns=list(columns)) if columns else frame
    return json.loads(frame.to_json(orient="records", date_format="iso"))


def report_json(r: FuturesReport) -> dict:
    """The review as data: every table of the document, and every option of the later date."""
    return {
        "from": r.date_from.isoformat(),
        "to": r.date_to.isoformat(),
        "new_skus": _records(r.new_skus),
        "removed_skus": _records(r.removed_skus),
        "price_changes": _records(r.price_changes),
        "perf_per_dollar": _records(r.perf_per_dollar),
        "stale_benchmarks": _records(r.stale),
        "suggestions": _records(r.suggestions),
        "fleet_effects": _records(r.fleet_effects),
        "options": _records(r.options, OPTION_COLUMNS),
        "snapshots_from": list(r.snapshots_from),
        "snapshots_to": list(r.snapshots_to),
    }
