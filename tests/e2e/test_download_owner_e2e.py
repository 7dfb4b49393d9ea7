"""In team mode a download is served only to the signed-in session that made it: an admin downloads
the Prices page's CSV (its negotiated quote included; made when clicked) and the workspace YAML
(made with the page) in Chromium, and the very addresses the browser fetched are then asked for
with no cookie and with a viewer's cookie (refused: "not found", nothing of the file), and with
the admin's own cookies (served, the same bytes). The real dashboard, through ``tokendesk app``,
signed in at a real OpenID Connect provider."""

from __future__ import annotations

import httpx
import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from tests.e2e.team import (  # the team dashboard and its provider (fixtures used by name)
    CTO,
    NEGOTIATED_PROVIDER,
    TIMEOUT_MS,
    VIEWER,
    authorize,
    provider,
    sign_in,
    team_db,
    team_url,
    user,
)

pytestmark = pytest.mark.e2e

__all__ = ["provider", "team_db", "team_url"]  # fixtures, used by name

ADMIN_SUBJECT = "cto-downloads"


#: Tries at a download before the test gives up (see :func:`_download`).
TRIES = 3


def _download(page, button_name: str) -> tuple[str, bytes]:
    """Click the download button; (the address the browser fetched, the bytes it saved)."""
    button = page.get_by_role("button", name=button_name)
    status = page.locator('[data-testid="stStatusWidget"]')
    # On a busy machine a click has twice brought nothing: once no download in 90 s, once a
    # button left disabled (its file being made) for over a minute. A person whose click
    # brought nothing reloads the page and clicks again, and so does this, up to TRIES times,
    # each after the page's run has finished.
    for attempt in range(1, TRIES + 1):
        button.wait_for(timeout=TIMEOUT_MS)
        status.wait_for(state="hidden", timeout=TIMEOUT_MS)
        try:
            with page.expect_download(timeout=TIMEOUT_MS // 2) as info:
                button.click(timeout=TIMEOUT_MS // 2)
            break
        except PlaywrightTimeoutError:
            if attempt == TRIES:
                raise
            page.reload()
    download = info.value
    with open(download.path(), "rb") as saved:
        return download.url, saved.read()


def _cookies(page) -> dict[str, str]:
    return {cookie["name"]: cookie["value"] for cookie in page.context.cookies()}


def _refused(url: str, cookies: dict[str, str], secret: bytes) -> None:
    answer = httpx.get(url, cookies=cookies, timeout=30)
    assert answer.status_code == 404, (answer.status_code, answer.headers)
    assert secret not in answer.content
    assert "attachment" not in answer.headers.get("content-disposition", "")


def _served_to_this_session_only(page, url: str, content: bytes, others: dict) -> None:
    """Asked for again at once (Streamlit drops a file a few page runs after the session stops
    showing it, so the served answer at the end shows the file was there all along): refused
    without a cookie, with the session's other cookies, with another person's; served with the
    session's own."""
    assert "/media/" in url and content
    cookies = _cookies(page)
    assert "_streamlit_user" in cookies  # the sign-in cookie the session's files are bound to
    _refused(url, {}, content)
    _refused(url, {k: v for k, v in cookies.items() if k != "_streamlit_user"}, content)
    _refused(url, others, content)
    served = httpx.get(url, cookies=cookies, timeout=30)
    assert served.status_code == 200
    assert served.content == content


def test_an_admins_downloads_are_served_to_the_admins_session_only(
    team_url, provider, browser, page
):
    # Another person signed in, in a browser of their own, while the admin works.
    viewer = browser.new_context()
    try:
        viewer_page = viewer.new_page()
        sign_in(viewer_page, team_url, provider, VIEWER)
        viewers = _cookies(viewer_page)
    finally:
        viewer.close()
    assert "_streamlit_user" in viewers

    user(provider, ADMIN_SUBJECT, {"email": CTO, "email_verified": True})
    authorize(page, team_url, provider, ADMIN_SUBJECT)
    page.get_by_text("role: admin").wait_for(timeout=TIMEOUT_MS)

    # Made when clicked (a deferred download), from rows the viewer may not see.
    page.goto(f"{team_url}/prices?provider={NEGOTIATED_PROVIDER}")
    prices_url, prices = _download(page, "Download these prices (CSV)")
    assert b"Q-E2E-1" in prices  # the negotiated quote's id: what must not leak
    _served_to_this_session_only(page, prices_url, prices, viewers)

    # Made with the page (its address is in the page sent to the session).
    page.goto(f"{team_url}/workspace")
    yaml_url, workspace = _download(page, "Download as YAML")
    _served_to_this_session_only(page, yaml_url, workspace, viewers)
