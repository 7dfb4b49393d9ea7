"""Fleet optimizer: 10,000 synthetic options, 5 workloads, every constraint on.

    .venv/bin/python perf/bench_optimizer.py

Builds 10,000 market options (5 workloads × 4 backends × on-demand / 1-year, random price and
at-SLO capacity, fixed seed), one committed fleet line per workload, a 24-hour day peaking at 1.8×
the mean, a 60% vendor-share cap, N+1 off, one-time costs for three new backends. Times the solve
at the default gap (1e-4) and with ``mip_rel_gap=0`` (the exact optimum) and prints their costs;
then a small instance against brute force (time ratio, equal cost).
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from costmodel.demand import HourlyProfile
from costmodel.optimizer import HELD, HOURLY, Candidate, Problem, prune, solve
from tests.optimizer_reference import brute_force, random_problem

BACKENDS = ("cuda", "rocm", "hpu", "neuron")


def big_problem(n_options: int = 10_000, seed: int = 7) -> Problem:
    rng = np.random.default_rng(seed)
    workloads = [f"w{i}" for i in range(5)]
    curve = HourlyProfile(peak_factor=1.8).normalised()
    loads = {w: tuple(float(v) for v in curve * rng.uniform(20_000, 120_000)) for w in workloads}
    cands = []
    for k in range(n_options):
        w = workloads[k % 5]
        backend = BACKENDS[(k // 5) % 4]
        cap = float(rng.uniform(500, 9000))
        rate = cap / 1000 * float(rng.uniform(4, 12))  # $ per unit-hour, roughly by capacity
        if k % 2:
            cands.append(
                Candidate(
                    w, HOURLY, "new", "p", f"r{k % 17}", f"i{k}", "on_demand", backend, cap, rate
                )
            )
        else:
            committed = rate * float(rng.uniform(0.55, 0.8)) * 730
            cands.append(
                Candidate(
                    w,
                    HELD,
                    "new",
                    "p",
                    f"r{k % 17}",
                    f"i{k}",
                    "reserved_1y",
                    backend,
                    cap,
                    committed,
                )
            )
    for w in workloads:
        cands.append(
            Candidate(
                w,
                HELD,
                "fleet",
                "p",
                "r0",
                "fleet",
                "reserved_1y",
                "cuda",
                6000.0,
                40.0 * 730,
                max_units=4,
                release_usd_per_unit_month=40.0 * 730,
            )
        )
    return Problem(
        loads,
        tuple(cands),
        max_vendor_share=0.6,
        one_time_usd_by_backend={"rocm": 65_000.0, "hpu": 85_000.0, "neuron": 85_000.0},
    )


def timed(fn, repeat: int = 3):
    times, out = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times), out


def main() -> None:
    problem = big_problem()
    kept = prune(problem.candidates)
    print(f"options: {len(problem.candidates):,}; after dominance: {len(kept):,}")
    t_default, fast = timed(lambda: solve(problem))
    t_exact, exact = timed(lambda: solve(problem, mip_rel_gap=0.0, time_limit_s=300), repeat=1)
    print(f"default gap: {t_default:.3f} s, {fast.status}, ${fast.objective_usd_per_month:,.2f}")
    print(f"gap 0      : {t_exact:.3f} s, {exact.status}, ${exact.objective_usd_per_month:,.2f}")
    excess = fast.objective_usd_per_month / exact.objective_usd_per_month - 1
    print(f"default vs exact optimum: +{excess:.5%}")
    small = max((random_problem(s) for s in range(12)), key=lambda p: len(p.candidates))
    t_brute, brute = timed(lambda: brute_force(small), repeat=1)
    t_milp, milp = timed(lambda: solve(small, mip_rel_gap=0.0))
    print(
        f"small instance ({len(small.candidates)} options, {small.hours} hours): brute force"
        f" {t_brute:.3f} s, MILP {t_milp:.4f} s, ratio {t_brute / t_milp:,.0f}x;"
        f" equal cost: {abs(brute - milp.objective_usd_per_month) < 1e-6 * brute}"
    )


if __name__ == "__main__":
    main()
