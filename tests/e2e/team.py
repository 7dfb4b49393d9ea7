"""Team mode for browser tests: a real OpenID Connect provider started here, a warehouse with two
negotiated quotes, the dashboard signing in at that provider, and signing in as a person would."""

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

from tests.e2e.server import free_port, start_dashboard
from tests.factories import negotiated_quotes, seeded_warehouse

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


def authorize(page, url: str, provider: str, sub: str) -> None:
    """Open the dashboard unsigned and authorize at the provider as the subject ``sub``."""
    page.goto(url)
    page.wait_for_url(f"{provider}/oauth2/authorize*", timeout=TIMEOUT_MS)
    page.get_by_placeholder("sub").fill(sub)
    page.get_by_role("button", name="Authorize").click()


def user(provider: str, sub: str, claims: dict) -> None:
    """Make (or replace) the provider's account ``sub`` with these claims."""
    response = httpx.put(f"{provider}/users/{url_quote(sub)}", json=claims)
    assert response.status_code == 204
