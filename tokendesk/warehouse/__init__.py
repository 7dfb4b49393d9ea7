"""DuckDB warehouse: schema, migrations, append-only snapshots, named queries."""

from tokendesk.warehouse.store import Warehouse, WarehouseError

__all__ = ["Warehouse", "WarehouseError"]
