"""A brief prepared on the dashboard links back to the address the dashboard is reached at: the
public address when one is set, else the one it is served on (never a port it is not on)."""

from __future__ import annotations

import streamlit as st

from app import plan_reads
from tokendesk.paths import PUBLIC_URL_ENV


def _clear(monkeypatch) -> None:
    monkeypatch.delenv(PUBLIC_URL_ENV, raising=False)
    monkeypatch.delenv("TOKENDESK_BASE_URL", raising=False)


def test_with_no_setting_the_link_is_on_the_address_the_server_runs_on(monkeypatch):
    _clear(monkeypatch)
    monkeypatch.setattr(
        st,
        "get_option",
        {
            "browser.serverAddress": "gpu-box.internal",
            "browser.serverPort": 8642,
            "server.port": 8642,
            "server.baseUrlPath": "td",
        }.get,
    )
    assert plan_reads.scenarios_page_address() == "http://gpu-box.internal:8642/td/scenarios"


def test_the_public_address_wins(monkeypatch):
    _clear(monkeypatch)
    monkeypatch.setenv(PUBLIC_URL_ENV, "https://dash.example.com/")
    assert plan_reads.scenarios_page_address() == "https://dash.example.com/scenarios"
