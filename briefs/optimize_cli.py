"""``tokendesk optimize``: the cheapest fleet for the workspace's demand within its constraints,
beside Stay and the built-in scenarios priced the same way, and the price of diversification."""

from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from briefs import workspace_plans as wp
from briefs.cli import DbOption
from briefs.document import BarChart, Block, Bullets, Paragraph, Section, table
from briefs.workspace_input import read_workspace
from costmodel.fleet import FleetPolicy
from costmodel.optimizer import (
    FrontierPoint,
    OwnedComparison,
    Solution,
    comparable_cost,
    diversification_frontier,
    plan_lines,
    solve,
    with_owned,
    workspace_problem,
)
from costmodel.owned import HOURS_PER_YEAR
from costmodel.plan import PlanContext, PlanResult, WorkspaceEngine, builtin_plans
from costmodel.scenarios import Engine, MigrationInputs
from costmodel.tables import electricity_prices, owned_servers
from costmodel.workspace import Workspace
from pricing.integrity import check_price_file
from warehouse import Warehouse, WarehouseError

console = Console()
err = Console(stderr=True, soft_wrap=True)


class OptimizeFormat(StrEnum):
    JSON = "json"
    TABLE = "table"
    MD = "md"


@dataclass(frozen=True)
class Optimized:
    workspace: Workspace
    solution: Solution
    builtins: tuple[PlanResult, ...]
    #: Each built-in scenario priced as the optimizer prices a plan.
    comparable: dict[str, float]
    frontier: list[FrontierPoint]
    solve_seconds: float
    n_candidates: int
    n_plus_one: bool
    #: The workspace's owned servers beside the cloud options they replace (when allowed).
    owned: tuple[OwnedComparison, ...] = ()

    @property
    def stay(self) -> PlanResult:
        return next(r for r in self.builtins if r.is_baseline)

    @property
    def saving_vs_stay(self) -> float | None:
        if self.solution.objective_usd_per_month is None:
            return None
        return self.comparable[self.stay.name] - self.solution.objective_usd_per_month

    def as_dict(self) -> dict:
        s = self.solution
        return {
            "name": "Optimal",
            "workspace": self.workspace.name,
            "solver_status": s.status,
            "objective_usd_per_month": _money(s.objective_usd_per_month),
            "gap": s.gap,
            "bound_usd_per_month": _money(s.bound_usd_per_month),
            "run_rate_usd_per_month": round(s.run_rate_usd_per_month, 2),
            "released_commitments_paid_usd_per_month": round(s.released_paid_usd_per_month, 2),
            "one_time_usd": round(s.one_time_usd, 2),
            "vendor_shares": {k: round(v, 4) for k, v in s.vendor_shares.items()},
            "hhi": round(s.hhi, 4) if s.feasible else None,
            "n_plus_one": self.n_plus_one,
            "candidates": self.n_candidates,
            "solve_seconds": round(self.solve_seconds, 3),
            "fleet": [ln.as_dict() for ln in plan_lines(s)],
            "stay_usd_per_month": round(self.comparable[self.stay.name], 2),
            "saving_vs_stay_usd_per_month": _money(self.saving_vs_stay),
            "builtin_scenarios": [
                {
                    "name": r.name,
                    "feasible": r.feasible,
                    "constraint_violations": list(r.constraint_violations),
                    "comparable_usd_per_month": round(self.comparable[r.name], 2),
                }
                for r in self.builtins
            ],
            "diversification_frontier": [
                {
                    "max_vendor_share": p.max_vendor_share,
                    "solver_status": p.status,
                    "objective_usd_per_month": _money(p.objective_usd_per_month),
                    "premium_usd_per_month": _money(p.premium_usd_per_month),
                    "hhi": round(p.hhi, 4) if p.feasible else None,
                    "vendor_shares": {k: round(v, 4) for k, v in p.vendor_shares.items()},
                }
                for p in self.frontier
            ],
            "owned_hardware": owned_rows(self.owned),
            "basis": (
                "objective = month-1 run rate (committed fleet units paid whether used or not)"
                " + one-time migration and early-termination costs spread over 36 months; the"
                " built-in scenarios are priced the same way"
            ),
        }


