import shutil
from pathlib import Path

import pytest

# AppTest puts a page's folder (app/views) first on sys.path, where benchmarks.py would shadow the
# benchmarks package for a page that imports it before anything else has; load the package first.
import benchmarks.importers  # noqa: F401
from tests.factories import fixture_warehouse, seeded_warehouse


# -- the small fixture warehouse (tests/fixtures/warehouse/README.md): page tests read this ------
@pytest.fixture(scope="session")
def fixture_db(tmp_path_factory) -> Path:
    return fixture_warehouse(tmp_path_factory.mktemp("fixture") / "fixture.duckdb")


@pytest.fixture
def fixture_env(fixture_db, monkeypatch):
    monkeypatch.setenv("TOKENDESK_DB", str(fixture_db))
    return fixture_db


@pytest.fixture
def writable_fixture_env(fixture_db, tmp_path, monkeypatch):
    """A private copy of the fixture warehouse for tests that write."""
    path = tmp_path / "writable-fixture.duckdb"
    shutil.copy(fixture_db, path)
    monkeypatch.setenv("TOKENDESK_DB", str(path))
    return path


# -- the warehouse built from the shipped seed in data/ (pages not yet moved to the fixture) -----
@pytest.fixture(scope="session")
def app_db(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("app") / "app.duckdb"
    seeded_warehouse(path).close()
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
