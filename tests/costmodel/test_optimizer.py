"""The fleet optimizer: equals brute force on small cases, never breaks a constraint, never costs
more than a built-in scenario priced the same way, and the diversification frontier only rises."""

from __future__ import annotations

import math
from dataclasses import replace
from datetime import date

import pytest

from costmodel import Engine
from costmodel.optimizer import (
    BOUGHT,
    KEPT,
    RELEASED,
    RELEASED_PAID,
    diversification_frontier,
    plan_lines,
    plan_rows,
    solve,
)
from costmodel.optimizer_problem import HELD, HOURLY, Candidate, Problem, objective_of
from costmodel.optimizer_workspace import workspace_problem
from costmodel.plan import WorkspaceEngine
from costmodel.plan_inputs import PlanContext, custom_plan
from costmodel.workspace_model import workspace_from_dict
from tests.factories import default_plans
from tests.optimizer_reference import (
    brute_force,
    checked_plan_cost,
    exact_optimum,
    feasible,
    random_mixed_problem,
    random_problem,
)
from tests.workspace_data import OPTIONS, workspace


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
    # The proven bound is a true lower bound, and at gap 0 it meets the optimum.
    assert got.bound_usd_per_month <= expected * (1 + 1e-7)
    assert got.gap == pytest.approx(0.0, abs=1e-6)


def test_the_rounded_relaxation_is_a_real_plan_and_the_bound_a_real_bound():
    rounded = 0
    for seed in range(12):
        problem = random_problem(seed)
        expected = brute_force(problem)
        # A loose tolerance accepts the rounded plan whenever it passes every row.
        got = solve(problem, mip_rel_gap=1.0)
        if math.isinf(expected):
            assert not got.feasible
            continue
        rounded += got.message.startswith("rounded from the LP relaxation")
        assert feasible(problem, got.choices)
        used = {ch.candidate.backend for ch in got.choices if any(ch.units)}
        assert objective_of(problem, got.choices, used) == pytest.approx(
            got.objective_usd_per_month, rel=1e-9
        )
        assert (
            got.bound_usd_per_month
            <= expected * (1 + 1e-9)
            <= got.objective_usd_per_month * (1 + 1e-9)
        )
        assert got.gap == pytest.approx(
            1 - got.bound_usd_per_month / got.objective_usd_per_month, abs=1e-12
        )
    assert rounded >= 6, "the rounding should give a plan on most small cases"


def test_two_hours_of_equal_load_may_need_different_fleets_under_a_vendor_cap():
    # Two hours of 100 tok/s; an NVIDIA unit ($1/h) or an AMD unit ($2/h) carries one hour; no
    # vendor may carry more than half the day. The cheapest plan runs NVIDIA in one hour and AMD
    # in the other. Forcing both hours to the same units would need both vendors in both hours.
    def od(name, backend, rate):
        return Candidate("a", HOURLY, "new", "p", "r", name, "on_demand", backend, 100.0, rate)

    problem = Problem(
        {"a": (100.0, 100.0)}, (od("n", "cuda", 1.0), od("m", "rocm", 2.0)), max_vendor_share=0.5
    )
    cheapest = (1.0 + 2.0) * 730 / 2
    assert exact_optimum(problem) == pytest.approx(cheapest)
    for gap in (0.0, 1e-4):
        got = solve(problem, mip_rel_gap=gap)
        assert got.status == "optimal"
        assert got.objective_usd_per_month == pytest.approx(cheapest)
        assert got.bound_usd_per_month <= cheapest + 1e-6
        assert checked_plan_cost(problem, got.choices) == pytest.approx(cheapest)
        units = {ch.candidate.instance_type: ch.units for ch in got.choices}
        assert sorted([units["n"], units["m"]]) == [(0, 1), (1, 0)]


# Random small workspaces the reference MILP proves within a second or two on a busy machine
# (seed 9 asks for N+1); seeds 0, 8 and 16 catch hours of equal load forced to one unit count.
MIXED_SEEDS = (0, 5, 8, 9, 13, 16, 18)


