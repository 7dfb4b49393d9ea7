"""How much to commit, when and for how long: read off the optimizer's cheapest path over the
horizon (``tokendesk commit``, the Scenarios page, the brief), so ``commit`` and ``optimize`` give
one answer. Under the workspace's demand scenarios the same programme is solved again with each
scenario's demand; the stated demand is the path ``optimize`` shows."""

from __future__ import annotations

from dataclasses import dataclass, replace

from costmodel.commit_levels import DemandScenario, default_scenarios
from costmodel.market import Engine
from costmodel.optimizer_horizon import (
    HorizonProblem,
    commitment_rows,
    commitment_sentences,
)
from costmodel.optimizer_workspace import horizon_problem
from costmodel.plan_inputs import hourly_load
from costmodel.sizing import OnDemandBasis
from costmodel.workspace_model import Workspace
from planning.context import planner_for
from planning.optimal_plan import Optimized, after_horizon_usd, solve_path
from planning.workspaces import Knobs
from tokendesk.labels import label

#: Relative gap a scenario's re-solve stops at: the solver then stops on a proven bound, not on
#: its time limit, so the same workspace gives the same answer on a busy machine (the path
#: ``optimize`` shows is solved as ``optimize`` solves it).
SCENARIO_GAP = 1e-4

BASIS = (
    "the optimizer's cheapest path over the 36-month horizon (as tokendesk optimize shows it):"
    " demand grows each quarter, the fleet's commitments are paid to their real end and then"
    " treated as the workspace's commitment.at_end says, new 1- or 3-year commitments start at"
    " quarter starts and are paid every month of their term within the horizon, the rest is bought"
    " on demand on the workspace's on-demand basis; each demand scenario is the same programme"
    " solved again with that scenario's demand"
)


@dataclass(frozen=True)
class ScenarioCommitments:
    """The commitments on the cheapest path under one demand scenario."""

    name: str
    probability: float
    demand_factor: float
    #: Growth per quarter for every workload; None = each workload's own (as stated).
    growth_per_quarter: float | None
    solver_status: str
    horizon_usd: float | None
    rows: tuple[dict, ...]
    #: Proven relative gap to the cheapest path under this scenario (None: no path).
    gap: float | None = None
    #: The growth × this (the default high scenario: twice each workload's own).
    growth_multiplier: float = 1.0

    def as_dict(self) -> dict:
        return {
            "name": self.name,
            "gap": self.gap,
            "probability": self.probability,
            "demand_factor": self.demand_factor,
            "growth_per_quarter": self.growth_per_quarter,
            "growth_multiplier": self.growth_multiplier,
            "solver_status": self.solver_status,
            "horizon_usd": None if self.horizon_usd is None else round(self.horizon_usd, 2),
            "commitments": list(self.rows),
            "new_units": new_units(self.rows),
        }


@dataclass(frozen=True)
class PlannedCommitments:
    """The commitments on the optimizer's cheapest path over the horizon (the same solution
    ``tokendesk optimize`` shows), on the workspace's on-demand basis and ``commitment.at_end``,
    and the same path re-solved under each demand scenario."""

    workspace: str
    rows: tuple[dict, ...]
    sentences: tuple[str, ...]
    on_demand_basis: str
    at_end: str
    solver_status: str
    horizon_usd: float | None
    scenarios: tuple[ScenarioCommitments, ...] = ()
    #: True where the workspace states no scenarios and the default low/base/high is used.
    default_scenarios: bool = False

    @property
    def scenarios_basis(self) -> str:
        if not self.scenarios:
            return "the stated demand only"
        if self.default_scenarios:
            return "default assumption: no growth / the stated growth / twice it (25/50/25%)"
        return "the workspace's commitment scenarios"

    def as_dict(self) -> dict:
        """The optimizer's block (``optimizer_plan`` in ``commit --format json``)."""
        return {
            "commitments": list(self.rows),
            "sentences": list(self.sentences),
            "on_demand_basis": self.on_demand_basis,
            "at_end": self.at_end,
            "solver_status": self.solver_status,
            "horizon_usd": None if self.horizon_usd is None else round(self.horizon_usd, 2),
            "basis": "the optimizer's cheapest path over the horizon, as tokendesk optimize"
            " shows it (its horizon.commitments)",
        }

    def summary(self) -> list[str]:
        """One sentence per workload: what it holds and the new units the path commits, per SKU
        and term (units of different SKUs are never added together) and from when."""
        out = []
        for w in dict.fromkeys(r["workload"] for r in self.rows):
            mine = [r for r in self.rows if r["workload"] == w]
            parts = [
                f"holds {r['units']} × {r['instance_type']} {label(r['pricing_model'])} to month"
                f" {r['until_month']} ({r['units_after_end']} kept after it)"
                for r in mine
                if r["kind"] == "held"
            ]
            for n in new_units(mine):
                starts, first = n["start_months"], n["units_month_1"]
                when = (
                    f"from month {starts[0]}"
                    if len(starts) == 1
                    else f"{first} in month 1, the rest at quarter starts to month {starts[-1]}"
                    if first
                    else f"from month {starts[0]}, more at quarter starts to month {starts[-1]}"
                )
                parts.append(
                    f"commits {n['units']} × {n['instance_type']} for {n['term']} ({when})"
                )
            after = after_horizon_usd(mine)
            if after > 0.005:
                parts.append(
                    f"${after:,.0f} of those terms falls after the horizon, outside its total"
                )
            out.append(f"{w}: " + "; ".join(parts) + ".")
        return out or ["No commitment on the cheapest path: everything is bought on demand."]

    def scenario_rows(self) -> list[dict]:
        """One row per scenario: its horizon total and the new units it commits, by term."""
        out = []
        for s in self.scenarios:
            news = new_units(s.rows)
            out.append(
                {
                    "scenario": s.name,
                    "probability": s.probability,
                    "demand_factor": s.demand_factor,
                    "growth_per_quarter": _growth_words(s),
                    "horizon_usd": None if s.horizon_usd is None else round(s.horizon_usd, 2),
                    "solver_status": s.solver_status,
                    "gap": s.gap,
                    "new_commitments": _words(news, "units"),
                    "new_in_month_1": _words(news, "units_month_1"),
                }
            )
        return out

    def scenario_sentences(self) -> list[str]:
        out = []
        for r in self.scenario_rows():
            total = "no path" if r["horizon_usd"] is None else f"${r['horizon_usd']:,.2f}"
            if r["solver_status"] == "feasible" and r["gap"] is not None:
                total += f", within {r['gap']:.2%} of the cheapest path (proven bound)"
            out.append(
                f"If demand turns out {r['scenario']} (p {r['probability']:.0%}): commit"
                f" {r['new_commitments']} over the horizon ({r['new_in_month_1']} in month 1);"
                f" horizon total {total}."
            )
        return out

    def json(self) -> dict:
        """``tokendesk commit --format json``."""
        return {
            "workspace": self.workspace,
            "basis": BASIS,
            "commitments": list(self.rows),
            "sentences": list(self.sentences),
            "summary": self.summary(),
            "scenarios_basis": self.scenarios_basis,
            "scenarios": [s.as_dict() for s in self.scenarios],
            "optimizer_plan": self.as_dict(),
        }


