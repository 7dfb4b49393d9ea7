"""Every cached read the dashboard makes. Caching lives here and nowhere else, but for the
Prices and Benchmarks pages' reads (``app.price_reads``) and the Workspace and Scenarios
pages' (``app.plan_reads``), which build on the reads and rules below.

This is also where confidential rows are withheld: negotiated quotes reach only the roles allowed
to see them (``app.auth``). Every read below that returns prices, costs, scenarios or briefs
leaves them out for anyone else, so no page, chart, export or brief can show them; and every
write below first checks that the person's role allows it.

One read-only ``Warehouse`` per file (``st.cache_resource``); it holds no lock on the file: each
read below attaches it for the duration of the read only (``Warehouse.reading``), so the command
line and other dashboard processes can write meanwhile. Query results are cached by their
arguments and cleared when the file changes, whoever changed it. In team mode the reads run on
this process's local copy of the lake's newest snapshot (``warehouse.lake_copy``), made again
once per catalog snapshot at the start of the first page run that sees it.
"""

from __future__ import annotations

import csv
import os
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

import pandas as pd
import streamlit as st

from app import auth
from costmodel import Engine
from costmodel.bundled_tables import ARCHITECTURES_FILE
from pricing.integrity import check_price_file
from tokendesk.access import Action
from tokendesk.paths import DB_PATH_ENV, data_dir, default_db_path
from tokendesk.records import PricingModel
from warehouse import CatalogUnreachable, Warehouse, catalog_queries, queries
from warehouse.engine import WaitReporter
from warehouse.lake import is_lake_target
from warehouse.seed import bundled_changes as changes_since_build

Filters = tuple[tuple[str, tuple[str, ...]], ...]
T = TypeVar("T")

NEGOTIATED = PricingModel.NEGOTIATED.value
#: Every pricing model but the confidential one: the filter of a person who may not see
#: negotiated quotes.
PUBLIC_MODELS = tuple(m.value for m in PricingModel if m is not PricingModel.NEGOTIATED)
#: The source name a price refresh gives a sheet's negotiated quotes (``pricing.refresh``).
NEGOTIATED_SOURCE_SUFFIX = ":negotiated"


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
#: Team mode: the warehouse whose catalog server did not answer at the last look, and why.
_outages: dict[str, str] = {}


def catalog_outage(path: str) -> str | None:
    """Why the team warehouse's catalog did not answer at the last look; None when it did (or
    for a file). Pages then show what they last read, which stays cached meanwhile."""
    return _outages.get(path)


def _file_version(path: str) -> tuple[int, ...]:
    """Changes whenever a write commits: writers checkpoint into the file before letting go (and
    a writer killed before that left its commit in the ``.wal`` beside it). In team mode the
    lake's newest catalog snapshot plays that part."""
    if is_lake_target(path):
        try:
            snapshot = _warehouse(path).catalog_snapshot() or 0
        except CatalogUnreachable as exc:
            # Keep what was read: the cached results stay current until the catalog answers.
            _outages[path] = str(exc)
            return _seen_versions.get(path, (0,))
        _outages.pop(path, None)
        return (snapshot,)
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
    _log_version(version)
    seen = _seen_versions.setdefault(path, version)
    if version != seen:
        _seen_versions[path] = version
        _fleet_engine.clear()
        _futures_day.clear()
        _derived.clear()
        st.cache_data.clear()


#: A file the dashboard appends a line to each time a page looks at the warehouse version it
#: reads ("<unix time> <pid> <version>"): ``perf/bench_ws_load.py`` measures from it how long a
#: write takes to show on the pages. Unset (always, but in that benchmark), nothing is written.
VERSION_LOG_ENV = "TOKENDESK_VERSION_LOG"


def _log_version(version: tuple[int, ...]) -> None:
    log = os.environ.get(VERSION_LOG_ENV)
    if not log:
        return
    line = f"{time.time():.3f} {os.getpid()} {' '.join(str(part) for part in version)}\n"
    with open(log, "a", encoding="utf-8") as handle:  # one short line: appended whole
        handle.write(line)


@st.cache_resource(show_spinner=False)
def _warehouse(path: str) -> Warehouse:
    return Warehouse.open(path, read_only=True, seed_check=check_price_file, local_copy=True)


