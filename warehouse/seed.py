"""Build the warehouse from the bundled ``data/`` folder: no network, no credentials.

Seed files are validated whole before anything is written, so a malformed file leaves the
warehouse exactly as it was and the error names the file, the row and the field.

The warehouse stores prices; it does not judge them. Whoever builds it passes the price integrity
check in (``pricing.integrity.check_price_file``, wired by the ``tokendesk`` commands and the
dashboard), and a bundled seed whose prices fail that check is refused.
"""

from __future__ import annotations

import csv
import hashlib
import io
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, TypeVar

from pydantic import ValidationError

from tokendesk.catalog import check_in_catalog
from tokendesk.paths import data_dir
from tokendesk.records import BenchmarkResult, PriceQuote
from tokendesk.textsafety import InputFileError, clean_text, decode_text, read_limited

if TYPE_CHECKING:
    from warehouse.store import Warehouse

SEED_PRICES = "seed_prices.csv"
SEED_RESULTS = "seed_results.csv"

#: Columns of a seed file that are curation metadata, not record fields.
PRICE_META = {"seed_snapshot"}
RESULT_META = {"source_rows"}
#: Date columns an empty cell leaves as None: the source states no date ("date unknown").
UNDATED_OK = {"observed_at", "measured_at"}

Record = TypeVar("Record", PriceQuote, BenchmarkResult)

#: Cells are read whole up to this size so that an over-long one is refused by the record's
#: length limit, with its field named, rather than by the csv module's 128 KiB guard.
CSV_FIELD_LIMIT = 16 * 1024 * 1024


class PriceCheckReport(Protocol):
    """What a price check says about a snapshot (``pricing.integrity.IntegrityReport``)."""

    @property
    def quarantine(self) -> Mapping[int, str]:
        """Index into the checked quotes -> why the row is kept out of current prices."""
        ...

    @property
    def review_flags(self) -> Mapping[int, str]:
        """Index -> why the row stays current but needs a look."""
        ...

    def as_tuples(self) -> list[tuple[str, int, int, str]]:
        """(rule, rows checked, rows failed, detail) per rule, stored with the snapshot."""
        ...


class PriceCheck(Protocol):
    """Checks one snapshot of a price file against ``previous`` (the file's historical snapshot of
    the same provider; empty for a historical snapshot itself)."""

    def __call__(
        self, quotes: Sequence[PriceQuote], previous: Sequence[PriceQuote], *, historical: bool
    ) -> PriceCheckReport: ...


class SeedFileError(ValueError):
    """A row of a data file failed validation."""

    def __init__(self, path: Path, row: int, field: str, message: str) -> None:
        self.path, self.row, self.field, self.message = path, row, field, message
        where = f"row {row}: " if row else ""
        column = f"field {clean_text(field)!r}: " if field and field != "-" else ""
        super().__init__(f"{clean_text(str(path))}: {where}{column}{message}")


@dataclass
class ReadNotes:
    """What a reader had to decide about a file that it did not reject (shown with the snapshot)."""

    lines: list[str] = field(default_factory=list)

    def text(self) -> str:
        return "; ".join(self.lines)


def _decoded_lines(path: Path) -> tuple[str, str]:
    try:
        decoded = decode_text(read_limited(path), clean_text(path.name))
    except InputFileError as exc:
        raise SeedFileError(path, 0, "-", exc.message) from None
    return decoded.text, decoded.note


