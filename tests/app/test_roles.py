"""Roles on the dashboard: what a viewer, an editor and the single-user default may see and do,
checked at the data layer (``app.data``) and on the pages."""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from tests.app.pages import VIEWS, open_section
from tests.app.team import EDITOR, TEAM, VIEWER
from tests.factories import negotiated_quotes
from warehouse import Warehouse
from warehouse.workspace_versions import workspace_versions

NEGOTIATED_SOURCE = "sheet:examplecloud:negotiated"
#: The Benchmarks page's tabs (only the open one is drawn).
BENCH_TABS = "benchmarks_tab"


@pytest.fixture
def team_env(writable_env):
    """A warehouse whose only examplecloud prices are two negotiated quotes."""
    negotiated = negotiated_quotes("examplecloud", {"q-1": "Q-1", "q-2": "Q-2"})
    with Warehouse.open(writable_env) as warehouse:
        warehouse.ingest_prices(NEGOTIATED_SOURCE, negotiated)
    return writable_env


def _everything_read() -> None:
    """Every read the pages make that can carry a price, as JSON for the test to inspect."""
    import json

    import streamlit as st

    from app import data, price_reads

    path = data.db_path()
    seen = {
        "cost_options": sorted(set(data.cost_options(path, ())["pricing_model"])),
        "cost_options_negotiated_only": len(
            data.cost_options(path, (("pricing_model", ("negotiated",)),))
        ),
        "count_negotiated_only": data.count_options(path, (("pricing_model", ("negotiated",)),)),
        "explorer": sorted(set(price_reads.price_explorer(path, ())["pricing_model"])),
        "skus": sorted(set(price_reads.price_skus(path)["pricing_model"])),
        "history": len(price_reads.price_history(path, "examplecloud", "any", "q-1", "negotiated")),
        "quotes": sorted({str(q.pricing_model) for q in price_reads.current_price_quotes(path)}),
        "filter_providers": data.filter_values(path)["provider"],
        "filter_models": data.filter_values(path)["pricing_model"],
        "freshness_sources": sorted(data.freshness(path)["source"]),
        "price_sources": sorted(price_reads.current_price_sources(path)["source"]),
        "integrity_sources": sorted(set(price_reads.current_integrity(path)["source"])),
        "hidden": data.hidden_negotiated_quotes(path),
    }
    st.code(json.dumps(seen), language="json")


def _read_as(user: dict | None) -> dict:
    at = AppTest.from_function(_everything_read, default_timeout=120)
    if user is not None:
        at.secrets = TEAM
        at.user = user
    at.run()
    assert not at.exception, at.exception
    return json.loads(at.code[0].value)


def test_a_viewer_reads_no_negotiated_quote_anywhere(team_env):
    seen = _read_as(VIEWER)
    for key in ("cost_options", "explorer", "skus", "quotes", "filter_models"):
        assert "negotiated" not in seen[key], key
    assert seen["cost_options_negotiated_only"] == 0 and seen["count_negotiated_only"] == 0
    assert seen["history"] == 0
    assert "examplecloud" not in seen["filter_providers"]
    for key in ("freshness_sources", "price_sources", "integrity_sources"):
        assert NEGOTIATED_SOURCE not in seen[key], key
    assert seen["hidden"] == 2


@pytest.mark.parametrize("user", [EDITOR, None], ids=["editor", "single-user"])
def test_an_editor_and_the_single_user_read_them(team_env, user):
    seen = _read_as(user)
    for key in ("cost_options", "explorer", "skus", "quotes", "filter_models"):
        assert "negotiated" in seen[key], key
    assert seen["cost_options_negotiated_only"] > 0
    assert seen["count_negotiated_only"] == seen["cost_options_negotiated_only"]
    assert seen["history"] == 1
    assert "examplecloud" in seen["filter_providers"]
    assert NEGOTIATED_SOURCE in seen["price_sources"]
    assert seen["hidden"] == 0


def _save_the_workspace() -> None:
    """Save the stored workspace again through the dashboard's write function."""
    import streamlit as st

    from app import data, plan_reads
    from tokendesk.access import AccessDenied

    _, ws = data.workspace(data.db_path())
    try:
        st.write(f"saved version {plan_reads.save_workspace(ws)}")
    except AccessDenied as exc:
        st.write(f"refused: {exc}")


def test_the_write_function_refuses_a_viewer_and_records_an_editor(team_env):
    at = AppTest.from_function(_save_the_workspace, default_timeout=120)
    at.secrets, at.user = TEAM, VIEWER
    at.run()
    assert not at.exception, at.exception
    assert at.markdown[0].value.startswith("refused: You are signed in as pat@example.com")
    with Warehouse.open(team_env, read_only=True) as warehouse, warehouse.reading():
        assert len(workspace_versions(warehouse)) == 1

    at = AppTest.from_function(_save_the_workspace, default_timeout=120)
    at.secrets, at.user = TEAM, EDITOR
    at.run()
    assert at.markdown[0].value == "saved version 2"
    with Warehouse.open(team_env, read_only=True) as warehouse, warehouse.reading():
        newest = workspace_versions(warehouse).iloc[0]
    assert (newest["version"], newest["created_by"]) == (2, "lee@example.com")


