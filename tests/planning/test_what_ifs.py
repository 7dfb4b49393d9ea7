import pytest

from planning import what_ifs as si
from planning import workspaces as pw
from planning.context import scenario_plans


def test_defaults_round_trip_to_an_empty_url():
    assert si.to_params(si.ScenarioInputs()) == {}
    inputs, rejected = si.from_params({})
    assert inputs == si.DEFAULTS and rejected == ()


def test_non_default_values_round_trip():
    inputs = si.ScenarioInputs(
        model="8b",
        out_b=12.5,
        slo=800.0,
        pct="p99",
        amd=0.4,
        custom="cuda:0.6,rocm:0.4",
    )
    params = si.to_params(inputs)
    assert params["slo"] == "800" and params["custom"] == "cuda:0.6,rocm:0.4"
    assert si.from_params(params) == (inputs, ())


@pytest.mark.parametrize(
    ("key", "value", "fragment"),
    [
        ("slo", "abc", "not a number"),
        ("slo", "-5", "between 10 and 120000"),
        ("amd", "1.5", "between 0.01 and 0.99"),
        ("pct", "p42", "choose one of p50, p90, p95, p99"),
        ("model", "13b", "unknown model family"),
        ("custom", "cuda:0.5,rocm:0.2", "sum to 0.7"),
        ("custom", "tpu:1", "backend:share"),
        ("out_b", "nan", "between"),
    ],
)
def test_bad_values_fall_back_with_a_notice(key, value, fragment):
    params = {key: value} if key == "amd" else {key: value, "amd": "0.3"}
    inputs, rejected = si.from_params(params)
    assert getattr(inputs, key) == getattr(si.DEFAULTS, key)
    if key != "amd":
        assert inputs.amd == 0.3  # the good key next to the bad one still applies
    assert [(r.key, r.value) for r in rejected] == [(key, value)]
    assert fragment in rejected[0].why and rejected[0].default == getattr(si.DEFAULTS, key)
    notice = rejected[0].notice
    assert key in notice and fragment in notice and "Using the default" in notice


def test_unrelated_keys_are_ignored():
    assert si.from_params({"f_vendor": "AMD"}) == (si.DEFAULTS, ())


def test_the_market_plans_and_demand_follow_the_inputs():
    inputs = si.ScenarioInputs(amd=0.4, custom="cuda:0.5,hpu:0.5", small_b=0)
    names = [p.name for p in scenario_plans(pw.market_knobs(inputs))]
    assert names == [
        "Stay",
        "Shift 40% to AMD",
        "Add CPU fallback",
        "Custom: NVIDIA 50% / Intel Gaudi 50%",
    ]
    (main,) = pw.market_workspace(inputs).demand
    assert main.output_tokens_per_month == 30e9 and main.input_tokens_per_month == 60e9
    both = pw.market_workspace(si.DEFAULTS).demand
    assert [w.output_tokens_per_month for w in both] == [30e9, 10e9] and both[1].small_model


def test_models_in_family():
    models = ["llama-2-70b-chat", "llama-3.1-8b-instruct", "llama-3.3-70b-instruct", "gpt-j-6b"]
    assert si.models_in_family("70b", models) == ["llama-2-70b-chat", "llama-3.3-70b-instruct"]
    assert si.models_in_family("8b", models) == ["llama-3.1-8b-instruct"]
