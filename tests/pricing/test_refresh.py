"""Refresh into the real warehouse (in memory): one snapshot per provider, failures recorded,
last good snapshot stays current, quarantined rows kept but not current."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from pricing.provider import PermissionDeniedError, ProviderResult
from pricing.refresh import refresh
from pricing.registry import ProviderSpec
from tokendesk.records import PriceQuote, PricingModel, SnapshotStatus
from warehouse import Warehouse

T = datetime(2026, 9, 1, tzinfo=UTC)


def quote(
    instance="p5en.48xlarge",
    usd=63.296,
    model=PricingModel.ON_DEMAND,
    region="us-east-1",
    provider="aws",
):
    return PriceQuote(
        provider=provider,
        region=region,
        instance_type=instance,
        accelerator_id="nvidia-h200-141gb",
        accelerator_count=8,
        pricing_model=model,
        usd_per_hour=usd,
        source="test",
        observed_at=T,
    )


def spec(name, fetch, source=None, **kw):
    return ProviderSpec(
        name,
        f"{name} test source",
        "nothing",
        "api",
        source if source is not None else name,
        fetch,
        **kw,
    )


@pytest.fixture
def wh():
    warehouse = Warehouse.open(":memory:", build=False)
    yield warehouse
    warehouse.close()


def test_ok_snapshot_with_integrity_and_progress(wh):
    def fetch(regions, progress):
        progress("us-east-1", 1, 1, "2 prices")
        return ProviderResult(quotes=[quote(), quote(model=PricingModel.SPOT, usd=90.0)])

    events = []
    report = refresh(["aws"], None, wh, events.append, registry={"aws": spec("aws", fetch)})
    [outcome] = report.outcomes
    assert outcome.status is SnapshotStatus.OK and outcome.rows == 2 and outcome.quarantined == 1
    assert [e.stage for e in events] == ["start", "region", "done"]
    current = wh.current_price_quotes("aws")
    assert [(q.pricing_model, q.usd_per_hour) for q in current] == [
        (PricingModel.ON_DEMAND, 63.296)
    ]
    stored = wh.integrity_report(outcome.snapshot_id)
    assert set(stored["rule"]) >= {"spot_le_on_demand", "anchor_within_tolerance"}


def test_failure_and_partial_keep_last_good_current(wh):
    good = {"aws": spec("aws", lambda r, p: ProviderResult(quotes=[quote()]))}
    refresh(["aws"], None, wh, registry=good)

    def denied(regions, progress):
        raise PermissionDeniedError("aws", "pricing:GetProducts")

    report = refresh(["aws"], None, wh, registry={"aws": spec("aws", denied)})
    assert report.outcomes[0].status is SnapshotStatus.FAILED
    assert "pricing:GetProducts" in report.outcomes[0].error

    partial = ProviderResult(quotes=[quote(usd=70.0)], region_errors={"us-west-2": "ReadTimeout"})
    report = refresh(["aws"], None, wh, registry={"aws": spec("aws", lambda r, p: partial)})
    assert report.outcomes[0].status is SnapshotStatus.PARTIAL

    assert [q.usd_per_hour for q in wh.current_price_quotes("aws")] == [63.296]
    snaps = wh.snapshots()
    assert list(snaps["status"]) == ["ok", "failed", "partial"]  # nothing deleted
    assert "pricing:GetProducts" in snaps["error"].iloc[1]


def test_one_failing_provider_does_not_stop_the_others(wh):
    def boom(regions, progress):
        raise RuntimeError("endpoint unreachable")

    registry = {
        "gcp": spec("gcp", boom),
        "azure": spec(
            "azure",
            lambda r, p: ProviderResult(
                quotes=[
                    quote(
                        provider="azure",
                        region="eastus",
                        instance="Standard_ND96isr_H200_v5",
                        usd=80.0,
                    )
                ]
            ),
        ),
    }
    report = refresh(["gcp", "azure"], None, wh, registry=registry)
    assert [o.status for o in report.outcomes] == [SnapshotStatus.FAILED, SnapshotStatus.OK]
    assert len(wh.current_price_quotes("azure")) == 1


def test_regions_scope_leaves_other_regions_current(wh):
    both = ProviderResult(quotes=[quote(region="us-east-1"), quote(region="us-east-2")])
    refresh(["aws"], None, wh, registry={"aws": spec("aws", lambda r, p: both)})
    only_east2 = ProviderResult(quotes=[quote(region="us-east-2", usd=64.0)])
    refresh(["aws"], ["us-east-2"], wh, registry={"aws": spec("aws", lambda r, p: only_east2)})
    current = {q.region: q.usd_per_hour for q in wh.current_price_quotes("aws")}
    assert current == {"us-east-1": 63.296, "us-east-2": 64.0}


def test_provider_without_applicable_region_is_not_run(wh):
    report = refresh(
        ["aws"], ["eastus"], wh, registry={"aws": spec("aws", lambda r, p: ProviderResult())}
    )
    assert report.outcomes == [] and report.not_applicable == ["aws"]


def test_sheets_split_list_and_negotiated_sources(wh, tmp_path: Path, monkeypatch):
    (tmp_path / "quotes.yaml").write_text(
        """
defaults: {provider: tensorwave, source: TensorWave quote, observed_at: 2026-09-01, region: any}
quotes:
  - {instance_type: mi325x-node, accelerator_id: amd-mi325x-256gb, accelerator_count: 8,
     pricing_model: on_demand, usd_per_hour: 15.6}
  - {instance_type: mi325x-node, accelerator_id: amd-mi325x-256gb, accelerator_count: 8,
     pricing_model: negotiated,
     usd_per_hour: 12.0, quote_id: Q-1, vendor_contact: sales@example.com, expires_on: 2026-06-30}
"""
    )
    (tmp_path / "bad.yaml").write_text("quotes: {}")
    monkeypatch.setenv("TOKENDESK_PRICE_SHEETS", str(tmp_path))
    report = refresh(["sheets"], None, wh)
    by_source = {o.source: o for o in report.outcomes}
    assert by_source["sheet:bad.yaml"].status is SnapshotStatus.FAILED
    assert by_source["tensorwave"].status is SnapshotStatus.OK
    assert by_source["sheet:tensorwave:negotiated"].review_flagged == 1  # expired, still shown
    assert len(wh.current_price_quotes("tensorwave")) == 2
