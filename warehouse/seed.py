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
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

import duckdb
import pyarrow as pa
from pydantic import ValidationError

from tokendesk.catalog import check_in_catalog
from tokendesk.digests import sha256_file
from tokendesk.paths import data_dir
from tokendesk.records import BenchmarkResult, PriceQuote
from tokendesk.textsafety import InputFileError, clean_text, sniff_text_file
from warehouse.bundled import (
    BUNDLED_FILES,
    REQUIRED_FILES,
    RESULT_FILES,
    SEED_PRICES,
    SEED_RESULTS,
    changed_files,
)
from warehouse.price_rows import price_row
from warehouse.price_screen import RuleFacts, screen_checks, screen_rows
from warehouse.staging import (
    SCRATCH_MEMORY_LIMIT,
    Conflict,
    PriceStaging,
    StagedBatch,
    StagedGroup,
)

if TYPE_CHECKING:
    from warehouse.store import Warehouse

#: A seed file's ``seed_snapshot`` names the snapshot a row belongs to: "current", "historical",
#: or "historical <label>" for one of several dated historical snapshots (one per label).
HISTORICAL = "historical"


def is_historical(snapshot_name: str) -> bool:
    """Whether a seed snapshot name is one of the file's historical snapshots."""
    return snapshot_name == HISTORICAL or snapshot_name.startswith(HISTORICAL + " ")


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


class RowCheck(Protocol):
    """A price check applied one quote at a time (``pricing.integrity.RowChecks``)."""

    def check(
        self, quote: PriceQuote, on_demand_usd: float | None, previous_usd: float | None
    ) -> tuple[str | None, str | None]:
        """(quarantine reason, review flag) of one quote, None where it passes."""
        ...

    def as_tuples(self) -> list[tuple[str, int, int, str]]: ...

    def facts(self) -> RuleFacts:
        """What the rules compare a quote with (for the screen that passes rows in bulk)."""
        ...

    def count_passed(self, checked: dict[str, int]) -> None:
        """Count rows the screen passed: rule -> how many of them the rule checked."""
        ...


class PriceCheck(Protocol):
    """Checks one snapshot of a price file against ``previous`` (the file's historical snapshot of
    the same provider; empty for a historical snapshot itself).

    The same rules one quote at a time, for a file too large to hold (``rows``): the quote's
    comparisons are handed in, found through ``reference_key`` (the lowest on-demand price among
    the snapshot's quotes with the same key) and ``previous_key`` (the price of the last quote of
    ``previous`` with the same key)."""

    def __call__(
        self, quotes: Sequence[PriceQuote], previous: Sequence[PriceQuote], *, historical: bool
    ) -> PriceCheckReport: ...

    #: The stored columns ``reference_key`` and ``previous_key`` are made of, in order (compared
    #: as text, None as ""), for keys found in SQL.
    @property
    def reference_columns(self) -> tuple[str, ...]: ...

    @property
    def previous_columns(self) -> tuple[str, ...]: ...

    def reference_key(self, quote: PriceQuote) -> tuple[str, ...]: ...

    def previous_key(self, quote: PriceQuote) -> tuple[str, ...]: ...

    def rows(self, *, historical: bool, reference: Any = None) -> RowCheck:
        """``reference``: the warehouse's current prices before this file
        (``pricing.integrity.PriceReference``), which a price far outside them is held against."""
        ...


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


def _as_dict(header: list[str], cells: list[str]) -> dict[Any, Any]:
    """One row as ``csv.DictReader`` makes it: extra cells under the key None, missing ones None."""
    row: dict[Any, Any] = dict(zip(header, cells, strict=False))
    if len(cells) > len(header):
        row[None] = cells[len(header) :]
    for name in header[len(cells) :]:
        row[name] = None
    return row


