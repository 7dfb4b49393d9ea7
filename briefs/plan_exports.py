"""A workspace comparison's machine-readable exports: the live cost model of the XLSX workbook
and the CSV frame, one row per plan line (the optimal fleet included where it is feasible).
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from briefs.document import (
    MODEL_COLUMNS,
    LiveModel,
    cents,
)
from costmodel.demand import HOURS_PER_MONTH
from costmodel.plan_result import PlanResult
from planning.evaluation import Evaluation, as_evaluation
from planning.optimal_plan import OptimalPlan
from tokendesk.labels import sku_label


def _with_optimal(ev: Evaluation) -> list:
    """The plans, and the optimal fleet where it was solved and is feasible."""
    return [*ev.plans, *([ev.optimal] if ev.optimal is not None and ev.optimal.feasible else [])]


def workspace_live_model(found: Evaluation | Sequence[PlanResult], baseline: str) -> LiveModel:
    """Month 1 of each plan as units × rate: a line held all month is count × $/hour × hours; a
    line that follows the hourly curve on demand is billed unit-hours × $/hour."""
    rows = []
    results = _with_optimal(as_evaluation(found))
    for r in results:
        for ln in r.fleet:
            held = abs(ln.count * ln.usd_per_hour * HOURS_PER_MONTH - ln.monthly_usd) < 0.005
            burst = 0.0 if held or not ln.usd_per_hour else ln.monthly_usd / ln.usd_per_hour
            rows.append(
                {
                    "option": r.name,
                    "line": f"{ln.workload} · {ln.role} · {ln.allocation}: "
                    + sku_label(
                        ln.provider, ln.region, ln.instance_type, ln.pricing_model, count=ln.count
                    ),
                    MODEL_COLUMNS[0]: ln.count if held else 0,
                    MODEL_COLUMNS[1]: ln.usd_per_hour if held else None,
                    MODEL_COLUMNS[2]: round(burst, 6),
                    MODEL_COLUMNS[3]: None if held else ln.usd_per_hour,
                    MODEL_COLUMNS[4]: 0,
                    MODEL_COLUMNS[5]: None,
                    "monthly_usd": ln.monthly_usd,
                }
            )
    return LiveModel(
        pd.DataFrame(rows, columns=["option", "line", *MODEL_COLUMNS, "monthly_usd"]),
        tuple((r.name, r.one_time_usd) for r in results),
        baseline,
        hours_per_month=HOURS_PER_MONTH,
        money_columns={"$/month (month 1)": "monthly", "one-time": "one_time"},
        flat_horizon=False,
        one_time_falls={r.name: _one_time_falls(r) for r in results},
        discount_rate_per_year=results[0].discount_rate_per_year if results else 0.0,
    )


def _one_time_falls(plan: PlanResult | OptimalPlan) -> tuple[tuple[int, float], ...]:
    """The months a plan's one-time costs fall in, with their amounts (month 1 when none)."""
    by_month = enumerate(plan.one_time_by_month, start=1)
    falls = tuple((m, usd) for m, usd in by_month if abs(usd) >= 0.005)
    return falls or ((1, plan.one_time_usd),)


def _lines_total(plan) -> float:
    """What a plan's month-1 lines add up to, as the plan itself states it (its month-1 cost, or
    that with the commitments still paid where its lines list them): the other surfaces round
    the plan's own figure, and a sum taken again in another order can land its last half cent on
    the other side (198,326.035 against 198,326.03499…)."""
    summed = sum(ln.monthly_usd for ln in plan.fleet)
    for stated in (plan.monthly_usd, plan.monthly_usd + plan.stranded_usd_per_month):
        if abs(stated - summed) < 0.005:
            return stated
    return summed


def workspace_csv_frame(found: Evaluation | Sequence[PlanResult]) -> pd.DataFrame:
    """One row per fleet line at month 1, then one total row per plan: the sum of its lines to
    the cent (committed units given back but still paid included), with no count (a plan's lines
    count instances and accelerators, which do not add up)."""
    ev = as_evaluation(found)
    verdicts = ev.by_name
    out = []
    for r in _with_optimal(ev):
        amounts = cents([ln.monthly_usd for ln in r.fleet], _lines_total(r))
        for ln, amount in zip(r.fleet, amounts, strict=True):
            out.append(
                {
                    "row": "line",
                    "scenario": r.name,
                    "decision": verdicts[r.name].verdict,
                    **{k: v for k, v in ln.as_dict().items() if k != "monthly_usd"},
                    "monthly_usd": amount,
                }
            )
        out.append(
            {
                "row": "total",
                "scenario": r.name,
                "decision": verdicts[r.name].verdict,
                "monthly_usd": round(sum(amounts), 2),
                "horizon_usd": round(r.horizon_usd, 2),
            }
        )
    return pd.DataFrame(out)
