import pytest

from costmodel import (
    Allocation,
    Demand,
    Engine,
    FleetPolicy,
    HourlyProfile,
    Scenario,
    Segment,
    Slo,
    UncertaintyInputs,
    add_cpu_fallback,
    builtin_scenarios,
    cost_range,
    evaluate_scenarios,
    options_from_frame,
    segment_shares,
    shift_to_amd,
    stay,
    tornado,
)
from costmodel.example import example_demand, render_markdown, run_example
from tests.factories import frame, sweep

SEC = 730 * 3600
FLAT = HourlyProfile(curve=(1.0,) * 24)
POLICY = FleetPolicy(utilisation_cap=1.0, availability=1.0)


def seed_frame():
    return frame(
        sweep(),  # H100 8x, $80 od us-east-1: 8,000 tok/s at 900 ms
        sweep(pricing_model="reserved_1y", usd_per_hour=50.0),
        sweep(region="eu-north-1", pricing_model="spot", usd_per_hour=20.0),
        sweep(
            backend="rocm",
            provider="azure",
            instance_type="ND96isr_MI300X_v5",
            usd_per_hour=48.0,
            accelerators_per_replica=1,
            points=((1, 400, 200), (16, 2500, 600), (64, 6000, 1500)),
        ),
        sweep(
            backend="cpu",
            instance_type="c7i.48xlarge",
            usd_per_hour=8.5,
            accelerator_count=2,
            accelerators_per_replica=2,
            model="Llama-3.1-8B-Instruct",
            precision="int8",
            points=((1, 50, 400), (4, 150, 1200)),
        ),
        sweep(
            model="Llama-3.1-8B-Instruct",
            instance_type="g6e.xlarge",
            accelerator_count=1,
            accelerators_per_replica=1,
            usd_per_hour=1.86,
            points=((1, 300, 50), (16, 2500, 200)),
        ),
    )


def chat(tok_s=8000.0, **kw):
    return Segment(
        "chat",
        ("Llama-3.1-70B",),
        monthly_input_tokens=0,
        monthly_output_tokens=tok_s * SEC,
        profile=FLAT,
        slo=Slo(ftl_ms=1000),
        **kw,
    )


def test_stay_hand_computed():
    # 16,000 tok/s flat, 8,000 per p5 at 900 ms -> 2 units; reserved $50 (d = 37.5%) reserves both
    eng = Engine(options_from_frame(seed_frame()))
    (r,) = eng.evaluate([stay()], Demand((chat(16000),)), POLICY)
    (line,) = r.lines
    assert line.units_peak == 2 and line.units_reserved == 2
    assert r.monthly_usd == pytest.approx(2 * 50 * 730)
    assert r.usd_per_1k_tokens == pytest.approx(2 * 50 * 730 / (16000 * SEC / 1000))
    assert r.migration.one_time_usd == 0 and r.timeline.weeks_to_cutover == 0
    assert r.latency[0].meets and r.latency[0].ftl_ms == 900
    assert r.fleet_by_sku_region()[0]["accelerators_peak"] == 16


def test_shift_to_amd_shares_migration_and_payback():
    eng = Engine(options_from_frame(seed_frame()))
    demand = Demand((chat(16000),))
    stay_r, amd = eng.evaluate([stay(), shift_to_amd(0.25)], demand, POLICY)
    by_alloc = {ln.allocation: ln for ln in amd.lines}
    assert by_alloc["AMD Instinct"].share == pytest.approx(0.25)
    # 4,000 tok/s on MI300X: at SLO 1,000 ms interpolate 2500 + (400/900) x 3500 = 4,055.6 tok/s -> 1 unit
    assert by_alloc["AMD Instinct"].unit_output_tok_s == pytest.approx(2500 + 400 / 900 * 3500)
    assert by_alloc["AMD Instinct"].units_peak == 1
    assert amd.migration.new_backends == ("rocm",)
    assert amd.migration.one_time_usd == pytest.approx(12 * 5000 + 2 * 2500)
    assert amd.savings_vs_baseline_usd == pytest.approx(stay_r.monthly_usd - amd.monthly_usd)
    assert amd.risk.hhi_vendor.value < 10000 and amd.timeline.weeks_to_cutover == 8


def test_cpu_fallback_only_takes_small_model_traffic():
    eng = Engine(options_from_frame(seed_frame()))
    small = Segment(
        "router",
        ("Llama-3.1-8B",),
        0,
        1000 * SEC,
        profile=FLAT,
        slo=Slo(ftl_ms=1500),
        small_model=True,
    )
    demand = Demand((chat(8000), small))
    (r,) = eng.evaluate([add_cpu_fallback(0.10, standby_share=0.2)], demand, POLICY)
    cpu = [ln for ln in r.lines if ln.backend == "cpu"]
    assert {ln.segment for ln in cpu} == {"router"}
    assert {ln.mode for ln in cpu} == {"interactive", "standby"}
    assert segment_shares(add_cpu_fallback(0.1), demand.segments[0]) == {"NVIDIA (incumbent)": 1.0}
    assert segment_shares(add_cpu_fallback(0.1), small) == pytest.approx(
        {"NVIDIA (incumbent)": 0.9, "CPU fallback": 0.1}
    )


