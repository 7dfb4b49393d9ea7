"""The Costs page over the fixture warehouse (tests/fixtures/warehouse/README.md): every option and
figure below is worked out by hand from its rows with $/1K = $/hour / (instance tok/s x 3.6)."""

from streamlit.testing.v1 import AppTest

from app.models.tables import has_no_literals
from tests.app.pages import VIEWS, chart, open_section
from tokendesk.formatting import usd_per_1k

H100 = "nvidia-h100-sxm-80gb"


FRONTIER_TAB = ("costs_chart", "Interactivity frontier")


def open_costs(**params) -> AppTest:
    at = AppTest.from_file(str(VIEWS / "costs.py"), default_timeout=30)
    for key, value in params.items():
        at.query_params[key] = value
    at.run()
    assert not at.exception, at.exception
    return at


def url(at: AppTest, key: str) -> str | None:
    value = at.query_params.get(key)
    return value[-1] if isinstance(value, list) else value


def test_costs_page_shows_the_cheapest_option_and_its_sources(fixture_env):
    at = open_costs(accelerator=H100, provider="aws", pricing_model="on_demand")
    metrics = {m.label: m.value for m in at.metric}
    # One on-demand p5.48xlarge quote x the four H100 points (three sweep points, one offline).
    assert metrics["Options"] == "4"
    table = at.dataframe[0].value
    assert list(table.columns[:6]) == [
        "$/1K output tokens",
        "FTL p95 (ms)",
        "Provider",
        "Instance",
        "Region",
        "Pricing model",
    ]
    assert set(table["Accelerator"]) == {"NVIDIA H100 SXM 80GB"}
    # Cheapest first: offline 40 / (8000 x 3.6), then the sweep's 64, 32 and 8 points at
    # 2 replicas x 3000, 2500 and 1000 tok/s.
    assert [round(v, 7) for v in table["$/1K output tokens"]] == [
        round(40 / (8000 * 3.6), 7),  # 0.0013889
        round(40 / (6000 * 3.6), 7),  # 0.0018519
        round(40 / (5000 * 3.6), 7),  # 0.0022222
        round(40 / (2000 * 3.6), 7),  # 0.0055556
    ]
    assert list(table["Instance output tok/s"]) == [8000.0, 6000.0, 5000.0, 2000.0]
    assert (table["Price source"] == "test fixture (invented figure)").all()
    assert table["Price date"].astype(str).str.startswith("2026-01-15").all()
    assert has_no_literals(table)


def test_the_headline_comes_from_an_option_with_a_known_latency(fixture_env):
    at = open_costs(accelerator=H100)
    table = at.dataframe[0].value
    metrics = {m.label: m.value for m in at.metric}
    # The overall cheapest H100 option, the spot price with the offline result,
    # 16 / (8000 x 3.6) = $0.000556, has no latency, so it must not be the headline; the
    # cheapest with one is the spot price with the sweep's 64 point: 16 / (6000 x 3.6).
    first = table.iloc[0]
    assert first["FTL p95 (ms)"] == "—" and usd_per_1k(first["$/1K output tokens"]) == "$0.000556"
    assert metrics["Cheapest $/1K output tokens with a known FTL"] == "$0.000741"
    assert metrics["Lowest FTL p95"] == "400 ms"  # the sweep's 8 point


def test_published_p95_is_used_and_offline_ftl_is_never_invented(fixture_env):
    at = open_costs(model="Llama-3.1-70B-Instruct", accelerator=H100)
    table = at.dataframe[0].value
    server = table[table["Scenario"] == "server"]
    # The sweep publishes p95 TTFT: it is used as published, not bounded by p99. Three points at
    # two prices (on-demand and spot).
    assert len(server) == 6 and (server["FTL basis"] == "p95").all()
    assert sorted(set(server["FTL p95 (ms)"])) == ["1,500 ms", "3,000 ms", "400 ms"]
    offline = table[table["Scenario"] == "offline"]
    assert len(offline) == 2
    assert (offline["FTL p95 (ms)"] == "—").all() and (offline["FTL basis"] == "unknown").all()
    assert any("not plotted at a made-up latency" in c.value for c in at.caption)


def test_total_tokens_keeps_the_page_populated(fixture_env):
    at = open_costs(tokens="total", accelerator=H100, pricing_model="on_demand")
    table = at.dataframe[0].value
    assert "$/1K total (input + output) tokens" in table.columns
    # No total throughput is published; the sweep's 1000:500 input:output lengths make every
    # output token one of three: 40 / (6000 x 3 x 3.6), 40 / (5000 x 3 x 3.6), 40 / (2000 x 3 x
    # 3.6), shown to the dollar's millionth. The offline result states no lengths: kept,
    # unpriced, last.
    assert list(table["$/1K total (input + output) tokens"]) == [
        "$0.000617",
        "$0.000741",
        "$0.001852",
        "—",
    ]
    assert not at.warning
    assert at.radio(key="tokens").value == "total"


