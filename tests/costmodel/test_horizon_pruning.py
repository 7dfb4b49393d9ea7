"""Estimated and measured offers pruned before the optimizer over time sees them: dropping the
dominated ones never changes the optimum, and the pruning is dominance within one constraint
class (workload, backend and term), not the cheapest quote per unit of capacity."""

from __future__ import annotations

import pytest

from costmodel import optimizer_horizon
from costmodel.demand import HOURS_PER_MONTH
from costmodel.optimizer_horizon import (
    FleetPath,
    HorizonProblem,
    Offer,
    horizon_offers,
    solve_horizon,
)
from costmodel.optimizer_problem import HELD, HOURLY, Candidate

MONTHS = 36
H100 = ("crusoe", "global", "H100 (per GPU)")
H100_DEAR = ("lambda", "us-east-1", "H100 (per GPU)")
MI300X = ("crusoe", "global", "MI300X (per GPU)")
MI300X_DEAR = ("tensorwave", "us-east-1", "MI300X (per GPU)")


def _offer(workload, sku, backend, tok_s, usd_hour, option_id, gpus=1) -> Candidate:
    provider, region, instance = sku
    return Candidate(
        workload, HOURLY, "new", provider, region, instance, "on_demand", backend,
        tok_s, usd_hour, option_id=option_id, count_per_unit=gpus,
    )  # fmt: skip


def _market() -> list[Candidate]:
    return [
        # chat: a measured 8-GPU unit, cheapest per tok/s, and estimated 1-GPU replicas (the
        # smaller step) of the same part on two quotes, the second dearer for the same capacity.
        _offer("chat", H100, "cuda", 8 * 120.0, 8 * 3.9, "chat-h100-x8-measured", gpus=8),
        _offer("chat", H100, "cuda", 100.0, 3.9, "chat-h100-est"),
        _offer("chat", H100_DEAR, "cuda", 100.0, 4.5, "chat-h100-est-dear"),
        # chat on AMD: estimated only, a new backend with a one-time cost and a later cut-over.
        _offer("chat", MI300X, "rocm", 90.0, 3.0, "chat-mi300x-est"),
        _offer("chat", MI300X_DEAR, "rocm", 90.0, 3.5, "chat-mi300x-est-dear"),
        # routing: a measured small part, an estimated larger one, and its dearer quote.
        _offer("routing", ("aws", "us-east-1", "g6e.xlarge"), "cuda", 150.0, 1.9, "rt-l40s"),
        _offer("routing", H100, "cuda", 400.0, 3.9, "rt-h100-est"),
        _offer("routing", H100_DEAR, "cuda", 400.0, 4.5, "rt-h100-est-dear"),
    ]


#: Committed rates as shares of each SKU's on-demand rate. The dearer H100 quote commits for less
#: (0.6 × $4.50 = $2.70 against 0.7 × $3.90 = $2.73): dominated on demand, cheapest on a 1-year
#: term, so it must survive in that term's class.
SHARES = {
    (*H100, "1y"): 0.7,
    (*H100, "3y"): 0.5,
    (*H100_DEAR, "1y"): 0.6,
    (*MI300X, "3y"): 0.55,
}
FIRST_MONTH = {"rocm": 3}


