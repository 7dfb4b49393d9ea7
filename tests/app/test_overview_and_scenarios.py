"""The Overview and Scenarios pages over the fixture warehouse (tests/fixtures/warehouse/README.md):
figures worked out by hand from its rows, and the engine's comparison shown as the engine made it."""

import pytest
from streamlit.testing.v1 import AppTest

from app.models.tables import has_no_literals
from briefs.plan_evidence import workload_shape_rows
from briefs.workspace_plans import headline
from planning.evaluation import evaluate
from planning.workspaces import Knobs, engine_for, stored_workspace
from tests.app.pages import VIEWS, chart, open_section, shown
from tokendesk.formatting import usd_per_1k
from warehouse import Warehouse


def page(name: str, **params) -> AppTest:
    at = AppTest.from_file(str(VIEWS / name), default_timeout=60)
    for key, value in params.items():
        at.query_params[key] = value
    at.run()
    assert not at.exception, at.exception
    return at


def expected(fixture_db, knobs: Knobs | None = None, **what_if):
    from dataclasses import replace

    with Warehouse.open(fixture_db, read_only=True) as wh:
        _, ws = stored_workspace(wh)
        engine = engine_for(wh)
    if what_if:
        ws = replace(ws, demand=tuple(replace(w, **what_if) for w in ws.demand))
    return evaluate(engine, ws, knobs or Knobs())


def rows_of(ev) -> tuple[list[str], list[str]]:
    """The plan names and month-1 figures the Scenarios table lists: every plan, then Optimal."""
    names = [r.name for r in ev.plans] + [ev.optimal.name]
    month1 = [f"${r.monthly_usd:,.2f}" for r in ev.plans] + [f"${ev.optimal.monthly_usd:,.2f}"]
    return names, month1


def test_overview_cards_compare_one_pricing_family_and_the_headline_is_the_engines(fixture_env):
    at = page("overview.py")
    # On-demand, 70B class, FTL p95 <= 2000 ms. NVIDIA: the p5 at $40/h with the sweep's 32 point
    # (2 replicas x 2500 tok/s, 1500 ms): 40 / (5000 x 3.6) = $0.00222; the 64 point misses the SLO
    # (3000 ms), the offline result has no latency and the $16 spot price is another family.
    # AMD: the ND96 at $48/h, 8 replicas x 400 tok/s (600 ms): 48 / (3200 x 3.6) = $0.00417.
    # The CPU result is an 8B model: no card in the 70B class.
    assert {m.label: m.value for m in at.metric} == {
        "NVIDIA H100 SXM 80GB": "$0.00222",
        "AMD Instinct MI300X 192GB": "$0.00417",
    }
    cards = [shown(c.value) for c in at.caption if "·" in c.value]
    assert cards == [
        "$/1K output tokens · aws · p5.48xlarge · On demand · FTL 1,500 ms",
        "$/1K output tokens · azure · Standard_ND96isr_MI300X_v5 · On demand · FTL 600 ms",
    ]
    want = expected(fixture_env)
    sentence = headline(want)
    assert any(sentence in shown(md.value) for md in at.markdown)
    # Stay = (3 x $30 + 1 x $40 + 2 x $10) x 730 h = 65,700 + 29,200 + 14,600.
    assert "Your fleet as it runs (Stay) costs $109,500/month" in sentence
    fresh = at.dataframe[0].value
    assert set(fresh["Kind"]) == {"prices", "benchmarks"}
    # Every fixture price is dated 2026-01-15: past the 90-day limit on any day the tests run.
    prices = fresh[fresh["Kind"] == "prices"].set_index("Source")["State"]
    assert sorted(prices.index) == ["aws", "azure"] and prices.str.startswith("🟠 stale").all()
    assert has_no_literals(fresh)


def test_overview_inputs_live_in_the_url(fixture_env):
    at = page("overview.py", slo="900", pct="p99", model="8b", pricing="committed")
    assert at.number_input(key="slo").value == 900
    assert at.selectbox(key="pct").value == "p99" and at.selectbox(key="model").value == "8b"
    assert at.selectbox(key="pricing").value == "committed"
    at.number_input(key="slo").set_value(1500.0).run()
    assert not at.exception
    assert at.query_params["slo"] in (["1500"], "1500")


def test_overview_bad_url_value_falls_back_with_a_notice(fixture_env):
    at = page("overview.py", slo="5", pct="p42")
    notices = " ".join(w.value for w in at.warning)
    assert "Ignored slo='5'" in notices and "Ignored pct='p42'" in notices
    assert at.number_input(key="slo").value == 2000 and at.selectbox(key="pct").value == "p95"


