"""The Prices page's model on small hand-built frames: statuses, tables, headline figures, the
per-tab SKU choices and labels, the price in force over time, the integrity report and what a
refresh says."""

from datetime import UTC, date, datetime

import pandas as pd
import pytest

from app import charts
from app.models import prices as model
from pricing.provider import ProgressEvent
from pricing.refresh import RefreshReport, SnapshotOutcome
from pricing.registry import PROVIDERS
from tests.factories import quote
from tokendesk.records import SnapshotStatus


def quotes(*rows: dict) -> pd.DataFrame:
    """Explorer rows (the warehouse's price_explorer columns this model reads) with defaults."""
    base = {
        "provider": "aws",
        "region": "us-east-1",
        "zone": None,
        "instance_type": "p5.48xlarge",
        "accelerator_id": "nvidia-h100-sxm-80gb",
        "accelerator_name": "NVIDIA H100 SXM 80GB",
        "vendor": "NVIDIA",
        "accelerator_count": 8,
        "pricing_model": "on_demand",
        "price_basis": "instance",
        "usd_per_hour": 80.0,
        "usd_per_accelerator_hour": 10.0,
        "source": "sheet",
        "source_url": "https://example.org/prices",
        "observed_at": pd.Timestamp("2026-08-01"),
        "confidence": "high",
        "quote_id": None,
        "expires_on": None,
        "quote_expired": False,
        "quarantine_reason": None,
        "review_flag": None,
        "snapshot_id": "prices-aws-1",
    }
    return pd.DataFrame([base | row for row in rows])


# -- explorer ---------------------------------------------------------------------------------
def test_each_quote_reads_current_or_every_label_that_applies():
    prices = quotes(
        {},
        {"quarantine_reason": "spot above on-demand"},
        {"review_flag": "moved 60%"},
        {"quote_expired": True, "review_flag": "expired on 2026-02-01"},
        {"quarantine_reason": "spot above on-demand", "quote_expired": True},
        {"quote_expired": None, "review_flag": ""},
    )
    assert list(model.status(prices)) == [
        "current",
        "quarantined",
        "review",
        "expired",  # an expired quote is not also "review"
        "quarantined · expired",
        "current",
    ]
    assert list(model.flag_detail(prices)) == [
        "",
        "spot above on-demand",
        "moved 60%",
        "expired on 2026-02-01",
        "spot above on-demand",
        "",
    ]


def test_flag_detail_joins_a_quarantine_reason_and_a_review_flag():
    prices = quotes({"quarantine_reason": "below anchor", "review_flag": "moved 60%"})
    assert list(model.flag_detail(prices)) == ["below anchor; moved 60%"]


def test_the_headline_reads_the_explorer_summary_and_dates_the_newest():
    summary = {
        "quotes": 1_000_240,
        "current": 1_000_000,
        "providers": 2,
        "regions": 3,
        "flagged": 1_240,
        "newest": {
            "provider": "aws",
            "instance_type": "p5.48xlarge",
            "pricing_model": "on_demand",
            "source": "api",
            "observed_at": pd.Timestamp("2026-08-15"),
        },
    }
    figures = {f.label: f for f in model.explorer_headline(summary)}
    assert figures["Current quotes"].value == "1,000,000"
    assert figures["Providers · regions"].value == "2 · 3"
    assert figures["Flagged"].value == "1,240"
    assert figures["Newest price date"].value == "2026-08-15"
    assert figures["Newest price date"].help == "aws · p5\\.48xlarge · On demand: api"


def test_no_dated_quote_leaves_out_the_newest_date():
    summary = {"quotes": 1, "current": 1, "providers": 1, "regions": 1, "flagged": 0}
    assert [f.label for f in model.explorer_headline(summary | {"newest": None})] == [
        "Current quotes",
        "Providers · regions",
        "Flagged",
    ]


def test_the_explorer_says_how_many_quotes_it_leaves_out():
    assert model.explorer_shown(3, 3) is None
    assert model.explorer_shown(500, 1_000_240) == (
        "Showing 500 of 1,000,240 quotes (in provider, region and instance order) — narrow with"
        " the filters."
    )


