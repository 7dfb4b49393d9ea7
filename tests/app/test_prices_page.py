"""The Prices page over the fixture warehouse (tests/fixtures/warehouse/README.md): every price and
figure below is worked out by hand from its rows; $/accelerator-hour = $/hour / accelerators on the
instance, and $/1K tokens = $/hour / (instance tok/s x 3.6)."""

import csv
import subprocess
import sys
from datetime import UTC, date, datetime

from streamlit.testing.v1 import AppTest

from app.models.tables import has_no_literals
from pricing.provider import MissingCredentialsError, PermissionDeniedError, ProviderResult
from pricing.registry import PROVIDERS, ProviderSpec
from tests.app.pages import VIEWS, chart, open_section, shown
from tests.factories import FIXTURE_WAREHOUSE
from tokendesk.formatting import usd_per_tokens
from tokendesk.paths import REPO_ROOT
from tokendesk.records import PriceQuote, SnapshotKind
from warehouse import Warehouse

EXPLORER, BY_REGION, PER_ACCELERATOR, HISTORY, INTEGRITY, REFRESH = range(6)
TAB_LABELS = (
    "Explorer",
    "By region",
    "$/accelerator-hour",
    "Price history",
    "Integrity",
    "Refresh prices",
)


def show(at: AppTest, tab: int) -> AppTest:
    """Open tab ``tab`` as a click does: only the open tab is drawn."""
    return open_section(at, "prices_tab", TAB_LABELS[tab])


def run_prices(**multiselects):
    at = AppTest.from_file(str(VIEWS / "prices.py"), default_timeout=60)
    at.run()
    for key, value in multiselects.items():
        at.multiselect(key=key).set_value(value)
    if multiselects:
        at.run()
    assert not at.exception, at.exception
    return at


def test_explorer_shows_price_basis_source_and_date(fixture_env):
    at = run_prices(provider=["aws", "azure"], pricing_model=["on_demand"])
    table = at.tabs[EXPLORER].dataframe[0].value
    # Pricing models read as words, not ids.
    assert set(table["provider"]) == {"aws", "azure"} and set(table["pricing_model"]) == {
        "On demand"
    }
    # The three current on-demand rows; the undated $60.00 p5 price is history, not current.
    assert sorted(table["instance_type"]) == [
        "Standard_ND96isr_MI300X_v5",
        "m7i.48xlarge",
        "p5.48xlarge",
    ]
    p5 = table[table["instance_type"] == "p5.48xlarge"].iloc[0]
    assert p5["usd_per_hour"] == 40.0 and p5["usd_per_accelerator_hour"] == 40.0 / 8  # $5.00
    assert p5["price_basis"] == "instance" and p5["status"] == "current"
    assert p5["source"] == "test fixture (invented figure)"
    assert str(p5["observed_at"]).startswith("2026-01-15")
    amd = table[table["provider"] == "azure"].iloc[0]
    assert amd["usd_per_accelerator_hour"] == 48.0 / 8  # $6.00 on eight MI300X
    cpu = table[table["instance_type"] == "m7i.48xlarge"].iloc[0]
    assert cpu["usd_per_accelerator_hour"] == 10.0 / 2  # $5.00 per Xeon socket
    assert {m.label: m.value for m in at.metric}["Current quotes"] == str(len(table))


def test_a_price_per_accelerator_is_shown_per_accelerator(writable_fixture_env):
    # The fixture prices whole instances only; a per-GPU price sheet row is added here.
    with Warehouse.open(writable_fixture_env) as warehouse:
        warehouse.ingest_prices(
            "acme",
            [
                PriceQuote(
                    provider="acme",
                    region="eu-west",
                    instance_type="HGX H100 (per GPU)",
                    accelerator_id="nvidia-h100-sxm-80gb",
                    accelerator_count=1,
                    pricing_model="on_demand",
                    usd_per_hour=3.0,
                    price_basis="per_accelerator",
                    source="Acme price sheet",
                    observed_at=datetime(2026, 1, 5, tzinfo=UTC),
                )
            ],
            origin="sheet",
        )
    at = run_prices(provider=["acme"])
    [row] = at.tabs[EXPLORER].dataframe[0].value.to_dict("records")
    assert row["price_basis"] == "per accelerator" and row["usd_per_accelerator_hour"] == 3.0