def _card_captions(at) -> list[str]:
    """The captions under the Overview's cards (each names its unit first)."""
    return [shown(c.value) for c in at.caption if "·" in c.value]


def _figure(text: str) -> float:
    return float(text.split(" ")[0].lstrip("$"))


def test_overview_unit_switch_reads_1000_times_larger_and_stays_in_the_url(fixture_env):
    per_1k = page("overview.py")
    per_1m = page("overview.py", unit="1m")
    assert per_1m.radio(key="unit").value == "1m" and not per_1m.warning
    small = {m.label: m.value for m in per_1k.metric}
    large = {m.label: m.value for m in per_1m.metric}
    assert small.keys() == large.keys() and small
    assert all(c.startswith("$/1K output tokens · ") for c in _card_captions(per_1k))
    assert all(c.startswith("$/1M output tokens · ") for c in _card_captions(per_1m))
    for label, value in small.items():
        assert round(_figure(value) * 1000, 9) == round(_figure(large[label]), 9)
    # The frontier chart: every point exactly 1,000 times further right, its axis says so.
    before, after = chart(per_1k, "pareto"), chart(per_1m, "pareto")
    for old, new in zip(before["data"], after["data"], strict=True):
        assert [x * 1000 for x in old["x"]] == new["x"]
    assert after["layout"]["xaxis"]["title"]["text"] == "$ per 1M output tokens (log scale)"
    assert any("$/1M output tokens per vendor" in h.value for h in per_1m.subheader)
    # Another input changed on the page: the unit stays in the link.
    per_1m.number_input(key="slo").set_value(1500.0).run()
    assert per_1m.query_params["unit"] in (["1m"], "1m")


def test_overview_unknown_unit_falls_back_to_1k_with_a_notice(fixture_env):
    at = page("overview.py", unit="per-token")
    assert any("Ignored unit='per-token'" in w.value for w in at.warning)
    assert at.radio(key="unit").value == "1k"
    assert all(c.startswith("$/1K output tokens · ") for c in _card_captions(at))


def test_overview_with_an_impossible_slo_explains_itself(fixture_env):
    # The fastest fixture point answers in 400 ms (p95).
    at = page("overview.py", slo="10")
    assert any("No measured operating point" in i.value for i in at.info)


def test_scenarios_page_shows_the_engine_figures(fixture_env):
    at = page("scenarios.py")
    table = at.dataframe[0].value
    want = expected(fixture_env)
    names, month1 = rows_of(want)
    assert list(table["Scenario"]) == names
    assert list(table["Monthly (month 1)"]) == month1
    # Stay: (3 x $30 reserved + 1 x $40 list + 2 x $10 list) x 730 h.
    assert table.loc[0, "Monthly (month 1)"] == "$109,500.00"
    assert table.loc[0, "Payback"] == "baseline"
    # Overview and Scenarios say the same thing about the same workspace.
    assert any(headline(want) == shown(i.value) for i in at.info)
    # The page warns where achieved differs from requested, in the plan's own headline. No AMD
    # result measures the 8B model, but estimated capacity (on by default) serves it there, so
    # the shift achieves the 25% it asked and nothing is warned; without estimates only
    # chat-70b moved (24.51%, tests/cli/test_estimated_plans.py covers the setting).
    shift = next(r for r in want.plans if r.name.startswith("Shift"))
    assert shift.achieved_share == pytest.approx(shift.requested_share)
    assert [shown(w.value) for w in at.warning] == [
        r.headline for r in want.plans if r.headline != r.name
    ]
    # Each workload's shape and its capacity basis, as the brief's Assumptions say them.
    shapes = at.dataframe[1].value
    stay = next(r for r in want.plans if r.is_baseline)
    assert list(shapes.itertuples(index=False, name=None)) == workload_shape_rows(stay)
    assert "chat-70b: workload shape" in list(shapes["Workload"])


def test_scenarios_read_their_state_from_the_url(fixture_env):
    at = page("scenarios.py", amd="0.4", slo="900", custom="cuda:0.5,rocm:0.5")
    table = at.dataframe[0].value
    assert "Shift 40% to AMD" in list(table["Scenario"])
    assert "Custom: NVIDIA 50% / AMD 50%" in list(table["Scenario"])
    assert at.number_input(key="slo").value == 900
    knobs = Knobs(amd_share=0.4, custom=(("cuda", 0.5), ("rocm", 0.5)))
    want = expected(fixture_env, knobs, ttft_ms=900.0)
    assert list(table["Monthly (month 1)"]) == rows_of(want)[1]