def _file_batches(
    path: Path, model: type[Record], meta: set[str], notes: ReadNotes | None, batch_rows: int
) -> Iterator[list[list[str]]]:
    """The header (its names cleaned) as a batch of one, then the data rows of a seed-format CSV
    as batches of up to ``batch_rows`` lists of cells, read as it streams and as
    ``csv.DictReader`` reads them (blank lines skipped). The data rows are numbered from 2 on
    (the header is row 1). A file that cannot be read, or whose header is wrong, raises
    SeedFileError naming the file (and row); a row that cannot be read comes after the batch of
    the rows before it, so that a problem earlier in the file is the one reported."""
    if not path.exists():
        raise SeedFileError(path, 0, "-", "file not found")
    try:
        source = sniff_text_file(path, name=clean_text(path.name))
    except InputFileError as exc:
        raise SeedFileError(path, 0, "-", exc.message) from None
    if source.note and notes is not None:
        notes.lines.append(f"{clean_text(path.name)}: {source.note}")
    csv.field_size_limit(max(csv.field_size_limit(), CSV_FIELD_LIMIT))
    rows = 0
    batch: list[list[str]] = []
    with source.open() as handle:
        reader = csv.reader(handle)
        # csv.DictReader's line_num: that of the first line its last row read started from.
        line_num = 0
        try:
            first = next(reader, [])
            line_num = reader.line_num
            header = [clean_text(name or "").strip() for name in first]
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
            yield [header]
            for row in reader:
                line_num = reader.line_num
                while row == []:
                    following = next(reader, None)
                    if following is None:
                        break
                    row = following
                if row == []:
                    break
                batch.append(row)
                if len(batch) == batch_rows:
                    rows += len(batch)
                    yield batch
                    batch = []
        except csv.Error as exc:
            if batch:
                yield batch
            raise SeedFileError(
                path,
                line_num + 1,
                "-",
                f"not a readable CSV ({exc}); check quoting and cell sizes",
            ) from None
        except UnicodeDecodeError:  # the file changed since its encoding was checked
            if batch:
                yield batch
            raise SeedFileError(
                path, 0, "-", "changed while it was read; write it whole, then ingest it"
            ) from None
    if batch:
        rows += len(batch)
        yield batch
    if not rows:
        raise SeedFileError(path, 2, "-", "the file has a header but no data rows; add rows")


def _validated_rows(
    path: Path, model: type[Record], meta: set[str], notes: ReadNotes | None = None
) -> Iterator[tuple[int, dict[str, str], Record]]:
    """(row number, the row's meta columns, validated record) for each data row of a seed-format
    CSV, read as it streams (never the whole file in memory). Row numbers count the header as
    row 1. The first bad row raises SeedFileError naming the file, the row and the field."""
    batches = _file_batches(path, model, meta, notes, 1)
    [header] = next(batches)
    for row_no, [cells] in enumerate(batches, start=2):
        row = _as_dict(header, cells)
        record = _validate_row(path, model, meta, row_no, row)
        # Only the meta columns of the raw row are needed later; the rest is in the record.
        yield row_no, {name: row[name] for name in meta if name in row}, record


def _validate_row(
    path: Path, model: type[Record], meta: set[str], row_no: int, row: dict[str, str]
) -> Record:
    """One CSV row as a record, checked by the record's rules and the accelerator catalog."""
    if None in row:
        raise SeedFileError(path, row_no, "-", "row has more values than the header has columns")
    fields: dict[str, str | None] = {
        key: value
        for key, value in row.items()
        if key not in meta and (value not in ("", None) or key in UNDATED_OK)
    }
    for key in UNDATED_OK & fields.keys():
        fields[key] = fields[key] or None
    try:
        return check_in_catalog(model.model_validate(fields))
    except ValidationError as exc:
        first = exc.errors()[0]
        field_name = ".".join(str(part) for part in first["loc"]) or "-"
        message = str(first["msg"]).removeprefix("Value error, ")
        raise SeedFileError(path, row_no, field_name, clean_text(message)) from None
    except ValueError as exc:  # the catalog check: the row names an unknown accelerator
        raise SeedFileError(path, row_no, "accelerator_id", clean_text(str(exc))) from None


