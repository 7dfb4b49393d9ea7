"""The shipped seed data itself: every row sourced, dated (or saying how its date is known), in
the catalog, physically possible, and loadable. Page and model tests do not rely on these figures;
this module is the one place that checks them."""

from __future__ import annotations

import csv
import re
from datetime import date
from pathlib import Path

import pytest

from costmodel.demand import HOURS_PER_MONTH
from planning.evaluation import compare
from planning.workspaces import engine_for, example_workspace
from pricing.integrity import check_snapshot
from tokendesk.catalog import check_in_catalog, load_catalog
from tokendesk.paths import data_dir
from warehouse.bundled import SEED_PRICES, SEED_RESULTS
from warehouse.seed import read_price_file, read_result_file


def _rows(name: str) -> list[dict[str, str]]:
    with (data_dir() / name).open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


PRICE_ROWS = _rows(SEED_PRICES)
RESULT_ROWS = _rows(SEED_RESULTS)


def test_the_seed_files_are_not_empty() -> None:
    assert len(PRICE_ROWS) >= 10 and len(RESULT_ROWS) >= 10


@pytest.mark.parametrize("name", [SEED_PRICES, SEED_RESULTS])
def test_every_row_names_its_source_with_a_link(name: str) -> None:
    title = "source" if name == SEED_PRICES else "source_title"
    bad = [
        n
        for n, row in enumerate(_rows(name), start=2)
        if not row[title].strip() or not row["source_url"].startswith("https://")
    ]
    assert not bad, f"{name}: rows without a source and an https link: {bad}"


@pytest.mark.parametrize("name", [SEED_PRICES, SEED_RESULTS])
def test_every_row_is_dated_and_says_how_the_date_is_known(name: str) -> None:
    # source_date_text carries the date as the source states it, or why it is inferred/unknown.
    bad = [
        n
        for n, row in enumerate(_rows(name), start=2)
        if not row["source_date_text"].strip() or not row["confidence"].strip()
    ]
    assert not bad, f"{name}: rows without a date note or a confidence: {bad}"


@pytest.mark.parametrize("name", [SEED_PRICES, SEED_RESULTS])
def test_no_row_is_dated_in_the_future(name: str) -> None:
    column = "observed_at" if name == SEED_PRICES else "measured_at"
    future = [
        (n, row[column])
        for n, row in enumerate(_rows(name), start=2)
        # An empty date is an undated source ("date unknown"), never a future one.
        if row[column] and date.fromisoformat(row[column][:10]) > date.today()
    ]
    assert not future, f"{name}: rows dated after today: {future}"


def test_every_row_loads_and_every_accelerator_is_in_the_catalog() -> None:
    folder: Path = data_dir()
    quotes = [quote for _, quote in read_price_file(folder / SEED_PRICES)]
    results = read_result_file(folder / SEED_RESULTS)
    for row in (*quotes, *results):
        check_in_catalog(row)
    assert {q.accelerator_id for q in quotes} <= set(load_catalog())


def test_throughput_is_within_what_the_hardware_allows() -> None:
    # A single replica cannot produce more output tokens per second than its accelerators' peak
    # BF16 FLOP rate allows for even a 1B-parameter model (2 FLOP per parameter per token).
    catalog = load_catalog()
    for result in read_result_file(data_dir() / SEED_RESULTS):
        peak = catalog[result.accelerator_id].peak_dense_bf16_tflops
        if peak is None:
            continue
        ceiling = peak * 1e12 * result.accelerators_per_replica * 4 / (2 * 1e9)  # fp8/int4: x4
        assert result.output_tok_s <= ceiling, result


def test_the_current_price_snapshot_passes_the_integrity_checks_it_can_fail() -> None:
    quotes = [q for name, q in read_price_file(data_dir() / SEED_PRICES) if name != "historical"]
    report = check_snapshot(quotes, ())
    assert report.quarantine == {}, report.quarantine


def test_the_example_workspace_is_priced_at_the_seeds_current_list_prices(seeded) -> None:
    # The first start shows the bundled example's Stay: each fleet line without a rate of its own
    # must find a current list price in the seed (else the comparison cannot be drawn), and Stay
    # charges that price: count x rate x 730 h per line.
    current = [q for name, q in read_price_file(data_dir() / SEED_PRICES) if name == "current"]
    stay = compare(engine_for(seeded), example_workspace())[0]
    listed = [line for line in example_workspace().fleet if line.usd_per_hour is None]
    assert listed, "the example has no list-priced line to check"
    for line in listed:
        prices = [
            q.usd_per_hour
            for q in current
            if (q.provider, q.region, q.instance_type, q.pricing_model)
            == (line.provider, line.region, line.instance_type, line.pricing_model)
        ]
        assert prices, f"no current seed price for {line.instance_type} {line.pricing_model}"
        charged = [
            ln.usd_per_hour
            for ln in stay.fleet
            if (ln.instance_type, ln.pricing_model) == (line.instance_type, line.pricing_model)
        ]
        assert charged == [min(prices)], line
    fleet = sum(ln.count * ln.usd_per_hour * HOURS_PER_MONTH for ln in stay.fleet)
    assert round(stay.monthly_usd, 2) == round(fleet, 2)


