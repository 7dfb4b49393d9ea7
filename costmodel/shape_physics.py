"""Input tokens through the performance model: a result's capacity carried to a workload's shape.

A result measured at (input, output) tokens per request serves a workload at another
input:output ratio at ``physics(workload shape) / physics(result's shape)`` times its measured
capacity, the ratio of the roofline model (:mod:`costmodel.perf_model`) at the same part, replica
size, precision and load (prefill compute grows with every uncached input token; the KV cache
grows with the context). Only the ratio is used, so the calibration's fitted level cancels:
the measured figure keeps its level and the model carries it to the shape asked.

A result that records no shape is read at the calibration's assumed one
(``ASSUMED_INPUT_TOKENS``:``ASSUMED_OUTPUT_TOKENS``, the shape the calibration itself reads it
at); the workload keeps the result's output length and takes its own input per output token.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

import numpy as np

from costmodel.bundled_tables import resolve_architecture
from costmodel.option_table import Option, canonical_precision
from costmodel.perf_calibration import ASSUMED_INPUT_TOKENS, ASSUMED_OUTPUT_TOKENS
from costmodel.perf_model import Hardware, case_fields, cases_from, physics

#: The load the ratio is read at: a latency-bounded server (both shapes alike).
RATIO_REGIME = "server"
RULE_MODEL = "the performance model's ratio (estimate at the workload's shape ÷ at the result's)"
RULE_ASSUMED = (
    f"the result records no shape: read at the calibration's assumed"
    f" {ASSUMED_INPUT_TOKENS:g}:{ASSUMED_OUTPUT_TOKENS:g} tokens"
)


@cache
def catalog_hardware() -> dict[str, Hardware]:
    """Every part of data/accelerators.csv with the datasheet figures the physics reads."""
    from tokendesk.catalog import load_catalog

    return {
        a.accelerator_id: Hardware(
            a.accelerator_id,
            a.vendor,
            str(a.backend.value),
            a.memory_gib,
            a.memory_bandwidth_tb_s,
            a.peak_dense_bf16_tflops,
        )
        for a in load_catalog().values()
    }


def result_shape(o: Option) -> tuple[float, float]:
    """(uncached input, output) tokens per request of the result an option was measured at."""
    if o.input_tokens and o.output_tokens:
        cached = o.prefix_cache_share or 0.0
        return float(o.input_tokens) * (1.0 - cached), float(o.output_tokens)
    return ASSUMED_INPUT_TOKENS, ASSUMED_OUTPUT_TOKENS


def model_factors(
    reps: Sequence[Option], uncached_ratio: float, hardware: dict[str, Hardware] | None = None
) -> np.ndarray:
    """Per option: output capacity at a workload of ``uncached_ratio`` uncached input tokens per
    output token ÷ capacity at the option's measured shape; NaN where the model cannot place it
    (a model or part it does not know, a model that does not fit the replica)."""
    hw_table = catalog_hardware() if hardware is None else hardware
    keys: dict[tuple, int] = {}
    which = np.full(len(reps), -1, dtype=np.int64)
    fields: list[dict[str, float]] = []
    for i, o in enumerate(reps):
        arch = resolve_architecture(o.model)
        hw = hw_table.get(o.accelerator_id)
        if arch is None or hw is None:
            continue
        precision = canonical_precision(o.precision)
        if precision == "unknown":
            continue
        tokens_in, tokens_out = result_shape(o)
        key = (
            arch.model_id,
            hw.accelerator_id,
            precision,
            o.accelerators_per_replica,
            tokens_in,
            tokens_out,
        )
        if key not in keys:
            keys[key] = len(fields) // 2
            for shape_in in (uncached_ratio * tokens_out, tokens_in):
                fields.append(
                    case_fields(  # physics reads every case; a ValueError is a bug upstream
                        arch,
                        hw,
                        key[2],
                        system=max(o.accelerators_per_replica, 1),
                        fixed_tp=max(o.accelerators_per_replica, 1),
                        input_tokens=max(shape_in, 1.0),
                        output_tokens=tokens_out,
                        regime=RATIO_REGIME,
                        tpot_limit_ms=None,
                        concurrency=None,
                    )
                )
        which[i] = keys[key]
    out = np.full(len(reps), np.nan)
    if not fields:
        return out
    tok = physics(cases_from(fields)).tok_s_per_acc
    ratio = tok[0::2] / tok[1::2]
    placed = which >= 0
    out[placed] = ratio[which[placed]]
    return np.where(np.isfinite(out) & (out > 0), out, np.nan)
