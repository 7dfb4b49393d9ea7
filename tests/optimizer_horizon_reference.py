"""An independent check on the optimizer over time: the same decision written apart from
``costmodel.optimizer_horizon`` — month by month (no periods merged), every hour its own row, a
committed unit as a variable per start month with its own activity rows — and solved with a
dense matrix; and random small problems to run both on."""

from __future__ import annotations

import math

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, milp

from costmodel.optimizer_horizon import FleetPath, HorizonProblem, Offer
from costmodel.optimizer_problem import HELD, Candidate


def reference_optimum(p: HorizonProblem) -> float:
    """The cheapest horizon total, or inf where no path carries the demand."""
    M = p.months
    hours = len(next(iter(p.loads.values()))[0])
    cost: list[float] = []
    ub: list[float] = []
    names: list[tuple] = []

    def new(name: tuple, c: float, hi: float) -> int:
        names.append(name)
        cost.append(c)
        ub.append(hi)
        return len(cost) - 1

    d = [p.discount(t) for t in range(1, M + 1)]
    cap_of: dict[tuple[str, int], list[tuple[int, float, str]]] = {}
    big = 1000.0
    backend_of: list[tuple[int, str]] = []
    for i, o in enumerate(p.offers):
        c = o.candidate
        if o.term_months == 1:
            for t in range(o.first_month, M + 1):
                v = new(("od", i, t), c.usd_per_unit_month * d[t - 1], big)
                cap_of.setdefault((c.workload, t), []).append((v, c.unit_capacity, c.vendor))
                backend_of.append((v, c.backend))
            continue
        starts = [t for t in range(max(o.first_month, 1), M + 1) if (t - 1) % 3 == 0]
        for s in starts:
            last = min(s + o.term_months - 1, M)
            v = new(("commit", i, s), c.usd_per_unit_month * sum(d[s - 1 : last]), big)
            backend_of.append((v, c.backend))
            for t in range(s, last + 1):
                cap_of.setdefault((c.workload, t), []).append((v, c.unit_capacity, c.vendor))
    fixed = 0.0
    keep_rows: list[tuple[int, list[int], int]] = []
    for j, f in enumerate(p.fleet):
        ends = []
        if f.termination_usd_per_unit is not None:
            for t in range(1, M + 1):
                if f.in_term[t - 1] and (t - 1) % 3 == 0:
                    saved = sum(
                        f.usd_per_unit_month[s - 1] * d[s - 1]
                        for s in range(t, M + 1)
                        if f.in_term[s - 1]
                    )
                    ends.append(
                        (
                            t,
                            new(
                                ("end", j, t),
                                f.termination_usd_per_unit * d[t - 1] - saved,
                                f.count,
                            ),
                        )
                    )
        for t in range(1, M + 1):
            rate = f.usd_per_unit_month[t - 1] * d[t - 1]
            if f.in_term[t - 1]:
                fixed += f.count * rate
                v = new(("keep", j, t), 0.0, f.count)
                keep_rows.append((v, [e for s, e in ends if s <= t], f.count))
            else:
                v = new(("keep", j, t), rate, f.count)
            cap_of.setdefault((f.candidate.workload, t), []).append(
                (v, f.candidate.unit_capacity, f.candidate.vendor)
            )
        if ends:
            keep_rows.append((-1, [e for _, e in ends], f.count))
    zs = {}
    for b, usd in p.one_time_usd_by_backend.items():
        if any(bb == b for _, bb in backend_of):
            zs[b] = new(("z", b), usd * d[0], 1.0)
    n_int = len(cost)
    rows: list[tuple[dict[int, float], float, float]] = []
    for v, b in backend_of:
        if b in zs:
            rows.append(({v: 1.0, zs[b]: -big}, -np.inf, 0.0))
    for v, ends, count in keep_rows:
        entries = {e: 1.0 for e in ends}
        if v >= 0:
            entries[v] = 1.0
        rows.append((entries, -np.inf, float(count)))
    ready = max((o.first_month for o in p.offers), default=1)
    for t in range(1, M + 1):
        capped = p.max_vendor_share < 1 - 1e-9 and t >= ready
        by_vendor: dict[str, dict[int, float]] = {}
        total = 0.0
        for w, loads in p.loads.items():
            lines = cap_of.get((w, t), [])
            for h in range(hours):
                load = loads[t - 1][h]
                entries: dict[int, float] = {}
                for v, cap, _ in lines:
                    entries[v] = entries.get(v, 0.0) + cap
                rows.append((entries, load, np.inf))
                total += load
                if not capped:
                    continue
                split = {}
                for vendor in sorted({vv for *_, vv in lines}):
                    s = new(("share", w, t, h, vendor), 0.0, load)
                    split[s] = 1.0
                    row = {s: 1.0}
                    for v, cap, vv in lines:
                        if vv == vendor:
                            row[v] = row.get(v, 0.0) - cap
                    rows.append((row, -np.inf, 0.0))
                    by_vendor.setdefault(vendor, {})[s] = 1.0
                rows.append((split, load, load))
        for entries in by_vendor.values():
            rows.append((entries, -np.inf, p.max_vendor_share * total))
    n = len(cost)
    A = np.zeros((len(rows), n))
    lo = np.zeros(len(rows))
    hi = np.zeros(len(rows))
    for r, (entries, a, b) in enumerate(rows):
        for v, x in entries.items():
            A[r, v] += x
        lo[r], hi[r] = a, b
    integrality = np.array([1] * n_int + [0] * (n - n_int))
    res = milp(
        np.array(cost),
        integrality=integrality,
        bounds=Bounds(np.zeros(n), np.array(ub)),
        constraints=[LinearConstraint(A, lo, hi)],
        options={"mip_rel_gap": 1e-9, "time_limit": 60},
    )
    if res.status == 2 or res.x is None:
        return math.inf
    return float(res.fun) + fixed


