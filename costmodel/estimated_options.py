"""Estimated options: capacity the calibrated performance model supplies where no measured
result can serve a workload (its model on a kind of accelerator, at its shape and latency
target).

For each workload and each backend (CUDA, ROCm, CPU, …) on which no measured option of the
workload's models meets its SLO, the model (``costmodel.perf_estimate.Estimator``) is asked, for
every part of that backend on sale, for the workload's model at the workload's input:output and
TTFT target; every quote of that part then gets an option holding one estimated operating point
(its p99 TTFT standing in for lower percentiles, as an upper bound) and the interval of its
throughput. Each is marked ``basis="estimated"``; the engine sizes it beside the measured
options and carries its band.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace

import numpy as np

from costmodel.demand import Segment
from costmodel.market import Engine
from costmodel.option_table import OperatingPoint, Option, canonical_precision
from costmodel.perf_calibration import ASSUMED_OUTPUT_TOKENS
from costmodel.perf_estimate import Estimate, EstimateError, EstimateQuery
from costmodel.plan_result import PlanLine

#: The model answers one question; the engine reads it like a measured point.
EstimateFn = Callable[[EstimateQuery], Estimate]


def band_text(estimate: Estimate) -> str:
    """ "estimated ±23%": the wider side of the throughput's 80% interval."""
    band = estimate.output_tok_s_per_accelerator
    spread = max(band.high / band.estimate - 1.0, 1.0 - band.low / band.estimate)
    return f"estimated ±{spread:.0%}"


def _quotes(options: Sequence[Option]) -> dict[str, list[Option]]:
    """One option per price quote (the cheapest configuration does not matter: only the
    quote's price and hardware are reused), grouped by part."""
    seen: dict[tuple, Option] = {}
    for o in options:
        if o.basis != "measured":
            continue
        key = (
            o.provider,
            o.region,
            o.zone,
            o.instance_type,
            o.pricing_model,
            o.price_basis,
            o.accelerator_id,
        )
        seen.setdefault(key, o)
    by_part: dict[str, list[Option]] = {}
    for o in seen.values():
        by_part.setdefault(o.accelerator_id, []).append(o)
    return by_part


def _query(segment: Segment, part: str, precision: str, ratio: float) -> EstimateQuery:
    cached = segment.prefix_cache_share or 0.0
    return EstimateQuery(
        model=segment.models[0],
        accelerator_id=part,
        precision=precision,
        input_tokens=max(ratio * (1.0 - cached), 0.0) * ASSUMED_OUTPUT_TOKENS,
        output_tokens=ASSUMED_OUTPUT_TOKENS,
        ttft_slo_ms=segment.slo.ftl_ms,
    )


def _option(quote: Option, segment: Segment, est: Estimate, ratio: float) -> Option | None:
    size = est.replica_size
    per_acc = quote.price_basis == "per_accelerator"
    if per_acc:
        per_unit_acc, replicas = size, 1
        price = quote.usd_per_unit_hour / max(quote.accelerators_per_unit, 1) * size
    else:
        per_unit_acc, replicas = quote.accelerators_per_unit, quote.accelerators_per_unit // size
        price = quote.usd_per_unit_hour
    if replicas < 1:
        return None
    tok = est.output_tok_s_per_accelerator
    label = band_text(est)
    config = f"estimated|{segment.models[0]}|{est.query.precision}|{size}"
    zone = f"/{quote.zone}" if quote.zone else ""
    return replace(
        quote,
        option_id=f"{quote.provider}:{quote.region}{zone}:{quote.instance_type}:"
        f"{quote.pricing_model}:{config}",
        usd_per_unit_hour=price,
        accelerators_per_unit=per_unit_acc,
        accelerators_per_replica=size,
        replicas_per_unit=replicas,
        config_key=config,
        model=segment.models[0],
        precision=est.query.precision,
        runtime="estimated",
        runtime_version="",
        workload="",
        input_tokens=max(int(round(ratio * ASSUMED_OUTPUT_TOKENS)), 1),
        output_tokens=int(ASSUMED_OUTPUT_TOKENS),
        prefix_cache_share=segment.prefix_cache_share,
        ttft_basis=label,
        bench_source_url="",
        bench_source_title=f"{label} ({est.evidence}; {est.calibration_results} results)",
        bench_measured_at=None,
        points=(
            OperatingPoint(
                unit_output_tok_s=tok.estimate * size * replicas,
                ttft_ms_p50=est.ttft_ms_p50.estimate,
                ttft_ms_p99=est.ttft_ms_p99.estimate,
                tpot_ms_p50=est.tpot_ms_p50.estimate,
                result_id="",
            ),
        ),
        n_table_points=0,
        basis="estimated",
        capacity_low=tok.low / tok.estimate,
        capacity_high=tok.high / tok.estimate,
    )