def test_the_p5_price_cut_is_kept_as_history_beside_the_current_price() -> None:
    # AWS p5.48xlarge on-demand in us-east-1: the pre-cut catalog price (undated, historical)
    # and the post-cut list price dated by its Price List version (published 2026-07-28).
    p5 = {
        (name, quote.observed_at.date() if quote.observed_at else None): quote.usd_per_hour
        for name, quote in read_price_file(data_dir() / SEED_PRICES)
        if (quote.provider, quote.region, quote.instance_type, quote.pricing_model)
        == ("aws", "us-east-1", "p5.48xlarge", "on_demand")
    }
    assert p5 == {("historical", None): 98.32, ("current", date(2026, 7, 28)): 55.04}


_ESTIMATE = re.compile(r"ESTIMATE (?P<base>[\d.]+)\*(?P<factor>[\d.]+)=(?P<value>[\d.]+)")


def test_a_price_no_source_states_is_an_estimate_whose_arithmetic_gives_the_price() -> None:
    # A figure that was recalled, or read from a page no one retrieved, is not a price: the row
    # says ESTIMATE, shows the arithmetic from the figures its source does state, is low
    # confidence, and the arithmetic gives the row's price.
    for _, quote in read_price_file(data_dir() / SEED_PRICES):
        text = f"{quote.source} {quote.notes}".lower()
        match = _ESTIMATE.search(quote.notes)
        if "recalled" in text or "not directly retrieved" in text:
            assert match, (quote.instance_type, quote.notes)
        if not match:
            continue
        assert quote.source.startswith("Derived:"), quote.source
        assert quote.confidence.startswith("low"), quote.confidence
        base, factor = float(match["base"]), float(match["factor"])
        assert float(match["value"]) == quote.usd_per_hour == round(base * factor, 2)


def test_an_estimate_the_provider_lists_gives_way_to_the_list_price() -> None:
    # The seed once estimated the post-cut p5 and p4d prices (98.32 x 0.56 and 32.7726 x 0.67)
    # from announced cuts. AWS's own Price List states them (version 20260728175247, the
    # p5.48xlarge and p4d.24xlarge rows of data/sources/aws_price_list/): the list price is
    # current and the curation log names each estimate it replaced.
    current = {
        quote.instance_type: quote
        for name, quote in read_price_file(data_dir() / SEED_PRICES)
        if name == "current"
        and (quote.provider, quote.region, quote.pricing_model) == ("aws", "us-east-1", "on_demand")
    }
    for instance_type, listed in (("p5.48xlarge", 55.04), ("p4d.24xlarge", 21.957642)):
        assert current[instance_type].usd_per_hour == listed
        assert current[instance_type].source.startswith("AWS Price List")
        assert "ESTIMATE" not in current[instance_type].notes
    log = (data_dir() / "seed_curation.md").read_text(encoding="utf-8")
    assert "(aws p5.48xlarge us-east-1 on_demand, $55.06): an estimate replaced by" in log
    assert "(aws p4d.24xlarge us-east-1 on_demand, $21.96): an estimate replaced by" in log


def test_the_mlperf_h200_server_point_keeps_loadgen_s_percentiles() -> None:
    # The first-token latencies as LoadGen printed them in the run's mlperf_log_summary.txt.
    [h200] = [
        r
        for r in read_result_file(data_dir() / SEED_RESULTS)
        if r.accelerator_id == "nvidia-h200-141gb"
        and r.runtime == "trt-llm"
        and r.scenario == "server"
        and r.output_tok_s == 34029.38
    ]
    assert (h200.ttft_ms_p95, h200.ttft_ms_p99) == (1227.3, 1717.3)
    assert h200.accelerators_per_replica == 8 and h200.precision == "fp8"
    assert h200.measured_at.date() == date(2025, 9, 9)


def test_a_llama_bench_generation_test_is_a_single_stream_as_the_importer_files_it() -> None:
    # llama-bench's tgN generates N tokens for one stream from an empty prompt. Filed as an
    # offline run at an unstated batch it was read as batched throughput: the model put it at
    # about 22 times what a single stream of that part does.
    tg_rows = [
        r for r in read_result_file(data_dir() / SEED_RESULTS) if r.workload.startswith("tg")
    ]
    assert tg_rows, "the seed holds a llama-bench generation test"
    for result in tg_rows:
        assert result.runtime == "llama.cpp"
        assert result.concurrency == 1
        assert result.output_tokens == int(result.workload.removeprefix("tg"))
