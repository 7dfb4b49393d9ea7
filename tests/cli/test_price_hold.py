"""A price far outside its SKU's current price and every peer's is held, not made current: the
ingest names it, the integrity report carries it, ``--confirm-held`` makes it current and
``db retract`` takes the ingest back (the previous price is current again)."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from cli.main import app
from pricing.integrity import HOLD_FACTOR, RULE_HELD
from warehouse import Warehouse, catalog_queries

runner = CliRunner()
SKU = ("aws", "us-east-1", "p5.48xlarge", "on_demand")
HEADER = (
    "provider,region,instance_type,accelerator_id,accelerator_count,pricing_model,usd_per_hour,"
    "source,observed_at\n"
)


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "hold.duckdb"
    assert runner.invoke(app, ["db", "init", "--db", str(path)]).exit_code == 0
    return path


def _current(db) -> float:
    with Warehouse.open(db, read_only=True) as wh:
        (quote,) = [
            q
            for q in wh.current_price_quotes("aws")
            if (q.provider, q.region, q.instance_type, str(q.pricing_model)) == SKU
        ]
    return quote.usd_per_hour


def _file(tmp_path, usd: float):
    path = tmp_path / "sheet.csv"
    path.write_text(
        HEADER + f"aws,us-east-1,p5.48xlarge,nvidia-h100-sxm-80gb,8,on_demand,{usd:.4f},"
        "a typed sheet,2026-11-01\n",
        encoding="utf-8",
    )
    return path


def _ingest(db, path, *extra):
    out = runner.invoke(app, ["db", "ingest", "--db", str(db), str(path), *extra])
    assert out.exit_code == 0, out.output
    return out


@pytest.mark.parametrize("factor", [25.0, 1 / 50], ids=["25x", "1/50"])
def test_a_price_far_off_its_list_and_its_peers_is_held(db, tmp_path, factor):
    listed = _current(db)  # the bundled seed's current list price (data/seed_prices.csv)
    out = _ingest(db, _file(tmp_path, listed * factor))
    said = " ".join(out.output.split())
    assert "held 1 price(s)" in said and "--confirm-held" in said and "db retract" in said
    assert _current(db) == listed  # not current until confirmed
    with Warehouse.open(db, read_only=True) as wh:
        report = catalog_queries.current_integrity(wh)
    held = report[(report["rule"] == RULE_HELD) & (report["failed"] > 0)]
    assert len(held) == 1 and "p5.48xlarge" in held["detail"].iloc[0]


def test_a_confirmed_price_becomes_current_and_a_retracted_one_goes(db, tmp_path):
    listed = _current(db)
    path = _file(tmp_path, listed * 25)
    _ingest(db, path)
    out = _ingest(db, path, "--confirm-held")
    assert "held" not in out.output
    assert _current(db) == pytest.approx(listed * 25)
    snapshot = out.output.split("ingested as ")[1].split()[0].strip(",")
    retract = runner.invoke(
        app, ["db", "retract", snapshot, "--reason", "typo in the sheet", "--db", str(db)]
    )
    assert retract.exit_code == 0, retract.output
    assert "1 price(s)" in retract.output
    assert _current(db) == listed  # the previous price is current again


def test_an_ordinary_move_is_not_held(db, tmp_path):
    listed = _current(db)
    # Within the factor of the SKU's own price: a cut like AWS's 44% of June 2025.
    _ingest(db, _file(tmp_path, listed * (1 / HOLD_FACTOR + 0.1)))
    assert _current(db) == pytest.approx(listed * (1 / HOLD_FACTOR + 0.1), abs=1e-4)


def test_the_bundled_seed_and_a_refresh_are_not_retracted_by_hand(db):
    with Warehouse.open(db, read_only=True) as wh:
        seed = wh.snapshots()
    seed_id = seed[seed["kind"] == "prices"]["snapshot_id"].iloc[0]
    out = runner.invoke(app, ["db", "retract", seed_id, "--reason", "x", "--db", str(db)])
    assert out.exit_code == 2 and "only price files" in " ".join(out.output.split())