def estimated_options(
    options: Sequence[Option],
    needs: Iterable[tuple[Segment, frozenset[str]]],
    estimate: EstimateFn,
    precisions: dict[str, tuple[str, ...]],
) -> list[Option]:
    """Estimated options for each (segment, backends its measured options already serve at its
    SLO): every part on sale of every other backend, at each precision measured on that part (``precisions``,
    else bf16) that the segment allows. A question the model cannot answer (an unknown model,
    a model that does not fit) or whose TTFT estimate misses the target adds nothing."""
    quotes = _quotes(options)
    out: list[Option] = []
    asked: dict[EstimateQuery, Estimate | None] = {}
    for segment, served in needs:
        ratio = (
            segment.monthly_input_tokens / segment.monthly_output_tokens
            if segment.monthly_output_tokens > 0
            else 0.0
        )
        allowed = segment.precisions
        for part, part_quotes in sorted(quotes.items()):
            # Measured capacity on a backend is what a plan buys there: an estimate only opens a
            # backend no result of the workload's models reaches (the scenarios' shares are
            # per backend), and keeps the optimizer's programme the size measured options make.
            if part_quotes[0].backend in served:
                continue
            for precision in precisions.get(part, ("bf16",)):
                if allowed is not None and canonical_precision(precision) not in allowed:
                    continue
                query = _query(segment, part, precision, ratio)
                if query not in asked:
                    try:
                        asked[query] = estimate(query)
                    except EstimateError:
                        asked[query] = None
                est = asked[query]
                if (
                    est is None
                    or not est.meets_ttft_slo
                    or not np.isfinite(est.output_tok_s_per_accelerator.estimate)
                ):
                    continue
                out.extend(
                    o for q in part_quotes if (o := _option(q, segment, est, ratio)) is not None
                )
    return out


def with_estimates(
    engine: Engine,
    segments: Sequence[Segment],
    estimate: EstimateFn,
    precisions: dict[str, tuple[str, ...]],
) -> Engine:
    """``engine`` with estimated options on every backend where no measured option serves a
    segment at its SLO and shape; the same engine where none is needed or none is feasible."""
    needs = []
    for segment in segments:
        _, cap_i, _ = engine.segment_capacity(segment)
        models = engine.table.model_mask(segment.model_keys)
        groups = np.zeros(engine.n_groups, dtype=bool)
        groups[engine.table.group[models]] = True
        served_groups = np.flatnonzero(groups & np.isfinite(cap_i) & (cap_i > 0))
        served = frozenset(engine.table.options[int(engine.rep[g])].backend for g in served_groups)
        needs.append((segment, served))
    extra = estimated_options(engine.table.options, needs, estimate, precisions)
    if not extra:
        return engine
    return Engine(engine.table.with_options(extra))


def estimated_by_id(options: Iterable[Option]) -> dict[str, Option]:
    """The estimated options of a table by id (what :func:`banded` reads a line's band from)."""
    return {o.option_id: o for o in options if o.basis == "estimated"}


def banded(line: PlanLine, option: Option | None) -> PlanLine:
    """``line`` marked with its option's basis and, where the capacity was estimated and the
    line carries no band of its own, its cost band: units scale with 1 ÷ capacity, so the
    interval's high end costs ``monthly ÷ high`` and its low end ``monthly ÷ low``. A fleet
    line is held whatever its capacity: more capacity saves nothing (its low is its cost), less
    needs about ``1 ÷ low`` as many units at its own rate (its high)."""
    if option is None or option.basis != "estimated":
        return line
    label = option.ttft_basis or "estimated"
    if line.monthly_usd_low is not None and line.monthly_usd_high is not None:
        return replace(line, basis=label)
    monthly = line.monthly_usd
    low = monthly if line.role == "fleet" else monthly / option.capacity_high
    high = monthly / option.capacity_low
    return replace(line, basis=label, monthly_usd_low=low, monthly_usd_high=high)
