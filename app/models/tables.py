"""Tables as people read them: labelled columns, decision columns first, and a "—" for every
missing value (never ``None``, ``nan`` or ``True``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from tokendesk.labels import label as id_label
from tokendesk.labels import labelled_column

#: What a missing value reads as, everywhere on the dashboard.
MISSING = "—"


@dataclass(frozen=True)
class Table:
    """A frame ready to show: ``numbers`` maps each still-numeric column to its printf format,
    ``dates`` lists the still-datetime columns; every other column is already text."""

    frame: pd.DataFrame
    numbers: dict[str, str] = field(default_factory=dict)
    dates: tuple[str, ...] = ()


#: What a column's cells are, for a page that shows a frame under its own column names.
COLUMN_KINDS = ("text", "number", "date", "datetime", "link")


@dataclass(frozen=True)
class Column:
    """How one column of a frame reads on a page that keeps the frame's own column names: its
    label, the kind of cell (one of COLUMN_KINDS), its format (printf for numbers, moment.js for
    datetimes) and a help line for the header."""

    label: str
    kind: str = "text"
    format: str | None = None
    help: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in COLUMN_KINDS:
            raise ValueError(f"column {self.label!r}: unknown kind {self.kind!r}")


def _printf(fmt: str) -> Callable[[object], str]:
    """A Python formatter for the printf formats the dashboard uses (``$%.4f``, ``%,.0f ms``)."""
    prefix, _, rest = fmt.partition("%")
    spec = ""
    while rest and rest[0] in ",.0123456789":
        spec += rest[0]
        rest = rest[1:]
    kind, suffix = (rest[0], rest[1:]) if rest else ("g", "")
    kind = {"d": ".0f", "i": ".0f"}.get(kind, kind)

    def show(value: Any) -> str:
        return f"{prefix}{float(value):{spec}{kind}}{suffix}"

    return show


def _text(value: object) -> str:
    if value is None or (not isinstance(value, str | list | tuple) and pd.isna(value)):
        return MISSING
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, pd.Timestamp):
        return f"{value:%Y-%m-%d}"
    text = str(value)
    return text if text.strip() else MISSING


def readable(
    frame: pd.DataFrame,
    labels: Mapping[str, str],
    numbers: Mapping[str, str] | None = None,
    dates: Sequence[str] = (),
) -> Table:
    """Keep and rename the ``labels`` columns (in that order) and make every cell readable.

    A numeric column (format in ``numbers``) stays numeric, so it sorts, unless it has a missing
    value: then it becomes text in the same format with "—" for the gaps. Dates likewise.
    Everything else becomes text: booleans read yes/no, missing values "—".
    """
    numbers = dict(numbers or {})
    out = pd.DataFrame(index=frame.index)
    kept_numbers: dict[str, str] = {}
    kept_dates: list[str] = []
    for column, label in labels.items():
        values = frame[column]
        if column in numbers:
            values = pd.to_numeric(values, errors="coerce")
            if values.notna().all():
                out[label] = values
                kept_numbers[label] = numbers[column]
            else:
                show = _printf(numbers[column])
                out[label] = [MISSING if pd.isna(v) else show(v) for v in values]
        elif column in dates:
            values = pd.to_datetime(values, errors="coerce")
            if values.notna().all():
                out[label] = values
                kept_dates.append(label)
            else:
                out[label] = [MISSING if pd.isna(v) else f"{v:%Y-%m-%d}" for v in values]
        elif labelled_column(column):  # stored ids (on_demand, rocm) read as words
            out[label] = [_text(v) if _text(v) == MISSING else id_label(v) for v in values]
        else:
            out[label] = [_text(v) for v in values]
    return Table(out.reset_index(drop=True), kept_numbers, tuple(kept_dates))


def has_no_literals(frame: pd.DataFrame) -> bool:
    """Whether no cell reads as a Python literal (``None``, ``nan``, ``True``, ``NaT``)."""
    literals = {"None", "nan", "NaN", "True", "False", "NaT", "<NA>"}
    for column in frame.columns:
        values = frame[column]
        if values.isna().any():
            return False
        is_text = not pd.api.types.is_numeric_dtype(values) and values.dtype.kind != "M"
        if is_text and values.map(lambda v: str(v) in literals).any():
            return False
    return True


def text_gaps_as_dash(
    frame: pd.DataFrame, dates: Sequence[str] = (), numbers: Mapping[str, str] | None = None
) -> pd.DataFrame:
    """The same columns, with missing text (and the listed dates, when any is missing) as "—".

    A numeric column with a gap becomes text in its printf format from ``numbers`` ("%g" if
    none is given). Complete numeric and date columns stay as they are, so they keep sorting.
    """
    numbers = numbers or {}
    out = frame.copy()
    for column in out.columns:
        values = out[column]
        if pd.api.types.is_numeric_dtype(values) and values.dtype != bool and values.isna().any():
            show = _printf(numbers.get(column, "%g"))
            out[column] = [MISSING if pd.isna(v) else show(v) for v in values]
        elif column in dates:
            if values.isna().any():
                out[column] = [_text(pd.Timestamp(v)) if pd.notna(v) else MISSING for v in values]
        elif not pd.api.types.is_numeric_dtype(values) and values.dtype.kind != "M":
            out[column] = [_text(v) for v in values]
    return out
