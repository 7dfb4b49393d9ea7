"""An independent check on the fleet optimizer: exhaustive search over small problems, a
feasibility test written apart from the solver, and random small problems to run both on."""

from __future__ import annotations

import math
from itertools import product

import numpy as np

from costmodel.optimizer_problem import HELD, HOURLY, Candidate, Choice, Problem, objective_of


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


# ---- an exact MILP written apart from the solver ----------------------------------------------
def exact_optimum(problem: Problem, time_limit_s: float = 60.0) -> float:
    """The true optimum of ``problem`` (see ``reference_milp``); ``math.inf`` when no plan
    exists."""
    plan, _, proven = reference_milp(problem, time_limit_s)
    assert proven, "the reference MILP did not finish in time"
    return plan


def reference_milp(problem: Problem, time_limit_s: float = 60.0) -> tuple[float, float, bool]:
    """(the cheapest plan found, the proven lower bound, whether it is proven optimal): the true
    optimum of ``problem`` by a MILP written from the problem's definition alone: one
    unit variable per candidate and hour (a held candidate's are tied together), traffic per
    candidate and hour, no merged hours, no pruning, no rounding, solved by HiGHS to a zero gap.
    ``math.inf`` when no plan exists."""
    from scipy.optimize import Bounds, LinearConstraint, milp

    H = problem.hours
    cands = [c for c in problem.candidates if c.workload in problem.loads]
    cost: list[float] = []
    lo: list[float] = []
    hi: list[float] = []
    integer: list[int] = []
    rows: list[tuple[dict[int, float], float, float]] = []

    def var(c: float, lb: float, ub: float, is_int: bool) -> int:
        cost.append(c)
        lo.append(lb)
        hi.append(ub)
        integer.append(int(is_int))
        return len(cost) - 1

    constant = 0.0
    units: list[list[int]] = []  # per candidate, per hour
    traffic: list[list[int]] = []
    for c in cands:
        peak = max(problem.loads[c.workload])
        most = c.max_units
        if most is None:
            # enough to carry the workload's peak alone (and lose one unit with N+1)
            extra = 1 if problem.n_plus_one else 0
            most = math.ceil(peak / c.unit_capacity - 1e-9) + extra if c.unit_capacity > 0 else 0
        if c.kind == HELD:
            price = c.usd_per_unit
            if c.role == "fleet":
                # kept units at the rate, released ones at what a released unit still costs
                constant += (c.max_units or 0) * c.release_usd_per_unit_month
                price -= c.release_usd_per_unit_month
            y = var(price, 0, most, True)
            units.append([y] * H)
        else:
            per_hour = c.usd_per_unit * 730 / H
            units.append([var(per_hour, 0, most, True) for _ in range(H)])
        traffic.append([var(0.0, 0, np.inf, False) for _ in range(H)])
        for h in range(H):  # traffic a candidate carries needs its units
            rows.append(({traffic[-1][h]: 1.0, units[-1][h]: -c.unit_capacity}, -np.inf, 0.0))
    one_time = {}
    for b, usd in problem.one_time_usd_by_backend.items():
        if any(c.backend == b for c in cands):
            one_time[b] = var(usd / problem.horizon_months, 0, 1, True)
    big = {i: hi[units[i][0]] for i in range(len(cands))}
    for i, c in enumerate(cands):
        if c.backend in one_time:
            z = one_time[c.backend]
            for v in set(units[i]):
                rows.append(({v: 1.0, z: -big[i]}, -np.inf, 0.0))
            # (a tighter statement of the same: no traffic on a backend not paid for)
            for h, t in enumerate(traffic[i]):
                rows.append(({t: 1.0, z: -problem.loads[c.workload][h]}, -np.inf, 0.0))
    spare = {}
    if problem.n_plus_one:
        for w in problem.loads:
            spare[w] = var(0.0, 0, np.inf, False)
        for i, c in enumerate(cands):
            used = var(0.0, 0, 1, True)
            for v in set(units[i]):
                rows.append(({v: 1.0, used: -big[i]}, -np.inf, 0.0))
            rows.append(({spare[c.workload]: 1.0, used: -c.unit_capacity}, 0.0, np.inf))
    for w, load in problem.loads.items():
        mine = [i for i, c in enumerate(cands) if c.workload == w]
        for h in range(H):
            rows.append(({traffic[i][h]: 1.0 for i in mine}, load[h], load[h]))
            if problem.n_plus_one:
                row: dict[int, float] = {}
                for i in mine:
                    row[units[i][h]] = row.get(units[i][h], 0.0) + cands[i].unit_capacity
                row[spare[w]] = -1.0
                rows.append((row, load[h], np.inf))
    if problem.max_vendor_share < 1.0:
        for vendor in {c.vendor for c in cands}:
            row = {
                traffic[i][h]: 1.0
                for i, c in enumerate(cands)
                if c.vendor == vendor
                for h in range(H)
            }
            rows.append((row, -np.inf, problem.max_vendor_share * problem.total_load))
    n = len(cost)
    A = np.zeros((len(rows), n))
    for r, (entries, _, _) in enumerate(rows):
        for col, val in entries.items():
            A[r, col] += val
    res = milp(
        np.array(cost),
        integrality=np.array(integer),
        bounds=Bounds(np.array(lo), np.array(hi)),
        constraints=[LinearConstraint(A, [r[1] for r in rows], [r[2] for r in rows])],
        options={"mip_rel_gap": 0.0, "time_limit": time_limit_s, "disp": False},
    )
    if res.status == 2:
        return math.inf, math.inf, True
    plan = math.inf if res.x is None else float(res.fun) + constant
    bound = getattr(res, "mip_dual_bound", None)
    bound = -math.inf if bound is None else float(bound) + constant
    return plan, bound, res.status == 0