def test_history_of_p5_spans_every_snapshot(fixture_env):
    at = show(run_prices(), HISTORY)
    history_tab = at.tabs[HISTORY]
    assert history_tab.selectbox(key="history_instance").value == "p5.48xlarge"
    assert history_tab.selectbox(key="history_pricing_model").value == "on_demand"
    table = history_tab.dataframe[0].value
    # The fixture's two snapshots of aws p5.48xlarge on-demand: $60.00 undated, $40.00 current.
    assert list(table["usd_per_hour"]) == [60.0, 40.0]
    # The historical row states no date of its own: listed as "date unknown", not plotted.
    assert list(table["price_date"]) == ["date unknown", "2026-01-15"]
    assert list(table["status"]) == ["historical", "current"]
    summary = history_tab.markdown[0].value
    assert summary == "**$60.00** (historical, date unknown) → **$40.00** (current, 2026-01-15)"
    spec = chart(at, "history_chart")
    line = next(trace for trace in spec["data"] if trace.get("name") == "price in force")
    assert line["line"]["shape"] == "hv" and line["y"][:2] == [40.0, 40.0]
    assert spec["layout"]["yaxis"]["title"]["text"] == "$ per instance-hour"


def test_region_bars_and_accelerator_hour_comparison(fixture_env):
    at = show(run_prices(), BY_REGION)
    at.selectbox(key="region_instance").set_value("p5.48xlarge")
    at.run()
    at.selectbox(key="region_pricing_model").set_value("on_demand")
    at.run()
    regions = chart(at, "region_bars")
    assert regions["data"][0]["y"] == [40.0] and regions["data"][0]["x"] == ["aws · us-east-1"]
    assert regions["layout"]["yaxis"]["title"]["text"] == "$ per instance-hour"
    show(at, PER_ACCELERATOR)
    per_accelerator = chart(at, "accel_bars")
    bars = {
        label: value
        for trace in per_accelerator["data"]
        for label, value in zip(trace["y"], trace["x"], strict=True)
    }
    # H100 (the tab's first accelerator): $40.00 and $16.00 an hour on eight GPUs.
    assert bars == {
        "aws · us-east-1 · p5.48xlarge · On demand": 40.0 / 8,  # 5.00
        "aws · us-east-1 · p5.48xlarge · Spot": 16.0 / 8,  # 2.00
    }
    assert per_accelerator["layout"]["xaxis"]["title"]["text"] == "$ per accelerator-hour"
    assert any(
        shown(c.value).startswith(
            "Cheapest: $2.00 per accelerator-hour on aws · us-east-1 · p5.48xlarge · Spot"
        )
        for c in at.tabs[PER_ACCELERATOR].caption
    )


def test_integrity_report_of_the_current_snapshots(fixture_env):
    at = show(run_prices(), INTEGRITY)
    report = at.tabs[INTEGRITY].dataframe[0].value
    aws = report[report["source"] == "aws"].set_index("rule")
    assert {
        "price_positive",
        "spot_le_on_demand",
        "anchor_within_tolerance",
        "negotiated_quote_expired",
    } <= set(aws.index)
    # AWS's current snapshot: p5 on-demand $40, p5 spot $16, m7i on-demand $10 (three prices,
    # one spot price to hold against on-demand, one price that moved since the historical
    # snapshot: $60 -> $40 is -33%, within the 50% rule).
    assert aws.loc["price_positive", "checked"] == 3 and aws.loc["price_positive", "failed"] == 0
    assert (
        aws.loc["spot_le_on_demand", "checked"] == 1
        and aws.loc["price_positive", "result"] == "pass"
    )
    assert aws.loc["moved_over_50pct", "checked"] == 1
    assert aws.loc["moved_over_50pct", "failed"] == 0
    assert aws["basis"].str.match(r"stored with prices-aws-\S+ \(2026-01-15\)").all()
    assert any(
        s.value.startswith(f"{len(report)} rule checks: 0 failing")
        for s in at.tabs[INTEGRITY].success
    )


