"""The dashboard says, in its sidebar, when its warehouse was built from another copy of the
bundled data than the installation's: a person reading its figures is not at the terminal where
`tokendesk db init` said so."""

from __future__ import annotations

import shutil

import duckdb
import pytest
from streamlit.testing.v1 import AppTest

from tests.app.pages import VIEWS
from tokendesk.paths import DATA_DIR_ENV, REPO_ROOT
from warehouse.bundled import MARKET_RESULTS

BUNDLED = REPO_ROOT / "data"


@pytest.fixture
def data_copy(tmp_path, monkeypatch):
    folder = tmp_path / "data"
    shutil.copytree(BUNDLED, folder)
    monkeypatch.setenv(DATA_DIR_ENV, str(folder))
    return folder


def _sidebar_notes() -> list[str]:
    at = AppTest.from_file(str(VIEWS.parent / "streamlit_app.py"), default_timeout=120)
    at.run()
    assert not at.exception, at.exception
    return [c.value for c in at.sidebar.caption if "bundled data" in c.value]


def test_a_warehouse_built_from_this_installation_s_data_says_nothing(writable_env, data_copy):
    assert _sidebar_notes() == []


def test_a_warehouse_built_from_another_copy_says_which_files_differ(writable_env, data_copy):
    with (data_copy / MARKET_RESULTS).open("a", encoding="utf-8") as handle:
        handle.write("\n")
    [note] = _sidebar_notes()
    assert note.startswith("This warehouse was built from another copy of the bundled data")
    assert f"({MARKET_RESULTS} differs from this installation's)" in note
    assert "`tokendesk db rebuild`" in note
    assert str(writable_env) not in note and str(data_copy) not in note  # no local path


def test_a_warehouse_that_records_no_copy_says_it_cannot_tell(writable_env, data_copy):
    with duckdb.connect(str(writable_env)) as con:
        con.execute("DELETE FROM bundled_files")
    [note] = _sidebar_notes()
    assert note.startswith("This warehouse does not record which copy of the bundled data")
