"""``tokendesk costs``, ``tokendesk db …`` and ``tokendesk app``: the warehouse and its figures."""

from __future__ import annotations

import os
import shutil
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any

import typer

from cli.options import DbOption, FormatOption, OutputFormat
from tokendesk import formatting
from tokendesk.columns import OPTION_FIGURES
from tokendesk.labels import label
from tokendesk.paths import REPO_ROOT, default_db_path
from tokendesk.terminal import Grid, make_console, print_table
from tokendesk.textsafety import (
    InputFileError,
    clean_text,
    sniff_text_file,
    terminal_text,
)

# The warehouse, pandas, the cost model and the price checks are imported inside each command:
# `tokendesk db --help` (and every other command's help) does not load them.

db_app = typer.Typer(
    help="Create, rebuild, inspect and move the warehouse (an embedded DuckDB file, or DuckLake "
    "in team mode).",
    no_args_is_help=True,
)
console = make_console()
err = make_console(stderr=True)


#: Most cost-option rows one ``costs`` command materialises (each row is ~1 KiB in pandas with
#: its derived columns: 200,000 rows stay well under half a gigabyte).
MAX_COST_ROWS = 200_000

COSTS_COLUMNS = [
    *OPTION_FIGURES,
    "ttft_ms_p50",
    "ttft_ms_p95",
    "ttft_ms_p99",
    "tpot_ms_p50",
    "tpot_ms_p95",
    "tpot_ms_p99",
    # The hour split between input and output tokens, and the rule that split it.
    "usd_per_1k_input_tokens",
    "usd_per_1k_output_tokens_apportioned",
    "apportioning_rule",
    # Energy and carbon per output token, with the basis and the grid figure used.
    "joules_per_output_token",
    "energy_basis",
    "kwh_per_1m_output_tokens",
    "g_co2e_per_1m_output_tokens",
    "grid_g_co2e_per_kwh",
    "grid_year",
    "grid_source",
    "grid_source_url",
    "price_source",
    "price_observed_at",
    "bench_source_title",
    "bench_measured_at",
    "price_confidence",
    "bench_confidence",
    "roofline_pct",
]


def costs(
    accelerator: Annotated[
        list[str] | None, typer.Option(help="Accelerator id (repeatable).")
    ] = None,
    vendor: Annotated[
        list[str] | None, typer.Option(help="NVIDIA, AMD, Intel, Google, AWS, …")
    ] = None,
    provider: Annotated[list[str] | None, typer.Option(help="aws, gcp, azure, lambda, …")] = None,
    region: Annotated[list[str] | None, typer.Option()] = None,
    pricing_model: Annotated[
        list[str] | None, typer.Option("--pricing-model", help="on_demand, spot, reserved_1y, …")
    ] = None,
    model: Annotated[list[str] | None, typer.Option()] = None,
    precision: Annotated[list[str] | None, typer.Option()] = None,
    workload: Annotated[list[str] | None, typer.Option()] = None,
    sort: Annotated[
        str,
        typer.Option(
            help="Column to sort by, e.g. usd_per_1k_output_tokens (the default), ttft_ms_p95,"
            " usd_per_hour (a name it does not know lists every one)."
        ),
    ] = "usd_per_1k_output_tokens",
    limit: Annotated[int | None, typer.Option(help="Show at most this many rows.")] = None,
    output: FormatOption = OutputFormat.TABLE,
    db: DbOption = None,
) -> None:
    """$/1K tokens and first-token latency per accelerator × cloud × region × pricing model."""
    from benchmarks.plausibility import roofline_label, roofline_pct
    from costmodel.energy import bundled_energy_columns
    from costmodel.unit_cost import apportion_frame
    from pricing.integrity import check_price_file
    from tokendesk.catalog import load_catalog
    from tokendesk.exports import safe_csv
    from warehouse import Warehouse
    from warehouse.queries import cost_options, count_options

    filters: dict[str, Any] = dict(
        accelerator=accelerator,
        vendor=vendor,
        provider=provider,
        region=region,
        pricing_model=pricing_model,
        model=model,
        precision=precision,
        workload=workload,
    )
    with Warehouse.open(db, read_only=True, seed_check=check_price_file) as warehouse:
        try:
            # At most MAX_COST_ROWS rows are read at once: a larger join (a price file of a
            # million rows meets every result on its accelerators) is counted, not materialised,
            # unless filters or --limit narrow it.
            if limit is None or limit > MAX_COST_ROWS:
                matching = count_options(warehouse, **filters)
                if matching > MAX_COST_ROWS:
                    err.print(
                        f"[red]error:[/red] {matching:,} options match, more than the"
                        f" {MAX_COST_ROWS:,} one command writes at once; narrow them with"
                        " filters (--provider, --accelerator, --model, …) or pass --limit"
                        f" (at most {MAX_COST_ROWS:,})",
                        highlight=False,
                    )
                    raise typer.Exit(2)
            frame = cost_options(warehouse, sort=sort, limit=limit, **filters)
        except ValueError as exc:
            err.print(f"[red]error:[/red] {exc}")
            raise typer.Exit(2) from None
    # How close each result sits to the physical bound of its accelerator ("% of roofline").
    frame["roofline_pct"] = roofline_pct(frame.to_dict("records"), load_catalog())
    for name, values in apportion_frame(frame).items():
        frame[name] = values
    frame = frame.join(bundled_energy_columns(frame))[COSTS_COLUMNS]
    if output is OutputFormat.CSV:
        sys.stdout.write(safe_csv(frame).decode("utf-8"))
        return
    if output is OutputFormat.JSON:
        sys.stdout.write(frame.to_json(orient="records", date_format="iso", indent=1) + "\n")
        return
    if frame.empty:
        console.print("No option matches these filters. Try fewer filters, or `tokendesk db info`.")
        return
    table = Grid(title=f"{len(frame)} options, sorted by {sort}")
    # Priority 0 is always shown; the others give way, highest number first, on a narrow terminal.
    table.add_column("Provider · region · instance · pricing", priority=0, prose=True)
    table.add_column("Accelerator", priority=1)
    table.add_column("Model · precision · scenario", priority=2, prose=True)
    table.add_column("Load", priority=4, justify="right")
    table.add_column("Instance tok/s", priority=4, justify="right")
    table.add_column("$/h", priority=3, justify="right")
    table.add_column("$/1K out", priority=0, justify="right")
    table.add_column("FTL p95", priority=0, justify="right")
    table.add_column("FTL p99", priority=5, justify="right")
    table.add_column("Price date", priority=1)
    table.add_column("Result date", priority=2)
    table.add_column("% of roofline", priority=5, justify="right")
    table.add_column("Result source", priority=6, prose=True)
    for row in frame.itertuples():
        table.add_row(
            f"{row.provider} · {row.region} · {row.instance_type} · {label(row.pricing_model)}",
            row.accelerator_id,
            f"{row.model} · {row.precision} · {row.scenario}",
            _load(row.concurrency),
            formatting.tok_s(row.instance_output_tok_s),
            formatting.usd(row.usd_per_hour, 3),
            formatting.usd_per_1k(row.usd_per_1k_output_tokens),
            formatting.ms(row.ttft_ms_p95),
            formatting.ms(row.ttft_ms_p99),
            formatting.day(row.price_observed_at),
            formatting.day(row.bench_measured_at),
            roofline_label(row.roofline_pct),
            terminal_text(row.bench_source_title or "—"),
        )
    print_table(console, table, more="--format csv")
    console.print(
        "Sources of every price and result: --format csv or json (price_source, bench_source_title)."
    )