def test_the_explorer_table_shows_a_zone_column_only_when_a_quote_has_one():
    regional = model.explorer_table(model.with_status(quotes({}, {})))
    assert "zone" not in regional.columns
    # Who sells it, what it is and its price first: what a 1280 px window shows.
    assert list(regional.columns[:6]) == [
        "provider",
        "region",
        "instance_type",
        "pricing_model",
        "usd_per_hour",
        "usd_per_accelerator_hour",
    ]
    zonal = model.explorer_table(model.with_status(quotes({}, {"zone": "us-east-1a"})))
    assert list(zonal.columns) == list(model.EXPLORER_COLUMNS)


# -- by region --------------------------------------------------------------------------------
def spread(*rows: tuple[str, str, int]) -> pd.DataFrame:
    """SKUs (instance type, pricing model, regions) as ``catalog_queries.price_sku_spread`` returns them."""
    return pd.DataFrame(rows, columns=["instance_type", "pricing_model", "regions"])


def test_the_region_tab_starts_on_the_sku_sold_in_the_most_regions():
    assert tuple(
        model.widest_sku(spread(("a3", "on_demand", 2), ("p5.48xlarge", "on_demand", 1)))
    ) == (
        "a3",
        "on_demand",
    )


def test_a_tie_in_regions_goes_to_the_preferred_sku_then_by_instance_name():
    current = spread(
        ("a3", "on_demand", 1), ("p5.48xlarge", "on_demand", 1), ("p5.48xlarge", "spot", 1)
    )
    assert tuple(model.widest_sku(current)) == ("p5.48xlarge", "on_demand")
    assert tuple(model.widest_sku(current[current["pricing_model"] == "spot"])) == (
        "p5.48xlarge",
        "spot",
    )
    others = spread(("b", "on_demand", 1), ("a", "on_demand", 1))
    assert tuple(model.widest_sku(others)) == ("a", "on_demand")


def test_options_are_the_sorted_values_among_the_matching_rows():
    current = quotes(
        {"instance_type": "a3", "pricing_model": "spot"},
        {"instance_type": "a3", "pricing_model": "on_demand"},
        {"instance_type": "p5", "pricing_model": "reserved_1y"},
        {"instance_type": "a3", "pricing_model": "spot", "region": "r9"},
    )
    assert model.options(current, "instance_type") == ["a3", "p5"]
    assert model.options(current, "pricing_model", instance_type="a3") == ["on_demand", "spot"]
    assert model.options(current, "region", instance_type="a3", pricing_model="spot") == [
        "r9",
        "us-east-1",
    ]


def test_one_skus_regions_are_labelled_and_cheapest_first():
    current = quotes(
        {"region": "eu-west-1", "usd_per_hour": 90.0},
        {"region": "us-east-1", "usd_per_hour": 70.0, "zone": "use1-az4"},
        {"region": "us-west-2", "usd_per_hour": 80.0, "pricing_model": "spot"},
    )
    sku = model.region_prices(current, "p5.48xlarge", "on_demand")
    assert list(sku["label"]) == ["aws · us-east-1 (use1-az4)", "aws · eu-west-1"]
    assert list(sku["usd_per_hour"]) == [70.0, 90.0]
    assert model.billing_unit(sku) == "instance-hour"
    per_gpu = quotes({"price_basis": "per_accelerator"}, {"price_basis": "per_accelerator"})
    assert model.billing_unit(per_gpu) == "accelerator-hour"
    assert model.billing_unit(quotes({"price_basis": "per_accelerator"}, {})) == "instance-hour"


def test_the_region_caption_names_each_regions_source_and_date():
    sku = model.region_prices(
        quotes({"source": "AWS Price List", "observed_at": None}), "p5.48xlarge", "on_demand"
    )
    assert model.region_sources("p5.48xlarge", "on_demand", sku) == (
        "p5\\.48xlarge · on\\_demand: 1 current region price(s). "
        "Sources: us\\-east\\-1: AWS Price List (date unknown)"
    )


# -- $/accelerator-hour -----------------------------------------------------------------------
def test_accelerators_are_offered_by_name_and_start_on_the_h100_where_priced():
    priced = quotes(
        {"accelerator_id": "amd-mi300x-192gb", "accelerator_name": "AMD Instinct MI300X"},
        {"accelerator_id": "x-unknown", "accelerator_name": None},
        {},
    )
    names = model.accelerator_names(priced)
    assert names == {
        "amd-mi300x-192gb": "AMD Instinct MI300X",
        "nvidia-h100-sxm-80gb": "NVIDIA H100 SXM 80GB",
        "x-unknown": "x-unknown",  # no catalog name: its id, never "None"
    }
    assert list(names) == ["amd-mi300x-192gb", "nvidia-h100-sxm-80gb", "x-unknown"]
    assert model.first_accelerator(list(names)) == "nvidia-h100-sxm-80gb"
    assert model.first_accelerator(["amd-mi300x-192gb", "x-unknown"]) == "amd-mi300x-192gb"


