"""Workload shape: which measured shape a workload's capacity is read from, and how.

A result is measured at one *shape*: its input tokens per output token (``r``) and the share of
its input a prefix cache served (``c``). A workload asks for another. The rules, stated once:

* **Near**: a result is near a workload when its input:output ratio is within a factor of
  ``NEAR_RATIO_FACTOR`` (2) of the workload's and its prefix-cache share is within
  ``NEAR_CACHE_SHARE`` (±0.2) of the workload's. A share not recorded (a result's) or not
  stated (a workload's) is read as 0: nothing is assumed cached that was not measured or
  said. The distance is the larger of |log2(r_result / r_workload)| and
  |c_result − c_workload| / 0.2, so *near* is distance ≤ 1.
* **Nearest**: for one configuration (the same quote, accelerators per replica, model,
  precision and runtime), the result at the smallest distance among those that meet the SLO.
* **Reading it at the workload's shape**: the prefill work of a request is its *uncached*
  input, so a shape's effective ratio is ``r × (1 − c)``: cached input tokens need no prefill
  compute (``RULE_CACHED``). Output capacity at the workload's shape is the nearest result's
  capacity × (1 + r_b(1 − c_b) w) / (1 + r_w(1 − c_w) w) with ``w`` the time an input token
  takes relative to an output token (``costmodel.unit_cost.input_token_weight``).
* **Basis**: ``measured`` where the nearest result is near (the factor is then small and
  stated), ``estimated`` otherwise, with the rule and the gap between the two shapes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

#: A result within this factor of the workload's input:output ratio is near it.
NEAR_RATIO_FACTOR = 2.0
#: A result within this much of the workload's prefix-cache share is near it.
NEAR_CACHE_SHARE = 0.2
RULE_NEAR = (
    f"near: input:output within ×{NEAR_RATIO_FACTOR:g} and prefix-cache share within"
    f" ±{NEAR_CACHE_SHARE:g} of the workload's"
)
RULE_CACHED = "cached input tokens need no prefill compute"
RULE_UNKNOWN_SHAPE = (
    "the result records no input:output shape: its output throughput is read as measured"
)
RULE_NO_INPUT = "the workload states no input tokens: capacity is read at the result's own shape"


def effective_ratio(ratio, cache_share):
    """Input tokens per output token that need prefill compute: r × (1 − c); an unknown cache
    share (NaN or None) is read as 0."""
    r = np.asarray(ratio, dtype=float)
    c = np.nan_to_num(np.asarray(np.nan if cache_share is None else cache_share, dtype=float))
    out = r * (1.0 - c)
    return float(out) if out.ndim == 0 else out


def shape_distance(bench_ratio, bench_cache, ratio: float, cache: float | None):
    """The distance of measured shapes from a workload's (see the module docstring); inf where
    the result's ratio is unknown."""
    r_b = np.asarray(bench_ratio, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        by_ratio = np.abs(np.log2(r_b / ratio)) / math.log2(NEAR_RATIO_FACTOR)
    by_ratio = np.where(np.isfinite(by_ratio), by_ratio, np.inf)
    c_b = np.nan_to_num(np.asarray(bench_cache, dtype=float))
    out = np.maximum(by_ratio, np.abs(c_b - (cache or 0.0)) / NEAR_CACHE_SHARE)
    return float(out) if np.ndim(out) == 0 else out


def is_near(distance: float) -> bool:
    return bool(distance <= 1.0 + 1e-9)


def ratio_text(ratio: float) -> str:
    return f"{ratio:.3g}:1"


def shape_text(ratio: float, cache: float | None) -> str:
    """ "67.3:1" or "2:1, 70% cached"."""
    text = ratio_text(ratio)
    return text if cache is None or cache == 0 else f"{text}, {cache:.0%} cached"


@dataclass(frozen=True)
class CapacityBasis:
    """How one configuration's capacity was read at a workload's shape."""

    kind: str  # measured | estimated
    rule: str
    gap: str = ""
    #: The measured shape the capacity was read from (None where the result records none).
    input_tokens: int | None = None
    output_tokens: int | None = None
    prefix_cache_share: float | None = None
    #: Output capacity at the workload's shape ÷ capacity at the measured shape.
    factor: float = 1.0

    @property
    def sentence(self) -> str:
        text = f"{self.kind}: {self.rule}"
        return f"{text} ({self.gap})" if self.gap else text

    def as_dict(self) -> dict:
        out: dict = {"kind": self.kind, "rule": self.rule, "factor": round(self.factor, 6)}
        if self.input_tokens is not None and self.output_tokens is not None:
            out["at"] = {
                "input_tokens": self.input_tokens,
                "output_tokens": self.output_tokens,
                "prefix_cache_share": self.prefix_cache_share,
            }
        else:
            out["at"] = None
        if self.kind == "estimated":
            out["gap"] = self.gap
        return out


def basis_for(
    *,
    bench_input: int | None,
    bench_output: int | None,
    bench_cache: float | None,
    ratio: float | None,
    cache: float | None,
    factor: float,
    mix_rule: str,
    unknown_rule: str | None = None,
) -> CapacityBasis:
    """The basis of a capacity read from a result measured at (bench_input, bench_output,
    bench_cache) for a workload at ``ratio`` input tokens per output token and ``cache``;
    ``unknown_rule`` says how a result that records no shape was carried to the workload's
    (None: it is read as measured, ×1)."""
    if not bench_input or not bench_output:
        gap = (
            f"nearest measured shape unknown, workload {shape_text(ratio, cache)}"
            if ratio is not None
            else "nearest measured shape unknown"
        )
        if unknown_rule is not None and ratio is not None:
            rule = f"{unknown_rule} (×{factor:.3f})"
            return CapacityBasis("estimated", rule, gap, None, None, bench_cache, factor)
        return CapacityBasis("estimated", RULE_UNKNOWN_SHAPE, gap, None, None, bench_cache, 1.0)
    r_b = bench_input / bench_output
    if ratio is None:
        gap = f"measured shape {shape_text(r_b, bench_cache)}, workload input:output not stated"
        return CapacityBasis(
            "estimated", RULE_NO_INPUT, gap, bench_input, bench_output, bench_cache
        )
    distance = shape_distance(r_b, np.nan if bench_cache is None else bench_cache, ratio, cache)
    measured_cache = 0.0 if bench_cache is None else bench_cache
    how = f"the {mix_rule}" + (f"; {RULE_CACHED}" if cache or measured_cache else "")
    read = f"read at the workload's {shape_text(ratio, cache)} by {how} (×{factor:.3f})"
    if is_near(float(distance)):
        rule = f"at the nearest measured shape {shape_text(r_b, bench_cache)} ({RULE_NEAR})" + (
            "" if abs(factor - 1.0) < 1e-9 else f", {read}"
        )
        return CapacityBasis("measured", rule, "", bench_input, bench_output, bench_cache, factor)
    gap = f"nearest measured shape {shape_text(r_b, bench_cache)}, workload {shape_text(ratio, cache)}"
    return CapacityBasis(
        "estimated",
        f"no result near the workload's shape; {read}",
        gap,
        bench_input,
        bench_output,
        bench_cache,
        factor,
    )


def mean_basis(input_mean: float | None, output_mean: float | None, source: str) -> str:
    """Where a workload's mean request lengths come from, in words."""
    if input_mean is None and output_mean is None:
        return "not known: the workspace gives monthly totals only (input:output is their ratio)"
    return source or "given in the workspace"


def cache_rule(share: float | None) -> str:
    """How a workload's cached input tokens are priced, in words."""
    if share is None:
        return "no prefix-cache share stated: every input token is read as needing prefill"
    return (
        f"{share:.0%} of input tokens served from a prefix cache: read from a result measured"
        f" near that share where one exists, else {RULE_CACHED}"
    )


def prefill_time_share(ratio: float, cache: float | None, weight: float) -> float:
    """The share of an instance-hour spent on prefill at a workload's shape: r(1 − c)w /
    (1 + r(1 − c)w), with w the time of an input token relative to an output token."""
    uncached = float(effective_ratio(ratio, cache)) * weight
    return uncached / (1.0 + uncached)
