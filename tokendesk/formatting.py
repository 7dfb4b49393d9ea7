"""Numbers formatted for people: $/1K (or $/1M) tokens with three significant digits, whole milliseconds,
thousands separators. Used by the CLI, the dashboard and the briefs alike."""

from __future__ import annotations

import math
from typing import Any
from urllib.parse import urlsplit


def _missing(value: object) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _number(value: Any) -> float | None:
    """``value`` as a float, or None when it is missing (None or NaN)."""
    return None if _missing(value) else float(value)


#: What a figure whose source states no date shows in place of one (never a made-up date).
DATE_UNKNOWN = "date unknown"


def day(value: object) -> str:
    """YYYY-MM-DD, or "date unknown" when the source states no date."""
    if value is None or _missing(value) or str(value) in ("NaT", "", "nan", "None"):
        return DATE_UNKNOWN
    if hasattr(value, "strftime"):
        return value.strftime("%Y-%m-%d")
    return str(value)[:10]


def usd_per_1k(value: Any) -> str:
    """$0.000517 — three significant digits, because these figures span five orders of magnitude."""
    number = _number(value)
    if number is None:
        return "—"
    if number >= 1 or number <= 0:
        return f"${number:,.2f}"
    decimals = -math.floor(math.log10(number)) + 2
    return f"${number:.{decimals}f}"


def usd_rate(value: Any) -> str:
    """A price per hour or per unit: $31.46 (cents from a dollar up), $0.0525 below a dollar
    (three significant digits, so a CPU's rate does not round to $0.05)."""
    return usd_per_1k(value)


def usd(value: Any, digits: int = 2) -> str:
    number = _number(value)
    if number is None:
        return "—"
    return f"${number:,.{digits}f}"


def usd_change(value: Any) -> str:
    """A change in dollars, its sign before the currency: −$63,160 / +$1,200 / $0."""
    number = _number(value)
    if number is None:
        return "—"
    if abs(number) < 0.5:
        return "$0"
    return f"{'−' if number < 0 else '+'}{usd(abs(number), 0)}"


def ms(value: Any) -> str:
    number = _number(value)
    if number is None:
        return "unknown"
    return f"{number:,.0f} ms"


def tok_s(value: Any) -> str:
    number = _number(value)
    if number is None:
        return "—"
    return f"{number:,.0f} tok/s"


def percent(value: Any, digits: int = 1) -> str:
    number = _number(value)
    if number is None:
        return "—"
    return f"{number * 100:.{digits}f}%"


#: The token counts a $/token figure can be quoted per, as the URL writes them. $/1K is the
#: default (the figure this tool is about); $/1M is how API price lists quote. Every stored and
#: computed figure is $ per 1K tokens: ``token_unit_factor`` alone turns it into the chosen unit.
TOKEN_UNITS = {"1k": 1_000, "1m": 1_000_000}
DEFAULT_TOKEN_UNIT = "1k"
#: The URL key every dashboard page keeps the unit under (``?unit=1m``).
TOKEN_UNIT_KEY = "unit"
_UNIT_SHORT = {"1k": "1K", "1m": "1M"}
#: Decimals a $/token column shows per unit: $0.000517 per 1K tokens is $0.517 per 1M.
_UNIT_DECIMALS = {"1k": 6, "1m": 3}


def _unit(unit: str) -> str:
    if unit not in TOKEN_UNITS:
        raise ValueError(f"unknown token unit {unit!r}; choose one of {', '.join(TOKEN_UNITS)}")
    return unit


def token_unit_params(unit: str) -> dict[str, str]:
    """The URL key for ``unit``: none for the default, so shared links stay short."""
    return {} if _unit(unit) == DEFAULT_TOKEN_UNIT else {TOKEN_UNIT_KEY: unit}


def token_unit_factor(unit: str) -> float:
    """What a $/1K-tokens figure is multiplied by to read in ``unit`` (1 or 1000)."""
    return TOKEN_UNITS[_unit(unit)] / TOKEN_UNITS[DEFAULT_TOKEN_UNIT]


def per_tokens(usd_per_1k: Any, unit: str) -> Any:
    """A $/1K figure (a number, array or column) in ``unit``."""
    return usd_per_1k * token_unit_factor(unit)


def token_unit_label(unit: str) -> str:
    """ "$/1K" or "$/1M"."""
    return f"$/{_UNIT_SHORT[_unit(unit)]}"


def cost_label(unit: str, tokens: str) -> str:
    """A cost column's name, saying which tokens it counts: "$/1M output tokens"."""
    return f"{token_unit_label(unit)} {tokens} tokens"


def cost_format(unit: str) -> str:
    """The printf format of a $/token column in ``unit``."""
    return f"$%.{_UNIT_DECIMALS[_unit(unit)]}f"


def spreadsheet_cost_format(unit: str) -> str:
    """The spreadsheet number format of a $/token cell in ``unit``: the same decimals."""
    return '"$"0.' + "0" * _UNIT_DECIMALS[_unit(unit)]


def token_unit_in(label: str) -> str | None:
    """The token unit a column name quotes its cost per ("$/1M output tokens" -> "1m")."""
    lowered = label.lower()
    for unit, short in _UNIT_SHORT.items():
        if f"/{short.lower()}" in lowered or f"per_{unit}" in lowered:
            return unit
    return None


def usd_per_tokens(value: Any, unit: str, tokens: str = "") -> str:
    """A $/1K figure (``value``) as text in ``unit``, with its unit: "$0.517 /1M output tokens"."""
    number = _number(value)
    if number is None:
        return "—"
    words = f"{tokens} tokens" if tokens else "tokens"
    return f"{usd_per_1k(number * token_unit_factor(unit))} /{_UNIT_SHORT[_unit(unit)]} {words}"


#: The longest link text a document shows in place of an address (the address is the target).
LINK_TEXT_LIMIT = 40


def link_text(url: str) -> str:
    """What a person reads for a link: the host and the last part of the path
    ("github.com/…/vms.csv"); the full address stays the link's target."""
    parts = urlsplit(url.strip())
    host = parts.netloc.removeprefix("www.")
    segments = [s for s in parts.path.split("/") if s]
    if not host:
        return url
    if not segments:
        return host
    text = host + ("/…/" if len(segments) > 1 else "/") + segments[-1]
    return text if len(text) <= LINK_TEXT_LIMIT else host + "/…"
