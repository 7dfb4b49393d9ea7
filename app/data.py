"""Every cached read the dashboard makes. Caching lives here and nowhere else.

One read-only DuckDB connection per warehouse file (``st.cache_resource``), a cursor per call;
query results are cached by their arguments and cleared when the warehouse changes.
"""

from __future__ import annotations

import csv
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pandas as pd
import streamlit as st

from briefs.brief import Comparison, render_brief
from costmodel import Engine
from costmodel import scenario_inputs as si
from costmodel.tables import ARCHITECTURES_FILE
from tokendesk.paths import DB_PATH_ENV, data_dir, default_db_path
from warehouse import Warehouse, WarehouseError, queries


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
        _engine.clear()
        st.cache_data.clear()


@st.cache_data(show_spinner=False, ttl=600)
def cost_options(
    path: str,
    filters: tuple[tuple[str, tuple[str, ...]], ...],
    *,
    sort: str = "usd_per_1k_output_tokens",
    limit: int | None = None,
    ftl_percentile: str | None = None,
    max_ftl_ms: float | None = None,
    best_per: str | None = None,
    frontier_only: bool = False,
) -> pd.DataFrame:
    return queries.cost_options(
        _warehouse(path),
        sort=sort,
        limit=limit,
        ftl_percentile=ftl_percentile,
        max_ftl_ms=max_ftl_ms,
        best_per=best_per,
        frontier_only=frontier_only,
        **{name: list(values) for name, values in filters},
    )


@st.cache_data(show_spinner=False, ttl=600)
def count_options(path: str, filters: tuple[tuple[str, tuple[str, ...]], ...]) -> int:
    return queries.count_options(
        _warehouse(path), **{name: list(values) for name, values in filters}
    )


@st.cache_data(show_spinner=False, ttl=600)
def filter_values(path: str) -> dict[str, list[str]]:
    return queries.distinct_values(_warehouse(path))


@st.cache_data(show_spinner=False, ttl=600)
def freshness(path: str) -> pd.DataFrame:
    return queries.freshness(_warehouse(path))


# -- scenarios ---------------------------------------------------------------------------------
@st.cache_resource(show_spinner=False)
def _engine(path: str):

    return Engine.from_frame(queries.cost_options(_warehouse(path), sort=None))


@st.cache_data(show_spinner=False, max_entries=64)
def compare_scenarios(path: str, inputs):
    """Evaluate the built-in (and custom) scenarios for one set of validated inputs."""

    return _engine(path).evaluate(
        si.build_scenarios(inputs), si.build_demand(inputs), si.build_policy(inputs)
    )


@st.cache_data(show_spinner=False, ttl=600)
def price_explorer(path: str, filters: tuple[tuple[str, tuple[str, ...]], ...]) -> pd.DataFrame:
    return queries.price_explorer(
        _warehouse(path), **{name: list(values) for name, values in filters}
    )


@st.cache_data(show_spinner=False, ttl=600)
def price_skus(path: str) -> pd.DataFrame:
    return queries.price_skus(_warehouse(path))


@st.cache_data(show_spinner=False, ttl=600)
def price_history(
    path: str, provider: str, region: str, instance_type: str, pricing_model: str
) -> pd.DataFrame:
    return queries.price_history(_warehouse(path), provider, region, instance_type, pricing_model)


@st.cache_data(show_spinner=False, ttl=600)
def current_integrity(path: str) -> pd.DataFrame:
    return queries.current_integrity(_warehouse(path))


@st.cache_data(show_spinner=False, ttl=600)
def current_price_sources(path: str) -> pd.DataFrame:
    return queries.current_price_sources(_warehouse(path))


@st.cache_data(show_spinner=False, ttl=600)
def current_price_quotes(path: str) -> list:
    return _warehouse(path).current_price_quotes()


@st.cache_data(show_spinner=False, ttl=600)
def benchmark_results(path: str) -> pd.DataFrame:
    return queries.current_benchmark_results(_warehouse(path))


@st.cache_data(show_spinner=False)
def architecture_retrieved() -> dict[str, str]:
    """Model id -> the date its bundled architecture row was retrieved from its source."""

    with (data_dir() / ARCHITECTURES_FILE).open(newline="", encoding="utf-8") as handle:
        return {row["model_id"]: row.get("retrieved", "") for row in csv.DictReader(handle)}


@contextmanager
def writer() -> Iterator[Warehouse]:
    """A read-write warehouse for a price refresh or an upload.

    DuckDB will not open one file read-only and read-write in the same process, so the shared
    read-only connection is released first; afterwards every cache is cleared so the next read
    reopens the file and sees the new snapshot.
    """
    path = db_path()
    release_warehouse()
    try:
        warehouse = Warehouse.open(Path(path))
    except Exception as exc:  # a lock held by another process (a CLI refresh, a second server)
        raise WarehouseError(
            f"could not open {path} for writing ({exc}); is another tokendesk process writing to it?"
        ) from exc
    try:
        yield warehouse
    finally:
        warehouse.close()
        release_warehouse()


@st.cache_data(show_spinner=False, max_entries=16)
def brief_bytes(path: str, inputs, fmt: str) -> bytes:
    """The buy/no-buy brief of the scenarios on screen, in ``fmt``."""

    warehouse = _warehouse(path)
    comparison = Comparison(
        compare_scenarios(path, inputs),
        queries.cost_options(warehouse),
        si.build_demand(inputs),
        si.build_policy(inputs),
        snapshots=warehouse.snapshots(),
        warehouse=path,
    )
    return render_brief(comparison, fmt)