@pytest.mark.parametrize("seed", MIXED_SEEDS)
def test_the_optimizer_agrees_with_an_independent_exact_milp_on_mixed_fleets(seed):
    problem = random_mixed_problem(seed)
    truth = exact_optimum(problem)
    assert math.isfinite(truth)
    tolerance = 0.01
    for kw in (
        {"mip_rel_gap": 0.0},
        {"mip_rel_gap": 0.05},
        {"mip_rel_gap": 0.0, "time_limit_s": 0.3},
    ):
        got = solve(problem, **kw)
        assert got.feasible, kw
        # A real plan: checked apart from the solver, costing what the solver says.
        assert checked_plan_cost(problem, got.choices) == pytest.approx(
            got.objective_usd_per_month, abs=tolerance
        )
        # No plan is cheaper than the true optimum, and the bound never passes it.
        assert got.objective_usd_per_month >= truth - tolerance, kw
        assert got.bound_usd_per_month <= truth + tolerance, kw
        if got.status == "optimal":
            assert got.objective_usd_per_month == pytest.approx(truth, abs=tolerance), kw
    assert solve(problem, mip_rel_gap=0.0).status == "optimal"


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
        *default_plans(amd_share=0.25),
        *default_plans(amd_share=0.5)[1:2],
        custom_plan((("cuda", 0.6), ("rocm", 0.4))),
    )
    results = planner.evaluate(plans)
    problem = workspace_problem(planner)
    got = solve(problem, mip_rel_gap=0.0)
    assert got.status == "optimal"
    assert feasible(problem, got.choices)
    compared = [r for r in results if r.feasible and not r.constraint_violations]
    assert compared, "at least one built-in scenario should meet the constraints"
    for r in compared:
        assert got.objective_usd_per_month <= r.compared_usd_per_month + 0.01, r.name
    # Stay prices the same way on both sides: the fleet as it is, at its rates.
    stay = results[0]
    assert stay.compared_usd_per_month == pytest.approx(stay.monthly_usd)
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
            # The HHI is on every plan's basis: month-1 spend by vendor, 0-10,000.
            lines = plan_lines(solve(replace(problem, max_vendor_share=p.max_vendor_share)))
            spend: dict[str, float] = {}
            for ln in lines:
                spend[ln.vendor] = spend.get(ln.vendor, 0.0) + ln.monthly_usd
            total = sum(spend.values())
            assert p.hhi == pytest.approx(sum((100 * v / total) ** 2 for v in spend.values()))
            assert 0 < p.hhi <= 10_000 + 1e-6


def test_the_plan_lines_add_up_to_the_run_rate_and_never_keep_nothing():
    # 3 committed units ending early for $10/month each (less than their $36,500 rate), 2
    # on-demand fleet units, and a far cheaper option: the plan releases all five, and the three
    # committed ones are still paid (their fee) on a line of their own.
    fleet_line = {"workload": "a", "kind": HELD, "role": "fleet", "provider": "aws", "region": "r"}
    fleet_line |= {"instance_type": "p5", "backend": "cuda", "unit_capacity": 1000.0}
    committed = Candidate(
        **fleet_line,
        pricing_model="reserved_1y",
        usd_per_unit=50.0 * 730,
        max_units=3,
        release_usd_per_unit_month=10.0,
        commitment_end=date(2027, 6, 30),
    )
    on_demand = Candidate(
        **fleet_line, pricing_model="on_demand", usd_per_unit=80.0 * 730, max_units=2
    )
    cheap = Candidate("a", HOURLY, "new", "aws", "r", "x", "on_demand", "cuda", 1000.0, 5.0)
    got = solve(Problem({"a": (2500.0, 1500.0)}, (committed, on_demand, cheap)), mip_rel_gap=0.0)
    assert got.status == "optimal"
    rows = plan_rows(got)
    lines = [r.line for r in rows]
    assert sum(ln.monthly_usd for ln in lines) == pytest.approx(got.run_rate_usd_per_month)
    by_label = {(ln.pricing_model, ln.allocation): ln for ln in lines}
    paid = by_label[("reserved_1y", RELEASED_PAID)]
    assert (paid.count, paid.monthly_usd) == (3, pytest.approx(30.0))
    assert "2027-06-30" in paid.note and "ended early" in paid.note
    gone = by_label[("on_demand", RELEASED)]
    assert (gone.count, gone.monthly_usd) == (0, 0.0)
    assert not any(ln.allocation == KEPT and ln.count == 0 for ln in lines)
    bought = next(r for r in rows if r.line.allocation == BOUGHT)
    assert bought.count_by_hour == (3, 2) and bought.line.count == 3
    # Each hour's counts carry that hour's load.
    for h, need in enumerate((2500.0, 1500.0)):
        assert sum(r.count_by_hour[h] * r.output_tok_s_per_count for r in rows) >= need