def test_a_bad_url_parameter_falls_back_with_a_visible_notice(fixture_env):
    at = page("scenarios.py", slo="fast", amd="0.3")
    assert any("Ignored slo='fast': not a number" in shown(w.value) for w in at.warning)
    assert at.number_input(key="slo").value == 2000
    assert "Shift 30% to AMD" in list(at.dataframe[0].value["Scenario"])


def test_a_peak_outside_the_input_domain_falls_back_with_a_notice(fixture_env):
    for value in ("0.9", "24"):
        at = page("scenarios.py", peak=value)
        assert any(f"Ignored peak='{value}'" in shown(w.value) for w in at.warning), value
        assert any("between 1 and 20" in shown(w.value) for w in at.warning)
        assert at.number_input(key="peak").value == 1.8


def test_the_widget_takes_its_bounds_from_the_input_domain(fixture_env):
    from costmodel import domain

    at = page("scenarios.py")
    peak = at.number_input(key="peak")
    assert (peak.min, peak.max) == (domain.PEAK_TO_MEAN.low, domain.PEAK_TO_MEAN.high)


def test_changing_an_input_changes_the_comparison_and_the_url(fixture_env):
    at = page("scenarios.py")
    before = at.dataframe[0].value["Monthly (month 1)"].tolist()
    at.number_input(key="slo").set_value(500.0).run()
    after = at.dataframe[0].value["Monthly (month 1)"].tolist()
    assert after != before
    assert at.query_params["slo"] in (["500"], "500")


def test_the_brief_of_the_scenarios_on_screen(fixture_env):
    at = page("scenarios.py", amd="0.4")
    at.selectbox(key="brief_format").set_value("md")
    at.button(key="brief_prepare").click().run()
    assert not at.exception
    (button,) = [b for b in at.get("download_button") if b.proto.label.startswith("Download")]
    assert button.proto.label.startswith("Download brief (MD")


def test_scenario_tables_and_risks_read_as_words(fixture_env):
    at = page("scenarios.py")
    assert has_no_literals(at.dataframe[0].value) and has_no_literals(at.dataframe[1].value)


def test_scenarios_unit_switch_names_the_tokens_and_reads_1000_times_larger(fixture_env):
    per_1k = page("scenarios.py").dataframe[0].value
    at = page("scenarios.py", unit="1m")
    per_1m = at.dataframe[0].value
    assert at.radio(key="unit").value == "1m"
    for counted in ("output", "total (input + output)"):
        small = per_1k[f"$/1K {counted} tokens (month 1)"]
        large = per_1m[f"$/1M {counted} tokens (month 1)"]
        assert f"$/1K {counted} tokens (month 1)" not in per_1m.columns
        feasible = per_1k["Feasible"] == "yes"
        assert feasible.any() and (small[~feasible] == "—").all()
        # Both are shown to three significant digits or to the cent ($0.0107 and $10.74 for the
        # same cost), so the $/1M figure read back per thousand shows as the $/1K one.
        for a, b in zip(small[feasible], large[feasible], strict=True):
            assert usd_per_1k(_figure(b) / 1000) == a
    # The figure is month 1's cost over the tokens the demand asks for.
    # Stay's $109,500 over the 10e9 + 0.2e9 output tokens asked for: 109,500 / 10,200 = $10.74
    # per million.
    assert per_1m.loc[0, "$/1M output tokens (month 1)"] == "$10.74"
    # Another what-if changed on the page keeps the unit in the link.
    at.number_input(key="slo").set_value(900.0).run()
    assert at.query_params["unit"] in (["1m"], "1m") and at.query_params["slo"] in (["900"], "900")


def test_scenarios_unknown_unit_falls_back_with_a_notice(fixture_env):
    at = page("scenarios.py", unit="1000")
    assert any("Ignored unit='1000'" in w.value for w in at.warning)
    assert "$/1K output tokens (month 1)" in at.dataframe[0].value.columns


