"""How much to commit, for a workspace: the commitment analysis of every workload at the
what-ifs' utilisation cap (``tokendesk commit``, the Scenarios page, the brief)."""

from __future__ import annotations

from costmodel.commitment_workspace import WorkloadCommitment, workspace_commitments
from costmodel.market import Engine
from costmodel.workspace_model import Workspace
from planning.context import planner_for
from planning.workspaces import Knobs


def commitments(
    engine: Engine, ws: Workspace, knobs: Knobs | None = None
) -> list[WorkloadCommitment]:
    """The analysis for every workload of ``ws``, at the Scenarios page's utilisation cap."""
    knobs = knobs or Knobs()
    return workspace_commitments(planner_for(engine, ws, knobs))
