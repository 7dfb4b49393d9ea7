"""Futures day judged against the company's own fleet: only the models its workloads run, never the
SKU it already runs as a candidate, each model against the fleet line serving it, and what a list
price move on a SKU it runs does to Stay per month."""

from __future__ import annotations

from datetime import date

import pandas as pd
import pytest

from costmodel.demand import HOURS_PER_MONTH
from planning.fleet import FleetRate
from planning.review import FuturesRules, company_review, fleet_effects, suggestions
from planning.workspaces import example_workspace
from warehouse import Warehouse


@pytest.fixture(scope="module")
def review(seed_db):
    with Warehouse.open(seed_db, read_only=True) as warehouse:
        return company_review(warehouse, date(2023, 12, 6), date(2026, 11, 30))


def test_on_the_example_it_judges_only_the_models_the_company_runs(review):
    ws = example_workspace()
    runs = {m for w in ws.demand for m in w.models}
    judged = set(review.suggestions["model"])
    assert judged, "the example review judges some new SKU"
    assert judged <= runs, judged - runs  # e.g. no llama-2-7b-chat, which no workload runs


def test_the_sku_the_company_runs_is_never_a_candidate(review):
    fleet = {(line.provider, line.instance_type) for line in example_workspace().fleet}
    s = review.suggestions
    candidates = set(zip(s["provider"], s["instance_type"], strict=True))
    assert not candidates & fleet, candidates & fleet  # g6e.xlarge is the routing fleet itself


def test_each_model_is_judged_against_the_line_serving_its_workload(review):
    against = review.suggestions.groupby("model")["incumbent"].agg(set).to_dict()
    assert all("g6e.xlarge" in i for i in against["llama-3.1-8b-instruct"]), against
    assert all("p5.48xlarge" in i for i in against["llama-2-70b-chat"]), against


def test_a_list_price_cut_on_a_sku_it_runs_lowers_stay(review):
    effects = review.fleet_effects
    p5 = effects[effects["instance_type"] == "p5.48xlarge"]
    # Only the two on-demand p5 lines pay the list price; the reserved five pay their own rate,
    # which the seed's p5 reserved quotes do not move.
    assert list(p5["pays"]) == ["list price"]
    row = p5.iloc[0]
    expected = (row["usd_per_hour_to"] - row["usd_per_hour_from"]) * 2 * HOURS_PER_MONTH
    assert row["stay_change_usd_per_month"] == pytest.approx(expected)
    assert row["stay_change_usd_per_month"] < 0
    assert row["source_to"] and row["confidence_to"]


def test_a_line_at_its_own_rate_is_unchanged_by_a_list_price_move():
    moves = pd.DataFrame(
        [
            dict(
                provider="aws",
                region="r",
                instance_type="p5",
                pricing_model="reserved_1y",
                usd_per_hour_from=40.0,
                usd_per_hour_to=30.0,
                change_pct=-0.25,
                source_to="list",
                observed_to=None,
                snapshot_to="s",
                confidence_to="high",
            )
        ]
    )
    own = FleetRate("aws", "p5", 28.0, "mine", "r", "reserved_1y", 4, ("m",), list_priced=False)
    listed = FleetRate("aws", "p5", 30.0, "list", "r", "reserved_1y", 4, ("m",), list_priced=True)
    assert fleet_effects(moves, [own])["stay_change_usd_per_month"].tolist() == [0.0]
    assert fleet_effects(moves, [listed])["stay_change_usd_per_month"].tolist() == [
        pytest.approx(-10.0 * 4 * HOURS_PER_MONTH)
    ]


def test_suggestions_leave_out_models_no_workload_runs():
    costs = pd.DataFrame(
        [
            dict(
                provider=p,
                instance_type=i,
                accelerator_id="acc",
                backend="cuda",
                model=m,
                usd_per_1k_output_tokens=c,
                usd_per_hour=h,
                region="r",
                pricing_model="on_demand",
                ttft_ms_p95=100.0,
                ttft_ms_p99=None,
            )
            for p, i, m, c, h in [
                ("aws", "mine", "big", 0.004, 10.0),
                ("neo", "new", "big", 0.002, 5.0),
                ("neo", "new", "other", 0.001, 5.0),
            ]
        ]
    )
    added = pd.DataFrame([dict(provider="neo", instance_type="new", accelerator_id="acc")])
    line = FleetRate("aws", "mine", 10.0, "your fleet: mine", "r", "on_demand", 1, ("big",))
    out = suggestions(costs, added, FuturesRules(fleet=(line,)))
    assert out["model"].tolist() == ["big"]
    assert out["suggestion"].tolist() == ["buy"]