def _proven(s: Solution) -> str:
    if s.gap is None or s.bound_usd_per_month is None:
        return "no proven bound"
    return f"gap {s.gap:.4%} (no plan costs less than ${s.bound_usd_per_month:,.2f}/month)"


def _money(v: float | None) -> float | None:
    return None if v is None else round(v, 2)


def optimize(
    engine: Engine,
    ws: Workspace,
    knobs: wp.Knobs | None = None,
    *,
    n_plus_one: bool = False,
    mip_rel_gap: float = 1e-4,
) -> Optimized:
    knobs = knobs or wp.Knobs()
    ctx = PlanContext(
        ws,
        policy=FleetPolicy(utilisation_cap=knobs.utilisation_cap),
        migration=MigrationInputs(loaded_usd_per_engineer_week=knobs.loaded_usd_per_engineer_week),
        one_time_usd_by_backend=dict(knobs.one_time_usd_by_backend),
    )
    engine, owned = with_owned(engine, ws, owned_servers(), electricity_prices())
    planner = WorkspaceEngine(engine, ctx)
    builtins = planner.evaluate(builtin_plans(knobs.amd_share, knobs.cpu_share))
    problem = workspace_problem(planner, n_plus_one=n_plus_one)
    started = time.perf_counter()
    solution = solve(problem, mip_rel_gap=mip_rel_gap)
    elapsed = time.perf_counter() - started
    frontier = diversification_frontier(problem, mip_rel_gap=mip_rel_gap)
    comparable = {r.name: comparable_cost(planner, r) for r in builtins}
    return Optimized(
        ws,
        solution,
        builtins,
        comparable,
        frontier,
        elapsed,
        len(problem.candidates),
        n_plus_one,
        owned,
    )


def owned_rows(owned: tuple[OwnedComparison, ...]) -> list[dict]:
    """Each owned server's equivalent rate, its inputs' sources and its break-even against the
    cheapest cloud instance with the same accelerators, per pricing model."""
    rows = []
    for c in owned:
        r = c.rate
        rows.append(
            {
                "server": r.server.server_id,
                "name": r.server.name,
                "accelerator_id": r.server.accelerator_id,
                "accelerators": r.server.accelerator_count,
                "usd_per_server_hour": round(r.usd_per_server_hour, 4),
                "usd_per_accelerator_hour": round(r.usd_per_accelerator_hour, 4),
                "capital_usd_per_hour": round(r.capital_usd_per_year / HOURS_PER_YEAR, 4),
                "power_usd_per_hour": round(r.power_usd_per_hour, 4),
                "colo_usd_per_hour": round(r.colo_usd_per_year / HOURS_PER_YEAR, 4),
                "staff_usd_per_hour": round(r.staff_usd_per_year / HOURS_PER_YEAR, 4),
                "running_usd_per_month": round(r.running_usd_per_month, 2),
                "capex_usd": r.server.capex.value,
                "confidence": r.confidence,
                "inputs": [
                    {
                        "name": i.name,
                        "value": i.value,
                        "unit": i.unit,
                        "source": i.source,
                        "source_url": i.source_url,
                        "as_of": i.as_of or "date unknown",
                        "confidence": i.confidence,
                    }
                    for i in r.inputs
                ],
                "versus_cloud": [
                    {
                        "pricing_model": model,
                        "provider": o.provider,
                        "region": o.region,
                        "instance_type": o.instance_type,
                        "usd_per_hour": round(usd, 4),
                        "break_even_months": None if months is None else round(months, 1),
                    }
                    for model, o, usd, months in c.cloud
                ],
            }
        )
    return rows


