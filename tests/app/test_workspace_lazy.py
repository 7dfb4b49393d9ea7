"""The Workspace page draws only the sections that are open: a closed section's widgets and
tables are not sent to the browser. Save still reads every setting, whether "More settings" was
never opened or was opened, edited and closed again (Streamlit forgets a widget not drawn)."""

from __future__ import annotations

from datetime import date

from streamlit.testing.v1 import AppTest

from costmodel.workspace_model import workspace_from_dict
from tests.app.pages import VIEWS, open_section
from warehouse import Warehouse
from warehouse.workspace_versions import current_workspace

MORE_SETTINGS = "ws_more_settings_open"
#: Each section that starts closed: its expander's key, and an element only it draws.
SECTIONS = {
    "ws_add_workload_open": ("text_input", "ws_new_workload"),
    "ws_trace_open": ("file_uploader", "ws_trace"),
    "ws_add_line_open": ("text_input", "ws_sku_search"),
    MORE_SETTINGS: ("dataframe", "ws_scenarios"),
    "ws_versions_open": ("dataframe", "versions"),
}


def _page() -> AppTest:
    at = AppTest.from_file(str(VIEWS / "workspace.py"), default_timeout=120)
    at.run()
    assert not at.exception, at.exception
    return at


def _drawn(at: AppTest, kind: str, key: str) -> bool:
    if key == "versions":  # the versions table has no key: it is the one listing the origin
        return any("origin" in d.value.columns for d in at.dataframe)
    return any(e.key == key for e in at.get(kind))


def _stored_body(path) -> dict:
    with Warehouse.open(path, read_only=True) as wh:
        _, body = current_workspace(wh) or (None, {})
    return body


def test_closed_sections_send_nothing_and_an_opened_one_draws(fixture_env):
    at = _page()
    labels = [e.label for e in at.expander]
    assert len(labels) == len(SECTIONS)  # every section is still listed, closed
    for kind, key in SECTIONS.values():
        assert not _drawn(at, kind, key), key
    assert [d.key for d in at.dataframe] == ["ws_demand", "ws_fleet"]  # the two tables in view
    # the workspace import and the bill are always in view; the trace's uploader is not
    assert {u.key for u in at.get("file_uploader")} == {"ws_import", "ws_bill"}
    for section, (kind, key) in SECTIONS.items():
        open_section(at, section)
        assert _drawn(at, kind, key), section
        others = [k for s, (t, k) in SECTIONS.items() if s != section and _drawn(at, t, k)]
        assert not others, others
        open_section(at, section, False)
        assert not _drawn(at, kind, key), section


def test_save_keeps_every_setting_when_more_settings_was_never_opened(writable_env):
    before = _stored_body(writable_env)  # the bundled example: owned terms, scenarios, discounts
    at = _page()
    at.text_input(key="ws_name").set_value("Example Corp (renamed)")
    at.button(key="ws_save").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    after = _stored_body(writable_env)
    assert after["name"] == "Example Corp (renamed)"
    assert workspace_from_dict({**after, "name": before["name"]}) == workspace_from_dict(before)


def test_owned_terms_are_saved_when_servers_are_allowed_with_settings_never_opened(
    writable_fixture_env,
):
    from planning.workspaces import example_workspace

    assert "owned" not in _stored_body(writable_fixture_env)  # the fixture keeps no owned terms
    at = _page()
    at.checkbox(key="ws_allow_owned").check()
    at.button(key="ws_save").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    saved = workspace_from_dict(_stored_body(writable_fixture_env))
    assert saved.constraints.allow_owned and saved.owned == example_workspace().owned


def test_settings_edited_then_closed_are_shown_again_and_saved(writable_env):
    at = open_section(_page(), MORE_SETTINGS)
    editor = at.dataframe(key="ws_scenarios").proto.id
    at.date_input(key="ws_start").set_value(date(2027, 1, 1))
    at.text_input(key="ws_discount_3y").set_value("0.5")
    at.number_input(key="ws_owned_pue").set_value(1.3)
    # A person's table edits: the low scenario's demand factor, and a new scenario.
    at.session_state["ws_scenarios"] = {
        "edited_rows": {0: {"demand_factor": 0.7}},
        "added_rows": [{"name": "flat", "probability": 0.0, "demand_factor": 1.0}],
        "deleted_rows": [],
    }
    at.run()
    at.run()  # another run while open: the edits apply once, not once per run
    assert not at.exception, at.exception
    # The table the person is editing stays the same editor (it is not drawn afresh from the
    # edited rows, which would apply the edits twice or lose the cell being typed in).
    assert at.dataframe(key="ws_scenarios").proto.id == editor

    open_section(at, MORE_SETTINGS, False)
    assert not [e for e in at.date_input if e.key == "ws_start"]
    at.run()  # a run with the section closed: Streamlit has forgotten its widgets by now

    open_section(at, MORE_SETTINGS)
    assert at.date_input(key="ws_start").value == date(2027, 1, 1)
    assert at.text_input(key="ws_discount_3y").value == "0.5"
    scenarios = at.dataframe(key="ws_scenarios").value
    assert list(scenarios["name"]) == ["low", "base", "high", "flat"]
    assert scenarios["demand_factor"].iloc[0] == 0.7
    at.text_input(key="ws_discount_1y").set_value("0.2")
    at.run()
    open_section(at, MORE_SETTINGS, False)

    at.button(key="ws_save").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    body = _stored_body(writable_env)
    assert body["start"] == "2027-01-01"
    assert (body["commitment"]["discount_1y"], body["commitment"]["discount_3y"]) == (0.2, 0.5)
    assert body["owned"]["pue"] == 1.3
    scenarios = body["commitment"]["scenarios"]
    assert [s["name"] for s in scenarios] == ["low", "base", "high", "flat"]
    assert scenarios[0]["demand_factor"] == 0.7


def test_kept_settings_give_way_to_a_version_saved_meanwhile(writable_env):
    """Settings kept while "More settings" is closed belong to the workspace they were opened on:
    once someone saves another version, the page shows and saves that version's settings, not
    the kept ones over it."""
    from warehouse.workspace_versions import save_workspace

    at = open_section(_page(), MORE_SETTINGS)
    at.text_input(key="ws_discount_1y").set_value("0.2")
    at.run()
    open_section(at, MORE_SETTINGS, False)

    body = _stored_body(writable_env)
    body["commitment"]["discount_1y"] = 0.4  # saved elsewhere, e.g. `tokendesk workspace import`
    with Warehouse.open(writable_env) as wh:
        save_workspace(wh, body, origin="import", source="elsewhere.yaml")
    at.run()
    at.button(key="ws_save").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert _stored_body(writable_env)["commitment"]["discount_1y"] == 0.4