def _read_rows(
    path: Path, model: type[Record], meta: set[str], notes: ReadNotes | None = None
) -> list[tuple[dict[str, str], Record]]:
    if not path.exists():
        raise SeedFileError(path, 0, "-", "file not found")
    text, encoding_note = _decoded_lines(path)
    if encoding_note and notes is not None:
        notes.lines.append(f"{clean_text(path.name)}: {encoding_note}")
    out: list[tuple[dict[str, str], Record]] = []
    seen: dict[bytes, int] = {}
    same_item: dict[tuple, tuple[int, PriceQuote]] = {}
    reader = csv.DictReader(io.StringIO(text, newline=""))
    csv.field_size_limit(max(csv.field_size_limit(), CSV_FIELD_LIMIT))
    try:
        header = [clean_text(name or "").strip() for name in (reader.fieldnames or ())]
        reader.fieldnames = header
        if not header or header == [""]:
            raise SeedFileError(path, 1, "-", "the file is empty; expected a header row")
        unknown = sorted(set(header) - set(model.model_fields) - meta)
        if unknown:
            shown = [name if len(name) <= 40 else name[:40] + "…" for name in unknown[:5]]
            raise SeedFileError(
                path,
                1,
                shown[0],
                f"unknown column(s) {', '.join(shown)}; the columns are those of"
                f" data/{SEED_PRICES if model is PriceQuote else SEED_RESULTS}",
            )
        for row_no, row in enumerate(reader, start=2):
            if None in row:
                raise SeedFileError(
                    path, row_no, "-", "row has more values than the header has columns"
                )
            fields = {
                key: value
                for key, value in row.items()
                if key not in meta and (value not in ("", None) or key in UNDATED_OK)
            }
            for key in UNDATED_OK & fields.keys():
                fields[key] = fields[key] or None
            try:
                record = check_in_catalog(model.model_validate(fields))
            except ValidationError as exc:
                first = exc.errors()[0]
                field_name = ".".join(str(part) for part in first["loc"]) or "-"
                message = str(first["msg"]).removeprefix("Value error, ")
                raise SeedFileError(path, row_no, field_name, clean_text(message)) from None
            except ValueError as exc:  # the catalog check: the row names an unknown accelerator
                raise SeedFileError(path, row_no, "accelerator_id", clean_text(str(exc))) from None
            # A digest, not the record's JSON: a million rows' keys then take 16 MB, not 500.
            identity = _duplicate_key(row, record, meta).encode()
            digest = hashlib.blake2b(identity, digest_size=16).digest()
            if digest in seen:
                raise SeedFileError(
                    path,
                    row_no,
                    "-",
                    f"duplicates row {seen[digest]} (same item and figures); remove one of them",
                )
            seen[digest] = row_no
            if isinstance(record, PriceQuote):
                _refuse_disagreeing_price(path, row, record, row_no, same_item)
            # Only the meta columns of the raw row are needed later; the rest is in the record.
            out.append(({name: row[name] for name in meta if name in row}, record))
    except csv.Error as exc:
        raise SeedFileError(
            path,
            reader.line_num + 1,
            "-",
            f"not a readable CSV ({exc}); check quoting and cell sizes",
        ) from None
    if not out:
        raise SeedFileError(path, 2, "-", "the file has a header but no data rows; add rows")
    return out


def _refuse_disagreeing_price(
    path: Path,
    row: dict[str, str],
    quote: PriceQuote,
    row_no: int,
    same_item: dict[tuple, tuple[int, PriceQuote]],
) -> None:
    """Refuse a row that prices an item an earlier row priced differently on the same date: the
    write would keep one of them without saying which, so the file must say which is right."""
    item = (
        row.get("seed_snapshot") or "current",
        quote.provider,
        quote.region,
        quote.zone,
        quote.instance_type,
        quote.pricing_model,
        quote.quote_id,
        quote.observed_at,
        quote.valid_from,
    )
    if item not in same_item:
        same_item[item] = (row_no, quote)
        return
    earlier_row, earlier = same_item[item]
    differing = [
        f"{name} {getattr(earlier, name)} vs {getattr(quote, name)}"
        for name in ("usd_per_hour", "accelerator_id", "accelerator_count", "price_basis")
        if getattr(earlier, name) != getattr(quote, name)
    ]
    if differing:
        raise SeedFileError(
            path,
            row_no,
            "usd_per_hour" if differing[0].startswith("usd_per_hour") else "-",
            f"prices the same item as row {earlier_row} ({clean_text(quote.provider)}"
            f" {clean_text(quote.region)} {clean_text(quote.instance_type)}"
            f" {quote.pricing_model}, same date) differently: {'; '.join(differing)};"
            " keep the right row",
        )


def _duplicate_key(
    row: dict[str, str], record: PriceQuote | BenchmarkResult, meta: set[str]
) -> str:
    """Two rows are duplicates if they carry the same record (and the same seed snapshot)."""
    extra = "|".join(str(row.get(name) or "") for name in sorted(meta) if name == "seed_snapshot")
    return extra + "|" + record.model_dump_json(exclude={"notes", "confidence", "source_title"})


def read_price_file(path: Path, notes: ReadNotes | None = None) -> list[tuple[str, PriceQuote]]:
    """(seed snapshot name, quote) for each row of a seed-format price CSV."""
    return [
        (row.get("seed_snapshot") or "current", quote)
        for row, quote in _read_rows(path, PriceQuote, PRICE_META, notes)
    ]


def read_result_file(path: Path, notes: ReadNotes | None = None) -> list[BenchmarkResult]:
    return [result for _, result in _read_rows(path, BenchmarkResult, RESULT_META, notes)]


