"""The seed is integrity-checked wherever the warehouse is first built: `tokendesk db rebuild` (and
`db init`), `tokendesk app` (what scripts/run.sh runs) and the dashboard's first start. The warehouse
itself imports no pricing rule; these prove the builders hand it the check, and that a seed whose
prices fail it is refused with its row named and no seed data written."""

from __future__ import annotations

import csv
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest
from typer.testing import CliRunner

from cli.main import app as tokendesk_app
from pricing.integrity import check_price_file
from tests.app.pages import shown
from tests.factories import FIXTURE_WAREHOUSE
from tokendesk.paths import DATA_DIR_ENV, REPO_ROOT, data_dir
from warehouse import Warehouse
from warehouse.bundled import SEED_PRICES, SEED_RESULTS
from warehouse.seed import SeedFileError, load_seed

runner = CliRunner()
REFUSED = "fails the price integrity check"


@pytest.fixture
def failing_seed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> int:
    """data/ with the fixture warehouse's rows as its seed, the spot price raised from $16 to $50
    an hour: above the $40 on-demand price of the same instance, which the spot rule refuses.
    Returns the row number of that price in the seed file."""
    folder = tmp_path / "data"
    shutil.copytree(data_dir(), folder)
    for name in (SEED_PRICES, SEED_RESULTS):
        shutil.copy(FIXTURE_WAREHOUSE / name, folder / name)
    with (folder / SEED_PRICES).open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    spot = next(i for i, row in enumerate(rows) if row["quote_id"] == "nvidia-spot-below-on-demand")
    rows[spot]["usd_per_hour"] = "50.00"
    with (folder / SEED_PRICES).open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    monkeypatch.setenv(DATA_DIR_ENV, str(folder))
    return spot + 2  # the header is row 1


def _seed_rows(path: Path) -> tuple[int, int]:
    with Warehouse.open(path, read_only=True, build=False) as warehouse:
        counts = warehouse.table_counts()
    return counts["price_quotes"], counts["benchmark_results"]


def test_the_unchanged_fixture_seed_passes(tmp_path, monkeypatch):
    # The guard for the tests below: only the raised spot price makes the difference.
    with Warehouse.open(tmp_path / "ok.duckdb", build=False) as warehouse:
        load_seed(warehouse, check_price_file, FIXTURE_WAREHOUSE)
    # Five price rows (four current, one historical) and six results: its README's tables.
    assert _seed_rows(tmp_path / "ok.duckdb") == (5, 6)


def test_the_seed_loader_refuses_the_row_and_writes_nothing(failing_seed, tmp_path):
    with (
        Warehouse.open(tmp_path / "w.duckdb", build=False) as warehouse,
        pytest.raises(SeedFileError, match=REFUSED) as caught,
    ):
        load_seed(warehouse, check_price_file)
    assert caught.value.row == failing_seed and "spot $50 above on-demand $40" in str(caught.value)
    assert _seed_rows(tmp_path / "w.duckdb") == (0, 0)


def test_db_rebuild_refuses_a_seed_that_fails_the_integrity_check(failing_seed, tmp_path):
    db = tmp_path / "w.duckdb"
    out = runner.invoke(tokendesk_app, ["db", "rebuild", "--db", str(db)])
    assert out.exit_code == 1, out.output
    assert f"row {failing_seed}: {REFUSED}" in out.output and "Traceback" not in out.output
    assert "nothing from the seed was written" in out.output
    assert _seed_rows(db) == (0, 0)


def test_tokendesk_app_refuses_it_before_serving(failing_seed, tmp_path):
    """The real start: `tokendesk app` becomes the server process, which builds the warehouse
    (`tokendesk db init`) before it listens; a refused seed stops it there, exit 1, nothing
    served (the port stays closed) and nothing written."""
    db = tmp_path / "w.duckdb"
    port = _free_port()
    started = subprocess.run(
        [sys.executable, "-m", "cli.main", "app", "--port", str(port), "--db", str(db)],
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
        timeout=180,
        stdin=subprocess.DEVNULL,
        env=dict(os.environ),  # with the failing data/ the fixture named
    )
    said = " ".join((started.stdout + started.stderr).split())
    assert started.returncode == 1, said
    assert f"row {failing_seed}: {REFUSED}" in said and "Traceback" not in said
    assert "Uvicorn" not in said and "You can now view" not in said  # it never listened
    assert _seed_rows(db) == (0, 0)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_the_dashboards_first_start_refuses_it(failing_seed, tmp_path, monkeypatch):
    db = tmp_path / "first-start.duckdb"
    monkeypatch.setenv("TOKENDESK_DB", str(db))
    at = AppTest.from_file(str(REPO_ROOT / "app" / "streamlit_app.py"), default_timeout=60).run()
    assert not at.exception
    assert any(REFUSED in shown(error.value) for error in at.error), [e.value for e in at.error]
    assert _seed_rows(db) == (0, 0)