def _read_rows(
    path: Path, model: type[Record], meta: set[str], notes: ReadNotes | None = None
) -> list[tuple[dict[str, str], Record]]:
    """Every row of a file small enough to hold, duplicates refused (``StagedPriceFile`` does
    the same for a price file of any size, by the same keys, in a scratch database)."""
    out: list[tuple[dict[str, str], Record]] = []
    seen: dict[bytes, int] = {}
    same_item: dict[bytes, tuple[int, PriceQuote, bytes]] = {}
    for row_no, meta_values, record in _validated_rows(path, model, meta, notes):
        digest = duplicate_digest(meta_values, record)
        if digest in seen:
            raise duplicate_error(path, row_no, seen[digest])
        seen[digest] = row_no
        if isinstance(record, PriceQuote):
            item, figures = item_digest(meta_values, record), figures_digest(record)
            if item not in same_item:
                same_item[item] = (row_no, record, figures)
            elif same_item[item][2] != figures:
                earlier_row, earlier, _ = same_item[item]
                raise disagreement_error(path, row_no, record, earlier_row, earlier)
        out.append((meta_values, record))
    return out


def _digest(text: str) -> bytes:
    # A digest, not the text: a million rows' keys then take 16 MB, not 500.
    return hashlib.blake2b(text.encode(), digest_size=16).digest()


def duplicate_digest(meta_values: Mapping[str, str], record: PriceQuote | BenchmarkResult) -> bytes:
    """Equal for two rows that are duplicates: the same record (and the same seed snapshot)."""
    return _digest(_duplicate_key(meta_values, record, set(meta_values)))


def item_digest(meta_values: Mapping[str, str], quote: PriceQuote) -> bytes:
    """Equal for two rows that price the same item on the same date (in the same seed snapshot)."""
    item = (
        meta_values.get("seed_snapshot") or "current",
        quote.provider,
        quote.region,
        quote.zone,
        quote.instance_type,
        str(quote.pricing_model),
        quote.quote_id,
        _moment_key(quote.observed_at),
        quote.valid_from,
    )
    return _digest(repr(item))


#: Figures two rows for one item must agree on (else the file must say which is right).
ITEM_FIGURES = ("usd_per_hour", "accelerator_id", "accelerator_count", "price_basis")


def figures_digest(quote: PriceQuote) -> bytes:
    return _digest(repr(tuple(str(getattr(quote, name)) for name in ITEM_FIGURES)))


def _moment_key(moment: datetime | None) -> str:
    """Equal for equal moments (an aware time in UTC; a naive one is never equal to an aware)."""
    if moment is None:
        return "-"
    if moment.tzinfo is not None:
        return moment.astimezone(UTC).replace(tzinfo=None).isoformat() + "Z"
    return moment.isoformat()


def duplicate_error(path: Path, row_no: int, earlier_row: int) -> SeedFileError:
    return SeedFileError(
        path,
        row_no,
        "-",
        f"duplicates row {earlier_row} (same item and figures); remove one of them",
    )


def disagreement_error(
    path: Path, row_no: int, quote: PriceQuote, earlier_row: int, earlier: PriceQuote
) -> SeedFileError:
    """A row that prices an item an earlier row priced differently on the same date: the write
    would keep one of them without saying which, so the file must say which is right."""
    differing = [
        f"{name} {getattr(earlier, name)} vs {getattr(quote, name)}"
        for name in ITEM_FIGURES
        if getattr(earlier, name) != getattr(quote, name)
    ]
    return SeedFileError(
        path,
        row_no,
        "usd_per_hour" if differing[0].startswith("usd_per_hour") else "-",
        f"prices the same item as row {earlier_row} ({clean_text(quote.provider)}"
        f" {clean_text(quote.region)} {clean_text(quote.instance_type)}"
        f" {quote.pricing_model}, same date) differently: {'; '.join(differing)};"
        " keep the right row",
    )


