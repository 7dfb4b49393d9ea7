"""``tokendesk db init | rebuild | info | ingest | migrate``: create, rebuild, inspect and move
the warehouse (an embedded DuckDB file, or DuckLake in team mode)."""

from __future__ import annotations

import shutil
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from cli.exits import fail
from cli.shared_options import DbOption, FormatOption, OutputFormat
from tokendesk import formatting
from tokendesk.paths import default_db_path
from tokendesk.terminal import Grid, make_console, print_table
from tokendesk.textsafety import (
    InputFileError,
    clean_text,
    sniff_text_file,
    terminal_text,
)

if TYPE_CHECKING:
    from warehouse import Warehouse

# The warehouse, pandas and the price checks are imported inside each command: `tokendesk db
# --help` does not load them.

db_app = typer.Typer(
    help="Create, rebuild, inspect and move the warehouse (an embedded DuckDB file, or DuckLake "
    "in team mode).",
    no_args_is_help=True,
)
console = make_console()
err = make_console(stderr=True)


def _build_or_refuse(target: Path) -> tuple[dict[str, int], list[str] | None]:
    """Open the warehouse (building it on first use from data/, its prices checked by the price
    integrity rules), count its rows and name the bundled files data/ now holds another copy of
    (None: the warehouse records none). A seed row that fails validation or the integrity check
    is refused: the message names the file and the row, exit 1, and no seed data is written."""
    from pricing.integrity import check_price_file
    from warehouse import Warehouse
    from warehouse.seed import SeedFileError, bundled_changes

    try:
        with Warehouse.open(target, seed_check=check_price_file) as warehouse:
            return warehouse.table_counts(), bundled_changes(warehouse)
    except SeedFileError as exc:
        raise fail(
            f"{exc}\nnothing from the seed was written; fix the row, then run"
            " `tokendesk db rebuild`",
            1,
            label="refused",
        ) from None


_REBUILD_HINT = (
    "`tokendesk db rebuild` builds it afresh from data/ as it is now and keeps this file beside"
    " it as a dated backup, with what you imported and stored in it."
)


def _bundled_note(changes: list[str] | None) -> str | None:
    """What an existing warehouse's copy of the bundled data is, where it is not data/'s own."""
    if changes is None:
        return (
            "It was built by an earlier tokendesk, which did not record which copy of data/ it"
            f" was built from: its bundled prices and results may be older than data/'s. {_REBUILD_HINT}"
        )
    if changes:
        return (
            f"It was built from another copy of data/ ({', '.join(changes)}"
            f" {'differs from the file' if len(changes) == 1 else 'differ from the files'} there"
            f" now): its figures are that copy's. {_REBUILD_HINT}"
        )
    return None


SolveAheadOption = Annotated[
    bool,
    typer.Option(
        "--solve-ahead/--no-solve-ahead",
        help="After building, solve the stored workspace's plans and keep the optimizer's answer"
        " for the dashboard's first page and `tokendesk scenarios` (a few seconds).",
    ),
]


@db_app.command("init")
def db_init(db: DbOption = None, solve_ahead: SolveAheadOption = True) -> None:
    """Create the warehouse from the bundled data/ (no network, no credentials)."""
    from warehouse.lake import describe, is_lake_target

    target = db or default_db_path()
    lake = is_lake_target(str(target))
    existed = not lake and Path(target).exists()
    counts, changes = _build_or_refuse(target)
    where = describe(str(target)) if lake else target  # a catalog named without credentials
    note = _bundled_note(changes) if existed else None
    verb = "ready" if lake else "found" if note else "up to date" if existed else "built"
    console.print(
        f"Warehouse {verb} at {where}: {counts['price_quotes']:,} price quotes, "
        f"{counts['benchmark_results']:,} benchmark results, {counts['snapshots']:,} snapshots."
    )
    if note:
        console.print(note)
    if solve_ahead and verb == "built":
        _solve_ahead(target)


def _solve_ahead(target: Path | str) -> None:
    """The new warehouse's stored workspace evaluated once, its optimizer's answer kept
    (``planning.evaluation.solve_ahead``). A workspace that cannot be planned is the plans'
    own error to report when they are asked for: the build it follows stands."""
    from planning.evaluation import solve_ahead
    from pricing.integrity import check_price_file
    from warehouse import Warehouse

    try:
        with Warehouse.open(target, read_only=True, seed_check=check_price_file) as warehouse:
            seconds = solve_ahead(warehouse)
    except ValueError as exc:  # a WorkspaceError among them
        console.print(f"The stored workspace's plans were not solved ahead: {exc}")
        return
    if seconds is not None:
        console.print(
            f"The stored workspace's plans solved ahead in {seconds:.1f} s; the optimizer's"
            " answer is kept for the dashboard's first page."
        )


