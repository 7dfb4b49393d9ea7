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
RULE_HELD = "held_far_outside_history_and_peers"
#: A price this many times above (or below 1/this of) both its SKU's current price and every
#: current peer's (same accelerator, same pricing model, any provider) is held, not made current.
#: The widest honest spread is far inside it: the June-2025 AWS P5 cut was 44%, and peers' per-GPU
#: hours differ several-fold only across providers, which the peer range already spans.
HOLD_FACTOR = 3.0
#: What a held row's reason tells the person to do.
HOLD_ACTION = (
    "held for confirmation, not current: if the price is right, ingest the file again with"
    " --confirm-held; if not, take the snapshot back with `tokendesk db retract SNAPSHOT"
    " --reason TEXT` (`tokendesk db info` lists the snapshot ids)"
)


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


#: The fields of ``reference_key`` and ``previous_key``, in order: a price file's staging
#: compares them as stored text (None as "", as ``previous_key`` reads the zone).
REFERENCE_COLUMNS = ("provider", "region", "instance_type", "price_basis", "accelerator_id")
PREVIOUS_COLUMNS = (*REFERENCE_COLUMNS, "pricing_model", "zone")


def _key(q: PriceQuote) -> tuple[str, str, str, str, str]:
    return (q.provider, q.region, q.instance_type, q.price_basis.value, q.accelerator_id)


def reference_key(q: PriceQuote) -> tuple[str, ...]:
    """Quotes with the same key are one item: its on-demand price bounds its spot and committed
    prices (the lowest on-demand quote of the key in the snapshot)."""
    return _key(q)


def previous_key(q: PriceQuote) -> tuple[str, ...]:
    """A quote's counterpart in the previous snapshot (the last one there with this key)."""
    return (*_key(q), q.pricing_model.value, q.zone or "")


def _add(target: dict[int, str], index: int, reason: str) -> None:
    target[index] = f"{target[index]}; {reason}" if index in target else reason


class _Tally:
    """One rule's counts and its first three examples."""

    def __init__(self, rule: str) -> None:
        self.rule, self.checked, self.failed = rule, 0, 0
        self.examples: list[str] = []

    def fail(self, example: str | None = None) -> None:
        self.failed += 1
        if example is not None and len(self.examples) < 3:
            self.examples.append(example)

    def result(self, detail: str | None = None) -> RuleResult:
        return RuleResult(
            self.rule,
            self.checked,
            self.failed,
            "; ".join(self.examples) if detail is None else detail,
        )


@dataclass(frozen=True)
class PriceReference:
    """What a new price is judged against: each SKU's current price (provider, region, instance
    type, pricing model) and, per accelerator and pricing model, the range of current prices per
    accelerator-hour over every provider (the SKU's peers)."""

    own: dict[tuple[str, str, str, str], float] = field(default_factory=dict)
    peers: dict[tuple[str, str], tuple[float, float]] = field(default_factory=dict)

    @classmethod
    def from_quotes(cls, quotes: Sequence[PriceQuote]) -> PriceReference:
        own: dict[tuple[str, str, str, str], float] = {}
        peers: dict[tuple[str, str], tuple[float, float]] = {}
        for q in quotes:
            if not (math.isfinite(q.usd_per_hour) and q.usd_per_hour > 0):
                continue
            own[_sku(q)] = q.usd_per_hour
            per = _per_accelerator_hour(q)
            lo, hi = peers.get(_peer(q), (per, per))
            peers[_peer(q)] = (min(lo, per), max(hi, per))
        return cls(own, peers)


def _sku(q: PriceQuote) -> tuple[str, str, str, str]:
    return (q.provider, q.region, q.instance_type, str(q.pricing_model))


def _peer(q: PriceQuote) -> tuple[str, str]:
    return (q.accelerator_id, str(q.pricing_model))


def _per_accelerator_hour(q: PriceQuote) -> float:
    return q.usd_per_hour / max(q.accelerator_count, 1)


def _times(value: float, reference: float) -> str:
    ratio = value / reference
    return f"{ratio:,.1f}×" if ratio >= 1 else f"1/{1 / ratio:,.0f}"