def test_one_accelerators_quotes_in_the_chosen_pricing_models_cheapest_first():
    priced = quotes(
        {"usd_per_accelerator_hour": 12.0},
        {
            "provider": "gcp",
            "instance_type": "a3",
            "region": "us-central1",
            "zone": "b",
            "usd_per_accelerator_hour": 9.0,
            "source": "GCP SKUs",
        },
        {"pricing_model": "spot", "usd_per_accelerator_hour": 4.0},
        {"accelerator_id": "amd-mi300x-192gb", "usd_per_accelerator_hour": 2.0},
    )
    subset = model.accelerator_prices(priced, "nvidia-h100-sxm-80gb", ["on_demand"])
    assert list(subset["label"]) == [
        "gcp · us-central1 (b) · a3 · On demand",
        "aws · us-east-1 · p5.48xlarge · On demand",
    ]
    assert model.cheapest_accelerator_hour(subset).startswith(
        "Cheapest: $9.00 per accelerator-hour on gcp · us\\-central1 · a3 · On demand; "
        "source: GCP SKUs (2026-08-01)."
    )
    both = model.accelerator_prices(priced, "nvidia-h100-sxm-80gb", ["on_demand", "spot"])
    assert list(both["usd_per_accelerator_hour"]) == [4.0, 9.0, 12.0]
    assert model.accelerator_prices(priced, "nvidia-h100-sxm-80gb", []).empty


def test_the_cheapest_token_cost_names_its_price_and_result_with_dates():
    option = pd.Series(
        {
            "usd_per_1k_output_tokens": 0.0025,
            "concurrency": 64.0,
            "scenario": "server",
            "provider": "aws",
            "instance_type": "p5.48xlarge",
            "pricing_model": "on_demand",
            "region": "us-east-1",
            "model": "llama",
            "precision": "fp8",
            "instance_output_tok_s": 12000.0,
            "price_source": "sheet",
            "price_observed_at": pd.Timestamp("2026-08-01"),
            "bench_source_title": "MLPerf",
            "bench_measured_at": None,
        }
    )
    value, evidence = model.cheapest_token_cost(option, "1m")
    assert value.startswith("$2.5")  # $0.0025 per 1K = $2.50 per 1M
    assert "(concurrency 64)" in evidence and "12,000 tok/s per instance" in evidence
    assert evidence.endswith("Price: sheet (2026-08-01); result: MLPerf (date unknown).")
    offline = option.copy()
    offline["concurrency"] = None
    assert "at fp8 (server)" in model.cheapest_token_cost(offline, "1k")[1]


# -- price history ----------------------------------------------------------------------------
def history(*rows: dict) -> pd.DataFrame:
    base = {
        "observed_at": pd.Timestamp("2026-01-01"),
        "usd_per_hour": 98.32,
        "price_basis": "instance",
        "zone": None,
        "source": "sheet",
        "source_url": "https://example.org",
        "confidence": "high",
        "quarantine_reason": None,
        "review_flag": None,
        "snapshot_id": "s1",
        "snapshot_status": "ok",
        "snapshot_created_at": pd.Timestamp("2026-01-02"),
        "snapshot_created_by": "ana@example.com",
        "is_current": False,
    }
    return model.with_history_status(pd.DataFrame([base | row for row in rows]))


def test_the_history_starts_on_the_sku_with_the_most_quotes():
    skus = pd.DataFrame(
        {
            "provider": ["aws", "aws", "gcp"],
            "region": ["us-east-1"] * 2 + ["us-central1"],
            "instance_type": ["p5.48xlarge", "b", "a"],
            "pricing_model": ["on_demand"] * 3,
            "quotes": [2, 2, 3],
        }
    )
    assert model.longest_history(skus)["instance_type"] == "a"
    tied = skus.assign(quotes=2)
    assert model.longest_history(tied)["instance_type"] == "p5.48xlarge"
    others = tied[tied["instance_type"] != "p5.48xlarge"]
    assert model.longest_history(others)["instance_type"] == "a"


