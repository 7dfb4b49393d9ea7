"""The $/1K-token join, checked against figures computed by hand."""

from datetime import UTC, datetime

import pytest

from tests.factories import quote, result
from warehouse.queries import cost_options

T0 = datetime(2026, 8, 6, tzinfo=UTC)


def test_eight_gpu_instance_with_eight_gpu_result(empty_warehouse):
    empty_warehouse.ingest_prices("aws", [quote()])
    empty_warehouse.ingest_results("mlperf", [result()])
    [row] = cost_options(empty_warehouse).to_dict("records")
    # 63.296 $/h / (34,029.38 tok/s x 3.6) = $0.0005167 per 1K output tokens
    assert row["replicas_per_instance"] == 1
    assert row["usd_per_1k_output_tokens"] == pytest.approx(63.296 / (34029.38 * 3.6))
    assert round(row["usd_per_1k_output_tokens"], 7) == 0.0005167
    assert row["usd_per_accelerator_hour"] == pytest.approx(7.912)
    assert row["price_source"] == "test" and row["bench_source_tool"] == "mlperf"


def test_one_gpu_result_on_eight_gpu_instance_has_eight_replicas(empty_warehouse):
    empty_warehouse.ingest_prices("aws", [quote()])
    empty_warehouse.ingest_results(
        "bench", [result(accelerators_per_replica=1, output_tok_s=1000.0, total_tok_s=3000.0)]
    )
    [row] = cost_options(empty_warehouse).to_dict("records")
    assert row["replicas_per_instance"] == 8
    assert row["instance_output_tok_s"] == pytest.approx(8000.0)
    assert row["instance_total_tok_s"] == pytest.approx(24000.0)
    assert row["usd_per_1k_output_tokens"] == pytest.approx(63.296 / (8000 * 3.6))
    assert row["usd_per_1k_total_tokens"] == pytest.approx(63.296 / (24000 * 3.6))


def test_instance_too_small_for_a_replica_gets_no_row(empty_warehouse):
    empty_warehouse.ingest_prices(
        "aws", [quote(instance_type="p5en.2gpu", accelerator_count=2, usd_per_hour=16.0)]
    )
    empty_warehouse.ingest_results("mlperf", [result(accelerators_per_replica=8)])
    assert cost_options(empty_warehouse).empty


def test_other_accelerators_do_not_join(empty_warehouse):
    empty_warehouse.ingest_prices("aws", [quote()])
    empty_warehouse.ingest_results("mlperf", [result(accelerator_id="amd-mi300x-192gb")])
    assert cost_options(empty_warehouse).empty


def test_per_accelerator_quote_is_billed_for_one_replica(empty_warehouse):
    per_gpu = quote(
        provider="crusoe",
        region="global",
        instance_type="MI300X (per GPU)",
        accelerator_id="amd-mi300x-192gb",
        accelerator_count=1,
        usd_per_hour=3.45,
        price_basis="per_accelerator",
    )
    empty_warehouse.ingest_prices("crusoe", [per_gpu])
    empty_warehouse.ingest_results(
        "mlperf", [result(accelerator_id="amd-mi300x-192gb", output_tok_s=24593.77)]
    )
    [row] = cost_options(empty_warehouse).to_dict("records")
    assert row["usd_per_hour"] == pytest.approx(3.45 * 8)
    assert row["accelerator_count"] == 8 and row["replicas_per_instance"] == 1
    assert row["usd_per_1k_output_tokens"] == pytest.approx(27.6 / (24593.77 * 3.6))


def test_filters_are_parameters_not_sql(empty_warehouse):
    empty_warehouse.ingest_prices("aws", [quote()])
    empty_warehouse.ingest_results("mlperf", [result()])
    assert cost_options(empty_warehouse, provider="aws' OR '1'='1").empty
    assert len(cost_options(empty_warehouse, provider=["aws", "gcp"])) == 1
    with pytest.raises(ValueError, match="unknown filter"):
        cost_options(empty_warehouse, colour="red")
    with pytest.raises(ValueError, match="unknown sort"):
        cost_options(empty_warehouse, sort="usd_per_hour; DROP TABLE snapshots")


def test_seed_reproduces_the_published_h200_example(seeded):
    frame = cost_options(
        seeded, accelerator="nvidia-h200-141gb", provider="aws", pricing_model="on_demand"
    )
    row = frame[
        (frame.instance_type == "p5en.48xlarge") & (frame.instance_output_tok_s == 34029.38)
    ].iloc[0]
    assert row.usd_per_hour == 63.296
    assert round(row.usd_per_1k_output_tokens, 7) == 0.0005167
    # Both percentiles as LoadGen printed them in the run's mlperf_log_summary.txt.
    assert row.ttft_ms_p99 == 1717.3 and row.ttft_ms_p95 == 1227.3
    assert "dstack" in row.price_source and row.price_observed_at.year == 2026
    assert "MLPerf Inference v5.1" in row.bench_source_title


