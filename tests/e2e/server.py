"""Serve the real dashboard for a browser test."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tokendesk.paths import REPO_ROOT


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_dashboard(db: Path, log_path: Path) -> tuple[subprocess.Popen, str]:
    """Serve ``tokendesk app`` on ``db`` on a free port; (process, url) once it answers."""
    port = _free_port()
    log = log_path.open("w")
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
        pytest.fail(f"dashboard did not start; log: {log_path.read_text()}")
    return process, url