def test_each_stored_price_is_current_historical_partial_or_quarantined():
    rows = history(
        {},
        {"snapshot_status": "partial"},
        {"quarantine_reason": "spot above on-demand", "is_current": True},
        {"is_current": True, "observed_at": None},
    )
    assert list(rows["status"]) == ["historical", "partial snapshot", "quarantined", "current"]
    assert list(rows["price_date"]) == ["2026-01-01"] * 3 + ["date unknown"]


def test_the_history_summary_lists_every_price_in_order():
    rows = history({"observed_at": None}, {"usd_per_hour": 55.04, "is_current": True})
    assert model.history_summary(rows) == (
        "**$98.32** (historical, date unknown) → **$55.04** (current, 2026-01-01)"
    )


def test_the_price_in_force_skips_quarantined_and_undated_prices_and_holds_until_today():
    rows = history(
        {"observed_at": pd.Timestamp("2026-03-01"), "usd_per_hour": 60.0, "is_current": True},
        {"observed_at": pd.Timestamp("2026-01-01"), "usd_per_hour": 90.0},
        {"observed_at": pd.Timestamp("2026-02-01"), "usd_per_hour": 1.0, "quarantine_reason": "x"},
        {"observed_at": None, "usd_per_hour": 120.0},
    )
    xs, ys = model.price_in_force(rows, datetime(2026, 4, 15, 9, 30, tzinfo=UTC))
    assert xs == [
        pd.Timestamp("2026-01-01"),
        pd.Timestamp("2026-03-01"),
        pd.Timestamp("2026-04-15"),
    ]
    assert ys == [90.0, 60.0, 60.0]
    # A superseded last price is not extended to today; nothing dated draws nothing.
    historical = rows.assign(status=rows["status"].replace("current", "historical"))
    assert model.price_in_force(historical, datetime(2026, 4, 15, tzinfo=UTC))[1] == [90.0, 60.0]
    assert model.price_in_force(history({"observed_at": None}), datetime.now(UTC)) == ([], [])


def test_the_history_table_shows_a_zone_only_when_a_price_has_one():
    assert "zone" not in model.history_table(history({}, {})).columns
    assert list(model.history_table(history({"zone": "a"})).columns) == list(model.HISTORY_COLUMNS)


def test_the_history_chart_draws_the_step_line_only_when_a_price_was_in_force():
    rows = history({"is_current": True})
    figure = charts.price_history(rows, model.price_in_force(rows, datetime(2026, 2, 1)))
    names = [trace.name for trace in figure.data]
    assert names == ["current", "price in force"]
    assert list(figure.data[1].y) == [98.32, 98.32]
    undated = history({"observed_at": None})
    empty = charts.price_history(undated, model.price_in_force(undated, datetime(2026, 2, 1)))
    assert [trace.name for trace in empty.data] == ["historical"]


# -- integrity --------------------------------------------------------------------------------
def stored_checks(*rows: tuple) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "source": source,
                "snapshot_id": f"prices-{source}-1",
                "as_of": pd.Timestamp("2026-08-06 10:00"),
                "rule": rule,
                "checked": checked,
                "failed": failed,
                "detail": "",
            }
            for source, rule, checked, failed in rows
        ]
    )


def test_sources_stored_without_a_report_are_checked_on_the_page():
    stored = stored_checks(("aws", "price_positive", 3, 0))
    sources = pd.DataFrame({"source": ["aws", "seed", "sheet:acme:negotiated"]})
    assert model.unchecked_sources(stored, sources) == ["seed", "sheet:acme:negotiated"]
    assert model.unchecked_sources(stored, sources.iloc[0:0]) == []
    listed = [
        quote(provider="seed"),
        quote(provider="aws"),
        quote(provider="acme", pricing_model="negotiated", quote_id="Q-1"),
        quote(provider="acme"),  # acme's on-demand sheet has its report
    ]
    chosen = model.quotes_to_check(listed, ["seed", "sheet:acme:negotiated"])
    assert [(q.provider, q.quote_id) for q in chosen] == [("seed", None), ("acme", "Q-1")]