def _load(concurrency) -> str:
    """Concurrency of the operating point, '-' when the result did not say (offline runs)."""
    if concurrency is None or concurrency != concurrency:  # None or NaN
        return "-"
    return f"c={concurrency:g}"


def _build_or_refuse(target: Path) -> dict[str, int]:
    """Open the warehouse (building it on first use from data/, its prices checked by the price
    integrity rules) and count its rows. A seed row that fails validation or the integrity check
    is refused: the message names the file and the row, exit 1, and no seed data is written."""
    from pricing.integrity import check_price_file
    from warehouse import Warehouse
    from warehouse.seed import SeedFileError

    try:
        with Warehouse.open(target, seed_check=check_price_file) as warehouse:
            return warehouse.table_counts()
    except SeedFileError as exc:
        err.print(f"[red]refused:[/red] {terminal_text(str(exc))}", highlight=False)
        err.print(
            "nothing from the seed was written; fix the row, then run `tokendesk db rebuild`",
            highlight=False,
        )
        raise typer.Exit(1) from None


@db_app.command("init")
def db_init(db: DbOption = None) -> None:
    """Create the warehouse from the bundled data/ (no network, no credentials)."""
    from warehouse.lake import describe, is_lake_target

    target = db or default_db_path()
    lake = is_lake_target(str(target))
    existed = not lake and Path(target).exists()
    counts = _build_or_refuse(target)
    where = describe(str(target)) if lake else target  # a catalog named without credentials
    verb = "ready" if lake else "up to date" if existed else "built"
    console.print(
        f"Warehouse {verb} at {where}: {counts['price_quotes']} price quotes, "
        f"{counts['benchmark_results']} benchmark results, {counts['snapshots']} snapshots."
    )


@db_app.command("rebuild")
def db_rebuild(db: DbOption = None) -> None:
    """Build a fresh warehouse from data/. The old file is kept beside it as a dated backup."""
    from warehouse.lake import is_lake_target

    if is_lake_target(str(db or default_db_path())):
        err.print(
            "[red]error:[/red] a team-mode warehouse is shared and append-only: it is never "
            "rebuilt. Build a new one in an empty catalog database with `tokendesk db init`."
        )
        raise typer.Exit(2)
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