def random_horizon_problem(seed: int, months: int = 9) -> HorizonProblem:
    """One or two workloads over ``months``, three hours a day, growing demand; on-demand and
    committed offers on two vendors (one from a later cut-over, with a one-time cost); a fleet
    line whose term ends mid-horizon, sometimes with a termination fee; sometimes a vendor cap."""
    rng = np.random.default_rng(seed)
    workloads = ["a", "b"][: int(rng.integers(1, 3))]
    loads = {}
    for w in workloads:
        base = rng.uniform(50, 400, size=3)
        growth = rng.choice([0.0, 0.1, 0.3])
        loads[w] = tuple(
            tuple(float(x) * (1 + growth) ** ((t - 1) // 3) for x in base)
            for t in range(1, months + 1)
        )
    offers = []
    for w in workloads:
        for backend, first in (("cuda", 1), ("rocm", int(rng.integers(1, 5)))):
            cap = float(rng.uniform(60, 250))
            price = float(rng.uniform(500, 3000))
            od = Candidate(
                w, HELD, "new", "p", "r", f"{backend}-{w}", "on_demand", backend, cap, price
            )
            offers.append(Offer(od, 1, first))
            term = int(rng.choice([3, 6, 12]))
            committed = Candidate(
                w,
                HELD,
                "new",
                "p",
                "r",
                f"{backend}-{w}",
                "reserved",
                backend,
                cap,
                price * float(rng.uniform(0.4, 0.8)),
            )
            offers.append(Offer(committed, term, first))
    fleet = []
    w = workloads[0]
    count = int(rng.integers(1, 4))
    rate = float(rng.uniform(400, 2500))
    end = int(rng.integers(2, months))
    line = Candidate(
        w,
        HELD,
        "fleet",
        "p",
        "r",
        "fleet",
        "reserved",
        "cuda",
        float(rng.uniform(60, 200)),
        rate,
        max_units=count,
    )
    at_end = rate * float(rng.choice([1.0, 1.6]))
    fleet.append(
        FleetPath(
            line,
            count,
            tuple(rate if t <= end else at_end for t in range(1, months + 1)),
            tuple(t <= end for t in range(1, months + 1)),
            float(rng.uniform(100, 5000)) if rng.random() < 0.5 else None,
        )
    )
    return HorizonProblem(
        loads=loads,
        offers=tuple(offers),
        fleet=tuple(fleet),
        max_vendor_share=float(rng.choice([1.0, 0.7])),
        one_time_usd_by_backend={"rocm": float(rng.uniform(0, 20000))},
        discount_rate_per_year=float(rng.choice([0.0, 0.08])),
    )
