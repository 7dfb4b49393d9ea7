"""The Prices page's model: what an accelerator-hour price comes to per token."""

from __future__ import annotations

import pandas as pd

from tokendesk import formatting


def _day(value: object) -> str:
    return formatting.day(None if value is None or pd.isna(value) else value)


def cheapest_token_cost(option: pd.Series, unit: str) -> tuple[str, str]:
    """(headline value, the sentence saying where it comes from) for the cheapest option of a
    cost join: its $/output token in ``unit``, the price and the result it rests on, with dates."""
    value = formatting.usd_per_tokens(option["usd_per_1k_output_tokens"], unit, "output")
    load = (
        f"concurrency {option['concurrency']:g}"
        if pd.notna(option["concurrency"])
        else str(option["scenario"])
    )
    evidence = (
        f"{option['provider']} {option['instance_type']} ({option['pricing_model']}, "
        f"{option['region']}) serving {option['model']} at {option['precision']} ({load}), "
        f"{formatting.tok_s(option['instance_output_tok_s'])} per instance. Price: "
        f"{option['price_source']} ({_day(option['price_observed_at'])}); result: "
        f"{option['bench_source_title']} ({_day(option['bench_measured_at'])})."
    )
    return value, evidence
