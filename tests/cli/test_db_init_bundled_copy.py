"""A warehouse outlives the checkout it was built from: `tokendesk db init` (and the dashboard's
start, which runs it when the warehouse is not up to date) calls an existing warehouse up to date
only when it was built from the bundled files data/ holds now. Otherwise it says which files
differ, that its figures are the other copy's, and how to build it afresh, and writes nothing."""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from cli.main import app
from tokendesk.digests import sha256_file
from tokendesk.paths import DATA_DIR_ENV, REPO_ROOT
from warehouse.bundled import BUNDLED_FILES, MARKET_RESULTS, SEED_RESULTS
from warehouse.files import is_up_to_date

runner = CliRunner()
BUNDLED = REPO_ROOT / "data"


@pytest.fixture
def data_copy(tmp_path, monkeypatch) -> Path:
    """A copy of data/ the commands read as the bundled data."""
    folder = tmp_path / "data"
    shutil.copytree(BUNDLED, folder)
    monkeypatch.setenv(DATA_DIR_ENV, str(folder))
    return folder


def _init(db: Path) -> str:
    done = runner.invoke(app, ["db", "init", "--no-solve-ahead", "--db", str(db)])
    assert done.exit_code == 0, done.output
    return " ".join(done.output.split())


def _state(db: Path) -> tuple:
    with duckdb.connect(str(db), read_only=True) as con:
        return (
            con.execute("SELECT count(*) FROM snapshots").fetchone(),
            con.execute("SELECT count(*) FROM bundled_files").fetchone(),
        )


def test_the_build_records_the_digest_of_every_bundled_file_it_loaded(data_copy, tmp_path):
    db = tmp_path / "w.duckdb"
    assert "Warehouse built" in _init(db)
    with duckdb.connect(str(db), read_only=True) as con:
        recorded = dict(con.execute("SELECT DISTINCT file, sha256 FROM bundled_files").fetchall())
        unrecorded = con.execute(
            "SELECT count(*) FROM snapshots WHERE origin = 'seed' AND snapshot_id NOT IN"
            " (SELECT snapshot_id FROM bundled_files)"
        ).fetchone()
    assert recorded == {name: sha256_file(data_copy / name) for name in BUNDLED_FILES}
    assert unrecorded == (0,)  # every seed snapshot names the copy it came from


def test_a_warehouse_built_from_data_as_it_is_is_up_to_date(data_copy, tmp_path):
    db = tmp_path / "w.duckdb"
    _init(db)
    said = _init(db)
    assert said.startswith("Warehouse up to date at") and "data/" not in said
    assert is_up_to_date(str(db))


@pytest.mark.parametrize("changed", [[SEED_RESULTS], [SEED_RESULTS, MARKET_RESULTS]])
def test_a_warehouse_built_from_another_copy_says_which_files_differ_and_writes_nothing(
    changed, data_copy, tmp_path
):
    db = tmp_path / "w.duckdb"
    _init(db)
    before = _state(db)
    for name in changed:
        with (data_copy / name).open("a", encoding="utf-8") as handle:
            handle.write("\n")  # the same rows; another copy of the file all the same
    assert not is_up_to_date(str(db))
    said = _init(db)
    assert said.startswith("Warehouse found at")
    assert "up to date" not in said
    verb = "differs from the file" if len(changed) == 1 else "differ from the files"
    assert f"built from another copy of data/ ({', '.join(changed)} {verb} there now)" in said
    assert "its figures are that copy's" in said and "`tokendesk db rebuild`" in said
    assert _state(db) == before
    for name in changed:  # data/ as the warehouse was built from it
        shutil.copyfile(BUNDLED / name, data_copy / name)
    assert _init(db).startswith("Warehouse up to date at")


def test_a_warehouse_that_records_no_bundled_file_says_it_cannot_tell(data_copy, tmp_path):
    # As a warehouse built before the digests were recorded reads once its migrations ran.
    db = tmp_path / "w.duckdb"
    _init(db)
    with duckdb.connect(str(db)) as con:
        con.execute("DELETE FROM bundled_files")
    assert not is_up_to_date(str(db))
    said = _init(db)
    assert said.startswith("Warehouse found at")
    assert "did not record which copy of data/ it was built from" in said
    assert "`tokendesk db rebuild`" in said


def test_a_bundled_file_that_cannot_be_read_is_named_as_differing(data_copy, tmp_path):
    # A folder where a bundled file should be (as a half-finished checkout can leave): named in
    # words, never a fault, and the warehouse is left as it was.
    db = tmp_path / "w.duckdb"
    _init(db)
    before = _state(db)
    (data_copy / MARKET_RESULTS).unlink()
    (data_copy / MARKET_RESULTS).mkdir()
    assert not is_up_to_date(str(db))
    said = _init(db)
    assert f"({MARKET_RESULTS} differs from the file there now)" in said
    assert _state(db) == before
