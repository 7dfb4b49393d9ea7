"""Integrity rules: per-rule counts, quarantine (kept, excluded) vs review flags (kept, current)."""

from __future__ import annotations

from datetime import UTC, date, datetime

from pricing.integrity import (
    RULE_ACCELERATOR,
    RULE_ANCHOR,
    RULE_COMMITTED,
    RULE_EXPIRED,
    RULE_MOVED,
    RULE_SPOT,
    check_snapshot,
    load_anchors,
)
from tokendesk.records import PriceQuote, PricingModel

T = datetime(2026, 9, 1, tzinfo=UTC)


def q(
    instance="p5en.48xlarge",
    model=PricingModel.ON_DEMAND,
    usd=63.296,
    region="us-east-1",
    count=8,
    **kw,
):
    return PriceQuote(
        provider=kw.pop("provider", "aws"),
        region=region,
        instance_type=instance,
        accelerator_id=kw.pop("accelerator_id", "nvidia-h200-141gb"),
        accelerator_count=count,
        pricing_model=model,
        usd_per_hour=usd,
        source="test",
        observed_at=T,
        **kw,
    )


def rule(report, name):
    return next(r for r in report.rules if r.rule == name)


def test_clean_snapshot_passes_every_rule():
    quotes = [
        q(),
        q(model=PricingModel.SPOT, usd=27.2),
        q(model=PricingModel.RESERVED_1Y, usd=34.2),
    ]
    report = check_snapshot(quotes, [])
    assert report.ok and not report.review_flags
    assert rule(report, RULE_SPOT).checked == 1 and rule(report, RULE_COMMITTED).checked == 1
    assert rule(report, RULE_ANCHOR).checked == 1 and rule(report, RULE_ANCHOR).failed == 0


def test_spot_and_reserved_above_on_demand_are_quarantined():
    quotes = [
        q(),
        q(model=PricingModel.SPOT, usd=70.0),
        q(model=PricingModel.RESERVED_3Y, usd=80.0),
    ]
    report = check_snapshot(quotes, [])
    assert set(report.quarantine) == {1, 2}
    assert "above on-demand" in report.quarantine[1]
    assert rule(report, RULE_SPOT).failed == 1 and rule(report, RULE_COMMITTED).failed == 1


def test_anchor_out_of_tolerance_names_the_anchor_file():
    report = check_snapshot([q(usd=84.80)], [])  # the pre-June-2025 price
    assert "price_anchors.csv" in report.quarantine[0] and rule(report, RULE_ANCHOR).failed == 1


def test_wrong_accelerator_count_for_a_known_instance_is_quarantined():
    report = check_snapshot(
        [q(instance="inf2.48xlarge", accelerator_id="aws-inferentia2", count=1, usd=12.98127)], []
    )
    assert (
        "has 12 accelerators" in report.quarantine[0] and rule(report, RULE_ACCELERATOR).failed == 1
    )


def test_big_move_is_flagged_for_review_not_quarantined():
    previous = [q(instance="g6e.48xlarge", accelerator_id="nvidia-l40s-48gb", usd=30.13)]
    now = [q(instance="g6e.48xlarge", accelerator_id="nvidia-l40s-48gb", usd=12.0)]
    report = check_snapshot(now, previous)
    assert report.ok and "moved -60%" in report.review_flags[0]
    assert rule(report, RULE_MOVED).failed == 1


def test_expired_negotiated_quote_is_flagged():
    neg = q(
        provider="examplecloud",
        model=PricingModel.NEGOTIATED,
        usd=14.0,
        quote_id="Q1",
        expires_on=date(2026, 6, 30),
    )
    report = check_snapshot([neg], [], today=date(2026, 9, 1))
    assert (
        "expired on 2026-06-30" in report.review_flags[0] and rule(report, RULE_EXPIRED).failed == 1
    )


def test_anchor_table_is_sourced():
    anchors = load_anchors()
    p5en = next(
        a for a in anchors if a.instance_type == "p5en.48xlarge" and a.region == "us-east-1"
    )
    assert (
        p5en.usd_per_hour == 63.296 and p5en.source_url.startswith("https://") and p5en.source_date
    )
    assert all(a.source_title and a.source_date for a in anchors)


# -- held for confirmation ---------------------------------------------------------------------
def _held(new: PriceQuote, current: list[PriceQuote]) -> str | None:
    from pricing.integrity import PriceReference

    report = check_snapshot([new], anchors=(), reference=PriceReference.from_quotes(current))
    return report.quarantine.get(0)


def test_a_price_far_off_its_own_and_every_peer_is_held_and_says_how_to_confirm():
    from tests.factories import quote

    own = quote()  # $63.296/h for 8 H200s: $7.912 per accelerator-hour
    peer = quote(provider="gcp", region="us-central1", instance_type="a3-ultra", usd_per_hour=84.0)
    reason = _held(quote(usd_per_hour=own.usd_per_hour * 25), [own, peer])
    assert reason and "25.0× its current $63.296/h" in reason and "--confirm-held" in reason
    assert _held(quote(usd_per_hour=own.usd_per_hour / 50), [own, peer])  # 1/50 too
    # A new SKU with no price of its own is judged by its peers alone.
    assert _held(quote(instance_type="new.48xlarge", usd_per_hour=1000.0), [own, peer])


def test_a_big_move_a_peer_prices_alike_is_not_held():
    from tests.factories import quote

    own = quote()
    # 4x its own price, but within a provider's range for the same accelerators: not held.
    peer = quote(provider="x", region="r", instance_type="big", usd_per_hour=own.usd_per_hour * 4)
    assert _held(quote(usd_per_hour=own.usd_per_hour * 4), [own, peer]) is None
    assert _held(quote(usd_per_hour=own.usd_per_hour * 25), []) is None  # nothing to judge by
