"""The Costs page's model: the cost each option is ranked by, the headline figures and the table."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from app.models.tables import Table, readable
from tokendesk import formatting

#: Token bases the page offers, as the URL writes them, with what they read as.
TOKEN_BASES = {"output": "output tokens", "total": "total (input + output) tokens"}
#: Which tokens a cost column counts, as its label names them ("$/1K total (input + output) tokens").
COUNTED = {"output": "output", "total": "total (input + output)"}


def with_cost(options: pd.DataFrame, basis: str) -> pd.DataFrame:
    """``options`` plus ``cost`` ($/1K tokens on ``basis``) and ``cost_note`` (how it was got).

    For ``total``, a result that publishes total throughput is used as published; otherwise a
    fixed-length workload's own mix converts it: each output token comes with input/output input
    tokens, so $/1K total = $/1K output × output ÷ (input + output). A result with neither stays
    unpriced on this basis (shown as "—"), never dropped.
    """
    frame = options.copy()
    if basis == "output":
        frame["cost"] = frame["usd_per_1k_output_tokens"]
        frame["cost_note"] = "published output throughput"
        return frame
    published = frame["usd_per_1k_total_tokens"]
    mix = frame["output_tokens"] / (frame["input_tokens"] + frame["output_tokens"])
    derived = frame["usd_per_1k_output_tokens"] * mix.where(frame["output_tokens"] > 0)
    frame["cost"] = published.where(published.notna(), derived)
    frame["cost_note"] = "published total throughput"
    frame.loc[published.isna() & derived.notna(), "cost_note"] = (
        "from output throughput and the workload's input:output lengths"
    )
    frame.loc[frame["cost"].isna(), "cost_note"] = "no total throughput and no token lengths"
    return frame


@dataclass(frozen=True)
class Headline:
    label: str
    value: str
    help: str = ""


def cheapest(
    options: pd.DataFrame, basis: str, percentile: str, unit: str = formatting.DEFAULT_TOKEN_UNIT
) -> Headline:
    """The cheapest option *with a known first-token latency*: a latency-aware view never
    headlines a result that publishes no latency. The figure reads in ``unit`` ($/1K or $/1M)."""
    label = f"Cheapest {formatting.cost_label(unit, COUNTED[basis])} with a known FTL"
    known = options[options["cost"].notna() & options["ftl_ms"].notna()]
    if known.empty:
        unknown = int(options["cost"].notna().sum())
        return Headline(
            label,
            "none",
            f"None of the {unknown} priced options publishes a first-token latency at "
            f"{percentile} or above, so none is headlined.",
        )
    top = known.nsmallest(1, "cost").iloc[0]
    bound = "≤ " if top["ftl_basis"] != percentile else ""
    return Headline(
        label,
        formatting.usd_per_1k(formatting.per_tokens(top["cost"], unit)),
        f"{top['accelerator_name']} on {top['provider']} {top['instance_type']} "
        f"({top['pricing_model']}, {top['region']}), FTL {bound}{formatting.ms(top['ftl_ms'])}; "
        f"price: {top['price_source']} ({_day(top['price_observed_at'])}); "
        f"result: {top['bench_source_title']} ({_day(top['bench_measured_at'])})",
    )


def fastest(options: pd.DataFrame, percentile: str) -> Headline | None:
    """The lowest first-token latency among priced options, or None when none publishes one."""
    known = options[options["cost"].notna() & options["ftl_ms"].notna()]
    if known.empty:
        return None
    top = known.nsmallest(1, "ftl_ms").iloc[0]
    bound = top["ftl_basis"] != percentile
    return Headline(
        f"Lowest FTL {percentile}" + (" (upper bound)" if bound else ""),
        ("≤ " if bound else "") + formatting.ms(top["ftl_ms"]),
        f"{top['accelerator_name']} · {top['model']} · {top['bench_source_title']} "
        f"({_day(top['bench_measured_at'])}); basis {top['ftl_basis']}",
    )


def _day(value: object) -> str:
    return "date unknown" if value is None or pd.isna(value) else f"{pd.Timestamp(value):%Y-%m-%d}"


def option_table(
    options: pd.DataFrame, basis: str, percentile: str, unit: str = formatting.DEFAULT_TOKEN_UNIT
) -> Table:
    """Every option, cheapest first, decision columns first ($/1K or $/1M, FTL, who, where, how
    priced), then the evidence (throughput, sources, dates)."""
    ordered = options.sort_values(["cost", "ftl_ms"], na_position="last").assign(
        cost=lambda frame: formatting.per_tokens(frame["cost"], unit)
    )
    labels = {
        "cost": formatting.cost_label(unit, COUNTED[basis]),
        "ftl_ms": f"FTL {percentile} (ms)",
        "provider": "Provider",
        "instance_type": "Instance",
        "region": "Region",
        "pricing_model": "Pricing model",
        "accelerator_name": "Accelerator",
        "vendor": "Vendor",
        "model": "Model",
        "precision": "Precision",
        "scenario": "Scenario",
        "ftl_basis": "FTL basis",
        "replicas_per_instance": "Replicas",
        "instance_output_tok_s": "Instance output tok/s",
        # Billed per instance, or per accelerator x the accelerators one replica needs.
        "usd_per_hour": "$/hour billed",
        "price_basis": "Priced per",
        "cost_note": "Cost basis",
        "price_source": "Price source",
        "price_observed_at": "Price date",
        "bench_source_title": "Result source",
        "bench_measured_at": "Result date",
    }
    return readable(
        ordered,
        labels,
        numbers={
            "cost": formatting.cost_format(unit),
            "ftl_ms": "%,.0f ms",
            "replicas_per_instance": "%d",
            "instance_output_tok_s": "%,.0f",
            "usd_per_hour": "$%.3f",
        },
        dates=("price_observed_at", "bench_measured_at"),
    )


def upper_bound_count(plotted: pd.DataFrame, percentile: str) -> int:
    """Plotted points whose FTL is a higher published percentile than the one asked for."""
    return int((plotted["ftl_basis"] != percentile).sum())