def warehouse() -> Warehouse:
    return _warehouse(db_path())


def forget_results() -> None:
    """Drop every cached result, so the next read sees the newest snapshot."""
    _seen_versions.clear()
    _fleet_engine.clear()
    _futures_day.clear()
    _derived.clear()
    st.cache_data.clear()


@contextmanager
def reading(path: str) -> Iterator[Warehouse]:
    warehouse = _warehouse(path)
    with warehouse.reading():
        yield warehouse


def derived(kind: str, inputs: tuple, build: Callable[[], T]) -> T:
    """``build()``, made once per ``kind`` and ``inputs`` until the warehouse changes: what a
    page derives from its cached reads (a figure, a formatted table) and would otherwise rebuild
    on every rerun, most of a page switch's server time. ``inputs`` must name everything
    ``build`` reads, the person's right to see negotiated quotes included; what it returns is
    shared by every session, so no page may change it."""
    return _derived(kind, (sees_negotiated(), *inputs), build)


@st.cache_resource(show_spinner=False, ttl=600, max_entries=128)
def _derived(kind: str, inputs: tuple, _build: Callable[[], T]) -> T:
    return _build()


def sees_negotiated() -> bool:
    """Whether the person of this session may see negotiated quotes."""
    return auth.current_user().sees_negotiated


def visible_filters(filters: Filters) -> Filters | None:
    """``filters`` narrowed to what this person may see; None when that leaves nothing (they
    asked only for negotiated quotes and may not see them)."""
    if sees_negotiated():
        return filters
    chosen = dict(filters)
    models = tuple(m for m in chosen.get("pricing_model") or PUBLIC_MODELS if m != NEGOTIATED)
    if not models:
        return None
    chosen["pricing_model"] = models
    return tuple(chosen.items())


def without_negotiated(frame: pd.DataFrame, column: str = "pricing_model") -> pd.DataFrame:
    if sees_negotiated() or frame.empty:
        return frame
    return frame[frame[column] != NEGOTIATED].reset_index(drop=True)


def cost_options(path: str, filters: Filters, **options: Any) -> pd.DataFrame:
    """Priced options (quote x result) matching ``filters``; see ``queries.cost_options``."""
    visible = visible_filters(filters)
    if visible is None:
        return _cost_options(path, filters, **options).iloc[0:0]
    return _cost_options(path, visible, **options)


def count_options(path: str, filters: Filters) -> int:
    visible = visible_filters(filters)
    return 0 if visible is None else _count_options(path, visible)


@st.cache_data(show_spinner=False, ttl=600)
def _cost_options(
    path: str,
    filters: Filters,
    *,
    sort: str = "usd_per_1k_output_tokens",
    limit: int | None = None,
    ftl_percentile: str | None = None,
    max_ftl_ms: float | None = None,
    best_per: str | None = None,
    frontier_only: bool = False,
) -> pd.DataFrame:
    with reading(path) as warehouse:
        return queries.cost_options(
            warehouse,
            sort=sort,
            limit=limit,
            ftl_percentile=ftl_percentile,
            max_ftl_ms=max_ftl_ms,
            best_per=best_per,
            frontier_only=frontier_only,
            **filter_args(filters),
        )


def costs_page_frames(
    path: str,
    filters: Filters,
    *,
    limit: int,
    percentile: str,
    basis: str,
    energy: bool,
    target: float,
    unit: str,
) -> tuple[pd.DataFrame, Any]:
    """The Costs page's options (cost per ``basis``, details at ``percentile``) and their
    interactivity frontier at ``target``: computed once per choice of inputs, not on every
    rerun (the frontier's curves are most of a page switch's server time)."""
    visible = visible_filters(filters)
    return _costs_page_frames(
        path,
        visible if visible is not None else filters,
        visible is None,
        limit,
        percentile,
        basis,
        energy,
        target,
        unit,
    )


