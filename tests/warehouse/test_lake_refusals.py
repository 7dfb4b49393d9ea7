"""Team mode's configuration errors each say which they are: a wrong password, a database that
does not exist and a data path that is a file are not "the server cannot be reached … may be
restarting" (nor a fault), and a writer does not wait for a server that answered "no"."""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.lake_servers import (
    START_LIMIT_S,
    PostgresServer,
    _as_server_account,
    free_port,
    postgres_bindir,
)
from warehouse import Warehouse, WarehouseError
from warehouse.lake import refusal_reason, unreachable_reason

PASSWORD = "right-horse-battery"


@pytest.fixture(scope="module")
def password_server() -> Iterator[PostgresServer]:
    """A PostgreSQL server that asks every connection for a password (scram-sha-256)."""
    bindir = postgres_bindir()
    if bindir is None:
        pytest.skip("PostgreSQL's server programs (initdb, pg_ctl) are not installed")
    folder = Path(tempfile.mkdtemp(prefix="tokendesk-postgres-pw-"))
    secret = folder / "pwfile"
    secret.write_text(PASSWORD + "\n")
    if os.geteuid() == 0:
        account = pwd.getpwnam("postgres")
        for path in (folder, secret):
            os.chown(path, account.pw_uid, account.pw_gid)
    server = PostgresServer(bindir, free_port(), folder)
    initdb = [str(bindir / "initdb"), "-D", str(folder / "data"), "-U", server.user]
    initdb += ["--auth=scram-sha-256", f"--pwfile={secret}", "-E", "UTF8", "--no-sync"]
    subprocess.run(
        _as_server_account(initdb), check=True, capture_output=True, timeout=START_LIMIT_S * 2
    )
    server.start()
    try:
        yield server
    finally:
        with contextlib.suppress(subprocess.CalledProcessError):
            server.stop()
        shutil.rmtree(folder, ignore_errors=True)


def _open_fails(target: str, data_path: str) -> tuple[str, float]:
    started = time.monotonic()
    with pytest.raises(WarehouseError) as caught:
        Warehouse.open(target, data_path=data_path)
    return str(caught.value), time.monotonic() - started


def test_a_wrong_password_says_so_and_is_not_waited_for(password_server, tmp_path, monkeypatch):
    monkeypatch.setenv("TOKENDESK_WRITE_WAIT_S", "30")  # a writer waits only for a silent server
    target = (
        f"ducklake:postgres:host=127.0.0.1 port={password_server.port}"
        f" user={password_server.user} dbname=postgres password=wrong-guess"
    )
    message, waited = _open_fails(target, str(tmp_path))
    assert "refused the user name or password" in message
    assert "does not answer" not in message and "restarting" not in message
    assert "wrong-guess" not in message
    assert waited < 20


def test_no_password_at_all_says_one_is_needed(password_server, tmp_path, monkeypatch):
    monkeypatch.delenv("PGPASSWORD", raising=False)
    monkeypatch.setenv("PGPASSFILE", str(tmp_path / "none"))
    target = (
        f"ducklake:postgres:host=127.0.0.1 port={password_server.port}"
        f" user={password_server.user} dbname=postgres"
    )
    message, _ = _open_fails(target, str(tmp_path))
    assert "asks for a password and none was given" in message


def test_a_missing_database_says_so(postgres, tmp_path, monkeypatch):
    monkeypatch.setenv("TOKENDESK_WRITE_WAIT_S", "30")
    target = f"ducklake:postgres:{postgres.conninfo('no_such_catalog')}"
    message, waited = _open_fails(target, str(tmp_path))
    assert "does not exist on the server" in message and "createdb" in message
    assert "does not answer" not in message
    assert waited < 20


def test_a_data_path_that_is_a_file_says_so(lake_target, tmp_path):
    a_file = tmp_path / "data.txt"
    a_file.write_text("not a folder")
    message, _ = _open_fails(lake_target, str(a_file))
    assert f"the data path {a_file} (TOKENDESK_DATA_PATH) is a file, not a directory" in message


def test_refusals_are_told_apart_from_a_server_that_does_not_answer():
    wrong = (
        'IO Error: Unable to connect to Postgres at "host=h dbname=d": connection to server at'
        ' "h", port 5 failed: FATAL:  password authentication failed for user "u"'
    )
    missing = 'Unable to connect to Postgres at "x": FATAL:  database "d" does not exist'
    assert unreachable_reason(RuntimeError(wrong)) is None
    assert "user name or password" in (refusal_reason(RuntimeError(wrong)) or "")
    assert unreachable_reason(RuntimeError(missing)) is None
    assert "does not exist" in (refusal_reason(RuntimeError(missing)) or "")
    # A missing table is neither: it is an error of its own.
    assert refusal_reason(RuntimeError("Catalog Error: Table x does not exist")) is None
