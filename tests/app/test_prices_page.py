from datetime import UTC, date, datetime

import pytest
from streamlit.testing.v1 import AppTest

from app.models.tables import has_no_literals
from pricing.base import MissingCredentialsError, PermissionDeniedError, ProviderResult
from pricing.registry import PROVIDERS, ProviderSpec
from tests.app.pages import VIEWS, chart
from tokendesk.records import PriceQuote, SnapshotKind
from warehouse import Warehouse

EXPLORER, BY_REGION, PER_ACCELERATOR, HISTORY, INTEGRITY, REFRESH = range(6)


def run_prices(**multiselects):
    at = AppTest.from_file(str(VIEWS / "prices.py"), default_timeout=60)
    at.run()
    for key, value in multiselects.items():
        at.multiselect(key=key).set_value(value)
    if multiselects:
        at.run()
    assert not at.exception, at.exception
    return at


def test_explorer_shows_price_basis_source_and_date(app_env):
    at = run_prices(provider=["aws", "coreweave"], pricing_model=["on_demand"])
    table = at.tabs[EXPLORER].dataframe[0].value
    assert set(table["provider"]) == {"aws", "coreweave"} and set(table["pricing_model"]) == {
        "on_demand"
    }
    p5 = table[table["instance_type"] == "p5.48xlarge"].iloc[0]
    assert p5["usd_per_hour"] == 55.04 and p5["usd_per_accelerator_hour"] == "$6.8800"
    assert p5["price_basis"] == "instance" and p5["status"] == "current"
    assert p5["source"].startswith("dstack blog") and str(p5["observed_at"]).startswith(
        "2025-09-10"
    )
    per_gpu = table[table["provider"] == "coreweave"].iloc[0]
    assert (
        per_gpu["price_basis"] == "per_accelerator"
        and per_gpu["usd_per_accelerator_hour"] == "$6.1600"
    )
    assert {m.label: m.value for m in at.metric}["Current quotes"] == str(len(table))


def test_history_of_p5_spans_every_snapshot(app_env):
    at = run_prices()
    history_tab = at.tabs[HISTORY]
    assert history_tab.selectbox(key="history_instance").value == "p5.48xlarge"
    assert history_tab.selectbox(key="history_pricing_model").value == "on_demand"
    table = history_tab.dataframe[0].value
    assert list(table["usd_per_hour"]) == [98.32, 55.04]
    assert list(table["price_date"]) == ["2025-01-01", "2025-09-10"]
    assert list(table["status"]) == ["historical", "current"]
    summary = history_tab.markdown[0].value
    assert summary == "**$98.32** (historical, 2025-01-01) → **$55.04** (current, 2025-09-10)"
    spec = chart(at, "history_chart")
    line = next(trace for trace in spec["data"] if trace.get("name") == "price in force")
    assert line["line"]["shape"] == "hv" and line["y"][:2] == [98.32, 55.04]
    assert spec["layout"]["yaxis"]["title"]["text"] == "$ per instance-hour"


def test_region_bars_and_accelerator_hour_comparison(app_env):
    at = run_prices()
    at.selectbox(key="region_instance").set_value("p5.48xlarge")
    at.run()
    at.selectbox(key="region_pricing_model").set_value("on_demand")
    at.run()
    regions = chart(at, "region_bars")
    assert regions["data"][0]["y"] == [55.04] and regions["data"][0]["x"] == ["aws · us-east-1"]
    assert regions["layout"]["yaxis"]["title"]["text"] == "$ per instance-hour"
    per_accelerator = chart(at, "accel_bars")
    bars = {
        label: value
        for trace in per_accelerator["data"]
        for label, value in zip(trace["y"], trace["x"], strict=True)
    }
    assert bars["coreweave · HGX H100 (per GPU) · unspecified · on_demand"] == 6.16
    assert bars["aws · p5.48xlarge · us-east-1 · on_demand"] == pytest.approx(6.88)
    assert per_accelerator["layout"]["xaxis"]["title"]["text"] == "$ per accelerator-hour"
    assert any(
        c.value.startswith("Cheapest: $1.98 per accelerator-hour on gcp a3-highgpu-8g")
        for c in at.tabs[PER_ACCELERATOR].caption
    )


def test_integrity_report_of_the_current_snapshots(app_env):
    at = run_prices()
    report = at.tabs[INTEGRITY].dataframe[0].value
    aws = report[report["source"] == "aws"].set_index("rule")
    assert {
        "price_positive",
        "spot_le_on_demand",
        "anchor_within_tolerance",
        "negotiated_quote_expired",
    } <= set(aws.index)
    assert aws.loc["price_positive", "checked"] == 26 and aws.loc["price_positive", "failed"] == 0
    assert (
        aws.loc["spot_le_on_demand", "checked"] == 5
        and aws.loc["price_positive", "result"] == "pass"
    )
    assert aws["basis"].str.match(r"stored with prices-aws-\S+ \(2026-08-06\)").all()
    assert any(
        s.value.startswith(f"{len(report)} rule checks: 0 failing")
        for s in at.tabs[INTEGRITY].success
    )