def test_integrity_checks_read_fail_review_or_pass_worst_first():
    stored = stored_checks(
        ("aws", "price_positive", 20, 0),
        ("aws", model.RULE_MOVED, 20, 2),  # a review rule: flags, never fails
        ("gcp", "spot_le_on_demand", 4, 1),
        ("gcp", model.RULE_EXPIRED, 0, 0),
    )
    report = model.integrity_view(stored, [], [])
    assert report is not None and report.flagged.empty
    checks = report.checks
    assert list(checks.columns) == list(model.INTEGRITY_COLUMNS)
    assert list(zip(checks["result"], checks["source"], checks["rule"], strict=True)) == [
        ("fail", "gcp", "spot_le_on_demand"),
        ("review", "aws", model.RULE_MOVED),
        ("pass", "aws", "price_positive"),
        ("pass", "gcp", model.RULE_EXPIRED),
    ]
    assert set(checks["basis"]) == {
        "stored with prices-aws-1 (2026-08-06)",
        "stored with prices-gcp-1 (2026-08-06)",
    }
    assert (report.failing, report.reviews) == (1, 1)
    assert report.sentence() == "4 rule checks: 1 failing, 1 needing review."


def test_quotes_stored_without_a_report_are_checked_now_and_their_flags_listed():
    seed = [
        quote(provider="seed", pricing_model="on_demand", usd_per_hour=16.0),
        quote(provider="seed", pricing_model="spot", usd_per_hour=19.0),
    ]
    report = model.integrity_view(stored_checks(), ["seed"], seed)
    assert report is not None
    checks = report.checks.set_index("rule")
    assert checks.loc["spot_le_on_demand", "result"] == "fail"
    assert checks.loc["spot_le_on_demand", "source"] == "seed"
    assert checks.loc["spot_le_on_demand", "basis"].startswith("checked now")
    [flag] = report.flagged.to_dict("records")
    assert (flag["flag"], flag["pricing_model"], flag["usd_per_hour"]) == (
        "would be quarantined",
        "spot",
        19.0,
    )
    assert flag["price_date"] == "2026-08-06"


def test_nothing_to_check_is_no_report():
    assert model.integrity_view(stored_checks(), [], []) is None
    assert model.integrity_view(stored_checks(), ["seed"], []) is None


# -- refresh ----------------------------------------------------------------------------------
def test_regions_typed_comma_separated_or_none_for_the_defaults():
    assert model.region_list(" us-east-1, ,eastus ") == ["us-east-1", "eastus"]
    assert model.region_list(" , ") is None


def test_every_provider_says_what_it_reads_and_needs():
    needs = model.provider_needs(PROVIDERS)
    assert list(needs.columns) == ["provider", "reads", "needs"]
    assert list(needs["provider"]) == [spec.name for spec in PROVIDERS.values()]


@pytest.mark.parametrize(
    ("event", "line"),
    [
        (ProgressEvent("aws", "start", total=3, message="3 regions"), "**aws** — 3 regions"),
        (
            ProgressEvent("aws", "region", "us-east-1", 1, 3, "26 prices"),
            "aws · us\\-east\\-1 (1/3) 26 prices",
        ),
        (ProgressEvent("aws", "region", None, 2, 0, ""), "aws · —"),
        (ProgressEvent("aws", "done", message="ok"), ":green[:material/check_circle:] aws: ok"),
        (ProgressEvent("gcp", "failed", message="denied"), ":red[:material/error:] gcp: denied"),
        (
            ProgressEvent("azure", "skipped", message="no region"),
            ":material/remove_circle_outline: azure: no region",
        ),
    ],
)
def test_each_progress_event_is_one_status_line(event, line):
    assert model.progress_line(event) == line


def sources(*rows: tuple) -> pd.DataFrame:
    return pd.DataFrame(
        [{"source": s, "snapshot_id": i, "as_of": pd.Timestamp(d)} for s, i, d in rows],
        columns=["source", "snapshot_id", "as_of"],
    )


def test_what_is_current_after_a_refresh():
    old = sources(("aws", "prices-aws-1", "2026-08-06"))
    assert model.still_current(old, old) == (
        "The previous good snapshot prices-aws-1 (data as of 2026-08-06) stays current."
    )
    assert model.still_current(old, sources(("aws", "prices-aws-2", "2026-11-30"))) == (
        "Current now: prices-aws-2."
    )
    assert model.still_current(sources(), sources()) == (
        "There is no earlier good snapshot, so this source has no current prices."
    )