@st.cache_data(show_spinner=False, ttl=600, max_entries=32)
def _costs_page_frames(
    path: str,
    filters: Filters,
    nothing_visible: bool,
    limit: int,
    percentile: str,
    basis: str,
    energy: bool,
    target: float,
    unit: str,
) -> tuple[pd.DataFrame, Any]:
    from app.models import costs as model

    found = _cost_options(path, filters, limit=limit, ftl_percentile=percentile)
    if nothing_visible:
        found = found.iloc[0:0]
    if found.empty:
        return found, None
    options = model.with_details(model.with_cost(found, basis), percentile, energy)
    return options, model.interactivity_frontier(options, percentile, target, unit)


@st.cache_data(show_spinner=False, ttl=600)
def _count_options(path: str, filters: Filters) -> int:
    with reading(path) as warehouse:
        return queries.count_options(warehouse, **{name: list(values) for name, values in filters})


def filter_values(path: str) -> dict[str, list[str]]:
    """Values each cost filter can take: for a person who may not see negotiated quotes, only
    the values the other current quotes have (a provider known only by a negotiated quote is
    not named)."""
    values = _filter_values(path)
    if sees_negotiated():
        return values
    current = price_read(path, "values", visible_filters(()) or ())
    names = ("accelerator", "vendor", "provider", "region", "pricing_model")
    return values | {name: current[name] for name in names}


@st.cache_data(show_spinner=False, ttl=600)
def _filter_values(path: str) -> dict[str, list[str]]:
    with reading(path) as warehouse:
        return catalog_queries.distinct_values(warehouse)


def freshness(path: str) -> pd.DataFrame:
    frame = _freshness(path)
    hidden = _hidden_sources(path)
    return frame[~frame["source"].isin(hidden)].reset_index(drop=True) if hidden else frame


@st.cache_data(show_spinner=False, ttl=600)
def _freshness(path: str) -> pd.DataFrame:
    with reading(path) as warehouse:
        return catalog_queries.freshness(warehouse)


@st.cache_data(show_spinner=False, ttl=600)
def _negotiated_snapshots(path: str) -> pd.DataFrame:
    with reading(path) as warehouse:
        return catalog_queries.negotiated_snapshots(warehouse)


def hidden_snapshot_ids(path: str) -> set[str]:
    """Price snapshots holding only negotiated quotes, for a person who may not see them."""
    if sees_negotiated():
        return set()
    return set(_negotiated_snapshots(path)["snapshot_id"])


def _hidden_sources(path: str) -> set[str]:
    """Source names that would tell of negotiated quotes, for a person who may not see them."""
    if sees_negotiated():
        return set()
    named = {s for s in _freshness(path)["source"] if str(s).endswith(NEGOTIATED_SOURCE_SUFFIX)}
    return named | set(_negotiated_snapshots(path)["source"])


@st.cache_data(show_spinner=False, ttl=600)
def bundled_changes(path: str) -> list[str] | None:
    """The bundled files this installation's data/ holds another copy of than the warehouse was
    built from (None: the warehouse records none; ``warehouse.seed.bundled_changes``)."""
    return changes_since_build(_warehouse(path))


def hidden_negotiated_quotes(path: str) -> int:
    """How many current negotiated quotes this person's role keeps from them (0 if none)."""
    if sees_negotiated():
        return 0
    return int(price_read(path, "summary", (("pricing_model", (NEGOTIATED,)),))["quotes"])


# -- scenarios ---------------------------------------------------------------------------------
def viewer_priced(path: str, ws):
    """(``ws`` as this person's plans price it, what was done in words): for a role that may not
    see negotiated quotes each negotiated fleet line at the public on-demand list price
    (``app.models.withheld.priced_at_list``), never at its contract's rate, so no figure they
    read gives the rate back; unchanged for everyone else. Every plan read goes through here
    (``app.plan_reads.priced_workspace``, the Futures review)."""
    from app.models.withheld import priced_at_list, withheld_lines

    if sees_negotiated() or not withheld_lines(ws):
        return ws, ()
    engine = scenario_engine(path, False, ws)
    return priced_at_list(ws, engine.table.options, _hardware_quotes(path))


@st.cache_data(show_spinner=False, ttl=600)
def _hardware_quotes(path: str) -> list:
    """Every current quote, for the accelerators of a SKU known only by a negotiated quote (the
    rule reads no rate from it)."""
    with reading(path) as warehouse:
        return warehouse.current_price_quotes()


