"""The Prices page's reads over every matching quote are aggregates and pages in SQL: the
explorer's first N rows, its headline figures, the filter values, the SKUs by region count and
the accelerators priced per accelerator-hour, none of them loading every quote."""

from __future__ import annotations

from datetime import UTC, date, datetime

from tests.factories import quote, seeded_warehouse
from warehouse import catalog_queries


def _priced(warehouse) -> None:
    """Three aws H200 quotes (one zonal, flagged for review as integrity flags a price move), an
    expired negotiated quote, and two gcp quotes, one a CPU server priced with an
    accelerator count of 0 (so no $/accelerator-hour)."""
    warehouse.ingest_prices(
        "aws",
        [
            quote(region="us-east-1", observed_at=datetime(2026, 7, 1, tzinfo=UTC)),
            quote(region="us-west-2", observed_at=datetime(2026, 8, 15, tzinfo=UTC)),
            quote(region="us-west-2", zone="us-west-2b"),
            quote(
                instance_type="a3.contract",
                region="eu",
                pricing_model="negotiated",
                quote_id="Q-9",
                expires_on=date(2020, 1, 1),
            ),
        ],
    )
    warehouse.ingest_prices(
        "gcp",
        [
            quote(provider="gcp", region="us-central1", instance_type="a3", usd_per_hour=70.0),
            quote(
                provider="gcp",
                region="us-central1",
                instance_type="c3",
                accelerator_id="cpu-intel-spr-amx",
                accelerator_count=0,
                usd_per_hour=5.0,
            ),
        ],
    )
    warehouse.cursor().execute(
        "UPDATE price_quotes SET review_flag = ? WHERE zone = ?", ["moved 60%", "us-west-2b"]
    )


def test_the_explorer_reads_one_page_in_its_order(empty_warehouse):
    empty_warehouse.ingest_prices(
        "aws", [quote(region=f"r-{i:04d}", usd_per_hour=10.0 + i) for i in range(1200)]
    )
    page = catalog_queries.price_explorer(empty_warehouse, limit=500)
    assert len(page) == 500
    assert list(page["region"]) == [f"r-{i:04d}" for i in range(500)]
    assert catalog_queries.price_explorer_summary(empty_warehouse)["quotes"] == 1200


def test_the_summary_counts_what_the_headline_shows(empty_warehouse):
    _priced(empty_warehouse)
    summary = catalog_queries.price_explorer_summary(empty_warehouse)
    assert summary["quotes"] == summary["current"] == 6
    assert (summary["providers"], summary["regions"]) == (2, 4)
    assert summary["flagged"] == 2  # the review flag and the expired negotiated quote
    newest = summary["newest"]
    assert (newest["provider"], newest["instance_type"]) == ("aws", "p5en.48xlarge")
    assert newest["observed_at"].date() == date(2026, 8, 15)
    only_negotiated = catalog_queries.price_explorer_summary(
        empty_warehouse, pricing_model=["negotiated"]
    )
    assert only_negotiated["quotes"] == 1


def test_filter_values_skus_and_the_accelerator_offer_are_distinct_values(empty_warehouse):
    _priced(empty_warehouse)
    public = ["on_demand"]
    values = catalog_queries.current_price_values(empty_warehouse, pricing_model=public)
    assert values["provider"] == ["aws", "gcp"]
    assert values["pricing_model"] == ["on_demand"]
    spread = catalog_queries.price_sku_spread(empty_warehouse)
    regions = {
        (r.instance_type, r.pricing_model): r.regions for r in spread.itertuples(index=False)
    }
    # us-west-2 priced twice (regional and one zone) is one region.
    assert regions[("p5en.48xlarge", "on_demand")] == 2
    offer = catalog_queries.accelerator_hour_offer(empty_warehouse)
    # The CPU quote states no accelerator count, so it has no $/accelerator-hour.
    assert "cpu-intel-spr-amx" not in set(offer["accelerator_id"])
    cheapest = catalog_queries.price_explorer(
        empty_warehouse,
        limit=2,
        current_only=True,
        order_by_accelerator_hour=True,
        accelerator="nvidia-h200-141gb",
    )
    assert list(cheapest["usd_per_hour"]) == [63.296, 63.296]


def test_the_filter_values_from_one_scan_per_view_are_each_columns_own_distinct_values(tmp_path):
    """Every cost filter's values, read with one grouping-sets scan of each view, are what a
    separate ``SELECT DISTINCT`` of that column gives (the vendor only where the accelerator is
    catalogued)."""
    one_each = {
        "accelerator": "SELECT DISTINCT accelerator_id FROM current_prices",
        "vendor": "SELECT DISTINCT a.vendor FROM current_prices JOIN accelerators a"
        " USING (accelerator_id)",
        "provider": "SELECT DISTINCT provider FROM current_prices",
        "region": "SELECT DISTINCT region FROM current_prices",
        "pricing_model": "SELECT DISTINCT pricing_model FROM current_prices",
        "model": "SELECT DISTINCT model FROM current_results",
        "precision": "SELECT DISTINCT precision FROM current_results",
        "workload": "SELECT DISTINCT workload FROM current_results",
        "scenario": "SELECT DISTINCT scenario FROM current_results",
    }
    with seeded_warehouse(tmp_path / "seeded.duckdb") as warehouse:
        expected = {
            name: sorted(str(v) for v in warehouse.query(sql).iloc[:, 0].dropna())
            for name, sql in one_each.items()
        }
        values = catalog_queries.distinct_values(warehouse)
    assert values == expected
    assert all(values[name] for name in ("accelerator", "vendor", "provider", "model"))
