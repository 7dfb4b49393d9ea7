"""Every cached read the dashboard makes. Caching lives here and nowhere else.

This is also where confidential rows are withheld: negotiated quotes reach only the roles allowed
to see them (``app.auth``). Every read below that returns prices, costs, scenarios or briefs
leaves them out for anyone else, so no page, chart, export or brief can show them; and every
write below first checks that the person's role allows it.

One read-only ``Warehouse`` per file (``st.cache_resource``); it holds no lock on the file: each
read below attaches it for the duration of the read only (``Warehouse.reading``), so the command
line and other dashboard processes can write meanwhile. Query results are cached by their
arguments and cleared when the file changes, whoever changed it.
"""

from __future__ import annotations

import csv
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

import pandas as pd
import streamlit as st

from app import auth
from costmodel import Engine
from costmodel.tables import ARCHITECTURES_FILE
from pricing.integrity import RULE_EXPIRED, check_price_file
from tokendesk.access import Action
from tokendesk.paths import DB_PATH_ENV, data_dir, default_db_path
from tokendesk.records import PricingModel
from warehouse import CatalogUnreachable, Warehouse, catalog_queries, queries
from warehouse.engine import WaitReporter
from warehouse.lake import is_lake_target

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
    seen = _seen_versions.setdefault(path, version)
    if version != seen:
        _seen_versions[path] = version
        _fleet_engine.clear()
        _futures_days.clear()
        _derived.clear()
        st.cache_data.clear()


@st.cache_resource(show_spinner=False)
def _warehouse(path: str) -> Warehouse:
    return Warehouse.open(path, read_only=True, seed_check=check_price_file)


def warehouse() -> Warehouse:
    return _warehouse(db_path())


def forget_results() -> None:
    """Drop every cached result, so the next read sees the newest snapshot."""
    _seen_versions.clear()
    _fleet_engine.clear()
    _futures_days.clear()
    _derived.clear()
    st.cache_data.clear()


@contextmanager
def _reading(path: str) -> Iterator[Warehouse]:
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


def _visible_filters(filters: Filters) -> Filters | None:
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


def _without_negotiated(frame: pd.DataFrame, column: str = "pricing_model") -> pd.DataFrame:
    if sees_negotiated() or frame.empty:
        return frame
    return frame[frame[column] != NEGOTIATED].reset_index(drop=True)


def cost_options(path: str, filters: Filters, **options: Any) -> pd.DataFrame:
    """Priced options (quote x result) matching ``filters``; see ``queries.cost_options``."""
    visible = _visible_filters(filters)
    if visible is None:
        return _cost_options(path, filters, **options).iloc[0:0]
    return _cost_options(path, visible, **options)


def count_options(path: str, filters: Filters) -> int:
    visible = _visible_filters(filters)
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
    visible = _visible_filters(filters)
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
    with _reading(path) as warehouse:
        return queries.count_options(warehouse, **{name: list(values) for name, values in filters})


def filter_values(path: str) -> dict[str, list[str]]:
    """Values each cost filter can take: for a person who may not see negotiated quotes, only
    the values the other current quotes have (a provider known only by a negotiated quote is
    not named)."""
    values = _filter_values(path)
    if sees_negotiated():
        return values
    current = _price_read(path, "values", _visible_filters(()) or ())
    names = ("accelerator", "vendor", "provider", "region", "pricing_model")
    return values | {name: current[name] for name in names}


@st.cache_data(show_spinner=False, ttl=600)
def _filter_values(path: str) -> dict[str, list[str]]:
    with _reading(path) as warehouse:
        return catalog_queries.distinct_values(warehouse)


def freshness(path: str) -> pd.DataFrame:
    frame = _freshness(path)
    hidden = _hidden_sources(path)
    return frame[~frame["source"].isin(hidden)].reset_index(drop=True) if hidden else frame


@st.cache_data(show_spinner=False, ttl=600)
def _freshness(path: str) -> pd.DataFrame:
    with _reading(path) as warehouse:
        return catalog_queries.freshness(warehouse)


