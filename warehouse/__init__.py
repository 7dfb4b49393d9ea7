"""DuckDB warehouse: schema, migrations, append-only snapshots, named queries."""

from warehouse.store import Warehouse, WarehouseError

__all__ = ["Warehouse", "WarehouseError"]