def owned_sentences(owned: tuple[OwnedComparison, ...]) -> list[str]:
    """One sentence per owned server: its rate and its break-even against the cloud."""
    out = []
    for c in owned:
        r = c.rate
        text = (
            f"Owned {r.server.name}: ${r.usd_per_server_hour:,.2f}/server-hour ="
            f" ${r.usd_per_accelerator_hour:,.2f}/accelerator-hour ({r.confidence} confidence)"
        )
        if c.cloud:
            model, o, usd, months = c.cloud[0]
            against = f"{o.provider} {o.instance_type} {model} at ${usd:,.2f}/h"
            text += (
                f"; pays back in {months:,.1f} months against {against}"
                if months is not None
                else f"; never pays back against {against}"
            )
        out.append(text + ".")
    return out


def _rows(o: Optimized) -> list[dict[str, str]]:
    return [
        {
            "Workload": ln.workload,
            "Role": ln.role,
            "Provider / region": f"{ln.provider} {ln.region}",
            "Instance": ln.instance_type,
            "Pricing": ln.pricing_model,
            "Count": str(ln.count),
            "$/h": f"{ln.usd_per_hour:,.4f}",
            "$/month": f"{ln.monthly_usd:,.0f}",
        }
        for ln in plan_lines(o.solution)
    ]


def _summary(o: Optimized) -> list[str]:
    s = o.solution
    out = [
        f"Solver: {s.status}, {_proven(s)}, {o.n_candidates} candidates, {o.solve_seconds:.2f} s.",
    ]
    if s.feasible:
        shares = ", ".join(f"{k} {v:.0%}" for k, v in s.vendor_shares.items())
        out.append(
            f"Optimal: ${s.objective_usd_per_month:,.0f}/month (run rate"
            f" ${s.run_rate_usd_per_month:,.0f}, one-time ${s.one_time_usd:,.0f});"
            f" Stay ${o.comparable[o.stay.name]:,.0f}/month; saving"
            f" ${o.saving_vs_stay:,.0f}/month. Traffic: {shares} (HHI {s.hhi:.2f})."
        )
    else:
        out.append(f"No fleet meets every constraint: {s.message}")
    for r in o.builtins:
        flag = "" if r.feasible and not r.constraint_violations else " (breaks a constraint)"
        out.append(f"{r.name}: ${o.comparable[r.name]:,.0f}/month{flag}")
    out += owned_sentences(o.owned)
    out.append("Price of diversification (vendor-share cap → $/month, premium, HHI):")
    for p in o.frontier:
        if p.feasible:
            out.append(
                f"  ≤ {p.max_vendor_share:.0%}: ${p.objective_usd_per_month:,.0f}"
                f" (+${p.premium_usd_per_month:,.0f}), HHI {p.hhi:.2f}"
            )
        else:
            out.append(f"  ≤ {p.max_vendor_share:.0%}: no feasible fleet")
    return out


def brief_sections(o: Optimized) -> tuple[Section, ...]:
    """Optimal and the price of diversification, for the scenario brief (same figures as the
    Scenarios page and ``tokendesk optimize``)."""
    s = o.solution
    stay = o.comparable[o.stay.name]
    rows = [
        {
            "scenario": r.name,
            "usd_per_month": round(o.comparable[r.name], 2),
            "vs_stay_usd_per_month": round(o.comparable[r.name] - stay, 2),
            "meets_every_constraint": "yes" if r.feasible and not r.constraint_violations else "no",
        }
        for r in o.builtins
    ]
    if s.feasible and s.objective_usd_per_month is not None:
        rows.append(
            {
                "scenario": "Optimal",
                "usd_per_month": round(s.objective_usd_per_month, 2),
                "vs_stay_usd_per_month": round(s.objective_usd_per_month - stay, 2),
                "meets_every_constraint": "yes",
            }
        )
    frontier = [
        {
            "max_vendor_share": p.max_vendor_share,
            "usd_per_month": round(p.objective_usd_per_month, 2),
            "premium_usd_per_month": round(p.premium_usd_per_month or 0.0, 2),
            "vendor_hhi": round(p.hhi, 4),
        }
        for p in o.frontier
        if p.feasible and p.objective_usd_per_month is not None and p.hhi is not None
    ]
    blocks: list[Block] = [
        Paragraph(o.as_dict()["basis"].capitalize() + "."),
        Bullets(tuple(_summary(o))),
        table("Every scenario and Optimal, priced the same way", rows, sheet="Optimal"),
    ]
    if s.feasible:
        fleet = [ln.as_dict() for ln in plan_lines(s)]
        blocks.append(table("Optimal: fleet", fleet, sheet="Optimal fleet"))
    diversification: list[Block] = [
        Paragraph(
            "The optimal fleet solved again under each vendor-share cap: what each step away from "
            "concentration costs. HHI is the sum of squared traffic shares (1 = one vendor)."
        ),
        table("Cost against vendor concentration", frontier, sheet="Diversification"),
    ]
    if frontier:
        diversification.append(
            BarChart(
                "Optimal cost under each vendor-share cap",
                tuple(
                    f"cap {p['max_vendor_share']:.0%}, HHI {p['vendor_hhi']:.2f}" for p in frontier
                ),
                tuple(p["usd_per_month"] for p in frontier),
                "USD per month",
                value_format=lambda v: f"${v:,.0f}",
            )
        )
    sections = [
        Section("Optimal", tuple(blocks)),
        Section("Price of diversification", tuple(diversification)),
    ]
    if o.owned:
        sections.append(owned_section(o.owned))
    return tuple(sections)