@st.cache_data(show_spinner=False, ttl=600)
def _negotiated_snapshots(path: str) -> pd.DataFrame:
    with _reading(path) as warehouse:
        return catalog_queries.negotiated_snapshots(warehouse)


def _hidden_snapshot_ids(path: str) -> set[str]:
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


def hidden_negotiated_quotes(path: str) -> int:
    """How many current negotiated quotes this person's role keeps from them (0 if none)."""
    if sees_negotiated():
        return 0
    return int(_price_read(path, "summary", (("pricing_model", (NEGOTIATED,)),))["quotes"])


# -- scenarios ---------------------------------------------------------------------------------
def _engine(path: str, negotiated: bool, ws):
    """The scenario engine ``ws`` is planned on, over the options ``negotiated`` says this
    person may see."""
    from planning.workspaces import fleet_instance_types

    return _fleet_engine(path, negotiated, fleet_instance_types(ws))


@st.cache_resource(show_spinner=False, max_entries=8)
def _fleet_engine(path: str, negotiated: bool, fleet_types: tuple[str, ...]):
    """The engine over ``_planning_options``: cached per fleet's instance types, the only part
    of a workspace the options depend on."""
    return Engine.from_frame(_planning_options(path, negotiated, fleet_types))


def _planning_options(path: str, negotiated: bool, fleet_types: tuple[str, ...]) -> pd.DataFrame:
    """``queries.planning_options`` for a fleet of ``fleet_types``, without negotiated quotes
    unless ``negotiated``: what an engine is built from and a brief lists its sources from."""
    models = None if negotiated else list(PUBLIC_MODELS)
    with _reading(path) as warehouse:
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
def _price_read(path: str, read: str, filters: Filters) -> Any:
    """``_PRICE_READS[read]`` over the quotes ``filters`` (already narrowed to what this person
    may see) match."""
    with _reading(path) as warehouse:
        return _PRICE_READS[read](warehouse, **_filter_args(filters))


def price_explorer(path: str, filters: Filters, limit: int | None = None) -> pd.DataFrame:
    """The quotes of the current price snapshots matching ``filters`` (quarantined included),
    in the explorer's order, at most ``limit`` of them."""
    visible = _visible_filters(filters)
    if visible is None:
        return _price_explorer(path, (), 0)
    return _price_explorer(path, visible, limit)


@st.cache_data(show_spinner=False, ttl=600)
def _price_explorer(path: str, filters: Filters, limit: int | None = None) -> pd.DataFrame:
    with _reading(path) as warehouse:
        return catalog_queries.price_explorer(warehouse, limit=limit, **_filter_args(filters))


def explorer_summary(path: str, filters: Filters) -> dict[str, Any]:
    """The explorer's headline figures over every quote matching ``filters``
    (``catalog_queries.price_explorer_summary``), of the quotes this person may see."""
    visible = _visible_filters(filters)
    if visible is None:
        return dict.fromkeys(("quotes", "current", "providers", "regions", "flagged"), 0) | {
            "newest": None
        }
    return _price_read(path, "summary", visible)


def price_sku_spread(path: str) -> pd.DataFrame:
    """Per current SKU (instance type, pricing model) this person may see: its region count."""
    return _price_read(path, "sku_spread", _visible_filters(()) or ())


def sku_quotes(path: str, instance_type: str, pricing_model: str) -> pd.DataFrame:
    """One SKU's current quotes (every region), of those this person may see."""
    filters = (("instance_type", (instance_type,)), ("pricing_model", (pricing_model,)))
    visible = _visible_filters(filters)
    if visible is None:
        return _current_quotes(path, (), 0)
    return _current_quotes(path, visible, None)


def accelerator_hour_offer(path: str) -> pd.DataFrame:
    """Each accelerator and pricing model with a $/accelerator-hour this person may see."""
    return _price_read(path, "accelerator_hour", _visible_filters(()) or ())


