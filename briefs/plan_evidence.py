"""The evidence behind a workspace brief's figures: each configuration's workload shape and
capacity basis, the assumptions a plan was priced on, and the price and benchmark rows every
figure rests on (the brief's sources and the workbook's evidence sheets).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from briefs.sources import (
    QUOTE_KEY,
    bench_rows,
    option_key,
    price_rows,
    rows_behind,
)
from costmodel.plan_result import ON_DEMAND_BASIS_NOTES, PlanLine, PlanResult
from costmodel.workspace_model import Workload, Workspace
from planning.verdicts import RULE_SENTENCE
from planning.workspaces import Knobs
from tokendesk import formatting


def _shape_basis(entry: Mapping) -> str:
    """One configuration's capacity basis in words: measured at which shape, or estimated with
    its rule and gap."""
    what = f"{entry['instance_type']} ({entry['model']}, {entry['precision']}, {entry['role']})"
    at = entry.get("at")
    if entry["kind"] == "measured" and at:
        cached = at.get("prefix_cache_share")
        shape = f"{at['input_tokens']:,} input / {at['output_tokens']:,} output tokens" + (
            f", {cached:.0%} cached" if cached else ""
        )
        factor = "" if abs(entry["factor"] - 1) < 1e-9 else f", read ×{entry['factor']:.3f}"
        return f"{what}: measured at {shape}{factor}"
    return f"{what}: estimated: {entry['rule']} ({entry['gap']})"


def workload_shape_rows(plan: PlanResult) -> list[tuple[str, str]]:
    """Per workload, the shape its capacity was read at and the basis of each configuration's
    capacity (``PlanResult.workload_shapes``, computed once in the plan engine)."""
    rows: list[tuple[str, str]] = []
    for shape in plan.workload_shapes:
        name = shape["workload"]
        ratio = shape["input_per_output_token"]
        mix = "not stated (no input tokens)" if ratio is None else f"{ratio:,.3g}:1"
        if shape["input_tokens_mean"] is None and shape["output_tokens_mean"] is None:
            means = f"mean request lengths {shape['mean_basis']}"
        else:
            means = (
                "; ".join(
                    f"mean {shape[key]:,.1f} {side} tokens per request"
                    for key, side in (
                        ("input_tokens_mean", "input"),
                        ("output_tokens_mean", "output"),
                    )
                    if shape[key] is not None
                )
                + f" ({shape['mean_basis']})"
            )
        rows.append(
            (
                f"{name}: workload shape",
                f"input:output {mix} from the monthly totals; {means};"
                f" {shape['prefix_cache_rule']}",
            )
        )
        if shape["capacity_basis"]:
            rows.append(
                (
                    f"{name}: capacity basis",
                    "; ".join(_shape_basis(entry) for entry in shape["capacity_basis"]),
                )
            )
    return rows


def _inputs(w: Workload) -> str:
    """A workload's input tokens a month as the brief states them, or that it does not."""
    if w.input_tokens_per_month is None:
        return "input tokens not stated (capacity read at each result's own input:output mix)"
    return f"{w.input_tokens_per_month / 1e9:,.3g} B input tokens"


def plan_assumptions(
    ws: Workspace,
    knobs: Knobs,
    unit: str,
    provenance: str | None = None,
    shapes: Sequence[tuple[str, str]] = (),
) -> pd.DataFrame:
    """The inputs behind the comparison, for the Assumptions section and sheet: the horizon and
    pricing basis, every workload's demand and SLO, the shape Stay's capacity was read at
    (``workload_shape_rows``), the what-ifs and the decision rule."""
    rows = [
        ("workspace", ws.name),
        ("month 1 starts", ws.start.isoformat()),
        ("hours per month", "730"),
        ("on-demand capacity", ON_DEMAND_BASIS_NOTES[ws.on_demand_basis]),
        *((("fleet from the cloud bill", provenance),) if provenance else ()),
        ("growth", "applied once a quarter"),
        ("estimated capacity", estimates_sentence(ws)),
    ]
    for w in ws.demand:
        stand_in = (
            f"; results for {', '.join(w.accept_results_from)} stand in"
            if w.accept_results_from
            else ""
        )
        rows += [
            (
                f"{w.workload}: demand",
                f"{w.output_tokens_per_month / 1e9:,.3g} B output and {_inputs(w)} a month of"
                f" {w.model}{stand_in}",
            ),
            (
                f"{w.workload}: SLO and load",
                f"first token within {w.ttft_ms:,.0f} ms at {w.percentile}; peak hour"
                f" {w.peak_to_mean:g}× the mean; {w.interactive_share:.0%} interactive;"
                f" growth {w.growth_per_quarter:.0%} a quarter",
            ),
        ]
    rows += list(shapes)
    rows += [
        ("AMD share (Shift N% to AMD)", f"{knobs.amd_share:.0%}"),
        ("CPU share (Add CPU fallback)", f"{knobs.cpu_share:.0%}"),
        ("utilisation cap", f"{knobs.utilisation_cap:.0%}"),
        ("loaded cost of an engineer-week", f"${knobs.loaded_usd_per_engineer_week:,.0f}"),
        ("token costs quoted", f"{formatting.token_unit_label(unit)} tokens"),
        ("decision rule", RULE_SENTENCE),
    ]
    return pd.DataFrame(rows, columns=["item", "value"])


