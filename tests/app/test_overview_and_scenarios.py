from streamlit.testing.v1 import AppTest

from app.models.tables import has_no_literals
from costmodel import Engine
from costmodel.scenario_inputs import ScenarioInputs, build_demand, build_policy, build_scenarios
from tests.app.pages import VIEWS
from warehouse import Warehouse


def page(name: str, **params) -> AppTest:
    at = AppTest.from_file(str(VIEWS / name), default_timeout=60)
    for key, value in params.items():
        at.query_params[key] = value
    at.run()
    assert not at.exception, at.exception
    return at


def expected(app_db, inputs: ScenarioInputs):
    with Warehouse.open(app_db, read_only=True) as wh:
        engine = Engine.from_frame(wh.cost_options())
    return engine.evaluate(build_scenarios(inputs), build_demand(inputs), build_policy(inputs))


def test_overview_headlines_meet_the_slo(app_env):
    at = page("overview.py")
    labels = [m.label for m in at.metric]
    assert "AMD Instinct MI300X 192GB" in labels and "NVIDIA H100 SXM 80GB" in labels
    assert all(m.value.startswith("$0.000") for m in at.metric)
    assert any("Incumbent against the best alternative" in md.value for md in at.markdown)
    fresh = at.dataframe[0].value
    assert set(fresh["Kind"]) == {"prices", "benchmarks"}
    assert fresh.loc[fresh["Source"] == "aws", "State"].iloc[0].startswith("🟠 stale")
    assert has_no_literals(fresh)


def test_overview_inputs_live_in_the_url(app_env):
    at = page("overview.py", slo="900", pct="p99", model="8b")
    assert at.number_input(key="slo").value == 900
    assert at.selectbox(key="pct").value == "p99" and at.selectbox(key="model").value == "8b"
    at.number_input(key="slo").set_value(1500.0).run()
    assert not at.exception
    assert at.query_params["slo"] in (["1500"], "1500")


def test_overview_bad_url_value_falls_back_with_a_notice(app_env):
    at = page("overview.py", slo="5", pct="p42")
    notices = " ".join(w.value for w in at.warning)
    assert "Ignored slo='5'" in notices and "Ignored pct='p42'" in notices
    assert at.number_input(key="slo").value == 2000 and at.selectbox(key="pct").value == "p95"


def test_overview_with_an_impossible_slo_explains_itself(app_env):
    at = page("overview.py", slo="10")
    assert any("No measured operating point" in i.value for i in at.info)


def test_scenarios_page_shows_the_engine_figures(app_env):
    at = page("scenarios.py")
    table = at.dataframe[0].value
    want = expected(app_env, ScenarioInputs())
    assert list(table["Scenario"]) == [r.name for r in want]
    assert list(table["Monthly cost"].round(2)) == [round(r.monthly_usd, 2) for r in want]
    assert table.loc[0, "Payback"] == "baseline" and table.loc[0, "One-time migration"] == 0


def test_scenarios_read_their_state_from_the_url(app_env):
    at = page("scenarios.py", amd="0.4", slo="900", custom="cuda:0.5,rocm:0.5")
    table = at.dataframe[0].value
    assert "Shift 40% to AMD" in list(table["Scenario"]) and "Custom: cuda 50% / rocm 50%" in list(
        table["Scenario"]
    )
    assert at.number_input(key="slo").value == 900
    want = expected(app_env, ScenarioInputs(amd=0.4, slo=900.0, custom="cuda:0.5,rocm:0.5"))
    assert list(table["Monthly cost"].round(2)) == [round(r.monthly_usd, 2) for r in want]


def test_a_bad_url_parameter_falls_back_with_a_visible_notice(app_env):
    at = page("scenarios.py", slo="fast", amd="0.3")
    assert any("Ignored slo='fast': not a number" in w.value for w in at.warning)
    assert at.number_input(key="slo").value == 2000
    assert "Shift 30% to AMD" in list(at.dataframe[0].value["Scenario"])


def test_changing_an_input_changes_the_comparison_and_the_url(app_env):
    at = page("scenarios.py")
    before = at.dataframe[0].value["Monthly cost"].tolist()
    at.number_input(key="out_b").set_value(90.0).run()
    after = at.dataframe[0].value["Monthly cost"].tolist()
    assert after[0] > before[0]
    assert at.query_params["out_b"] == ["90"] or at.query_params["out_b"] == "90"


def test_the_brief_of_the_scenarios_on_screen(app_env):
    at = page("scenarios.py", amd="0.4")
    at.selectbox(key="brief_format").set_value("md")
    at.button(key="brief_prepare").click().run()
    assert not at.exception
    from app import data
    from costmodel.scenario_inputs import ScenarioInputs

    markdown = data.brief_bytes(str(app_env), ScenarioInputs(amd=0.4), "md").decode()
    assert "Shift 40% to AMD" in markdown and "Stay" in markdown
    assert any(b.label.startswith("Download brief (MD") for b in at.get("download_button"))


def test_scenario_tables_and_risks_read_as_words(app_env):
    at = page("scenarios.py")
    assert has_no_literals(at.dataframe[0].value) and has_no_literals(at.dataframe[1].value)
    fleet = at.dataframe[1].value
    assert list(fleet.columns[:4]) == ["Monthly cost", "FTL (ms)", "Meets SLO", "Provider"]
    risks = [md.value for md in at.markdown if "of spend**" in md.value or "HHI" in md.value]
    assert risks and not any("spot_share" in r or "hhi_vendor" in r for r in risks)