def cheapest_accelerator_quotes(
    path: str, accelerator_id: str, pricing_models: tuple[str, ...], limit: int
) -> pd.DataFrame:
    """The ``limit`` current quotes of one accelerator in these pricing models with the lowest
    $/accelerator-hour, cheapest first, of those this person may see."""
    filters = (("accelerator", (accelerator_id,)), ("pricing_model", pricing_models))
    visible = _visible_filters(filters) if pricing_models else None
    if visible is None:
        return _current_quotes(path, (), 0, by_accelerator_hour=True)
    return _current_quotes(path, visible, limit, by_accelerator_hour=True)


@st.cache_data(show_spinner=False, ttl=600)
def _current_quotes(
    path: str, filters: Filters, limit: int | None, *, by_accelerator_hour: bool = False
) -> pd.DataFrame:
    with _reading(path) as warehouse:
        return catalog_queries.price_explorer(
            warehouse,
            limit=limit,
            current_only=True,
            order_by_accelerator_hour=by_accelerator_hour,
            **_filter_args(filters),
        )


def price_skus(path: str) -> pd.DataFrame:
    return _without_negotiated(_price_skus(path))


@st.cache_data(show_spinner=False, ttl=600)
def _price_skus(path: str) -> pd.DataFrame:
    with _reading(path) as warehouse:
        return catalog_queries.price_skus(warehouse)


@st.cache_data(show_spinner=False, ttl=600)
def instance_catalog(path: str) -> pd.DataFrame:
    """Every instance type the current prices list, with its accelerators and on-demand list
    price (the Workspace page's instance search)."""
    with _reading(path) as warehouse:
        return catalog_queries.instance_catalog(warehouse)


def price_history(
    path: str, provider: str, region: str, instance_type: str, pricing_model: str
) -> pd.DataFrame:
    frame = _price_history(path, provider, region, instance_type, pricing_model)
    return frame.iloc[0:0] if pricing_model == NEGOTIATED and not sees_negotiated() else frame


@st.cache_data(show_spinner=False, ttl=600)
def _price_history(
    path: str, provider: str, region: str, instance_type: str, pricing_model: str
) -> pd.DataFrame:
    with _reading(path) as warehouse:
        return catalog_queries.price_history(
            warehouse, provider, region, instance_type, pricing_model
        )


def current_integrity(path: str) -> pd.DataFrame:
    """The stored integrity reports of the current snapshots; without the negotiated-quote rule
    and the negotiated-only snapshots for a person who may not see them."""
    frame = _current_integrity(path)
    if sees_negotiated() or frame.empty:
        return frame
    hidden = _hidden_snapshot_ids(path)
    keep = (frame["rule"] != RULE_EXPIRED) & ~frame["snapshot_id"].isin(hidden)
    return frame[keep].reset_index(drop=True)


@st.cache_data(show_spinner=False, ttl=600)
def _current_integrity(path: str) -> pd.DataFrame:
    with _reading(path) as warehouse:
        return catalog_queries.current_integrity(warehouse)


def current_price_sources(path: str) -> pd.DataFrame:
    frame = _current_price_sources(path)
    hidden = _hidden_snapshot_ids(path)
    if not hidden or frame.empty:
        return frame
    return frame[~frame["snapshot_id"].isin(hidden)].reset_index(drop=True)


@st.cache_data(show_spinner=False, ttl=600)
def _current_price_sources(path: str) -> pd.DataFrame:
    with _reading(path) as warehouse:
        return catalog_queries.current_price_sources(warehouse)


def current_price_quotes(path: str) -> list:
    quotes = _current_price_quotes(path)
    if sees_negotiated():
        return quotes
    return [q for q in quotes if q.pricing_model is not PricingModel.NEGOTIATED]


@st.cache_data(show_spinner=False, ttl=600)
def _current_price_quotes(path: str) -> list:
    with _reading(path) as warehouse:
        return warehouse.current_price_quotes()


