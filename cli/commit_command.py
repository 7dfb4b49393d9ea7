"""``tokendesk commit``: how much of each workload's capacity to commit, and for how long, given
demand scenarios — expected monthly cost and regret of every commitment level for 1-year and
3-year terms, with each commitment's break-even utilisation."""

from __future__ import annotations

import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from briefs.commitment_doc import BASIS, commitment_json
from cli.exits import fail
from cli.shared_options import DbOption
from costmodel.commit_levels import shown_options
from costmodel.commitment_workspace import WorkloadCommitment, brief_rows
from costmodel.workspace_model import Workspace
from planning import workspaces as pw
from planning.commitment import commitments, planned_commitments
from pricing.integrity import check_price_file
from tokendesk import jsontext
from tokendesk.labels import sku_label
from tokendesk.terminal import grid_from_rows, make_console, print_table
from warehouse import WarehouseError

console = make_console()
err = make_console(stderr=True)


class CommitFormat(StrEnum):
    JSON = "json"
    TABLE = "table"
    MD = "md"


def _table_rows(a: WorkloadCommitment) -> list[dict[str, str]]:
    if a.result is None:
        return []
    out = []
    for o in shown_options(a.result):
        out.append(
            {
                "Option": o.label,
                "$/unit-h": "—" if o.usd_per_unit_hour is None else f"{o.usd_per_unit_hour:,.2f}",
                "Break-even util.": "—"
                if o.break_even_utilisation is None
                else f"{o.break_even_utilisation:.0%}",
                "Expected util.": "—"
                if o.expected_utilisation is None
                else f"{o.expected_utilisation:.0%}",
                "Expected $/month": f"{o.expected_monthly_usd:,.0f}",
                "Expected regret": f"{o.expected_regret_usd:,.0f}",
                "Worst regret": f"{o.max_regret_usd:,.0f}",
            }
        )
    return out


def _markdown(ws: Workspace, analysis: list[WorkloadCommitment]) -> str:
    _, sentences = brief_rows(analysis)
    lines = [f"# How much to commit: {ws.name}", ""]
    lines += [f"- {s}" for s in sentences]
    for a in analysis:
        rows = _table_rows(a)
        if not rows:
            continue
        lines += [
            "",
            f"## {a.workload} on {sku_label(a.provider, a.region, a.instance_type)}",
            "",
            "| " + " | ".join(rows[0]) + " |",
            "|" + "---|" * len(rows[0]),
        ]
        lines += ["| " + " | ".join(r.values()) + " |" for r in rows]
    lines += ["", BASIS[0].upper() + BASIS[1:] + "."]
    return "\n".join(lines) + "\n"


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
    """How much capacity to commit per workload, and for how long, given demand scenarios:
    expected cost and regret of each commitment level for 1-year and 3-year terms."""
    try:
        ws, engine = pw.workspace_and_engine(db, workspace, check_price_file)
        analysis = commitments(engine, ws)
        planned = planned_commitments(engine, ws)
    except (pw.WorkspaceFileError, WarehouseError, ValueError) as exc:
        raise fail(str(exc)) from None
    if fmt == CommitFormat.TABLE:
        _, sentences = brief_rows(analysis)
        for a in analysis:
            rows = _table_rows(a)
            if not rows:
                continue
            grid = grid_from_rows(
                rows,
                title=f"{a.workload}: {sku_label(a.provider, a.region, a.instance_type)}",
                essential=("Option", "Expected $/month", "Expected regret"),
                prose=("Option",),
            )
            print_table(console, grid, more="--format json")
        for sentence in sentences:
            console.print(sentence, highlight=False)
        console.print("On the optimizer's cheapest path (as tokendesk optimize):", highlight=False)
        for sentence in planned.sentences:
            console.print(f"- {sentence}", highlight=False)
        return
    text = (
        jsontext.dumps(commitment_json(ws, analysis) | {"optimizer_plan": planned.as_dict()}) + "\n"
        if fmt == CommitFormat.JSON
        else _markdown(ws, analysis)
        + "\n## On the optimizer's cheapest path\n\n"
        + "".join(f"- {s}\n" for s in planned.sentences)
    )
    if output is None or str(output) == "-":
        sys.stdout.write(text)
    else:
        output.write_text(text, encoding="utf-8")
        err.print(f"wrote {output}")


def register(app: typer.Typer) -> None:
    if not any(c.callback is commit_command for c in app.registered_commands):
        app.command("commit")(commit_command)