def test_infeasible_option_is_never_chosen():
    # a much cheaper SKU whose FTL is 3 s everywhere must lose to the feasible one
    df = frame(
        seed_frame().to_dict("records"),
        sweep(instance_type="cheap", usd_per_hour=1.0, points=((1, 9000, 3000), (8, 20000, 5000))),
    )
    eng = Engine(options_from_frame(df))
    (r,) = eng.evaluate([stay()], Demand((chat(8000),)), POLICY)
    assert all(ln.instance_type != "cheap" for ln in r.lines)
    batch = Segment("bulk", ("Llama-3.1-70B",), 0, 8000 * SEC, interactive_share=0.0, profile=FLAT)
    (b,) = eng.evaluate([stay()], Demand((batch,)), POLICY)
    assert b.lines[0].instance_type == "cheap"  # batch needs no latency bound


def test_unserved_slice_is_reported_or_reassigned():
    eng = Engine(options_from_frame(seed_frame()))
    strict = chat(8000)
    strict = Segment(
        strict.name,
        strict.models,
        0,
        strict.monthly_output_tokens,
        profile=FLAT,
        slo=Slo(ftl_ms=100),
    )
    (r,) = eng.evaluate([stay()], Demand((strict,)), POLICY)
    assert not r.feasible
    assert "no point meets FTL p95 ≤ 100 ms; best is 150 ms at concurrency 1" in r.unserved[0]
    small = Segment("router", ("Llama-3.1-8B",), 0, 1000 * SEC, profile=FLAT)
    (amd,) = eng.evaluate([shift_to_amd()], Demand((small,)), POLICY)
    assert amd.feasible and any("moved to the other allocations" in w for w in amd.warnings)


def test_batch_goes_to_cheapest_region_interactive_stays_home():
    eng = Engine(options_from_frame(seed_frame()))
    seg = Segment(
        "chat",
        ("Llama-3.1-70B",),
        0,
        8000 * SEC,
        interactive_share=0.5,
        profile=FLAT,
        slo=Slo(ftl_ms=1000),
        home_regions=("us-east-1",),
    )
    (r,) = eng.evaluate([stay()], Demand((seg,)), POLICY)
    modes = {ln.mode: ln for ln in r.lines}
    assert modes["interactive"].region == "us-east-1"
    assert modes["batch"].region == "eu-north-1" and modes["batch"].units_spot >= 1


def test_custom_scenario_and_evaluate_scenarios_from_frame():
    custom = Scenario(
        "Half AMD",
        (
            Allocation("NVIDIA", 0.5, backends=("cuda",)),
            Allocation("AMD", 0.5, vendors=("AMD",), backends=("rocm",)),
        ),
    )
    results = evaluate_scenarios(
        seed_frame(), Demand((chat(16000),)), [*builtin_scenarios(), custom], POLICY
    )
    assert [r.name for r in results] == ["Stay", "Shift 25% to AMD", "Add CPU fallback", "Half AMD"]
    assert results[0].savings_vs_baseline_usd == 0


def test_uncertainty_range_and_tornado():
    eng = Engine(options_from_frame(seed_frame()))
    (r,) = eng.evaluate([shift_to_amd()], Demand((chat(16000),)), POLICY)
    band = cost_range(r, UncertaintyInputs())
    assert band.monthly_usd_low <= band.monthly_usd_base <= band.monthly_usd_high
    assert band.monthly_usd_base == pytest.approx(r.monthly_usd)
    bars = tornado(r)
    assert [b.swing_usd for b in bars] == sorted((b.swing_usd for b in bars), reverse=True)
    nv = next(b for b in bars if b.input.startswith("NVIDIA prices"))
    nv_cost = sum(ln.monthly_usd for ln in r.lines if ln.vendor == "NVIDIA")
    # price changes do not move unit counts: the swing is exactly (1.25 - 0.8) x NVIDIA spend
    assert nv.swing_usd == pytest.approx(0.45 * nv_cost)


def test_worked_example_renders():
    results = run_example(seed_frame(), example_demand())
    assert [r.name for r in results] == ["Stay", "Shift 25% to AMD", "Add CPU fallback"]
    text = render_markdown(results)
    assert "| Stay |" in text and "critical path" in text
