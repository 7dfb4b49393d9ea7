from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings as hypothesis_settings

from tests.factories import seeded_warehouse
from warehouse import Warehouse

# Property tests draw the same examples on every run (and keep no example database): a test never
# fails because of the draw it happened to get, and CI and a developer see the same cases.
hypothesis_settings.register_profile("deterministic", derandomize=True, database=None)
hypothesis_settings.load_profile("deterministic")

# The optimizer over time stops at 20 s on a user's machine and then reports a bounded path with
# its gap. A test expects the proven optimum, which must not depend on how busy the machine
# running it is: the tests (and the commands and servers they start, which inherit this) give
# the solver up to ten minutes instead.
os.environ.setdefault("TOKENDESK_SOLVER_LIMIT_S", "600")  # planning.optimal_plan
# Every test (and every command and server it starts) solves what it asks for: nothing is read
# from answers an earlier test or run kept. The store's own tests turn it on in a folder of
# their own (tests/planning/test_solution_store.py).
os.environ.setdefault("TOKENDESK_SOLUTION_STORE", "off")  # planning.solution_store


@pytest.fixture
def seeded(tmp_path: Path) -> Warehouse:
    """A warehouse file built from the bundled data/, as a user's first start builds it."""
    warehouse = seeded_warehouse(tmp_path / "tokendesk.duckdb")
    yield warehouse
    warehouse.close()


@pytest.fixture(scope="session")
def seed_db(tmp_path_factory):
    """A warehouse built from the bundled seed data (historical + current price snapshots)."""
    path = tmp_path_factory.mktemp("seed") / "w.duckdb"
    seeded_warehouse(path).close()
    return path


@pytest.fixture
def empty_warehouse() -> Warehouse:
    warehouse = Warehouse.open(":memory:", build=False)
    yield warehouse
    warehouse.close()
