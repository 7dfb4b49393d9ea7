"""Unit normalisation: every figure entering tokendesk states its unit, and we store one unit per
quantity (milliseconds for latency, tokens per second for throughput, USD per hour for price).

Result files mix ms, s and ns (see the importers); a number whose unit is missing or unknown is
rejected instead of guessed, because a latency off by 1000x looks perfectly plausible in a table.
"""

from __future__ import annotations

import math
import re


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
