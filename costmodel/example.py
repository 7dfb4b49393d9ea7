"""Worked example: a 70B chat workload (plus a small-model classifier) through the three
built-in scenarios. ``run_example(df)`` takes the warehouse's ``cost_options`` frame;
``python -m costmodel.example FILE`` reads a CSV or Parquet dump of that frame."""

from __future__ import annotations

import sys

import pandas as pd

from costmodel.demand import Demand, HourlyProfile, Segment, Slo
from costmodel.fleet import FleetPolicy
from costmodel.scenarios import Engine, ScenarioResult, builtin_scenarios
from costmodel.uncertainty import cost_range, tornado

#: Any of these 70B-class Llama models may serve the chat segment (same architecture family;
#: published results mostly use Llama 2 70B as the MLPerf reference model).
CHAT_MODELS = ("Llama-3.3-70B", "Llama-3.1-70B", "Llama-3-70B", "Llama-2-70B")
SMALL_MODELS = (
    "Llama-3.1-8B",
    "Llama-3-8B",
    "Llama 3.1 8B",
    "Llama 3 8B",
    "GPT-J",
    "Llama-2-7B",
    "Mistral-7B",
)


def example_demand(home_regions: tuple[str, ...] | None = None) -> Demand:
    """3B output tokens/month of 70B chat (90% interactive, FTL p95 ≤ 2 s) and 1B of 8B routing."""
    return Demand(
        (
            Segment(
                "chat-70b",
                CHAT_MODELS,
                monthly_input_tokens=6e9,
                monthly_output_tokens=3e9,
                interactive_share=0.9,
                slo=Slo(ftl_ms=2000, percentile="p95"),
                profile=HourlyProfile(peak_factor=1.8),
                home_regions=home_regions,
            ),
            Segment(
                "router-8b",
                SMALL_MODELS,
                monthly_input_tokens=2e9,
                monthly_output_tokens=1e9,
                interactive_share=0.8,
                slo=Slo(ftl_ms=2000, percentile="p95"),
                profile=HourlyProfile(peak_factor=1.5),
                small_model=True,
            ),
        )
    )


def run_example(
    df, demand: Demand | None = None, policy: FleetPolicy | None = None
) -> tuple[ScenarioResult, ...]:
    engine = Engine.from_frame(df)
    return engine.evaluate(builtin_scenarios(), demand or example_demand(), policy or FleetPolicy())


def render_markdown(results: tuple[ScenarioResult, ...]) -> str:
    out = [
        "| scenario | $/month | $/1K tokens | vs Stay | one-time | payback | vendor HHI | cutover |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        per = f"{r.usd_per_1k_tokens:.5f}" if r.usd_per_1k_tokens else "–"
        pay = f"{r.payback_months:.1f} mo" if r.payback_months is not None else "–"
        out.append(
            f"| {r.name} | {r.monthly_usd:,.0f} | {per} | {r.savings_vs_baseline_usd or 0:,.0f} |"
            f" {r.migration.one_time_usd:,.0f} | {pay} | "
            f"{r.risk.hhi_vendor.value:,.0f} | {r.timeline.weeks_to_cutover:g} w |"
        )
    for r in results:
        out.append(f"\n### {r.name}\n")
        for row in r.fleet_by_sku_region():
            out.append(
                f"- {row['units_peak']} × {row['instance_type']} ({row['provider']} "
                f"{row['region']}, {row['accelerator_id']}): "
                f"${row['monthly_usd']:,.0f}/month"
            )
        out.extend(f"- {s.sentence}" for s in r.latency)
        out.extend(f"- {f.sentence}" for f in r.risk.figures())
        out.append(f"- {r.timeline.sentence}")
        out.append(f"- {r.migration.sentence} {r.payback_sentence}")
        if r.lines:
            out.append(f"- {cost_range(r).sentence}")
            out.extend(f"- tornado: {b.sentence}" for b in tornado(r)[:3])
        out.extend(f"- warning: {w}" for w in r.warnings)
        out.extend(f"- UNSERVED: {u}" for u in r.unserved)
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:

    args = sys.argv[1:] if argv is None else argv
    if not args:
        print("usage: python -m costmodel.example COST_OPTIONS.{csv,parquet}", file=sys.stderr)
        return 2
    path = args[0]
    df = pd.read_parquet(path) if path.endswith(".parquet") else pd.read_csv(path)
    print(render_markdown(run_example(df)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
