"""Unit normalisation: every figure entering tokendesk states its unit, and we store one unit per
quantity (milliseconds for latency, tokens per second for throughput, USD per hour for price).

Result files mix ms, s and ns (see the importers); a number whose unit is missing or unknown is
rejected instead of guessed, because a latency off by 1000x looks perfectly plausible in a table.
"""

from __future__ import annotations

import math
import re
from decimal import Decimal


class UnitError(ValueError):
    """A value arrived without a unit, or with one we cannot convert."""


_TO_MS = {
    "ns": 1e-6,
    "us": 1e-3,
    "µs": 1e-3,
    "ms": 1.0,
    "s": 1000.0,
    "sec": 1000.0,
    "seconds": 1000.0,
    "milliseconds": 1.0,
    "nanoseconds": 1e-6,
    "microseconds": 1e-3,
}

_TO_TOK_S = {
    "tokens/s": 1.0,
    # A token-throughput metric labelled only "(per sec)" (genai-perf/AIPerf CSV rows): the
    # quantity is tokens, the label gives the time unit.
    "/s": 1.0,
    "tok/s": 1.0,
    "tokens/sec": 1.0,
    "tokens per second": 1.0,
    "tokens/min": 1 / 60,
}

_TO_USD_PER_HOUR = {
    "usd/h": 1.0,
    "usd/hour": 1.0,
    "usd/hr": 1.0,
    "$/h": 1.0,
    "$/hr": 1.0,
    "usd/month": 1 / 730.0,  # cloud billing convention: 730 hours per month
    "usd/min": 60.0,
    "usd/s": 3600.0,
}


def _spelling(unit: str) -> str:
    """One spelling per unit: "Tokens per sec", "tokens / second", "tok/sec" -> "tokens/s"."""
    key = re.sub(r"\s+", " ", unit.strip().lower())
    key = re.sub(r"\s*(?:/|\bper\b)\s*", "/", key)
    key = re.sub(r"/(?:secs?|seconds?)\b", "/s", key)
    key = re.sub(r"^(?:toks?|tokens?)/", "tokens/", key)
    return key


def _convert(value: float, unit: str | None, table: dict[str, float], quantity: str) -> float:
    if unit is None or not str(unit).strip():
        raise UnitError(f"{quantity} {value!r} has no unit; expected one of {sorted(table)}")
    key = _spelling(str(unit))
    if key not in table:
        raise UnitError(f"{quantity} unit {unit!r} is not known; expected one of {sorted(table)}")
    number = float(value)
    if math.isnan(number):
        raise UnitError(f"{quantity} is NaN")
    return number * table[key]


def to_ms(value: float, unit: str | None) -> float:
    """Convert a duration to milliseconds."""
    return _convert(value, unit, _TO_MS, "duration")


def to_tok_s(value: float, unit: str | None) -> float:
    """Convert a throughput to tokens per second."""
    return _convert(value, unit, _TO_TOK_S, "throughput")


def to_usd_per_hour(value: float, unit: str | None) -> float:
    """Convert a price to US dollars per hour."""
    return _convert(value, unit, _TO_USD_PER_HOUR, "price")


# ---- quantities people type and read on the Workspace page -----------------------------------
#: Token-volume suffixes a person writes ("30 B" tokens a month); one table for reading and writing.
_TOKEN_SCALES = {"k": 10**3, "m": 10**6, "b": 10**9, "t": 10**12}
_SCALE_WORDS = {"thousand": "k", "million": "m", "billion": "b", "trillion": "t", "bn": "b"}
_QUANTITY = re.compile(r"^([+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?)\s*([a-z%/ .]*)$")