@db_app.command("rebuild")
def db_rebuild(db: DbOption = None) -> None:
    """Build a fresh warehouse from data/. The old file is kept beside it as a dated backup."""
    from warehouse.lake import is_lake_target

    if is_lake_target(str(db or default_db_path())):
        raise fail(
            "a team-mode warehouse is shared and append-only: it is never "
            "rebuilt. Build a new one in an empty catalog database with `tokendesk db init`."
        )
    target = Path(db or default_db_path())
    if target.exists():
        backup = target.with_name(
            f"{target.stem}.{datetime.now(UTC):%Y%m%dT%H%M%S}.bak{target.suffix}"
        )
        shutil.move(target, backup)
        wal = target.with_name(target.name + ".wal")
        if wal.exists():
            shutil.move(wal, backup.with_name(backup.name + ".wal"))
        console.print(f"Previous warehouse kept at {backup}")
    db_init(target)


@db_app.command("info")
def db_info(db: DbOption = None, output: FormatOption = OutputFormat.TABLE) -> None:
    """List snapshots with their dates, status and row counts."""
    from pricing.integrity import check_price_file
    from warehouse import Warehouse

    with Warehouse.open(db, read_only=True, seed_check=check_price_file) as warehouse:
        snapshots = warehouse.snapshots()
        retracted = warehouse.retractions().set_index("snapshot_id")
        version = warehouse.schema_version()
        path = warehouse.path
    if output is not OutputFormat.TABLE:
        frame = _snapshot_frame(snapshots, retracted)
        if output is OutputFormat.CSV:
            from tokendesk.exports import safe_csv

            sys.stdout.write(safe_csv(frame).decode("utf-8"))
        else:
            sys.stdout.write(frame.to_json(orient="records", date_format="iso", indent=1) + "\n")
        return
    console.print(f"Warehouse {path} (schema version {version})")
    table = Grid(title=f"{len(snapshots)} snapshots")
    table.add_column("Snapshot", priority=0)
    table.add_column("Kind", priority=2)
    table.add_column("Source", priority=1)
    table.add_column("Origin", priority=4)
    table.add_column("Data as of", priority=0)
    table.add_column("Written", priority=3)
    table.add_column("By", priority=4)
    table.add_column("Status", priority=1)
    table.add_column("Rows", priority=2, justify="right")
    table.add_column("Error / notes", priority=5, prose=True)
    for row in snapshots.itertuples():
        table.add_row(
            row.snapshot_id,
            row.kind,
            row.source,
            row.origin,
            # Undated rows: the snapshot's as_of is only its write time, not the data's date.
            formatting.day(row.as_of) if row.date_known else formatting.DATE_UNKNOWN,
            f"{row.created_at:%Y-%m-%d %H:%M}",
            terminal_text(row.created_by) or "not recorded",
            row.status + (" (retracted)" if row.snapshot_id in retracted.index else ""),
            f"{row.row_count:,}",
            _retraction(retracted, row.snapshot_id) or row.error or row.notes,
        )
    print_table(console, table)


def _snapshot_frame(snapshots, retracted):
    """The snapshots as ``db info --format json|csv`` prints them: ``data_as_of`` is the date of
    the data (null where its source states none: ``as_of`` is then only the write time)."""
    frame = snapshots.assign(
        data_as_of=snapshots["as_of"].dt.strftime("%Y-%m-%d").where(snapshots["date_known"]),
        written_at=snapshots["created_at"],
        retracted=snapshots["snapshot_id"].isin(retracted.index),
        retraction=[_retraction(retracted, sid) for sid in snapshots["snapshot_id"]],
    )
    columns = ["snapshot_id", "kind", "source", "origin", "data_as_of", "written_at"]
    columns += ["created_by", "status", "row_count", "retracted", "retraction", "error", "notes"]
    return frame[[name for name in columns if name in frame.columns]]


