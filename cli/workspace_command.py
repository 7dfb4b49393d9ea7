"""``tokendesk workspace import | export | versions | audit | from-bill`` and ``tokendesk scenarios``."""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from enum import StrEnum
from pathlib import Path
from typing import Annotated
from urllib.parse import parse_qsl, urlparse

import typer

from audit.report import summarise, to_json
from audit.rules import RuleTableError, load_rules
from audit.scan import AuditPathError, scan
from briefs import workspace_plans as wp
from briefs.commitment_doc import commitment_section
from briefs.demand_doc import TraceFileError, TrafficError, demand_rows, trace_document
from briefs.optimal import brief_sections
from cli.briefs_command import BaseUrlOption, UnitOption, output_path, page_address, token_unit
from cli.exits import fail
from cli.shared_options import DbOption
from costmodel import domain
from costmodel.workspace_model import (
    WorkspaceError,
    audit_from_dict,
    workspace_from_dict,
    workspace_to_dict,
)
from planning import bill as bill_import
from planning import evaluation as pe
from planning import workspaces as pw
from planning.commitment import commitments
from planning.what_ifs import DEFAULTS, parse_custom
from pricing.integrity import check_price_file
from tokendesk import formatting, jsontext
from tokendesk.labels import label, sku_label
from tokendesk.terminal import Grid, grid_from_rows, make_console, print_table
from tokendesk.textsafety import terminal_text
from warehouse import Warehouse, WarehouseError
from warehouse.queries import TooManyPlanningOptions
from warehouse.workspace_versions import save_workspace, workspace_version, workspace_versions

console = make_console()
err = make_console(stderr=True)

workspace_app = typer.Typer(
    help="The company's own fleet, contracts, demand and constraints (YAML in, YAML out).",
    no_args_is_help=True,
)


class ScenarioFormat(StrEnum):
    JSON = "json"
    TABLE = "table"
    MD = "md"
    HTML = "html"
    PDF = "pdf"
    XLSX = "xlsx"
    CSV = "csv"


#: The file ``scenarios --format json -o FOLDER`` writes in that folder.
SCENARIOS_JSON = "scenarios.json"


def _write(data: bytes, output: Path | None) -> None:
    if output is None or str(output) == "-":
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
        return
    try:
        output.write_bytes(data)
    except OSError as exc:  # a missing folder, no permission, a full disk: said, not a fault
        raise fail(
            f"{output}: cannot write ({exc.strerror or exc}); choose another -o path."
            " The warehouse is unchanged."
        ) from None
    err.print(f"wrote {output} ({len(data):,} bytes)")


@workspace_app.command("import")
def workspace_import(
    file: Annotated[Path, typer.Argument(help="A workspace YAML file.")],
    db: DbOption = None,
) -> None:
    """Validate a workspace file whole and store it as the new current version."""
    try:
        pw.read_workspace_file(file)  # type, size, encoding and YAML limits before the warehouse
        with Warehouse.open(db, seed_check=check_price_file) as warehouse:
            version = pw.import_workspace(warehouse, file)
    except (pw.WorkspaceFileError, WarehouseError, TooManyPlanningOptions) as exc:
        raise fail(f"{exc}. The warehouse is unchanged.") from None
    console.print(f"Stored {file.name} as workspace version {version}.")


@workspace_app.command("export")
def workspace_export(
    output: Annotated[
        Path | None, typer.Option("-o", "--output", help="Output file (default: stdout).")
    ] = None,
    version: Annotated[
        int | None, typer.Option(help="A stored version (default: current).")
    ] = None,
    db: DbOption = None,
) -> None:
    """Write the current (or a given) workspace version as YAML."""
    try:
        with Warehouse.open(db, read_only=True, seed_check=check_price_file) as warehouse:
            if version is None:
                _, ws = pw.stored_workspace(warehouse)
            else:
                body = workspace_version(warehouse, version)
                if body is None:
                    raise fail(
                        f"no workspace version {version}; see `tokendesk workspace versions`"
                    )
                ws = workspace_from_dict(body)
    except WarehouseError as exc:
        raise fail(str(exc)) from None
    text = pw.export_yaml(ws)
    if output is None or str(output) == "-":
        sys.stdout.write(text)
    else:
        output.write_text(text, encoding="utf-8")
        err.print(f"wrote {output}")


