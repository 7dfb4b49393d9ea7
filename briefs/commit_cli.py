"""``tokendesk commit``: how much of each workload's capacity to commit, and for how long, given
demand scenarios — expected monthly cost and regret of every commitment level for 1-year and
3-year terms, with each commitment's break-even utilisation."""

from __future__ import annotations

import json
import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from briefs import workspace_plans as wp
from briefs.cli import DbOption
from briefs.document import Bullets, Paragraph, Section, table
from briefs.optimize_cli import workspace_engine
from costmodel.commitment import option_rows, recommendation_sentence, shown_options
from costmodel.commitment_workspace import WorkloadCommitment, brief_rows, workspace_commitments
from costmodel.fleet import FleetPolicy
from costmodel.plan import PlanContext, WorkspaceEngine
from costmodel.scenarios import Engine
from costmodel.workspace import Workspace
from warehouse import WarehouseError

console = Console()
err = Console(stderr=True, soft_wrap=True)

BASIS = (
    "each option is priced over 36 months of demand (a 1-year commitment renewed at the same"
    " level): the fleet's commitments still in term carry need first and are paid whatever is"
    " decided; new committed units are paid every hour; the rest is bought on demand hour by hour"
    " in whole units; options run over every whole unit up to the horizon's peak need, each"
    " labelled with its share of the stated month-1 mean need; regret = the option's cost − the"
    " cheapest option's cost in the same scenario; break-even utilisation = committed rate ÷"
    " on-demand rate"
)


class CommitFormat(StrEnum):
    JSON = "json"
    TABLE = "table"
    MD = "md"


def commitments(
    engine: Engine, ws: Workspace, knobs: wp.Knobs | None = None
) -> list[WorkloadCommitment]:
    """The analysis for every workload of ``ws``, at the Scenarios page's utilisation cap."""
    knobs = knobs or wp.Knobs()
    ctx = PlanContext(ws, policy=FleetPolicy(utilisation_cap=knobs.utilisation_cap))
    return workspace_commitments(WorkspaceEngine(engine, ctx))


def commitment_section(analysis: list[WorkloadCommitment]) -> Section:
    """The analysis as a document section (for the brief)."""
    rows, sentences = brief_rows(analysis)
    return Section(
        "How much to commit",
        (
            Paragraph(BASIS[0].upper() + BASIS[1:] + "."),
            Bullets(tuple(sentences)),
            table("Commitment options under demand uncertainty", rows, sheet="Commitment"),
        ),
    )


def as_dict(ws: Workspace, analysis: list[WorkloadCommitment]) -> dict:
    workloads = []
    for a in analysis:
        entry: dict = {
            "workload": a.workload,
            "provider": a.provider,
            "region": a.region,
            "instance_type": a.instance_type,
            "unit_output_tok_s": round(a.unit_output_tok_s, 2),
            "notes": list(a.notes),
        }
        if a.result is not None:
            p, r = a.result.problem, a.result
            entry |= {
                "on_demand_usd_per_unit_hour": p.on_demand_usd_per_unit_hour,
                "on_demand_basis": a.on_demand_basis,
                "terms": [
                    {
                        "term": t.name,
                        "usd_per_unit_hour": round(t.usd_per_unit_hour, 4),
                        "basis": t.basis,
                        "break_even_utilisation": round(
                            t.usd_per_unit_hour / p.on_demand_usd_per_unit_hour, 4
                        ),
                    }
                    for t in p.terms
                ],
                "mean_units_needed_month_1": round(p.mean_units, 3),
                "peak_units_needed_over_horizon": p.peak_units,
                "held_commitments": [
                    {
                        "line": h.line,
                        "count": h.count,
                        "units": round(h.units, 3),
                        "term_end": h.term_end.isoformat() if h.term_end else None,
                        "usd_per_month": round(h.usd_per_month, 2),
                    }
                    for h in p.held_commitments
                ],
                "held_units_by_month": [round(u, 3) for u in p.held],
                "scenarios": [
                    {
                        "name": s.name,
                        "probability": s.probability,
                        "demand_factor": s.demand_factor,
                        "growth_per_quarter": p.growth(s),
                    }
                    for s in p.scenarios
                ],
                "scenarios_basis": (
                    "default assumption: no growth / the stated growth / twice it (25/50/25%)"
                    if a.default_scenarios
                    else "the workspace's commitment scenarios"
                ),
                "options": option_rows(r),
                "recommended": r.recommended.label,
                "least_worst_regret": r.least_regret.label,
                "recommendation": recommendation_sentence(a.workload, r),
            }
        workloads.append(entry)
    return {"workspace": ws.name, "basis": BASIS, "workloads": workloads}


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
            f"## {a.workload} on {a.provider} {a.instance_type} ({a.region})",
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
        ws, engine = workspace_engine(db, workspace)
        analysis = commitments(engine, ws)
    except (wp.WorkspaceFileError, WarehouseError, ValueError) as exc:
        err.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from None
    if fmt == CommitFormat.TABLE:
        _, sentences = brief_rows(analysis)
        for a in analysis:
            rows = _table_rows(a)
            if not rows:
                continue
            grid = Table(title=f"{a.workload}: {a.provider} {a.instance_type} ({a.region})")
            for header in rows[0]:
                grid.add_column(header, overflow="fold")
            for row in rows:
                grid.add_row(*row.values())
            console.print(grid)
        for sentence in sentences:
            console.print(sentence, highlight=False)
        return
    text = (
        json.dumps(as_dict(ws, analysis), indent=2, ensure_ascii=False) + "\n"
        if fmt == CommitFormat.JSON
        else _markdown(ws, analysis)
    )
    if output is None or str(output) == "-":
        sys.stdout.write(text)
    else:
        output.write_text(text, encoding="utf-8")
        err.print(f"wrote {output}")


def register(app: typer.Typer) -> None:
    app.command("commit")(commit_command)
