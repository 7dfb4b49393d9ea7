import pytest

from costmodel import (
    FleetPolicy,
    GroupPrices,
    OnDemandBasis,
    SizingInputs,
    StageGate,
    hhi,
    plan_timeline,
    reserve_level,
    size_line,
    units_needed,
)
from costmodel.bundled_tables import software_maturity, stage_gates
from costmodel.risk import SpendLine, assess_risk, hhi_figure, maturity_lookup

FLAT = (1.0,) * 24


def test_units_needed_hand_computed():
    # 1,000 tok/s on 500 tok/s units at 80% cap and 95% availability: 1000/400/0.95 = 2.63 -> 3
    assert units_needed(1000, 500, 0.8, 0.95) == 3
    assert units_needed(800, 500, 0.8, 1.0) == 2  # exactly 2.0 stays 2
    assert units_needed(0, 500, 0.8, 0.95) == 0


def test_reserve_level_is_demand_percentile():
    hours = list(range(1, 25))
    # 40% discount -> the 40th percentile: ceil(0.4 x 24) = 10th smallest hour = 10
    assert reserve_level(hours, 0.4) == 10
    assert reserve_level(hours, 0.0) == 0
    assert reserve_level(hours, 1.0) == 24


def test_on_demand_allocation_basis_flat():
    # 3 units every hour at $10/h: 3 x 10 x 730 = $21,900
    pol = FleetPolicy(
        utilisation_cap=1.0, availability=1.0, on_demand_basis=OnDemandBasis.AUTOSCALED
    )
    s = size_line(SizingInputs("interactive", 3000, FLAT, 1000, GroupPrices(on_demand=10.0), pol))
    assert s.units_peak == 3 and s.monthly_usd == pytest.approx(21_900)


def test_reserve_plus_burst_hand_computed():
    # 12 hours at 1 unit, 12 hours at 3 units; od $10, 1y $6 (d = 0.4 -> reserve the 40th pct = 1)
    curve = (0.5,) * 12 + (1.5,) * 12  # mean 1
    pol = FleetPolicy(
        utilisation_cap=1.0, availability=1.0, on_demand_basis=OnDemandBasis.AUTOSCALED
    )
    inp = SizingInputs("interactive", 2000, curve, 1000, GroupPrices(10.0, 6.0, "reserved_1y"), pol)
    s = size_line(inp)
    assert s.units_reserved == 1 and s.units_peak == 3
    # reserved 1 x 6 x 730 = 4,380; burst 12 h x 2 units x 730/24 x $10 = 7,300
    assert s.on_demand_unit_hours == pytest.approx(12 * 2 * 730 / 24)
    assert s.monthly_usd == pytest.approx(4380 + 7300)
    held = size_line(
        SizingInputs(
            "interactive",
            2000,
            curve,
            1000,
            GroupPrices(10.0, 6.0, "reserved_1y"),
            FleetPolicy(utilisation_cap=1.0, availability=1.0, on_demand_basis=OnDemandBasis.HELD),
        )
    )
    assert held.monthly_usd == pytest.approx(4380 + 2 * 730 * 10)


def test_block_only_sku_commits_whole_peak():
    pol = FleetPolicy(utilisation_cap=1.0, availability=1.0)
    s = size_line(
        SizingInputs("interactive", 2000, FLAT, 1000, GroupPrices(None, 5.0, "capacity_block"), pol)
    )
    assert s.units_reserved == 2 and s.monthly_usd == pytest.approx(2 * 5 * 730)


def test_batch_picks_cheapest_purchase():
    pol = FleetPolicy(utilisation_cap=1.0, availability=1.0, spot_overprovision=0.5)
    # 2 units: od 2x10x730 = 14,600; spot ceil(2 x 1.5) = 3 x 4 x 730 = 8,760
    s = size_line(SizingInputs("batch", 2000, FLAT, 1000, GroupPrices(10.0, None, None, 4.0), pol))
    assert s.units_spot == 3 and s.monthly_usd == pytest.approx(8760)


def test_hhi_hand_computed():
    assert hhi({"NVIDIA": 75, "AMD": 25}) == pytest.approx(6250)
    assert hhi({"NVIDIA": 65, "AMD": 25, "CPU": 10}) == pytest.approx(4950)
    assert hhi({"NVIDIA": 1}) == 10000
    assert "effective suppliers" in hhi_figure("v", {"a": 1, "b": 1}, "Vendor").sentence


def test_maturity_most_specific_row_wins():
    table = software_maturity()
    assert maturity_lookup("rocm", "mixtral", "fp8", table).score == 55
    assert maturity_lookup("rocm", "llama", "fp8", table).score == 70
    assert maturity_lookup("nope", "llama", "fp8", table).score == 0
    for row in table:
        assert row.source_url.startswith("https://") and row.source_date[:2] == "20"


def test_risk_report_sentences_and_staleness():
    from datetime import datetime

    lines = [
        SpendLine(
            750,
            "NVIDIA",
            "aws",
            "us-east-1",
            "h100",
            "cuda",
            "llama",
            "fp8",
            "on_demand",
            False,
            False,
            datetime(2025, 1, 1),
        ),
        SpendLine(
            250,
            "AMD",
            "azure",
            "eastus",
            "mi300x",
            "rocm",
            "llama",
            "fp8",
            "spot",
            True,
            True,
            datetime(2026, 1, 1),
        ),
    ]
    r = assess_risk(lines, software_maturity(), datetime(2026, 2, 1))
    assert r.hhi_vendor.value == pytest.approx(6250)
    assert r.staleness.value == pytest.approx(0.75)
    assert r.maturity.value == pytest.approx(0.75 * 90 + 0.25 * 70)
    assert all(f.sentence for f in r.figures())
    assert {f.name: f.value for f in r.supply} == {
        "reservation_only_share": 0.25,
        "single_region_share": 1.0,
        "spot_share": 0.25,
    }


def test_timeline_defaults_and_critical_path():
    t = plan_timeline(["rocm"], stage_gates())
    # audit 1 -> harness 1 -> certify 2 -> contract 4 (canary 3 runs in parallel)
    assert t.weeks_to_cutover == 8
    assert t.critical_path == ("audit", "harness", "certify (rocm)", "contract (rocm)")
    both = plan_timeline(["rocm", "cpu"], stage_gates())
    assert both.weeks_to_cutover == 8
    assert sum(1 for g in both.gates if g.gate == "audit") == 1  # shared once
    assert plan_timeline([], stage_gates()).weeks_to_cutover == 0


def test_timeline_durations_are_editable():
    gates = {
        "rocm": (
            StageGate("audit", 2),
            StageGate("harness", 1, ("audit",)),
            StageGate("certify", 6, ("harness",)),
            StageGate("canary", 4, ("certify",)),
            StageGate("contract", 1, ("certify",)),
        )
    }
    t = plan_timeline(["rocm"], gates)
    assert t.weeks_to_cutover == 13 and t.critical_path[-1] == "canary (rocm)"
    with pytest.raises(ValueError, match="cycle"):
        plan_timeline(["x"], {"x": (StageGate("a", 1, ("b",)), StageGate("b", 1, ("a",)))})
    with pytest.raises(ValueError, match="no stage-gate durations"):
        plan_timeline(["tpu9"], gates)


def test_every_backend_has_all_five_gates():
    for backend, gates in stage_gates().items():
        assert [g.gate for g in gates] == ["audit", "harness", "certify", "canary", "contract"], (
            backend
        )