@workspace_app.command("audit")
def workspace_audit(
    path: Annotated[
        Path,
        typer.Argument(
            help="The repository to audit, or the JSON `tokendesk audit PATH --format json` wrote."
        ),
    ],
    db: DbOption = None,
) -> None:
    """Keep a portability audit in the workspace (as a new version): the scenarios then take the
    one-time migration cost and the audit and certify gates from it instead of the defaults."""
    try:
        if path.is_file():
            data = json.loads(path.read_text(encoding="utf-8"))
        else:
            data = to_json(summarise(scan(path, load_rules())))
        audit, basis = audit_from_dict(data)
    except (AuditPathError, RuleTableError, WorkspaceError, OSError, ValueError) as exc:
        raise fail(f"{exc}. The warehouse is unchanged.") from None
    try:
        with Warehouse.open(db, seed_check=check_price_file) as warehouse:
            _, ws = pw.stored_workspace(warehouse)
            ws = replace(ws, audit=audit, audit_basis=basis)
            version = save_workspace(
                warehouse, workspace_to_dict(ws), origin="import", source=f"audit: {path.name}"
            )
    except WarehouseError as exc:
        raise fail(f"{exc}. The warehouse is unchanged.") from None
    for a in audit:
        console.print(
            f"{a.backend}: {a.weeks_base:g} engineer-weeks ({a.weeks_low:g}–{a.weeks_high:g},"
            f" {a.confidence} confidence, {a.blocking_findings} blocking findings)",
            highlight=False,
        )
    console.print(f"Stored workspace version {version} with the audit ({basis}).")


class BillFormat(StrEnum):
    JSON = "json"
    TABLE = "table"
    YAML = "yaml"


@workspace_app.command("from-bill")
def workspace_from_bill(
    files: Annotated[
        list[Path],
        typer.Argument(
            help="FOCUS cost exports (CSV, gzip CSV or Parquet; several months and"
            " providers at once)."
        ),
    ],
    fmt: Annotated[BillFormat, typer.Option("--format")] = BillFormat.TABLE,
    serves: Annotated[
        str | None,
        typer.Option(help="The workload every derived line serves (default: the current line's)."),
    ] = None,
    save: Annotated[
        bool,
        typer.Option(
            "--save", help="Store the derived fleet as a new workspace version (default: preview)."
        ),
    ] = False,
    db: DbOption = None,
) -> None:
    """The fleet the bill shows: accelerator instances by provider, region, type and pricing
    model at their effective rates; the charges it could not place, by reason; Stay's month-1
    cost against the bill's last full month; and what saving it would change (with --save)."""
    try:
        with Warehouse.open(db, read_only=not save, seed_check=check_price_file) as warehouse:
            report = bill_import.build_report(warehouse, files, serves=serves)
            version = bill_import.save_report(warehouse, report) if save else None
    except (
        bill_import.BillImportError,
        WorkspaceError,
        WarehouseError,
        TooManyPlanningOptions,
    ) as exc:
        raise fail(f"{exc}. The warehouse is unchanged.") from None
    if fmt == BillFormat.JSON:
        _write((jsontext.dumps(report.as_dict()) + "\n").encode(), None)
    elif fmt == BillFormat.YAML:
        sys.stdout.write(pw.export_yaml(report.workspace))
    else:
        _print_bill(report)
    if version is not None:
        err.print(f"Stored the bill's fleet as workspace version {version}.")
    elif report.workspace.fleet:
        err.print("Preview only: add --save to store it as a new workspace version.")


def _print_bill(report: bill_import.BillReport) -> None:
    source = report.source()
    month = source["month"] or "no month"
    title = f"Fleet from the bill ({month}; {', '.join(f['file'] for f in source['files'])})"
    fleet = [
        {
            "Provider": row["provider"],
            "Region": terminal_text(row["region"]),
            "Instance type": terminal_text(row["instance_type"]),
            "Count": str(row["count"]),
            "Pricing": label(row["pricing_model"]),
            "$/h": formatting.usd_rate(row["usd_per_hour"]),
            "Ends": row["commitment_end"] or "",
            "Serves": row["serves"],
            "Billed $": "kept" if row["billed_usd"] is None else f"{row['billed_usd']:,.2f}",
            "Fees $": ""
            if not row["commitment_fees_usd"]
            else f"{row['commitment_fees_usd']:,.2f}",
        }
        for row in report.fleet_rows()
    ]
    if fleet:
        essential = ("Instance type", "Count", "$/h", "Billed $")
        print_table(console, grid_from_rows(fleet, title, essential), more="--format json")
    else:
        console.print(f"{title}: no accelerator instance placed.")
    unplaced = [
        {
            "Reason": terminal_text(row["reason"]),
            "Billed $": f"{row['cost_usd']:,.2f}",
            "Rows": f"{row['rows']:,}",
        }
        for row in report.unplaced_rows()
    ]
    if unplaced:
        grid = grid_from_rows(unplaced, "Charges not placed in the fleet", ("Reason", "Billed $"))
        print_table(console, grid, more="--format json")
    rec = report.reconciliation
    console.print(
        f"{month}: accelerator spend on the bill ${rec.bill_usd:,.2f}; Stay month 1"
        f" ${rec.stay_month1_usd:,.2f}; difference ${rec.difference_usd:+,.2f}",
        highlight=False,
    )
    for line in rec.lines:
        console.print(f"  {line.label}: ${line.difference_usd:+,.2f}", highlight=False)
        for part in line.parts:
            console.print(f"    {part.usd:+,.2f}  {part.why}", highlight=False)
    version = report.current_version
    console.print(f"Against the current workspace (version {version or 'bundled example'}):")
    for change in report.changes:
        details = "; ".join(change.details)
        console.print(
            f"  {change.change}: "
            + terminal_text(
                sku_label(
                    change.provider, change.region, change.instance_type, change.pricing_model
                )
            )
            + (f" — {details}" if details else "")
            + (f" ({terminal_text(change.reason)})" if change.reason else ""),
            highlight=False,
        )
    for note in report.notes:
        console.print(f"Note: {terminal_text(note)}", highlight=False)


