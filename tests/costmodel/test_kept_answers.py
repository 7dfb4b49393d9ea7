"""A proven horizon answer kept in a store is read back, checked, in place of a solve: the same
path to the cent; an answer that fails a check, one cut short, or one for other options is not."""

from __future__ import annotations

import copy
from types import SimpleNamespace

import numpy as np
import pytest

from costmodel import kept_answers, optimizer_horizon
from costmodel.kept_answers import FORMAT, Answer, kept_answer
from tests.optimizer_horizon_reference import random_horizon_problem


class DictStore:
    """An answer store in memory, counting what it is asked."""

    def __init__(self) -> None:
        self.kept: dict[str, dict] = {}
        self.gets = 0
        self.puts = 0

    def get(self, key):
        self.gets += 1
        return copy.deepcopy(self.kept.get(key))

    def put(self, key, answer):
        self.puts += 1
        self.kept[key] = copy.deepcopy(dict(answer))


def feasible_problem():
    for seed in range(20):
        problem = random_horizon_problem(seed)
        # Solved outside the process's memory of solutions, which the tests below start without.
        if optimizer_horizon._solve_horizon(problem, mip_rel_gap=1e-6, time_limit_s=60.0).feasible:
            return problem
    raise AssertionError("no feasible random problem in 20 seeds")


@pytest.fixture
def fresh_memory(monkeypatch):
    """Each solve below as a new process makes it: nothing remembered in memory."""
    monkeypatch.setattr(optimizer_horizon, "_SOLVED", type(optimizer_horizon._SOLVED)())


def no_solver(*args, **kwargs):
    raise AssertionError("the solver was called")


def test_a_kept_answer_gives_the_same_path_without_solving(monkeypatch, fresh_memory):
    problem = feasible_problem()
    store = DictStore()
    solved = optimizer_horizon.solve_horizon(problem, store=store)
    assert solved.status == "optimal" and not solved.reused
    assert store.puts == 1

    monkeypatch.setattr(optimizer_horizon, "_SOLVED", type(optimizer_horizon._SOLVED)())
    monkeypatch.setattr(optimizer_horizon, "milp", no_solver)
    again = optimizer_horizon.solve_horizon(copy.deepcopy(problem), store=store)
    assert again.reused
    assert again.horizon_usd == solved.horizon_usd
    assert again.bound_usd == solved.bound_usd
    assert again.monthly_usd == solved.monthly_usd
    assert again.one_time_usd_by_month == solved.one_time_usd_by_month
    assert [[(h.role, h.units, h.started, h.usd) for h in m] for m in again.holdings] == [
        [(h.role, h.units, h.started, h.usd) for h in m] for m in solved.holdings
    ]
    # The solve time is the run's that proved it, said as such.
    kept = next(iter(store.kept.values()))
    assert again.solve_seconds == kept["solve_seconds"]


def test_other_options_are_another_programme(fresh_memory):
    problem = feasible_problem()
    store = DictStore()
    optimizer_horizon.solve_horizon(problem, store=store, mip_rel_gap=1e-6)
    optimizer_horizon.solve_horizon(problem, store=store, mip_rel_gap=1e-4)
    optimizer_horizon.solve_horizon(problem, store=store, mip_rel_gap=1e-4, time_limit_s=30.0)
    assert len(store.kept) == 3


def test_an_answer_that_fails_its_checks_is_solved_again_and_replaced(monkeypatch, fresh_memory):
    problem = feasible_problem()
    store = DictStore()
    solved = optimizer_horizon.solve_horizon(problem, store=store)
    key, raw = next(iter(store.kept.items()))
    # Every unit let go, and its cost with it: a point that carries no load.
    store.kept[key] = raw | {"x": [0.0] * len(raw["x"]), "fun": 0.0, "mip_dual_bound": 0.0}

    monkeypatch.setattr(optimizer_horizon, "_SOLVED", type(optimizer_horizon._SOLVED)())
    again = optimizer_horizon.solve_horizon(problem, store=store)
    assert not again.reused
    assert again.horizon_usd == pytest.approx(solved.horizon_usd, rel=1e-12)
    assert store.kept[key]["x"] == raw["x"]


def test_an_answer_cut_short_is_never_kept(monkeypatch):
    programme = _programme_of(feasible_problem())
    store = DictStore()
    cut_short = SimpleNamespace(
        status=1, x=None, fun=None, mip_dual_bound=None, message="Time limit reached."
    )
    monkeypatch.setattr(optimizer_horizon, "milp", lambda *a, **k: cut_short)
    answer = optimizer_horizon._answer(programme, {"mip_rel_gap": 1e-6}, store)
    assert answer.status == 1 and store.puts == 0