class RowChecks:
    """Every rule of a snapshot, applied one quote at a time in the snapshot's order.

    The rules that compare quotes get the comparison handed in: ``on_demand_usd``, the lowest
    on-demand price among the snapshot's quotes with the same ``reference_key``, and
    ``previous_usd``, the price of the quote with the same ``previous_key`` in the previous
    snapshot (None where there is none). ``check_snapshot`` computes both in memory; a file too
    large to hold computes them in its staging database and feeds the quotes in batches."""

    def __init__(
        self,
        anchors: Sequence[Anchor] | None = None,
        today: date | None = None,
        reference: PriceReference | None = None,
    ) -> None:
        anchors = load_anchors() if anchors is None else anchors
        self.reference = reference
        self.today = today or date.today()
        self.by_anchor: dict[tuple[str, str, str, PricingModel], Anchor] = {
            (a.provider, a.region, a.instance_type, a.pricing_model): a for a in anchors
        }
        self.known = accelerator_ids()
        self.catalog = load_catalog()
        self.expected = _expected_counts()
        self.positive = _Tally(RULE_POSITIVE)
        self.spot = _Tally(RULE_SPOT)
        self.committed = _Tally(RULE_COMMITTED)
        self.accelerator = _Tally(RULE_ACCELERATOR)
        self.anchor = _Tally(RULE_ANCHOR)
        self.moved = _Tally(RULE_MOVED)
        self.expired = _Tally(RULE_EXPIRED)
        self.held = _Tally(RULE_HELD)
        self.expired_per_vendor: dict[str, int] = defaultdict(int)

    def check(
        self, q: PriceQuote, on_demand_usd: float | None, previous_usd: float | None
    ) -> tuple[str | None, str | None]:
        """(quarantine reason, review flag) of one quote; None where it passes."""
        quarantine: list[str] = []
        review: list[str] = []
        # price > 0 (and finite): the record forbids <= 0, but NaN/inf slip through a float field.
        self.positive.checked += 1
        if not (math.isfinite(q.usd_per_hour) and q.usd_per_hour > 0):
            self.positive.fail()
            quarantine.append(f"price {q.usd_per_hour!r} is not a positive number")
        for tally, models in (
            (self.spot, {PricingModel.SPOT}),
            (self.committed, COMMITTED_MODELS),
        ):
            if q.pricing_model not in models or on_demand_usd is None:
                continue
            tally.checked += 1
            if q.usd_per_hour > on_demand_usd * (1 + 1e-9):
                reason = f"{q.pricing_model} ${q.usd_per_hour:g} above on-demand ${on_demand_usd:g}"
                tally.fail(f"{q.instance_type} {q.region}: {reason}")
                quarantine.append(reason)
        self._check_accelerator(q, quarantine)
        self._check_anchor(q, quarantine)
        self._check_held(q, quarantine)
        if previous_usd is not None and previous_usd > 0:
            self.moved.checked += 1
            move = q.usd_per_hour / previous_usd - 1
            if abs(move) > MAX_MOVE_FRACTION:
                reason = (
                    f"moved {move:+.0%} since the previous snapshot (${previous_usd:g} ->"
                    f" ${q.usd_per_hour:g})"
                )
                self.moved.fail(f"{q.instance_type} {q.region} {q.pricing_model}: {reason}")
                review.append(reason)
        if q.expires_on is not None:
            self.expired.checked += 1
            if q.expires_on < self.today:
                self.expired.fail()
                self.expired_per_vendor[q.provider] += 1
                review.append(f"expired on {q.expires_on.isoformat()} (quote {q.quote_id or '?'})")
        return "; ".join(quarantine) or None, "; ".join(review) or None

    def _check_accelerator(self, q: PriceQuote, quarantine: list[str]) -> None:
        self.accelerator.checked += 1
        reason = ""
        if q.accelerator_id not in self.known:
            reason = f"unknown accelerator id {q.accelerator_id!r}"
        elif q.accelerator_count < 1 and self.catalog[q.accelerator_id].backend is not Backend.CPU:
            reason = f"accelerator count {q.accelerator_count} for {q.accelerator_id}"
        elif (
            q.provider,
            q.instance_type,
        ) in self.expected and q.accelerator_count != self.expected[(q.provider, q.instance_type)]:
            reason = (
                f"{q.instance_type} has {self.expected[(q.provider, q.instance_type)]}"
                f" accelerators, row says {q.accelerator_count}"
            )
        if reason:
            self.accelerator.fail(f"{q.instance_type}: {reason}")
            quarantine.append(reason)

    def _check_anchor(self, q: PriceQuote, quarantine: list[str]) -> None:
        anchor = self.by_anchor.get((q.provider, q.region, q.instance_type, q.pricing_model))
        if anchor is None:
            return
        self.anchor.checked += 1
        deviation = abs(q.usd_per_hour / anchor.usd_per_hour - 1) * 100
        if deviation > anchor.tolerance_pct:
            reason = (
                f"${q.usd_per_hour:g} is {deviation:.1f}% off the anchor ${anchor.usd_per_hour:g}"
                f" (tolerance {anchor.tolerance_pct:g}%, {anchor.source_date}); if the price really"
                f" changed, update {ANCHORS_FILE} with a new source"
            )
            self.anchor.fail(f"{q.instance_type} {q.region}: {reason}")
            quarantine.append(reason)

    def _check_held(self, q: PriceQuote, quarantine: list[str]) -> None:
        """Hold a price far outside both its SKU's current price and its peers' range: one row
        at 25× its list would otherwise move every plan on that SKU unseen."""
        if self.reference is None or not (math.isfinite(q.usd_per_hour) and q.usd_per_hour > 0):
            return
        own = self.reference.own.get(_sku(q))
        peers = self.reference.peers.get(_peer(q))
        if own is None and peers is None:
            return
        self.held.checked += 1
        per = _per_accelerator_hour(q)
        high = (own is None or q.usd_per_hour > own * HOLD_FACTOR) and (
            peers is None or per > peers[1] * HOLD_FACTOR
        )
        low = (own is None or q.usd_per_hour < own / HOLD_FACTOR) and (
            peers is None or per < peers[0] / HOLD_FACTOR
        )
        if not (high or low):
            return
        said = []
        if own is not None:
            said.append(f"{_times(q.usd_per_hour, own)} its current ${own:g}/h")
        if peers is not None:
            edge = peers[1] if high else peers[0]
            said.append(
                f"{_times(per, edge)} the {'highest' if high else 'lowest'} current"
                f" {q.accelerator_id} {q.pricing_model} price of any provider"
                f" (${edge:g}/accelerator-hour)"
            )
        reason = f"${q.usd_per_hour:g}/h is {' and '.join(said)}: {HOLD_ACTION}"
        self.held.fail(f"{q.provider} {q.instance_type} {q.region} {q.pricing_model}: {reason}")
        quarantine.append(reason)

    def rules(self) -> list[RuleResult]:
        """Each rule's (checked, failed, examples), in the order the report lists them."""
        detail = ", ".join(
            f"{vendor}: {n}" for vendor, n in sorted(self.expired_per_vendor.items())
        )
        return [
            self.positive.result(),
            self.spot.result(),
            self.committed.result(),
            self.accelerator.result(),
            self.anchor.result(),
            self.moved.result(),
            self.expired.result(detail),
            self.held.result(),
        ]

    def as_tuples(self) -> list[tuple[str, int, int, str]]:
        return [(r.rule, r.checked, r.failed, r.detail) for r in self.rules()]

    def facts(self) -> RuleFacts:
        """What the rules compare a quote with, as plain rows: for a screen that finds, in bulk,
        the quotes that certainly pass every rule (the others still go through ``check``)."""
        return RuleFacts(
            today=self.today,
            anchors=[(p, r, i, str(m)) for p, r, i, m in self.by_anchor],
            expected=[(p, i, n) for (p, i), n in self.expected.items()],
            cpus=sorted(i for i, a in self.catalog.items() if a.backend is Backend.CPU),
            known=sorted(self.known),
            own=[(*sku, usd) for sku, usd in self.reference.own.items()] if self.reference else [],
            peers=(
                [(*peer, lo, hi) for peer, (lo, hi) in self.reference.peers.items()]
                if self.reference
                else []
            ),
            holds=self.reference is not None,
        )

    def count_passed(self, checked: dict[str, int]) -> None:
        """Count quotes a screen found to pass: rule name -> how many of them the rule checked
        (``check`` was not called for them; none of them failed anything)."""
        for tally in (
            self.positive,
            self.spot,
            self.committed,
            self.accelerator,
            self.anchor,
            self.moved,
            self.expired,
            self.held,
        ):
            tally.checked += checked.get(tally.rule, 0)


