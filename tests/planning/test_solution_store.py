"""The folder of kept horizon answers: where it is, what it does with files it cannot use, and
that an answer ``tokendesk scenarios`` proved is the one the dashboard's first page reads, with
the same figures and no solve."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from costmodel import optimizer_horizon
from planning import solution_store
from planning.solution_store import SOLUTION_STORE_ENV, SolutionFolder, default_store

ROOT = Path(__file__).resolve().parents[2]
KEY = "ab" * 32


def _tokendesk(answers: Path, *args: str) -> str:
    """``tokendesk ARGS`` in a process of its own keeping its answers in ``answers``; its
    standard output (it must succeed)."""
    done = subprocess.run(
        [sys.executable, "-m", "cli.main", *args],
        cwd=ROOT,
        env={**os.environ, SOLUTION_STORE_ENV: str(answers)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_tests_run_with_the_store_off():
    assert os.environ[SOLUTION_STORE_ENV] == "off"  # set by tests/conftest.py
    assert default_store() is None


def test_the_store_is_the_named_folder_or_the_users_cache(monkeypatch, tmp_path):
    monkeypatch.setenv(SOLUTION_STORE_ENV, str(tmp_path / "answers"))
    assert default_store().folder == tmp_path / "answers"
    monkeypatch.setenv(SOLUTION_STORE_ENV, " OFF ")
    assert default_store() is None
    monkeypatch.delenv(SOLUTION_STORE_ENV)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    if sys.platform.startswith("linux"):
        assert default_store().folder == tmp_path / "cache" / "tokendesk" / "horizon-answers"


def test_an_answer_is_kept_as_json_and_read_back(tmp_path):
    store = SolutionFolder(tmp_path / "answers")
    store.put(KEY, {"format": 1, "x": [1.0, 2.0]})
    assert store.get(KEY) == {"format": 1, "x": [1.0, 2.0]}
    assert json.loads((tmp_path / "answers" / f"{KEY}.json").read_text()) == store.get(KEY)
    assert not list((tmp_path / "answers").glob("*.part"))


@pytest.mark.parametrize("key", ["../../etc/passwd", "AB" * 32, "ab" * 31, ""])
def test_a_key_that_is_not_a_digest_names_no_file(tmp_path, key):
    store = SolutionFolder(tmp_path)
    store.put(key, {"x": [1.0]})
    assert store.get(key) is None
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("body", ["{not json", "[1, 2]", "", "\ud800"])
def test_a_file_that_is_not_an_answer_reads_as_nothing(tmp_path, body):
    (tmp_path / f"{KEY}.json").write_text(body, encoding="utf-8", errors="surrogatepass")
    assert SolutionFolder(tmp_path).get(KEY) is None


def test_an_answer_that_is_not_json_is_not_written(tmp_path):
    store = SolutionFolder(tmp_path)
    store.put(KEY, {"fun": float("nan")})
    assert store.get(KEY) is None
    assert list(tmp_path.iterdir()) == []  # nor is half a file left behind


def test_a_folder_that_cannot_be_made_costs_a_solve_not_an_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    store = SolutionFolder(blocker / "answers")
    store.put(KEY, {"x": [1.0]})
    assert store.get(KEY) is None


def test_only_the_newest_answers_are_kept(tmp_path, monkeypatch):
    monkeypatch.setattr(solution_store, "KEPT", 3)
    store = SolutionFolder(tmp_path)
    keys = [f"{i:064x}" for i in range(5)]
    for age, key in enumerate(keys):
        store.put(key, {"n": age})
        os.utime(tmp_path / f"{key}.json", (1_000_000 + age, 1_000_000 + age))
    store.put(keys[-1], {"n": 4})
    assert sorted(p.stem for p in tmp_path.glob("*.json")) == keys[2:]


def test_the_dashboard_reads_the_answer_the_command_line_proved(seed_db, tmp_path, monkeypatch):
    """``tokendesk scenarios`` solves the bundled example and keeps its answer; the Overview's
    evaluation (the same call the first page makes) then poses the very same programme, reads
    the answer without calling the solver, and prints the same figures."""
    answers = tmp_path / "answers"
    out = _tokendesk(answers, "scenarios", "--format", "json", "--db", str(seed_db))
    kept = list(answers.glob("*.json"))
    assert len(kept) == 1
    printed = {p["name"]: p for p in json.loads(out)}

    from app import data, plan_reads
    from planning.workspaces import Knobs, scenario_view

    monkeypatch.setenv(SOLUTION_STORE_ENV, str(answers))
    monkeypatch.setattr(optimizer_horizon, "_SOLVED", type(optimizer_horizon._SOLVED)())

    def no_solver(*args, **kwargs):
        raise AssertionError("the horizon was solved again")

    monkeypatch.setattr(optimizer_horizon, "milp", no_solver)
    _, stored = data.workspace(str(seed_db))
    ws = scenario_view({}, stored).workspace
    plan_reads._workspace_evaluation.clear()  # nothing this process evaluated before
    evaluation = plan_reads.workspace_evaluation(str(seed_db), ws, Knobs())
    horizon = evaluation.optimum.horizon
    assert horizon.reused
    assert round(horizon.horizon_usd, 2) == printed["Optimal"]["horizon_usd"]
    assert round(horizon.bound_usd, 2) == printed["Optimal"]["horizon_bound_usd"]
    for plan in evaluation.plans:
        assert round(plan.horizon_usd, 2) == printed[plan.name]["horizon_usd"]
    # Where the solve time is printed, it says the run that took it was an earlier one.
    from briefs.optimal import optimal_summary

    said = " ".join(optimal_summary(evaluation.optimum))
    assert f"solved in {horizon.solve_seconds:.1f} s by an earlier run, its answer reused" in said
    assert evaluation.optimum.horizon_dict()["solve_reused"] is True


def test_a_new_warehouse_is_built_with_its_plans_solved_ahead(tmp_path):
    """``tokendesk db init`` on a new file solves the stored workspace's plans and keeps the
    answer (the next page or command reads it); ``--no-solve-ahead`` (the server's own build)
    and a warehouse already built keep nothing new."""
    answers = tmp_path / "answers"

    def init(db: Path, *flags: str) -> str:
        return " ".join(_tokendesk(answers, "db", "init", "--db", str(db), *flags).split())

    said = init(tmp_path / "a.duckdb", "--no-solve-ahead")
    assert "solved ahead" not in said and not answers.exists()
    said = init(tmp_path / "b.duckdb")
    assert re.search(
        r"built at .*: \d{1,3}(,\d{3})+ price quotes, \d{1,3}(,\d{3})+ benchmark", said
    )
    assert "The stored workspace's plans solved ahead in" in said
    assert len(list(answers.glob("*.json"))) == 1
    for kept in answers.glob("*.json"):
        kept.unlink()
    said = init(tmp_path / "b.duckdb")  # up to date: nothing to solve
    assert "up to date" in said and "solved ahead" not in said
    assert not list(answers.glob("*.json"))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the XDG folders are Linux's")
@pytest.mark.parametrize("value", ["", "relative/cache"])
def test_an_empty_or_relative_xdg_folder_is_not_taken_as_the_cache(monkeypatch, tmp_path, value):
    """Taken as is, it would put the kept answers under whatever folder a command ran in."""
    monkeypatch.delenv(SOLUTION_STORE_ENV)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_CACHE_HOME", value)
    monkeypatch.setenv("XDG_DATA_HOME", value)
    assert default_store().folder == tmp_path / ".cache" / "tokendesk" / "horizon-answers"
    from tokendesk.paths import user_data_dir

    assert user_data_dir() == tmp_path / ".local" / "share" / "tokendesk"
