"""DuckDB warehouse: schema, migrations, append-only snapshots, named queries."""

from warehouse.lake import CatalogUnreachable
from warehouse.store import RetractionError, Warehouse, WarehouseError

__all__ = ["CatalogUnreachable", "RetractionError", "Warehouse", "WarehouseError"]
