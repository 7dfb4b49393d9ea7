import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from costmodel import FleetPolicy, GroupPrices, SizingInputs, hhi, size_line

SEC = 730 * 3600
FAST = settings(max_examples=40, deadline=None)


@FAST
@given(st.lists(st.floats(min_value=0.01, max_value=1e6), min_size=1, max_size=8))
def test_hhi_bounds(weights):
    value = hhi({str(i): w for i, w in enumerate(weights)})
    assert 10000 / len(weights) - 1e-6 <= value <= 10000 + 1e-6


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
