"""``tokendesk workspace import | export | versions`` and ``tokendesk scenarios``."""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from enum import StrEnum
from pathlib import Path
from typing import Annotated
from urllib.parse import parse_qsl, urlparse

import typer
from rich.console import Console
from rich.table import Table

from audit.report import summarise, to_json
from audit.rules import RuleTableError, load_rules
from audit.scan import AuditPathError, scan
from briefs import workspace_plans as wp
from briefs.cli import BaseUrlOption, DbOption, UnitOption, output_path, token_unit
from briefs.commit_cli import commitment_section, commitments
from briefs.optimize_cli import brief_sections, optimize
from briefs.workspace_input import check_workspace_file, read_workspace
from costmodel import Engine, domain
from costmodel.scenario_inputs import parse_custom
from costmodel.workspace import (
    WorkspaceError,
    audit_from_dict,
    workspace_from_dict,
    workspace_to_dict,
)
from pricing.integrity import check_price_file
from tokendesk.textsafety import terminal_text
from warehouse import Warehouse, WarehouseError, queries
from warehouse.workspaces import save_workspace, workspace_version, workspace_versions

console = Console()
err = Console(stderr=True, soft_wrap=True)

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


def _write(data: bytes, output: Path | None) -> None:
    if output is None or str(output) == "-":
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
    else:
        output.write_bytes(data)
        err.print(f"wrote {output} ({len(data):,} bytes)")


def _fail(message: str, code: int = 2) -> typer.Exit:
    err.print(f"[red]error:[/red] {message}")
    return typer.Exit(code)


@workspace_app.command("import")
def workspace_import(
    file: Annotated[Path, typer.Argument(help="A workspace YAML file.")],
    db: DbOption = None,
) -> None:
    """Validate a workspace file whole and store it as the new current version."""
    try:
        check_workspace_file(file)  # type, size, encoding and YAML limits before the warehouse
        with Warehouse.open(db, seed_check=check_price_file) as warehouse:
            version = wp.import_workspace(warehouse, file)
    except (wp.WorkspaceFileError, WarehouseError) as exc:
        raise _fail(f"{exc}. The warehouse is unchanged.") from None
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
                _, ws = wp.stored_workspace(warehouse)
            else:
                body = workspace_version(warehouse, version)
                if body is None:
                    raise _fail(
                        f"no workspace version {version}; see `tokendesk workspace versions`"
                    )
                ws = workspace_from_dict(body)
    except WarehouseError as exc:
        raise _fail(str(exc)) from None
    text = wp.export_yaml(ws)
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
        raise _fail(f"{exc}. The warehouse is unchanged.") from None
    try:
        with Warehouse.open(db, seed_check=check_price_file) as warehouse:
            _, ws = wp.stored_workspace(warehouse)
            ws = replace(ws, audit=audit, audit_basis=basis)
            version = save_workspace(
                warehouse, workspace_to_dict(ws), origin="import", source=f"audit: {path.name}"
            )
    except WarehouseError as exc:
        raise _fail(f"{exc}. The warehouse is unchanged.") from None
    for a in audit:
        console.print(
            f"{a.backend}: {a.weeks_base:g} engineer-weeks ({a.weeks_low:g}–{a.weeks_high:g},"
            f" {a.confidence} confidence, {a.blocking_findings} blocking findings)",
            highlight=False,
        )
    console.print(f"Stored workspace version {version} with the audit ({basis}).")


@workspace_app.command("versions")
def workspace_list(db: DbOption = None) -> None:
    """Every stored version, newest first (versions are never overwritten)."""
    with Warehouse.open(db, read_only=True, seed_check=check_price_file) as warehouse:
        frame = workspace_versions(warehouse)
    table = Table(title=f"{len(frame)} workspace versions")
    for header in ("Version", "Name", "Saved (UTC)", "By", "Origin", "Source"):
        table.add_column(header)
    for row in frame.itertuples(index=False):
        table.add_row(
            str(row.version),
            row.name,
            f"{row.saved_at:%Y-%m-%d %H:%M}",
            terminal_text(row.created_by) or "not recorded",
            row.origin,
            row.source,
        )
    console.print(table)