@workspace_app.command("versions")
def workspace_list(db: DbOption = None) -> None:
    """Every stored version, newest first (versions are never overwritten)."""
    with Warehouse.open(db, read_only=True, seed_check=check_price_file) as warehouse:
        frame = workspace_versions(warehouse)
    table = Grid(title=f"{len(frame)} workspace versions")
    for header, priority, prose in (
        ("Version", 0, False),
        ("Name", 0, True),
        ("Saved (UTC)", 0, False),
        ("By", 1, False),
        ("Origin", 2, False),
        ("Source", 3, True),
    ):
        table.add_column(header, priority=priority, prose=prose)
    for row in frame.itertuples(index=False):
        table.add_row(
            str(row.version),
            row.name,
            f"{row.saved_at:%Y-%m-%d %H:%M}",
            terminal_text(row.created_by) or "not recorded",
            row.origin,
            row.source,
        )
    print_table(console, table)


class DemandFormat(StrEnum):
    JSON = "json"
    TABLE = "table"


@workspace_app.command("demand-from")
def workspace_demand_from(
    file: Annotated[
        Path,
        typer.Argument(
            help="A request trace: Azure LLM inference trace CSV or Mooncake JSON Lines."
        ),
    ],
    fmt: Annotated[DemandFormat, typer.Option("--format")] = DemandFormat.TABLE,
) -> None:
    """Derive a workload's demand from a request trace: tokens per month, peak ÷ mean,
    burstiness, the daily curve, length percentiles and the prefix-cache share, with notes on
    what the trace cannot support. Reads the file only; the workspace is unchanged."""
    try:
        doc = trace_document(file)
    except TraceFileError as exc:
        raise fail(str(exc)) from None
    except TrafficError as exc:  # the trace read whole, but supports no demand: name the file
        raise fail(f"{file.name}: {exc}") from None
    if fmt == DemandFormat.JSON:
        sys.stdout.write(jsontext.dumps(doc) + "\n")
        return
    rows = [{"Figure": name, "Value": value} for name, value in demand_rows(doc)]
    print_table(
        console,
        grid_from_rows(rows, f"Demand from {file.name}", ("Figure", "Value"), ("Value",)),
        more="--format json",
    )
    for note in doc["notes"]:
        console.print(f"• {note}", highlight=False)


def _one_time(values: list[str]) -> tuple[tuple[str, float], ...]:
    out = []
    for text in values:
        backend, sep, usd = text.partition("=")
        if not sep:
            raise fail(f"--one-time {text!r}: use BACKEND=USD, e.g. rocm=90000")
        try:
            out.append((backend.strip(), domain.ONE_TIME_USD.check(usd)))
        except ValueError as exc:
            raise fail(f"--one-time {text!r}: {exc}") from None
    return tuple(out)


