"""Integrity checks run on every price snapshot before it is stored.

Each rule reports (rule, checked, failed, detail). A row failing a hard rule is *quarantined*:
kept in the snapshot, flagged with the reason, and excluded from current prices. A row that is
plausible but surprising (moved > 50% since the previous snapshot, an expired negotiated quote)
gets a *review flag* and stays current.
"""

from __future__ import annotations

import csv
import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from functools import cache
from pathlib import Path

from pricing.aws import STATIC_ACCELERATOR_COUNTS
from pricing.azure import SIZES
from tokendesk.catalog import accelerator_ids, load_catalog
from tokendesk.paths import data_dir
from tokendesk.records import COMMITTED_MODELS, Backend, PriceQuote, PricingModel

ANCHORS_FILE = "price_anchors.csv"
#: A move beyond this fraction since the previous snapshot is flagged for review (the June-2025
#: AWS P5 cut was 44%; a bigger jump is more often a parsing or SKU-matching error).
MAX_MOVE_FRACTION = 0.5

RULE_POSITIVE = "price_positive"
RULE_SPOT = "spot_le_on_demand"
RULE_COMMITTED = "committed_le_on_demand"
RULE_ACCELERATOR = "known_accelerator_and_count"
RULE_ANCHOR = "anchor_within_tolerance"
RULE_MOVED = "moved_over_50pct"
RULE_EXPIRED = "negotiated_quote_expired"


@dataclass(frozen=True)
class Anchor:
    provider: str
    region: str
    instance_type: str
    pricing_model: PricingModel
    usd_per_hour: float
    tolerance_pct: float
    source_title: str
    source_url: str
    source_date: str


@dataclass(frozen=True)
class RuleResult:
    rule: str
    checked: int
    failed: int
    detail: str = ""


@dataclass
class IntegrityReport:
    rules: list[RuleResult] = field(default_factory=list)
    #: index into the checked quotes -> reasons; these rows are excluded from current prices.
    quarantine: dict[int, str] = field(default_factory=dict)
    #: index -> reasons; these rows stay current but are shown as needing review.
    review_flags: dict[int, str] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.quarantine

    def as_tuples(self) -> list[tuple[str, int, int, str]]:
        return [(r.rule, r.checked, r.failed, r.detail) for r in self.rules]


def load_anchors(path: Path | None = None) -> list[Anchor]:
    path = path or data_dir() / ANCHORS_FILE
    return list(_load_anchors_cached(str(path)))


@cache
def _load_anchors_cached(path: str) -> tuple[Anchor, ...]:
    anchors = []
    with open(path, newline="", encoding="utf-8") as handle:
        for line_no, row in enumerate(csv.DictReader(handle), start=2):
            try:
                anchors.append(
                    Anchor(
                        provider=row["provider"],
                        region=row["region"],
                        instance_type=row["instance_type"],
                        pricing_model=PricingModel(row["pricing_model"]),
                        usd_per_hour=float(row["usd_per_hour"]),
                        tolerance_pct=float(row["tolerance_pct"]),
                        source_title=row["source_title"],
                        source_url=row["source_url"],
                        source_date=row["source_date"],
                    )
                )
            except (KeyError, ValueError) as exc:
                raise ValueError(f"{path}:{line_no}: bad anchor row ({exc})") from exc
    return tuple(anchors)


def _expected_counts() -> dict[tuple[str, str], int]:
    """(provider, instance type) -> accelerator count we know independently of the payload."""

    expected = {("aws", k): v for k, v in STATIC_ACCELERATOR_COUNTS.items()}
    expected.update({("azure", k): v.accelerator_count for k, v in SIZES.items()})
    return expected


def _key(q: PriceQuote) -> tuple[str, str, str, str, str]:
    return (q.provider, q.region, q.instance_type, q.price_basis.value, q.accelerator_id)


def _add(target: dict[int, str], index: int, reason: str) -> None:
    target[index] = f"{target[index]}; {reason}" if index in target else reason


