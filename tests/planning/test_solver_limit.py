"""The optimizer's time limit: 20 s, or the environment's where it is a number above 0; and a
problem solved once in a process is answered from memory with the same path."""

from __future__ import annotations

import copy

import pytest

from costmodel import optimizer_horizon
from planning.optimal_plan import HORIZON_TIME_LIMIT_ENV, HORIZON_TIME_LIMIT_S, horizon_time_limit
from tests.optimizer_horizon_reference import random_horizon_problem


def test_the_tests_run_with_a_generous_limit_under_the_name_the_planner_reads():
    assert horizon_time_limit() == 600.0  # set by tests/conftest.py under this very name


@pytest.mark.parametrize(
    ("value", "limit"),
    [
        ("45", 45.0),
        ("0", HORIZON_TIME_LIMIT_S),
        ("-3", HORIZON_TIME_LIMIT_S),
        ("nan", HORIZON_TIME_LIMIT_S),
        ("inf", HORIZON_TIME_LIMIT_S),
        ("soon", HORIZON_TIME_LIMIT_S),
    ],
)
def test_a_limit_from_the_environment_is_used_only_when_it_is_a_positive_number(
    monkeypatch, value, limit
):
    monkeypatch.setenv(HORIZON_TIME_LIMIT_ENV, value)
    assert horizon_time_limit() == limit


def test_a_problem_solved_before_is_answered_from_memory(monkeypatch):
    problem = random_horizon_problem(3)
    first = optimizer_horizon.solve_horizon(problem, time_limit_s=59.0)
    calls = []
    monkeypatch.setattr(optimizer_horizon, "_solve_horizon", lambda *a, **k: calls.append(a))
    assert optimizer_horizon.solve_horizon(problem, time_limit_s=59.0) is first
    assert not calls
    optimizer_horizon.solve_horizon(problem, time_limit_s=58.0)  # other options: solved again
    assert len(calls) == 1


def test_a_remembered_path_reads_on_an_equal_problem_built_again():
    # Every run of a page builds its problem anew: equal values, other objects. The path is read
    # by candidate identity, so the remembered one must point at the new problem's candidates.
    problem = random_horizon_problem(5)
    first = optimizer_horizon.solve_horizon(problem, time_limit_s=57.0)
    again = copy.deepcopy(problem)
    second = optimizer_horizon.solve_horizon(again, time_limit_s=57.0)
    assert second.horizon_usd == first.horizon_usd
    if first.feasible:
        want = optimizer_horizon.month_lines(problem, first, 1)
        assert optimizer_horizon.month_lines(again, second, 1) == want
        mine = {id(o.candidate) for o in again.offers} | {id(f.candidate) for f in again.fleet}
        assert all(id(h.candidate) in mine for month in second.holdings for h in month)
