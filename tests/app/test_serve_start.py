"""The dashboard's start: ``tokendesk db init`` runs only when the warehouse needs it, and the
server reads what the first page reads while the browser is still loading."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from app.serve import build_command
from warehouse.files import is_up_to_date

ROOT = Path(__file__).resolve().parents[2]


def test_a_built_warehouse_needs_no_init(app_db, capsys):
    assert is_up_to_date(str(app_db))
    init, rest = build_command(["--warehouse", str(app_db), "run", "app/streamlit_app.py"])
    assert init is None
    assert rest == ["run", "app/streamlit_app.py"]
    assert "up to date" in capsys.readouterr().out


def _missing_migration(path):
    with duckdb.connect(str(path)) as con:
        newest = con.execute("SELECT max(version) FROM schema_migrations").fetchone()[0]
        con.execute("DELETE FROM schema_migrations WHERE version = ?", [newest])


@pytest.mark.parametrize(
    "case", ["new path", "text file", "folder", "pipe", "pending migration", "team catalog"]
)
def test_anything_else_goes_to_db_init(case, app_db, tmp_path):
    target = tmp_path / "tokendesk.duckdb"
    if case == "text file":
        target.write_text("provider,region\n", encoding="utf-8")
    elif case == "folder":
        target.mkdir()
    elif case == "pipe":
        os.mkfifo(target)
    elif case == "pending migration":
        shutil.copy(app_db, target)
        _missing_migration(target)
    name = "ducklake:postgres:dbname=x" if case == "team catalog" else str(target)
    assert not is_up_to_date(name)
    init, rest = build_command(["--warehouse", name, "run", "app/streamlit_app.py"])
    # Not solved ahead: the server's first page solves while the browser loads.
    assert init == [
        sys.executable,
        "-m",
        "cli.main",
        "db",
        "init",
        "--db",
        name,
        "--no-solve-ahead",
    ]
    assert rest == ["run", "app/streamlit_app.py"]


def test_a_file_another_process_is_writing_goes_to_db_init(app_db, tmp_path):
    """DuckDB lets a writing process hold the file alone: the check cannot read it, and ``db
    init`` is the one that waits for it and says so."""
    target = tmp_path / "held.duckdb"
    shutil.copy(app_db, target)
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import duckdb, sys, time; c = duckdb.connect(sys.argv[1]); print('held', flush=True);"
            " time.sleep(60)",
            str(target),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        assert not is_up_to_date(str(target))
    finally:
        holder.kill()
        holder.wait()


def test_the_check_loads_neither_the_store_nor_pandas(app_db):
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from app.serve import build_command;"
            " init, _ = build_command(['--warehouse', sys.argv[1]]);"
            " print(init is None, 'pandas' in sys.modules, 'warehouse.store' in sys.modules)",
            str(app_db),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    )
    assert done.stdout.splitlines()[-1].split() == ["True", "False", "False"]


def test_the_reads_made_at_start_are_the_ones_the_first_page_makes(app_env, monkeypatch):
    """``plan_reads.prepare`` asks the cached reads for exactly what the Overview asks them for
    (the same arguments, so the page finds them cached)."""
    from streamlit.testing.v1 import AppTest

    from app import data, plan_reads

    calls: dict[str, list] = {}
    reads = ((data, "_filter_values"), (data, "_freshness"), (data, "workspace"))
    for module, name in (*reads, (plan_reads, "_workspace_evaluation")):
        real = getattr(module, name)

        def record(*args, _name=name, _real=real, **kwargs):
            calls.setdefault(_name, []).append((args, kwargs))
            return _real(*args, **kwargs)

        monkeypatch.setattr(module, name, record)
    plan_reads.prepare(str(app_env))
    prepared, calls = calls, {}
    at = AppTest.from_file(str(ROOT / "app" / "views" / "overview.py"), default_timeout=120)
    at.run()
    assert not at.exception
    assert set(prepared) == {"_filter_values", "_freshness", "workspace", "_workspace_evaluation"}
    for name, made in prepared.items():
        for call in made:
            assert call in calls[name], name


def test_the_other_pages_imports_wait_until_a_page_has_run(app_env):
    """They would share the interpreter with the first visitor's page otherwise."""
    import threading

    from streamlit.testing.v1 import AppTest

    from app import warming

    warming._page_ran.clear()
    imported = threading.Event()
    warm = threading.Thread(target=lambda: (warming.wait_for_a_page(60), imported.set()))
    warm.start()
    assert not imported.wait(0.2)
    at = AppTest.from_file(str(ROOT / "app" / "streamlit_app.py"), default_timeout=120).run()
    assert not at.exception
    assert imported.wait(30)
    warm.join()
