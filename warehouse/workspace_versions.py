"""Workspace versions: append-only storage of the company's own situation.

The warehouse stores what it is given as JSON; validating it is the cost model's job
(``costmodel.workspace_model.workspace_from_dict``), done by every caller before saving, so a bad
workspace never reaches the table.
"""

from __future__ import annotations

import copy
import functools
import json
from datetime import UTC, date, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

if TYPE_CHECKING:
    from warehouse.store import Warehouse

#: The bundled example, stored as version 1 when the warehouse is built.
EXAMPLE_WORKSPACE = "workspace_example.yaml"


def _json_default(value: object) -> str:
    if isinstance(value, (date, datetime)):
        return value.isoformat()
    raise TypeError(f"cannot store {type(value).__name__} in a workspace")


def save_workspace(warehouse: Warehouse, body: dict, *, origin: str, source: str) -> int:
    """Append a version; return its number. ``body`` must already be validated."""
    name = str(body.get("name") or "").strip()
    if not name:
        raise ValueError("a workspace needs a name")
    text = json.dumps(body, default=_json_default, sort_keys=False)
    now = datetime.now(UTC).replace(tzinfo=None)
    numbers = warehouse.next_ids("workspace_version", 1)
    if numbers is not None:  # team mode: the number comes from the catalog, no RETURNING
        with warehouse._transaction() as tx:
            tx.execute(
                "INSERT INTO workspaces (version, name, saved_at, origin, source, body, created_by)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                [numbers[0], name, now, origin, source, text, warehouse.actor.name],
            )
        return numbers[0]
    with warehouse._transaction() as tx:
        row = tx.execute(
            "INSERT INTO workspaces (name, saved_at, origin, source, body, created_by) "
            "VALUES (?, ?, ?, ?, ?, ?) RETURNING version",
            [name, now, origin, source, text, warehouse.actor.name],
        ).fetchone()
    if row is None:  # RETURNING always yields the inserted row
        raise RuntimeError("the warehouse returned no version for the saved workspace")
    return int(row[0])


def current_workspace(warehouse: Warehouse) -> tuple[int, dict] | None:
    """(version, body) of the newest workspace, or None if none was ever saved."""
    row = (
        warehouse.cursor()
        .execute("SELECT version, body FROM workspaces ORDER BY version DESC LIMIT 1")
        .fetchone()
    )
    if row is None:
        return None
    return int(row[0]), json.loads(row[1])


def workspace_version(warehouse: Warehouse, version: int) -> dict | None:
    row = (
        warehouse.cursor()
        .execute("SELECT body FROM workspaces WHERE version = ?", [version])
        .fetchone()
    )
    return json.loads(row[0]) if row else None


def workspace_versions(warehouse: Warehouse) -> pd.DataFrame:
    return (
        warehouse.cursor()
        .execute(
            "SELECT version, name, saved_at, origin, source, created_by"
            " FROM workspaces ORDER BY version DESC"
        )
        .df()
    )


def example_workspace_body() -> dict:
    """The bundled example workspace as parsed YAML (a copy the caller may change)."""
    from tokendesk.paths import data_dir

    path = data_dir() / EXAMPLE_WORKSPACE
    return copy.deepcopy(_parsed_yaml(str(path), path.stat().st_mtime_ns))


@functools.lru_cache(maxsize=4)
def _parsed_yaml(path: str, mtime_ns: int) -> dict:
    """Parsed once per file version: every page asks whether the workspace is the example."""
    import yaml

    return yaml.safe_load(Path(path).read_text(encoding="utf-8"))


def seed_workspace(warehouse: Warehouse) -> None:
    """Store the bundled example as the first version, if the table is still empty."""
    row = warehouse.cursor().execute("SELECT count(*) FROM workspaces").fetchone()
    if row and row[0]:
        return
    save_workspace(warehouse, example_workspace_body(), origin="seed", source=EXAMPLE_WORKSPACE)