@st.cache_data(show_spinner=False, ttl=600)
def benchmark_results(path: str) -> pd.DataFrame:
    with _reading(path) as warehouse:
        return catalog_queries.current_benchmark_results(warehouse)


@st.cache_data(show_spinner=False, ttl=600)
def benchmark_history(path: str) -> pd.DataFrame:
    with _reading(path) as warehouse:
        return catalog_queries.benchmark_snapshot_history(warehouse)


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
    # as it stood on each day a window may start or end on is read once, all days together, at
    # the first review: another window then only compares.
    engine = _engine(path, True, workspace(path)[1])
    days = _futures_days(path, _review_days(path, date_from, date_to), negotiated)
    with _reading(path) as warehouse:
        return company_review(
            warehouse,
            date_from,
            date_to,
            hidden_pricing_models=_hidden_models(negotiated),
            engine=engine,
            days=(days[date_from], days[date_to]),
        )


def _review_days(path: str, *window) -> tuple:
    """Every day a review on the Futures page may start or end on: the last review's, each good
    snapshot's, and the window's own."""
    last, snapshot_days = review_dates(path)
    starts = [last.day] if last is not None else []
    return tuple(sorted({*starts, *snapshot_days, *window}))


@st.cache_resource(show_spinner=False, ttl=600, max_entries=4)
def _futures_days(path: str, days: tuple, negotiated: bool) -> dict:
    """``planning.review.as_of_days`` by day; shared, not copied, so no caller may change a
    frame."""
    from planning.review import as_of_days

    with _reading(path) as warehouse:
        frames = as_of_days(warehouse, days, _hidden_models(negotiated))
    return dict(zip(days, frames, strict=True))


def _hidden_models(negotiated: bool) -> tuple[str, ...]:
    return () if negotiated else (NEGOTIATED,)


@st.cache_data(show_spinner=False, ttl=600)
def review_dates(path: str):
    """The last review (the default start of a comparison) and every good snapshot's date."""
    from warehouse.decisions import last_review
    from warehouse.futures import snapshot_days

    with _reading(path) as warehouse:
        return last_review(warehouse), snapshot_days(warehouse)


@st.cache_data(show_spinner=False, ttl=600)
def decision_log(path: str) -> pd.DataFrame:
    """The futures-day decision log, oldest first (what replaced what included)."""
    from warehouse.decisions import decisions

    with _reading(path) as warehouse:
        return decisions(warehouse)


def record_decision(decision) -> int:
    """Append a futures-day decision to the log, as the person of this session (editors)."""
    from warehouse.decisions import record_decision as append

    with writer(Action.RECORD_DECISION) as warehouse:
        return append(warehouse, decision)


# -- workspace ---------------------------------------------------------------------------------
@st.cache_data(show_spinner=False, ttl=600)
def workspace(path: str):
    """(version, workspace) stored in the warehouse (the bundled example if none was saved)."""
    from planning.workspaces import stored_workspace

    with _reading(path) as warehouse:
        return stored_workspace(warehouse)


@st.cache_data(show_spinner=False, ttl=600)
def workspace_versions(path: str) -> pd.DataFrame:
    from warehouse.workspaces import workspace_versions as versions

    with _reading(path) as warehouse:
        return versions(warehouse)


def shown_workspace(ws):
    """``ws`` as this person may read it: negotiated fleet rates withheld from a role that may
    not see negotiated quotes (the Workspace page's tables and its YAML download)."""
    from app.models.withheld import withhold_rates

    return ws if sees_negotiated() else withhold_rates(ws)


def shown_lines(rows: list[dict]) -> list[dict]:
    """Plan lines (``PlanLine.as_dict()``) as this person may read them: a negotiated line's
    rate and monthly cost withheld from a role that may not see negotiated quotes."""
    from app.models.withheld import masked_rows

    return rows if sees_negotiated() else masked_rows(rows)


def with_withheld_terms(ws):
    """An edit made on the withheld view (:func:`shown_workspace`), with the negotiated terms the
    person could not see taken back from the stored workspace, so a save never drops them."""
    if sees_negotiated():
        return ws
    from app.models.withheld import restore_rates

    return restore_rates(ws, workspace(db_path())[1])


