"""``tokendesk optimize``: the cheapest fleet for the workspace's demand within its constraints,
beside Stay and the built-in scenarios priced the same way, and the price of diversification."""

from __future__ import annotations

import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from briefs.optimal import optimal_markdown, optimal_rows, optimal_summary
from cli.exits import fail
from cli.shared_options import DbOption
from planning import workspaces as pw
from planning.optimal_plan import optimize
from pricing.integrity import check_price_file
from tokendesk import jsontext
from tokendesk.terminal import grid_from_rows, make_console, print_table
from warehouse import WarehouseError

console = make_console()
err = make_console(stderr=True)


class OptimizeFormat(StrEnum):
    JSON = "json"
    TABLE = "table"
    MD = "md"


def optimize_command(
    workspace: Annotated[
        Path | None,
        typer.Option(help="Workspace YAML (default: the warehouse's current workspace)."),
    ] = None,
    n_plus_one: Annotated[
        bool, typer.Option("--n-plus-one", help="Carry every hour after losing the largest unit.")
    ] = False,
    fmt: Annotated[OptimizeFormat, typer.Option("--format")] = OptimizeFormat.TABLE,
    output: Annotated[
        Path | None, typer.Option("-o", "--output", help="Output file (default: stdout).")
    ] = None,
    db: DbOption = None,
) -> None:
    """The cheapest fleet (SKU × region × pricing model × count) for the workspace's demand at its
    SLOs, within its approved providers, regions and vendor-share cap, using its commitments."""
    try:
        ws, engine = pw.workspace_and_engine(db, workspace, check_price_file)
        result = optimize(engine, ws, n_plus_one=n_plus_one)
    except (pw.WorkspaceFileError, WarehouseError, ValueError) as exc:
        raise fail(str(exc)) from None
    if fmt == OptimizeFormat.JSON:
        text = jsontext.dumps(result.as_dict()) + "\n"
    elif fmt == OptimizeFormat.MD:
        text = optimal_markdown(result)
    else:
        rows = optimal_rows(result)
        if rows:
            table = grid_from_rows(
                rows,
                title=f"Optimal fleet for {ws.name}",
                essential=("Workload", "Instance", "Count", "$/month"),
                prose=("Provider / region", "Pricing"),
            )
            print_table(console, table, more="--format json")
        else:
            console.print(f"Optimal fleet for {ws.name}: no fleet.")
        for line in optimal_summary(result):
            console.print(line)
        return
    if output is None or str(output) == "-":
        sys.stdout.write(text)
    else:
        output.write_text(text, encoding="utf-8")
        err.print(f"wrote {output}")
    if not result.solution.feasible:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    if not any(c.callback is optimize_command for c in app.registered_commands):
        app.command("optimize")(optimize_command)
