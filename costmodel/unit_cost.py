"""Unit cost: $/1K tokens from a price per hour and a throughput."""

from __future__ import annotations

import numpy as np

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
