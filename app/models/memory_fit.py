"""The Memory-fit page's model: each accelerator's fit, the labelled table and the breakdown."""

from __future__ import annotations

import pandas as pd

from app.models.tables import Table, readable
from costmodel import memory_fit
from tokendesk.records import Backend

PRECISIONS = ("bf16", "fp8", "int8", "int4")
#: The cost model's defaults, shown so the explanation can be checked by hand.
USABLE_FRACTION = 0.9
OVERHEAD_GIB = 4.0
MIN_KV_FRACTION = 0.1
#: Context length asked for when the link names none (shorter if the model allows less).
DEFAULT_CONTEXT = 8192
#: The pair explained when the link names none: the incumbent and its main alternative.
DEFAULT_EXPLAINED = ("amd-mi300x-192gb", "nvidia-h100-sxm-80gb")
PARTS = (
    "Weights",
    "KV cache (requested sequences)",
    "Spare (more KV cache)",
    "Reserved (runtime overhead, headroom)",
)


def fits(catalog, arch, precision: str, context: int, sequences: int, include_cpus: bool) -> dict:
    """accelerator id -> its MemoryFit, for every accelerator in the catalog (CPUs if asked)."""
    return {
        acc.accelerator_id: memory_fit(
            arch,
            precision,
            context,
            accelerator_id=acc.accelerator_id,
            accelerator_name=acc.name,
            memory_gib=acc.memory_gib,
            usable_fraction=USABLE_FRACTION,
            overhead_gib_per_device=OVERHEAD_GIB,
            concurrent_sequences=sequences,
            min_kv_fraction=MIN_KV_FRACTION,
        )
        for acc in catalog.values()
        if include_cpus or acc.backend is not Backend.CPU
    }


def fit_frame(catalog, fitted: dict) -> pd.DataFrame:
    """One row per accelerator: those that fit first, the fewest per replica first."""
    frame = pd.DataFrame(
        [
            {
                "accelerator_id": acc_id,
                "accelerator": catalog[acc_id].name,
                "vendor": catalog[acc_id].vendor,
                "memory_gib": catalog[acc_id].memory_gib,
                "fits": fit.fits,
                "per_replica": fit.accelerators_per_replica,
                "tp": fit.tensor_parallel,
                "pp": fit.pipeline_parallel,
                "kv_tokens": fit.kv_tokens_capacity,
                "explanation": fit.explanation,
                "memory_source": f"{catalog[acc_id].source_title} "
                f"({catalog[acc_id].source_date:%Y-%m-%d})",
            }
            for acc_id, fit in fitted.items()
        ]
    )
    if frame.empty:
        return frame
    return frame.sort_values(
        ["fits", "per_replica", "memory_gib"], ascending=[False, True, False], na_position="last"
    ).reset_index(drop=True)


def fit_table(frame: pd.DataFrame) -> Table:
    return readable(
        frame,
        {
            "accelerator": "Accelerator",
            "fits": "Fits",
            "per_replica": "Accelerators / replica",
            "memory_gib": "Memory",
            "vendor": "Vendor",
            "tp": "TP",
            "pp": "PP",
            "kv_tokens": "KV cache room (tokens)",
            "explanation": "Why",
            "memory_source": "Memory source",
        },
        numbers={
            "memory_gib": "%.0f GiB",
            "per_replica": "%d",
            "tp": "%d",
            "pp": "%d",
            "kv_tokens": "%,.0f",
        },
    )


def verdict(name: str, fit) -> str:
    if fit.fits:
        head = (
            f"**{name}: {fit.accelerators_per_replica} per replica** (TP "
            f"{fit.tensor_parallel} × PP {fit.pipeline_parallel})."
        )
    else:
        head = f"**{name}: does not fit.**"
    return f"{head} {fit.explanation}."


def breakdown(frame: pd.DataFrame, fitted: dict, sequences: int) -> pd.DataFrame:
    """Per fitting replica: GiB of weights, requested KV cache, spare and reserved memory."""
    parts = []
    for row in frame[frame["fits"]].itertuples():
        fit = fitted[row.accelerator_id]
        count = fit.accelerators_per_replica
        total = count * row.memory_gib
        usable = count * fit.usable_gib_per_device
        kv_need = fit.kv_gib_per_sequence * sequences
        sizes = (
            fit.weights_gib,
            kv_need,
            max(usable - fit.weights_gib - kv_need, 0.0),
            total - usable,
        )
        label = f"{count} × {row.accelerator}"
        parts += [
            {"replica": label, "part": part, "gib": gib, "total": total}
            for part, gib in zip(PARTS, sizes, strict=True)
        ]
    return pd.DataFrame(parts, columns=["replica", "part", "gib", "total"])