def scenario_engine(path: str, negotiated: bool, ws):
    """The scenario engine ``ws`` is planned on, over the options ``negotiated`` says this
    person may see, with estimated capacity where ``ws`` allows it and a workload needs it."""
    import json

    from costmodel.workspace_model import workspace_to_dict
    from planning.workspaces import fleet_instance_types

    types = fleet_instance_types(ws)
    if not ws.constraints.allow_estimates:
        return _fleet_engine(path, negotiated, types)
    # Estimates depend on the demand (model, shape, SLO): keyed on the workspace as text.
    return _estimated_engine(
        path, negotiated, types, json.dumps(workspace_to_dict(ws), default=str)
    )


@st.cache_resource(show_spinner=False, max_entries=8)
def _estimated_engine(path: str, negotiated: bool, fleet_types: tuple[str, ...], ws_text: str):
    """``_fleet_engine`` with the estimated options the workspace ``ws_text`` needs (the
    estimator itself is built once per results snapshot, ``planning.estimates``)."""
    import json

    from costmodel.workspace_model import workspace_from_dict
    from planning.estimates import with_estimates

    ws = workspace_from_dict(json.loads(ws_text))
    with reading(path) as warehouse:
        return with_estimates(_fleet_engine(path, negotiated, fleet_types), ws, warehouse)


@st.cache_resource(show_spinner=False, max_entries=8)
def _fleet_engine(path: str, negotiated: bool, fleet_types: tuple[str, ...]):
    """The engine over ``planning_options``: cached per fleet's instance types, the only part
    of a workspace the options depend on."""
    return Engine.from_frame(planning_options(path, negotiated, fleet_types))


def planning_options(path: str, negotiated: bool, fleet_types: tuple[str, ...]) -> pd.DataFrame:
    """``queries.planning_options`` for a fleet of ``fleet_types``, without negotiated quotes
    unless ``negotiated``: what an engine is built from and a brief lists its sources from."""
    models = None if negotiated else list(PUBLIC_MODELS)
    with reading(path) as warehouse:
        return queries.planning_options(
            warehouse, pricing_model=models, keep_instance_types=fleet_types
        )


#: The Prices page's aggregate reads over the current quotes matching a filter, by name: each
#: counted or listed by the warehouse, never from loaded rows.
_PRICE_READS = {
    "summary": catalog_queries.price_explorer_summary,
    "values": catalog_queries.current_price_values,
    "sku_spread": catalog_queries.price_sku_spread,
    "accelerator_hour": catalog_queries.accelerator_hour_offer,
}


@st.cache_data(show_spinner=False, ttl=600)
def price_read(path: str, read: str, filters: Filters) -> Any:
    """``_PRICE_READS[read]`` over the quotes ``filters`` (already narrowed to what this person
    may see) match."""
    with reading(path) as warehouse:
        return _PRICE_READS[read](warehouse, **filter_args(filters))


@st.cache_data(show_spinner=False)
def architecture_retrieved() -> dict[str, str]:
    """Model id -> the date its bundled architecture row was retrieved from its source."""

    with (data_dir() / ARCHITECTURES_FILE).open(newline="", encoding="utf-8") as handle:
        return {row["model_id"]: row.get("retrieved", "") for row in csv.DictReader(handle)}


@contextmanager
def writer(action: Action, on_wait: WaitReporter | None = None) -> Iterator[Warehouse]:
    """A read-write warehouse for ``action`` (a price refresh, an upload, a retraction), made
    by the person of this session: refused with ``AccessDenied`` unless their role allows it,
    and every snapshot written records their name.

    Other sessions keep reading meanwhile: the write takes the file for its transaction only,
    after this process's reads in flight, and waits (bounded, telling ``on_wait``) for writers
    in other processes. Afterwards every cached result is dropped, so the next read sees the
    new snapshot.
    """
    user = auth.current_user()
    user.require(action)
    path = db_path()
    warehouse = Warehouse.open(path, on_wait=on_wait, seed_check=check_price_file, actor=user)
    try:
        yield warehouse
    finally:
        warehouse.close()
        forget_results()


