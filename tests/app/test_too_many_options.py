"""A warehouse with more options than the scenario engine is built for: the pages that plan say
so in plain words (the count and what to do) instead of failing."""

from __future__ import annotations

import shutil

from streamlit.testing.v1 import AppTest

from tokendesk.paths import REPO_ROOT
from warehouse import queries


def test_the_overview_says_how_many_options_and_what_to_do(fixture_db, tmp_path, monkeypatch):
    path = tmp_path / "large.duckdb"
    shutil.copy(fixture_db, path)
    monkeypatch.setenv("TOKENDESK_DB", str(path))
    # The fixture's few options stand for a warehouse past the bound.
    monkeypatch.setattr(queries, "MAX_PLANNING_OPTIONS", 1)
    at = AppTest.from_file(str(REPO_ROOT / "app" / "streamlit_app.py"), default_timeout=60).run()
    assert not at.exception and not at.error
    warnings = " ".join(w.value for w in at.warning)
    assert "options to plan on, more than the 1 the scenario engine is built for" in warnings
    assert "tokendesk bench retract" in warnings
