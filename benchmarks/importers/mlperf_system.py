"""An MLPerf run's system description and measurements JSONs: where the submission layout keeps
them beside a run, the hardware they describe (accelerator, count, nodes) and the precision they
declare.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from benchmarks.importers.base import Source
from benchmarks.importers.ledger import not_understood, note_for
from benchmarks.importers.mlperf_naming import engine_runtime, memory_gb, stated_count


def path_parts(name: str) -> tuple[str | None, str | None]:
    """(system, benchmark) from ``.../results/<system>/<benchmark>/<Scenario>/performance/run_1/...``."""
    parts = Path(name).parts
    if "results" in parts:
        i = len(parts) - 1 - parts[::-1].index("results")
        if len(parts) > i + 2:
            return parts[i + 1], parts[i + 2]
    return None, None


def _system_json(src: Source, system: str | None) -> dict | None:
    systems = [
        v for v in src.companions.values() if isinstance(v, dict) and "accelerator_model_name" in v
    ]
    if system:
        for name, v in src.companions.items():
            if isinstance(v, dict) and Path(name).stem == system:
                return v
    if len(systems) == 1:
        return systems[0]
    if system:  # the submission layout: <division>/<Submitter>/systems/<system>.json
        parts = Path(src.name).parts
        if "results" in parts:
            i = len(parts) - 1 - parts[::-1].index("results")
            candidate = Path(*parts[:i]) / "systems" / f"{system}.json"
            if candidate.is_file():
                try:
                    described = json.loads(candidate.read_text(encoding="utf-8"))
                except json.JSONDecodeError as exc:
                    raise src.fail(
                        str(candidate), f"system JSON is not valid JSON ({exc.msg})"
                    ) from exc
                _ledger_check(src, "mlperf-system", candidate, described)
                return described
    return None


def _ledger_check(src: Source, fmt: str, path: Path, described: object) -> None:
    """A companion read from the submission layout is held to its ledger like a file given."""
    unknown = not_understood(fmt, "json", described)
    if unknown:
        src.notes.append(note_for(f"{fmt} ({path.name})", unknown))


def _declared_precision(src: Source, described: dict) -> str:
    """weight_data_types as declared; flagged when the weights were quantized from it."""
    types = str(described["weight_data_types"]).lower()
    if "quantiz" in str(described.get("weight_transformations", "")).lower() and types in (
        "fp16",
        "bf16",
        "fp32",
    ):
        src.notes.append(
            f"weight_data_types {types} with weight_transformations 'quantization': the run's "
            "precision is likely lower (pass --precision if the submitter states it)"
        )
    return types


def precision_of(src: Source, system: dict) -> str:
    if src.overrides.precision:
        return src.overrides.precision
    for v in (*src.companions.values(), system):
        if isinstance(v, dict) and v.get("weight_data_types"):
            return _declared_precision(src, v)
    for candidate in measurement_files(src.name):
        try:
            described = json.loads(candidate.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise src.fail(str(candidate), f"not valid JSON ({exc.msg})") from exc
        if isinstance(described, dict) and described.get("weight_data_types"):
            _ledger_check(src, "mlperf-measurements", candidate, described)
            return _declared_precision(src, described)
    raise src.fail(
        "weight_data_types",
        "precision unknown: no measurements JSON beside the run (v6.0 on: "
        "results/<system>/<benchmark>/<Scenario>/measurements.json; before: "
        "measurements/<system>/<benchmark>/<Scenario>/<system>_<Scenario>.json); pass it with "
        "the summary, or --precision",
    )


def measurement_files(name: str) -> list[Path]:
    """The measurements JSONs a submission keeps for the run at ``name``
    (``<root>/results/<system>/<benchmark>/<Scenario>/performance/...``), in the order to read."""
    parts = Path(name).parts
    if "results" not in parts:
        return []
    i = len(parts) - 1 - parts[::-1].index("results")
    if len(parts) <= i + 3:
        return []
    root, (sys_name, bench, scen) = Path(*parts[:i]), parts[i + 1 : i + 4]
    run_folder = root / "results" / sys_name / bench / scen
    found = [run_folder / "measurements.json"]  # v6.0 and v6.1: beside performance/
    # Some v6.0 submitters (Dell's CPU runs) keep a measurements/ folder there as well; before
    # v6.0 the tree was measurements/<system>/<benchmark>/<Scenario>/, its file named freely
    # (<system>_<Scenario>.json, <system>.json, <system>_PyTorch_<Scenario>.json).
    for folder in (run_folder / "measurements", root / "measurements" / sys_name / bench / scen):
        found += sorted(folder.glob("*.json")) if folder.is_dir() else []
    return [path for path in found if path.is_file()]


@dataclass(frozen=True)
class Hardware:
    """What the system description says of the machine that ran a result."""

    system: dict
    system_name: str
    accelerator_id: str
    count: int
    nodes: int
    notes: tuple[str, ...] = ()

    @property
    def status(self) -> str:
        return f" ({self.system['status']})" if self.system.get("status") else ""

    def fields(self, src: Source, benchmark: str) -> dict:
        """The record fields the system settles: hardware, runtime and precision."""
        runtime, note = engine_runtime(str(self.system.get("framework") or ""), benchmark)
        if note and not src.overrides.runtime:
            src.notes.append(note)
        return {
            "accelerator_id": self.accelerator_id,
            "accelerators_per_replica": self.count,
            "nodes": self.nodes,
            "system": self.system_name,
            "runtime": src.overrides.runtime or runtime,
            "precision": precision_of(src, self.system),
        }


def hardware(src: Source, system_name: str | None) -> Hardware:
    """The accelerator, its count and the nodes of the run's system (the description beside
    the run in the submission layout, or the one given with it), or the flags that say them."""
    system = _system_json(src, system_name)
    if system is None and not src.overrides.accelerator_id:
        raise src.fail(
            "system",
            "no system description: pass the submission's systems/<system>.json with the "
            "summary, or --accelerator ID --accelerators-per-replica N",
        )
    system = system or {}
    nodes = src.number(system, "number_of_nodes") or 1
    note = ""
    if src.overrides.accelerator_id:
        acc = src.accelerator(None, "accelerator_model_name")
        count = int(nodes)
    else:
        acc_name = str(system.get("accelerator_model_name") or "")
        if not acc_name or acc_name.upper() in ("N/A", "NONE"):
            acc = src.accelerator(
                system.get("host_processor_model_name"), "host_processor_model_name"
            )
            count = int((src.number(system, "host_processors_per_node") or 1) * nodes)
        else:
            acc = src.accelerator(
                acc_name,
                "accelerator_model_name",
                memory_gb(system.get("accelerator_memory_capacity")),
            )
            per_node = src.number(system, "accelerators_per_node") or 1
            count, note = stated_count(acc_name, per_node, nodes)
    return Hardware(
        system=system,
        system_name=str(system.get("system_name") or system_name or ""),
        accelerator_id=acc,
        count=src.overrides.accelerators_per_replica or count,
        nodes=int(nodes),
        notes=(note,) if note else (),
    )