def estimates_sentence(ws: Workspace) -> str:
    """The workspace's estimates setting (``constraints.allow_estimates``), in words."""
    if ws.constraints.allow_estimates:
        return (
            "allowed: a backend on which no measured result of a workload's models meets its"
            " SLO may serve it with capacity the calibrated performance model estimates (the"
            " optimal fleet buys such capacity only for a workload no measured option serves),"
            " each such line marked 'estimated ±x%' with its 80% interval and the plans' cost"
            " band"
        )
    return "not allowed: only measured results serve a workload"


#: What the Scenarios brief's price table lists.
PRICE_NOTE = (
    "The quotes of each fleet line's pricing model; a fleet line at the rate your workspace "
    "states rests on that rate, not on a quote (no source address, no snapshot)."
)
#: The source named for a rate the workspace states (the company's own contract).
WORKSPACE_RATE = "your workspace: the rate you pay"


def _stated_rate(ws: Workspace, line: PlanLine) -> float | None:
    """The rate the workspace states for an incumbent fleet line; None when it pays list price."""
    if line.role != "fleet":
        return None
    for e in ws.fleet:
        same = (e.serves, e.provider, e.region, e.instance_type, e.pricing_model) == (
            line.workload,
            line.provider,
            line.region,
            line.instance_type,
            line.pricing_model,
        )
        if same and e.usd_per_hour is not None:
            return e.usd_per_hour
    return None


def _stated_rate_row(line: PlanLine, rate: float) -> dict[str, object]:
    return {
        "provider": line.provider,
        "region": line.region,
        "instance_type": line.instance_type,
        "pricing_model": line.pricing_model,
        "accelerator_id": line.accelerator_id or None,
        "quote_usd_per_hour": rate,
        "price_basis": "instance",
        "price_confidence": "as stated in the workspace",
        "price_source": WORKSPACE_RATE,
    }


def fleet_evidence(
    results: Sequence[PlanResult], ws: Workspace, options: pd.DataFrame | None
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The price quotes and the benchmark results behind every scenario's fleet lines: the quotes
    of each line's pricing model (or the rate the workspace states) and every operating point of
    the configuration the line was sized on, each with its source, date, confidence, snapshot."""
    lines: list[dict] = []
    estimated: list[dict] = []
    stated = []
    for r in results:
        for ln in r.fleet:
            rate = _stated_rate(ws, ln)
            if rate is not None:
                stated.append(_stated_rate_row(ln, rate))
            if ln.option_id:
                key = option_key(ln.option_id, ln.instance_type)
                labels = {"line_pricing": ln.pricing_model, "stated": rate is not None}
                (estimated if ln.estimated else lines).append(key | labels)
    rows = rows_behind(options, lines)
    # An estimated line rests on its SKU's price quotes and on no measured result: its quotes
    # are every configuration's rows of that SKU (one row per quote once deduplicated).
    quotes = rows_behind(options, estimated, on=QUOTE_KEY)
    found = [f for f in (rows, quotes) if not f.empty]
    rows_and_quotes = pd.concat(found, ignore_index=True) if found else rows
    quoted = (
        rows_and_quotes[
            [
                not own and str(model) in str(pricing)
                for model, pricing, own in zip(
                    rows_and_quotes["pricing_model"],
                    rows_and_quotes["line_pricing"],
                    rows_and_quotes["stated"],
                    strict=True,
                )
            ]
        ]
        if not rows_and_quotes.empty
        else rows_and_quotes
    )
    priced = [frame for frame in (quoted, pd.DataFrame(stated)) if not frame.empty]
    prices = price_rows(pd.concat(priced, ignore_index=True) if priced else pd.DataFrame())
    return prices, bench_rows(rows)