def test_expired_and_quarantined_quotes_are_labelled(writable_fixture_env):
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
    with Warehouse.open(writable_fixture_env) as warehouse:
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
    assert table.loc["Negotiated", "status"] == "expired"
    assert str(table.loc["Negotiated", "expires_on"]).startswith("2026-02-01")
    assert table.loc["Spot", "status"] == "quarantined"
    assert table.loc["Spot", "flag_detail"] == "spot $19 above on-demand $16"
    assert table.loc["On demand", "status"] == "current"
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


def test_refresh_without_credentials_keeps_the_last_good_snapshot(
    writable_fixture_env, monkeypatch
):
    for name, fetch in (("aws", _no_credentials), ("gcp", _denied), ("azure", _fake_azure)):
        spec = PROVIDERS[name]
        monkeypatch.setitem(
            PROVIDERS,
            name,
            ProviderSpec(spec.name, spec.description, spec.needs, spec.origin, spec.source, fetch),
        )
    with Warehouse.open(writable_fixture_env, read_only=True) as warehouse:
        before = warehouse.query(
            "SELECT snapshot_id FROM current_price_snapshots WHERE provider = 'aws' LIMIT 1"
        ).iloc[0, 0]
    at = show(run_prices(), REFRESH)
    at.multiselect(key="refresh_providers").set_value(["aws", "gcp", "azure"])
    at.button(key="refresh_run").click()
    at.run()
    assert not at.exception, at.exception
    errors = [shown(e.value) for e in at.tabs[REFRESH].error]
    aws = next(e for e in errors if e.startswith("**aws** failed"))
    assert "MissingCredentialsError" in aws and "pricing:GetProducts" in aws
    assert f"The previous good snapshot {before} (data as of 2026-01-15) stays current." in aws
    gcp = next(e for e in errors if e.startswith("**gcp** failed"))
    # The fixture has no gcp prices: nothing earlier to keep, and the page says so.
    assert "'billing.skus' permission" in gcp
    assert gcp.endswith("There is no earlier good snapshot, so this source has no current prices.")
    ok = [shown(s.value) for s in at.tabs[REFRESH].success]
    assert len(ok) == 1 and ok[0].startswith(
        "**azure** (azure): 1 prices in snapshot `prices-azure-"
    )
    progress_lines = [shown(m.value) for m in at.tabs[REFRESH].markdown]
    assert any(
        line.endswith(":material/error:] aws: " + _NO_CREDENTIALS) for line in progress_lines
    )
    assert "azure · eastus (1/1) 1 price" in progress_lines
    # The page re-read the warehouse: AWS is still the fixture's snapshot (p5 on-demand $40.00
    # and spot $16.00; the undated $60.00 stays history), Azure's new snapshot adds its one price.
    table = show(at, EXPLORER).tabs[EXPLORER].dataframe[0].value
    p5 = table.loc[table["instance_type"] == "p5.48xlarge", "usd_per_hour"]
    assert sorted(p5) == [16.0, 40.0]
    assert "Standard_NC40ads_H100_v5" in set(table["instance_type"])
    report = show(at, INTEGRITY).tabs[INTEGRITY].dataframe[0].value
    assert report["basis"].str.startswith("stored with prices-azure-").any()
    with Warehouse.open(writable_fixture_env, read_only=True) as warehouse:
        failed = warehouse.snapshots(SnapshotKind.PRICES).query("status == 'failed'")
    assert set(failed["source"]) == {"aws", "gcp"}


def test_a_write_from_the_command_line_while_the_page_is_open_shows_on_the_next_run(
    writable_fixture_env, tmp_path
):
    """The open page holds no lock: the command line writes meanwhile, and the page's next run
    drops its cached results because the file changed, so the new snapshot shows."""
    at = run_prices()
    before = int({m.label: m.value for m in at.metric}["Current quotes"])
    with (FIXTURE_WAREHOUSE / "seed_prices.csv").open(newline="", encoding="utf-8") as handle:
        row = next(csv.DictReader(handle))
    # a newer aws snapshot that also lists a size the fixture does not have
    row.update(seed_snapshot="current", instance_type="p5.4xlarge", observed_at="2026-11-30")
    sheet = tmp_path / "extra.csv"
    with sheet.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(row))
        writer.writeheader()
        writer.writerow(row)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "cli.main",
            "db",
            "ingest",
            str(sheet),
            "--db",
            str(writable_fixture_env),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO_ROOT,
    )
    assert done.returncode == 0 and "ingested as" in done.stdout, done.stderr
    at.run()
    assert not at.exception, at.exception
    table = at.tabs[EXPLORER].dataframe[0].value
    assert "p5.4xlarge" in set(table["instance_type"])
    # The new row is one more priced item (current, or quarantined if its checks flag it); the
    # provider's other current prices stay current.
    assert len(set(table.loc[table["provider"] == "aws", "instance_type"])) > 1
    assert int({m.label: m.value for m in at.metric}["Current quotes"]) >= before


