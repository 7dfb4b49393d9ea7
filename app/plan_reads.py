"""The Workspace and Scenarios pages' cached reads and writes: the stored workspace as this
person may see it, its plans evaluated, the optimum and commitments, the cost gap, bills, briefs
and saving a new version. Negotiated terms are withheld here, as in ``app.data``, from every
role that may not see them.
"""

from __future__ import annotations

import streamlit as st

from app import auth, data
from tokendesk.access import Action
from warehouse import catalog_queries, queries


def shown_workspace(ws):
    """``ws`` as this person may read it: negotiated fleet rates withheld from a role that may
    not see negotiated quotes (the Workspace page's tables and its YAML download)."""
    from app.models.withheld import withhold_rates

    return ws if data.sees_negotiated() else withhold_rates(ws)


def shown_lines(rows: list[dict]) -> list[dict]:
    """Plan lines (``PlanLine.as_dict()``) as this person may read them: a negotiated line's
    rate and monthly cost withheld from a role that may not see negotiated quotes."""
    from app.models.withheld import masked_rows

    return rows if data.sees_negotiated() else masked_rows(rows)


def with_withheld_terms(ws):
    """An edit made on the withheld view (:func:`shown_workspace`), with the negotiated terms the
    person could not see taken back from the stored workspace, so a save never drops them."""
    if data.sees_negotiated():
        return ws
    from app.models.withheld import restore_rates

    return restore_rates(ws, data.workspace(data.db_path())[1])


def priced_workspace(path: str, ws):
    """``ws`` ready to be priced for this person: every plan, page and brief of a role that may
    not see negotiated quotes prices each negotiated fleet line at the public on-demand list
    price (``app.models.withheld.priced_at_list``), never at its contract's rate, so no figure
    they read gives the rate back. The one place every plan read below goes through."""
    return _list_priced(path, ws)[0]


def withheld_notes(path: str, ws) -> tuple[str, ...]:
    """What this person's plans do to the negotiated fleet lines, in words (empty when they may
    see negotiated quotes or the fleet has none): the page says it under its figures."""
    return _list_priced(path, ws)[1]


def _list_priced(path: str, ws):
    return data.viewer_priced(path, ws)


def workspace_evaluation(path: str, ws, knobs):
    """Every plan of the workspace and the optimal fleet, each with its verdict: the same call
    the command line, the Overview and the brief make."""
    return _workspace_evaluation(
        path, priced_workspace(path, ws), knobs, data.sees_negotiated(), False
    )


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
    data.filter_values(path)
    data.freshness(path)
    _, stored = data.workspace(path)
    workspace_evaluation(path, scenario_view({}, stored).workspace, Knobs())


@st.cache_data(show_spinner=False, max_entries=64)
def _workspace_evaluation(path: str, ws, knobs, negotiated: bool, frontier: bool):
    from planning.evaluation import evaluate

    return evaluate(data.scenario_engine(path, negotiated, ws), ws, knobs, frontier=frontier)


def cost_gap(path: str, ws, knobs, market_usd_per_1k: float):
    """Why Stay's cost per output token is not the cheapest option's (``planning``)."""
    return _cost_gap(
        path, priced_workspace(path, ws), knobs, market_usd_per_1k, data.sees_negotiated()
    )


@st.cache_data(show_spinner=False, max_entries=64)
def _cost_gap(path: str, ws, knobs, market_usd_per_1k: float, negotiated: bool):
    from planning.context import planner_for
    from planning.evaluation import unit_cost_gap

    stay = _workspace_evaluation(path, ws, knobs, negotiated, False).stay
    return unit_cost_gap(
        planner_for(data.scenario_engine(path, negotiated, ws), ws, knobs), stay, market_usd_per_1k
    )


def save_workspace(ws) -> int:
    """Append the edited workspace as a new version (it was validated by the caller)."""
    from costmodel.workspace_model import workspace_to_dict
    from warehouse.workspace_versions import save_workspace as save

    ws = with_withheld_terms(ws)
    with data.writer(Action.EDIT_WORKSPACE) as warehouse:
        return save(warehouse, workspace_to_dict(ws), origin="dashboard", source="Workspace page")


def bill_report(path: str, files: list[tuple[str, bytes]]):
    """The fleet uploaded FOCUS bills yield, against the current workspace (nothing stored).
    The uploads are written to a private temporary folder under their own names (DuckDB reads
    files), which is removed before this returns."""
    import tempfile
    from pathlib import Path

    from planning.bill import build_report

    negotiated = data.sees_negotiated()
    with tempfile.TemporaryDirectory(prefix="tokendesk-bill-") as tmp:
        paths = []
        for index, (name, body) in enumerate(files):
            # Only the base name is kept, and a number keeps two uploads of one name apart.
            target = Path(tmp) / f"{index}" / Path(name).name
            target.parent.mkdir()
            target.write_bytes(body)
            paths.append(target)
        with data.reading(path) as warehouse:
            return build_report(
                warehouse, paths, engine_for=lambda ws: data.scenario_engine(path, negotiated, ws)
            )


