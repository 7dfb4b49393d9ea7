"""The fleet optimizer: equals brute force on small cases, never breaks a constraint, never costs
more than a built-in scenario priced the same way, and the diversification frontier only rises."""

from __future__ import annotations

import math
from itertools import product

import numpy as np
import pytest

from costmodel import Engine
from costmodel.optimizer import (
    HELD,
    HOURLY,
    Candidate,
    Choice,
    Problem,
    comparable_cost,
    diversification_frontier,
    objective_of,
    solve,
    workspace_problem,
)
from costmodel.plan import PlanContext, WorkspaceEngine, builtin_plans, custom_plan
from costmodel.workspace import workspace_from_dict
from tests.costmodel.test_plan import OPTIONS, workspace


def _ub(problem: Problem, c: Candidate) -> int:
    if c.max_units is not None:
        return c.max_units
    peak = max(problem.loads[c.workload])
    return math.ceil(peak / c.unit_capacity - 1e-9) + (1 if problem.n_plus_one else 0)


def feasible(problem: Problem, choices, tol: float = 1e-6) -> bool:
    """Every hour carried (with N+1 headroom if asked) and the vendor cap met: checked apart from
    the solver. Vendor shares: for two vendors the traffic one of them must / can carry is an
    interval per workload-hour, so the cap is met iff the summed intervals meet it."""
    H = problem.hours
    total = problem.total_load
    vendors = sorted({ch.candidate.vendor for ch in choices if any(ch.units)})
    assert len(vendors) <= 2, "the brute-force check handles two vendors"
    lo_a = hi_a = 0.0
    for w, load in problem.loads.items():
        mine = [ch for ch in choices if ch.candidate.workload == w]
        biggest = max((ch.candidate.unit_capacity for ch in mine if any(ch.units)), default=0.0)
        for h in range(H):
            caps: dict[str, float] = {}
            for ch in mine:
                u = ch.units[0] if ch.candidate.kind == HELD else ch.units[h]
                caps[ch.candidate.vendor] = caps.get(ch.candidate.vendor, 0.0) + u * (
                    ch.candidate.unit_capacity
                )
            carried = sum(caps.values()) - (biggest if problem.n_plus_one else 0.0)
            if carried < load[h] - tol:
                return False
            if vendors:
                a = caps.get(vendors[0], 0.0)
                b = caps.get(vendors[1], 0.0) if len(vendors) > 1 else 0.0
                lo_a += max(0.0, load[h] - b)
                hi_a += min(load[h], a)
    if not vendors or total <= 0:
        return True
    cap = problem.max_vendor_share
    if len(vendors) == 1:
        return cap >= 1.0 - 1e-9
    return max(lo_a, total * (1 - cap)) <= min(hi_a, total * cap) + tol


def brute_force(problem: Problem) -> float:
    cands = problem.candidates
    H = problem.hours
    ranges = [
        list(product(range(_ub(problem, c) + 1), repeat=1 if c.kind == HELD else H)) for c in cands
    ]
    best = math.inf
    for combo in product(*ranges):
        choices = [Choice(c, u) for c, u in zip(cands, combo, strict=True)]
        if not feasible(problem, choices):
            continue
        used = {c.backend for c, u in zip(cands, combo, strict=True) if any(u)}
        best = min(best, objective_of(problem, choices, used))
    return best


def random_problem(seed: int) -> Problem:
    rng = np.random.default_rng(seed)
    cands = []
    for w in ("a", "b")[: 1 + seed % 2]:
        for backend in ("cuda", "rocm")[: 2 - seed % 2]:
            cap = float(rng.integers(3, 9)) * 100
            rate = float(rng.integers(20, 60))
            cands.append(
                Candidate(
                    w, HOURLY, "new", "p", "r", f"{backend}-od", "on_demand", backend, cap, rate
                )
            )
            if rng.random() < 0.6:
                cands.append(
                    Candidate(
                        w,
                        HELD,
                        "new",
                        "p",
                        "r",
                        f"{backend}-1y",
                        "reserved_1y",
                        backend,
                        cap * float(rng.uniform(0.8, 1.3)),
                        rate * 730 * float(rng.uniform(0.5, 0.8)),
                    )
                )
    if seed % 3 == 0:
        cands.append(
            Candidate(
                "a",
                HELD,
                "fleet",
                "p",
                "r",
                "fleet",
                "reserved_1y",
                "cuda",
                350.0,
                40.0 * 730,
                max_units=2,
                release_usd_per_unit_month=40.0 * 730 * float(rng.uniform(0, 1)),
            )
        )
    loads = {
        w: tuple(float(v) for v in rng.integers(2, 9, size=2) * 100)
        for w in {c.workload for c in cands}
    }
    return Problem(
        loads=loads,
        candidates=tuple(cands),
        max_vendor_share=(1.0, 0.8, 0.6)[seed % 3] if seed % 2 == 0 else 1.0,
        n_plus_one=seed % 4 == 1,
        one_time_usd_by_backend={"rocm": float(rng.integers(0, 4)) * 100_000},
        horizon_months=36,
    )


