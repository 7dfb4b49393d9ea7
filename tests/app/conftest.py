import base64
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

# AppTest puts a page's folder (app/views) first on sys.path, where benchmarks.py would shadow the
# benchmarks package for a page that imports it before anything else has; load the package first.
import benchmarks.importers  # noqa: F401
from tokendesk.paths import REPO_ROOT
from warehouse import Warehouse

VIEWS = REPO_ROOT / "app" / "views"


@pytest.fixture(scope="session")
def app_db(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("app") / "app.duckdb"
    Warehouse.open(path).close()
    return path


@pytest.fixture
def app_env(app_db, monkeypatch):
    monkeypatch.setenv("TOKENDESK_DB", str(app_db))
    return app_db


@pytest.fixture
def writable_env(app_db, tmp_path, monkeypatch):
    """A private copy of the seeded warehouse for tests that write snapshots."""
    path = tmp_path / "writable.duckdb"
    shutil.copy(app_db, path)
    monkeypatch.setenv("TOKENDESK_DB", str(path))
    return path


def plain(value):
    """Plotly sends numeric arrays as base64 typed arrays; turn them back into lists."""
    if isinstance(value, dict) and "bdata" in value:
        return np.frombuffer(base64.b64decode(value["bdata"]), dtype=value["dtype"]).tolist()
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


def chart(at, key):
    """The plotly figure a page drew under ``key``, as plain JSON."""
    charts = [c for c in at.get("plotly_chart") if key in c.proto.id]
    assert charts, f"no plotly chart with key {key}"
    return plain(json.loads(charts[0].proto.spec))
