import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from costmodel import (
    Allocation,
    Demand,
    Engine,
    FleetPolicy,
    GroupPrices,
    HourlyProfile,
    Scenario,
    Segment,
    SizingInputs,
    Slo,
    builtin_scenarios,
    hhi,
    options_from_frame,
    segment_shares,
    size_line,
    stay,
)
from tests.factories import frame, sweep

SEC = 730 * 3600
FAST = settings(max_examples=40, deadline=None)
shares = st.floats(min_value=0.0, max_value=5.0, allow_nan=False)


@FAST
@given(st.lists(shares, min_size=1, max_size=5), st.booleans())
def test_traffic_shares_sum_to_one(values, small):
    allocs = tuple(
        Allocation(f"a{i}", v, small_models_only=(i % 2 == 1)) for i, v in enumerate(values)
    )
    seg = Segment("s", ("m",), 0, 1, small_model=small)
    got = segment_shares(Scenario("x", allocs), seg)
    if got:
        assert sum(got.values()) == pytest.approx(1.0)


@FAST
@given(st.lists(st.floats(min_value=0.01, max_value=1e6), min_size=1, max_size=8))
def test_hhi_bounds(weights):
    value = hhi({str(i): w for i, w in enumerate(weights)})
    assert 10000 / len(weights) - 1e-6 <= value <= 10000 + 1e-6


def _engine():
    return Engine(
        options_from_frame(
            frame(
                sweep(),
                sweep(pricing_model="reserved_1y", usd_per_hour=50.0),
                sweep(
                    backend="rocm",
                    instance_type="mi",
                    usd_per_hour=40.0,
                    accelerators_per_replica=1,
                    points=((1, 400, 200), (16, 2500, 600), (64, 6000, 1500)),
                ),
            )
        )
    )


ENGINE = _engine()


@FAST
@given(
    st.floats(min_value=100, max_value=200_000),
    st.floats(min_value=1.0, max_value=3.0),
    st.floats(min_value=1.0, max_value=2.0),
    st.floats(min_value=0.0, max_value=1.0),
)
def test_cost_monotone_in_demand(tok_s, factor, peak, inter):
    seg = Segment(
        "c",
        ("Llama-3.1-70B",),
        0,
        tok_s * SEC,
        interactive_share=inter,
        profile=HourlyProfile(peak_factor=peak),
        slo=Slo(ftl_ms=1000),
    )
    for scenario in builtin_scenarios():
        (lo,) = ENGINE.evaluate([scenario], Demand((seg,)))
        (hi,) = ENGINE.evaluate([scenario], Demand((seg.scaled(factor),)))
        assert hi.monthly_usd >= lo.monthly_usd - 1e-6


@FAST
@given(st.floats(min_value=100, max_value=100_000))
def test_stay_has_zero_migration_cost(tok_s):
    seg = Segment("c", ("Llama-3.1-70B",), 0, tok_s * SEC, slo=Slo(ftl_ms=1000))
    (r,) = ENGINE.evaluate([stay()], Demand((seg,)))
    assert r.migration.one_time_usd == 0 and r.timeline.weeks_to_cutover == 0


@FAST
@given(
    st.integers(min_value=1, max_value=200),
    st.floats(min_value=0.5, max_value=100),
    st.floats(min_value=10, max_value=20_000),
    st.floats(min_value=0.3, max_value=1.0),
    st.floats(min_value=0.8, max_value=1.0),
)
def test_usd_per_1k_unchanged_when_demand_scales_at_fixed_utilisation(n, price, unit, util, avail):
    pol = FleetPolicy(utilisation_cap=util, availability=avail)
    flat = (1.0,) * 24

    def per_1k(units):
        demand = units * unit * util * avail  # exactly `units` units at the capped utilisation
        s = size_line(
            SizingInputs("interactive", demand, flat, unit, GroupPrices(on_demand=price), pol)
        )
        return s.monthly_usd / (demand * SEC / 1000)

    assert per_1k(n) == pytest.approx(per_1k(1), rel=1e-9)
    assert per_1k(1) == pytest.approx(price / (unit * util * avail * 3.6), rel=1e-9)


point = st.tuples(
    st.floats(min_value=10, max_value=10_000), st.floats(min_value=10, max_value=5_000)
)


@FAST
@given(
    st.lists(st.lists(point, min_size=1, max_size=4), min_size=1, max_size=5),
    st.lists(st.floats(min_value=1, max_value=100), min_size=5, max_size=5),
    st.floats(min_value=50, max_value=3000),
)
def test_infeasible_option_never_chosen(sweeps, prices, slo_ms):
    rows = []
    for i, pts in enumerate(sweeps):
        rows.append(
            sweep(
                instance_type=f"i{i}",
                usd_per_hour=prices[i],
                points=tuple((c + 1, tok, ftl) for c, (tok, ftl) in enumerate(sorted(pts))),
            )
        )
    eng = Engine(options_from_frame(frame(*rows)))
    seg = Segment("c", ("Llama-3.1-70B",), 0, 1000 * SEC, slo=Slo(ftl_ms=slo_ms))
    (r,) = eng.evaluate([stay()], Demand((seg,)))
    for ln in r.lines:
        assert ln.ftl_ms <= slo_ms + 1e-9
        i = int(ln.instance_type[1:])
        assert min(ftl for _, ftl in sweeps[i]) <= slo_ms
    if not r.lines:
        assert all(min(ftl for _, ftl in pts) > slo_ms for pts in sweeps) or r.unserved