def _number_and_unit(text: object, what: str) -> tuple[Decimal, str]:
    """(number, the unit words after it) from "30 B", "1,500 ms", "30e9"; thousands commas and
    spaces inside the number are allowed. Decimal, so "12.239724983 B" is exactly the count
    that was shown (a save of an unchanged table changes nothing)."""
    if isinstance(text, bool):
        raise UnitError(f"{what}: expected a number, got {text!r}")
    if isinstance(text, (int, float)):
        if not math.isfinite(float(text)):
            raise UnitError(f"{what}: {text!r} is not a finite number")
        return Decimal(repr(float(text))), ""
    raw = str(text).strip()
    compact = re.sub(r"(?<=\d)[,_ ](?=\d{3}\b)", "", raw.lower())
    match = _QUANTITY.match(compact)
    if not match or not raw:
        raise UnitError(f"{what}: {raw[:40]!r} is not a number")
    return Decimal(match.group(1)), match.group(2).strip()


def parse_tokens(text: object, what: str = "Tokens per month") -> float:
    """Tokens from what a person writes: "30 B", "30B", "30 b", "1.5 T", "30e9",
    "30,000,000,000", "750 M" (K, M, B, T; "billion" spelled out too). A unit other than these
    is refused, not guessed."""
    number, unit = _number_and_unit(text, what)
    unit = unit.removesuffix("tokens").removesuffix("/month").strip()
    unit = _SCALE_WORDS.get(unit, unit)
    if unit and unit not in _TOKEN_SCALES:
        raise UnitError(
            f"{what}: {str(text).strip()[:40]!r} has the unit {unit!r}; write a number with"
            " K, M, B or T (e.g. 30 B for 30 billion)"
        )
    return float(number * _TOKEN_SCALES.get(unit, 1))


def tokens_text(value: float | None) -> str:
    """A token volume as people say it: 30e9 -> "30 B", 1.5e12 -> "1.5 T", 750e6 -> "750 M"."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    number = float(value)
    for suffix, scale in (("T", 1e12), ("B", 1e9), ("M", 1e6), ("K", 1e3)):
        if abs(number) >= scale:
            return f"{number / scale:,.12g} {suffix}"
    return f"{number:,.12g}"


def parse_ms(text: object, what: str = "SLO") -> float:
    """Milliseconds from "1,500 ms", "1500", "1.5 s"; any duration unit ``to_ms`` knows."""
    number, unit = _number_and_unit(text, what)
    if not unit:
        return float(number)
    try:
        return to_ms(float(number), unit)
    except UnitError:
        raise UnitError(
            f"{what}: {str(text).strip()[:40]!r} has the unit {unit!r}; write milliseconds"
            " (1,500 ms) or seconds (1.5 s)"
        ) from None


def ms_text(value: float | None) -> str:
    """Whole milliseconds with thousands separators: 1500.0 -> "1,500 ms"."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return f"{float(value):,.0f} ms"


#: How growth per quarter is written; the stored value is a fraction (0.10).
GROWTH_UNIT = "%/qtr"


def parse_growth(text: object, what: str = "Growth") -> float:
    """A growth per quarter as a fraction from "10 %/qtr", "10%", "10" (a bare number is a
    percentage: what the column shows) or "-5 %"."""
    number, unit = _number_and_unit(text, what)
    unit = unit.replace(" ", "")
    if unit not in ("", "%", "%/qtr", "%/q", "%/quarter", "%aquarter"):
        raise UnitError(
            f"{what}: {str(text).strip()[:40]!r} has the unit {unit!r}; write a percentage per"
            " quarter (10 %/qtr)"
        )
    return float(number / 100)


def growth_text(value: float | None) -> str:
    """0.1 -> "10 %/qtr"."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return f"{float(value) * 100:,.12g} {GROWTH_UNIT}"


def parse_fraction(text: str | float) -> float:
    """ "10%" -> 0.10; "0.1" -> 0.10; a bare number above 1 is read as percent ("10" -> 0.10)."""
    if isinstance(text, int | float):
        value = float(text)
    else:
        raw = str(text).strip()
        try:
            value = float(raw[:-1]) / 100.0 if raw.endswith("%") else float(raw)
        except ValueError:
            raise ValueError(f"{text!r} is not a percentage (e.g. 10% or 0.1)") from None
        if not raw.endswith("%") and value > 1:
            value /= 100.0
    if not 0 <= value < 10:
        raise ValueError(f"{text!r} is out of range")
    return value
