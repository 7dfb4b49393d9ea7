"""The warehouse as it stood on a day (``warehouse.as_of``): prices, snapshots, results and costs
"as of D", one day alone or many read together."""

from __future__ import annotations

from datetime import date, datetime, timedelta

import pandas as pd

from warehouse import Warehouse
from warehouse import as_of as wf
from warehouse.as_of import price_snapshots_as_of, prices_as_of


def test_prices_as_of_mirror_the_current_view_with_a_cutoff(seed_db):
    with Warehouse.open(seed_db, read_only=True) as warehouse:
        then = prices_as_of(warehouse, "2025-03-31")
        now = prices_as_of(warehouse, "2026-11-30")
        current = warehouse.query(
            "SELECT provider, region, snapshot_id FROM current_price_snapshots ORDER BY 1, 2, 3"
        )
        # Today: an undated source's snapshot is dated by when it was recorded (this build).
        # A region may have two current snapshots (the curated seed's and the market
        # catalog's, which completes it): compare in one order.
        as_of_now = price_snapshots_as_of(warehouse, datetime.now() + timedelta(days=1))[
            ["provider", "region", "snapshot_id"]
        ].sort_values(["provider", "region", "snapshot_id"])
    pd.testing.assert_frame_equal(current.reset_index(drop=True), as_of_now.reset_index(drop=True))

    def p5(f):
        return f[(f.instance_type == "p5.48xlarge") & (f.pricing_model == "on_demand")][
            "usd_per_hour"
        ].tolist()

    # Then: the pre-cut list price (the seed's us-east-1, the market catalog's three regions
    # and the Price List version published 2025-03-31); now: the post-cut list price only
    # (the Price List version published 2026-07-28).
    assert set(p5(then)) == {98.32} and p5(now) == [55.04]
    # Currency is per observation: every price known on the day was observed by then.
    # (An undated price counts from its snapshot's date.)
    dated = pd.to_datetime(then["observed_at"]).dropna()
    assert not dated.empty and (dated <= pd.Timestamp("2025-03-31 23:59:59")).all()
    undated = then[then["observed_at"].isna()]
    assert (pd.to_datetime(undated["snapshot_as_of"]) <= pd.Timestamp("2025-03-31 23:59:59")).all()


def test_many_days_read_together_are_each_day_read_alone(seed_db):
    """Every as-of read takes several days at once (the Futures page reads every day a review
    may start on together); each day's frames are what reading that day alone gives, a day
    before any data included, whatever other days come with it."""
    days = ["2020-01-01", "2025-03-31", date(2025, 9, 4), datetime(2026, 5, 18, 12), "2026-11-30"]
    reads = {
        "snapshots": (wf.price_snapshots_as_of, wf.price_snapshots_as_of_days),
        "prices": (wf.prices_as_of, wf.prices_as_of_days),
        "results": (wf.results_as_of, wf.results_as_of_days),
        "costs": (wf.costs_as_of, wf.costs_as_of_days),
    }
    with Warehouse.open(seed_db, read_only=True) as warehouse:
        for name, (one_day, many_days) in reads.items():
            together = many_days(warehouse, days)
            backwards = many_days(warehouse, days[::-1])[::-1]
            for day, frame, other in zip(days, together, backwards, strict=True):
                alone = one_day(warehouse, day)
                assert list(frame.columns) == list(alone.columns), name
                assert frame.astype(object).equals(alone.astype(object)), (name, day)
                assert frame.astype(object).equals(other.astype(object)), (name, day)
            sizes = [len(frame) for frame in together]
            assert sizes[0] == 0 and min(sizes[1:]) > 0 and len(set(sizes)) > 2, (name, sizes)
