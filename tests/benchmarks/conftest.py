from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator

import pytest


class ServerProc:
    def __init__(self, *args: str):
        # A separate process, as a real server is: the client's event loop and GIL stay its own.
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "benchmarks.fake_server",
                "--port",
                "0",
                "--duration-s",
                "120",
                *args,
            ],
            stdout=subprocess.PIPE,
            text=True,
        )
        line = self.proc.stdout.readline()
        assert line.startswith("PORT "), f"fake server did not start: {line!r}"
        self.port = int(line.split()[1])
        self.url = f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()


@pytest.fixture(scope="module")
def fake_server() -> Iterator[ServerProc]:
    server = ServerProc("--ttft-ms", "30", "--itl-ms", "5")
    yield server
    server.stop()


@pytest.fixture
def make_server():
    started: list[ServerProc] = []

    def start(*args: str) -> ServerProc:
        server = ServerProc(*args)
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()
