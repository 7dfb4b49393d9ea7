"""Every cached read the dashboard makes. Caching lives here and nowhere else.

One read-only DuckDB connection per warehouse file (``st.cache_resource``), a cursor per call;
query results are cached by their arguments and cleared when the warehouse changes.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pandas as pd
import streamlit as st

from tokendesk.paths import DB_PATH_ENV, default_db_path
from tokendesk.warehouse import Warehouse, queries


def db_path() -> str:
    """The warehouse file: ``--db`` after ``--`` on the streamlit command line, else the default."""
    argv = sys.argv[1:]
    if "--db" in argv and argv.index("--db") + 1 < len(argv):
        return argv[argv.index("--db") + 1]
    return os.environ.get(DB_PATH_ENV) or str(default_db_path())


@st.cache_resource(show_spinner=False)
def _warehouse(path: str) -> Warehouse:
    return Warehouse.open(Path(path), read_only=True)


def warehouse() -> Warehouse:
    return _warehouse(db_path())


def release_warehouse() -> None:
    """Close the read-only connection so a writer (a price refresh, an upload) can open the file."""
    try:
        _warehouse(db_path()).close()
    finally:
        _warehouse.clear()
        st.cache_data.clear()


@st.cache_data(show_spinner=False, ttl=600)
def cost_options(path: str, filters: tuple[tuple[str, tuple[str, ...]], ...]) -> pd.DataFrame:
    return queries.cost_options(_warehouse(path), **{name: list(values) for name, values in filters})


@st.cache_data(show_spinner=False, ttl=600)
def filter_values(path: str) -> dict[str, list[str]]:
    return queries.distinct_values(_warehouse(path))


@st.cache_data(show_spinner=False, ttl=600)
def freshness(path: str) -> pd.DataFrame:
    return queries.freshness(_warehouse(path))