def _one_time(values: list[str]) -> tuple[tuple[str, float], ...]:
    out = []
    for text in values:
        backend, sep, usd = text.partition("=")
        if not sep:
            raise _fail(f"--one-time {text!r}: use BACKEND=USD, e.g. rocm=90000")
        try:
            out.append((backend.strip(), domain.ONE_TIME_USD.check(usd)))
        except ValueError as exc:
            raise _fail(f"--one-time {text!r}: {exc}") from None
    return tuple(out)


def scenarios(
    workspace: Annotated[
        Path | None,
        typer.Option(help="Workspace YAML (default: the warehouse's current workspace)."),
    ] = None,
    amd_share: Annotated[float, typer.Option(help="Share for 'Shift N% to AMD'.")] = 0.25,
    cpu_share: Annotated[
        float, typer.Option(help="Share of small-model traffic for 'Add CPU fallback'.")
    ] = 0.10,
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
    for bound, value in ((domain.AMD_SHARE, amd_share), (domain.CPU_SHARE, cpu_share)):
        try:
            bound.check(value)
        except ValueError as exc:
            raise _fail(str(exc)) from None
    try:
        mix = parse_custom(custom)
    except ValueError as exc:
        raise _fail(f"--custom {custom!r}: {exc}") from None
    knobs = wp.Knobs(amd_share, cpu_share, mix, one_time_usd_by_backend=_one_time(one_time or []))
    params = dict(parse_qsl(urlparse(link).query)) if link else {}
    unit = token_unit(unit, params)
    try:
        with Warehouse.open(db, read_only=True, seed_check=check_price_file) as warehouse:
            if workspace is not None:
                ws, _ = read_workspace(workspace)
            else:
                _, ws = wp.stored_workspace(warehouse)
            options = queries.cost_options(warehouse, sort=None)
            snapshots = warehouse.snapshots()
        engine = Engine.from_frame(options)
        if link:
            view = wp.scenario_view(params, ws)
            if view.notices:
                raise _fail(" ".join(view.notices))
            ws, knobs = (
                view.workspace,
                replace(view.knobs, one_time_usd_by_backend=knobs.one_time_usd_by_backend),
            )
        results = wp.compare(engine, ws, knobs)
    except (wp.WorkspaceFileError, WarehouseError, ValueError) as exc:
        raise _fail(str(exc)) from None
    if fmt == ScenarioFormat.JSON:
        _write((wp.results_json(results) + "\n").encode(), output)
    elif fmt != ScenarioFormat.TABLE:
        from briefs.render import render_document

        # After the comparison: the optimal fleet, then how much of it to commit.
        commitment = commitment_section(commitments(engine, ws, knobs))
        optimal = (*brief_sections(optimize(engine, ws, knobs)), commitment)
        doc = wp.workspace_document(
            results,
            ws,
            knobs,
            base_url,
            optimal=optimal,
            unit=unit,
            options=options,
            snapshots=snapshots,
        )
        _write(
            render_document(doc, fmt.value),
            output_path(output, doc.file_name(fmt.value), fmt.value),
        )
    else:
        rows = wp.results_rows(results)
        table = Table(title=f"Scenarios for {ws.name}")
        for header in rows[0]:
            table.add_column(header, overflow="fold")
        for row in rows:
            table.add_row(*row.values())
        console.print(table)
        for r in results:
            if r.headline != r.name:
                console.print(f"• {r.headline}")
            for line in (*r.unserved_reasons, *r.constraint_violations):
                console.print(f"  {r.name}: {line}")


def register(app: typer.Typer) -> None:
    if any(group.typer_instance is workspace_app for group in app.registered_groups):
        return
    app.add_typer(workspace_app, name="workspace")
    app.command("scenarios")(scenarios)