def test_expired_and_quarantined_quotes_are_labelled(writable_env):
    now = datetime(2026, 1, 5, tzinfo=UTC)
    quote = dict(
        provider="acme",
        region="eu-west",
        instance_type="8x MI300X",
        accelerator_id="amd-mi300x-192gb",
        accelerator_count=8,
        source="Acme quote sheet",
        observed_at=now,
    )
    with Warehouse.open(writable_env) as warehouse:
        warehouse.ingest_prices(
            "sheet:acme:negotiated",
            [
                PriceQuote(
                    **quote,
                    pricing_model="negotiated",
                    usd_per_hour=12.0,
                    quote_id="Q-7",
                    expires_on=date(2026, 2, 1),
                )
            ],
            origin="sheet",
            review_flags={0: "expired on 2026-02-01 (quote Q-7)"},
        )
        warehouse.ingest_prices(
            "acme",
            [
                PriceQuote(**quote, pricing_model="on_demand", usd_per_hour=16.0),
                PriceQuote(**quote, pricing_model="spot", usd_per_hour=19.0),
            ],
            origin="sheet",
            quarantine={1: "spot $19 above on-demand $16"},
        )
    at = run_prices(provider=["acme"])
    table = at.tabs[EXPLORER].dataframe[0].value.set_index("pricing_model")
    assert table.loc["negotiated", "status"] == "expired"
    assert str(table.loc["negotiated", "expires_on"]).startswith("2026-02-01")
    assert table.loc["spot", "status"] == "quarantined"
    assert table.loc["spot", "flag_detail"] == "spot $19 above on-demand $16"
    assert table.loc["on_demand", "status"] == "current"
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Current quotes"] == "2" and metrics["Flagged"] == "2"


def _fake_azure(regions, progress):
    progress("eastus", 1, 1, "1 price")
    quote = PriceQuote(
        provider="azure",
        region="eastus",
        instance_type="Standard_NC40ads_H100_v5",
        accelerator_id="nvidia-h100-nvl-94gb",
        accelerator_count=1,
        pricing_model="on_demand",
        usd_per_hour=6.98,
        source="Azure Retail Prices API",
        observed_at=datetime(2026, 11, 1, tzinfo=UTC),
    )
    return ProviderResult(quotes=[quote])


_NO_CREDENTIALS = (
    "MissingCredentialsError: aws: no credentials in boto3's default "
    "chain; the caller needs pricing:GetProducts"
    " and ec2:DescribeSpotPriceHistory"
)


def _no_credentials(regions, progress):
    raise MissingCredentialsError(_NO_CREDENTIALS.split(": ", 1)[1])


def _denied(regions, progress):
    raise PermissionDeniedError("gcp", "billing.skus", fix="grant roles/billing.viewer")


def test_refresh_without_credentials_keeps_the_last_good_snapshot(writable_env, monkeypatch):
    for name, fetch in (("aws", _no_credentials), ("gcp", _denied), ("azure", _fake_azure)):
        spec = PROVIDERS[name]
        monkeypatch.setitem(
            PROVIDERS,
            name,
            ProviderSpec(spec.name, spec.description, spec.needs, spec.origin, spec.source, fetch),
        )
    with Warehouse.open(writable_env, read_only=True) as warehouse:
        before = warehouse.query(
            "SELECT snapshot_id FROM current_price_snapshots WHERE provider = 'aws' LIMIT 1"
        ).iloc[0, 0]
    at = run_prices()
    at.multiselect(key="refresh_providers").set_value(["aws", "gcp", "azure"])
    at.button(key="refresh_run").click()
    at.run()
    assert not at.exception, at.exception
    errors = [e.value for e in at.tabs[REFRESH].error]
    aws = next(e for e in errors if e.startswith("**aws** failed"))
    assert "MissingCredentialsError" in aws and "pricing:GetProducts" in aws
    assert f"The previous good snapshot {before} (data as of 2026-08-06) stays current." in aws
    gcp = next(e for e in errors if e.startswith("**gcp** failed"))
    assert "'billing.skus' permission" in gcp and "stays current" in gcp
    ok = [s.value for s in at.tabs[REFRESH].success]
    assert len(ok) == 1 and ok[0].startswith(
        "**azure** (azure): 1 prices in snapshot `prices-azure-"
    )
    progress_lines = [m.value for m in at.tabs[REFRESH].markdown]
    assert any(
        line.endswith(":material/error:] aws: " + _NO_CREDENTIALS) for line in progress_lines
    )
    assert "azure · eastus (1/1) 1 price" in progress_lines
    # The page re-read the warehouse: AWS is still the seed snapshot, Azure is the new one.
    table = at.tabs[EXPLORER].dataframe[0].value
    assert table.loc[table["instance_type"] == "p5.48xlarge", "usd_per_hour"].tolist() == [
        39.33,
        55.04,
        20.9934,
    ]
    report = at.tabs[INTEGRITY].dataframe[0].value
    assert report["basis"].str.startswith("stored with prices-azure-").any()
    with Warehouse.open(writable_env, read_only=True) as warehouse:
        failed = warehouse.snapshots(SnapshotKind.PRICES).query("status == 'failed'")
    assert set(failed["source"]) == {"aws", "gcp"}


def open_prices(**params) -> AppTest:
    at = AppTest.from_file(str(VIEWS / "prices.py"), default_timeout=60)
    for key, value in params.items():
        at.query_params[key] = value
    at.run()
    assert not at.exception, at.exception
    return at


def test_explorer_filters_live_in_the_url(app_env):
    at = open_prices(provider="aws,coreweave")
    assert at.multiselect(key="provider").value == ["aws", "coreweave"]
    assert set(at.tabs[EXPLORER].dataframe[0].value["provider"]) == {"aws", "coreweave"}
    at.multiselect(key="pricing_model").set_value(["on_demand"]).run()
    assert not at.exception
    assert at.query_params["pricing_model"] in (["on_demand"], "on_demand")
    table = at.tabs[EXPLORER].dataframe[0].value
    assert has_no_literals(table)


def test_explorer_bad_url_value_falls_back_with_a_notice(app_env):
    at = open_prices(provider="nowhere-cloud")
    assert any("Ignored provider='nowhere-cloud'" in w.value for w in at.warning)
    assert at.multiselect(key="provider").value == []
