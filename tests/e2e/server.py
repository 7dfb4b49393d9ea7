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


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_dashboard(
    db: Path, log_path: Path, *, port: int | None = None, secrets: Path | None = None
) -> tuple[subprocess.Popen, str]:
    """Serve ``tokendesk app`` on ``db`` on ``port`` (default: a free one), with ``secrets`` as
    its secrets.toml if given; (process, url) once it answers."""
    port = port or free_port()
    log = log_path.open("w")
    extra = ["--secrets", str(secrets)] if secrets is not None else []
    process = subprocess.Popen(
        [
            sys.executable,
            *("-m", "cli.main", "app", "--port", str(port), "--db", str(db)),
            *extra,
        ],
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
