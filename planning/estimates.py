"""Performance estimates read from the warehouse: the measured results handed to the calibrated
model (:mod:`costmodel.perf_estimate`), and its leave-one-out validation."""

from __future__ import annotations

from typing import Any

from costmodel.bundled_tables import model_architectures, resolve_architecture
from costmodel.estimate_validation import validate
from costmodel.perf_calibration import build_corpus
from costmodel.perf_estimate import Estimate, EstimateError, EstimateQuery, Estimator
from costmodel.perf_model import Hardware
from tokendesk.catalog import load_catalog
from warehouse import Warehouse
from warehouse.queries import estimate_calibration_results

__all__ = ["Estimate", "EstimateError", "EstimateQuery", "estimator", "validation_report"]


def catalog_hardware() -> dict[str, Hardware]:
    """Every part of data/accelerators.csv with the datasheet figures the physics reads."""
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


def result_rows(warehouse: Warehouse) -> list[dict[str, Any]]:
    frame = estimate_calibration_results(warehouse)
    return frame.astype(object).where(frame.notna(), None).to_dict("records")


def estimator_from_rows(rows: list[dict[str, Any]]) -> Estimator:
    """The model calibrated on ``rows`` (result rows as the warehouse lists them)."""
    architectures = model_architectures()
    hardware = catalog_hardware()
    corpus = build_corpus(rows, architectures, hardware, resolve_architecture)
    return Estimator(corpus, architectures, hardware, resolve_architecture)


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
