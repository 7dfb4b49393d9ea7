"""A new warehouse file is built beside its path and appears whole or not at all."""

from __future__ import annotations

import subprocess
import sys

from warehouse import Warehouse
from warehouse.new_file import publish, staging_path, sweep_abandoned


def _dead_pid() -> int:
    done = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        check=True,
        capture_output=True,
        text=True,
    )
    return int(done.stdout)


def test_a_build_leaves_only_the_finished_file(tmp_path):
    target = tmp_path / "w.duckdb"
    with Warehouse.open(target, build=False) as warehouse:
        assert warehouse.schema_version() > 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["w.duckdb", "w.duckdb.writer-gate"]


def test_a_dead_builds_staging_file_is_swept_and_a_live_ones_kept(tmp_path):
    target = tmp_path / "w.duckdb"
    dead = tmp_path / f".w.duckdb.building-{_dead_pid()}-0badc0de"
    for suffix in ("", ".wal", ".writer-gate"):
        dead.with_name(dead.name + suffix).write_bytes(b"partial")
    live = staging_path(target)
    live.write_bytes(b"mine")
    sweep_abandoned(target)
    assert sorted(p.name for p in tmp_path.iterdir()) == [live.name]


def test_publishing_keeps_the_file_another_process_published_first(tmp_path):
    target = tmp_path / "w.duckdb"
    target.write_bytes(b"first")
    mine = staging_path(target)
    mine.write_bytes(b"second")
    publish(mine, target)
    assert target.read_bytes() == b"first" and not mine.exists()
