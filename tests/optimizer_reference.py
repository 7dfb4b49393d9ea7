"""An independent check on the fleet optimizer: exhaustive search over small problems, a
feasibility test written apart from the solver, and random small problems to run both on."""

from __future__ import annotations

import math
from itertools import product

import numpy as np

from costmodel.optimizer import (
    HELD,
    HOURLY,
    Candidate,
    Choice,
    Problem,
    objective_of,
)


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
