"""Every page's inputs as declared URL keys: one declaration per input, with its default and bounds.

A page lists its inputs once (``UrlInput``); ``read`` turns the address bar into validated values and
a notice per bad key (a bad value falls back to its default and never raises); ``to_params`` writes
back only the keys that differ from their defaults, so shared links stay short. Older links keep
working: each input may name the keys it used to have (``legacy``). No Streamlit here, so the rules
are tested on plain dictionaries.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from tokendesk import formatting

#: How a multi-value key is written in the URL: ``?vendor=AMD,NVIDIA``.
SEPARATOR = ","

Raw = str | list[str]


@dataclass(frozen=True)
class UrlInput:
    """One page input kept in the URL.

    kind: ``number`` (float within [low, high]), ``integer``, ``choice`` (one of ``choices``),
    ``choices`` (a comma-separated subset of ``choices``), ``flag`` (true/false) or ``text``.
    ``choices`` may be left empty when they come from the data; pass them to ``read`` then.
    """

    key: str
    kind: str
    default: object
    low: float | None = None
    high: float | None = None
    choices: tuple[str, ...] = ()
    legacy: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.kind not in {"number", "integer", "choice", "choices", "flag", "text"}:
            raise ValueError(f"{self.key}: unknown kind {self.kind!r}")

    def parse(self, text: str, choices: Sequence[str] = ()) -> object:
        """The value a URL text stands for; ValueError (with the reason) when it is not valid."""
        allowed = tuple(choices) or self.choices
        if self.kind == "flag":
            if text.lower() in {"1", "true", "yes", "on"}:
                return True
            if text.lower() in {"0", "false", "no", "off"}:
                return False
            raise ValueError("expected true or false")
        if self.kind in {"number", "integer"}:
            try:
                value = float(text)
            except ValueError:
                raise ValueError("not a number") from None
            if self.kind == "integer" and math.isfinite(value) and value != int(value):
                raise ValueError("not a whole number")
            low = -math.inf if self.low is None else self.low
            high = math.inf if self.high is None else self.high
            if not math.isfinite(value) or not low <= value <= high:
                raise ValueError(f"must be a number between {low:,g} and {high:,g}")
            return int(value) if self.kind == "integer" else value
        if self.kind == "choice":
            if allowed and text not in allowed:
                raise ValueError(f"choose one of {', '.join(allowed)}")
            return text
        if self.kind == "choices":
            picked = [part.strip() for part in text.split(SEPARATOR) if part.strip()]
            unknown = [part for part in picked if allowed and part not in allowed]
            if unknown:
                raise ValueError(f"unknown value(s) {', '.join(unknown)}")
            return list(dict.fromkeys(picked))
        return text

    def show(self, value: object) -> str:
        """A value as the URL writes it."""
        if self.kind == "flag":
            return "true" if value else "false"
        if self.kind == "number" and isinstance(value, int | float):
            return f"{float(value):g}"
        if self.kind == "choices" and isinstance(value, list | tuple):
            return SEPARATOR.join(str(v) for v in value)
        return str(value)


def _last(raw: Raw) -> str:
    return raw[-1] if isinstance(raw, list) else str(raw)


def _describe_default(spec: UrlInput) -> str:
    if spec.kind == "choices" and not spec.default:
        return "no filter"
    if spec.kind == "text" and not spec.default:
        return "empty"
    return spec.show(spec.default)


def read(
    params: Mapping[str, Raw],
    inputs: Iterable[UrlInput],
    choices: Mapping[str, Sequence[str]] | None = None,
) -> tuple[dict[str, object], list[str]]:
    """Validated values for ``inputs`` from URL ``params``, and one notice per value ignored.

    A key absent from the URL takes its default; a present key that is invalid takes its default
    and yields a notice naming the key, the reason and the value used instead. ``choices`` gives the
    allowed values of inputs whose choices come from the data (e.g. the providers in the warehouse).
    """
    choices = choices or {}
    values: dict[str, object] = {}
    notices: list[str] = []
    for spec in inputs:
        present = [name for name in (spec.key, *spec.legacy) if name in params]
        values[spec.key] = spec.default
        if not present:
            continue
        text = _last(params[present[0]])
        try:
            values[spec.key] = spec.parse(text, choices.get(spec.key, ()))
        except ValueError as exc:
            notices.append(
                f"Ignored {present[0]}={text!r} in the link: {exc}. "
                f"Using {_describe_default(spec)} instead."
            )
    return values, notices


def to_params(values: Mapping[str, object], inputs: Iterable[UrlInput]) -> dict[str, str]:
    """The URL keys for ``values``: only those that differ from their defaults."""
    out: dict[str, str] = {}
    for spec in inputs:
        value = values.get(spec.key, spec.default)
        if value != spec.default and not (
            spec.kind == "choices" and not value and not spec.default
        ):
            out[spec.key] = spec.show(value)
    return out


def owned_keys(inputs: Iterable[UrlInput]) -> set[str]:
    """Every key a page's inputs own in the URL, current and legacy."""
    return {name for spec in inputs for name in (spec.key, *spec.legacy)}


#: The $/1K <-> $/1M switch: one URL key for every page that shows a $/token figure.
UNIT_INPUT = UrlInput(
    formatting.TOKEN_UNIT_KEY,
    "choice",
    formatting.DEFAULT_TOKEN_UNIT,
    choices=tuple(formatting.TOKEN_UNITS),
)