def test_empty_filter_result_explains_itself(fixture_env):
    # Both are in the fixture, but its only AMD result is for the 70B model.
    at = open_costs(accelerator="amd-mi300x-192gb", model="Llama-3.1-8B-Instruct")
    assert not at.warning  # both values are known: the filters apply, they match nothing
    assert any("No priced option matches" in i.value for i in at.info)


def test_the_url_sets_the_widgets_and_the_widgets_set_the_url(fixture_env):
    at = open_costs(vendor="AMD", percentile="p99")
    assert at.multiselect(key="vendor").value == ["AMD"]
    assert at.selectbox(key="percentile").value == "p99"
    at.multiselect(key="vendor").set_value(["AMD", "NVIDIA"]).run()
    at.selectbox(key="percentile").set_value("p50").run()
    assert not at.exception
    assert url(at, "vendor") == "AMD,NVIDIA" and url(at, "percentile") == "p50"
    at.selectbox(key="percentile").set_value("p95").run()
    assert url(at, "percentile") is None  # the default leaves the link


def test_a_bad_url_value_falls_back_with_a_notice(fixture_env):
    at = open_costs(percentile="p42", vendor="Nobody")
    notices = " ".join(w.value for w in at.warning)
    assert "Ignored percentile='p42'" in notices and "Ignored vendor='Nobody'" in notices
    assert at.selectbox(key="percentile").value == "p95"
    assert at.multiselect(key="vendor").value == []


def test_the_unit_switch_reads_every_cost_1000_times_larger_and_stays_in_the_url(fixture_env):
    filters = {"accelerator": H100, "provider": "aws", "tokens": "total"}
    per_1k = open_costs(**filters)
    per_1m = open_costs(**filters, unit="1m")
    assert not per_1m.warning
    assert per_1m.radio(key="unit").value == "1m" and url(per_1m, "unit") == "1m"
    assert per_1m.title[0].value == "$/1M tokens and first-token latency"
    assert per_1k.title[0].value == "$/1K tokens and first-token latency"
    thousand = per_1k.dataframe[0].value
    million = per_1m.dataframe[0].value
    assert "$/1K total (input + output) tokens" in thousand.columns
    assert "$/1M total (input + output) tokens" in million.columns
    assert "$/1K total (input + output) tokens" not in million.columns
    # The same options in the same order, each figure exactly 1,000 times the $/1K one.
    small = thousand["$/1K total (input + output) tokens"]
    large = million["$/1M total (input + output) tokens"]
    priced = small != "—"
    assert priced.sum() > 0 and list(large[~priced]) == list(small[~priced])
    as_number = lambda column: column[priced].str.lstrip("$").astype(float)  # noqa: E731
    assert list(as_number(large)) == [round(v * 1000, 3) for v in as_number(small)]
    # A complete column stays numeric: there the factor is exact.
    output_1k = open_costs(accelerator=H100).dataframe[0].value
    output_1m = open_costs(accelerator=H100, unit="1m").dataframe[0].value
    assert (output_1m["$/1M output tokens"] == output_1k["$/1K output tokens"] * 1000).all()
    # The headline says which unit it is in.
    assert "Cheapest $/1M total (input + output) tokens with a known FTL" in {
        m.label for m in per_1m.metric
    }
    # Switching back on the page drops the key: $/1K is the default, so the link stays short.
    per_1m.radio(key="unit").set_value("1k").run()
    assert url(per_1m, "unit") is None
    assert "$/1K total (input + output) tokens" in per_1m.dataframe[0].value.columns


def test_an_unknown_unit_in_the_link_falls_back_to_1k_with_a_notice(fixture_env):
    at = open_costs(accelerator=H100, unit="1g")
    notices = " ".join(w.value for w in at.warning)
    assert "Ignored unit='1g' in the link" in notices and "Using 1k instead" in notices
    assert at.radio(key="unit").value == "1k"
    assert "$/1K output tokens" in at.dataframe[0].value.columns


def test_the_interactivity_frontier_prices_each_curve_at_the_target_and_never_beyond(app_env):
    at = open_costs(model="llama-2-70b-chat", accelerator="nvidia-h200-141gb", unit="1m")
    assert at.number_input(key="target").value == 20.0 and url(at, "target") is None
    open_section(at, *FRONTIER_TAB)
    assert any(s.value.startswith("Interactivity frontier") for s in at.subheader)
    figure = chart(at, "interactivity_frontier")
    xs = [x for trace in figure["data"] for x in trace["x"] if x is not None]
    assert xs and all(x > 0 for x in xs)
    # The H200 server and interactive runs make one curve per quote; 20 tok/s/user lies between
    # them, so each curve has a cost there, read from the table's own measured range.
    table = next(d.value for d in at.dataframe if "$/1M output tokens at 20 tok/s/user" in d.value)
    priced = table[table["How"].str.startswith("interpolated")]
    assert len(priced) > 0
    assert has_no_literals(table)
    # Past the fastest measured point every curve says why it has no cost.
    fast = open_costs(model="llama-2-70b-chat", accelerator="nvidia-h200-141gb", target="500")
    open_section(fast, *FRONTIER_TAB)
    assert url(fast, "target") == "500"
    table = next(d.value for d in fast.dataframe if "at 500 tok/s/user" in " ".join(d.value))
    column = "$/1K output tokens at 500 tok/s/user"
    assert (table[column] == "—").all()
    assert table["How"].str.contains("faster than every measured point").all()


