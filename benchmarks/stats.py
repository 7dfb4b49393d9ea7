"""Percentiles and summaries (linear interpolation between closest ranks, as numpy's default)."""

from __future__ import annotations

import math
from collections.abc import Sequence

PERCENTILES = (50, 90, 95, 99)


def percentile(values: Sequence[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    if len(ordered) == 1:
        return float(ordered[0])
    pos = (len(ordered) - 1) * q / 100.0
    lo = math.floor(pos)
    hi = min(lo + 1, len(ordered) - 1)
    return float(ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo))


def summary(values: Sequence[float], scale: float = 1.0) -> dict[str, float | int | None]:
    """count, mean and p50/p90/p95/p99 of ``values`` times ``scale`` (e.g. 1000 for s -> ms)."""
    vals = [v * scale for v in values]
    out: dict[str, float | int | None] = {
        "count": len(vals),
        "mean": (sum(vals) / len(vals)) if vals else None,
    }
    ordered = sorted(vals)
    for q in PERCENTILES:
        out[f"p{q}"] = percentile(ordered, q)
    return out
