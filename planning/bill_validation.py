"""What a set of bill files must be before their charges are read as one bill: no file given
twice (by path, or by content: a CSV and its gzip copy are one file), and one currency.

Kept apart from ``planning.bill`` (which turns the checked charges into a fleet) so the rules a
bill must pass have one home; the per-row rules (finite, dated, not negative) are checked by
the reader in the same scan that sums the rows (``warehouse.focus_rules``).
"""

from __future__ import annotations

import gzip
import hashlib
from collections.abc import Sequence
from pathlib import Path

from pricing import focus
from warehouse.focus_files import first_row_with

#: Bytes read at a time while a file's content is hashed (a bill runs to gigabytes).
_CHUNK = 1024 * 1024
_GZIP_MAGIC = b"\x1f\x8b"


class BillValidationError(ValueError):
    """The files are not one bill; the message names the file, the row or field and the fix."""


def content_digest(path: Path) -> str:
    """SHA-256 of the file's content, decompressed when it is gzip (so ``bill.csv`` and
    ``bill.csv.gz`` have one digest)."""
    digest = hashlib.sha256()
    with path.open("rb") as raw:
        gzipped = raw.read(2) == _GZIP_MAGIC
    opener = gzip.open if gzipped else open
    try:
        with opener(path, "rb") as handle:
            while chunk := handle.read(_CHUNK):
                digest.update(chunk)
    except (OSError, EOFError):  # a damaged gzip: the reader names it with its own words
        return f"unreadable:{path.resolve()}"
    return digest.hexdigest()


def check_distinct_files(paths: Sequence[Path]) -> None:
    """Refuse a file given twice: each charge would be counted twice."""
    seen_paths: dict[Path, Path] = {}
    seen_content: dict[str, Path] = {}
    for path in paths:
        if not path.is_file():
            continue  # the reader says the file is missing or not a file
        resolved = path.resolve()
        if resolved in seen_paths:
            raise BillValidationError(
                f"{path.name}: the file is given twice; every charge would be counted twice."
                " Give each file once"
            )
        seen_paths[resolved] = path
        digest = content_digest(path)
        earlier = seen_content.get(digest)
        if earlier is not None:
            raise BillValidationError(
                f"{path.name}: holds the same charges as {earlier.name} (a copy, or the same"
                " export compressed); every charge would be counted twice. Give one of them"
            )
        seen_content[digest] = path


def check_one_currency(
    groups: Sequence[focus.ChargeGroup], paths: Sequence[Path], currency_columns: dict[str, str]
) -> None:
    """Refuse a bill whose charges are in more than one BillingCurrency: sums of dollars and
    euros are neither. ``currency_columns`` maps a file's name to its currency column."""
    first: str | None = None
    for group in groups:
        currency = group.get("currency").upper()
        if not currency or not group.rows:
            continue
        if first is None:
            first = currency
            continue
        if currency != first:
            path = next((p for p in paths if p.name == group.source), None)
            column = currency_columns.get(group.source, "BillingCurrency")
            row = first_row_with(path, column, group.get("currency")) if path else None
            at = f"row {row} (line {row + 1}), " if row else ""
            raise BillValidationError(
                f"{group.source}: {at}{column}: {currency!r} where the bill's other charges are"
                f" in {first!r}; one bill is one currency: import each currency's export apart"
            )
