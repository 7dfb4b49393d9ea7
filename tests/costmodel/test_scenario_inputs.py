import pytest

from costmodel import scenario_inputs as si


def test_defaults_round_trip_to_an_empty_url():
    assert si.to_params(si.ScenarioInputs()) == {}
    inputs, notices = si.from_params({})
    assert inputs == si.DEFAULTS and notices == []


def test_non_default_values_round_trip():
    inputs = si.ScenarioInputs(
        model="8b",
        out_b=12.5,
        slo=800.0,
        pct="p99",
        amd=0.4,
        spot=False,
        custom="cuda:0.6,rocm:0.4",
    )
    params = si.to_params(inputs)
    assert (
        params["slo"] == "800"
        and params["spot"] == "false"
        and params["custom"] == "cuda:0.6,rocm:0.4"
    )
    assert si.from_params(params) == (inputs, [])


@pytest.mark.parametrize(
    ("key", "value", "fragment"),
    [
        ("slo", "abc", "not a number"),
        ("slo", "-5", "between 10 and 120000"),
        ("amd", "1.5", "between 0.01 and 0.99"),
        ("pct", "p42", "choose one of p50, p90, p95, p99"),
        ("model", "13b", "unknown model family"),
        ("spot", "maybe", "true or false"),
        ("custom", "cuda:0.5,rocm:0.2", "sum to 0.7"),
        ("custom", "tpu:1", "backend:share"),
        ("out_b", "nan", "between"),
    ],
)
def test_bad_values_fall_back_with_a_notice(key, value, fragment):
    params = {key: value} if key == "amd" else {key: value, "amd": "0.3"}
    inputs, notices = si.from_params(params)
    assert getattr(inputs, key) == getattr(si.DEFAULTS, key)
    if key != "amd":
        assert inputs.amd == 0.3  # the good key next to the bad one still applies
    assert (
        len(notices) == 1
        and key in notices[0]
        and fragment in notices[0]
        and "Using the default" in notices[0]
    )


def test_unrelated_keys_are_ignored():
    assert si.from_params({"f_vendor": "AMD"}) == (si.DEFAULTS, [])


def test_scenarios_and_demand_follow_the_inputs():
    inputs = si.ScenarioInputs(amd=0.4, custom="cuda:0.5,hpu:0.5", small_b=0)
    names = [s.name for s in si.build_scenarios(inputs)]
    assert names == ["Stay", "Shift 40% to AMD", "Add CPU fallback", "Custom: cuda 50% / hpu 50%"]
    demand = si.build_demand(inputs)
    assert len(demand.segments) == 1 and demand.segments[0].monthly_output_tokens == 30e9


def test_models_in_family():
    models = ["llama-2-70b-chat", "llama-3.1-8b-instruct", "llama-3.3-70b-instruct", "gpt-j-6b"]
    assert si.models_in_family("70b", models) == ["llama-2-70b-chat", "llama-3.3-70b-instruct"]
    assert si.models_in_family("8b", models) == ["llama-3.1-8b-instruct"]