def priced_workspace(path: str, ws):
    """``ws`` ready to be priced for this person: for a role that may not see negotiated quotes,
    a negotiated fleet line without a rate gets the current negotiated quote's rate (their
    engine holds no negotiated quote, yet the line must be priced as it is paid)."""
    from app.models.withheld import quoted_rates, withheld_lines

    if sees_negotiated() or not withheld_lines(ws):
        return ws
    return quoted_rates(ws, _current_price_quotes(path))


def workspace_evaluation(path: str, ws, knobs):
    """Every plan of the workspace and the optimal fleet, each with its verdict: the same call
    the command line, the Overview and the brief make."""
    return _workspace_evaluation(path, priced_workspace(path, ws), knobs, sees_negotiated(), False)


def prepare(path: str) -> None:
    """Read what a visitor's first page reads, before anyone has asked: the filter values, the
    freshness table, the stored workspace, the engine over its options and its plans evaluated
    at its own settings (the Overview's headline and the Scenarios page with no what-if). The
    server calls this while the browser is still loading the dashboard (``app.serve``); the page
    then finds them cached. For the local user only: in team mode what a reader may see depends
    on who signs in."""
    from planning.workspaces import Knobs, scenario_view

    if auth.team_mode():
        return
    filter_values(path)
    freshness(path)
    _, stored = workspace(path)
    workspace_evaluation(path, scenario_view({}, stored).workspace, Knobs())


@st.cache_data(show_spinner=False, max_entries=64)
def _workspace_evaluation(path: str, ws, knobs, negotiated: bool, frontier: bool):
    from planning.evaluation import evaluate

    return evaluate(_engine(path, negotiated, ws), ws, knobs, frontier=frontier)


def cost_gap(path: str, ws, knobs, market_usd_per_1k: float):
    """Why Stay's cost per output token is not the cheapest option's (``planning``)."""
    return _cost_gap(path, priced_workspace(path, ws), knobs, market_usd_per_1k, sees_negotiated())


@st.cache_data(show_spinner=False, max_entries=64)
def _cost_gap(path: str, ws, knobs, market_usd_per_1k: float, negotiated: bool):
    from planning.context import planner_for
    from planning.evaluation import unit_cost_gap

    stay = _workspace_evaluation(path, ws, knobs, negotiated, False).stay
    return unit_cost_gap(
        planner_for(_engine(path, negotiated, ws), ws, knobs), stay, market_usd_per_1k
    )


def save_workspace(ws) -> int:
    """Append the edited workspace as a new version (it was validated by the caller)."""
    from costmodel.workspace import workspace_to_dict
    from warehouse.workspaces import save_workspace as save

    ws = with_withheld_terms(ws)
    with writer(Action.EDIT_WORKSPACE) as warehouse:
        return save(warehouse, workspace_to_dict(ws), origin="dashboard", source="Workspace page")


def bill_report(path: str, files: list[tuple[str, bytes]]):
    """The fleet uploaded FOCUS bills yield, against the current workspace (nothing stored).
    The uploads are written to a private temporary folder under their own names (DuckDB reads
    files), which is removed before this returns."""
    import tempfile
    from pathlib import Path

    from planning.bill import build_report

    negotiated = sees_negotiated()
    with tempfile.TemporaryDirectory(prefix="tokendesk-bill-") as tmp:
        paths = []
        for index, (name, body) in enumerate(files):
            # Only the base name is kept, and a number keeps two uploads of one name apart.
            target = Path(tmp) / f"{index}" / Path(name).name
            target.parent.mkdir()
            target.write_bytes(body)
            paths.append(target)
        with _reading(path) as warehouse:
            return build_report(
                warehouse, paths, engine_for=lambda ws: _engine(path, negotiated, ws)
            )