def _priced(rows) -> pd.DataFrame:
    return pd.DataFrame(
        [
            dict(
                provider=p,
                instance_type=i,
                accelerator_id="acc",
                backend="cuda",
                model="big",
                usd_per_1k_output_tokens=c,
                usd_per_hour=h,
                region="r",
                pricing_model=pm,
                ttft_ms_p95=100.0,
                ttft_ms_p99=None,
            )
            for p, i, pm, c, h in rows
        ]
    )


NEW = pd.DataFrame(
    [
        dict(provider="neo", instance_type="new", accelerator_id="acc"),
        dict(provider="other", instance_type="new2", accelerator_id="acc"),
    ]
)
#: A reserved line at an effective rate of $8/h on a SKU listed at $10/h on demand.
RESERVED = FleetRate("aws", "mine", 8.0, "your fleet: mine", "r", "reserved_1y", 1, ("big",))


def test_a_spot_price_competes_only_where_the_workspace_allows_spot():
    costs = _priced(
        [
            ("aws", "mine", "on_demand", 0.004, 10.0),
            ("neo", "new", "spot", 0.001, 2.5),  # cheap on spot
            ("neo", "new", "on_demand", 0.005, 12.5),  # dearer than the line on demand
        ]
    )
    strict = suggestions(costs, NEW, FuturesRules(fleet=(RESERVED,)))
    assert strict[["pricing_model", "suggestion"]].values.tolist() == [["on_demand", "no-buy"]]
    # The line pays $8/h where the list is $10/h: its effective rate is the comparison.
    assert strict["incumbent_usd_per_1k_output"].iloc[0] == pytest.approx(0.004 * 8.0 / 10.0)
    assert strict["compared_on"].iloc[0] == (
        "on demand price vs the line's effective rate (reserved 1 yr)"
    )
    spot_ok = suggestions(costs, NEW, FuturesRules(fleet=(RESERVED,), allow_spot=True))
    assert spot_ok[["pricing_model", "suggestion"]].values.tolist() == [["spot", "buy"]]


def test_a_sku_sold_on_spot_only_is_deferred_in_words_when_spot_is_not_allowed():
    costs = _priced([("aws", "mine", "on_demand", 0.004, 10.0), ("neo", "new", "spot", 0.001, 2.5)])
    out = suggestions(costs, NEW, FuturesRules(fleet=(RESERVED,)))
    assert out["suggestion"].tolist() == ["defer"]
    assert "spot counts only where the workspace allows spot" in out["rule"].iloc[0]
    assert out["incumbent"].isna().all()  # compared with nothing


def test_the_market_is_compared_within_one_pricing_model():
    costs = _priced(
        [
            ("aws", "old", "on_demand", 0.004, 10.0),
            ("aws", "old", "spot", 0.0015, 3.0),
            ("neo", "new", "spot", 0.001, 2.5),
            ("neo", "new", "on_demand", 0.005, 12.5),
        ]
    )
    out = suggestions(costs, NEW, FuturesRules())
    assert out[["pricing_model", "incumbent_pricing_model"]].values.tolist() == [
        ["on_demand", "on_demand"]
    ]
    spot = suggestions(costs, NEW, FuturesRules(allow_spot=True)).iloc[0]
    assert (spot["pricing_model"], spot["incumbent_pricing_model"]) == ("spot", "spot")


def test_only_approved_providers_are_candidates():
    costs = _priced(
        [
            ("aws", "mine", "on_demand", 0.004, 10.0),
            ("neo", "new", "on_demand", 0.001, 2.5),
            ("other", "new2", "on_demand", 0.001, 2.5),
        ]
    )
    rules = FuturesRules(fleet=(RESERVED,), approved_providers=("aws", "other"))
    assert suggestions(costs, NEW, rules)["provider"].tolist() == ["other"]
