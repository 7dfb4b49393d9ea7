"""The workspace's commitment block: its demand scenarios, stated default and validation. How
much to commit is read off the optimizer's path (tests/planning/test_commitment.py)."""

from __future__ import annotations

import pytest

from costmodel.commit_levels import default_scenarios
from costmodel.workspace_model import WorkspaceError, workspace_from_dict, workspace_to_dict
from tests.workspace_data import workspace


def test_default_scenarios_are_stated_and_add_up_to_one():
    scenarios = default_scenarios()
    assert sum(s.probability for s in scenarios) == pytest.approx(1.0)
    # No growth; each workload's own growth; twice each workload's own growth.
    assert [s.growth_per_quarter for s in scenarios] == [0.0, None, None]
    assert [s.growth_multiplier for s in scenarios] == [1.0, 1.0, 2.0]


def test_the_commitment_block_round_trips():
    data = workspace(
        commitment={
            "scenarios": [
                {"name": "low", "probability": 0.3, "demand_factor": 0.7, "growth_per_quarter": 0},
                {"name": "base", "probability": 0.7},
            ],
            "discount_3y": 0.5,
        }
    )
    ws = workspace_from_dict(data)
    assert workspace_from_dict(workspace_to_dict(ws)) == ws


def test_the_commitment_block_is_validated():
    with pytest.raises(WorkspaceError, match="add up to 1"):
        workspace_from_dict(
            workspace(commitment={"scenarios": [{"name": "a", "probability": 0.4}]})
        )
    with pytest.raises(WorkspaceError, match=r"commitment.scenarios\[0\].probability"):
        workspace_from_dict(workspace(commitment={"scenarios": [{"name": "a"}]}))
    with pytest.raises(WorkspaceError, match="commitment.discount_1y"):
        workspace_from_dict(workspace(commitment={"discount_1y": 1.5}))
