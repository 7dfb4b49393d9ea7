"""Page model for the estimates on the pages: the validation chart's points and its sentence
(Benchmarks), and the models a workload may name, measured or estimated (Workspace). No
Streamlit here, so every rule is testable."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import pandas as pd

#: The validation metric the Benchmarks page charts, and how a person reads it.
THROUGHPUT = "output_tok_s_per_accelerator"
METRIC_WORDS = {
    "output_tok_s_per_accelerator": "output tok/s per accelerator",
    "ttft_ms_p50": "TTFT p50 (ms)",
    "ttft_ms_p99": "TTFT p99 (ms)",
    "tpot_ms_p50": "TPOT p50 (ms)",
}
POINT_COLUMNS = (
    "model",
    "accelerator_id",
    "vendor",
    "regime",
    "measured",
    "predicted",
    "low",
    "high",
    "evidence",
)
#: The labels a model choice carries, so measured and estimated read apart at a glance.
MEASURED_LABEL, ESTIMATED_LABEL = "measured", "estimated"


def validation_points(report: Mapping[str, Any], metric: str = THROUGHPUT) -> pd.DataFrame:
    """One row per held-out case of ``metric``: measured, predicted and its 80% interval."""
    cases = report.get("metrics", {}).get(metric, {}).get("cases", [])
    frame = pd.DataFrame(cases, columns=list(POINT_COLUMNS))
    keep = (frame["measured"] > 0) & (frame["predicted"] > 0)
    return frame[keep].reset_index(drop=True)


def validation_sentence(report: Mapping[str, Any], metric: str = THROUGHPUT) -> str:
    """The median error and the interval's coverage in words, with the targets."""
    found = report.get("metrics", {}).get(metric)
    if not found or not found["overall"]["cases"]:
        return f"No held-out result measures {METRIC_WORDS.get(metric, metric)} yet."
    overall, targets = found["overall"], found["targets"]
    low, high = targets["coverage_between"]
    error_target = targets["median_abs_pct_error_at_most"]
    aim = (
        f" (target ≤ {error_target:.0%}, {'met' if targets['error_met'] else 'missed'})"
        if error_target is not None
        else " (no target)"
    )
    return (
        f"Predicted {METRIC_WORDS.get(metric, metric)} is off by a median"
        f" {overall['median_abs_pct_error']:.1%} over {overall['cases']:,} held-out results{aim};"
        f" the 80% interval holds {overall['interval_coverage']:.0%} of them (target"
        f" {low:.0%}–{high:.0%}). Each point was predicted with every result of its model ×"
        " accelerator left out of the fit."
    ) + _reference_sentence(found.get("naive_reference"))


def _reference_sentence(ref: Mapping[str, Any] | None) -> str:
    """The naive reference's error beside the model's, where the report has one."""
    if not ref or not ref["cases"]:
        return ""
    return (
        f" For scale, a naive guess ({ref['rule']}) is off by a median"
        f" {ref['median_abs_pct_error']:.1%} on {ref['cases']:,} of these results; the model, by"
        f" {ref['model_median_abs_pct_error']:.1%} on the same."
    )


def model_choices(
    measured: Iterable[str], known: Iterable[str], measured_ids: Iterable[str] = ()
) -> list[tuple[str, str]]:
    """(model, basis) for the models a workload may name: every model some result measures
    ("measured"), then every model the performance model knows (``known``, its architecture
    ids) that no result measures ("estimated": its capacity would be the model's estimate,
    with its interval). ``measured_ids`` are the architecture ids the measured names resolve
    to, so "llama-3.1-70b" is not offered again beside "llama-3.1-70b-instruct"."""
    have = sorted({m for m in measured if m})
    seen = {m.lower() for m in have} | {m.lower() for m in measured_ids if m}
    rest = sorted({m for m in known if m and m.lower() not in seen})
    return [(m, MEASURED_LABEL) for m in have] + [(m, ESTIMATED_LABEL) for m in rest]


def choice_label(model: str, basis: str) -> str:
    """ "llama-3.3-70b-instruct — estimated"."""
    return f"{model} — {basis}"


def choices_text(choices: Iterable[tuple[str, str]]) -> str:
    """The models a workload may name, measured and estimated apart, in words."""
    by: dict[str, list[str]] = {MEASURED_LABEL: [], ESTIMATED_LABEL: []}
    for name, basis in choices:
        by[basis].append(name)
    return (
        f"Measured (results exist): {', '.join(by[MEASURED_LABEL]) or 'none'}. Estimated (no"
        " result: capacity is the performance model's estimate, marked 'estimated ±x%' on every"
        f" plan): {', '.join(by[ESTIMATED_LABEL]) or 'none'}."
    )