# -- futures day -------------------------------------------------------------------------------
def futures_review(path: str, date_from, date_to):
    """What changed between two dates, judged against the stored workspace's fleet: the report
    ``tokendesk futures compare`` prints, without the quotes this person may not see."""
    return _futures_review(path, date_from, date_to, sees_negotiated())


@st.cache_data(show_spinner=False, ttl=600, max_entries=16)
def _futures_review(path: str, date_from, date_to, negotiated: bool):
    from planning.review import company_review

    # The fleet's rates are read over every quote (a withheld one's label is masked in the
    # review), from the engine the other pages already built for this workspace. The warehouse
    # as it stood on a day is read once, when a window first starts or ends on it: another
    # window on days already read only compares.
    # A reader who may not see negotiated quotes has the fleet's negotiated lines at list price,
    # as on every other page (``app.plan_reads.priced_workspace``): a suggestion's saving
    # against such a line would otherwise give its rate back.
    stored = workspace(path)[1]
    if not negotiated:
        stored = viewer_priced(path, stored)[0]
    engine = scenario_engine(path, True, stored)
    days = {day: _futures_day(path, day, negotiated) for day in (date_from, date_to)}
    with reading(path) as warehouse:
        return company_review(
            warehouse,
            date_from,
            date_to,
            hidden_pricing_models=_hidden_models(negotiated),
            engine=engine,
            days=(days[date_from], days[date_to]),
            workspace=stored,
        )


@st.cache_resource(show_spinner=False, ttl=600, max_entries=64)
def _futures_day(path: str, day, negotiated: bool):
    """``planning.review.as_of_days`` for one day; shared, not copied, so no caller may change a
    frame. One day at a time: reading every day a window might start on at once grew with the
    price history (1.4 s for 37 days on data/, 17 s at 20 times its size, against 0.1 and
    0.4 s for one day)."""
    from planning.review import as_of_days

    with reading(path) as warehouse:
        return as_of_days(warehouse, [day], _hidden_models(negotiated))[0]


def _hidden_models(negotiated: bool) -> tuple[str, ...]:
    return () if negotiated else (NEGOTIATED,)


@st.cache_data(show_spinner=False, ttl=600)
def review_dates(path: str):
    """The last review (the default start of a comparison) and every good snapshot's date."""
    from warehouse.as_of import snapshot_days
    from warehouse.decisions import last_review

    with reading(path) as warehouse:
        return last_review(warehouse), snapshot_days(warehouse)


@st.cache_data(show_spinner=False, ttl=600)
def decision_log(path: str) -> pd.DataFrame:
    """The futures-day decision log, oldest first (what replaced what included)."""
    from warehouse.decisions import decisions

    with reading(path) as warehouse:
        return decisions(warehouse)


def record_decision(decision) -> int:
    """Append a futures-day decision to the log, as the person of this session (editors)."""
    from warehouse.decisions import record_decision as append

    with writer(Action.RECORD_DECISION) as warehouse:
        return append(warehouse, decision)


def close_review(closing) -> None:
    """Close a futures-day review on purpose, as the person of this session (editors)."""
    from warehouse.decisions import close_review as append

    with writer(Action.RECORD_DECISION) as warehouse:
        append(warehouse, closing)


# -- workspace ---------------------------------------------------------------------------------
@st.cache_data(show_spinner=False, ttl=600)
def workspace(path: str):
    """(version, workspace) stored in the warehouse (the bundled example if none was saved)."""
    from planning.workspaces import stored_workspace

    with reading(path) as warehouse:
        return stored_workspace(warehouse)


@st.cache_data(show_spinner=False, ttl=600)
def workspace_versions(path: str) -> pd.DataFrame:
    from warehouse.workspace_versions import workspace_versions as versions

    with reading(path) as warehouse:
        return versions(warehouse)


def filter_args(filters: Filters) -> dict[str, Any]:
    """The dashboard's (name, values) filters as the query's keyword arguments."""
    return {name: list(values) for name, values in filters}


@st.cache_data(show_spinner=False, ttl=600)
def validation_report(path: str) -> dict:
    """``planning.estimates.validation_report`` of the warehouse's current results (the
    leave-one-out is kept per results snapshot, so a new session reads it back)."""
    from planning.estimates import validation_report as report

    with reading(path) as warehouse:
        return report(warehouse)
