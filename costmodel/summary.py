"""The summary row of one scenario: what the Scenarios page and every brief format show for it.

Computed here once so the page and the brief cannot disagree (a scenario with no interactive
traffic reads the same in both). Money and counts stay numbers; each consumer formats them.
"""

from __future__ import annotations

from costmodel.scenarios import ScenarioResult
from tokendesk import formatting

#: "Meets FTL SLO" for a scenario whose segments are all batch: no latency was sized.
NO_INTERACTIVE_TRAFFIC = "no interactive traffic"
#: "Unserved" when every segment is served.
ALL_SERVED = "—"


def slo_status(result: ScenarioResult) -> str:
    """yes / no, or NO_INTERACTIVE_TRAFFIC when no segment carries a latency SLO."""
    if not result.latency:
        return NO_INTERACTIVE_TRAFFIC
    return "yes" if all(segment.meets for segment in result.latency) else "no"


def payback_text(result: ScenarioResult, baseline: ScenarioResult) -> str:
    if result is baseline:
        return "baseline"
    if result.payback_months is not None:
        return f"{result.payback_months:.1f} months"
    if not result.migration.one_time_usd:
        return "nothing to pay back"
    if (result.savings_vs_baseline_usd or 0) <= 0:
        return "never (costs more per month)"
    return "—"


#: The per-token figures of a row: which tokens each counts, and the result's $/1K field.
TOKEN_COSTS = (
    ("total (input + output)", "usd_per_1k_tokens"),
    ("output", "usd_per_1k_output_tokens"),
)


def token_cost_labels(unit: str = formatting.DEFAULT_TOKEN_UNIT) -> list[str]:
    """The row's per-token column names in ``unit``: "$/1M total (input + output) tokens", …"""
    return [formatting.cost_label(unit, tokens) for tokens, _ in TOKEN_COSTS]


def token_costs(
    result: ScenarioResult, unit: str = formatting.DEFAULT_TOKEN_UNIT
) -> dict[str, float | None]:
    """The scenario's cost per token in ``unit``, per kind of token counted (None: no tokens)."""
    out: dict[str, float | None] = {}
    for label, (_, field) in zip(token_cost_labels(unit), TOKEN_COSTS, strict=True):
        per_1k = getattr(result, field)
        out[label] = None if per_1k is None else formatting.per_tokens(per_1k, unit)
    return out


def summary_row(
    result: ScenarioResult,
    baseline: ScenarioResult,
    unit: str = formatting.DEFAULT_TOKEN_UNIT,
) -> dict[str, object]:
    """One scenario's side-by-side row, labelled for display; per-token figures in ``unit``."""
    return {
        "Scenario": result.name,
        "Monthly cost": result.monthly_usd,
        **token_costs(result, unit),
        f"Savings vs {baseline.name} ($/month)": result.savings_vs_baseline_usd or 0.0,
        "Savings %": result.savings_pct,
        "One-time migration": result.migration.one_time_usd,
        "Payback": payback_text(result, baseline),
        "Meets FTL SLO": slo_status(result),
        "Vendor HHI": result.risk.hhi_vendor.value,
        "Maturity /100": result.risk.maturity.value,
        "Weeks to cutover": result.timeline.weeks_to_cutover,
        "Unserved": "; ".join(result.unserved) or ALL_SERVED,
    }
