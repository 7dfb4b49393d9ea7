"""The accelerator catalog: the bundled, sourced table of accelerators every price and result
refers to by id."""

from __future__ import annotations

import csv
from functools import cache
from pathlib import Path

from tokendesk.paths import data_dir
from tokendesk.records import Accelerator

CATALOG_FILE = "accelerators.csv"


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
    from tokendesk.records import check_accelerator_id

    return load_catalog()[check_accelerator_id(accelerator_id)]
