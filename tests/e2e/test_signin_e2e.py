"""Team sign-in against a real OpenID Connect provider started here: an unsigned visit goes to the
provider; a viewer gets no write control and no negotiated quote; an editor gets both, and a
write records the editor's e-mail address."""

from __future__ import annotations

import re
import secrets
import threading
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote as url_quote

import httpx
import pytest
from werkzeug.serving import make_server

from tests.e2e.artifacts import screenshot
from tests.e2e.server import free_port, start_dashboard
from tests.factories import negotiated_quotes, seeded_warehouse
from warehouse import Warehouse
from warehouse.workspace_versions import workspace_versions

pytestmark = pytest.mark.e2e

VIEWER = "viewer@example.com"  # not in the role map: the default role, viewer
EDITOR = "editor@example.com"  # an editor through the group claim of the identity token
EDITORS_GROUP = "procurement"
CTO = "cto@example.com"  # an admin by the role map
NEGOTIATED_PROVIDER = "examplecloud"
SIGNED_IN = re.compile(r"Signed in as")
TIMEOUT_MS = 90_000


@pytest.fixture(scope="module")
def provider() -> Iterator[str]:
    """A real OIDC provider (discovery, authorization, token endpoints) on a free local port."""
    from oidc_provider_mock import app as oidc_app

    server = make_server("127.0.0.1", 0, oidc_app(require_nonce=False), threaded=True)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1})
    thread.start()
    url = f"http://127.0.0.1:{server.server_port}"
    claims = {
        VIEWER: {"groups": ["staff"], "email_verified": True},
        EDITOR: {"groups": ["staff", EDITORS_GROUP], "email_verified": True},
    }
    for email, extra in claims.items():
        response = httpx.put(f"{url}/users/{url_quote(email)}", json={"email": email, **extra})
        assert response.status_code == 204
    yield url
    server.shutdown()
    thread.join(timeout=10)


@pytest.fixture(scope="module")
def team_db(tmp_path_factory) -> Path:
    """The bundled warehouse plus two negotiated quotes from a provider that has no other."""
    db = tmp_path_factory.mktemp("team") / "team.duckdb"
    negotiated = negotiated_quotes(
        NEGOTIATED_PROVIDER, {"8x-h100-a": "Q-E2E-1", "8x-h100-b": "Q-E2E-2"}
    )
    with seeded_warehouse(db) as warehouse:
        warehouse.ingest_prices(f"sheet:{NEGOTIATED_PROVIDER}:negotiated", negotiated)
    return db


@pytest.fixture(scope="module")
def team_url(provider, team_db, tmp_path_factory) -> Iterator[str]:
    """The dashboard in team mode: sign-in through ``provider``; the editors' group is in the
    role map, everyone else gets the default role."""
    folder = tmp_path_factory.mktemp("team-app")
    port = free_port()
    secrets_file = folder / "secrets.toml"
    secrets_file.write_text(
        f"""
[auth]
redirect_uri = "http://127.0.0.1:{port}/oauth2callback"
cookie_secret = "{secrets.token_hex(32)}"
client_id = "tokendesk-e2e"
client_secret = "{secrets.token_hex(16)}"
server_metadata_url = "{provider}/.well-known/openid-configuration"

[tokendesk.roles]
"group:{EDITORS_GROUP}" = "editor"
"{CTO}" = "admin"
""",
        encoding="utf-8",
    )
    process, url = start_dashboard(team_db, folder / "app.log", port=port, secrets=secrets_file)
    yield url
    process.terminate()
    process.wait(timeout=20)


def sign_in(page, url: str, provider: str, email: str) -> None:
    """Open the dashboard unsigned: it sends the browser to the provider; sign in as ``email``."""
    page.goto(url)
    page.wait_for_url(f"{provider}/oauth2/authorize*", timeout=TIMEOUT_MS)
    page.get_by_placeholder("sub").fill(email)
    page.get_by_role("button", name="Authorize").click()
    page.get_by_text(SIGNED_IN).first.wait_for(timeout=TIMEOUT_MS)
    assert email in page.get_by_text(SIGNED_IN).first.inner_text()


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


def authorize(page, url: str, provider: str, sub: str) -> None:
    """Open the dashboard unsigned and authorize at the provider as the subject ``sub``."""
    page.goto(url)
    page.wait_for_url(f"{provider}/oauth2/authorize*", timeout=TIMEOUT_MS)
    page.get_by_placeholder("sub").fill(sub)
    page.get_by_role("button", name="Authorize").click()


def _user(provider: str, sub: str, claims: dict) -> None:
    response = httpx.put(f"{provider}/users/{url_quote(sub)}", json=claims)
    assert response.status_code == 204


def test_an_unverified_email_of_the_admin_gets_no_role(team_url, provider, page):
    # The provider passes on whatever address the account holder typed, unverified.
    _user(provider, "mallory", {"email": "CTO@Example.com", "email_verified": False})
    authorize(page, team_url, provider, "mallory")
    page.get_by_text("No role can be given").wait_for(timeout=TIMEOUT_MS)
    assert page.get_by_text("did not confirm that the e-mail address is verified").count() == 1
    assert page.get_by_text(SIGNED_IN).count() == 0
    screenshot(page, "signin-unverified")


def test_a_subject_that_reads_as_the_admins_address_gets_no_role(team_url, provider, page):
    # A subject the account holder chose, and no e-mail claim at all.
    _user(provider, CTO, {})
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
    _user(provider, "cto-account", {"email": "Cto@Example.COM", "email_verified": True})
    authorize(page, team_url, provider, "cto-account")
    page.get_by_text(SIGNED_IN).first.wait_for(timeout=TIMEOUT_MS)
    shown = page.get_by_text(SIGNED_IN).first.inner_text()
    assert CTO in shown and "role: admin" in shown