def _growth_words(s: ScenarioCommitments) -> str:
    base = "as stated" if s.growth_per_quarter is None else f"{s.growth_per_quarter:.0%}"
    return base if s.growth_multiplier == 1.0 else f"{s.growth_multiplier:g} × {base}"


def new_units(rows) -> list[dict]:
    """New units committed over the horizon per SKU and term ("1y", "3y"), with the months they
    start in and how many start in month 1: units of different SKUs are never added together."""
    out: dict[tuple, dict] = {}
    for r in rows:
        if r["kind"] != "new":
            continue
        term = f"{r['term_months'] // 12}y"
        key = (r["provider"], r["region"], r["instance_type"], term)
        n = out.setdefault(
            key,
            dict(zip(("provider", "region", "instance_type", "term"), key, strict=True))
            | {"units": 0, "units_month_1": 0, "start_months": []},
        )
        n["units"] += r["units"]
        n["units_month_1"] += r["units"] if r["from_month"] == 1 else 0
        n["start_months"] = sorted({*n["start_months"], r["from_month"]})
    return list(out.values())


def _words(news: list[dict], field: str) -> str:
    """Per SKU and term, in words ("15 × g6e.xlarge for 3y; 2 × …"), or "nothing"."""
    said = [f"{n[field]} × {n['instance_type']} for {n['term']}" for n in news if n[field]]
    return "; ".join(said) or "nothing"


def _scenario_problem(problem: HorizonProblem, ws: Workspace, s: DemandScenario) -> HorizonProblem:
    """``problem`` with the demand of scenario ``s``: month-1 demand × its factor, growing at its
    rate (or each workload's own)."""
    loads = {}
    for w in ws.demand:
        g = w.growth_per_quarter if s.growth_per_quarter is None else s.growth_per_quarter
        g *= s.growth_multiplier
        loads[w.workload] = tuple(
            tuple(float(v) for v in hourly_load(w, s.demand_factor * (1.0 + g) ** ((t - 1) // 3)))
            for t in range(1, problem.months + 1)
        )
    return replace(problem, loads=loads)


def _is_stated(s: DemandScenario) -> bool:
    return s.demand_factor == 1.0 and s.growth_per_quarter is None and s.growth_multiplier == 1.0


def commitments(
    engine: Engine,
    ws: Workspace,
    knobs: Knobs | None = None,
    *,
    scenarios: bool = True,
    optimum: Optimized | None = None,
) -> PlannedCommitments:
    """What to commit, when and for how long: read off the optimizer's path (one solution for
    ``commit`` and ``optimize``: ``optimum``'s where it is already solved), and, ``scenarios``,
    under each demand scenario."""
    if optimum is not None and optimum.horizon is not None and optimum.horizon_problem:
        problem, solution = optimum.horizon_problem, optimum.horizon
    else:
        problem = horizon_problem(planner_for(engine, ws, knobs or Knobs()))
        solution = solve_path(problem)
    rows = tuple(commitment_rows(problem, solution)) if solution.feasible else ()
    stated = ws.commitment.scenarios
    chosen = (stated or default_scenarios()) if scenarios else ()
    solved = []
    for s in chosen:
        if _is_stated(s):
            other, found = solution, rows
        else:
            p = _scenario_problem(problem, ws, s)
            other = solve_path(p, mip_rel_gap=SCENARIO_GAP)
            found = tuple(commitment_rows(p, other)) if other.feasible else ()
        solved.append(
            ScenarioCommitments(
                s.name,
                s.probability,
                s.demand_factor,
                s.growth_per_quarter,
                other.status,
                other.horizon_usd,
                found,
                other.gap,
                s.growth_multiplier,
            )
        )
    return PlannedCommitments(
        ws.name,
        rows,
        tuple(commitment_sentences(rows)) if solution.feasible else (solution.message,),
        OnDemandBasis(ws.on_demand_basis).value,
        ws.commitment.at_end,
        solution.status,
        solution.horizon_usd,
        tuple(solved),
        default_scenarios=not stated,
    )