def _retraction(retracted, snapshot_id: str) -> str:
    """ "retracted 2026-12-01 14:05 UTC by ana: a test run" for a retracted snapshot, else ""."""
    if snapshot_id not in retracted.index:
        return ""
    marker = retracted.loc[snapshot_id]
    return (
        f"retracted {marker['retracted_at']:%Y-%m-%d %H:%M} UTC by "
        f"{terminal_text(marker['retracted_by'])}: {terminal_text(marker['reason'])}"
    )


def result_gate(name: str, results, where) -> list[tuple[str, str]]:
    """The gate every result passes (``benchmarks.plausibility.gate``), for ``db ingest``: one
    (row, reason) per refused row. The bench-import advice (--accept-implausible, --accelerator)
    is left off: ``db ingest`` has no such options."""
    from benchmarks.plausibility import gate

    _, _, rejected = gate(name, results, where=where)
    return [(r.key, r.reason.split("; if the file is right")[0]) for r in rejected]


def _ingest_kind(path: Path) -> str:
    """ "prices" or "results", from the header row of a seed-format CSV (any encoding)."""
    from warehouse.seed import SeedFileError

    try:
        # Only the header is read: the encoding is checked in chunks, never the whole file held.
        with sniff_text_file(path, name=clean_text(path.name)).open() as handle:
            header = handle.readline()
    except InputFileError as exc:
        raise SeedFileError(path, 0, "-", exc.message) from None
    if "usd_per_hour" in header:
        return "prices"
    if "output_tok_s" in header:
        return "results"
    raise SeedFileError(
        path,
        1,
        "-",
        "neither a price file (a usd_per_hour column) nor a result file (an output_tok_s"
        " column); see data/seed_prices.csv and data/seed_results.csv for the formats",
    )


def _refuse_past_planning_limit(warehouse: Warehouse, before: int, path: Path | None) -> None:
    """Checked before the ingest commits: a price file that would leave more options than the
    scenario engine plans on is refused whole (nothing written), instead of leaving
    ``scenarios`` and ``optimize`` refusing every run after it."""
    from warehouse.queries import MAX_PLANNING_OPTIONS
    from warehouse.seed import SeedFileError

    after = warehouse.planning_option_count()
    if after > MAX_PLANNING_OPTIONS and after > before:
        raise SeedFileError(
            path or Path("-"),
            0,
            "-",
            f"with these files the current prices and results would make {after:,} options to"
            f" plan on, more than the {MAX_PLANNING_OPTIONS:,} the scenario engine is built for"
            f" (now {before:,}); ingest prices for fewer regions, zones or instance types",
        )


@db_app.command("ingest")
def db_ingest(
    files: Annotated[list[Path], typer.Argument(help="Seed-format CSV files (prices or results).")],
    db: DbOption = None,
    confirm_held: Annotated[
        bool,
        typer.Option(
            "--confirm-held",
            help="Make current the prices an earlier ingest held for being far outside their"
            " SKU's current price and every peer's (after checking they are right).",
        ),
    ] = False,
) -> None:
    """Ingest seed-format price or result CSVs, all of them in one transaction: a bad row in any
    file is reported with file, row and field, nothing is written, and the attempt is recorded as
    a failed snapshot. Exit 0 when everything was written, 2 when an input was rejected.

    A price far outside both its SKU's current price and the range of its peers (the same
    accelerator and pricing model at any provider) is stored but held: not current, and named in
    the integrity report, until the file is ingested again with ``--confirm-held``; ``tokendesk
    db retract`` takes an ingest back."""
    from pricing.integrity import PriceReference, check_price_file
    from tokendesk.records import SnapshotKind
    from warehouse import Warehouse
    from warehouse.disk import is_disk_full
    from warehouse.seed import SeedFileError, ingest_price_file, ingest_result_file

    written: list[tuple[Path, list[str]]] = []
    with Warehouse.open(db, seed_check=check_price_file) as warehouse:
        reference = (
            None if confirm_held else PriceReference.from_quotes(warehouse.current_price_quotes())
        )
        kind = "prices"
        current: Path | None = None
        options_before = warehouse.planning_option_count()
        try:
            with warehouse.atomic():
                for path in files:
                    current = path
                    kind = _ingest_kind(path)
                    if kind == "prices":
                        ids = ingest_price_file(
                            warehouse,
                            path,
                            check=check_price_file,
                            origin="sheet",
                            reference=reference,
                        )
                    else:
                        ids = [
                            ingest_result_file(warehouse, path, origin="import", check=result_gate)
                        ]
                    written.append((path, ids))
                _refuse_past_planning_limit(warehouse, options_before, current)
        except SeedFileError as exc:
            # The transaction is rolled back; the failure is recorded in a transaction of its own.
            warehouse.record_failed_snapshot(
                SnapshotKind.PRICES if kind == "prices" else SnapshotKind.BENCHMARKS,
                f"ingest:{clean_text(current.name if current else '-')}",
                str(exc),
                origin="import",
            )
            raise fail(
                f"{exc}\nnothing was written (no file of this command): fix the row and run it"
                " again",
                label="rejected",
            ) from None
        except Exception as exc:
            if not is_disk_full(exc):
                raise
            # atomic() rolled the transaction back; no failed snapshot is recorded: that write
            # would meet the same full disk.
            raise fail(
                f"disk full while writing {clean_text(current.name if current else '-')}:"
                " nothing was written (the whole command was rolled back). Free space on the"
                " warehouse's disk and run it again",
                1,
            ) from None
        held = _held(warehouse, [i for _, ids in written for i in ids])
    for path, ids in written:
        console.print(f"{terminal_text(str(path))}: ingested as {', '.join(ids)}", highlight=False)
    for snapshot_id, failed, detail in held:
        err.print(
            f"[yellow]held[/yellow] {failed} price(s) of snapshot {snapshot_id}:"
            f" {terminal_text(detail)}",
            highlight=False,
        )


