import shutil
from pathlib import Path

import pytest

# AppTest puts a page's folder (app/views) first on sys.path, where benchmarks.py would shadow the
# benchmarks package for a page that imports it before anything else has; load the package first.
import benchmarks.importers  # noqa: F401
from warehouse import Warehouse


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
