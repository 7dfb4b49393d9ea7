"""Choosing the latency figure to show for an operating point.

FTL is the TTFT percentile the user picks (p95 by default). Published results often carry only
some percentiles — MLPerf publishes p99 — so when the chosen one is missing we fall back to the
next HIGHER published percentile as a conservative upper bound (p95 <= p99 always), and say so.
We never fall back to a lower percentile, and never invent a figure. The same rule picks the
time per output token (TPOT) a view shows at the chosen percentile.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

PERCENTILES = ("p50", "p90", "p95", "p99")

#: Thousands of tokens one token/second yields in an hour (3600 s/h ÷ 1000 tokens), so that
#: $/1K tokens = $/h ÷ (tok/s × TOKENS_K_PER_HOUR_PER_TOK_S).
TOKENS_K_PER_HOUR_PER_TOK_S = 3600 / 1000


def usd_per_1k_tokens(usd_per_hour: float, tok_s: float) -> float:
    """The $/1K tokens of capacity billed at ``usd_per_hour`` that serves ``tok_s`` tokens/s."""
    return usd_per_hour / (tok_s * TOKENS_K_PER_HOUR_PER_TOK_S)


def usd_per_1k_sql(usd_per_hour: str, tok_s: str) -> str:
    """The same formula as a SQL expression over two column expressions (fixed text, no input)."""
    return f"{usd_per_hour} / ({tok_s} * {TOKENS_K_PER_HOUR_PER_TOK_S!r})"


def ftl_basis_label(published: str, chosen: str) -> str:
    """How an FTL figure was obtained: the chosen percentile, or a higher one standing in for it."""
    return published if published == chosen else f"{published} (upper bound for {chosen})"


def ftl_column(percentile: str) -> str:
    if percentile not in PERCENTILES:
        raise ValueError(
            f"unknown percentile {percentile!r}; choose one of {', '.join(PERCENTILES)}"
        )
    return f"ttft_ms_{percentile}"


def latency_with_basis(
    frame: pd.DataFrame, family: str, percentile: str = "p95"
) -> tuple[pd.Series, pd.Series]:
    """Return (value, basis) of a latency ``family`` (``ttft_ms``, ``tpot_ms``, …) for every row at
    ``percentile``: the chosen percentile where published, else the next higher published one as
    an upper bound (a missing column counts as unpublished: results carry no TPOT p90)."""
    ftl_column(percentile)  # validates the percentile
    value = pd.Series(np.nan, index=frame.index, dtype="float64")
    basis = pd.Series("unknown", index=frame.index, dtype="object")
    for candidate in PERCENTILES[PERCENTILES.index(percentile) :]:
        column = f"{family}_{candidate}"
        if column not in frame:
            continue
        values = pd.to_numeric(frame[column], errors="coerce")
        fill = value.isna() & values.notna()
        value[fill] = values[fill]
        basis[fill] = ftl_basis_label(candidate, percentile)
    return value, basis


def ftl_with_basis(frame: pd.DataFrame, percentile: str = "p95") -> tuple[pd.Series, pd.Series]:
    """Return (ftl_ms, ftl_basis) for every row: the chosen percentile, else an upper bound."""
    return latency_with_basis(frame, "ttft_ms", percentile)
