"""Numbers formatted for people: $/1K tokens with three significant digits, whole milliseconds,
thousands separators. Used by the CLI, the dashboard and the briefs alike."""

from __future__ import annotations

import math


def _missing(value: object) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


#: What a figure whose source states no date shows in place of one (never a made-up date).
DATE_UNKNOWN = "date unknown"


def day(value: object) -> str:
    """YYYY-MM-DD, or "date unknown" when the source states no date."""
    if value is None or _missing(value) or str(value) in ("NaT", "", "nan", "None"):
        return DATE_UNKNOWN
    if hasattr(value, "strftime"):
        return value.strftime("%Y-%m-%d")
    return str(value)[:10]


def usd_per_1k(value: float | None) -> str:
    """$0.000517 — three significant digits, because these figures span five orders of magnitude."""
    if _missing(value):
        return "—"
    number = float(value)
    if number >= 1 or number <= 0:
        return f"${number:,.2f}"
    decimals = -math.floor(math.log10(number)) + 2
    return f"${number:.{decimals}f}"


def usd(value: float | None, digits: int = 2) -> str:
    if _missing(value):
        return "—"
    return f"${float(value):,.{digits}f}"


def ms(value: float | None) -> str:
    if _missing(value):
        return "unknown"
    return f"{float(value):,.0f} ms"


def tok_s(value: float | None) -> str:
    if _missing(value):
        return "—"
    return f"{float(value):,.0f} tok/s"


def percent(value: float | None, digits: int = 1) -> str:
    if _missing(value):
        return "—"
    return f"{float(value) * 100:.{digits}f}%"
