from __future__ import annotations

import warnings
from dataclasses import dataclass

import pytest

from warehouse import Warehouse


@pytest.fixture(scope="session")
def seed_options(seed_db):
    with Warehouse.open(seed_db, read_only=True) as warehouse, warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        return warehouse.cost_options(), warehouse.snapshots()


@dataclass(frozen=True)
class Brief:
    """A brief as ``tokendesk brief`` makes it: the evaluation and the document rendered."""

    results: tuple
    workspace: object
    options: object
    snapshots: object
    document: object
    link: str
    evaluation: object = None


@pytest.fixture(scope="session")
def market_brief(seed_db, seed_options) -> Brief:
    """The market-wide brief of the default inputs, on the seed: the same evaluation and document
    as a company's, for a workspace with no fleet."""
    from briefs.document import dashboard_link
    from briefs.workspace_plans import workspace_document
    from planning import evaluation as pe
    from planning import what_ifs as si
    from planning import workspaces as pw

    options, snapshots = seed_options
    ws, knobs = pw.market_workspace(si.DEFAULTS), pw.market_knobs(si.DEFAULTS)
    with Warehouse.open(seed_db, read_only=True) as warehouse:
        engine = pw.engine_for(warehouse, ws)
    # The same engine as ``scenarios``: the optimal fleet is ranked with the other plans.
    ev = pe.evaluate(engine, ws, knobs)
    base = "http://127.0.0.1:8501/scenarios"
    doc = workspace_document(ev, ws, knobs, base, options=options, snapshots=snapshots)
    link = dashboard_link(pw.view_params(ws, knobs), base)
    return Brief(ev.plans, ws, options, snapshots, doc, link, ev)
