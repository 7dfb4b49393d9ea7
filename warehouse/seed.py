"""Build the warehouse from the bundled ``data/`` folder: no network, no credentials.

Seed files are validated whole before anything is written, so a malformed file leaves the
warehouse exactly as it was and the error names the file, the row and the field.
"""

from __future__ import annotations

import csv
from collections import defaultdict
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from pydantic import ValidationError

from pricing.integrity import check_snapshot
from tokendesk.catalog import check_in_catalog
from tokendesk.paths import data_dir
from tokendesk.records import BenchmarkResult, PriceQuote

if TYPE_CHECKING:
    from warehouse.store import Warehouse

SEED_PRICES = "seed_prices.csv"
SEED_RESULTS = "seed_results.csv"

#: Columns of a seed file that are curation metadata, not record fields.
PRICE_META = {"seed_snapshot", "source_date_text"}
RESULT_META = {"source_date_text", "source_rows"}

Record = TypeVar("Record", PriceQuote, BenchmarkResult)


class SeedFileError(ValueError):
    """A row of a data file failed validation."""

    def __init__(self, path: Path, row: int, field: str, message: str) -> None:
        self.path, self.row, self.field, self.message = path, row, field, message
        super().__init__(f"{path}: row {row}: field {field!r}: {message}")


def _read_rows(
    path: Path, model: type[Record], meta: set[str]
) -> list[tuple[dict[str, str], Record]]:
    if not path.exists():
        raise SeedFileError(path, 0, "-", "file not found")
    out: list[tuple[dict[str, str], Record]] = []
    with path.open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        unknown = set(reader.fieldnames or ()) - set(model.model_fields) - meta
        if unknown:
            raise SeedFileError(path, 1, sorted(unknown)[0], f"unknown column(s) {sorted(unknown)}")
        for row_no, row in enumerate(reader, start=2):
            if None in row:
                raise SeedFileError(
                    path, row_no, "-", "row has more values than the header has columns"
                )
            fields = {
                key: value
                for key, value in row.items()
                if key not in meta and value not in ("", None)
            }
            try:
                record = check_in_catalog(model.model_validate(fields))
            except ValidationError as exc:
                first = exc.errors()[0]
                field = ".".join(str(part) for part in first["loc"]) or "-"
                raise SeedFileError(path, row_no, field, first["msg"]) from None
            except ValueError as exc:  # the catalog check: the row names an unknown accelerator
                raise SeedFileError(path, row_no, "accelerator_id", str(exc)) from None
            out.append((row, record))
    return out


def read_price_file(path: Path) -> list[tuple[str, PriceQuote]]:
    """(seed snapshot name, quote) for each row of a seed-format price CSV."""
    return [
        (row.get("seed_snapshot") or "current", quote)
        for row, quote in _read_rows(path, PriceQuote, PRICE_META)
    ]


def read_result_file(path: Path) -> list[BenchmarkResult]:
    return [result for _, result in _read_rows(path, BenchmarkResult, RESULT_META)]


def ingest_price_file(warehouse: Warehouse, path: Path, *, origin: str = "seed") -> list[str]:
    """Validate a seed-format price CSV whole, then write one snapshot per provider (and per
    seed snapshot: historical rows go to an older snapshot of their own)."""
    groups: dict[tuple[str, str], list[PriceQuote]] = defaultdict(list)
    for snapshot_name, quote in read_price_file(path):
        groups[(snapshot_name, quote.provider)].append(quote)
    # Historical first so that, if dates tie, the current snapshot is the newer write.
    ordered = sorted(groups.items(), key=lambda item: (item[0][0] != "historical", item[0][1]))

    ids = []
    for (snapshot_name, provider), quotes in ordered:
        historical = snapshot_name == "historical"
        # Today's anchors describe today's prices, so they do not judge a historical snapshot;
        # a current snapshot is compared with the historical one for the >50% move rule.
        report = check_snapshot(
            quotes,
            () if historical else groups.get(("historical", provider), ()),
            anchors=() if historical else None,
        )
        ids.append(
            warehouse.ingest_prices(
                provider,
                quotes,
                origin=origin,
                as_of=max(q.observed_at for q in quotes),
                notes=f"{snapshot_name} seed snapshot from {path.name}",
                quarantine=report.quarantine,
                review_flags=report.review_flags,
                integrity=report.as_tuples(),
            )
        )
    return ids


def ingest_result_file(warehouse: Warehouse, path: Path, *, origin: str = "seed") -> str:
    results = read_result_file(path)
    return warehouse.ingest_results(
        f"seed:{path.stem}",
        results,
        origin=origin,
        as_of=max((r.measured_at for r in results), default=datetime.now()),
        notes=f"published results from {path.name}",
    )


def load_seed(warehouse: Warehouse, folder: Path | None = None) -> None:
    folder = folder or data_dir()
    # Validate both files before writing either, so a bad seed leaves an empty warehouse empty.
    read_price_file(folder / SEED_PRICES)
    read_result_file(folder / SEED_RESULTS)
    ingest_price_file(warehouse, folder / SEED_PRICES)
    ingest_result_file(warehouse, folder / SEED_RESULTS)
