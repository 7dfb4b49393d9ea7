"""Token volumes, latency targets and growth as people write and read them ("30 B", "1,500 ms",
"10 %/qtr"): one parser and one formatter each, used by the Workspace page."""

import pytest

from tokendesk import units


@pytest.mark.parametrize(
    "text",
    ["30 B", "30B", "30 b", "30e9", "30,000,000,000", "30 billion", "30 B tokens", 30e9, "30000 M"],
)
def test_thirty_billion_tokens_however_it_is_written(text):
    assert units.parse_tokens(text) == 30e9


def test_larger_and_smaller_volumes():
    assert units.parse_tokens("1.5 T") == 1.5e12
    assert units.parse_tokens("750 M") == 750e6
    assert units.parse_tokens("12 K") == 12_000
    assert units.parse_tokens("0") == 0


@pytest.mark.parametrize("text", ["30 GB", "30 bytes", "thirty", "", "30 B B"])
def test_a_wrong_unit_or_no_number_is_refused_in_words(text):
    with pytest.raises(units.UnitError) as refused:
        units.parse_tokens(text, "Output tokens / month")
    message = str(refused.value)
    assert message.startswith("Output tokens / month: ")
    assert "not a number" in message or "K, M, B or T" in message


def test_volumes_read_as_people_say_them_and_read_back_exactly():
    assert units.tokens_text(30e9) == "30 B"
    assert units.tokens_text(1.5e12) == "1.5 T"
    assert units.tokens_text(150e9) == "150 B"
    assert units.tokens_text(181_829_595) == "181.829595 M"
    # what is shown is what is read back: a save of an unchanged table changes nothing
    for value in (30e9, 1.5e12, 12_239_724_983.0, 181_829_595.0, 0.2e9, 0.0):
        assert units.parse_tokens(units.tokens_text(value)) == value


def test_latency_targets_in_whole_milliseconds():
    assert units.ms_text(1500.0) == "1,500 ms"
    assert units.ms_text(2000.0) == "2,000 ms"  # never "2000.00"
    assert units.parse_ms("1,500 ms") == units.parse_ms("1500") == units.parse_ms("1.5 s") == 1500
    with pytest.raises(units.UnitError, match="write milliseconds"):
        units.parse_ms("1500 parsecs")


def test_growth_per_quarter_as_a_percentage():
    assert units.growth_text(0.10) == "10 %/qtr"
    assert units.growth_text(0.05) == "5 %/qtr"
    for text in ("10 %/qtr", "10%", "10", "10 % / qtr"):
        assert units.parse_growth(text) == 0.10
    assert units.parse_growth("-5 %") == -0.05
    for value in (0.1, 0.05, 0.07, -0.5, 0.123):
        assert units.parse_growth(units.growth_text(value)) == value
    with pytest.raises(units.UnitError, match="percentage per quarter"):
        units.parse_growth("10 per year")


def test_parse_fraction():
    assert units.parse_fraction("10%") == pytest.approx(0.10)
    assert units.parse_fraction("0.1") == pytest.approx(0.10)
    assert units.parse_fraction("12.5") == pytest.approx(0.125)
    with pytest.raises(ValueError):
        units.parse_fraction("ten")
