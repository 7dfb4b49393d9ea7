"""Every cached read the dashboard makes. Caching lives here and nowhere else.

One read-only ``Warehouse`` per file (``st.cache_resource``); it holds no lock on the file: each
read below attaches it for the duration of the read only (``Warehouse.reading``), so the command
line and other dashboard processes can write meanwhile. Query results are cached by their
arguments and cleared when the file changes, whoever changed it.
"""

from __future__ import annotations

import csv
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pandas as pd
import streamlit as st

from briefs.brief import Comparison, render_brief
from costmodel import Engine
from costmodel import scenario_inputs as si
from costmodel.tables import ARCHITECTURES_FILE
from tokendesk.paths import DB_PATH_ENV, data_dir, default_db_path
from warehouse import Warehouse, queries
from warehouse.engine import WaitReporter
from warehouse.lake import is_lake_target


def db_path() -> str:
    """The warehouse file: ``--db`` after ``--`` on the streamlit command line, else the default.

    Every page asks for it first, so this is where a write made elsewhere (the command line,
    another dashboard process) is noticed: the file changed, so the cached results are dropped.
    """
    argv = sys.argv[1:]
    if "--db" in argv and argv.index("--db") + 1 < len(argv):
        path = argv[argv.index("--db") + 1]
    else:
        path = os.environ.get(DB_PATH_ENV) or str(default_db_path())
    _forget_if_changed(path)
    return path


_seen_versions: dict[str, tuple[int, ...]] = {}


def _file_version(path: str) -> tuple[int, ...]:
    """Changes whenever a write commits: writers checkpoint into the file before letting go (and
    a writer killed before that left its commit in the ``.wal`` beside it). In team mode the
    lake's newest catalog snapshot plays that part."""
    if is_lake_target(path):
        return (_warehouse(path).catalog_snapshot() or 0,)
    version: list[int] = []
    for name in (path, path + ".wal"):
        try:
            stat = os.stat(name)
        except OSError:
            version += [0, 0]
        else:
            version += [stat.st_mtime_ns, stat.st_size]
    return tuple(version)


def _forget_if_changed(path: str) -> None:
    version = _file_version(path)
    seen = _seen_versions.setdefault(path, version)
    if version != seen:
        _seen_versions[path] = version
        _engine.clear()
        st.cache_data.clear()


@st.cache_resource(show_spinner=False)
def _warehouse(path: str) -> Warehouse:
    return Warehouse.open(path, read_only=True)


def warehouse() -> Warehouse:
    return _warehouse(db_path())


def forget_results() -> None:
    """Drop every cached result, so the next read sees the newest snapshot."""
    _seen_versions.clear()
    _engine.clear()
    st.cache_data.clear()


@contextmanager
def _reading(path: str) -> Iterator[Warehouse]:
    warehouse = _warehouse(path)
    with warehouse.reading():
        yield warehouse


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
    with _reading(path) as warehouse:
        return queries.cost_options(
            warehouse,
            sort=sort,
            limit=limit,
            ftl_percentile=ftl_percentile,
            max_ftl_ms=max_ftl_ms,
            best_per=best_per,
            frontier_only=frontier_only,
            **_filter_args(filters),
        )


@st.cache_data(show_spinner=False, ttl=600)
def count_options(path: str, filters: tuple[tuple[str, tuple[str, ...]], ...]) -> int:
    with _reading(path) as warehouse:
        return queries.count_options(warehouse, **{name: list(values) for name, values in filters})


@st.cache_data(show_spinner=False, ttl=600)
def filter_values(path: str) -> dict[str, list[str]]:
    with _reading(path) as warehouse:
        return queries.distinct_values(warehouse)


@st.cache_data(show_spinner=False, ttl=600)
def freshness(path: str) -> pd.DataFrame:
    with _reading(path) as warehouse:
        return queries.freshness(warehouse)


# -- scenarios ---------------------------------------------------------------------------------
@st.cache_resource(show_spinner=False)
def _engine(path: str):

    with _reading(path) as warehouse:
        return Engine.from_frame(queries.cost_options(warehouse, sort=None))


@st.cache_data(show_spinner=False, max_entries=64)
def compare_scenarios(path: str, inputs):
    """Evaluate the built-in (and custom) scenarios for one set of validated inputs."""

    return _engine(path).evaluate(
        si.build_scenarios(inputs), si.build_demand(inputs), si.build_policy(inputs)
    )


@st.cache_data(show_spinner=False, ttl=600)
def price_explorer(path: str, filters: tuple[tuple[str, tuple[str, ...]], ...]) -> pd.DataFrame:
    with _reading(path) as warehouse:
        return queries.price_explorer(warehouse, **{name: list(values) for name, values in filters})


@st.cache_data(show_spinner=False, ttl=600)
def price_skus(path: str) -> pd.DataFrame:
    with _reading(path) as warehouse:
        return queries.price_skus(warehouse)


@st.cache_data(show_spinner=False, ttl=600)
def price_history(
    path: str, provider: str, region: str, instance_type: str, pricing_model: str
) -> pd.DataFrame:
    with _reading(path) as warehouse:
        return queries.price_history(warehouse, provider, region, instance_type, pricing_model)


