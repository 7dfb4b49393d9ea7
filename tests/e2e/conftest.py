"""Serve the real dashboard (``tokendesk app``) on a free local port and drive it with Debian's
headless Chromium through Playwright. Screenshots land in ``test-artifacts/``."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.e2e.artifacts import ARTIFACTS
from tests.e2e.server import start_dashboard

CHROMIUM = os.environ.get("TOKENDESK_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]


@pytest.fixture(scope="session")
def app_url(tmp_path_factory) -> str:
    db = tmp_path_factory.mktemp("e2e") / "e2e.duckdb"
    process, url = start_dashboard(db, tmp_path_factory.mktemp("e2e-log") / "app.log")
    yield url
    process.terminate()
    process.wait(timeout=20)


def _short_tmpdir_env() -> dict[str, str]:
    """Chromium makes its single-instance socket in a folder under TMPDIR, and a Unix socket's
    path may not pass 107 bytes: under a long TMPDIR it aborts at launch ("Socket path too
    long"). Its profile stays where Playwright puts it; only the socket moves to /tmp."""
    return {**os.environ, "TMPDIR": "/tmp"} if os.path.isdir("/tmp") else dict(os.environ)


@pytest.fixture(scope="module")
def browser():
    # One Playwright per test file, not per session: while the sync API is started its event
    # loop counts as running in this thread, so a later test file in the same process that calls
    # asyncio.run() (the harness's CLI does) would fail with "cannot be called from a running
    # event loop". Test files are spread over processes by file, so this order varies.
    if not Path(CHROMIUM).exists() and not shutil.which("chromium"):
        pytest.fail(
            f"Chromium not found at {CHROMIUM}; install Debian's chromium package "
            "(the README's test command does)"
        )
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(
            executable_path=CHROMIUM, args=CHROMIUM_ARGS, env=_short_tmpdir_env()
        )
        yield instance
        instance.close()


@pytest.fixture
def page(browser):
    ARTIFACTS.mkdir(exist_ok=True)
    context = browser.new_context(viewport={"width": 1500, "height": 1100})
    yield context.new_page()
    context.close()
