""" "Current" is the latest good observation of each priced item: a snapshot supersedes exactly
the items it lists, and a row dated in the future cannot keep its price current."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from cli.main import main
from tests.factories import quote
from tokendesk.records import PriceQuote


def _current_aws(warehouse) -> dict[tuple[str, str, str], float]:
    return {
        (q.region, q.instance_type, str(q.pricing_model)): q.usd_per_hour
        for q in warehouse.current_price_quotes("aws")
    }


def test_a_one_row_file_does_not_hide_the_providers_other_prices(seeded, tmp_path, capsys):
    before = _current_aws(seeded)
    assert len(before) >= 20 and len({region for region, _, _ in before}) >= 3
    path = seeded.path
    seeded.close()
    one_row = tmp_path / "one_row.csv"
    one_row.write_text(
        "provider,region,instance_type,accelerator_id,accelerator_count,pricing_model,"
        "usd_per_hour,source,observed_at\n"
        "aws,us-east-1,p5.48xlarge,nvidia-h100-sxm-80gb,8,on_demand,50.0,my sheet,2026-11-20\n",
        encoding="utf-8",
    )
    try:
        main(["db", "ingest", "--db", path, str(one_row)])
    except SystemExit as done:
        assert done.code in (0, None), capsys.readouterr().err
    from warehouse import Warehouse

    with Warehouse.open(path, read_only=True) as warehouse:
        after = _current_aws(warehouse)
    changed = {key for key in after if after[key] != before.get(key)}
    assert changed == {("us-east-1", "p5.48xlarge", "on_demand")}
    assert after[("us-east-1", "p5.48xlarge", "on_demand")] == 50.0
    assert set(after) == set(before)  # all 26 still current, one of them newer


def test_a_future_dated_row_cannot_freeze_current(empty_warehouse):
    wh = empty_warehouse
    # A row dated years ahead (validation refuses it, so it is built unvalidated as a
    # buggy importer might) must not stay current once a later refresh observes the item.
    future = PriceQuote.model_construct(
        **{**quote().model_dump(), "observed_at": datetime(2099, 1, 1, tzinfo=UTC)},
    )
    wh.ingest_prices("aws", [future, quote(region="us-west-2", usd_per_hour=70.0)])
    assert {q.usd_per_hour for q in wh.current_price_quotes("aws")} == {63.296, 70.0}
    later = quote(usd_per_hour=60.0, observed_at=datetime.now(UTC))
    wh.ingest_prices("aws", [later])
    current = {q.region: q.usd_per_hour for q in wh.current_price_quotes("aws")}
    assert current == {"us-east-1": 60.0, "us-west-2": 70.0}


def test_a_row_within_clock_skew_is_superseded_by_the_next_refresh(empty_warehouse):
    wh = empty_warehouse
    ahead = datetime.now(UTC) + timedelta(hours=20)  # accepted: within the one-day skew
    wh.ingest_prices("aws", [quote(observed_at=ahead)])
    wh.ingest_prices("aws", [quote(usd_per_hour=61.0, observed_at=datetime.now(UTC))])
    assert [q.usd_per_hour for q in wh.current_price_quotes("aws")] == [61.0]


def test_a_newer_snapshot_keeps_items_it_does_not_list(empty_warehouse):
    wh = empty_warehouse
    wh.ingest_prices(
        "aws",
        [quote(), quote(instance_type="p5.48xlarge", accelerator_id="nvidia-h100-sxm-80gb")],
        as_of=datetime(2026, 1, 1),
    )
    wh.ingest_prices("aws", [quote(usd_per_hour=62.0, observed_at=datetime.now(UTC))])
    current = {q.instance_type: q.usd_per_hour for q in wh.current_price_quotes("aws")}
    assert current == {"p5en.48xlarge": 62.0, "p5.48xlarge": 63.296}


def test_a_quarantined_newer_row_leaves_the_last_good_price_current(empty_warehouse):
    wh = empty_warehouse
    wh.ingest_prices("aws", [quote()])
    wh.ingest_prices(
        "aws",
        [quote(usd_per_hour=6.0, observed_at=datetime.now(UTC))],
        quarantine={0: "moved more than 50%"},
    )
    assert [q.usd_per_hour for q in wh.current_price_quotes("aws")] == [63.296]
