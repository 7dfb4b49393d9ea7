"""Spreadsheet-safe exports. A text cell that starts with = + - @ (or a tab / carriage return)
is executed as a formula by Excel and LibreOffice, so a hostile source title such as
``=HYPERLINK("http://x","y")`` must be exported inert: we prefix it with an apostrophe,
the convention both programs display as plain text (OWASP "CSV injection")."""

from __future__ import annotations

import pandas as pd

FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")


def neutralise(value: object) -> object:
    if isinstance(value, str) and value.startswith(FORMULA_PREFIXES):
        return "'" + value
    return value


def neutralise_frame(frame: pd.DataFrame) -> pd.DataFrame:
    out = frame.copy()
    for column in out.columns:
        if out[column].dtype == object or pd.api.types.is_string_dtype(out[column]):
            out[column] = out[column].map(neutralise)
    return out


def safe_csv(frame: pd.DataFrame) -> bytes:
    return neutralise_frame(frame).to_csv(index=False).encode("utf-8")