@pytest.mark.parametrize("seed", range(12))
def test_the_milp_equals_brute_force_on_small_cases(seed):
    problem = random_problem(seed)
    expected = brute_force(problem)
    got = solve(problem, mip_rel_gap=0.0)
    if math.isinf(expected):
        assert not got.feasible
        return
    assert got.status == "optimal"
    assert got.objective_usd_per_month == pytest.approx(expected, rel=1e-7)
    assert feasible(problem, got.choices)
    # The objective is the cost of the plan it returns, not a figure of its own.
    used = {ch.candidate.backend for ch in got.choices if any(ch.units)}
    assert objective_of(problem, got.choices, used) == pytest.approx(expected, rel=1e-7)


def test_dominance_pruning_never_changes_the_optimum():
    for seed in range(12):
        problem = random_problem(seed)
        a = solve(problem, mip_rel_gap=0.0)
        b = solve(problem, mip_rel_gap=0.0, dominance=False)
        assert a.status == b.status
        if a.feasible:
            assert a.objective_usd_per_month == pytest.approx(b.objective_usd_per_month)


def test_committed_capacity_in_term_is_used_before_buying_more():
    fleet = Candidate(
        "a",
        HELD,
        "fleet",
        "aws",
        "r",
        "p5",
        "reserved_1y",
        "cuda",
        1000.0,
        50.0 * 730,
        max_units=3,
        release_usd_per_unit_month=50.0 * 730,
    )
    cheap = Candidate("a", HOURLY, "new", "aws", "r", "x", "on_demand", "cuda", 1000.0, 10.0)
    problem = Problem({"a": (2500.0, 2500.0)}, (fleet, cheap))
    got = solve(problem, mip_rel_gap=0.0)
    kept = next(ch for ch in got.choices if ch.candidate.role == "fleet")
    # Released units would be paid anyway, so all three are kept and nothing is bought.
    assert kept.units == (3,)
    assert got.objective_usd_per_month == pytest.approx(3 * 50.0 * 730)
    # Once the commitment is over (release costs nothing) the cheaper option wins.
    free = Problem(
        {"a": (2500.0, 2500.0)},
        (Candidate(**{**fleet.__dict__, "release_usd_per_unit_month": 0.0}), cheap),
    )
    assert solve(free, mip_rel_gap=0.0).objective_usd_per_month == pytest.approx(3 * 10.0 * 730)


def _planner(data=None) -> WorkspaceEngine:
    ws = workspace_from_dict(data or workspace())
    return WorkspaceEngine(Engine.from_frame(OPTIONS), PlanContext(ws))


@pytest.mark.parametrize("cap", [1.0, 0.8])
def test_the_optimum_never_costs_more_than_a_built_in_scenario(cap):
    data = workspace(constraints={"max_vendor_share": cap})
    planner = _planner(data)
    plans = (
        *builtin_plans(amd_share=0.25),
        *builtin_plans(amd_share=0.5)[1:2],
        custom_plan((("cuda", 0.6), ("rocm", 0.4)), planner.incumbent_backends),
    )
    results = planner.evaluate(plans)
    problem = workspace_problem(planner)
    got = solve(problem, mip_rel_gap=0.0)
    assert got.status == "optimal"
    assert feasible(problem, got.choices)
    compared = [r for r in results if r.feasible and not r.constraint_violations]
    assert compared, "at least one built-in scenario should meet the constraints"
    for r in compared:
        assert got.objective_usd_per_month <= comparable_cost(planner, r) + 0.01, r.name
    # Stay prices the same way on both sides: the fleet as it is, at its rates.
    stay = results[0]
    assert comparable_cost(planner, stay) == pytest.approx(stay.monthly_usd)
    assert max(got.vendor_shares.values()) <= cap + 1e-6


def test_unapproved_providers_are_never_chosen():
    data = workspace(constraints={"providers": ["aws"], "max_vendor_share": 1.0})
    problem = workspace_problem(_planner(data))
    assert {c.provider for c in problem.candidates} == {"aws"}
    got = solve(problem)
    assert {ch.candidate.provider for ch in got.choices if any(ch.units)} == {"aws"}


def test_the_frontier_only_rises_as_the_cap_tightens():
    problem = workspace_problem(_planner(workspace(constraints={"max_vendor_share": 1.0})))
    points = diversification_frontier(problem, caps=(1.0, 0.9, 0.8))
    costs = [p.objective_usd_per_month for p in points if p.feasible]
    assert len(costs) == 3
    assert all(b >= a - 0.01 for a, b in zip(costs, costs[1:], strict=False))
    for p in points:
        if p.feasible:
            assert max(p.vendor_shares.values()) <= p.max_vendor_share + 1e-6
            assert 0 < p.hhi <= 1.0 + 1e-9
