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
