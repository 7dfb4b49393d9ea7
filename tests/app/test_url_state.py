import pytest

from app.url_state import UrlInput, owned_keys, read, to_params

INPUTS = (
    UrlInput("slo", "number", 2000.0, low=10, high=120_000, legacy=("o_slo",)),
    UrlInput("sequences", "integer", 1, low=1, high=4096),
    UrlInput("percentile", "choice", "p95", choices=("p50", "p95", "p99")),
    UrlInput("vendor", "choices", []),
    UrlInput("cpus", "flag", False),
)


def test_absent_keys_take_their_defaults():
    values, notices = read({}, INPUTS)
    assert values == {
        "slo": 2000.0,
        "sequences": 1,
        "percentile": "p95",
        "vendor": [],
        "cpus": False,
    }
    assert notices == []


def test_valid_keys_are_read_and_data_choices_are_checked():
    params = {"slo": "900", "sequences": "8", "percentile": "p99", "vendor": "AMD,NVIDIA"}
    values, notices = read(params | {"cpus": "true"}, INPUTS, {"vendor": ["AMD", "NVIDIA"]})
    assert values == {
        "slo": 900.0,
        "sequences": 8,
        "percentile": "p99",
        "vendor": ["AMD", "NVIDIA"],
        "cpus": True,
    }
    assert notices == []


@pytest.mark.parametrize(
    ("key", "text", "reason"),
    [
        ("slo", "5", "between 10 and 120,000"),
        ("slo", "fast", "not a number"),
        ("slo", "inf", "between"),
        ("sequences", "2.5", "not a whole number"),
        ("percentile", "p42", "choose one of p50, p95, p99"),
        ("vendor", "AMD,Nobody", "unknown value(s) Nobody"),
        ("cpus", "maybe", "expected true or false"),
    ],
)
def test_a_bad_value_falls_back_to_its_default_with_a_notice(key, text, reason):
    values, notices = read({key: text}, INPUTS, {"vendor": ["AMD"]})
    spec = next(s for s in INPUTS if s.key == key)
    assert values[key] == spec.default
    assert len(notices) == 1 and f"Ignored {key}={text!r}" in notices[0] and reason in notices[0]


def test_old_links_keep_working_through_legacy_keys():
    values, _ = read({"o_slo": ["500", "700"]}, INPUTS)
    assert values["slo"] == 700.0
    assert "o_slo" in owned_keys(INPUTS)


def test_only_changed_values_are_written_and_they_read_back():
    values = {"slo": 900.0, "sequences": 1, "percentile": "p99", "vendor": ["AMD"], "cpus": True}
    params = to_params(values, INPUTS)
    assert params == {"slo": "900", "percentile": "p99", "vendor": "AMD", "cpus": "true"}
    assert read(params, INPUTS)[0] == values


def test_an_unknown_kind_is_refused():
    with pytest.raises(ValueError, match="unknown kind"):
        UrlInput("x", "colour", "red")
