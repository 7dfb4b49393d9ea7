"""Page model for the Workspace and Scenarios pages: no Streamlit here, so every rule is testable.

* The Workspace page edits the fleet and the demand as tables; ``fleet_from_rows`` /
  ``demand_from_rows`` turn the edited rows back into a workspace, or a list of problems that
  name the table, the row and the column.
* The Scenarios page keeps its what-ifs in the URL; ``scenario_view`` (shared with the command
  line's ``--link``) applies the ones the link carries on top of the stored workspace.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import pandas as pd

from briefs.demand_doc import TraceFileError, TrafficError, trace_document
from costmodel.workspace import (
    FLEET_COLUMNS,
    SHAPE_FIELDS,
    Workspace,
    WorkspaceError,
    workspace_from_dict,
    workspace_to_dict,
)
from planning.workspaces import DEMAND_OVERRIDES, ScenarioView, scenario_view

if TYPE_CHECKING:
    from planning.bill import BillReport

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
    # The table does not show a workload's shape (prefix-cache share, mean lengths, source):
    # a workload kept under its name keeps the shape it had.
    shapes = {w["workload"]: w for w in workspace_to_dict(ws)["demand"]}
    for row in body["demand"]:
        kept = shapes.get(row.get("workload"), {})
        for name in SHAPE_FIELDS:
            if name in kept and _blank(row.get(name)):
                row[name] = kept[name]
    try:
        return workspace_from_dict(body), []
    except WorkspaceError as exc:
        return None, [_where(exc)]


@dataclass(frozen=True)
class BillView:
    """What the Workspace page shows of an uploaded bill, as text and table rows."""

    source: str
    fleet: list[dict]
    unplaced: list[dict]
    reconciliation: str
    explained: list[str]
    changes: list[dict]
    notes: list[str]


def bill_view(report: BillReport) -> BillView:
    """The same figures ``tokendesk workspace from-bill`` prints, laid out for the page."""
    src = report.source()
    files = "; ".join(
        f"{f['file']} ({f['rows']:,} rows, FOCUS {f['focus_version']},"
        f" {', '.join(f['providers'])}, billed ${f['billed_usd']:,.2f})"
        for f in src["files"]
    )
    month = src["month"] or "no month"
    source = f"Source: {files}. Fleet month: {month}; confidence {src['confidence']}."
    fleet = [
        {
            "Count": r["count"],
            "Instance type": r["instance_type"],
            "Provider": r["provider"],
            "Region": r["region"],
            "Pricing model": r["pricing_model"],
            "$/hour (effective)": f"{r['usd_per_hour']:,.4f}",
            "Commitment ends": r["commitment_end"] or "",
            "Serves": r["serves"],
            "Billed $": f"{r['billed_usd']:,.2f}",
        }
        for r in report.fleet_rows()
    ]
    unplaced = [
        {"Reason": u["reason"], "Billed $": f"{u['cost_usd']:,.2f}", "Rows": f"{u['rows']:,}"}
        for u in report.unplaced_rows()
    ]
    rec = report.reconciliation
    summary = (
        f"{month}: accelerator spend on the bill ${rec.bill_usd:,.2f}; Stay month 1"
        f" ${rec.stay_month1_usd:,.2f}; difference ${rec.difference_usd:+,.2f}."
    )
    explained = [
        f"{ln.label}: ${ln.difference_usd:+,.2f} = "
        + " ".join(f"({p.usd:+,.2f}: {p.why})" for p in ln.parts)
        for ln in rec.lines
    ]
    changes = [
        {
            "Change": c.change,
            "Instance type": c.instance_type,
            "Provider": c.provider,
            "Region": c.region,
            "Pricing model": c.pricing_model,
            "Details": "; ".join(c.details),
        }
        for c in report.changes
    ]
    return BillView(source, fleet, unplaced, summary, explained, changes, list(report.notes))


def bill_provenance(versions: pd.DataFrame, version: int | None) -> str:
    """The sentence the Scenarios page shows when the current fleet was taken from a bill."""
    if version is None or versions.empty:
        return ""
    rows = versions[versions["version"] == version]
    if rows.empty or rows.iloc[0]["origin"] != "bill":
        return ""
    row = rows.iloc[0]
    who = row["created_by"] or "someone not recorded"
    return (
        f"The fleet comes from your cloud bill: {row['source']} (workspace version {version},"
        f" saved by {who} on {row['saved_at']:%Y-%m-%d}). Stay prices each line at its count ×"
        " the bill's effective rate × 730 h."
    )


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


__all__ = [
    "DEMAND_OVERRIDES",
    "BillView",
    "bill_provenance",
    "bill_view",
    "ScenarioView",
    "demand_rows",
    "edited_workspace",
    "fleet_rows",
    "scenario_view",
]


# ------------------------------------------------------------------ demand from a trace
#: The dashboard's upload limit (``.streamlit/config.toml`` ``maxUploadSize``): about 550,000
#: rows of an Azure trace. The week-long Azure traces (~700 MB) belong on the command line
#: (``tokendesk workspace demand-from FILE``), which streams them.
MAX_TRACE_UPLOAD_BYTES = 20 * 1024 * 1024


def trace_demand(name: str, data: bytes) -> tuple[dict | None, str | None]:
    """(the demand document, None) for an uploaded trace, or (None, why it was refused)."""
    if len(data) > MAX_TRACE_UPLOAD_BYTES:
        return None, (
            f"{name}: {len(data) / 1024**2:,.0f} MB is over the page's "
            f"{MAX_TRACE_UPLOAD_BYTES // 1024**2} MB; use `tokendesk workspace demand-from FILE`"
        )
    try:
        return trace_document(name=name, data=data), None
    except (TraceFileError, TrafficError) as exc:
        return None, str(exc)


def hour_of_day_frame(doc: dict) -> pd.DataFrame:
    """One row per hour of the clock the trace covered: its rate relative to the mean."""
    curve = doc["hour_of_day"]
    rows = (
        []
        if curve is None
        else [
            {"hour": f"{h:02d}:00", "relative_rate": v}
            for h, v in enumerate(curve["values"])
            if v is not None
        ]
    )
    return pd.DataFrame(rows, columns=["hour", "relative_rate"])


def over_time_frame(doc: dict) -> pd.DataFrame:
    """The trace's tokens per bucket (its peak ÷ mean grain) relative to the mean, by bucket
    start: hours or minutes after the first request."""
    curve = doc["over_time"]
    grain = curve["grain"].split()[-1]
    return pd.DataFrame(
        {"after": list(range(len(curve["values"]))), "relative_rate": curve["values"]}
    ).assign(unit=grain)


def daily_curve_complete(doc: dict) -> bool:
    """A daily curve needs every hour of the day."""
    curve = doc["hour_of_day"]
    return curve is not None and all(v is not None for v in curve["values"])


def _bin_label(low: int, below: int) -> str:
    return f"{low:,}" if below - low == 1 else f"{low:,}–{below - 1:,}"


def length_frame(doc: dict) -> pd.DataFrame:
    """Requests per doubling of length, input and output, in length order."""
    rows = [
        {
            "tokens": _bin_label(b["from_tokens"], b["below_tokens"]),
            "from_tokens": b["from_tokens"],
            "which": which,
            "requests": b["requests"],
        }
        for key, which in (("input_length", "Input"), ("output_length", "Output"))
        for b in doc[key]["histogram"]
    ]
    frame = pd.DataFrame(rows, columns=["tokens", "from_tokens", "which", "requests"])
    return frame.sort_values(["from_tokens", "which"], kind="stable").reset_index(drop=True)