def test_scenarios_page_shows_the_optimal_fleet_and_the_price_of_diversification(fixture_env):
    import json

    from planning.optimal_plan import optimize

    at = page("scenarios.py", optimal="true")
    assert at.toggle(key="optimal").value is True
    with Warehouse.open(fixture_env, read_only=True) as wh:
        _, ws = stored_workspace(wh)
        engine = engine_for(wh)
    want = optimize(engine, ws, Knobs())
    assert want.solution.feasible
    table = next(d.value for d in at.dataframe if "$/month (optimizer basis)" in d.value.columns)
    # Optimal sits beside every built-in scenario, priced the same way, and costs no more.
    assert list(table["Scenario"]) == [r.name for r in want.builtins] + ["Optimal"]
    optimal = table.set_index("Scenario").loc["Optimal", "$/month (optimizer basis)"]
    assert optimal == want.solution.objective_usd_per_month
    comparable = [want.comparable[r.name] for r in want.builtins if r.feasible]
    assert optimal <= min(comparable) + 0.01
    stay = want.comparable[want.stay.name]
    assert any(f"saving ${stay - optimal:,.0f}/month" in shown(s.value) for s in at.success), (
        "the page states the saving against Stay"
    )
    # The frontier chart draws exactly the solved caps, cost against HHI.
    chart = next(c for c in at.get("plotly_chart") if "frontier" in c.proto.id)
    trace = json.loads(chart.proto.spec)["data"][0]
    solved = [p for p in want.frontier if p.feasible]
    assert trace["y"] == [p.objective_usd_per_month for p in solved]
    assert trace["x"] == [p.hhi for p in solved]


def test_the_optimizer_runs_only_when_asked_and_the_choice_lives_in_the_url(fixture_env):
    at = page("scenarios.py")
    assert at.toggle(key="optimal").value is False
    assert not any("$/month (optimizer basis)" in d.value.columns for d in at.dataframe)
    at.toggle(key="optimal").set_value(True).run()
    assert at.query_params["optimal"] in (["true"], "true")
    assert any("$/month (optimizer basis)" in d.value.columns for d in at.dataframe)


def test_scenarios_page_says_how_much_to_commit_with_the_commands_figures(app_env):
    from planning.commitment import commitments

    at = page("scenarios.py")
    with Warehouse.open(app_env, read_only=True) as wh:
        _, ws = stored_workspace(wh)
        engine = engine_for(wh)
    plan = commitments(engine, ws, Knobs())
    shown_text = [shown(m.value) for m in at.markdown]
    for sentence in plan.summary():
        assert any(shown(sentence) in text for text in shown_text), sentence
    # Each demand scenario's path is solved, and the tables drawn, when the section is opened:
    # one row per commitment on the path and one per demand scenario.
    assert plan.scenario_sentences()
    for sentence in plan.scenario_sentences():
        assert not any(shown(sentence) in text for text in shown_text), sentence
    assert not [d for d in at.dataframe if "Commitment" in d.value.columns]
    open_section(at, "commitment")
    shown_text = [shown(m.value) for m in at.markdown]
    for sentence in plan.scenario_sentences():
        assert any(shown(sentence) in text for text in shown_text), sentence
    table = next(d.value for d in at.dataframe if "Commitment" in d.value.columns)
    assert list(table["Units"]) == [r["units"] for r in plan.rows]
    assert has_no_literals(table.astype(str))
    scenarios = next(
        d.value for d in at.dataframe if "New commitments over the horizon" in d.value.columns
    )
    assert list(scenarios["Scenario"]) == [s.name for s in plan.scenarios]
    # The basis is stated: the optimizer's path, the on-demand basis and commitment.at_end.
    captions = [shown(c.value) for c in at.caption]
    assert any("commitment.at_end: renew" in c for c in captions)


def test_owned_servers_appear_beside_the_optimal_fleet_when_the_workspace_allows_them(
    writable_env,
):
    from dataclasses import replace

    from costmodel.workspace_model import workspace_to_dict
    from planning.optimal_plan import optimize
    from warehouse.workspace_versions import save_workspace

    with Warehouse.open(writable_env, read_only=True) as wh:
        _, ws = stored_workspace(wh)
        engine = engine_for(wh)
    ws = replace(ws, constraints=replace(ws.constraints, allow_owned=True))
    with Warehouse.open(writable_env) as wh:
        save_workspace(wh, workspace_to_dict(ws), origin="test", source="owned allowed")
    at = page("scenarios.py", optimal="true")
    want = optimize(engine, ws, Knobs())
    assert want.owned
    owned = next(d.value for d in at.dataframe if "$/server-hour" in d.value.columns)
    assert list(owned["$/server-hour"]) == [c.rate.usd_per_server_hour for c in want.owned]
    assert list(owned["Break-even (months)"]) == [c.cloud[0][3] for c in want.owned]
    assert all("EIA" in text for text in owned["Sources"])


