import math

import pandas as pd
import pytest

from app.models import costs, overview, scenarios
from app.models.tables import MISSING, has_no_literals, readable, text_gaps_as_dash


def options(**columns) -> pd.DataFrame:
    base = {
        "usd_per_1k_output_tokens": [0.001, 0.0001, 0.002],
        "usd_per_1k_total_tokens": [None, None, 0.0005],
        "input_tokens": [1000.0, None, 100.0],
        "output_tokens": [1000.0, None, 100.0],
        "ftl_ms": [300.0, None, 120.0],
        "ftl_basis": ["p95", "unknown", "p99 (upper bound for p95)"],
        "accelerator_name": ["MI300X", "H200", "H100"],
        "provider": ["azure", "aws", "gcp"],
        "instance_type": ["ND96isr", "p5en", "a3"],
        "pricing_model": ["on_demand", "spot", "on_demand"],
        "region": ["eastus", "us-east-1", "us-central1"],
        "model": ["llama"] * 3,
        "vendor": ["AMD", "NVIDIA", "NVIDIA"],
        "precision": ["bf16"] * 3,
        "scenario": ["server", "offline", "server"],
        "replicas_per_instance": [8, 8, 8],
        "instance_output_tok_s": [1000.0, 2000.0, 3000.0],
        "usd_per_hour": [10.0, 20.0, 30.0],
        "price_basis": ["instance"] * 3,
        "price_source": ["sheet"] * 3,
        "price_observed_at": pd.to_datetime(["2026-08-01", "2026-08-02", None]),
        "bench_source_title": ["run"] * 3,
        "bench_measured_at": pd.to_datetime(["2026-07-01"] * 3),
    }
    return pd.DataFrame(base | columns)


def test_output_cost_is_the_published_output_figure():
    frame = costs.with_cost(options(), "output")
    assert list(frame["cost"]) == [0.001, 0.0001, 0.002]


def test_total_cost_is_published_or_derived_from_the_token_mix_or_missing():
    frame = costs.with_cost(options(), "total")
    assert frame.loc[0, "cost"] == 0.0005  # half the tokens are output: half the price per token
    assert math.isnan(frame.loc[1, "cost"])  # no total throughput, no lengths: unpriced, kept
    assert frame.loc[2, "cost"] == 0.0005  # published total wins
    assert frame.loc[1, "cost_note"] == "no total throughput and no token lengths"
    assert "input:output lengths" in frame.loc[0, "cost_note"]


def test_the_cheapest_headline_skips_options_without_latency():
    frame = costs.with_cost(options(), "output")
    best = costs.cheapest(frame, "output", "p95")
    assert best.value == "$0.00100" and "MI300X" in best.help  # not the cheaper H200 (no FTL)


def test_no_known_latency_says_so_instead_of_headlining():
    frame = costs.with_cost(options(ftl_ms=[None, None, None]), "output")
    best = costs.cheapest(frame, "output", "p95")
    assert best.value == "none" and "None of the 3 priced options" in best.help
    assert costs.fastest(frame, "p95") is None


def test_the_option_table_puts_decisions_first_and_shows_no_literals():
    frame = costs.with_cost(options(), "output")
    table = costs.option_table(frame, "output", "p95")
    assert list(table.frame.columns[:6]) == [
        "$/1K output tokens",
        "FTL p95 (ms)",
        "Provider",
        "Instance",
        "Region",
        "Pricing model",
    ]
    assert list(table.frame["Accelerator"]) == ["H200", "MI300X", "H100"]  # cheapest first
    assert list(table.frame["FTL p95 (ms)"]) == [MISSING, "300 ms", "120 ms"]
    assert list(table.frame["Price date"]) == ["2026-08-02", "2026-08-01", MISSING]
    assert table.numbers["$/1K output tokens"] == "$%.6f"  # complete: stays numeric
    assert "FTL p95 (ms)" not in table.numbers  # has gaps: text with "—"
    assert has_no_literals(table.frame)


def test_readable_turns_flags_and_gaps_into_words():
    frame = pd.DataFrame({"a": [True, False, None], "b": ["x", None, " "], "n": [1.5, 2.0, 3.0]})
    table = readable(frame, {"a": "A", "b": "B", "n": "N"}, numbers={"n": "%.1f GiB"})
    assert list(table.frame["A"]) == ["yes", "no", MISSING]
    assert list(table.frame["B"]) == ["x", MISSING, MISSING]
    assert table.numbers == {"N": "%.1f GiB"} and table.frame["N"].dtype.kind == "f"
    assert has_no_literals(table.frame)
    assert not has_no_literals(pd.DataFrame({"x": ["None"]}))


def test_freshness_states_follow_each_kinds_limit():
    assert overview.freshness_state("prices", 91) == "🟠 stale (> 90 days)"
    assert overview.freshness_state("benchmarks", 91) == "🟢 fresh"
    assert overview.freshness_state("prices", None) == "🔴 no good snapshot"
    fresh = pd.DataFrame(
        {
            "kind": ["prices", "benchmarks"],
            "source": ["aws", "mlperf"],
            "data_as_of": pd.to_datetime(["2026-01-01", None]),
            "age_days": [300.0, None],
            "last_attempt": pd.to_datetime(["2026-11-01 10:00", None]),
            "last_status": ["ok", None],
            "last_error": [None, None],
        }
    )
    table, stale = overview.freshness_table(fresh)
    assert stale == 1
    assert list(table.frame["State"]) == ["🟠 stale (> 90 days)", "🔴 no good snapshot"]
    assert has_no_literals(table.frame)


