"""Unit cost: $/1K tokens from a price per hour and a throughput."""

from __future__ import annotations

import numpy as np
import pandas as pd

from tokendesk.metrics import TOKENS_K_PER_HOUR_PER_TOK_S


def usd_per_1k_tokens(usd_per_hour, tok_s):
    """$/1K tokens (the formula of ``tokendesk.metrics``) over arrays; NaN where throughput is
    not positive (never a division by zero)."""
    price = np.asarray(usd_per_hour, dtype=float)
    tput = np.asarray(tok_s, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(tput > 0, price / (tput * TOKENS_K_PER_HOUR_PER_TOK_S), np.nan)
    return float(out) if out.ndim == 0 else out


def instance_tok_s(accelerator_count, accelerators_per_replica, result_tok_s):
    """replicas = floor(instance accelerators / accelerators per replica); × result tok/s."""
    count = np.asarray(accelerator_count, dtype=float)
    apr = np.asarray(accelerators_per_replica, dtype=float)
    out = np.floor(count / apr) * np.asarray(result_tok_s, dtype=float)
    return float(out) if out.ndim == 0 else out


# -- input / output apportioning ----------------------------------------------------------------
#: An instance-hour serves input tokens (prefill) and output tokens (decode) at once, so what each
#: costs is a rule, not a measurement. Where a result publishes the timing of a request, the hour
#: is split by the share of a request's time spent before its first token: prefill ≈ TTFT, decode
#: ≈ TPOT × (output tokens − 1), both at the median (p50, the typical request; a tail percentile
#: would weight the split towards the slowest requests). TTFT also holds queueing, so the prefill
#: share is an upper bound of the time prefill itself takes.
RULE_TIME_SHARE = "measured time share (TTFT vs TPOT × output tokens, p50)"
#: Without that timing the hour is split so that an output token costs
#: ``OUTPUT_TO_INPUT_COST_RATIO`` input tokens. Source: OpenAI's API price list for GPT-4o, $2.50
#: per 1M input and $10.00 per 1M output tokens (4:1), https://openai.com/api/pricing/ (prices
#: of 2024-10). It is the market's convention for the same capacity, not a measurement of this
#: hardware, so rows priced by it say so.
OUTPUT_TO_INPUT_COST_RATIO = 4.0
RULE_RATIO = f"stated ratio (an output token costs {OUTPUT_TO_INPUT_COST_RATIO:g} input tokens)"
#: No input throughput (no total throughput and no token lengths): nothing to charge input to.
RULE_NONE = "no input throughput published"


def prefill_share_by_time(ttft_ms, tpot_ms, output_tokens):
    """The share of a request's time before its first token: TTFT / (TTFT + TPOT × (out − 1));
    NaN where any of them is missing."""
    ttft = np.asarray(ttft_ms, dtype=float)
    decode = np.asarray(tpot_ms, dtype=float) * (np.asarray(output_tokens, dtype=float) - 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where((ttft >= 0) & (decode >= 0), ttft / (ttft + decode), np.nan)
    return float(out) if out.ndim == 0 else out


def prefill_share_by_ratio(input_tok_s, output_tok_s, ratio: float = OUTPUT_TO_INPUT_COST_RATIO):
    """The share of the hour input tokens carry when an output token costs ``ratio`` input
    tokens: (in / ratio) / (out + in / ratio); NaN where input throughput is unknown."""
    weighted_in = np.asarray(input_tok_s, dtype=float) / ratio
    out_tok_s = np.asarray(output_tok_s, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(weighted_in >= 0, weighted_in / (out_tok_s + weighted_in), np.nan)
    return float(out) if out.ndim == 0 else out


def apportioned_usd_per_1k(
    usd_per_hour, output_tok_s, input_tok_s, ttft_ms_p50, tpot_ms_p50, output_tokens
) -> dict[str, np.ndarray]:
    """$/1K input and $/1K output tokens with the hour split between them, over arrays.

    The rule per row: the measured time share where TTFT, TPOT and the output length are all
    published, otherwise the stated ratio; both need the input throughput (NaN and
    ``RULE_NONE`` without it). By construction input $/1K × input tokens + output $/1K × output
    tokens = the hour's cost. Returns ``input``, ``output``, ``prefill_share`` and ``rule``.
    """
    input_tps = np.asarray(input_tok_s, dtype=float)
    output_tps = np.asarray(output_tok_s, dtype=float)
    by_time = np.atleast_1d(prefill_share_by_time(ttft_ms_p50, tpot_ms_p50, output_tokens))
    by_ratio = np.atleast_1d(prefill_share_by_ratio(input_tps, output_tps))
    has_input = np.atleast_1d(input_tps > 0)
    timed = has_input & ~np.isnan(by_time)
    share = np.where(timed, by_time, np.where(has_input, by_ratio, np.nan))
    rule = np.where(timed, RULE_TIME_SHARE, np.where(has_input, RULE_RATIO, RULE_NONE))
    hourly = np.atleast_1d(np.asarray(usd_per_hour, dtype=float))
    return {
        "input": np.atleast_1d(usd_per_1k_tokens(share * hourly, input_tps)),
        "output": np.atleast_1d(usd_per_1k_tokens((1 - share) * hourly, output_tps)),
        "prefill_share": share,
        "rule": rule.astype(object),
    }


def input_tok_s(output_tok_s, total_tok_s, input_tokens, output_tokens):
    """Input tokens per second: total − output where total throughput is published, else output
    × input length ÷ output length of a fixed-length workload; NaN with neither."""
    output = np.asarray(output_tok_s, dtype=float)
    published = np.asarray(total_tok_s, dtype=float) - output
    with np.errstate(divide="ignore", invalid="ignore"):
        mix = (
            output * np.asarray(input_tokens, dtype=float) / np.asarray(output_tokens, dtype=float)
        )
    out = np.where(np.isnan(published), mix, published)
    return float(out) if out.ndim == 0 else out


#: Columns ``apportion_frame`` adds to a cost-join frame.
APPORTIONED_COLUMNS = (
    "usd_per_1k_input_tokens",
    "usd_per_1k_output_tokens_apportioned",
    "prefill_share",
    "apportioning_rule",
)


def apportion_frame(options) -> dict[str, np.ndarray]:
    """The ``APPORTIONED_COLUMNS`` for every row of the cost join (``warehouse.queries``): its
    billed $/h, instance throughput, token lengths and p50 latencies, apportioned by
    ``apportioned_usd_per_1k``."""

    def column(name: str) -> np.ndarray:  # missing values of any kind (None, NA) read as NaN
        return pd.to_numeric(pd.Series(options[name]), errors="coerce").to_numpy(dtype=float)

    output = column("instance_output_tok_s")
    inputs = input_tok_s(
        output, column("instance_total_tok_s"), column("input_tokens"), column("output_tokens")
    )
    split = apportioned_usd_per_1k(
        column("usd_per_hour"),
        output,
        inputs,
        column("ttft_ms_p50"),
        column("tpot_ms_p50"),
        column("output_tokens"),
    )
    return dict(
        zip(
            APPORTIONED_COLUMNS,
            (split["input"], split["output"], split["prefill_share"], split["rule"]),
            strict=True,
        )
    )


# -- capacity for a workload's input/output mix --------------------------------------------------
#: How capacity measured at a benchmark's input:output mix is read for a workload with another
#: mix. An instance's time is shared by prefill (input tokens) and decode (output tokens); with an
#: input token costing ``w`` output tokens of that time, one second that served ``O`` output and
#: ``r_b × O`` input tokens at the benchmark's mix serves ``O × (1 + r_b w) / (1 + r_w w)`` output
#: tokens at the workload's mix ``r_w``. ``w`` is the apportioning rule above: the measured prefill
#: time share where the result publishes TTFT and TPOT (w = p / (1 − p) / r_b), else the stated
#: 4:1 price ratio (w = 1/4). The TTFT the SLO is read at stays the one measured at the
#: benchmark's input length.
MIX_MEASURED = "measured prefill/decode time share"
MIX_STATED = (
    f"stated rule (an input token costs 1/{OUTPUT_TO_INPUT_COST_RATIO:g} of an output token)"
)


def input_token_weight(prefill_share, bench_ratio):
    """The time an input token takes relative to an output token, per row: p / (1 − p) / r_b
    from the measured prefill share ``p``, else 1 / ``OUTPUT_TO_INPUT_COST_RATIO``."""
    p = np.asarray(prefill_share, dtype=float)
    r = np.asarray(bench_ratio, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        measured = p / (1.0 - p) / r
    ok = np.isfinite(measured) & (measured > 0)
    out = np.where(ok, measured, 1.0 / OUTPUT_TO_INPUT_COST_RATIO)
    return float(out) if out.ndim == 0 else out


def mix_capacity_factor(bench_ratio, workload_ratio: float, weight):
    """(1 + r_b w) / (1 + r_w w): output capacity at the workload's input:output ratio ``r_w``
    per unit of output capacity measured at the benchmark's ``r_b``; 1 where ``r_b`` is unknown."""
    r_b = np.asarray(bench_ratio, dtype=float)
    w = np.asarray(weight, dtype=float)
    factor = (1.0 + r_b * w) / (1.0 + max(float(workload_ratio), 0.0) * w)
    out = np.where(np.isfinite(r_b), factor, 1.0)
    return float(out) if out.ndim == 0 else out