def test_a_target_out_of_bounds_falls_back_with_a_notice(app_env):
    at = open_costs(accelerator="nvidia-h200-141gb", target="-3")
    assert any("Ignored target='-3'" in w.value for w in at.warning)
    assert at.number_input(key="target").value == 20.0


def test_results_without_tpot_are_left_out_of_the_frontier_and_counted(app_env):
    at = open_section(open_costs(accelerator="nvidia-h200-141gb"), *FRONTIER_TAB)
    captions = " ".join(c.value for c in at.caption)
    assert "options are left out: their results publish no time per output token" in captions


def test_energy_and_carbon_columns_are_optional_and_labelled(app_env):
    plain_table = open_costs(accelerator="nvidia-h200-141gb", provider="aws").dataframe[0].value
    assert "J per output token" not in plain_table.columns
    at = open_costs(accelerator="nvidia-h200-141gb", provider="aws", energy="true")
    assert at.toggle(key="energy").value is True and url(at, "energy") == "true"
    table = at.dataframe[0].value
    assert {"J per output token", "Energy basis", "gCO₂e per 1M output tokens"} <= set(table)
    assert set(table["Energy basis"]) == {"estimate: TDP × 100% utilisation"}
    east = table[table["Region"] == "us-east-1"]
    assert len(east) and (east["Grid gCO₂e/kWh"] != "—").all()
    assert has_no_literals(table)
    assert any("Energy per output token" in c.value for c in at.caption)


def test_input_and_output_costs_follow_the_unit_and_name_their_rule(app_env):
    table = open_costs(accelerator="nvidia-h200-141gb", unit="1m").dataframe[0].value
    assert {"$/1M input tokens (apportioned)", "Input/output split", "TPOT p95 (ms)"} <= set(table)
    assert set(table["Input/output split"]) <= {
        "measured time share (TTFT vs TPOT × output tokens, p50)",
        "stated ratio (an output token costs 4 input tokens)",
        "no input throughput published",
    }
    p50 = open_costs(accelerator="nvidia-h200-141gb", percentile="p50").dataframe[0].value
    assert {"FTL p50 (ms)", "TPOT p50 (ms)"} <= set(p50.columns)


def test_figures_and_tables_are_made_once_per_inputs_until_the_warehouse_changes(
    writable_fixture_env, monkeypatch
):
    """A rerun with the same inputs (a page switch back) draws what was made before; another
    input, or a write to the warehouse, makes them again."""
    from datetime import UTC, datetime

    from app import charts
    from app.models import costs as model
    from tokendesk.records import PriceQuote
    from warehouse import Warehouse

    made: list[str] = []

    def counted(name, build):
        def wrapper(*args, **kwargs):
            made.append(name)
            return build(*args, **kwargs)

        return wrapper

    monkeypatch.setattr(charts, "cost_against_ftl", counted("scatter", charts.cost_against_ftl))
    monkeypatch.setattr(model, "option_table", counted("table", model.option_table))
    at = open_costs()
    shown = at.dataframe[0].value
    at.run()
    assert made == ["scatter", "table"]
    assert at.dataframe[0].value.equals(shown)
    at.selectbox(key="percentile").set_value("p50").run()
    assert made == ["scatter", "table"] * 2
    with Warehouse.open(writable_fixture_env) as warehouse:  # a price sheet lands meanwhile
        warehouse.ingest_prices(
            "sheet",
            [
                PriceQuote(
                    provider="sheet",
                    region="r-1",
                    instance_type="sheet.8xh100",
                    accelerator_id=H100,
                    accelerator_count=8,
                    pricing_model="on_demand",
                    usd_per_hour=20.0,
                    source="a sheet",
                    observed_at=datetime(2026, 1, 20, tzinfo=UTC),
                )
            ],
        )
    at.run()
    assert made == ["scatter", "table"] * 3


def test_only_the_open_chart_tab_is_drawn(app_env):
    """The scatter and the interactivity frontier are two tabs; a closed one sends nothing."""
    at = open_costs(accelerator="nvidia-h200-141gb")
    drawn = lambda: [c.proto.id.rsplit("-", 1)[-1] for c in at.get("plotly_chart")]  # noqa: E731
    assert drawn() == ["cost_scatter"]
    open_section(at, *FRONTIER_TAB)
    assert drawn() == ["interactivity_frontier"]
    assert at.dataframe  # the options table stays below either tab