@dataclass(frozen=True)
class RuleFacts:
    """What ``RowChecks`` judges a quote against, as rows (see ``RowChecks.facts``)."""

    today: date
    #: (provider, region, instance type, pricing model) of each anchor.
    anchors: list[tuple[str, str, str, str]]
    #: (provider, instance type, accelerator count known independently of the payload).
    expected: list[tuple[str, str, int]]
    #: Accelerator ids that are CPUs (less than one per instance is allowed).
    cpus: list[str]
    known: list[str]
    #: Current price per SKU: (provider, region, instance type, pricing model, usd per hour).
    own: list[tuple[str, str, str, str, float]]
    #: Peers' range per accelerator-hour: (accelerator, pricing model, lowest, highest).
    peers: list[tuple[str, str, float, float]]
    #: Whether prices far outside ``own`` and ``peers`` are held (a reference was given).
    holds: bool
    #: The rules' names, in this order: positive, spot, committed, accelerator, anchor, moved,
    #: expired, held (those ``count_passed`` takes).
    rules: tuple[str, ...] = (
        RULE_POSITIVE,
        RULE_SPOT,
        RULE_COMMITTED,
        RULE_ACCELERATOR,
        RULE_ANCHOR,
        RULE_MOVED,
        RULE_EXPIRED,
        RULE_HELD,
    )
    hold_factor: float = HOLD_FACTOR
    max_move_fraction: float = MAX_MOVE_FRACTION
    committed_models: tuple[str, ...] = tuple(sorted(str(m) for m in COMMITTED_MODELS))


