"""Every warehouse read a page makes happens inside a read block, so the dashboard lets go of
the file as soon as its reads are done. A cursor taken outside one keeps the file attached
until some later read of the process ends; with a writer in another process waiting, that
later read queues behind the writer and the writer behind the attachment."""

from __future__ import annotations

import traceback

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from tests.app.pages import VIEWS
from warehouse import engine

PAGES = sorted(p.name for p in VIEWS.glob("*.py"))


@pytest.mark.parametrize("page", PAGES)
def test_a_page_reads_the_warehouse_only_inside_read_blocks(page, app_env, monkeypatch):
    outside: list[str] = []
    cursor = engine.FileEngine.cursor

    def watched(self):
        if not getattr(self._mine, "writing", False) and not self._my_reads():
            frames = traceback.extract_stack()[:-1]
            outside.append(" <- ".join(f"{f.name} ({f.lineno})" for f in reversed(frames[-5:])))
        return cursor(self)

    monkeypatch.setattr(engine.FileEngine, "cursor", watched)
    st.cache_data.clear()  # every read of the page is made, none served from an earlier test
    st.cache_resource.clear()
    at = AppTest.from_file(str(VIEWS / page), default_timeout=120)
    at.run()
    assert not at.exception, at.exception
    assert not outside, outside