def open_prices(**params) -> AppTest:
    at = AppTest.from_file(str(VIEWS / "prices.py"), default_timeout=60)
    for key, value in params.items():
        at.query_params[key] = value
    at.run()
    assert not at.exception, at.exception
    return at


def test_explorer_filters_live_in_the_url(fixture_env):
    at = open_prices(provider="aws,azure")
    assert at.multiselect(key="provider").value == ["aws", "azure"]
    assert set(at.tabs[EXPLORER].dataframe[0].value["provider"]) == {"aws", "azure"}
    at.multiselect(key="pricing_model").set_value(["on_demand"]).run()
    assert not at.exception
    assert at.query_params["pricing_model"] in (["on_demand"], "on_demand")
    table = at.tabs[EXPLORER].dataframe[0].value
    assert has_no_literals(table)


def test_explorer_bad_url_value_falls_back_with_a_notice(fixture_env):
    at = open_prices(provider="nowhere-cloud")
    assert any("Ignored provider='nowhere-cloud'" in w.value for w in at.warning)
    assert at.multiselect(key="provider").value == []


def test_the_accelerator_hour_tab_says_what_the_cheapest_price_comes_to_per_token(fixture_env):
    per_1k = show(open_prices(), PER_ACCELERATOR)
    per_1m = show(open_prices(unit="1m"), PER_ACCELERATOR)
    assert per_1m.radio(key="unit").value == "1m" and not per_1m.warning
    small = {m.label: m.value for m in per_1k.tabs[PER_ACCELERATOR].metric}
    large = {m.label: m.value for m in per_1m.tabs[PER_ACCELERATOR].metric}
    # The cheapest H100 option: the $16.00 spot p5 with the offline result, one replica of
    # 8000 tok/s: 16 / (8000 x 3.6) = $0.000556 per 1K output tokens.
    cost = 16.0 / (8000 * 3.6)
    assert small == {
        "Cheapest $/1K output tokens on this accelerator": usd_per_tokens(cost, "1k", "output")
    }
    assert large == {
        "Cheapest $/1M output tokens on this accelerator": usd_per_tokens(cost, "1m", "output")
    }
    as_number = lambda text: float(text.split(" ")[0].lstrip("$"))  # noqa: E731
    [a], [b] = small.values(), large.values()
    assert round(as_number(a) * 1000, 9) == round(as_number(b), 9)
    # The figure names the price and the result it rests on, with their dates.
    evidence = " ".join(shown(c.value) for c in per_1m.tabs[PER_ACCELERATOR].caption)
    assert (
        "aws · us-east-1 · p5.48xlarge · Spot serving Llama-3.1-70B-Instruct at fp8 (offline)"
        in evidence
    )
    assert (
        "Price: test fixture (invented figure) (2026-01-15); "
        "result: test fixture (invented figures) (2026-01-10)." in evidence
    )
    # The unit stays in the link while other inputs change.
    per_1m.multiselect(key="provider").set_value(["aws"]).run()
    assert per_1m.query_params["unit"] in (["1m"], "1m")


def test_prices_unknown_unit_falls_back_with_a_notice(fixture_env):
    at = open_prices(unit="1b")
    assert any("Ignored unit='1b'" in w.value for w in at.warning)
    assert at.radio(key="unit").value == "1k"


TAB_KEYS = {
    "region_instance",
    "region_pricing_model",
    "accelerator_hour_accelerator",
    "accelerator_hour_pricing_models",
    "history_instance",
    "history_pricing_model",
    "history_provider",
    "history_region",
}


