"""What one fleet costs for the same output volume at two workload shapes: the workspace's own
and a trace's (``tokendesk workspace demand-from``'s ``workload_fields``).

The trace lends its shape only: its input tokens per output token, mean request lengths and
prefix-cache share. The output volume, the SLO, the day's peak ÷ mean, growth and the fleet stay
the workspace's, so the two differ by shape alone. A trace's peak ÷ mean is not used: a short
trace's is read per minute (a burst, not the daily curve the workspace means).
"""

from __future__ import annotations

from dataclasses import replace

from costmodel import Engine
from costmodel.plan import WorkspaceEngine
from costmodel.plan_inputs import STAY, PlanContext
from costmodel.plan_result import PlanResult, stay_result
from costmodel.workspace_model import Workspace


def trace_shaped(ws: Workspace, workload: str, fields: dict, source: str) -> Workspace:
    """``ws`` with ``workload`` given the trace's shape at its own output volume."""
    w = ws.workload(workload)
    ratio = fields["input_tokens_per_month"] / fields["output_tokens_per_month"]
    shaped = replace(
        w,
        input_tokens_per_month=w.output_tokens_per_month * ratio,
        input_tokens_mean=fields.get("input_tokens_mean"),
        output_tokens_mean=fields.get("output_tokens_mean"),
        prefix_cache_share=fields.get("prefix_cache_share"),
        shape_source=fields.get("shape_source") or f"from the trace {source}",
    )
    return replace(ws, demand=tuple(shaped if d.workload == workload else d for d in ws.demand))


def _stay(engine: Engine, ws: Workspace) -> PlanResult:
    return stay_result(WorkspaceEngine(engine, PlanContext(ws)).evaluate((STAY,)))


def _row(label: str, ws: Workspace, stay: PlanResult, workload: str) -> dict:
    w = ws.workload(workload)
    lines = [ln for ln in stay.fleet if ln.workload == workload]
    usd = sum(ln.monthly_usd for ln in lines)
    shape = next(s for s in stay.workload_shapes if s["workload"] == workload)
    return {
        "demand": label,
        "workload": workload,
        "output_tokens_per_month": w.output_tokens_per_month,
        "input_tokens_per_month": w.input_tokens_per_month,
        "input_per_output_token": shape["input_per_output_token"],
        "prefix_cache_share": w.prefix_cache_share,
        "peak_to_mean": w.peak_to_mean,
        "stay_month1_usd": round(usd, 2),
        "stay_top_up_usd": round(sum(ln.monthly_usd for ln in lines if ln.role == "top-up"), 2),
        "usd_per_1k_output_tokens": round(usd / w.output_tokens_per_month * 1000, 9),
        "capacity_basis": shape["capacity_basis"],
        "feasible": stay.feasible,
    }


def shape_comparison(
    engine: Engine, ws: Workspace, workload: str, trace_doc: dict
) -> tuple[dict, dict]:
    """(the workspace's shape, the trace's shape): Stay's month-1 cost of ``workload``'s lines
    (the fleet and any top-up) and that cost per 1K output tokens, with the capacity basis."""
    fields = trace_doc["workload_fields"]
    source = trace_doc["source"]["file"]
    shaped = trace_shaped(ws, workload, fields, source)
    return (
        _row("the workspace's own shape", ws, _stay(engine, ws), workload),
        _row(f"the shape of {source}", shaped, _stay(engine, shaped), workload),
    )
