from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import settings as hypothesis_settings

from tests.factories import seeded_warehouse
from warehouse import Warehouse

# Property tests draw the same examples on every run (and keep no example database): a test never
# fails because of the draw it happened to get, and CI and a developer see the same cases.
hypothesis_settings.register_profile("deterministic", derandomize=True, database=None)
hypothesis_settings.load_profile("deterministic")


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
