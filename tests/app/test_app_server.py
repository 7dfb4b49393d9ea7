"""`tokendesk app` is the Streamlit server itself: it binds this machine only by default, and a
SIGTERM stops it with nothing left listening."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

from tokendesk.paths import REPO_ROOT


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _listening_addresses(port: int) -> set[str]:
    """Local IPv4 addresses with a socket listening on ``port``, read from /proc/net/tcp."""
    found = set()
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        local, state = line.split()[1], line.split()[3]
        address, hex_port = local.split(":")
        if state == "0A" and int(hex_port, 16) == port:  # 0A = LISTEN
            octets = [str(int(address[i : i + 2], 16)) for i in (6, 4, 2, 0)]
            found.add(".".join(octets))
    return found


def _wait_healthy(url: str, process: subprocess.Popen, seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        assert process.poll() is None, "tokendesk app exited before serving"
        try:
            if httpx.get(f"{url}/_stcore/health", timeout=1).text == "ok":
                return
        except httpx.HTTPError:
            time.sleep(0.5)
    raise AssertionError("tokendesk app did not start serving")


def test_sigterm_stops_the_server_and_it_binds_localhost_by_default(tmp_path):
    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "cli.main", "app", "--port", str(port)]
        + ["--db", str(tmp_path / "w.duckdb")],
        cwd=REPO_ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        _wait_healthy(f"http://127.0.0.1:{port}", process)
        assert _listening_addresses(port) == {"127.0.0.1"}
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=60)
        assert _listening_addresses(port) == set()
    finally:
        if process.poll() is None:
            process.kill()
