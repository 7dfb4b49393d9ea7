"""Serve the real dashboard (``tokendesk app``) on a free local port and drive it with Debian's
headless Chromium through Playwright. Screenshots land in ``test-artifacts/``."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tests.e2e.artifacts import ARTIFACTS
from tokendesk.paths import REPO_ROOT

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


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="session")
def app_url(tmp_path_factory) -> str:
    db = tmp_path_factory.mktemp("e2e") / "e2e.duckdb"
    port = _free_port()
    log = (tmp_path_factory.mktemp("e2e-log") / "app.log").open("w")
    process = subprocess.Popen(
        [sys.executable, "-m", "tokendesk.cli", "app", "--port", str(port), "--db", str(db)],
        stdout=log,
        stderr=subprocess.STDOUT,
        cwd=REPO_ROOT,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{url}/_stcore/health", timeout=1).text == "ok":
                break
        except httpx.HTTPError:
            time.sleep(0.5)
    else:
        process.terminate()
        pytest.fail(f"dashboard did not start; log: {Path(log.name).read_text()}")
    yield url
    process.terminate()
    process.wait(timeout=20)


@pytest.fixture(scope="session")
def browser():
    if not Path(CHROMIUM).exists() and not shutil.which("chromium"):
        pytest.fail(
            f"Chromium not found at {CHROMIUM}; install Debian's chromium package "
            "(the README's test command does)"
        )
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield instance
        instance.close()


@pytest.fixture
def page(browser):
    ARTIFACTS.mkdir(exist_ok=True)
    context = browser.new_context(viewport={"width": 1500, "height": 1100})
    yield context.new_page()
    context.close()
