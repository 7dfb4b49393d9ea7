"""Team sign-in against a real OpenID Connect provider started here: an unsigned visit goes to the
provider; a viewer gets no write control and no negotiated quote; an editor gets both, and a
write records the editor's e-mail address."""

from __future__ import annotations

import re

import pytest

from tests.e2e.artifacts import screenshot
from tests.e2e.team import (  # the team dashboard and its provider (fixtures used by name)
    CTO,
    EDITOR,
    NEGOTIATED_PROVIDER,
    SIGNED_IN,
    TIMEOUT_MS,
    VIEWER,
    authorize,
    provider,
    sign_in,
    team_db,
    team_url,
    user,
)
from warehouse import Warehouse
from warehouse.workspace_versions import workspace_versions

__all__ = ["provider", "team_db", "team_url"]  # fixtures, used by name

pytestmark = pytest.mark.e2e


def test_an_unsigned_visit_goes_to_the_provider(team_url, provider, page):
    page.goto(f"{team_url}/prices")
    page.wait_for_url(f"{provider}/oauth2/authorize*", timeout=TIMEOUT_MS)
    assert "client_id=tokendesk-e2e" in page.url


def test_a_viewer_gets_no_write_control_and_no_negotiated_quote(team_url, provider, page):
    sign_in(page, team_url, provider, VIEWER)
    assert "role: viewer" in page.get_by_text(SIGNED_IN).first.inner_text()
    page.get_by_text("2 negotiated quote(s) are hidden").wait_for(timeout=TIMEOUT_MS)

    page.goto(f"{team_url}/workspace")
    save = page.get_by_role("button", name="Save as a new version")
    save.wait_for(timeout=TIMEOUT_MS)
    assert save.is_disabled()
    page.get_by_text("saving or importing a workspace needs the editor or admin role").wait_for()

    page.goto(f"{team_url}/prices")
    page.get_by_role("tab", name="Refresh prices").click()
    refresh = page.get_by_role("button", name="Refresh prices")
    refresh.wait_for(timeout=TIMEOUT_MS)
    assert refresh.is_disabled()
    page.get_by_text("refreshing prices needs the editor or admin role").wait_for()

    page.goto(f"{team_url}/benchmarks")
    page.get_by_role("tab", name="Import result file").click()
    page.get_by_text("importing benchmark results needs the editor or admin role").wait_for(
        timeout=TIMEOUT_MS
    )
    assert page.get_by_role("button", name="Validate and preview").is_disabled()
    screenshot(page, "signin-viewer")

    # The negotiated quotes' provider is unknown to a viewer: a link naming it is refused.
    page.goto(f"{team_url}/costs?provider={NEGOTIATED_PROVIDER}")
    page.get_by_text(f"Ignored provider='{NEGOTIATED_PROVIDER}'").wait_for(timeout=TIMEOUT_MS)


def test_an_editor_writes_and_the_write_records_the_editor(team_url, provider, team_db, page):
    sign_in(page, team_url, provider, EDITOR)
    assert "role: editor" in page.get_by_text(SIGNED_IN).first.inner_text()
    assert page.get_by_text("negotiated quote(s) are hidden").count() == 0

    page.goto(f"{team_url}/costs?provider={NEGOTIATED_PROVIDER}")
    page.get_by_text("All options").wait_for(timeout=TIMEOUT_MS)
    assert page.get_by_text("Ignored provider").count() == 0

    page.goto(f"{team_url}/prices")
    page.get_by_role("tab", name="Refresh prices").click()
    assert page.get_by_role("button", name="Refresh prices").is_enabled()

    page.goto(f"{team_url}/workspace")
    save = page.get_by_role("button", name="Save as a new version")
    save.wait_for(timeout=TIMEOUT_MS)
    assert save.is_enabled()
    save.click()
    page.get_by_text(re.compile(r"Saved as version \d+")).wait_for(timeout=TIMEOUT_MS)
    saved = int(
        re.search(r"\d+", page.get_by_text(re.compile(r"Saved as version")).inner_text())[0]
    )
    screenshot(page, "signin-editor")
    with Warehouse.open(team_db, read_only=True) as warehouse, warehouse.reading():
        versions = workspace_versions(warehouse).set_index("version")
    assert versions.loc[saved, "created_by"] == EDITOR
    assert versions.loc[saved, "origin"] == "dashboard"


def test_without_sign_in_configured_the_dashboard_says_it_is_single_user(app_url, page):
    page.goto(f"{app_url}/workspace")
    page.get_by_text("Single-user mode: no sign-in is configured").wait_for(timeout=TIMEOUT_MS)
    assert page.get_by_role("button", name="Save as a new version").is_enabled()
    assert page.get_by_text(SIGNED_IN).count() == 0


def test_an_unverified_email_of_the_admin_gets_no_role(team_url, provider, page):
    # The provider passes on whatever address the account holder typed, unverified.
    user(provider, "mallory", {"email": "CTO@Example.com", "email_verified": False})
    authorize(page, team_url, provider, "mallory")
    page.get_by_text("No role can be given").wait_for(timeout=TIMEOUT_MS)
    assert page.get_by_text("did not confirm that the e-mail address is verified").count() == 1
    assert page.get_by_text(SIGNED_IN).count() == 0
    screenshot(page, "signin-unverified")


def test_a_subject_that_reads_as_the_admins_address_gets_no_role(team_url, provider, page):
    # A subject the account holder chose, and no e-mail claim at all.
    user(provider, CTO, {})
    authorize(page, team_url, provider, CTO)
    page.get_by_text("No role can be given").wait_for(timeout=TIMEOUT_MS)
    assert page.get_by_text("sent no e-mail address").count() == 1
    assert page.get_by_text(SIGNED_IN).count() == 0


def test_a_new_subject_typed_at_the_provider_gets_no_role(team_url, provider, page):
    # The provider makes an account on the spot whose e-mail claim is the typed subject,
    # without email_verified: typing the admin's address is not signing in as the admin.
    authorize(page, team_url, provider, "CTO@example.com")
    page.get_by_text("No role can be given").wait_for(timeout=TIMEOUT_MS)
    assert page.get_by_text(SIGNED_IN).count() == 0


def test_the_admins_verified_address_in_another_case_is_admin(team_url, provider, page):
    user(provider, "cto-account", {"email": "Cto@Example.COM", "email_verified": True})
    authorize(page, team_url, provider, "cto-account")
    page.get_by_text(SIGNED_IN).first.wait_for(timeout=TIMEOUT_MS)
    shown = page.get_by_text(SIGNED_IN).first.inner_text()
    assert CTO in shown and "role: admin" in shown
