from pathlib import Path

import pytest

from tokendesk.paths import REPO_ROOT
from tokendesk.warehouse import Warehouse

VIEWS = REPO_ROOT / "tokendesk" / "app" / "views"


@pytest.fixture(scope="session")
def app_db(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("app") / "app.duckdb"
    Warehouse.open(path).close()
    return path


@pytest.fixture
def app_env(app_db, monkeypatch):
    monkeypatch.setenv("TOKENDESK_DB", str(app_db))
    return app_db
