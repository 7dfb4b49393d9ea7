"""The Workspace page and its page model: edited tables become a validated workspace or a
problem that names the table, row and column; a save appends a version the Scenarios page uses."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from app.models import workspace as model
from briefs.workspace_plans import example_workspace
from tests.app.conftest import VIEWS
from warehouse import Warehouse
from warehouse.workspaces import workspace_versions


def test_edited_tables_round_trip_to_the_same_workspace():
    ws = example_workspace()
    again, problems = model.edited_workspace(ws, model.fleet_rows(ws), model.demand_rows(ws))
    assert problems == [] and again == ws


def test_a_bad_cell_names_table_row_and_column():
    ws = example_workspace()
    fleet = model.fleet_rows(ws)
    fleet[1]["count"] = -3
    edited, problems = model.edited_workspace(ws, fleet, model.demand_rows(ws))
    assert edited is None
    assert problems[0].startswith("Fleet, row 2, column count: Instance count must be")
    demand = model.demand_rows(ws)
    demand[0]["peak_to_mean"] = 24.0
    _, problems = model.edited_workspace(ws, model.fleet_rows(ws), demand)
    assert problems[0].startswith("Demand, row 1, column peak_to_mean")


def test_an_edited_count_changes_stay_by_count_times_rate_times_730(app_env):
    from briefs.workspace_plans import compare, engine_for

    ws = example_workspace()
    fleet = model.fleet_rows(ws)
    fleet[2]["count"] = 20  # 15 -> 20 g6e.xlarge at the $1.861 list price
    edited, _ = model.edited_workspace(ws, fleet, model.demand_rows(ws))
    with Warehouse.open(app_env, read_only=True) as wh:
        engine = engine_for(wh)
    before, after = compare(engine, ws)[0], compare(engine, edited)[0]
    assert round(after.monthly_usd - before.monthly_usd, 2) == round(5 * 1.861 * 730, 2)


def test_the_page_saves_a_new_version(writable_env):
    at = AppTest.from_file(str(VIEWS / "workspace.py"), default_timeout=60)
    at.run()
    assert not at.exception, at.exception
    at.text_input(key="ws_name").set_value("Example Corp (edited)")
    at.button(key="ws_save").click().run()
    assert not at.exception, at.exception
    assert any("Saved as version 2" in s.value for s in at.success)
    with Warehouse.open(writable_env, read_only=True) as wh:
        versions = workspace_versions(wh)
    assert list(versions["name"])[:2] == ["Example Corp (edited)", "Example Corp"]