def test_the_scenarios_read_every_latency_at_the_percentile_in_the_link(app_env):
    # The Overview's pct key carries over: every workload's SLO is read at p99 instead.
    at = page("scenarios.py", pct="p99")
    assert at.selectbox(key="pct").value == "p99"
    assert at.query_params["pct"] in (["p99"], "p99")
    want = expected(app_env, percentile="p99")
    table = at.dataframe[0].value
    assert list(table["Monthly (month 1)"]) == rows_of(want)[1]
    # The what-if is named as its input is, never by its URL key ("pct=p99").
    captions = [shown(c.value) for c in at.caption]
    assert any("Latency percentile p99" in c for c in captions), captions
    assert not any("pct=" in c for c in captions), captions
    # Changed on the page, the link follows (a what-if once set stays explicit, like slo).
    at.selectbox(key="pct").set_value("p50").run()
    assert at.query_params["pct"] in (["p50"], "p50")
    assert not at.exception
    bad = page("scenarios.py", pct="p42")
    assert any("Ignored pct='p42'" in shown(w.value) for w in bad.warning)
    assert bad.selectbox(key="pct").value == "p95"


def test_the_overview_headline_reads_the_slos_at_the_chosen_percentile(app_env):
    at = page("overview.py", pct="p99")
    sentence = headline(expected(app_env, percentile="p99"))
    assert any(sentence in shown(md.value) for md in at.markdown)
    assert any("every SLO read at p99" in shown(c.value) for c in at.caption)


def test_the_overview_starts_from_the_workspaces_own_slo(writable_fixture_env):
    """The market cards answer for the company's SLO (its largest workload's), not a default."""
    from dataclasses import replace

    from costmodel.workspace_model import workspace_to_dict
    from planning.workspaces import market_view_defaults
    from warehouse.workspace_versions import save_workspace

    with Warehouse.open(writable_fixture_env, read_only=True) as wh:
        _, ws = stored_workspace(wh)
    main = max(ws.demand, key=lambda w: w.output_tokens_per_month)
    slower = tuple(
        replace(w, ttft_ms=1500.0, percentile="p99") if w is main else w for w in ws.demand
    )
    ws = replace(ws, demand=slower)
    with Warehouse.open(writable_fixture_env) as wh:
        save_workspace(wh, workspace_to_dict(ws), origin="test", source="a slower SLO")
    assert market_view_defaults(ws)[1:] == (1500.0, "p99")
    at = page("overview.py")
    assert at.number_input(key="slo").value == 1500
    assert at.selectbox(key="pct").value == "p99"
    # Nothing was changed on the page, so the link carries none of them.
    assert "slo" not in at.query_params and "pct" not in at.query_params


def test_the_overview_frontier_holds_only_the_options_priced_as_chosen(fixture_env):
    """The cards and the Pareto chart answer the same question: with on-demand chosen, the
    fixture's $16 spot p5 is not a point (it used to sit on the frontier), and the other way
    round. Each point's hover names its pricing (customdata[3])."""
    for pricing, kept in (("on-demand", "On demand"), ("spot", "Spot")):
        at = page("overview.py", pricing=pricing)
        traces = [t for t in chart(at, "pareto")["data"] if t["name"] != "Pareto frontier"]
        shown_as = {row[3] for t in traces for row in t["customdata"]}
        assert shown_as == {kept}, shown_as
        assert any(f"Pareto frontier: {pricing} " in h.value for h in at.subheader)
    # $16/h over 2 replicas x 2,500 tok/s: 16 / (5000 x 3.6) = $0.000889, spot only.
    on_demand = chart(page("overview.py", pricing="on-demand"), "pareto")["data"]
    assert all(round(x, 9) != round(16 / 18000, 9) for t in on_demand for x in t["x"])


def test_the_slo_reads_in_whole_milliseconds_on_both_pages(fixture_env):
    for name in ("overview.py", "scenarios.py"):
        assert page(name).number_input(key="slo").proto.format == "%.0f"
    assert page("scenarios.py").number_input(key="peak").proto.format == "%.1f"


def test_the_pareto_chart_is_made_once_per_inputs(writable_env, monkeypatch):
    """Back on the Overview with the same inputs, the chart made before is drawn again; another
    SLO (its line is on the chart) makes a new one."""
    from app import charts

    made = []
    real = charts.pareto

    def counted(*args, **kwargs):
        made.append(args[3])  # the SLO
        return real(*args, **kwargs)

    monkeypatch.setattr(charts, "pareto", counted)
    at = page("overview.py")
    at.run()
    assert len(made) == 1
    at.number_input(key="slo").set_value(1500.0).run()
    assert made[-1] == 1500.0 and len(made) == 2
    assert not at.exception