def _held(warehouse, snapshot_ids: list[str]) -> list[tuple[str, int, str]]:
    """(snapshot, rows held, the report's examples) for each of ``snapshot_ids`` that holds a
    price for confirmation."""
    from pricing.integrity import RULE_HELD
    from warehouse.catalog_queries import held_prices

    frame = held_prices(warehouse, snapshot_ids, RULE_HELD)
    return [(str(r.snapshot_id), int(r.failed), str(r.detail)) for r in frame.itertuples()]


def _register_retract() -> None:
    """``db retract``: the same command as ``bench retract``, where a price ingest is looked for."""
    from cli.retract_command import retract_cmd

    db_app.command("retract")(retract_cmd)


_register_retract()


@db_app.command("migrate")
def db_migrate(
    to: Annotated[
        str,
        typer.Option(
            "--to",
            help="The team-mode warehouse: ducklake:postgres:<libpq conninfo> "
            "(a new, empty catalog database).",
        ),
    ],
    data_path: Annotated[
        str | None,
        typer.Option(
            "--data-path",
            help="Where the lake's data files go: a directory or s3://bucket/prefix "
            "(default: $TOKENDESK_DATA_PATH).",
        ),
    ] = None,
    db: DbOption = None,
) -> None:
    """Copy the embedded warehouse, with every snapshot, into a DuckLake team-mode warehouse,
    then compare the two table by table and "current" view by view."""
    from warehouse import Warehouse, WarehouseError
    from warehouse.lake import LAKE_PREFIX, is_lake_target
    from warehouse.transfer import copy_into_lake

    if not is_lake_target(to):
        raise fail(f"--to takes {LAKE_PREFIX}<conninfo>")
    source_path = str(db or default_db_path())
    if is_lake_target(source_path) or not Path(source_path).exists():
        raise fail(
            "--db names the embedded warehouse file to copy, and there is no "
            f"such file: {source_path}"
        )
    from warehouse.files import is_whole

    if not is_whole(source_path):  # a build that stopped part way: never copied as empty
        raise fail(
            f"the warehouse {source_path} is not whole (a migration or its bundled data is"
            f" missing): run `tokendesk db init --db {source_path}` first, then copy it"
        )
    try:
        with (
            Warehouse.open(source_path, read_only=True, build=False) as source,
            Warehouse.open(to, data_path=data_path, build=False) as target,
        ):
            report = copy_into_lake(source, target)
            where = target.path
    except WarehouseError as exc:
        raise fail(str(exc), 1) from None
    copied = ", ".join(f"{count} {table}" for table, count in report.rows.items())
    views = ", ".join(f"{view} {count} rows" for view, count in report.current_rows.items())
    console.print(f"Copied into the {where}: {copied}.", highlight=False)
    console.print(f"Equal before and after: every table count; {views}.", highlight=False)


def register(app: typer.Typer) -> None:
    """Mount ``db`` on ``app`` (once)."""
    if not any(group.typer_instance is db_app for group in app.registered_groups):
        app.add_typer(db_app, name="db")