def check_snapshot(
    quotes: Sequence[PriceQuote],
    previous: Sequence[PriceQuote] = (),
    *,
    anchors: Sequence[Anchor] | None = None,
    today: date | None = None,
) -> IntegrityReport:
    """Run every rule over ``quotes`` (``previous``: the current quotes before this snapshot)."""
    anchors = load_anchors() if anchors is None else anchors
    today = today or date.today()
    report = IntegrityReport()

    # price > 0 (and finite): the record forbids <= 0, but NaN/inf slip through a float field.
    bad = [
        i
        for i, q in enumerate(quotes)
        if not (math.isfinite(q.usd_per_hour) and q.usd_per_hour > 0)
    ]
    for i in bad:
        _add(report.quarantine, i, f"price {quotes[i].usd_per_hour!r} is not a positive number")
    report.rules.append(RuleResult(RULE_POSITIVE, len(quotes), len(bad)))

    on_demand: dict[tuple[str, ...], float] = {}
    for q in quotes:
        if q.pricing_model is PricingModel.ON_DEMAND:
            key = _key(q)
            on_demand[key] = min(on_demand.get(key, math.inf), q.usd_per_hour)

    for rule, models in (
        (RULE_SPOT, {PricingModel.SPOT}),
        (RULE_COMMITTED, set(COMMITTED_MODELS)),
    ):
        checked = failed = 0
        examples: list[str] = []
        for i, q in enumerate(quotes):
            if q.pricing_model not in models or _key(q) not in on_demand:
                continue
            checked += 1
            reference = on_demand[_key(q)]
            if q.usd_per_hour > reference * (1 + 1e-9):
                failed += 1
                reason = f"{q.pricing_model} ${q.usd_per_hour:g} above on-demand ${reference:g}"
                _add(report.quarantine, i, reason)
                if len(examples) < 3:
                    examples.append(f"{q.instance_type} {q.region}: {reason}")
        report.rules.append(RuleResult(rule, checked, failed, "; ".join(examples)))

    known = accelerator_ids()
    catalog = load_catalog()
    expected = _expected_counts()
    failed = 0
    examples = []
    for i, q in enumerate(quotes):
        reason = ""
        if q.accelerator_id not in known:
            reason = f"unknown accelerator id {q.accelerator_id!r}"
        elif q.accelerator_count < 1 and catalog[q.accelerator_id].backend is not Backend.CPU:
            reason = f"accelerator count {q.accelerator_count} for {q.accelerator_id}"
        elif (q.provider, q.instance_type) in expected and q.accelerator_count != expected[
            (q.provider, q.instance_type)
        ]:
            reason = (
                f"{q.instance_type} has {expected[(q.provider, q.instance_type)]} accelerators,"
                f" row says {q.accelerator_count}"
            )
        if reason:
            failed += 1
            _add(report.quarantine, i, reason)
            if len(examples) < 3:
                examples.append(f"{q.instance_type}: {reason}")
    report.rules.append(RuleResult(RULE_ACCELERATOR, len(quotes), failed, "; ".join(examples)))

    by_anchor: dict[tuple[str, str, str, PricingModel], Anchor] = {
        (a.provider, a.region, a.instance_type, a.pricing_model): a for a in anchors
    }
    checked = failed = 0
    examples = []
    for i, q in enumerate(quotes):
        anchor = by_anchor.get((q.provider, q.region, q.instance_type, q.pricing_model))
        if anchor is None:
            continue
        checked += 1
        deviation = abs(q.usd_per_hour / anchor.usd_per_hour - 1) * 100
        if deviation > anchor.tolerance_pct:
            failed += 1
            reason = (
                f"${q.usd_per_hour:g} is {deviation:.1f}% off the anchor ${anchor.usd_per_hour:g}"
                f" (tolerance {anchor.tolerance_pct:g}%, {anchor.source_date}); if the price really"
                f" changed, update {ANCHORS_FILE} with a new source"
            )
            _add(report.quarantine, i, reason)
            if len(examples) < 3:
                examples.append(f"{q.instance_type} {q.region}: {reason}")
    report.rules.append(RuleResult(RULE_ANCHOR, checked, failed, "; ".join(examples)))

    before: dict[tuple[str, ...], float] = {}
    for p in previous:
        before[(*_key(p), p.pricing_model.value, p.zone or "")] = p.usd_per_hour
    checked = failed = 0
    examples = []
    for i, q in enumerate(quotes):
        old = before.get((*_key(q), q.pricing_model.value, q.zone or ""))
        if old is None or old <= 0:
            continue
        checked += 1
        move = q.usd_per_hour / old - 1
        if abs(move) > MAX_MOVE_FRACTION:
            failed += 1
            reason = (
                f"moved {move:+.0%} since the previous snapshot (${old:g} -> ${q.usd_per_hour:g})"
            )
            _add(report.review_flags, i, reason)
            if len(examples) < 3:
                examples.append(f"{q.instance_type} {q.region} {q.pricing_model}: {reason}")
    report.rules.append(RuleResult(RULE_MOVED, checked, failed, "; ".join(examples)))

    checked = failed = 0
    per_vendor: dict[str, int] = defaultdict(int)
    for i, q in enumerate(quotes):
        if q.expires_on is None:
            continue
        checked += 1
        if q.expires_on < today:
            failed += 1
            per_vendor[q.provider] += 1
            _add(
                report.review_flags,
                i,
                f"expired on {q.expires_on.isoformat()} (quote {q.quote_id or '?'})",
            )
    detail = ", ".join(f"{vendor}: {n}" for vendor, n in sorted(per_vendor.items()))
    report.rules.append(RuleResult(RULE_EXPIRED, checked, failed, detail))
    return report


def check_price_file(
    quotes: Sequence[PriceQuote], previous: Sequence[PriceQuote], *, historical: bool
) -> IntegrityReport:
    """The check a seed-format price file (the bundled seed, a price sheet) is stored with, one
    snapshot at a time; ``previous`` is the file's historical snapshot of the same provider.

    Today's anchors describe today's prices, so they do not judge a historical snapshot; a
    current snapshot is compared with the historical one for the >50% move rule."""
    return check_snapshot(quotes, previous, anchors=() if historical else None)
