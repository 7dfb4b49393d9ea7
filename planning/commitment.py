"""How much to commit, for a workspace: the commitment analysis of every workload at the
what-ifs' utilisation cap (``tokendesk commit``, the Scenarios page, the brief)."""

from __future__ import annotations

from dataclasses import dataclass

from costmodel.commitment_workspace import WorkloadCommitment, workspace_commitments
from costmodel.market import Engine
from costmodel.optimizer_horizon import commitment_rows, commitment_sentences, solve_horizon
from costmodel.optimizer_workspace import horizon_problem
from costmodel.sizing import OnDemandBasis
from costmodel.workspace_model import Workspace
from planning.context import planner_for
from planning.optimal_plan import HORIZON_TIME_LIMIT_S
from planning.workspaces import Knobs


def commitments(
    engine: Engine, ws: Workspace, knobs: Knobs | None = None
) -> list[WorkloadCommitment]:
    """The analysis for every workload of ``ws``, at the Scenarios page's utilisation cap."""
    knobs = knobs or Knobs()
    return workspace_commitments(planner_for(engine, ws, knobs))


@dataclass(frozen=True)
class PlannedCommitments:
    """The commitments on the optimizer's cheapest path over the horizon (the same solution
    ``tokendesk optimize`` shows), on the workspace's on-demand basis and ``commitment.at_end``."""

    rows: tuple[dict, ...]
    sentences: tuple[str, ...]
    on_demand_basis: str
    at_end: str
    solver_status: str
    horizon_usd: float | None

    def as_dict(self) -> dict:
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


def planned_commitments(
    engine: Engine, ws: Workspace, knobs: Knobs | None = None
) -> PlannedCommitments:
    """What to commit, when and for how long: read off the optimizer's path (one solution for
    ``commit`` and ``optimize``)."""
    planner = planner_for(engine, ws, knobs or Knobs())
    problem = horizon_problem(planner)
    solution = solve_horizon(problem, time_limit_s=HORIZON_TIME_LIMIT_S)
    rows = commitment_rows(problem, solution) if solution.feasible else []
    return PlannedCommitments(
        tuple(rows),
        tuple(commitment_sentences(rows)) if solution.feasible else (solution.message,),
        OnDemandBasis(ws.on_demand_basis).value,
        ws.commitment.at_end,
        solution.status,
        solution.horizon_usd,
    )
