"""The accelerator catalog: the bundled, sourced table of accelerators every price and result
refers to by id, and the membership checks run where prices and results come in."""

from __future__ import annotations

import csv
import difflib
from functools import cache
from pathlib import Path
from typing import TypeVar

from tokendesk.paths import data_dir
from tokendesk.records import Accelerator, Backend, BenchmarkResult, PriceQuote

CATALOG_FILE = "accelerators.csv"

Row = TypeVar("Row", PriceQuote, BenchmarkResult)


def read_catalog(path: Path) -> list[Accelerator]:
    rows: list[Accelerator] = []
    with path.open(newline="", encoding="utf-8") as handle:
        for line_no, row in enumerate(csv.DictReader(handle), start=2):
            cleaned = {key: (value if value != "" else None) for key, value in row.items()}
            cleaned["notes"] = cleaned.get("notes") or ""
            try:
                rows.append(Accelerator.model_validate(cleaned))
            except ValueError as exc:
                raise ValueError(f"{path}:{line_no}: {exc}") from exc
    return rows


@cache
def load_catalog() -> dict[str, Accelerator]:
    return {acc.accelerator_id: acc for acc in read_catalog(data_dir() / CATALOG_FILE)}


def accelerator_ids() -> frozenset[str]:
    return frozenset(load_catalog())


def accelerator(accelerator_id: str) -> Accelerator:
    return load_catalog()[check_accelerator_id(accelerator_id)]


class UnknownAcceleratorError(ValueError):
    pass


def check_accelerator_id(accelerator_id: str, known: frozenset[str] | None = None) -> str:
    """Return ``accelerator_id`` if the catalog knows it; otherwise raise naming close matches."""
    if known is None:
        known = accelerator_ids()
    if accelerator_id in known:
        return accelerator_id
    close = difflib.get_close_matches(accelerator_id, sorted(known), n=3, cutoff=0.5)
    hint = (
        f"; did you mean {', '.join(close)}?"
        if close
        else f"; known ids: {', '.join(sorted(known))}"
    )
    raise UnknownAcceleratorError(f"unknown accelerator id {accelerator_id!r}{hint}")


def check_in_catalog(row: Row) -> Row:
    """Return ``row`` if its accelerator is in the catalog (and, for a quote, its count fits the
    accelerator: only a CPU instance may hold less than one socket); raise a ValueError otherwise.

    Run wherever prices or results come in (files, fetchers, importers) and before anything is
    stored, so a row naming an unknown accelerator never reaches the warehouse.
    """
    check_accelerator_id(row.accelerator_id)
    if (
        isinstance(row, PriceQuote)
        and row.accelerator_count == 0
        and accelerator(row.accelerator_id).backend is not Backend.CPU
    ):
        raise ValueError(
            f"{row.instance_type}: accelerator_count must be at least 1 for {row.accelerator_id}"
        )
    return row
