from __future__ import annotations

from pathlib import Path

import pytest

from tests.factories import seeded_warehouse
from warehouse import Warehouse


@pytest.fixture
def seeded(tmp_path: Path) -> Warehouse:
    """A warehouse file built from the bundled data/, as a user's first start builds it."""
    warehouse = seeded_warehouse(tmp_path / "tokendesk.duckdb")
    yield warehouse
    warehouse.close()


@pytest.fixture
def empty_warehouse() -> Warehouse:
    warehouse = Warehouse.open(":memory:", build=False)
    yield warehouse
    warehouse.close()