def save_bill(report) -> int:
    """Store a bill's fleet as a new workspace version (source: the files and month; saved by
    the signed-in person)."""
    from planning.bill import save_report

    with data.writer(Action.EDIT_WORKSPACE) as warehouse:
        return save_report(warehouse, report)


def check_workspace(path: str, ws) -> list[str]:
    """Problems with rates the warehouse cannot supply (a fleet line with no list price)."""
    from planning.workspaces import pricing_problems

    ws = priced_workspace(path, with_withheld_terms(ws))
    negotiated = data.sees_negotiated()
    return pricing_problems(
        data.scenario_engine(path, negotiated, ws),
        ws,
        known_instance_types=_current_instance_types(path, negotiated),
    )


@st.cache_data(show_spinner=False, ttl=600)
def _current_instance_types(path: str, negotiated: bool) -> list[str]:
    """Every current instance type ``negotiated`` says this person may see."""
    models = None if negotiated else list(data.PUBLIC_MODELS)
    with data.reading(path) as warehouse:
        return queries.current_instance_types(warehouse, models)


def workspace_brief(path: str, ws, knobs, fmt: str, unit: str) -> bytes:
    """The Scenarios brief in ``fmt``, its per-token figures in ``unit``, with the sources (the
    cost-options rows and snapshots) behind every fleet line — those this person may see (a
    negotiated fleet line priced at list for a role that may not see its rate, and said so)."""
    priced, notes = _list_priced(path, ws)
    return _workspace_brief(
        path, priced, knobs, fmt, unit, data.sees_negotiated(), scenarios_page_address(), notes
    )


def scenarios_page_address() -> str:
    """Where a brief made here links back to: the address settings
    (``briefs.document.scenarios_address``: ``tokendesk app`` sets the address it serves on),
    else the address this server is served on, as Streamlit tells a browser."""
    from briefs.document import SCENARIOS_PATH, scenarios_address

    address = scenarios_address()
    if address is not None:
        return address
    host = st.get_option("browser.serverAddress") or "localhost"
    port = st.get_option("browser.serverPort") or st.get_option("server.port")
    prefix = str(st.get_option("server.baseUrlPath") or "").strip("/")
    return f"http://{host}:{port}/{prefix + '/' if prefix else ''}{SCENARIOS_PATH}"


@st.cache_data(show_spinner=False, max_entries=16)
def _workspace_brief(
    path: str,
    ws,
    knobs,
    fmt: str,
    unit: str,
    negotiated: bool,
    address: str,
    notes: tuple[str, ...] = (),
) -> bytes:
    from briefs.commitment_doc import commitment_section
    from briefs.optimal import brief_sections
    from briefs.render import render_document
    from briefs.workspace_plans import workspace_document
    from planning.workspaces import bill_provenance, fleet_instance_types

    ev = _workspace_evaluation(path, ws, knobs, negotiated, True)
    commitment = commitment_section(_workspace_commitment(path, ws, knobs, negotiated))
    optimal = (*brief_sections(ev.optimum), commitment)
    options = data.planning_options(path, negotiated, fleet_instance_types(ws))
    with data.reading(path) as warehouse:
        snapshots = warehouse.snapshots()
        if not negotiated:
            hidden = catalog_queries.negotiated_snapshots(warehouse)
            named = snapshots["source"].str.endswith(data.NEGOTIATED_SOURCE_SUFFIX)
            snapshots = snapshots[~named & ~snapshots["snapshot_id"].isin(hidden["snapshot_id"])]
        provenance = bill_provenance(warehouse)
    doc = workspace_document(
        ev,
        ws,
        knobs,
        address,
        optimal=optimal,
        unit=unit,
        options=options,
        snapshots=snapshots,
        provenance=provenance,
    )
    if not negotiated:
        from app.models.withheld import masked_document

        doc = masked_document(doc, notes)
    return render_document(doc, fmt)


def workspace_optimum(path: str, ws, knobs):
    """The workspace's optimal fleet and its diversification frontier: the same call as
    ``tokendesk optimize``."""
    return _workspace_optimum(path, priced_workspace(path, ws), knobs, data.sees_negotiated())


def _workspace_optimum(path: str, ws, knobs, negotiated: bool):
    return _workspace_evaluation(path, ws, knobs, negotiated, True).optimum


def workspace_commitment(path: str, ws, knobs, *, scenarios: bool = True):
    """What to commit, when and for how long, on the optimizer's path over the horizon and,
    ``scenarios``, under each demand scenario (a solve each): the same call as ``tokendesk
    commit``, on the options this person may see."""
    return _workspace_commitment(
        path, priced_workspace(path, ws), knobs, data.sees_negotiated(), scenarios
    )


@st.cache_data(show_spinner=False, max_entries=16)
def _workspace_commitment(path: str, ws, knobs, negotiated: bool, scenarios: bool = True):
    from planning.commitment import commitments

    # Its own solve of the optimizer's path (the same programme as the Optimal plan's), so the
    # section does not wait on the whole comparison when the optimizer is not shown.
    return commitments(data.scenario_engine(path, negotiated, ws), ws, knobs, scenarios=scenarios)