def random_mixed_problem(seed: int) -> Problem:
    """A small random workspace over a whole day: two or three workloads, NVIDIA, AMD and Intel
    candidates on demand and committed, a mixed fleet (committed lines in term, on-demand lines),
    a vendor-share cap and one-time costs for the new backends. The day is six periods
    symmetric around its peak, so hours of equal load come in pairs."""
    rng = np.random.default_rng(1000 + seed)
    workloads = ("chat", "code", "embed")[: 2 + seed % 2]
    backends = ("cuda", "rocm", "hpu")[: 2 + (seed // 2) % 2]
    half = np.sort(rng.uniform(0.4, 1.6, size=3))
    curve = np.concatenate([half, half[::-1]])
    curve = curve / curve.mean()
    cands: list[Candidate] = []
    loads = {}
    for w in workloads:
        mean = float(rng.integers(4, 20)) * 1000
        loads[w] = tuple(round(float(v), 6) for v in curve * mean)
        for b in backends:
            for k in range(1 + int(rng.random() < 0.3)):
                cap = float(rng.integers(15, 60)) * 100
                rate = cap / 1000 * float(rng.uniform(5, 11))
                name = f"{b}-{k}"
                cands.append(Candidate(w, HOURLY, "new", "p", "r", name, "on_demand", b, cap, rate))
                if rng.random() < 0.5:
                    committed = rate * 730 * float(rng.uniform(0.55, 0.8))
                    cands.append(
                        Candidate(w, HELD, "new", "p", "r", name, "reserved_1y", b, cap, committed)
                    )
    for j, w in enumerate(workloads):
        b = backends[j % len(backends)]
        cap = float(rng.integers(20, 50)) * 100
        rate = cap / 1000 * float(rng.uniform(5, 9)) * 730
        committed = rng.random() < 0.6
        cands.append(
            Candidate(
                w,
                HELD,
                "fleet",
                "p",
                "r",
                f"fleet-{b}",
                "reserved_1y" if committed else "on_demand",
                b,
                cap,
                rate,
                max_units=int(rng.integers(1, 4)),
                release_usd_per_unit_month=rate * float(rng.uniform(0.2, 1.0)) if committed else 0,
            )
        )
    in_fleet = {c.backend for c in cands if c.role == "fleet"}
    return Problem(
        loads=loads,
        candidates=tuple(cands),
        max_vendor_share=float(rng.choice([0.5, 0.6, 0.7, 0.8, 1.0])),
        n_plus_one=seed % 5 == 4,
        one_time_usd_by_backend={
            b: float(rng.integers(0, 5)) * 50_000 for b in backends if b not in in_fleet
        },
        horizon_months=36,
    )


def checked_plan_cost(problem: Problem, choices) -> float:
    """The monthly cost of a plan (units per candidate and hour) by the problem's definition, or
    ``math.inf`` if it leaves an hour short (with N+1: after losing its largest unit) or no
    split of the traffic keeps every vendor within the cap (a small linear programme over the
    traffic each candidate carries). Written apart from the solver."""
    from scipy.optimize import linprog

    H = problem.hours
    used = [ch for ch in choices if any(ch.units)]
    units = [
        ch.units * H if ch.candidate.kind == HELD and len(ch.units) == 1 else ch.units
        for ch in used
    ]
    for w, load in problem.loads.items():
        mine = [j for j, ch in enumerate(used) if ch.candidate.workload == w]
        spare = max((used[j].candidate.unit_capacity for j in mine), default=0.0)
        for h in range(H):
            carried = sum(units[j][h] * used[j].candidate.unit_capacity for j in mine)
            if carried - (spare if problem.n_plus_one else 0.0) < load[h] - 1e-6:
                return math.inf
    if problem.max_vendor_share < 1.0 and used:
        # traffic t[j, h] in [0, units × capacity]; each workload-hour's traffic = its load;
        # each vendor's traffic over the day ≤ cap × all traffic
        n = len(used) * H
        A_eq, b_eq, A_ub, b_ub = [], [], [], []
        for w, load in problem.loads.items():
            for h in range(H):
                row = np.zeros(n)
                for j, ch in enumerate(used):
                    if ch.candidate.workload == w:
                        row[j * H + h] = 1.0
                A_eq.append(row)
                b_eq.append(load[h])
        for vendor in {ch.candidate.vendor for ch in used}:
            row = np.zeros(n)
            for j, ch in enumerate(used):
                if ch.candidate.vendor == vendor:
                    row[j * H : (j + 1) * H] = 1.0
            A_ub.append(row)
            b_ub.append(problem.max_vendor_share * problem.total_load + 1e-6)
        bounds = [
            (0.0, units[j][h] * ch.candidate.unit_capacity)
            for j, ch in enumerate(used)
            for h in range(H)
        ]
        res = linprog(np.zeros(n), A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=b_eq, bounds=bounds)
        if res.status != 0:
            return math.inf
    cost = 0.0
    for ch in choices:
        c = ch.candidate
        if c.kind == HELD:
            cost += ch.units[0] * c.usd_per_unit
            if c.role == "fleet":
                cost += ((c.max_units or 0) - ch.units[0]) * c.release_usd_per_unit_month
        else:
            cost += sum(ch.units) * c.usd_per_unit * 730 / H
    backends = {ch.candidate.backend for ch in used}
    one_time = sum(problem.one_time_usd_by_backend.get(b, 0.0) for b in backends)
    return cost + one_time / problem.horizon_months
