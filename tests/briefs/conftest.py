from __future__ import annotations

import warnings

import pytest

from tests.factories import seeded_warehouse
from warehouse import Warehouse


@pytest.fixture(scope="session")
def seed_db(tmp_path_factory):
    """A warehouse built from the bundled seed data (historical + current price snapshots)."""
    path = tmp_path_factory.mktemp("briefs") / "w.duckdb"
    seeded_warehouse(path).close()
    return path


@pytest.fixture(scope="session")
def seed_options(seed_db):
    with Warehouse.open(seed_db, read_only=True) as warehouse, warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        return warehouse.cost_options(), warehouse.snapshots()


@pytest.fixture(scope="session")
def comparison(seed_options, seed_db):
    from briefs import build_comparison
    from costmodel import builtin_scenarios
    from costmodel.example import example_demand

    options, snapshots = seed_options
    from briefs.document import dashboard_link

    return build_comparison(
        options,
        builtin_scenarios(),
        example_demand(),
        snapshots=snapshots,
        link=dashboard_link({"amd": "0.25"}, "http://127.0.0.1:8501/scenarios"),
    )