def owned_section(owned: tuple[OwnedComparison, ...]) -> Section:
    """Owned servers next to the cloud: their rate, how it is made, break-even months."""
    rows = [
        {k: v for k, v in row.items() if k not in ("inputs", "versus_cloud")}
        for row in owned_rows(owned)
    ]
    inputs = [{"server": row["server"], **i} for row in owned_rows(owned) for i in row["inputs"]]
    return Section(
        "Owned hardware",
        (
            Paragraph(
                "Each server's equivalent hourly rate: capital repaid with interest over the"
                " depreciation years, plus colocation and staff, over 8,760 hours a year, plus"
                " power × PUE × electricity price. Break-even months = capex ÷ (the cloud"
                " instance's monthly cost − the server's monthly running cost)."
            ),
            Bullets(tuple(owned_sentences(owned))),
            table("Owned servers: equivalent rates", rows, sheet="Owned"),
            table("Owned servers: every input and its source", inputs, sheet="Owned inputs"),
        ),
    )


def _markdown(o: Optimized) -> str:
    rows = _rows(o)
    lines = [f"# Optimal fleet for {o.workspace.name}", ""]
    lines += [f"- {text}" for text in _summary(o)]
    lines.append("")
    if rows:
        lines.append("| " + " | ".join(rows[0]) + " |")
        lines.append("|" + "---|" * len(rows[0]))
        lines += ["| " + " | ".join(r.values()) + " |" for r in rows]
    lines.append("")
    lines.append(o.as_dict()["basis"].capitalize() + ".")
    return "\n".join(lines) + "\n"


def workspace_engine(db: Path | None, workspace: Path | None) -> tuple[Workspace, Engine]:
    """The workspace (from ``workspace``, else the warehouse's current one) and the scenario
    engine over the warehouse's priced options, read in one visit to the warehouse."""
    with Warehouse.open(db, read_only=True, seed_check=check_price_file) as warehouse:
        if workspace is not None:
            ws, _ = read_workspace(workspace)
        else:
            _, ws = wp.stored_workspace(warehouse)
        return ws, wp.engine_for(warehouse)


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
        ws, engine = workspace_engine(db, workspace)
        result = optimize(engine, ws, n_plus_one=n_plus_one)
    except (wp.WorkspaceFileError, WarehouseError, ValueError) as exc:
        err.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from None
    if fmt == OptimizeFormat.JSON:
        text = json.dumps(result.as_dict(), indent=2, ensure_ascii=False) + "\n"
    elif fmt == OptimizeFormat.MD:
        text = _markdown(result)
    else:
        table = Table(title=f"Optimal fleet for {ws.name}")
        rows = _rows(result)
        for header in rows[0] if rows else ["(no fleet)"]:
            table.add_column(header, overflow="fold")
        for row in rows:
            table.add_row(*row.values())
        console.print(table)
        for line in _summary(result):
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
    app.command("optimize")(optimize_command)