def test_ftl_rules_in_sql_match_the_pandas_rule(seeded):
    from tokendesk.metrics import ftl_with_basis

    frame = cost_options(seeded, ftl_percentile="p95")
    ftl, basis = ftl_with_basis(frame, "p95")
    assert (
        frame["ftl_ms"].equals(ftl.rename("ftl_ms"))
        or (frame["ftl_ms"].fillna(-1) == ftl.fillna(-1)).all()
    )
    assert (frame["ftl_basis"].astype(str) == basis.astype(str)).all()
    assert {"p95", "unknown"} <= set(frame["ftl_basis"].astype(str))


def test_best_per_vendor_meeting_an_slo(seeded):
    best = cost_options(seeded, ftl_percentile="p95", max_ftl_ms=500, best_per="vendor")
    everything = cost_options(seeded, ftl_percentile="p95")
    meeting = everything[everything["ftl_ms"] <= 500]
    assert len(best) == meeting["vendor"].nunique()
    for row in best.itertuples():
        assert (
            row.usd_per_1k_output_tokens
            == meeting[meeting["vendor"] == row.vendor]["usd_per_1k_output_tokens"].min()
        )
        assert row.ftl_ms <= 500


def test_pareto_frontier_in_sql(seeded):
    frontier = cost_options(
        seeded, ftl_percentile="p99", max_ftl_ms=float("inf"), frontier_only=True
    )
    every = cost_options(seeded, ftl_percentile="p99", max_ftl_ms=float("inf")).sort_values(
        ["usd_per_1k_output_tokens", "option_id"]
    )
    expected = every[every["ftl_ms"] < every["ftl_ms"].cummin().shift(fill_value=float("inf"))]
    assert sorted(frontier["option_id"]) == sorted(expected["option_id"])
    assert (
        frontier["ftl_ms"].is_monotonic_decreasing
        and frontier["usd_per_1k_output_tokens"].is_monotonic_increasing
    )


def test_count_matches_rows(seeded):
    from warehouse.queries import count_options

    assert count_options(seeded) == len(cost_options(seeded))
    assert count_options(seeded, vendor="AMD") == len(cost_options(seeded, vendor="AMD"))


def test_an_expired_negotiated_quote_is_not_an_option(empty_warehouse):
    from datetime import date

    from warehouse.queries import count_options

    live = quote(
        provider="acme",
        pricing_model="negotiated",
        quote_id="Q-1",
        usd_per_hour=40.0,
        expires_on=date(2099, 1, 1),
    )
    lapsed = quote(
        provider="acme",
        instance_type="x8-old",
        pricing_model="negotiated",
        quote_id="Q-0",
        usd_per_hour=30.0,
        expires_on=date(2020, 1, 1),
    )
    empty_warehouse.ingest_prices("sheet:acme:negotiated", [live, lapsed], origin="sheet")
    empty_warehouse.ingest_results("mlperf", [result()])
    assert list(cost_options(empty_warehouse)["quote_id"]) == ["Q-1"]
    assert count_options(empty_warehouse) == 1
    both = cost_options(empty_warehouse, include_expired=True)
    assert dict(zip(both["quote_id"], both["quote_expired"], strict=True)) == {
        "Q-1": False,
        "Q-0": True,
    }


def test_measured_power_travels_from_the_result_to_the_energy_per_token(empty_warehouse):
    from costmodel.energy import BASIS_MEASURED, bundled_energy_columns

    empty_warehouse.ingest_prices("aws", [quote()])
    empty_warehouse.ingest_results(
        "bench",
        [
            result(output_tok_s=2000.0, concurrency=8, measured_power_w=4000.0),
            result(output_tok_s=1000.0, concurrency=1),
        ],
    )
    rows = cost_options(empty_warehouse, sort="instance_output_tok_s")
    assert list(rows["measured_power_w"].fillna(-1)) == [-1, 4000.0]
    energy = bundled_energy_columns(rows)
    # Measured: 4,000 W over 2,000 tok/s = 2 J per output token.
    assert energy.loc[1, "energy_basis"] == BASIS_MEASURED
    assert energy.loc[1, "joules_per_output_token"] == pytest.approx(2.0)
    # Not measured: 8 × 700 W (H200 TDP) over 1,000 tok/s = 5.6 J, an estimate.
    assert energy.loc[0, "energy_basis"].startswith("estimate")
    assert energy.loc[0, "joules_per_output_token"] == pytest.approx(5.6)
    # aws us-east-1 is in the bundled grid table: gCO2e = kWh × its intensity.
    assert energy.loc[1, "g_co2e_per_1m_output_tokens"] == pytest.approx(
        2.0 / 3.6 * energy.loc[1, "grid_g_co2e_per_kwh"]
    )
