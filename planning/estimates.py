"""Performance estimates read from the warehouse: the measured results handed to the calibrated
model (:mod:`costmodel.perf_estimate`), and its leave-one-out validation."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import numpy as np

from costmodel.bundled_tables import ARCHITECTURES_FILE, model_architectures, resolve_architecture
from costmodel.estimate_validation import validate
from costmodel.estimated_options import with_estimates as add_estimates
from costmodel.market import Engine
from costmodel.perf_calibration import METRICS, LeaveOneOut, build_corpus
from costmodel.perf_estimate import Estimate, EstimateError, EstimateQuery, Estimator
from costmodel.plan_fleet import workload_segment
from costmodel.shape_physics import catalog_hardware
from costmodel.workspace_model import Workspace
from tokendesk.paths import REPO_ROOT, data_dir, user_data_dir
from warehouse import Warehouse
from warehouse.queries import estimate_calibration_results

__all__ = ["Estimate", "EstimateError", "EstimateQuery", "estimator", "validation_report"]


def result_rows(warehouse: Warehouse) -> list[dict[str, Any]]:
    frame = estimate_calibration_results(warehouse)
    return frame.astype(object).where(frame.notna(), None).to_dict("records")


def estimator_from_rows(rows: list[dict[str, Any]], *, keep: bool = False) -> Estimator:
    """The model calibrated on ``rows`` (result rows as the warehouse lists them); ``keep``
    reads and writes its leave-one-out in the per-user cache (:func:`loo_cache_path`)."""
    architectures = model_architectures()
    hardware = catalog_hardware()
    corpus = build_corpus(rows, architectures, hardware, resolve_architecture)
    path = loo_cache_path(rows) if keep else None
    loo = read_loo(path) if path is not None else None
    model = Estimator(corpus, architectures, hardware, resolve_architecture, loo)
    if path is not None and loo is None:
        write_loo(path, model.loo)
    return model


#: The code and tables whose change makes a kept leave-one-out stale.
_LOO_CODE = ("costmodel/perf_calibration.py", "costmodel/perf_model.py")
_LOO_TABLES = (ARCHITECTURES_FILE, "accelerators.csv")


def loo_cache_path(rows: list[dict[str, Any]]) -> Path:
    """Where the leave-one-out of these exact results (and this code) is kept."""
    digest = hashlib.sha256(repr(rows).encode())
    files = [REPO_ROOT / name for name in _LOO_CODE] + [data_dir() / n for n in _LOO_TABLES]
    for file in files:
        digest.update(file.read_bytes() if file.exists() else str(file).encode())
    return user_data_dir() / "estimates" / f"loo-{digest.hexdigest()[:24]}.npz"


def read_loo(path: Path) -> LeaveOneOut | None:
    """A kept leave-one-out, or None where there is none (or it cannot be read: rebuilt)."""
    try:
        with np.load(path, allow_pickle=False) as kept:
            pairs = [str(p) for p in kept["pairs"]]
            fitted = kept["fitted_on"]
            return LeaveOneOut(
                {m: kept[f"predicted_{m}"] for m in METRICS},
                {m: kept[f"level_{m}"] for m in METRICS},
                {pair: fitted[i] for i, pair in enumerate(pairs)},
            )
    except (OSError, KeyError, ValueError):
        return None


def write_loo(path: Path, loo: LeaveOneOut) -> None:
    """Keep ``loo`` for the next process; a folder that cannot be written keeps nothing."""
    pairs = sorted(loo.fitted_on)
    arrays = {f"predicted_{m}": v for m, v in loo.predicted.items()}
    arrays |= {f"level_{m}": v for m, v in loo.level.items()}
    arrays["pairs"] = np.array(pairs, dtype=str)
    arrays["fitted_on"] = np.array([loo.fitted_on[p] for p in pairs], dtype=bool)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(".partial.npz")
        np.savez(partial, allow_pickle=False, **arrays)
        partial.replace(path)
    except OSError:
        return


def estimator(warehouse: Warehouse) -> Estimator:
    """The model calibrated on every current result in ``warehouse``."""
    return estimator_from_rows(result_rows(warehouse))


def validation_report(warehouse: Warehouse) -> dict[str, Any]:
    """Leave-one-out by (model, accelerator) pair over every current result."""
    rows = result_rows(warehouse)
    model = estimator_from_rows(rows)
    # Results the physics cannot place (a model that does not fit its system at the stated
    # precision, a model or precision it does not know) are counted, not validated.
    return {"stored_results": len(rows), **validate(model.corpus, model.loo)}


#: Estimators by the result ids they were calibrated on: building one fits the model (seconds),
#: so it is built once per results snapshot, never per plan.
_BUILT: dict[int, Estimator] = {}


def cached_estimator(warehouse: Warehouse) -> Estimator:
    """:func:`estimator`, built once per set of current results (keyed on their ids)."""
    rows = result_rows(warehouse)
    key = hash(tuple(sorted(str(r.get("result_id")) for r in rows)))
    hit = _BUILT.get(key)
    if hit is None:
        _BUILT.clear()  # one snapshot at a time: an old one is never asked again
        hit = _BUILT[key] = estimator_from_rows(rows, keep=True)
    return hit


def measured_precisions(model: Estimator) -> dict[str, tuple[str, ...]]:
    """Per part: the precisions some result measured on it (fp8 is only estimated on a part
    that has run fp8), bf16 always."""
    corpus = model.corpus
    out: dict[str, set[str]] = {}
    for part, precision in zip(corpus.cats["part"], corpus.cats["precision"], strict=True):
        if str(precision) in ("bf16", "fp8"):
            out.setdefault(str(part), {"bf16"}).add(str(precision))
    return {part: tuple(sorted(values)) for part, values in out.items()}


def with_estimates(engine: Engine, ws: Workspace, warehouse: Warehouse) -> Engine:
    """``engine`` with estimated capacity beside the measured where ``ws`` allows it
    (``constraints.allow_estimates``) and a workload needs it."""
    if not ws.constraints.allow_estimates or not ws.demand:
        return engine
    model = cached_estimator(warehouse)
    segments = [workload_segment(w) for w in ws.demand]
    return add_estimates(engine, segments, model.estimate, measured_precisions(model))