def check_snapshot(
    quotes: Sequence[PriceQuote],
    previous: Sequence[PriceQuote] = (),
    *,
    anchors: Sequence[Anchor] | None = None,
    today: date | None = None,
    reference: PriceReference | None = None,
) -> IntegrityReport:
    """Run every rule over ``quotes`` (``previous``: the current quotes before this snapshot;
    ``reference``: the warehouse's current prices a price far off is held against; None holds
    nothing: a provider refresh has no way to confirm a held row, and its moves are flagged)."""
    on_demand: dict[tuple[str, ...], float] = {}
    for q in quotes:
        if q.pricing_model is PricingModel.ON_DEMAND:
            key = reference_key(q)
            on_demand[key] = min(on_demand.get(key, math.inf), q.usd_per_hour)
    before = {previous_key(p): p.usd_per_hour for p in previous}
    rows = RowChecks(anchors, today, reference)
    report = IntegrityReport()
    for i, q in enumerate(quotes):
        quarantine, review = rows.check(
            q, on_demand.get(reference_key(q)), before.get(previous_key(q))
        )
        if quarantine:
            report.quarantine[i] = quarantine
        if review:
            report.review_flags[i] = review
    report.rules = rows.rules()
    return report


class PriceFileCheck:
    """The check a seed-format price file (the bundled seed, a price sheet) is stored with, one
    snapshot at a time; ``previous`` is the file's historical snapshot of the same provider.

    Today's anchors describe today's prices, so they do not judge a historical snapshot; a
    current snapshot is compared with the historical one for the >50% move rule. A file too large
    to hold in memory is checked through ``rows`` with the same rules."""

    reference_key = staticmethod(reference_key)
    previous_key = staticmethod(previous_key)
    reference_columns: tuple[str, ...] = REFERENCE_COLUMNS
    previous_columns: tuple[str, ...] = PREVIOUS_COLUMNS

    def __call__(
        self,
        quotes: Sequence[PriceQuote],
        previous: Sequence[PriceQuote],
        *,
        historical: bool,
        reference: PriceReference | None = None,
    ) -> IntegrityReport:
        return check_snapshot(
            quotes,
            previous,
            anchors=() if historical else None,
            reference=None if historical else reference or PriceReference(),
        )

    def rows(self, *, historical: bool, reference: PriceReference | None = None) -> RowChecks:
        """The rules one row at a time; ``reference``: the warehouse's current prices a current
        snapshot's rows are held against (a historical snapshot's are not: they are history)."""
        return RowChecks(
            anchors=() if historical else None, reference=None if historical else reference
        )


check_price_file = PriceFileCheck()