@db_app.command("ingest")
def db_ingest(
    files: Annotated[list[Path], typer.Argument(help="Seed-format CSV files (prices or results).")],
    db: DbOption = None,
) -> None:
    """Ingest seed-format price or result CSVs, all of them in one transaction: a bad row in any
    file is reported with file, row and field, nothing is written, and the attempt is recorded as
    a failed snapshot. Exit 0 when everything was written, 2 when an input was rejected."""
    from pricing.integrity import check_price_file
    from tokendesk.records import SnapshotKind
    from warehouse import Warehouse
    from warehouse.seed import SeedFileError, ingest_price_file, ingest_result_file

    written: list[tuple[Path, list[str]]] = []
    with Warehouse.open(db, seed_check=check_price_file) as warehouse:
        kind = "prices"
        current: Path | None = None
        try:
            with warehouse.atomic():
                for path in files:
                    current = path
                    kind = _ingest_kind(path)
                    if kind == "prices":
                        ids = ingest_price_file(
                            warehouse, path, check=check_price_file, origin="sheet"
                        )
                    else:
                        ids = [
                            ingest_result_file(warehouse, path, origin="import", check=result_gate)
                        ]
                    written.append((path, ids))
        except SeedFileError as exc:
            # The transaction is rolled back; the failure is recorded in a transaction of its own.
            warehouse.record_failed_snapshot(
                SnapshotKind.PRICES if kind == "prices" else SnapshotKind.BENCHMARKS,
                f"ingest:{clean_text(current.name if current else '-')}",
                str(exc),
                origin="import",
            )
            err.print(f"[red]rejected:[/red] {terminal_text(str(exc))}", highlight=False)
            err.print("nothing was written (no file of this command): fix the row and run it again")
            raise typer.Exit(2) from None
    for path, ids in written:
        console.print(f"{terminal_text(str(path))}: ingested as {', '.join(ids)}", highlight=False)


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
        err.print(f"[red]error:[/red] --to takes {LAKE_PREFIX}<conninfo>", highlight=False)
        raise typer.Exit(2)
    source_path = str(db or default_db_path())
    if is_lake_target(source_path) or not Path(source_path).exists():
        err.print(
            "[red]error:[/red] --db names the embedded warehouse file to copy, and there is no "
            f"such file: {terminal_text(source_path)}",
            highlight=False,
        )
        raise typer.Exit(2)
    try:
        with (
            Warehouse.open(source_path, read_only=True, build=False) as source,
            Warehouse.open(to, data_path=data_path, build=False) as target,
        ):
            report = copy_into_lake(source, target)
            where = target.path
    except WarehouseError as exc:
        err.print(f"[red]error:[/red] {terminal_text(str(exc))}", highlight=False)
        raise typer.Exit(1) from None
    copied = ", ".join(f"{count} {table}" for table, count in report.rows.items())
    views = ", ".join(f"{view} {count} rows" for view, count in report.current_rows.items())
    console.print(f"Copied into the {where}: {copied}.", highlight=False)
    console.print(f"Equal before and after: every table count; {views}.", highlight=False)


def run_app(
    port: Annotated[int, typer.Option(help="Port to serve on.")] = 8501,
    host: Annotated[
        str,
        typer.Option(
            help="Address to bind. The default serves this machine only; the warehouse can hold "
            "negotiated quotes, so bind a wider address only with team sign-in configured (see "
            "--secrets) or behind your own access control."
        ),
    ] = "127.0.0.1",
    headless: Annotated[bool, typer.Option(help="Do not open a browser.")] = True,
    db: DbOption = None,
    secrets: Annotated[
        Path | None,
        typer.Option(
            exists=True,
            dir_okay=False,
            help="secrets.toml with the [auth] sign-in and [tokendesk] role settings (default:"
            " .streamlit/secrets.toml in the repository, then ~/.streamlit/secrets.toml).",
        ),
    ] = None,
) -> None:
    """Start the dashboard (builds the warehouse from data/ on first start)."""
    target = db or default_db_path()
    entry = REPO_ROOT / "app" / "main.py"
    command = [
        sys.executable,
        "-m",
        # `streamlit run`, after building or migrating the warehouse (before the read-only app
        # opens it) and importing what the pages import, side by side.
        "app.serve",
        "--warehouse",
        str(target),
        "run",
        str(entry),
        "--server.address",
        host,
        "--server.port",
        str(port),
        "--server.headless",
        str(headless).lower(),
        "--browser.gatherUsageStats",
        "false",
        *(["--secrets.files", str(secrets.resolve())] if secrets is not None else []),
        "--",
        "--db",
        str(target),
    ]
    shown = "localhost" if host in ("127.0.0.1", "localhost") else host
    console.print(f"Serving tokendesk on http://{shown}:{port}")
    sys.stdout.flush()
    sys.stderr.flush()
    # Become the Streamlit server rather than its parent: a SIGTERM to `tokendesk app` then
    # stops the server itself, and nothing is left listening behind a stopped parent.
    os.chdir(REPO_ROOT)
    os.execv(sys.executable, command)


def register(app: typer.Typer) -> None:
    """Mount ``costs``, ``db`` and ``app`` on ``app`` (once)."""
    if any(group.typer_instance is db_app for group in app.registered_groups):
        return
    app.command("costs")(costs)
    app.command("app")(run_app)
    app.add_typer(db_app, name="db")