def _duplicate_key(
    row: Mapping[str, str], record: PriceQuote | BenchmarkResult, meta: set[str]
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


#: Rows validated, staged and checked at a time: what a price file holds in memory at once.
BATCH_ROWS = 50_000
#: What the warehouse's DuckDB may hold while a price file is written (it spills the rest):
#: without a cap it keeps every written page and the key index of a million rows in memory.
WRITE_MEMORY_LIMIT = "160MB"


def ingest_price_file(
    warehouse: Warehouse,
    path: Path,
    *,
    check: PriceCheck,
    origin: str = "seed",
    batch_rows: int = BATCH_ROWS,
    complete: bool = True,
    reference: Any = None,
) -> list[str]:
    """Validate a seed-format price CSV whole, then write one snapshot per provider (and per
    seed snapshot: historical rows go to an older snapshot of their own), all in one transaction.

    ``reference``: the warehouse's current prices the file's current rows are judged against (a
    row far outside its SKU's price and its peers' is held: quarantined until confirmed); None
    judges none (the bundled seed, or a file the person confirmed).

    Each snapshot is stored with what ``check`` found. The bundled seed (``origin="seed"``) must
    pass it: a row the check would quarantine is refused with its row named, and nothing is
    written. Any other file keeps such rows quarantined, out of current prices.

    The bundled seed's current snapshot is its provider's whole catalog (older items it does not
    list are withdrawn) unless ``complete`` is False, as for the market file, which prices a part
    of each provider's catalog beside the curated seed; any other file speaks only for the items
    it lists.

    Memory does not grow with the file: rows are read, validated and checked ``batch_rows`` at a
    time and wait in a scratch database (``warehouse.staging``) until they are written."""
    read_notes = ReadNotes()
    with PriceStaging(
        reference_columns=check.reference_columns, previous_columns=check.previous_columns
    ) as staging:
        try:
            _stage(staging, path, read_notes, batch_rows)
            # Historical first so that, if dates tie, the current snapshot is the newer write.
            groups = sorted(
                staging.groups(),
                key=lambda g: (
                    not is_historical(g.snapshot_name),
                    # Dated historical snapshots in date order; the current ones by provider.
                    str(g.newest or "") if is_historical(g.snapshot_name) else "",
                    g.provider,
                ),
            )
            checked = [
                (
                    group,
                    _check_group(staging, path, group, check, origin, batch_rows, reference),
                )
                for group in groups
            ]
        except duckdb.OutOfMemoryException:
            raise SeedFileError(
                path,
                0,
                "-",
                f"could not be checked within the {SCRATCH_MEMORY_LIMIT} of memory set aside"
                " for a price file; split it into smaller files",
            ) from None
        try:
            return _write(
                warehouse, staging, path, checked, origin, batch_rows, read_notes, complete
            )
        except duckdb.OutOfMemoryException:
            raise SeedFileError(
                path,
                0,
                "-",
                f"could not be written within the {WRITE_MEMORY_LIMIT} of memory set aside"
                " for writing a price file; split it into smaller files",
            ) from None


def _write(
    warehouse: Warehouse,
    staging: PriceStaging,
    path: Path,
    checked: list[tuple[StagedGroup, list[tuple[str, int, int, str]]]],
    origin: str,
    batch_rows: int,
    read_notes: ReadNotes,
    complete: bool = True,
) -> list[str]:
    """Write each checked group as one snapshot, a batch at a time, in one transaction."""
    # Snapshot dates only order snapshots. An undated historical group sorts before
    # everything dated in the file, so it can never outrank the current one; the rows keep
    # no date. A file that states no date at all (a catalog read by its commit) sorts with the
    # oldest snapshot already stored, never at an invented early date a review would start from.
    oldest = staging.oldest() or warehouse.oldest_snapshot_as_of() or datetime(1970, 1, 1)
    ids: list[str] = []
    with warehouse.atomic(), warehouse.memory_capped(WRITE_MEMORY_LIMIT):
        for group, integrity in checked:
            historical = is_historical(group.snapshot_name)
            now = datetime.now(UTC)
            ids.append(
                warehouse.ingest_price_frames(
                    group.provider,
                    staging.frames(group, batch_rows),
                    row_count=group.rows,
                    regions=group.regions,
                    origin=origin,
                    as_of=group.newest or (oldest if historical else now),
                    notes="; ".join(
                        filter(
                            None,
                            [
                                f"{group.snapshot_name} seed snapshot from {clean_text(path.name)}",
                                read_notes.text(),
                            ],
                        )
                    ),
                    integrity=integrity,
                    complete=complete and origin == "seed" and not historical,
                    now=now,
                )
            )
    return ids


def _stage(staging: PriceStaging, path: Path, notes: ReadNotes, batch_rows: int) -> None:
    """Read, validate and stage the file a batch at a time; the first bad row raises, be it a
    row the record refuses or one that repeats or contradicts an earlier row. A batch is held
    as its cells, then as its stored values (columns of plain values), never as records."""
    batches = _file_batches(path, PriceQuote, PRICE_META, notes, batch_rows)
    [header] = next(batches)
    first = 2
    for batch in batches:
        _stage_batch(staging, path, header, first, batch)
        first += len(batch)


#: The scratch table a batch's screened rows wait in before they are staged.
_SCREENED = "screened_batch"
#: The scratch table of a group's rows the integrity screen could not vouch for.
_UNSURE = "unsure_rows"


def _stage_batch(
    staging: PriceStaging, path: Path, header: list[str], first: int, batch: list[list[str]]
) -> None:
    """Stage one batch of rows (cells as read). The cells are screened column by column in SQL
    (``warehouse.price_screen``); only the rows the screen cannot vouch for are read by the
    record, one at a time and in file order, so a bad row is refused in the record's words. The
    first bad row stops the batch: the rows before it are staged, a repeat or contradiction among
    them is reported first (it comes earlier in the file), else the bad row is."""
    width = len(header)
    numbered = list(enumerate(batch, start=first))
    regular = [(row_no, cells) for row_no, cells in numbered if len(cells) == width]
    # A name given twice keeps its last column, as a row read into a dict does.
    position = {name: index for index, name in enumerate(header)}
    cells_by_column = list(zip(*(cells for _, cells in regular), strict=True)) if regular else []
    raw = pa.table(
        {
            "row_no": pa.array([row_no for row_no, _ in regular], pa.int64()),
            **{
                name: pa.array(cells_by_column[index] if regular else [], pa.string())
                for name, index in position.items()
            },
        }
    )
    flagged = set(screen_rows(staging.connection, raw, into=_SCREENED))
    flagged.update(row_no for row_no, cells in numbered if len(cells) != width)
    checked = StagedBatch()
    bad: SeedFileError | None = None
    for row_no, cells in numbered:
        if row_no not in flagged:
            continue
        row = _as_dict(header, cells)
        try:
            quote = _validate_row(path, PriceQuote, PRICE_META, row_no, row)
        except SeedFileError as exc:
            bad = exc
            break
        offset = quote.observed_at.utcoffset() if quote.observed_at is not None else None
        seed_raw = row.get("seed_snapshot")
        checked.add(
            row_no,
            seed_raw or "current",
            seed_raw,
            price_row(quote),
            None if offset is None else int(offset.total_seconds()),
        )
    con = staging.connection
    if len(checked):
        con.register("checked_rows", checked.table())
        try:
            con.execute(f"INSERT INTO {_SCREENED} BY NAME SELECT * FROM checked_rows")  # noqa: S608
        finally:
            con.unregister("checked_rows")
    if bad is not None:
        con.execute(f"DELETE FROM {_SCREENED} WHERE row_no >= ?", [bad.row])  # noqa: S608
    _raise_conflict(path, staging, staging.append_from(_SCREENED, first))
    con.execute(f"DROP TABLE {_SCREENED}")
    if bad is not None:
        raise bad


def _raise_conflict(path: Path, staging: PriceStaging, conflict: Conflict | None) -> None:
    if conflict is None:
        return
    if conflict.duplicate:
        raise duplicate_error(path, conflict.row_no, conflict.earlier_row)
    raise disagreement_error(
        path,
        conflict.row_no,
        staging.stored(conflict.row_no),
        conflict.earlier_row,
        staging.stored(conflict.earlier_row),
    )


def _check_group(
    staging: PriceStaging,
    path: Path,
    group: StagedGroup,
    check: PriceCheck,
    origin: str,
    batch_rows: int,
    reference: Any = None,
) -> list[tuple[str, int, int, str]]:
    """Run the price check over one group a batch at a time, recording each row's flags; a
    current group is compared with the file's historical snapshot of the same provider and with
    ``reference`` (the warehouse's current prices)."""
    historical = is_historical(group.snapshot_name)
    rows = check.rows(historical=historical, reference=reference)
    previous = None if historical else HISTORICAL
    # The rows a screen in SQL proves pass every rule are only counted; the rules see the rest.
    relation, params = staging.references(group, previous_snapshot=previous)
    rows.count_passed(
        screen_checks(staging.connection, relation, params, rows.facts(), into=_UNSURE)
    )
    flags: list[tuple[int, str | None, str | None]] = []
    for row_no, quote, on_demand_usd, previous_usd in staging.with_references(
        group, previous_snapshot=previous, batch_rows=batch_rows, only=_UNSURE
    ):
        quarantine, review = rows.check(quote, on_demand_usd, previous_usd)
        if quarantine and origin == "seed":
            raise SeedFileError(
                path,
                row_no,
                "-",
                f"fails the price integrity check ({clean_text(quarantine)}); the bundled"
                " seed must pass it, so fix the row or its anchor",
            )
        if quarantine or review:
            flags.append((row_no, quarantine, review))
            if len(flags) == batch_rows:
                staging.flag(flags)
                flags = []
    staging.flag(flags)
    return rows.as_tuples()


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
    empty warehouse empty. Each snapshot records the SHA-256 of the file it came from
    (:func:`bundled_changes` compares it with ``data/`` as it is now)."""
    folder = folder or data_dir()
    # Validate the curated files before writing either, so a bad seed leaves an empty warehouse
    # empty. The market files are validated whole as they are staged; a bad one rolls the one
    # transaction back all the same.
    read_price_file(folder / SEED_PRICES)
    read_result_file(folder / SEED_RESULTS)
    with warehouse.atomic():
        for name in BUNDLED_FILES:
            path = folder / name
            if name not in REQUIRED_FILES and not path.exists():
                continue  # a checkout may carry the curated seed alone
            digest = sha256_file(path)
            if name in RESULT_FILES:
                snapshot_ids = [ingest_result_file(warehouse, path)]
            else:
                # The market file prices a part of each cloud's catalog (the pinned families and
                # regions) and the history one provider's dated list prices for some SKUs:
                # neither withdraws the curated seed's other quotes of that cloud.
                complete = name == SEED_PRICES
                snapshot_ids = ingest_price_file(warehouse, path, check=check, complete=complete)
            warehouse.record_bundled_file(name, digest, snapshot_ids)


def bundled_changes(warehouse: Warehouse, folder: Path | None = None) -> list[str] | None:
    """The bundled files in ``folder`` (default: ``data/``) the warehouse holds another copy of
    (or none), in load order; None where it records none (:func:`warehouse.bundled.changed_files`)."""
    return changed_files(warehouse.bundled_file_digests(), folder or data_dir())