def test_risk_lines_use_readable_names_and_units():
    from costmodel.risk import RiskFigure

    class Report:
        def figures(self):
            return (
                RiskFigure("spot_share", 0.0, "share of spend", "0% of spend is on spot capacity"),
                RiskFigure("software_maturity", 82.4, "score (0-100, spend-weighted)", "why"),
                RiskFigure("hhi_vendor", 10000.0, "HHI (0-10,000)", "one vendor"),
            )

    lines = scenarios.risk_lines(Report())
    assert lines[0].startswith("**Spend on spot capacity: 0% of spend** — ")
    assert lines[1].startswith("**Software maturity: 82/100**")
    assert lines[2].startswith("**Silicon-vendor concentration: HHI 10,000 of 10,000**")
    assert not any("_" in line.split("**")[1] for line in lines)


def test_raw_tables_show_gaps_as_dashes_in_their_formats():
    frame = pd.DataFrame(
        {
            "ttft": [1717.3, None],
            "tok_s": [10.0, 20.0],
            "zone": ["a", None],
            "expires": pd.to_datetime(["2026-01-02", None]),
        }
    )
    shown = text_gaps_as_dash(frame, dates=("expires",), numbers={"ttft": "%.0f ms"})
    assert list(shown["ttft"]) == ["1717 ms", MISSING]
    assert shown["tok_s"].dtype.kind == "f"  # complete numbers stay numbers
    assert list(shown["zone"]) == ["a", MISSING]
    assert list(shown["expires"]) == ["2026-01-02", MISSING]
    assert has_no_literals(shown)


def _frontier_options():
    from tests.factories import frame, sweep

    # $36/h at 1,000 / 4,000 / 8,000 tok/s = $0.01 / $0.0025 / $0.00125 per 1K output tokens,
    # at TPOT 20 / 50 / 100 ms = 50 / 20 / 10 tok/s per user.
    rows = sweep(
        usd_per_hour=36.0, points=((1, 1000.0, 100.0), (8, 4000.0, 300.0), (32, 8000.0, 900.0))
    )
    for row, tpot in zip(rows, (20.0, 50.0, 100.0), strict=True):
        row["tpot_ms_p95"] = tpot
    no_tpot = sweep(model="other", points=((1, 500.0, 100.0),))
    return frame(rows, no_tpot)


def test_the_frontier_model_reads_the_target_in_the_pages_unit():
    found = costs.interactivity_frontier(_frontier_options(), "p95", 30.0, "1m")
    assert (found.curves, found.known, found.excluded) == (1, 1, 1)
    table = found.at_target.frame
    # 30 tok/s/user: a third of the way from 20 ($2.50/1M) to 50 ($10/1M) = $5.00 per 1M.
    assert table.loc[0, "$/1M output tokens at 30 tok/s/user"] == pytest.approx(5.0)
    assert table.loc[0, "Measured tok/s/user (TPOT p95)"] == "10.0–50.0"
    assert list(found.points["cost"]) == pytest.approx([1.25, 2.5, 10.0])
    caption = costs.frontier_caption(found, "p95", 30.0)
    assert "1 of 1 curves" in caption and "1 options are left out" in caption
    assert has_no_literals(table)


def test_the_frontier_model_shows_a_dash_and_the_reason_beyond_the_measured_range():
    found = costs.interactivity_frontier(_frontier_options(), "p95", 80.0)
    table = found.at_target.frame
    assert table.loc[0, "$/1K output tokens at 80 tok/s/user"] == MISSING
    assert "faster than every measured point (the fastest is 50.0" in table.loc[0, "How"]


def test_the_option_table_hides_energy_columns_unless_asked():
    latencies = options(
        instance_total_tok_s=[None, None, 3300.0],
        ttft_ms_p50=[100.0, None, None],
        tpot_ms_p50=[10.0, None, None],
        tpot_ms_p95=[12.0, None, None],
    )
    frame = costs.with_details(costs.with_cost(latencies, "output"), "p95", energy=False)
    # $10/h, 1,000 output and 1,000 input tok/s, 100 ms to the first token then 999 × 10 ms:
    # 100 / 10,090 of the hour to input. Row 3 has no timing: the stated ratio splits it.
    assert frame.loc[0, "prefill_share"] == pytest.approx(100 / 10_090)
    assert frame.loc[0, "usd_per_1k_input_tokens"] == pytest.approx(10 * 100 / 10_090 / 3_600)
    assert frame.loc[2, "apportioning_rule"].startswith("stated ratio")
    table = costs.option_table(frame, "output", "p95")
    assert "$/1K input tokens (apportioned)" in table.frame.columns
    assert "J per output token" not in table.frame.columns
    assert "TPOT p95 (ms)" in table.frame.columns
    assert has_no_literals(table.frame)