def scenarios(
    workspace: Annotated[
        Path | None,
        typer.Option(help="Workspace YAML (default: the warehouse's current workspace)."),
    ] = None,
    amd_share: Annotated[float, typer.Option(help="Share for 'Shift N% to AMD'.")] = DEFAULTS.amd,
    cpu_share: Annotated[
        float, typer.Option(help="Share of small-model traffic for 'Add CPU fallback'.")
    ] = DEFAULTS.cpu,
    custom: Annotated[str, typer.Option(help="A custom mix, e.g. cuda:0.5,rocm:0.3,hpu:0.2.")] = "",
    one_time: Annotated[
        list[str] | None,
        typer.Option(
            "--one-time", help="One-time cost of a new backend, BACKEND=USD (repeatable)."
        ),
    ] = None,
    link: Annotated[
        str | None,
        typer.Option(help="A Scenarios-page link: its what-ifs and shares are used."),
    ] = None,
    fmt: Annotated[ScenarioFormat, typer.Option("--format")] = ScenarioFormat.TABLE,
    output: Annotated[
        Path | None,
        typer.Option(
            "-o",
            "--output",
            help="Output file or folder (default: stdout; pdf and xlsx: brief-DATE-SCENARIO.ext).",
        ),
    ] = None,
    unit: UnitOption = None,
    base_url: BaseUrlOption = None,
    db: DbOption = None,
) -> None:
    """Stay / Shift to AMD / Add CPU fallback (/ custom) from the company's own workspace.

    json, table and md print the comparison; md, html, pdf, xlsx and csv are the brief the
    Scenarios page downloads (same figures).
    """
    knobs = _knobs(amd_share, cpu_share, custom, one_time or [])
    params = dict(parse_qsl(urlparse(link).query)) if link else {}
    unit = token_unit(unit, params)
    provenance = None
    try:
        with Warehouse.open(db, read_only=True, seed_check=check_price_file) as warehouse:
            if workspace is not None:
                ws, _ = pw.read_workspace_file(workspace)
            else:
                _, ws = pw.stored_workspace(warehouse)
                provenance = pw.bill_provenance(warehouse)
            if link:
                view = pw.scenario_view(params, ws)
                if view.rejected:
                    raise fail(" ".join(r.notice for r in view.rejected))
                ws, knobs = (
                    view.workspace,
                    replace(view.knobs, one_time_usd_by_backend=knobs.one_time_usd_by_backend),
                )
            # Built for the workspace as viewed: estimated capacity follows its demand.
            options, engine = pw.planned_on(warehouse, ws)
            snapshots = warehouse.snapshots()
        # Every plan and the optimal fleet; a document also carries the price of diversification.
        documents = fmt not in (ScenarioFormat.JSON, ScenarioFormat.TABLE)
        ev = pe.evaluate(engine, ws, knobs, frontier=documents)
    except (pw.WorkspaceFileError, WarehouseError, ValueError) as exc:
        raise fail(str(exc)) from None
    if fmt == ScenarioFormat.JSON:
        _write((wp.results_json(ev) + "\n").encode(), output_path(output, SCENARIOS_JSON, "json"))
    elif fmt != ScenarioFormat.TABLE:
        from briefs.render import render_document

        # After the comparison: the optimal fleet, then how much of it to commit.
        assert ev.optimum is not None
        commitment = commitment_section(commitments(engine, ws, knobs, optimum=ev.optimum))
        optimal = (*brief_sections(ev.optimum), commitment)
        doc = wp.workspace_document(
            ev,
            ws,
            knobs,
            page_address(base_url, link),
            optimal=optimal,
            unit=unit,
            options=options,
            snapshots=snapshots,
            provenance=provenance,
        )
        _write(
            render_document(doc, fmt.value),
            output_path(output, doc.file_name(fmt.value), fmt.value),
        )
    else:
        _print_scenarios(ev, ws.name)


def _knobs(amd_share: float, cpu_share: float, custom: str, one_time: list[str]) -> pw.Knobs:
    """The what-ifs of the command's options, each checked against its bounds (exit 2)."""
    for bound, value in ((domain.AMD_SHARE, amd_share), (domain.CPU_SHARE, cpu_share)):
        try:
            bound.check(value)
        except ValueError as exc:
            raise fail(str(exc)) from None
    try:
        mix = parse_custom(custom)
    except ValueError as exc:
        raise fail(f"--custom {custom!r}: {exc}") from None
    return pw.Knobs(amd_share, cpu_share, mix, one_time_usd_by_backend=_one_time(one_time))


def _print_scenarios(ev: pe.Evaluation, workspace_name: str) -> None:
    """The comparison as a table, then each plan's headline and why it falls short."""
    table = grid_from_rows(
        wp.results_rows(ev),
        title=f"Scenarios for {workspace_name}",
        # What each record is read by: the plan, its verdict and the figure the verdict rests on.
        essential=("Scenario", "Verdict", wp.COMPARED, "Feasible"),
        prose=("Scenario", "Verdict", "Requested", "Achieved", "Payback"),
    )
    print_table(console, table, more="--format json")
    for r in ev.plans:
        if r.headline != r.name:
            console.print(f"• {r.headline}")
        for line in (*r.unserved_reasons, *r.constraint_violations):
            console.print(f"  {r.name}: {line}")


def register(app: typer.Typer) -> None:
    if any(group.typer_instance is workspace_app for group in app.registered_groups):
        return
    app.add_typer(workspace_app, name="workspace")
    app.command("scenarios")(scenarios)
