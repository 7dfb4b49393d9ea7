"""Futures day's review (``planning.review``): SKUs, price moves, perf per dollar, stale results and
the buy / no-buy suggestion for each new SKU, on hand-built frames and on the seed warehouse."""

from __future__ import annotations

import pandas as pd
import pytest

from planning.fleet import FleetRate
from planning.review import FuturesRules, compare, compare_warehouse, suggestions
from warehouse import Warehouse


def _price(
    provider,
    region,
    instance,
    model,
    usd,
    acc="nvidia-h100-sxm-80gb",
    snap="s1",
    observed="2025-01-01",
):
    return dict(
        provider=provider,
        region=region,
        instance_type=instance,
        pricing_model=model,
        accelerator_id=acc,
        usd_per_hour=usd,
        source=f"{provider} list",
        observed_at=pd.Timestamp(observed),
        snapshot_id=snap,
    )


def _cost(
    provider,
    instance,
    acc,
    backend,
    model,
    usd_1k,
    p95=None,
    p99=None,
    region="r1",
    pricing="on_demand",
):
    return dict(
        provider=provider,
        region=region,
        instance_type=instance,
        pricing_model=pricing,
        accelerator_id=acc,
        backend=backend,
        model=model,
        usd_per_1k_output_tokens=usd_1k,
        ttft_ms_p95=p95,
        ttft_ms_p99=p99,
    )


def test_compare_on_hand_built_frames():
    old = pd.DataFrame(
        [
            _price("aws", "us-east-1", "p5", "on_demand", 100.0),
            _price("aws", "us-east-1", "old1", "on_demand", 10.0),
            _price("gcp", "us-c1", "a3", "spot", 20.0),
        ]
    )
    new = pd.DataFrame(
        [
            _price("aws", "us-east-1", "p5", "on_demand", 56.0, snap="s2"),
            _price("gcp", "us-c1", "a3", "spot", 20.05, snap="s2"),  # below the 0.5% noise floor
            _price("neo", "x", "mi300x", "on_demand", 2.0, acc="amd-mi300x-192gb", snap="s2"),
            _price("neo", "x", "slow", "on_demand", 2.0, acc="amd-mi325x-256gb", snap="s2"),
            _price("neo", "x", "blind", "on_demand", 2.0, acc="intel-gaudi3-128gb", snap="s2"),
        ]
    )
    costs_old = pd.DataFrame(
        [_cost("aws", "p5", "nvidia-h100-sxm-80gb", "cuda", "m", 0.010, p95=200)]
    )
    costs_new = pd.DataFrame(
        [
            _cost("aws", "p5", "nvidia-h100-sxm-80gb", "cuda", "m", 0.0056, p95=200),
            _cost(
                "neo", "mi300x", "amd-mi300x-192gb", "rocm", "m", 0.0040, p95=210
            ),  # -29% cost, +5% FTL -> buy
            _cost(
                "neo", "slow", "amd-mi325x-256gb", "rocm", "m", 0.0030, p95=300
            ),  # cheaper but FTL +50% -> no-buy
            _cost("neo", "blind", "intel-gaudi3-128gb", "hpu", "m", 0.0030),  # no FTL -> defer
            _cost(
                "neo", "blind", "intel-gaudi3-128gb", "hpu", "other", 0.0030
            ),  # no incumbent -> defer
        ]
    )
    results = pd.DataFrame(
        [
            dict(
                accelerator_id="amd-mi300x-192gb",
                model="m",
                precision="fp8",
                runtime="vllm",
                runtime_version="0.6",
                measured_at=pd.Timestamp("2026-01-01"),
                source_title="old run",
            ),
            dict(
                accelerator_id="nvidia-h100-sxm-80gb",
                model="m",
                precision="fp8",
                runtime="vllm",
                runtime_version="0.9",
                measured_at=pd.Timestamp("2026-11-01"),
                source_title="fresh run",
            ),
        ]
    )
    report = compare("2025-03-31", "2026-11-30", old, new, costs_old, costs_new, results)
    assert list(report.price_changes["instance_type"]) == ["p5"]
    assert report.price_changes["change_pct"].iloc[0] == pytest.approx(-0.44)
    assert set(report.new_skus["instance_type"]) == {"mi300x", "slow", "blind"}
    assert list(report.removed_skus["instance_type"]) == ["old1"]
    verdicts = {(r.instance_type, r.model): r.suggestion for r in report.suggestions.itertuples()}
    assert verdicts == {
        ("mi300x", "m"): "buy",
        ("slow", "m"): "no-buy",
        ("blind", "m"): "defer",
        ("blind", "other"): "defer",
    }
    assert (
        list(report.stale["source_title"]) == ["old run"]
        and report.stale["age_days"].iloc[0] == 333
    )
    h100 = report.perf_per_dollar.set_index("accelerator_id").loc["nvidia-h100-sxm-80gb"]
    assert h100["change_pct"] == pytest.approx(0.010 / 0.0056 - 1)
    with pytest.raises(ValueError, match="must come before"):
        compare("2026-01-01", "2025-01-01", old, new, costs_old, costs_new, results)


def test_rules_are_inputs():
    assert FuturesRules(min_savings_pct=0.2).min_savings_pct == 0.2


def test_the_incumbent_is_the_company_fleet_at_its_own_rate():
    costs = pd.DataFrame(
        [
            dict(_cost("aws", "p5", "nvidia-h100-sxm-80gb", "cuda", "m", 0.0056, p95=200)),
            dict(_cost("gcp", "a3", "nvidia-h100-sxm-80gb", "cuda", "m", 0.0020, p95=200)),
            dict(_cost("neo", "mi300x", "amd-mi300x-192gb", "rocm", "m", 0.0040, p95=210)),
        ]
    ).assign(usd_per_hour=[56.0, 20.0, 2.0])
    added = pd.DataFrame(
        [dict(provider="neo", instance_type="mi300x", accelerator_id="amd-mi300x-192gb")]
    )
    # Market rule: the cheapest NVIDIA option anywhere (gcp a3 at 0.0020) is the incumbent.
    market = suggestions(costs, added, FuturesRules())
    assert market["incumbent"].iloc[0].startswith("gcp · r1 · a3")
    # Fleet rule: the p5 the company runs, at the $28/h it pays: 0.0056 × 28/56 = 0.0028 per 1K.
    fleet = FuturesRules(fleet=(FleetRate("aws", "p5", 28.0, "your fleet: 6 × aws p5"),))
    mine = suggestions(costs, added, fleet).iloc[0]
    assert mine["incumbent"] == "your fleet: 6 × aws p5"
    assert mine["incumbent_usd_per_1k_output"] == pytest.approx(0.0028)
    assert mine["cost_change_pct"] == pytest.approx(0.0040 / 0.0028 - 1)
    assert mine["suggestion"] == "no-buy"


def test_futures_day_on_the_seed_warehouse(seed_db):
    with Warehouse.open(seed_db, read_only=True) as warehouse:
        report = compare_warehouse(warehouse, "2025-03-31", "2026-11-30")
    changes = report.price_changes.set_index(["instance_type", "pricing_model"])
    p5 = changes.loc[("p5.48xlarge", "on_demand")]
    # The AWS Price List's p5.48xlarge rate in its versions of 2025-03-31 and 2026-07-28.
    assert (p5["usd_per_hour_from"], p5["usd_per_hour_to"]) == (98.32, 55.04)
    assert round(p5["change_pct"] * 100) == -44
    assert len(report.new_skus) > 0 and set(report.suggestions["suggestion"]) <= {
        "buy",
        "no-buy",
        "defer",
    }
    assert report.snapshots_from and report.snapshots_to
