"""The listing commands a person or a script reads the market with: ``prices list``,
``bench results`` and ``db info --format json|csv``."""

import csv
import io
import json

import pytest
from typer.testing import CliRunner

from cli.main import app
from costmodel.bundled_tables import resolve_architecture
from pricing.integrity import check_price_file
from warehouse import Warehouse

runner = CliRunner()

#: What the market issue's bars read from each row of each listing.
PRICE_KEYS = {
    "provider",
    "region",
    "instance_type",
    "accelerator_id",
    "accelerator_count",
    "pricing_model",
    "usd_per_hour",
    "price_basis",
    "observed_at",
    "source",
    "source_url",
}
RESULT_KEYS = {
    "tool",
    "round_or_version",
    "model",
    "accelerator_id",
    "accelerators_per_replica",
    "precision",
    "runtime",
    "scenario",
    "concurrency",
    "request_rate_rps",
    "output_tok_s",
    "ttft_ms_p50",
    "ttft_ms_p99",
    "tpot_ms_p50",
    "tpot_ms_p99",
    "input_tokens_mean",
    "output_tokens_mean",
    "measured_at",
    "source",
}


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    path = tmp_path_factory.mktemp("listing") / "listing.duckdb"
    assert runner.invoke(app, ["db", "init", "--db", str(path)]).exit_code == 0
    return path


def _json(args: list[str]) -> list[dict]:
    out = runner.invoke(app, args)
    assert out.exit_code == 0, out.output
    return json.loads(out.stdout)


def test_prices_list_json_is_every_current_quote_with_its_source(db):
    rows = _json(["prices", "list", "--db", str(db), "--format", "json"])
    with Warehouse.open(db, read_only=True, seed_check=check_price_file) as warehouse:
        stored = warehouse.current_price_quotes()
    assert len(rows) == len(stored) > 0
    assert all(set(row) >= PRICE_KEYS for row in rows)
    listed = {
        (r["provider"], r["region"], r["zone"], r["instance_type"], r["pricing_model"])
        for r in rows
    }
    assert listed == {
        (q.provider, q.region, q.zone, q.instance_type, str(q.pricing_model)) for q in stored
    }
    by_item = {
        (r["provider"], r["region"], r["zone"], r["instance_type"], r["pricing_model"]): r
        for r in rows
    }
    for quote in stored:
        key = (quote.provider, quote.region, quote.zone, quote.instance_type)
        row = by_item[(*key, str(quote.pricing_model))]
        assert row["usd_per_hour"] == pytest.approx(quote.usd_per_hour, rel=1e-12)
        assert row["source"] == quote.source
        # A quote whose source states no date is listed with none, never with a made-up one.
        assert (row["observed_at"] is None) == (quote.observed_at is None)


def test_prices_list_filters_by_provider_and_pricing_model(db):
    everything = _json(["prices", "list", "--db", str(db), "--format", "json"])
    rows = _json(
        ["prices", "list", "--db", str(db), "--format", "json", "--provider", "aws"]
        + ["--pricing-model", "on_demand"]
    )
    expected = [
        r for r in everything if r["provider"] == "aws" and r["pricing_model"] == "on_demand"
    ]
    assert rows == expected and rows


def test_prices_list_refuses_an_unknown_pricing_model_in_words(db):
    out = runner.invoke(app, ["prices", "list", "--db", str(db), "--pricing-model", "cheap"])
    assert out.exit_code == 2
    assert "'cheap' is not a pricing model" in out.output
    assert "Traceback" not in out.output


def test_prices_list_csv_and_table_carry_the_same_quotes(db):
    rows = _json(["prices", "list", "--db", str(db), "--format", "json", "--provider", "aws"])
    out = runner.invoke(app, ["prices", "list", "--db", str(db), "--format", "csv", "-p", "aws"])
    assert [r["instance_type"] for r in csv.DictReader(io.StringIO(out.stdout))] == [
        r["instance_type"] for r in rows
    ]
    table = runner.invoke(app, ["prices", "list", "--db", str(db), "-p", "aws"]).stdout
    assert f"{len(rows):,} current price quotes" in table
    # Piped, every instance type stays whole on its line.
    assert all(r["instance_type"] in table for r in rows)


def test_bench_results_json_lists_every_result_with_shape_and_source(db):
    rows = _json(["bench", "results", "--db", str(db), "--format", "json"])
    with Warehouse.open(db, read_only=True, seed_check=check_price_file) as warehouse:
        stored = warehouse.query("SELECT count(*) AS n FROM current_results")["n"].iloc[0]
    assert len(rows) == stored > 0
    assert all(set(row) >= RESULT_KEYS for row in rows)
    mlperf = [r for r in rows if r["tool"] == "mlperf"]
    # The round is read from each result's own source (its results repository's name).
    assert mlperf and all(
        f"inference_results_{r['round_or_version']}" in r["source_url"]
        or f"MLPerf Inference {r['round_or_version']}" in r["source"]
        for r in mlperf
    )


def test_bench_results_model_filter_matches_every_spelling_of_the_model(db):
    everything = _json(["bench", "results", "--db", str(db), "--format", "json"])
    rows = _json(
        ["bench", "results", "--db", str(db), "--format", "json", "--model", "llama3.1-8b"]
    )
    expected = [
        r
        for r in everything
        if (arch := resolve_architecture(r["model"])) and arch.model_id == "llama-3.1-8b"
    ]
    assert rows == expected and rows
    # The MLPerf spelling finds results stored under another spelling of the same model.
    assert {r["model"] for r in rows} - {"llama3.1-8b"}


def test_bench_results_accelerator_filter(db):
    rows = _json(
        ["bench", "results", "--db", str(db), "--format", "json"]
        + ["--accelerator", "amd-mi300x-192gb"]
    )
    assert rows and {r["accelerator_id"] for r in rows} == {"amd-mi300x-192gb"}


def test_bench_results_says_so_when_nothing_matches(db):
    out = runner.invoke(app, ["bench", "results", "--db", str(db), "--model", "no-such-model"])
    assert out.exit_code == 0
    assert "No stored result matches" in out.stdout


def test_db_info_json_gives_each_snapshot_its_data_date_or_none(db):
    rows = _json(["db", "info", "--db", str(db), "--format", "json"])
    with Warehouse.open(db, read_only=True, seed_check=check_price_file) as warehouse:
        snapshots = warehouse.snapshots()
    assert [r["snapshot_id"] for r in rows] == list(snapshots["snapshot_id"])
    for row, known, as_of in zip(rows, snapshots["date_known"], snapshots["as_of"], strict=True):
        assert row["data_as_of"] == (f"{as_of:%Y-%m-%d}" if known else None)
    # The seed has dated and undated snapshots: both kinds are shown as they are.
    assert {r["data_as_of"] is None for r in rows} == {True, False}
    assert {"prices", "benchmarks"} <= {r["kind"] for r in rows}