@st.cache_data(show_spinner=False, ttl=600)
def current_integrity(path: str) -> pd.DataFrame:
    with _reading(path) as warehouse:
        return queries.current_integrity(warehouse)


@st.cache_data(show_spinner=False, ttl=600)
def current_price_sources(path: str) -> pd.DataFrame:
    with _reading(path) as warehouse:
        return queries.current_price_sources(warehouse)


@st.cache_data(show_spinner=False, ttl=600)
def current_price_quotes(path: str) -> list:
    with _reading(path) as warehouse:
        return warehouse.current_price_quotes()


@st.cache_data(show_spinner=False, ttl=600)
def benchmark_results(path: str) -> pd.DataFrame:
    with _reading(path) as warehouse:
        return queries.current_benchmark_results(warehouse)


@st.cache_data(show_spinner=False, ttl=600)
def benchmark_history(path: str) -> pd.DataFrame:
    with _reading(path) as warehouse:
        return queries.benchmark_snapshot_history(warehouse)


@st.cache_data(show_spinner=False)
def architecture_retrieved() -> dict[str, str]:
    """Model id -> the date its bundled architecture row was retrieved from its source."""

    with (data_dir() / ARCHITECTURES_FILE).open(newline="", encoding="utf-8") as handle:
        return {row["model_id"]: row.get("retrieved", "") for row in csv.DictReader(handle)}


@contextmanager
def writer(on_wait: WaitReporter | None = None) -> Iterator[Warehouse]:
    """A read-write warehouse for a price refresh or an upload.

    Other sessions keep reading meanwhile: the write takes the file for its transaction only,
    after this process's reads in flight, and waits (bounded, telling ``on_wait``) for writers
    in other processes. Afterwards every cached result is dropped, so the next read sees the
    new snapshot.
    """
    path = db_path()
    warehouse = Warehouse.open(path, on_wait=on_wait)
    try:
        yield warehouse
    finally:
        warehouse.close()
        forget_results()


@st.cache_data(show_spinner=False, max_entries=16)
def brief_bytes(path: str, inputs, fmt: str) -> bytes:
    """The buy/no-buy brief of the scenarios on screen, in ``fmt``."""

    with _reading(path) as warehouse:
        options = queries.cost_options(warehouse)
        snapshots = warehouse.snapshots()
    comparison = Comparison(
        compare_scenarios(path, inputs),
        options,
        si.build_demand(inputs),
        si.build_policy(inputs),
        snapshots=snapshots,
        warehouse=path,
    )
    return render_brief(comparison, fmt)


# -- workspace ---------------------------------------------------------------------------------
@st.cache_data(show_spinner=False, ttl=600)
def workspace(path: str):
    """(version, workspace) stored in the warehouse (the bundled example if none was saved)."""
    from briefs.workspace_plans import stored_workspace

    return stored_workspace(_warehouse(path))


@st.cache_data(show_spinner=False, ttl=600)
def workspace_versions(path: str) -> pd.DataFrame:
    from warehouse.workspaces import workspace_versions as versions

    return versions(_warehouse(path))


@st.cache_data(show_spinner=False, max_entries=64)
def workspace_comparison(path: str, ws, knobs):
    """The workspace's scenarios: the same call the command line and the Overview make."""
    from briefs.workspace_plans import compare

    return compare(_engine(path), ws, knobs)


def save_workspace(ws) -> int:
    """Append the edited workspace as a new version (it was validated by the caller)."""
    from costmodel.workspace import workspace_to_dict
    from warehouse.workspaces import save_workspace as save

    with writer() as warehouse:
        return save(warehouse, workspace_to_dict(ws), origin="dashboard", source="Workspace page")


def check_workspace(path: str, ws) -> list[str]:
    """Problems with rates the warehouse cannot supply (a fleet line with no list price)."""
    from briefs.workspace_plans import check_workspace as check
    from costmodel.workspace import WorkspaceError

    try:
        check(_engine(path), ws)
    except WorkspaceError as exc:
        return [f"{exc.where}: {exc.message}"]
    return []


@st.cache_data(show_spinner=False, max_entries=16)
def workspace_brief(path: str, ws, knobs, fmt: str) -> bytes:
    from briefs.optimize_cli import brief_sections
    from briefs.render import render_document
    from briefs.workspace_plans import workspace_document

    optimal = brief_sections(workspace_optimum(path, ws, knobs))
    results = workspace_comparison(path, ws, knobs)
    return render_document(workspace_document(results, ws, knobs, optimal=optimal), fmt)


@st.cache_data(show_spinner=False, max_entries=16)
def workspace_optimum(path: str, ws, knobs):
    """The workspace's optimal fleet and its diversification frontier: the same call as
    ``tokendesk optimize``."""
    from briefs.optimize_cli import optimize

    return optimize(_engine(path), ws, knobs)


def _filter_args(filters: tuple[tuple[str, tuple[str, ...]], ...]) -> dict[str, Any]:
    """The dashboard's (name, values) filters as the query's keyword arguments."""
    return {name: list(values) for name, values in filters}
