"""A warehouse path that exists but is not a DuckDB file — a folder, a pipe, an empty file, a file
of something else — is refused in words naming what it is, by every command and by the dashboard's
start, and the path is left exactly as it was (never a "fault in tokendesk", never a hang)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from cli.main import main as tokendesk

ROOT = Path(__file__).resolve().parents[2]


def _folder(path: Path) -> None:
    path.mkdir()


def _pipe(path: Path) -> None:
    os.mkfifo(path)


def _empty(path: Path) -> None:
    path.write_bytes(b"")


def _text(path: Path) -> None:
    path.write_text("provider,region\naws,us-east-1\n", encoding="utf-8")


CASES = {
    "folder": (_folder, "is a folder"),
    "pipe": (_pipe, "is not a regular file"),
    "empty file": (_empty, "is an empty file"),
    "another kind of file": (_text, "is not a DuckDB database file"),
}


def _state(path: Path) -> tuple:
    stat = path.lstat()
    content = (
        path.read_bytes()
        if path.is_file()
        else sorted(p.name for p in path.iterdir())
        if (path.is_dir())
        else None
    )
    return stat.st_mode, content


@pytest.mark.parametrize("case", CASES, ids=list(CASES))
@pytest.mark.parametrize("command", [["db", "info"], ["db", "init"], ["costs"]])
def test_a_path_that_is_not_a_warehouse_is_refused_plainly_and_left_alone(
    case, command, tmp_path, capsys
):
    make, words = CASES[case]
    path = tmp_path / "tokendesk.duckdb"
    make(path)
    before = _state(path)
    with pytest.raises(SystemExit) as done:
        tokendesk([*command, "--db", str(path)])
    err = capsys.readouterr().err
    assert done.value.code == 1
    assert f"the warehouse path {path} {words}" in " ".join(err.split())
    assert "fault in tokendesk" not in err
    assert _state(path) == before


def test_the_dashboard_refuses_to_start_on_such_a_path_and_says_why(tmp_path):
    path = tmp_path / "not-a-warehouse.duckdb"
    _text(path)
    started = subprocess.run(
        [sys.executable, "-m", "cli.main", "app", "--port", "1", "--db", str(path)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert started.returncode == 1
    assert "is not a DuckDB database file" in " ".join(started.stderr.split())
    assert "Traceback" not in started.stderr
    assert "fault in tokendesk" not in started.stderr


def test_a_path_whose_folder_cannot_be_made_is_refused_plainly(tmp_path, capsys):
    a_file = tmp_path / "not-a-folder"
    a_file.write_text("x", encoding="utf-8")
    with pytest.raises(SystemExit) as done:
        tokendesk(["db", "info", "--db", str(a_file / "tokendesk.duckdb")])
    err = " ".join(capsys.readouterr().err.split())
    assert done.value.code == 1
    assert "its folder cannot be created (File exists)" in err
    assert "fault in tokendesk" not in err
    assert a_file.read_text(encoding="utf-8") == "x"


@pytest.mark.skipif(not Path("/sys/kernel").is_dir(), reason="needs Linux's sysfs")
def test_a_path_nobody_may_create_a_file_in_is_refused_plainly(capsys):
    """sysfs refuses new files even to root (or is mounted read-only in a container): DuckDB's
    refusal said in words."""
    with pytest.raises(SystemExit) as done:
        tokendesk(["db", "info", "--db", "/sys/tokendesk.duckdb"])
    err = " ".join(capsys.readouterr().err.split())
    assert done.value.code == 1
    assert "the warehouse /sys/tokendesk.duckdb cannot be opened (" in err
    assert "fault in tokendesk" not in err
