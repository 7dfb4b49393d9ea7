"""The test command's process count follows a container's CPU quota, not the host's CPUs."""

from __future__ import annotations

import importlib.util
import os

from tokendesk.paths import REPO_ROOT

_spec = importlib.util.spec_from_file_location(
    "test_workers", REPO_ROOT / "scripts/test_workers.py"
)
assert _spec is not None and _spec.loader is not None
test_workers = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(test_workers)


def test_a_quota_of_two_cpus_gives_two_processes_whatever_the_host_shows(tmp_path, monkeypatch):
    monkeypatch.delenv("TOKENDESK_TEST_WORKERS", raising=False)
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: set(range(64)))
    (tmp_path / "cpu.max").write_text("200000 100000\n")
    assert test_workers.workers(tmp_path) == 2
    (tmp_path / "cpu.max").write_text("max 100000\n")
    assert test_workers.workers(tmp_path) == test_workers.MOST  # no quota: at most 4
    (tmp_path / "cpu.max").write_text("50000 100000\n")
    assert test_workers.workers(tmp_path) == 1  # half a CPU: still one process


def test_a_cgroup_v1_quota_and_the_override(tmp_path, monkeypatch):
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: set(range(8)))
    (tmp_path / "cpu").mkdir()
    (tmp_path / "cpu" / "cpu.cfs_quota_us").write_text("300000\n")
    (tmp_path / "cpu" / "cpu.cfs_period_us").write_text("100000\n")
    monkeypatch.delenv("TOKENDESK_TEST_WORKERS", raising=False)
    assert test_workers.workers(tmp_path) == 3
    monkeypatch.setenv("TOKENDESK_TEST_WORKERS", "1")
    assert test_workers.workers(tmp_path) == 1
