"""The audit as an input to the scenarios: engineer-weeks per backend, with where they came from.

Pure functions over a report (or its JSON, which a workspace can keep): the scenarios' one-time
migration cost takes ``engineer_weeks`` and its label from here instead of the fixed defaults.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from audit.report import AuditReport, to_json

DEFAULT_BASIS = "default"


@dataclass(frozen=True)
class EffortEstimate:
    backend: str
    weeks_low: float
    weeks_base: float
    weeks_high: float
    confidence: str
    blocking_findings: int
    basis: str  # "from the audit of <path> on <date>"


def estimates_from_json(data: Mapping) -> dict[str, EffortEstimate]:
    """Effort per backend from an audit's JSON output (``tokendesk audit --format json``)."""
    try:
        basis = str(data["basis"])
        backends = data["backends"]
        out = {}
        for backend, entry in backends.items():
            weeks = entry["engineer_weeks"]
            low, base, high = float(weeks["low"]), float(weeks["base"]), float(weeks["high"])
            if not 0 <= low <= base <= high:
                raise ValueError(
                    f"backend {backend}: engineer_weeks must satisfy low <= base <= high"
                )
            out[backend] = EffortEstimate(
                backend,
                low,
                base,
                high,
                str(entry["confidence"]),
                int(entry["blocking_findings"]),
                basis,
            )
    except (KeyError, TypeError, AttributeError) as exc:
        raise ValueError(
            f"not an audit result: missing or malformed field {exc}; "
            "produce one with `tokendesk audit PATH --format json`"
        ) from None
    return out


def effort_estimates(report: AuditReport) -> dict[str, EffortEstimate]:
    return estimates_from_json(to_json(report))


def migration_engineer_weeks(
    estimates: Mapping[str, EffortEstimate],
    defaults: tuple[tuple[str, float], ...],
) -> tuple[tuple[tuple[str, float], ...], str]:
    """The ``engineer_weeks`` pairs a scenario's migration inputs take, and their label.

    Backends the audit covers take its base estimate; the others (the incumbent, backends the
    audit has no rules for) keep their defaults. With no estimates the defaults come back
    labelled "default"."""
    if not estimates:
        return defaults, DEFAULT_BASIS
    merged = dict(defaults)
    for backend, estimate in estimates.items():
        merged[backend] = estimate.weeks_base
    basis = next(iter(estimates.values())).basis
    return tuple(merged.items()), basis