def test_a_refresh_report_becomes_one_notice_per_snapshot():
    before = sources(("aws", "prices-aws-1", "2026-08-06"))
    after = sources(
        ("aws", "prices-aws-1", "2026-08-06"), ("azure", "prices-azure-2", "2026-11-01")
    )
    report = RefreshReport(
        [
            SnapshotOutcome("aws", "aws", SnapshotStatus.FAILED, "prices-aws-9", error="no keys"),
            SnapshotOutcome("azure", "azure", SnapshotStatus.OK, "prices-azure-2", 5, 1, 2),
            SnapshotOutcome("gcp", "gcp", SnapshotStatus.PARTIAL, "prices-gcp-3", 7, error="x"),
        ]
    )
    rows = model.refresh_rows(report, before, after)
    levels = [model.refresh_notice(row)[0] for row in rows]
    assert levels == ["error", "success", "warning"]
    failed, ok, partial = (model.refresh_notice(row)[1] for row in rows)
    assert failed == (
        "**aws** failed: no keys\n\nRecorded as failed snapshot `prices-aws-9`. The previous good "
        "snapshot prices-aws-1 (data as of 2026-08-06) stays current."
    )
    assert ok == (
        "**azure** (azure): 5 prices in snapshot `prices-azure-2` (1 quarantined, 2 flagged for "
        "review)."
    )
    assert partial.startswith("**gcp** (gcp) was read only in part: x\n\n")
    assert "partial snapshot `prices-gcp-3` (7 prices); it is not current. There is no" in partial


def test_a_failure_without_detail_says_so():
    row = {
        "provider": "aws",
        "source": "aws",
        "status": "failed",
        "error": "",
        "snapshot_id": "s",
        "current_after": "",
    }
    assert model.refresh_notice(row)[1].startswith("**aws** failed: no detail")
    assert model.not_applicable_notice("acme") == (
        "acme: nothing to refresh (no requested region applies, or no price sheet exists)."
    )


def test_expired_negotiated_quote_check_uses_todays_date():
    # The on-page check runs the same rules as a refresh: an expired quote is flagged for review.
    expired = quote(
        provider="acme", pricing_model="negotiated", quote_id="Q-7", expires_on=date(2020, 1, 1)
    )
    report = model.integrity_view(stored_checks(), ["sheet:acme:negotiated"], [expired])
    assert report is not None
    assert report.checks.set_index("rule").loc[model.RULE_EXPIRED, "result"] == "review"
    assert list(report.flagged["flag"]) == ["review"]


def test_a_column_declaration_names_a_known_kind():
    assert model.EXPLORER_COLUMNS["usd_per_hour"] == model.Column("$/hour", "number", "$%.4f")
    with pytest.raises(ValueError, match="unknown kind 'money'"):
        model.Column("$/hour", "money")


def test_a_picker_starts_on_the_preferred_choice_where_offered():
    assert model.starting_pick(["a", "b"], "b") == "b"
    assert model.starting_pick(["a", "b"], "z") == "a"
    assert model.starting_pick(["a", "b"], None) == "a"


def test_a_link_may_name_what_each_tab_offers():
    current = spread(("a3", "spot", 1), ("p5.48xlarge", "reserved_1y", 1))
    offer = pd.DataFrame(
        {
            "accelerator_id": ["nvidia-h100-sxm-80gb"],
            "accelerator_name": ["NVIDIA H100 SXM 80GB"],
            "pricing_model": ["spot"],
        }
    )
    skus = pd.DataFrame(
        {
            "provider": ["aws", "gcp"],
            "region": ["us-east-1", "us-central1"],
            "instance_type": ["p4d", "a2"],
            "pricing_model": ["on_demand", "spot"],
        }
    )
    choices = model.pick_choices(current, offer, skus)
    assert choices["region_instance"] == ["a3", "p5.48xlarge"]
    assert choices["region_pricing_model"] == ["reserved_1y", "spot"]
    assert choices["history_instance"] == ["a2", "p4d"]  # every SKU ever stored
    assert choices["history_provider"] == ["aws", "gcp"]
    assert choices["accelerator_hour_accelerator"] == ["nvidia-h100-sxm-80gb"]
    assert choices["accelerator_hour_pricing_models"] == ["spot"]


def test_the_refresh_record_keeps_when_in_utc_and_every_snapshot():
    report = RefreshReport(
        [SnapshotOutcome("aws", "aws", SnapshotStatus.OK, "prices-aws-2", 3)], ["acme"]
    )
    when = datetime(2026, 11, 30, 23, 30, tzinfo=UTC).astimezone()  # any zone reads as UTC
    record = model.refresh_record(report, sources(), sources(), when)
    assert record["at"] == "2026-11-30 23:30 UTC"
    assert record["not_applicable"] == ["acme"]
    assert [row["snapshot_id"] for row in record["rows"]] == ["prices-aws-2"]