def _loads() -> dict[str, tuple[tuple[float, ...], ...]]:
    day = {"chat": (250.0, 700.0, 1500.0, 900.0), "routing": (100.0, 220.0, 330.0, 160.0)}
    return {
        w: tuple(tuple(v * 1.06 ** ((t - 1) // 3) for v in hours) for t in range(1, MONTHS + 1))
        for w, hours in day.items()
    }


def _fleet() -> tuple[FleetPath, ...]:
    # Two committed 8-GPU units serving chat until month 9, then at the list rate.
    rate = 8 * 3.9 * HOURS_PER_MONTH
    held = Candidate(
        "chat", HELD, "fleet", *H100, "reserved_1y", "cuda", 8 * 120.0, 0.8 * rate,
        max_units=2, fleet_index=0, option_id="fleet",
    )  # fmt: skip
    months = tuple(0.8 * rate if t <= 9 else rate for t in range(1, MONTHS + 1))
    return (FleetPath(held, 2, months, tuple(t <= 9 for t in range(1, MONTHS + 1))),)


def _problem(offers: tuple[Offer, ...]) -> HorizonProblem:
    return HorizonProblem(
        loads=_loads(),
        offers=offers,
        fleet=_fleet(),
        max_vendor_share=0.8,
        one_time_usd_by_backend={"rocm": 20_000.0},
    )


def _unpruned(monkeypatch) -> tuple[Offer, ...]:
    with monkeypatch.context() as m:
        m.setattr(optimizer_horizon, "prune", lambda cands, n_plus_one=False: tuple(cands))
        return horizon_offers(_market(), SHARES, FIRST_MONTH)


def _key(o: Offer) -> tuple[str, int]:
    return (o.candidate.option_id, o.term_months)


def test_pruned_and_unpruned_offers_give_the_same_optimal_path(monkeypatch):
    unpruned = _unpruned(monkeypatch)
    pruned = horizon_offers(_market(), SHARES, FIRST_MONTH)
    dropped = {_key(o) for o in unpruned} - {_key(o) for o in pruned}
    # On demand, each dearer quote carries the same tok/s as a kept one of its backend for more;
    # on a 1-year term the roles swap ($2.73 against $2.70 an hour for the same replica).
    assert dropped == {
        ("chat-h100-est-dear", 1),
        ("chat-mi300x-est-dear", 1),
        ("rt-h100-est-dear", 1),
        ("chat-h100-est", 12),
        ("rt-h100-est", 12),
    }
    # Committed for a year the dearer H100 quote is the cheaper one: kept in that term's class.
    assert ("chat-h100-est-dear", 12) in {_key(o) for o in pruned}
    full = solve_horizon(_problem(unpruned), time_limit_s=600)
    small = solve_horizon(_problem(pruned), time_limit_s=600)
    assert full.status == small.status == "optimal"
    assert round(small.horizon_usd, 2) == round(full.horizon_usd, 2)
    assert [round(v, 2) for v in small.monthly_usd] == [round(v, 2) for v in full.monthly_usd]
    assert small.one_time_usd_by_month == pytest.approx(full.one_time_usd_by_month, abs=0.005)
    # The unpruned solve never holds a dropped offer: it is dearer than what replaces it.
    held = {
        (h.candidate.option_id, h.term_months) for month in full.holdings for h in month if h.units
    }
    assert not held & dropped


def test_the_cheapest_per_token_unit_does_not_stand_for_a_smaller_step(monkeypatch):
    # Per tok/s the measured 8-GPU unit ($31.20 for 960) is cheaper than the estimated 1-GPU
    # replica ($3.90 for 100), yet the replica is kept: a quiet hour needs 3 replicas ($11.70),
    # not a whole 8-GPU unit. Dropping it, as a cheapest-per-capacity rule would, costs more.
    pruned = horizon_offers(_market(), SHARES, FIRST_MONTH)
    assert ("chat-h100-est", 1) in {_key(o) for o in pruned}
    with_step = solve_horizon(_problem(pruned), time_limit_s=600)
    without = solve_horizon(
        _problem(tuple(o for o in pruned if o.candidate.option_id != "chat-h100-est")),
        time_limit_s=600,
    )
    assert with_step.status == without.status == "optimal"
    assert with_step.horizon_usd < without.horizon_usd - 0.01


def test_pruning_keeps_every_backend_and_its_cut_over_month():
    # The vendor-share cap binds from the offers' last cut-over month (once every backend the
    # plan may buy on can carry traffic), so removing a backend's last offer would move the cap.
    pruned = horizon_offers(_market(), SHARES, FIRST_MONTH)
    for term in (1, 12, 36):
        market = {
            c.backend for c in _market() if term == 1 or (*c_sku(c), f"{term // 12}y") in SHARES
        }
        assert {o.candidate.backend for o in pruned if o.term_months == term} == market
    assert max(o.first_month for o in pruned) == FIRST_MONTH["rocm"]


def c_sku(c: Candidate) -> tuple[str, str, str]:
    return (c.provider, c.region, c.instance_type)
