"""DuckDB warehouse: schema, migrations, append-only snapshots, named queries.

The names below load their modules when first asked for, so a light module of the package
(``warehouse.files``, ``warehouse.migrations``) can be imported without the store and pandas:
the dashboard's server checks its warehouse with them before it starts listening.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from warehouse.lake import CatalogUnreachable
    from warehouse.snapshot_writes import RetractionError
    from warehouse.store import Warehouse, WarehouseError

__all__ = ["CatalogUnreachable", "RetractionError", "Warehouse", "WarehouseError"]

_MODULES = {
    "CatalogUnreachable": "warehouse.lake",
    "RetractionError": "warehouse.snapshot_writes",
    "Warehouse": "warehouse.store",
    "WarehouseError": "warehouse.store",
}


def __getattr__(name: str) -> Any:
    if name in _MODULES:
        return getattr(importlib.import_module(_MODULES[name]), name)
    raise AttributeError(f"module 'warehouse' has no attribute {name!r}")