def test_each_tabs_picks_live_in_the_url_and_the_starting_picks_add_nothing(fixture_env):
    at = open_prices()
    for tab in (BY_REGION, PER_ACCELERATOR, HISTORY):
        show(at, tab)
        assert not TAB_KEYS & set(at.query_params)  # where each tab starts: no key
    widest = show(at, BY_REGION).selectbox(key="region_instance").value
    show(at, HISTORY).selectbox(key="history_instance").set_value("Standard_ND96isr_MI300X_v5")
    at.run()
    show(at, PER_ACCELERATOR).multiselect(key="accelerator_hour_pricing_models").set_value(["spot"])
    at.run()
    assert not at.exception
    assert at.query_params["history_instance"] in (
        ["Standard_ND96isr_MI300X_v5"],
        "Standard_ND96isr_MI300X_v5",
    )
    assert at.query_params["accelerator_hour_pricing_models"] in (["spot"], "spot")
    # The link opens on the same picks; a value the data does not have falls back with a notice.
    shared = open_prices(
        history_instance="Standard_ND96isr_MI300X_v5",
        accelerator_hour_pricing_models="spot",
        region_instance="nowhere-1",
    )
    assert any("Ignored region_instance='nowhere-1'" in w.value for w in shared.warning)
    show(shared, HISTORY)
    assert shared.selectbox(key="history_instance").value == "Standard_ND96isr_MI300X_v5"
    # The fixture's only MI300X instance is sold by azure.
    assert shared.selectbox(key="history_provider").value == "azure"
    show(shared, PER_ACCELERATOR)
    assert shared.multiselect(key="accelerator_hour_pricing_models").value == ["spot"]
    assert show(shared, BY_REGION).selectbox(key="region_instance").value == widest
    assert widest == "p5.48xlarge"


def test_the_explorer_shows_one_page_of_quotes_and_counts_them_all(writable_fixture_env):
    # 600 more current quotes than the fixture has: the table holds one page of them, the
    # headline and the notice count every one.
    with Warehouse.open(writable_fixture_env) as warehouse:
        before = warehouse.query("SELECT count(*) AS n FROM current_prices")["n"].iloc[0]
        warehouse.ingest_prices(
            "bulk",
            [
                PriceQuote(
                    provider="bulk",
                    region=f"region-{i:03d}",
                    instance_type="bulk.8xh100",
                    accelerator_id="nvidia-h100-sxm-80gb",
                    accelerator_count=8,
                    pricing_model="on_demand",
                    usd_per_hour=20.0 + i / 100,
                    source="bulk sheet",
                    observed_at=datetime(2026, 1, 20, tzinfo=UTC),
                )
                for i in range(600)
            ],
        )
    at = run_prices()
    table = at.tabs[EXPLORER].dataframe[0].value
    assert len(table) == 500
    total = int(before) + 600
    assert {m.label: m.value for m in at.metric}["Current quotes"] == f"{total:,}"
    notices = [i.value for i in at.tabs[EXPLORER].info]
    assert f"Showing 500 of {total:,} quotes" in " ".join(notices)
    # Narrowed to the bulk provider, the table shows its first 500 in region order.
    at = run_prices(provider=["bulk"])
    table = at.tabs[EXPLORER].dataframe[0].value
    assert list(table["region"]) == [f"region-{i:03d}" for i in range(500)]
    assert "Showing 500 of 600 quotes" in " ".join(i.value for i in at.tabs[EXPLORER].info)


def test_only_the_open_tab_is_drawn(fixture_env):
    """A closed tab's charts and tables are not sent (each cost a switch as much as the open
    one); opening one draws it, and only it."""
    at = run_prices()
    assert not at.get("plotly_chart")
    assert len(at.tabs[EXPLORER].dataframe) == 1
    assert not at.tabs[INTEGRITY].dataframe and not at.tabs[HISTORY].dataframe
    show(at, HISTORY)
    assert [c for c in at.get("plotly_chart") if "history_chart" in c.proto.id]
    assert not [c for c in at.get("plotly_chart") if "region_bars" in c.proto.id]
    assert not at.tabs[EXPLORER].dataframe
