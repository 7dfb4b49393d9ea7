"""``tokendesk commit``: how much to commit, when and for how long — the commitments on the
optimizer's cheapest path over the horizon (the same solution ``tokendesk optimize`` shows), on
the workspace's on-demand basis and ``commitment.at_end``, and the same path under each demand
scenario."""

from __future__ import annotations

import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from briefs.commitment_doc import commitment_markdown, commitment_table_rows, scenario_table_rows
from cli.exits import fail
from cli.shared_options import DbOption
from planning import workspaces as pw
from planning.commitment import PlannedCommitments, commitments
from pricing.integrity import check_price_file
from tokendesk import jsontext
from tokendesk.terminal import grid_from_rows, make_console, print_table
from warehouse import WarehouseError

console = make_console()
err = make_console(stderr=True)


class CommitFormat(StrEnum):
    JSON = "json"
    TABLE = "table"
    MD = "md"


def _print_table(plan: PlannedCommitments) -> None:
    rows = commitment_table_rows(plan)
    if rows:
        grid = grid_from_rows(
            rows,
            title=f"Commitments on the cheapest path: {plan.workspace}",
            essential=("Workload", "Commitment", "Units", "Months"),
            prose=("Commitment",),
        )
        print_table(console, grid, more="--format json")
    for sentence in plan.summary():
        console.print(f"- {sentence}", highlight=False)
    scenarios = scenario_table_rows(plan)
    if scenarios:
        grid = grid_from_rows(
            scenarios,
            title=f"Under the demand scenarios ({plan.scenarios_basis})",
            essential=("Scenario", "New commitments over the horizon"),
            prose=("Scenario", "New commitments over the horizon", "New in month 1"),
        )
        print_table(console, grid, more="--format json")


def commit_command(
    workspace: Annotated[
        Path | None,
        typer.Option(help="Workspace YAML (default: the warehouse's current workspace)."),
    ] = None,
    fmt: Annotated[CommitFormat, typer.Option("--format")] = CommitFormat.TABLE,
    output: Annotated[
        Path | None, typer.Option("-o", "--output", help="Output file (default: stdout).")
    ] = None,
    db: DbOption = None,
) -> None:
    """How much to commit, when and for how long: the commitments on the optimizer's cheapest
    path over the horizon (as ``tokendesk optimize``), and under each demand scenario."""
    try:
        ws, engine = pw.workspace_and_engine(db, workspace, check_price_file)
        plan = commitments(engine, ws)
    except (pw.WorkspaceFileError, WarehouseError, ValueError) as exc:
        raise fail(str(exc)) from None
    if fmt == CommitFormat.TABLE:
        _print_table(plan)
        return
    text = (
        jsontext.dumps(plan.json()) + "\n"
        if fmt == CommitFormat.JSON
        else commitment_markdown(plan)
    )
    if output is None or str(output) == "-":
        sys.stdout.write(text)
    else:
        output.write_text(text, encoding="utf-8")
        err.print(f"wrote {output}")


def register(app: typer.Typer) -> None:
    if not any(c.callback is commit_command for c in app.registered_commands):
        app.command("commit")(commit_command)
