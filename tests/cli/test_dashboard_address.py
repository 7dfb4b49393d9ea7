"""The dashboard's public address: ``tokendesk app`` hands the server the address it serves on
(or ``--public-url``), and the server's briefs link back to it."""

from __future__ import annotations

import os

import pytest
from typer.testing import CliRunner

from cli import dashboard_command
from cli.main import app
from tokendesk.paths import PUBLIC_URL_ENV

runner = CliRunner()


@pytest.mark.parametrize(
    ("host", "port", "expected"),
    [
        ("127.0.0.1", 8501, "http://localhost:8501"),
        ("10.1.2.3", 8600, "http://10.1.2.3:8600"),
        ("::1", 8501, "http://localhost:8501"),
        ("fd00::7", 8501, "http://[fd00::7]:8501"),
    ],
)
def test_the_served_address_is_the_one_a_browser_opens(host, port, expected):
    assert dashboard_command.served_address(host, port) == expected


def test_any_address_binds_link_to_the_machine_s_name():
    address = dashboard_command.served_address("0.0.0.0", 8501)
    assert address.endswith(":8501") and "0.0.0.0" not in address


def _start(monkeypatch, *args: str) -> tuple[str, str]:
    """What ``tokendesk app ARGS`` hands the server: its public address, and what it printed."""
    became: list[list[str]] = []
    monkeypatch.setattr(dashboard_command.os, "execv", lambda _exe, argv: became.append(argv))
    monkeypatch.setattr(dashboard_command.os, "chdir", lambda _path: None)
    # Recorded first, so the address the command sets is undone after the test.
    monkeypatch.setenv(PUBLIC_URL_ENV, "")
    monkeypatch.delenv(PUBLIC_URL_ENV)
    done = runner.invoke(app, ["app", *args])
    assert done.exit_code == 0, done.output
    assert became, "the command did not become the server"
    return os.environ[PUBLIC_URL_ENV], done.stdout


def test_the_server_is_handed_the_address_it_serves_on(monkeypatch, tmp_path):
    public, said = _start(monkeypatch, "--port", "8642", "--db", str(tmp_path / "w.duckdb"))
    assert public == "http://localhost:8642"
    assert "Serving tokendesk on http://localhost:8642" in said


def test_a_public_url_wins_and_is_said(monkeypatch, tmp_path):
    public, said = _start(
        monkeypatch,
        "--public-url",
        "https://dash.example.com/",
        "--db",
        str(tmp_path / "w.duckdb"),
    )
    assert public == "https://dash.example.com"
    assert "(briefs link to https://dash.example.com)" in said
