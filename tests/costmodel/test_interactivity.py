"""The interactivity frontier: tok/s per user against $/output token, and the cost at a target,
read between measured points and never beyond them (values worked by hand in each test)."""

import math

import numpy as np
import pandas as pd
import pytest

from costmodel.interactivity import (
    cost_at_target,
    costs_at_target,
    frontier_indices,
    frontier_points,
    tok_s_per_user,
)
from tests.factories import frame, sweep

# TPOT 200, 125, 100 and 40 ms -> 5, 8, 10 and 25 tok/s per user. The 8 tok/s point costs more
# than the faster 10 tok/s one, so it is off the frontier.
X = np.array([5.0, 8.0, 10.0, 25.0])
COST = np.array([1.0, 2.5, 2.0, 5.0])


def test_interactivity_is_1000_over_tpot_and_missing_without_one():
    assert list(tok_s_per_user([200.0, 40.0])) == [5.0, 25.0]
    assert np.isnan(tok_s_per_user([None, 0.0])).all()


def test_the_frontier_drops_a_point_a_faster_cheaper_one_beats():
    assert list(frontier_indices(X, COST)) == [0, 2, 3]
    # Along the frontier cost rises with interactivity.
    assert list(COST[frontier_indices(X, COST)]) == [1.0, 2.0, 5.0]


def test_between_frontier_points_the_cost_is_linear():
    # 20 tok/s/user lies 10/15 of the way from 10 ($2) to 25 ($5): 2 + 2/3 × 3 = $4.
    found = cost_at_target(X, COST, 20.0)
    assert found.cost == pytest.approx(4.0)
    assert "between measured points at 10.0 and 25.0" in found.how
    # 7.5 lies halfway from 5 ($1) to 10 ($2); the dominated 8 tok/s point plays no part.
    assert cost_at_target(X, COST, 7.5).cost == pytest.approx(1.5)


def test_at_a_measured_point_the_cost_is_that_points():
    found = cost_at_target(X, COST, 10.0)
    assert found.cost == 2.0 and found.how.startswith("at a measured point")
    assert cost_at_target(X, COST, 25.0).cost == 5.0
    assert cost_at_target(X, COST, 5.0).cost == 1.0


@pytest.mark.parametrize("target", [25.01, 30.0, 1000.0])
def test_faster_than_every_measured_point_has_no_cost(target):
    found = cost_at_target(X, COST, target)
    assert found.cost is None and not found.known
    assert "faster than every measured point (the fastest is 25.0 tok/s/user)" in found.how
    assert "not extrapolated" in found.how


@pytest.mark.parametrize("target", [0.1, 4.99])
def test_slower_than_every_measured_point_has_no_cost(target):
    found = cost_at_target(X, COST, target)
    assert found.cost is None
    assert "slower than every measured point (the slowest is 5.0 tok/s/user)" in found.how


def test_below_the_frontier_the_cheapest_faster_measured_point_prices_the_target():
    # The slow 5 tok/s point costs $3, more than the 10 tok/s point's $2: a target of 6 is met
    # at $2 by running at the faster point; no cost below $2 is invented.
    x, cost = np.array([5.0, 10.0, 25.0]), np.array([3.0, 2.0, 5.0])
    found = cost_at_target(x, cost, 6.0)
    assert found.cost == 2.0 and "measured point of 10.0 tok/s/user" in found.how


def test_a_single_point_prices_only_its_own_interactivity():
    x, cost = np.array([12.0]), np.array([0.7])
    assert cost_at_target(x, cost, 12.0).cost == 0.7
    assert cost_at_target(x, cost, 12.5).cost is None
    assert cost_at_target(x, cost, 11.5).cost is None


def test_no_point_with_a_tpot_has_no_cost():
    found = cost_at_target(np.array([np.nan]), np.array([1.0]), 10.0)
    assert found.cost is None and "no priced point" in found.how


def test_the_cost_never_falls_as_the_target_rises_and_never_leaves_the_measured_range():
    rng = np.random.default_rng(7)
    for _ in range(200):
        n = int(rng.integers(1, 8))
        x = rng.uniform(1.0, 100.0, n)
        cost = rng.uniform(0.1, 10.0, n)
        targets = np.linspace(0.5, 110.0, 300)
        found = [cost_at_target(x, cost, t) for t in targets]
        inside = (targets >= x.min()) & (targets <= x.max())
        assert [f.known for f in found] == list(inside)
        known = [f.cost for f in found if f.cost is not None]
        assert all(b >= a - 1e-12 for a, b in zip(known, known[1:], strict=False))
        # Never below the cheapest or above the dearest measured point.
        assert all(cost.min() - 1e-12 <= c <= cost.max() + 1e-12 for c in known)


def _tpot_sweep(**overrides):
    # Instance tok/s 1000, 4000, 8000 at $36/h: $0.01, $0.0025, $0.00125 per 1K output tokens.
    rows = sweep(
        usd_per_hour=36.0,
        points=((1, 1000.0, 100.0), (8, 4000.0, 300.0), (32, 8000.0, 900.0)),
        **overrides,
    )
    for row, tpot in zip(rows, (20.0, 50.0, 100.0), strict=True):
        row["tpot_ms_p95"] = tpot
        row["tpot_ms_p99"] = tpot * 1.1
    return rows


def test_frontier_points_are_per_configuration_and_quote_and_count_what_lacks_a_tpot():
    no_tpot = sweep(model="other-model", points=((1, 500.0, 100.0),))
    options = frame(_tpot_sweep(), _tpot_sweep(region="us-west-2"), no_tpot)
    found = frontier_points(options, "p95", "usd_per_1k_output_tokens")
    assert found.excluded == 1
    assert found.points["curve"].nunique() == 2  # one configuration on two quotes
    one = found.points[found.points["region"] == "us-east-1"]
    assert list(one["tok_s_per_user"]) == [10.0, 20.0, 50.0]
    assert list(one["usd_per_1k_output_tokens"]) == pytest.approx([0.00125, 0.0025, 0.01])
    assert one["on_frontier"].all() and (one["tpot_basis"] == "p95").all()
    # Results publish no TPOT p90: p95 stands in, labelled as the upper bound it is.
    at_p90 = frontier_points(options, "p90", "usd_per_1k_output_tokens").points
    assert (at_p90["tpot_basis"] == "p95 (upper bound for p90)").all()
    at_p99 = frontier_points(options, "p99", "usd_per_1k_output_tokens").points
    assert list(at_p99[at_p99["region"] == "us-east-1"]["tok_s_per_user"]) == pytest.approx(
        [1000 / 110, 1000 / 55, 1000 / 22]
    )


def test_costs_at_target_reads_each_curve_at_the_target():
    options = frame(_tpot_sweep())
    points = frontier_points(options, "p95", "usd_per_1k_output_tokens").points
    # 30 tok/s/user: 10/30 of the way from 20 ($0.0025) to 50 ($0.01) = $0.005.
    at = costs_at_target(points, 30.0, "usd_per_1k_output_tokens")
    assert len(at) == 1 and at.loc[0, "points"] == 3
    assert at.loc[0, "cost_at_target"] == pytest.approx(0.005)
    assert (at.loc[0, "slowest_tok_s_per_user"], at.loc[0, "fastest_tok_s_per_user"]) == (10, 50)
    beyond = costs_at_target(points, 60.0, "usd_per_1k_output_tokens")
    assert (
        math.isnan(beyond.loc[0, "cost_at_target"]) and "not extrapolated" in beyond.loc[0, "how"]
    )
    assert isinstance(at, pd.DataFrame)
