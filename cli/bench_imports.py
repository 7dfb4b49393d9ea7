"""``tokendesk bench import`` and ``tokendesk bench import-tree``: other tools' result files,
checked against the physical bounds, shown and written (``cli.bench_command`` mounts them)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, NoReturn

import typer

from benchmarks.bulk import IMPORTED, NEEDS_FLAG, REFUSED, ResultTreeError, import_tree, summary
from benchmarks.checked_import import CheckedFile, read_and_check
from benchmarks.errors import ResultFileError
from benchmarks.importers import ImportOverrides
from cli.bench_points import figure
from cli.exits import fail
from cli.shared_options import DbOption
from pricing.integrity import check_price_file
from tokendesk import jsontext
from tokendesk.records import SnapshotKind
from tokendesk.terminal import Grid, grid_from_rows, make_console, print_table
from tokendesk.textsafety import clean_text, terminal_text
from warehouse import Warehouse

console = make_console()
err = make_console(stderr=True)


def roofline_text(check) -> str:
    """ "23% of 10,435 tok/s" or why no bound applies."""
    if check.roofline_pct is None:
        return "unchecked"
    return f"{check.roofline_pct:.0f}% of {check.decode_tok_s_max:,.0f} tok/s"


def _rejection(exc: ResultFileError) -> dict:
    return {"file": exc.file, "key": exc.key, "reason": exc.reason}


def import_cmd(
    files: Annotated[list[Path], typer.Argument(help="Result files (format auto-detected).")],
    accelerator: Annotated[str | None, typer.Option("--accelerator")] = None,
    accelerators_per_replica: Annotated[int | None, typer.Option(min=1)] = None,
    instance_type: Annotated[str | None, typer.Option()] = None,
    runtime: Annotated[str | None, typer.Option()] = None,
    runtime_version: Annotated[str | None, typer.Option()] = None,
    model: Annotated[str | None, typer.Option()] = None,
    precision: Annotated[str | None, typer.Option()] = None,
    workload: Annotated[str | None, typer.Option()] = None,
    skip_unknown_hardware: Annotated[
        bool, typer.Option(help="MLPerf summaries: skip rows on unmapped accelerators.")
    ] = False,
    dry_run: Annotated[bool, typer.Option(help="Validate and show, write nothing.")] = False,
    measured_at: Annotated[
        datetime | None,
        typer.Option(
            formats=["%Y-%m-%d", "%Y-%m-%dT%H:%M:%S"],
            help="When the results were measured, for files that carry no date.",
        ),
    ] = None,
    accept_implausible: Annotated[
        bool,
        typer.Option(
            help="Keep results beyond the physical bounds, flagged (default: reject the file)."
        ),
    ] = False,
    output_format: Annotated[
        str, typer.Option("--format", help="table, or json: every record with its bounds.")
    ] = "table",
    db: DbOption = None,
) -> None:
    """Import result files from vLLM, SGLang, llama-bench, genai-perf/AIPerf, GuideLLM, LLMPerf,
    MLPerf, InferenceX, llm-d-benchmark and trtllm-bench (its printed report).

    All files are validated first; if any fails, nothing is written and each failure is recorded
    as a failed snapshot. Every result is checked against the physical bounds of its accelerator
    and model (benchmarks/plausibility.py); one beyond them rejects its file unless
    --accept-implausible keeps it, flagged."""

    if output_format not in ("table", "json"):
        raise fail("--format is table or json")

    overrides = ImportOverrides(
        accelerator_id=accelerator,
        accelerators_per_replica=accelerators_per_replica,
        instance_type=instance_type,
        runtime=runtime,
        runtime_version=runtime_version,
        model=model,
        precision=precision,
        workload=workload,
        measured_at=measured_at.replace(tzinfo=UTC) if measured_at else None,
        skip_unknown_accelerators=skip_unknown_hardware,
    )
    checked, failures = read_and_check(files, overrides, accept_implausible)
    if failures:
        _refuse_import(failures, output_format, dry_run, db)
    if output_format == "json":
        print(
            jsontext.dumps(
                indent=None,
                value={"records": _json_records(checked), "rejected": [], "dry_run": dry_run},
            )
        )
    if output_format == "table":
        print_table(console, _results_table(checked), more="--format json")
    if dry_run:
        if output_format == "table":
            console.print("dry run: nothing written")
        return
    written = _write_imports(db, checked)
    for name, count, snap in written:
        (console if output_format == "table" else err).print(
            f"{terminal_text(Path(name).name)}: {count} result(s) -> snapshot {snap}",
            highlight=False,
        )


def import_tree_cmd(
    root: Annotated[Path, typer.Argument(help="A results folder (an MLPerf round, ...).")],
    accelerator: Annotated[str | None, typer.Option("--accelerator")] = None,
    accelerators_per_replica: Annotated[int | None, typer.Option(min=1)] = None,
    runtime: Annotated[str | None, typer.Option()] = None,
    model: Annotated[str | None, typer.Option()] = None,
    precision: Annotated[str | None, typer.Option()] = None,
    skip_unknown_hardware: Annotated[
        bool, typer.Option(help="MLPerf summaries: skip rows on unplaced accelerators.")
    ] = False,
    dry_run: Annotated[bool, typer.Option(help="Validate and show, write nothing.")] = False,
    accept_implausible: Annotated[
        bool, typer.Option(help="Keep results beyond the physical bounds, flagged.")
    ] = False,
    output_format: Annotated[
        str, typer.Option("--format", help="table, or json: every file's outcome.")
    ] = "table",
    db: DbOption = None,
) -> None:
    """Import every result file under a folder, each on its own, and summarise: imported,
    refused (with the reason) and needing a flag (with the flag).

    Result files are found by the names the tools give them (mlperf_log_summary.txt in a
    performance/run_N folder, summary_results.json, agg_*.json, profile_export_*.json, ...);
    accuracy, compliance and ranging runs are not read. Flags apply to every file, so pass
    --accelerator only for a tree of one system. Every imported file is its own snapshot."""
    if output_format not in ("table", "json"):
        raise fail("--format is table or json")
    if not root.exists():
        raise fail(f"{root}: no such file or folder")
    overrides = ImportOverrides(
        accelerator_id=accelerator,
        accelerators_per_replica=accelerators_per_replica,
        runtime=runtime,
        model=model,
        precision=precision,
        skip_unknown_accelerators=skip_unknown_hardware,
    )
    try:
        outcomes = import_tree(root, overrides, accept=accept_implausible)
    except ResultTreeError as exc:
        raise fail(f"{exc}. Nothing was imported; the warehouse is unchanged.") from None
    if not outcomes:
        raise fail(f"{root}: no result files found (see `tokendesk bench import-tree --help`)")
    counts = summary(outcomes)
    written: dict[str, str] = {}
    imported = [o for o in outcomes if o.status == IMPORTED]
    if imported and not dry_run:
        checked = [CheckedFile(str(o.path), o.importer, o.results, o.checks) for o in imported]
        written = {name: snap for name, _count, snap in _write_imports(db, checked)}
    if output_format == "json":
        files = [
            {
                "file": str(o.path),
                "status": o.status,
                "records": len(o.results),
                "key": o.key,
                "reason": o.reason,
                "flags": list(o.flags),
                "snapshot": written.get(str(o.path)),
            }
            for o in outcomes
        ]
        print(
            jsontext.dumps(
                indent=None, value={"summary": counts, "files": files, "dry_run": dry_run}
            )
        )
        return
    print_table(console, _tree_summary_table(counts))
    # One line per file not imported, never wrapped inside a path, a number or an id.
    for o in outcomes:
        if o.status == IMPORTED:
            continue
        shown = o.path.relative_to(root) if root.is_dir() else o.path
        where = f" ({o.key})" if o.key else ""
        console.print(
            terminal_text(f"{o.status}: {shown}{where}: {o.reason}"),
            soft_wrap=True,
            highlight=False,
        )
    console.print(
        "dry run: nothing written"
        if dry_run
        else f"{len(written)} file(s) written, each as its own snapshot"
    )


def _tree_summary_table(counts: dict) -> Grid:
    rows = [
        {"outcome": label, "files": f"{counts[label]:,}"}
        for label in (IMPORTED, REFUSED, NEEDS_FLAG)
    ]
    rows.append({"outcome": "records imported", "files": f"{counts['records']:,}"})
    rows += [
        {"outcome": f"asking for {flag}", "files": f"{n:,}"} for flag, n in counts["flags"].items()
    ]
    return grid_from_rows(rows, "results tree", ("outcome", "files"))


def _refuse_import(
    failures: list[ResultFileError], output_format: str, dry_run: bool, db: Path | None
) -> NoReturn:
    """Report every rejected file, record each as a failed snapshot (unless a dry run), exit 2."""
    if output_format == "json":
        print(
            jsontext.dumps(
                indent=None, value={"records": [], "rejected": [_rejection(e) for e in failures]}
            )
        )
    for failure in failures:
        err.print(
            f"[red]rejected[/red] {terminal_text(str(failure))}",
            highlight=False,
        )
    if not dry_run:
        _record_failures(db, failures)
    raise fail("nothing was imported: fix or drop the rejected file(s) and run again", label="")


def _json_records(checked: list[CheckedFile]) -> list[dict]:
    """Every result as JSON with its file, format and plausibility bounds."""
    return [
        {
            **r.model_dump(mode="json"),
            "file": name,
            "format": fmt,
            "plausibility": check.as_dict(),
        }
        for name, fmt, results, checks in checked
        for r, check in zip(results, checks, strict=True)
    ]


def _results_table(checked: list[CheckedFile]) -> Grid:
    """One row per imported result, with its share of the roofline bound."""
    table = Grid(title="results")
    for col, priority, prose in (
        ("file", 3, False),
        ("format", 4, False),
        ("accelerator", 0, False),
        ("x", 2, False),
        ("runtime", 2, False),
        ("model", 0, False),
        ("precision", 1, False),
        ("load", 1, False),
        ("out tok/s", 0, False),
        ("TTFT p50", 0, False),
        ("TTFT basis", 5, True),
        ("% of roofline", 1, True),
    ):
        table.add_column(col, priority=priority, prose=prose)
    for name, fmt, results, checks in checked:
        for r, check in zip(results, checks, strict=True):
            table.add_row(*(terminal_text(cell) for cell in _result_row(name, fmt, r, check)))
    return table


def _result_row(name: str, fmt: str, r, check) -> tuple[str, ...]:
    load = (
        f"c={r.concurrency:g}"
        if r.concurrency
        else (f"rate={r.request_rate_rps:g}" if r.request_rate_rps else r.scenario)
    )
    return (
        Path(name).name,
        fmt,
        r.accelerator_id,
        str(r.accelerators_per_replica),
        r.runtime,
        r.model,
        r.precision,
        load,
        figure(r.output_tok_s),
        figure(r.ttft_ms_p50, 2),
        r.ttft_basis[:40],
        roofline_text(check) + (" IMPLAUSIBLE (kept)" if r.plausibility_flag else ""),
    )


def _write_imports(db: Path | None, checked: list[CheckedFile]) -> list[tuple[str, int, str]]:
    """Ingest every file's results: (file name, result count, snapshot id) per file."""
    written = []
    # One transaction for the whole command: every file's snapshot is written, or none.
    with Warehouse.open(db, seed_check=check_price_file) as wh, wh.atomic():
        for name, fmt, results, _checks in checked:
            source = f"{fmt}:{clean_text(Path(name).name)}"
            written.append(
                (name, len(results), wh.ingest_results(source, results, origin="import"))
            )
    return written


def _record_failures(db: Path | None, failures: list[ResultFileError]) -> None:
    """Each rejected file is recorded as a failed snapshot (its error text redacted)."""

    with Warehouse.open(db, seed_check=check_price_file) as wh:
        for exc in failures:
            wh.record_failed_snapshot(
                SnapshotKind.BENCHMARKS,
                f"import:{clean_text(Path(exc.file).name)}",
                str(exc),
                origin="import",
            )
