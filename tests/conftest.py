from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from warehouse import Warehouse


@pytest.fixture
def seeded(tmp_path: Path) -> Warehouse:
    """A warehouse file built from the bundled data/, as a user's first start builds it."""
    warehouse = Warehouse.open(tmp_path / "tokendesk.duckdb")
    yield warehouse
    warehouse.close()


@pytest.fixture
def empty_warehouse() -> Warehouse:
    warehouse = Warehouse.open(":memory:", build=False)
    yield warehouse
    warehouse.close()


def content_digest(warehouse: Warehouse) -> str:
    """A digest of every row of every table, in a fixed order: equal digests = equal content."""
    digest = hashlib.sha256()
    for table in (
        "snapshots",
        "price_quotes",
        "benchmark_results",
        "integrity_checks",
        "accelerators",
        "schema_migrations",
        "workspaces",
    ):
        frame = warehouse.query(f"SELECT * FROM {table} ORDER BY ALL")
        digest.update(table.encode())
        digest.update(frame.to_csv(index=False).encode())
    return digest.hexdigest()