def ingest_price_file(
    warehouse: Warehouse, path: Path, *, check: PriceCheck, origin: str = "seed"
) -> list[str]:
    """Validate a seed-format price CSV whole, then write one snapshot per provider (and per
    seed snapshot: historical rows go to an older snapshot of their own), all in one transaction.

    Each snapshot is stored with what ``check`` found. The bundled seed (``origin="seed"``) must
    pass it: a row the check would quarantine is refused with its row named, and nothing is
    written. Any other file keeps such rows quarantined, out of current prices.

    The bundled seed's current snapshot is its provider's whole catalog (older items it does not
    list are withdrawn); any other file speaks only for the items it lists."""
    groups: dict[tuple[str, str], list[tuple[int, PriceQuote]]] = defaultdict(list)
    read_notes = ReadNotes()
    # Row numbers as SeedFileError counts them: the header is row 1.
    for row_no, (snapshot_name, quote) in enumerate(read_price_file(path, read_notes), start=2):
        groups[(snapshot_name, quote.provider)].append((row_no, quote))
    # Historical first so that, if dates tie, the current snapshot is the newer write.
    ordered = sorted(groups.items(), key=lambda item: (item[0][0] != "historical", item[0][1]))

    # Snapshot dates only order snapshots. An undated historical group sorts before everything
    # dated in the file, so it can never outrank the current one; the rows keep no date.
    known = [q.observed_at for group in groups.values() for _, q in group if q.observed_at]
    oldest = min(known) if known else datetime(1970, 1, 1)
    ids: list[str] = []
    with warehouse.atomic():
        for (snapshot_name, provider), numbered in ordered:
            historical = snapshot_name == "historical"
            quotes = [quote for _, quote in numbered]
            previous = () if historical else groups.get(("historical", provider), ())
            report = check(quotes, [quote for _, quote in previous], historical=historical)
            if origin == "seed" and report.quarantine:
                index, reason = min(report.quarantine.items())
                raise SeedFileError(
                    path,
                    numbered[index][0],
                    "-",
                    f"fails the price integrity check ({clean_text(reason)}); the bundled seed"
                    " must pass it, so fix the row or its anchor",
                )
            dated = [q.observed_at for q in quotes if q.observed_at]
            ids.append(
                warehouse.ingest_prices(
                    provider,
                    quotes,
                    origin=origin,
                    as_of=max(dated) if dated else (oldest if historical else None),
                    notes="; ".join(
                        filter(
                            None,
                            [
                                f"{snapshot_name} seed snapshot from {clean_text(path.name)}",
                                read_notes.text(),
                            ],
                        )
                    ),
                    quarantine=report.quarantine,
                    review_flags=report.review_flags,
                    integrity=report.as_tuples(),
                    complete=origin == "seed" and not historical,
                )
            )
    return ids


#: The result gate a caller passes in (``benchmarks.plausibility.gate`` through the commands; the
#: warehouse itself must not import the benchmarks room): (file name, results, row label) ->
#: one (where, reason) per refused row.
ResultCheck = Callable[
    [str, Sequence[BenchmarkResult], Callable[[int], str]], list[tuple[str, str]]
]


def ingest_result_file(
    warehouse: Warehouse,
    path: Path,
    *,
    origin: str = "seed",
    check: ResultCheck | None = None,
) -> str:
    """Validate a seed-format result CSV whole and write it as one snapshot. With ``check`` (the
    result gate every other way in passes: physical bounds, no two rows for one operating point
    with different figures) a refused row refuses the file, naming the row."""
    read_notes = ReadNotes()
    results = read_result_file(path, read_notes)
    refused = check(path.name, results, lambda index: f"row {index + 2}") if check else []
    if refused:
        where, reason = refused[0]
        more = f" ({len(refused) - 1} more row(s) refused too)" if len(refused) > 1 else ""
        raise SeedFileError(path, 0, "-", f"{where}: {reason}{more}")
    return warehouse.ingest_results(
        f"seed:{path.stem}",
        results,
        origin=origin,
        as_of=max((r.measured_at for r in results if r.measured_at), default=None),
        notes="; ".join(
            filter(None, [f"published results from {clean_text(path.name)}", read_notes.text()])
        ),
    )


def load_seed(warehouse: Warehouse, check: PriceCheck, folder: Path | None = None) -> None:
    """Build the warehouse's first snapshots from the seed files in ``folder`` (default: the
    bundled ``data/``), prices checked by ``check``; one transaction, so a refused seed leaves an
    empty warehouse empty."""
    folder = folder or data_dir()
    # Validate both files before writing either, so a bad seed leaves an empty warehouse empty.
    read_price_file(folder / SEED_PRICES)
    read_result_file(folder / SEED_RESULTS)
    with warehouse.atomic():
        ingest_price_file(warehouse, folder / SEED_PRICES, check=check)
        ingest_result_file(warehouse, folder / SEED_RESULTS)