def _programme_of(problem):
    """The programme ``solve_horizon`` poses for ``problem``, caught on its way to the store."""
    caught = []

    class Catch(DictStore):
        def get(self, key):
            return None

        def put(self, key, answer):
            return None

    original = optimizer_horizon.kept_answer

    def catch(raw, programme):
        caught.append(programme)
        return original(raw, programme)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(optimizer_horizon, "kept_answer", catch)
        optimizer_horizon._solve_horizon(
            problem, mip_rel_gap=1e-6, time_limit_s=60.0, store=Catch()
        )
    return caught[0]


@pytest.fixture(scope="module")
def proven():
    """(programme, its proven answer as kept) for a feasible random problem."""
    problem = feasible_problem()
    programme = _programme_of(problem)
    answer = optimizer_horizon._answer(programme, {"mip_rel_gap": 1e-6}, None)
    assert answer.status == 0
    return programme, answer.as_dict()


def test_the_genuine_answer_passes_its_checks(proven):
    programme, raw = proven
    answer = kept_answer(raw, programme)
    assert isinstance(answer, Answer) and answer.reused
    assert answer.fun == raw["fun"]
    np.testing.assert_array_equal(answer.x, raw["x"])


def _priced(raw, programme, x):
    """``raw`` moved to the point ``x`` with its objective (and bound) made to agree, so only
    the check on the point itself can refuse it."""
    fun = float(programme.cost @ np.asarray(x))
    return raw | {"x": list(x), "fun": fun, "mip_dual_bound": min(raw["mip_dual_bound"], fun)}


def _above_a_bound(raw, programme):
    x = list(raw["x"])
    i = next(i for i, u in enumerate(programme.upper) if np.isfinite(u))
    x[i] = float(programme.upper[i]) + 1.0
    return _priced(raw, programme, x)


def _nothing_bought(raw, programme):
    """Every variable at its lower bound: whole and within bounds, but no load carried."""
    return _priced(raw, programme, [float(v) for v in programme.lower])


def _off_by_half(raw, programme):
    """Half a unit more of a whole variable that has room for it."""
    x = list(raw["x"])
    whole = next(
        i for i in np.flatnonzero(programme.integrality) if x[i] + 0.5 <= programme.upper[i]
    )
    x[whole] += 0.5
    return _priced(raw, programme, x)


@pytest.mark.parametrize(
    "spoil",
    [
        lambda raw, p: None,
        lambda raw, p: [],
        lambda raw, p: raw | {"format": FORMAT + 1},
        lambda raw, p: raw | {"status": 1},
        lambda raw, p: raw | {"x": raw["x"][:-1]},
        lambda raw, p: raw | {"x": [float("nan")] + raw["x"][1:]},
        lambda raw, p: raw | {"x": "many"},
        lambda raw, p: raw | {"fun": raw["fun"] * 0.9},
        lambda raw, p: raw | {"mip_dual_bound": raw["fun"] * 1.1 + 1},
        lambda raw, p: raw | {"solve_seconds": -1.0},
        lambda raw, p: raw | {"message": 7},
        lambda raw, p: {k: v for k, v in raw.items() if k != "fun"},
        _above_a_bound,
        _nothing_bought,
        _off_by_half,
    ],
    ids=[
        "nothing",
        "not a mapping",
        "other format",
        "not proven",
        "short",
        "nan",
        "not numbers",
        "objective not the point's cost",
        "bound above the objective",
        "negative seconds",
        "message not text",
        "field missing",
        "above a bound",
        "a row broken",
        "fractional",
    ],
)
def test_a_spoilt_answer_is_refused(proven, spoil):
    programme, raw = proven
    assert kept_answer(spoil(copy.deepcopy(raw), programme), programme) is None


def test_the_key_reads_every_coefficient(proven):
    programme, _ = proven
    options = {"mip_rel_gap": 1e-6}
    key = programme.key(options)
    assert key == programme.key(dict(options))
    cost = programme.cost.copy()
    cost[0] = np.nextafter(cost[0], np.inf)
    nudged = kept_answers.Programme(**{**programme.__dict__, "cost": cost})
    assert nudged.key(options) != key
    assert programme.key({"mip_rel_gap": 1e-5}) != key
