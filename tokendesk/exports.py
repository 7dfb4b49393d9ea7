"""Spreadsheet-safe exports. A text cell that starts with = + - @ (or a tab / carriage return)
is executed as a formula by Excel and LibreOffice, so a hostile source title such as
``=HYPERLINK("http://x","y")`` must be exported inert: we prefix it with an apostrophe,
the convention both programs display as plain text (OWASP "CSV injection").

Text from outside (a workload name, a source title) may also carry escape sequences, a bell, a
right-to-left override that shows a figure reversed, or a line break that splits a row; every
cell and every column header leaves here without them."""

from __future__ import annotations

import pandas as pd

from tokendesk.textsafety import clean_text

FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")


def neutralise(value: object) -> object:
    """A cell as a spreadsheet may hold it: control and bidi characters removed, one line, and a
    formula prefix made inert."""
    if not isinstance(value, str):
        return value
    cleaned = clean_text(value)
    # Checked before and after cleaning: "\x1b=cmd" is "=cmd" once the escape is gone, and a
    # spreadsheet skips leading blanks ("\t=cmd" becomes " =cmd") before it looks for a formula.
    if value.startswith(FORMULA_PREFIXES) or cleaned.lstrip().startswith(FORMULA_PREFIXES):
        return "'" + cleaned
    return cleaned


def neutralise_frame(frame: pd.DataFrame) -> pd.DataFrame:
    out = frame.copy()
    for column in out.columns:
        if out[column].dtype == object or pd.api.types.is_string_dtype(out[column]):
            out[column] = out[column].map(neutralise)
    out.columns = [neutralise(str(c)) if isinstance(c, str) else c for c in out.columns]
    return out


def safe_csv(frame: pd.DataFrame) -> bytes:
    return neutralise_frame(frame).to_csv(index=False).encode("utf-8")
