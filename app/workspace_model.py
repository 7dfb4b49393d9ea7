"""Page model for the Workspace and Scenarios pages: no Streamlit here, so every rule is testable.

* The Workspace page edits the fleet and the demand as tables; ``fleet_from_rows`` /
  ``demand_from_rows`` turn the edited rows back into a workspace, or a list of problems that
  name the table, the row and the column.
* The Scenarios page keeps its what-ifs in the URL (``tokendesk.scenario_inputs`` parses them with
  the one input domain); ``scenario_view`` applies the ones the link carries on top of the stored
  workspace.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from briefs.workspace_plans import Knobs
from costmodel.workspace import (
    Workspace,
    WorkspaceError,
    workspace_from_dict,
    workspace_to_dict,
)
from tokendesk import scenario_inputs as si

FLEET_COLUMNS = (
    "provider",
    "region",
    "instance_type",
    "count",
    "pricing_model",
    "usd_per_hour",
    "commitment_end",
    "early_termination_usd",
    "serves",
)
DEMAND_COLUMNS = (
    "workload",
    "model",
    "output_tokens_per_month",
    "input_tokens_per_month",
    "interactive_share",
    "peak_to_mean",
    "ttft_ms",
    "percentile",
    "growth_per_quarter",
    "accept_results_from",
    "small_model",
)
#: How the fleet table shows its columns (the count first: it is what changes most often).
FLEET_ORDER = (
    "count",
    "instance_type",
    "provider",
    "region",
    "pricing_model",
    "usd_per_hour",
    "commitment_end",
    "early_termination_usd",
    "serves",
)
#: Optional numbers are edited as text so an unset one shows empty; the validator parses them.
_OPTIONAL_NUMBERS = {"usd_per_hour", "early_termination_usd"}

#: URL keys that change the workspace's demand for a what-if (every workload alike).
DEMAND_OVERRIDES = {"peak": "peak_to_mean", "inter": "interactive_share", "slo": "ttft_ms"}


def _blank(value: object) -> bool:
    if value is None:
        return True
    if isinstance(value, float) and math.isnan(value):
        return True
    return isinstance(value, str) and not value.strip()


def _clean(row: Mapping) -> dict:
    out = {}
    for key, value in row.items():
        if _blank(value):
            continue
        if hasattr(value, "isoformat") and not isinstance(value, str):
            value = value.isoformat()[:10]
        if hasattr(value, "item"):  # numpy scalars from an edited frame
            value = value.item()
        out[key] = value
    return out


def _cell(column: str, value: object) -> object:
    if value is None:
        return ""
    if column in _OPTIONAL_NUMBERS:
        return f"{value:g}"
    return value


def fleet_rows(ws: Workspace) -> list[dict]:
    """One row per fleet line; an unset value is an empty cell (never "None")."""
    body = workspace_to_dict(ws)
    return [{c: _cell(c, line.get(c)) for c in FLEET_COLUMNS} for line in body["fleet"]]


def demand_rows(ws: Workspace) -> list[dict]:
    rows = []
    for w in ws.demand:
        rows.append(
            {
                "workload": w.workload,
                "model": w.model,
                "output_tokens_per_month": w.output_tokens_per_month,
                "input_tokens_per_month": w.input_tokens_per_month,
                "interactive_share": w.interactive_share,
                "peak_to_mean": w.peak_to_mean,
                "ttft_ms": w.ttft_ms,
                "percentile": w.percentile,
                "growth_per_quarter": w.growth_per_quarter,
                "accept_results_from": ", ".join(w.accept_results_from),
                "small_model": w.small_model,
            }
        )
    return rows


def _demand_body(row: Mapping) -> dict:
    row = _clean(row)
    slo = {}
    if "ttft_ms" in row:
        slo["ttft_ms"] = row.pop("ttft_ms")
    if "percentile" in row:
        slo["percentile"] = row.pop("percentile")
    if slo:
        row["slo"] = slo
    if isinstance(row.get("accept_results_from"), str):
        row["accept_results_from"] = [
            m.strip() for m in row["accept_results_from"].split(",") if m.strip()
        ]
    return row


def edited_workspace(
    ws: Workspace, fleet: Sequence[Mapping], demand: Sequence[Mapping]
) -> tuple[Workspace | None, list[str]]:
    """The workspace with the edited tables, or None and a problem per bad cell."""
    body = workspace_to_dict(ws)
    body["fleet"] = [_clean(r) for r in fleet if any(not _blank(v) for v in r.values())]
    body["demand"] = [_demand_body(r) for r in demand if any(not _blank(v) for v in r.values())]
    try:
        return workspace_from_dict(body), []
    except WorkspaceError as exc:
        return None, [_where(exc)]


def _where(exc: WorkspaceError) -> str:
    """``fleet[2].count`` -> ``Fleet, row 3, column count``."""
    where = exc.where
    for table in ("fleet", "demand"):
        if where.startswith(f"{table}["):
            index, _, column = where[len(table) + 1 :].partition("]")
            column = column.lstrip(".").replace("slo.", "")
            label = f"{table.capitalize()}, row {int(index) + 1}"
            return (
                f"{label}, column {column}: {exc.message}" if column else f"{label}: {exc.message}"
            )
    return f"{where}: {exc.message}"


@dataclass(frozen=True)
class ScenarioView:
    workspace: Workspace
    knobs: Knobs
    notices: tuple[str, ...]
    #: What-ifs applied on top of the stored workspace, as URL key -> value.
    overrides: dict


def scenario_view(params: Mapping, ws: Workspace) -> ScenarioView:
    """Validated URL what-ifs on top of the workspace; a bad value falls back with a notice."""
    inputs, notices = si.from_params(params)
    present = {k for k in params if k in DEMAND_OVERRIDES}
    good = {k for k in present if not any(n.startswith(f"Ignored {k}=") for n in notices)}
    overrides = {k: getattr(inputs, k) for k in sorted(good)}
    demand = tuple(
        replace(w, **{DEMAND_OVERRIDES[k]: float(v) for k, v in overrides.items()})
        for w in ws.demand
    )
    custom = si.parse_custom(inputs.custom) if inputs.custom else ()
    knobs = Knobs(
        amd_share=inputs.amd,
        cpu_share=inputs.cpu,
        custom=custom,
        loaded_usd_per_engineer_week=inputs.rate,
        utilisation_cap=inputs.util,
    )
    return ScenarioView(replace(ws, demand=demand), knobs, tuple(notices), overrides)
