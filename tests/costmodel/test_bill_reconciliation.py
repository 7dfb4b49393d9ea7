"""The bill against Stay, line by line, and the derived fleet against the workspace's."""

from __future__ import annotations

from datetime import date

import pytest

from costmodel.bill_reconciliation import BilledLine, fleet_changes, reconcile, reconcile_line
from costmodel.workspace_model import FleetEntry


def test_the_parts_add_up_to_the_difference_and_name_a_rate_gap():
    # 2 instances, 1,400 of 1,440 hours (a 30-day month) at $10/h, 5 idle reserved hours ($50).
    line = BilledLine("2 × x", "reserved_1y", 2, 1400.0, 720.0, 14_000.0, 50.0)
    # Stay priced at $11/h (e.g. an old workspace rate): 2 × 11 × 730 = 16,060.
    got = reconcile_line(line, 16_060.0)
    assert got.bill_usd == 14_050.0
    assert got.difference_usd == pytest.approx(2_010.0)
    parts = {p.why.split(":")[0]: p.usd for p in got.parts}
    assert parts["month length"] == pytest.approx(10 * 2 * 10)  # +10 h a month at $10/h
    assert parts["partial use"] == pytest.approx(10 * 40)  # 2 × 720 − 1,400 h
    assert parts["idle commitment"] == -50.0
    assert parts["rate"] == pytest.approx(2_010.0 - 200 - 400 + 50)
    assert sum(parts.values()) == pytest.approx(got.difference_usd)


def test_a_line_priced_as_billed_over_730_hours_has_nothing_to_explain():
    line = BilledLine("1 × y", "on_demand", 1, 730.0, 730.0, 730.0)
    assert reconcile_line(line, 730.0).parts == ()
    total = reconcile(date(2026, 10, 1), [line, line], [730.0, 730.0])
    assert (total.bill_usd, total.stay_month1_usd, total.difference_usd) == (1460.0, 1460.0, 0.0)
    with pytest.raises(ValueError):
        reconcile(None, [line], [])


def entry(count=1, rate=None, model="on_demand", end=None, itype="p5.48xlarge"):
    return FleetEntry("aws", "us-east-1", itype, count, model, "chat", rate, end)


def test_fleet_changes_are_added_changed_removed_with_rates_old_to_new():
    current = [entry(2), entry(5, 31.46, "reserved_1y", date(2027, 6, 30)), entry(itype="g6e")]
    derived = [
        entry(2, 55.04),
        entry(5, 31.46, "reserved_1y", date(2027, 6, 30)),
        entry(3, 0.9, "spot", itype="g6e"),
    ]
    changes = {
        (c.change, c.instance_type, c.pricing_model): c.details
        for c in fleet_changes(current, derived)
    }
    assert changes == {
        ("changed", "p5.48xlarge", "on_demand"): ("rate list price -> $55.0400/h",),
        ("kept", "p5.48xlarge", "reserved_1y"): (),
        ("removed", "g6e", "on_demand"): ("1 × at list price",),
        ("added", "g6e", "spot"): ("3 × at $0.9000/h",),
    }


def test_each_change_says_why_and_lines_on_providers_the_bill_does_not_cover_are_kept():
    azure = FleetEntry("azure", "eastus", "nd", 2, "on_demand", "chat", 63.0)
    current = [entry(2), entry(5, 31.46, "reserved_1y", date(2027, 6, 30)), azure]
    end_kept = "commitment end 2027-06-30 kept from the current workspace"
    derived = [entry(2, 55.04), entry(5, 31.46, "reserved_1y", date(2027, 6, 30)), azure]
    changes = {
        c.pricing_model + " " + c.provider: c
        for c in fleet_changes(
            current,
            derived,
            covered_providers={"aws"},
            period="2026-10",
            carried={("aws", "us-east-1", "p5.48xlarge", "reserved_1y"): [end_kept]},
        )
    }
    assert changes["on_demand azure"].change == "kept"
    assert changes["on_demand azure"].reason == (
        "the bill does not cover azure: kept from the current workspace"
    )
    assert changes["reserved_1y aws"].change == "kept"
    assert changes["reserved_1y aws"].details == (end_kept,)
    assert changes["on_demand aws"].reason == "the bill's use in 2026-10"
    assert all(c.as_dict()["reason"] for c in changes.values())
