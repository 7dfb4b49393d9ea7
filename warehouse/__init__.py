"""DuckDB warehouse: schema, migrations, append-only snapshots, named queries."""

from warehouse.store import RetractionError, Warehouse, WarehouseError

__all__ = ["RetractionError", "Warehouse", "WarehouseError"]
