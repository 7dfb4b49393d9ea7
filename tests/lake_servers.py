"""Real servers for the team-mode tests: PostgreSQL (the DuckLake catalog) and an S3-compatible
object store (moto's server), each started in a temporary directory on a free loopback port.

PostgreSQL comes from Debian's packages (scripts/setup.sh --dev installs them). Its server
refuses to run as root, so under root (CI) it runs as the ``postgres`` account the package
creates; otherwise as the current user.
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

#: Seconds a server may take to answer after its start (bounded: the tests never hang).
START_LIMIT_S = 60.0


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def postgres_bindir() -> Path | None:
    """The folder with initdb and pg_ctl: Debian keeps them off PATH, per major version."""
    found = shutil.which("initdb")
    if found and shutil.which("pg_ctl"):
        return Path(os.path.realpath(found)).parent
    versions = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/initdb"),
        key=lambda path: int(Path(path).parts[-3]) if Path(path).parts[-3].isdigit() else 0,
    )
    return Path(versions[-1]).parent if versions else None


@dataclass(frozen=True)
class PostgresServer:
    bindir: Path
    port: int
    folder: Path
    user: str = "tokendesk"

    def _pg_ctl(self, *arguments: str) -> None:
        data, log = self.folder / "data", self.folder / "server.log"
        command = [str(self.bindir / "pg_ctl"), "-D", str(data), "-l", str(log), *arguments]
        subprocess.run(
            _as_server_account(command), check=True, capture_output=True, timeout=START_LIMIT_S
        )

    def start(self) -> None:
        # -F: no fsync, a test db. -k '': no Unix socket (clients come over TCP), whose path
        # may not pass 107 bytes and would not fit under a long temporary folder.
        options = f"-h 127.0.0.1 -p {self.port} -k '' -F"
        self._pg_ctl("-o", options, "-w", "-t", str(int(START_LIMIT_S) - 5), "start")

    def stop(self, mode: str = "fast") -> None:
        """``fast`` ends every session (rolling back open transactions); ``immediate`` is a
        crash: the server exits at once and replays its log at the next start."""
        self._pg_ctl("-m", mode, "-w", "stop")

    def conninfo(self, dbname: str) -> str:
        return f"host=127.0.0.1 port={self.port} user={self.user} dbname={dbname}"

    def create_database(self, name: str) -> str:
        """A new, empty database; returns its ``ducklake:postgres:`` warehouse target."""
        subprocess.run(
            [str(self.bindir / "createdb"), "-h", "127.0.0.1", "-p", str(self.port)]
            + ["-U", self.user, name],
            check=True,
            capture_output=True,
            timeout=START_LIMIT_S,
        )
        return f"ducklake:postgres:{self.conninfo(name)}"


def _as_server_account(command: list[str]) -> list[str]:
    if os.geteuid() != 0:
        return command
    return ["runuser", "-u", "postgres", "--", *command]


@contextmanager
def postgres_server() -> Iterator[PostgresServer]:
    """initdb + pg_ctl start in a new temporary directory; stopped (fast) and removed after.

    The directory is made directly under the system's temporary folder, not pytest's: the
    server account must be able to reach it when the tests run as root.
    """
    bindir = postgres_bindir()
    if bindir is None:
        raise FileNotFoundError("initdb")
    folder = Path(tempfile.mkdtemp(prefix="tokendesk-postgres-"))
    if os.geteuid() == 0:
        account = pwd.getpwnam("postgres")
        os.chown(folder, account.pw_uid, account.pw_gid)
    server = PostgresServer(bindir, free_port(), folder)
    subprocess.run(
        _as_server_account(
            [str(bindir / "initdb"), "-D", str(folder / "data"), "-A", "trust", "-U", server.user]
            + ["-E", "UTF8", "--no-sync"]
        ),
        check=True,
        capture_output=True,
        timeout=START_LIMIT_S * 2,
    )
    server.start()
    try:
        yield server
    finally:
        with contextlib.suppress(subprocess.CalledProcessError):  # a test stopped it already
            server.stop()
        shutil.rmtree(folder, ignore_errors=True)


@dataclass(frozen=True)
class S3Server:
    endpoint: str
    key_id: str = "tokendesk-test"
    secret: str = "tokendesk-test-secret"
    region: str = "us-east-1"

    def client(self):  # boto3's client type is generated at run time
        import boto3

        return boto3.client(
            "s3",
            endpoint_url=self.endpoint,
            aws_access_key_id=self.key_id,
            aws_secret_access_key=self.secret,
            region_name=self.region,
        )

    def environment(self) -> dict[str, str]:
        """The standard AWS variables that point a client (and team mode) at this server."""
        return {
            "AWS_ACCESS_KEY_ID": self.key_id,
            "AWS_SECRET_ACCESS_KEY": self.secret,
            "AWS_REGION": self.region,
            "AWS_ENDPOINT_URL": self.endpoint,
        }


@contextmanager
def s3_server(folder: Path) -> Iterator[S3Server]:
    """moto's S3-compatible server on a loopback port, until the block ends."""
    port = free_port()
    log = (folder / "moto.log").open("wb")
    process = subprocess.Popen(
        [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + START_LIMIT_S
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"moto's S3 server did not start (see {log.name})") from None
                time.sleep(0.1)
        yield S3Server(f"http://127.0.0.1:{port}")
    finally:
        process.terminate()
        process.wait(timeout=START_LIMIT_S)
        log.close()