def save_bill(report) -> int:
    """Store a bill's fleet as a new workspace version (source: the files and month; saved by
    the signed-in person)."""
    from planning.bill import save_report

    with writer(Action.EDIT_WORKSPACE) as warehouse:
        return save_report(warehouse, report)


def check_workspace(path: str, ws) -> list[str]:
    """Problems with rates the warehouse cannot supply (a fleet line with no list price)."""
    from planning.workspaces import pricing_problems

    ws = priced_workspace(path, with_withheld_terms(ws))
    negotiated = sees_negotiated()
    return pricing_problems(
        _engine(path, negotiated, ws),
        ws,
        known_instance_types=_current_instance_types(path, negotiated),
    )


@st.cache_data(show_spinner=False, ttl=600)
def _current_instance_types(path: str, negotiated: bool) -> list[str]:
    """Every current instance type ``negotiated`` says this person may see."""
    models = None if negotiated else list(PUBLIC_MODELS)
    with _reading(path) as warehouse:
        return queries.current_instance_types(warehouse, models)


def workspace_brief(path: str, ws, knobs, fmt: str, unit: str) -> bytes:
    """The Scenarios brief in ``fmt``, its per-token figures in ``unit``, with the sources (the
    cost-options rows and snapshots) behind every fleet line — those this person may see (a
    negotiated fleet line's rate and cost withheld from a role that may not see them)."""
    return _workspace_brief(path, priced_workspace(path, ws), knobs, fmt, unit, sees_negotiated())


@st.cache_data(show_spinner=False, max_entries=16)
def _workspace_brief(path: str, ws, knobs, fmt: str, unit: str, negotiated: bool) -> bytes:
    from briefs.commitment import commitment_section
    from briefs.optimal import brief_sections
    from briefs.render import render_document
    from briefs.workspace_plans import workspace_document
    from planning.workspaces import bill_provenance, fleet_instance_types

    commitment = commitment_section(_workspace_commitment(path, ws, knobs, negotiated))
    ev = _workspace_evaluation(path, ws, knobs, negotiated, True)
    optimal = (*brief_sections(ev.optimum), commitment)
    options = _planning_options(path, negotiated, fleet_instance_types(ws))
    with _reading(path) as warehouse:
        snapshots = warehouse.snapshots()
        if not negotiated:
            hidden = catalog_queries.negotiated_snapshots(warehouse)
            named = snapshots["source"].str.endswith(NEGOTIATED_SOURCE_SUFFIX)
            snapshots = snapshots[~named & ~snapshots["snapshot_id"].isin(hidden["snapshot_id"])]
        provenance = bill_provenance(warehouse)
    doc = workspace_document(
        ev,
        ws,
        knobs,
        optimal=optimal,
        unit=unit,
        options=options,
        snapshots=snapshots,
        provenance=provenance,
    )
    if not negotiated:
        from app.models.withheld import masked_document

        doc = masked_document(doc)
    return render_document(doc, fmt)


def workspace_optimum(path: str, ws, knobs):
    """The workspace's optimal fleet and its diversification frontier: the same call as
    ``tokendesk optimize``."""
    return _workspace_optimum(path, priced_workspace(path, ws), knobs, sees_negotiated())


def _workspace_optimum(path: str, ws, knobs, negotiated: bool):
    return _workspace_evaluation(path, ws, knobs, negotiated, True).optimum


def workspace_commitment(path: str, ws, knobs):
    """How much to commit per workload under demand uncertainty: the same call as
    ``tokendesk commit``, on the options this person may see."""
    return _workspace_commitment(path, priced_workspace(path, ws), knobs, sees_negotiated())


@st.cache_data(show_spinner=False, max_entries=16)
def _workspace_commitment(path: str, ws, knobs, negotiated: bool):
    from planning.commitment import commitments

    return commitments(_engine(path, negotiated, ws), ws, knobs)


def _filter_args(filters: Filters) -> dict[str, Any]:
    """The dashboard's (name, values) filters as the query's keyword arguments."""
    return {name: list(values) for name, values in filters}