def _page(name: str, user: dict | None) -> AppTest:
    at = AppTest.from_file(str(VIEWS / name), default_timeout=120)
    if user is not None:
        at.secrets, at.user = TEAM, user
    at.run()
    assert not at.exception, at.exception
    return at


def test_a_viewer_finds_every_write_control_disabled_with_the_reason(team_env):
    workspace = _page("workspace.py", VIEWER)
    assert workspace.button(key="ws_save").disabled
    assert workspace.text_input(key="ws_name").disabled
    assert workspace.button(key="ws_start_own").disabled
    open_section(workspace, "ws_add_line_open")
    assert workspace.button(key="ws_add_line").disabled
    assert any("saving or importing a workspace needs" in i.value for i in workspace.info)

    prices = open_section(_page("prices.py", VIEWER), "prices_tab", "Refresh prices")
    assert prices.button(key="refresh_run").disabled
    assert any("refreshing prices needs the editor" in i.value for i in prices.info)

    benchmarks = open_section(_page("benchmarks.py", VIEWER), BENCH_TABS, "Import result file")
    assert benchmarks.button(key="upload_preview").disabled
    assert any("importing benchmark results needs" in i.value for i in benchmarks.info)
    open_section(benchmarks, BENCH_TABS, "Import history")
    assert benchmarks.button(key="retract_confirm").disabled
    assert any("retracting an import needs" in i.value for i in benchmarks.info)


@pytest.mark.parametrize("user", [EDITOR, None], ids=["editor", "single-user"])
def test_an_editor_and_the_single_user_find_them_enabled(team_env, user):
    workspace = _page("workspace.py", user)
    assert not workspace.button(key="ws_save").disabled
    prices = open_section(_page("prices.py", user), "prices_tab", "Refresh prices")
    assert not prices.button(key="refresh_run").disabled
    benchmarks = _page("benchmarks.py", user)
    for tab in ("Import result file", "Import history"):
        open_section(benchmarks, BENCH_TABS, tab)
        assert not benchmarks.info or not any("needs the" in i.value for i in benchmarks.info)
    assert not benchmarks.button(key="retract_confirm").disabled


def _main(user: dict | None, secrets: dict | None = None) -> AppTest:
    at = AppTest.from_file(str(VIEWS.parent / "streamlit_app.py"), default_timeout=120)
    if user is not None:
        at.secrets, at.user = secrets or TEAM, user
    at.run()
    assert not at.exception, at.exception
    return at


def test_the_sidebar_says_who_is_signed_in_and_what_is_hidden(team_env):
    viewer = _main(VIEWER)
    captions = [c.value for c in viewer.sidebar.caption]
    assert captions[0] == "Signed in as **pat@example\\.com** · role: viewer"
    assert captions[1].startswith("2 negotiated quote(s) are hidden: the viewer role")
    assert not viewer.sidebar.expander  # the role map is for admins

    admin_config = {**TEAM, "tokendesk": {"roles": {"ana@example.com": "admin"}}}
    admin = _main(
        {"is_logged_in": True, "email": "ana@example.com", "email_verified": True}, admin_config
    )
    assert [e.label for e in admin.sidebar.expander] == ["Roles"]
    assert not any("are hidden" in c.value for c in admin.sidebar.caption)


def test_single_user_mode_says_so(team_env):
    at = _main(None)
    assert at.sidebar.caption[0].value.startswith("Single-user mode: no sign-in is configured")


def test_a_broken_role_map_stops_every_page_and_names_the_key(team_env):
    broken = {**TEAM, "tokendesk": {"roles": {"ana": "admin"}}}
    at = _main(VIEWER, broken)
    assert len(at.error) == 1
    assert "role settings cannot be used" in at.error[0].value
    assert "neither an e\\-mail address" in at.error[0].value
    assert not at.sidebar.caption and not at.title  # no page was drawn


# -- identity: the role comes only from an address the provider verified -------------------------
CTO_ADMIN = {**TEAM, "tokendesk": {"roles": {"cto@example.com": "admin"}}}


@pytest.mark.parametrize(
    ("user", "problem"),
    [
        (
            {"is_logged_in": True, "sub": "mallory", "email": "CTO@Example.com"},
            "did not confirm that the e\\-mail address is verified",
        ),
        (
            {
                "is_logged_in": True,
                "sub": "mallory",
                "email": "CTO@Example.com",
                "email_verified": False,
            },
            "did not confirm that the e\\-mail address is verified",
        ),
        ({"is_logged_in": True, "sub": "cto@example.com"}, "sent no e\\-mail address"),
    ],
    ids=["unverified-email", "email-verified-false", "email-only-in-sub"],
)
def test_a_spoofed_identity_gets_no_role_and_no_page(team_env, user, problem):
    at = _main(user, CTO_ADMIN)
    assert len(at.error) == 1, [e.value for e in at.error]
    assert "No role can be given" in at.error[0].value
    assert problem in at.error[0].value
    assert not at.sidebar.expander and not at.title  # no page, no role map, no quote


def test_a_verified_address_in_another_case_is_the_configured_admin(team_env):
    at = _main(
        {"is_logged_in": True, "sub": "x", "email": "CTO@Example.COM", "email_verified": True},
        CTO_ADMIN,
    )
    captions = [c.value for c in at.sidebar.caption]
    assert captions[0] == "Signed in as **cto@example\\.com** · role: admin"
    assert [e.label for e in at.sidebar.expander] == ["Roles"]
