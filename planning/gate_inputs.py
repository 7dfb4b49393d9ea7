"""The CI regression gate's inputs: the two result sets it compares and the exceptions it may
apply, read and checked; every error names the file, the key and why (exit 2).

A result set is ``snapshot:<id>`` from the warehouse, a seed-format results CSV, the harness's
result JSON (with its ``--repeats`` spread where it measured one), any file a benchmark importer
reads, or a JSON list of BenchmarkResult rows. An exception (YAML: configuration match, metric,
reason, expires_on) names the configurations it covers with the fields they are matched on
(``MATCH_FIELDS``); ``planning.regression_gate`` applies it.
"""

from __future__ import annotations

import fnmatch
import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path

import pandas as pd
from pydantic import ValidationError

from benchmarks.errors import ResultFileError
from benchmarks.importers import import_files
from tokendesk.records import BenchmarkResult
from tokendesk.safeyaml import YamlInputError, YamlLimits, load_yaml_file
from warehouse.seed import SeedFileError, read_result_file

#: Measured mean token counts vary run to run, so the match uses the workload name, not them.
MATCH_FIELDS = (
    "backend",
    "accelerator_id",
    "accelerators_per_replica",
    "runtime",
    "model",
    "precision",
    "workload",
    "scenario",
    "concurrency",
    "request_rate_rps",
)


class GateInputError(ValueError):
    """Bad gate input: names the file, the key and the reason."""

    def __init__(self, path: str | Path, key: str, reason: str) -> None:
        self.path, self.key, self.reason = str(path), key, reason
        super().__init__(f"{path}: {key}: {reason}")


# -- loading result sets ----------------------------------------------------------------------
_HARNESS_KEYS = {
    "output_tok_s": "throughput.output_tok_s",
    "total_tok_s": "throughput.total_tok_s",
    "ttft_ms_p50": "latency_ms.ttft.p50",
    "ttft_ms_p90": "latency_ms.ttft.p90",
    "ttft_ms_p95": "latency_ms.ttft.p95",
    "ttft_ms_p99": "latency_ms.ttft.p99",
    "measured_at": "started_at",
}
_META_KEYS = ("config", "run", "meta", "metadata", "target")
_POINT_KEYS = ("points", "results", "operating_points")


def _validate(path: Path, where: str, fields: dict, harness: bool) -> BenchmarkResult:
    try:
        return BenchmarkResult.model_validate(fields)
    except ValidationError as exc:
        first = exc.errors()[0]
        name = ".".join(str(p) for p in first["loc"]) or "-"
        key = _HARNESS_KEYS.get(name, name) if harness else name
        raise GateInputError(path, f"{where}.{key}" if where else key, first["msg"]) from None
    except ValueError as exc:
        raise GateInputError(
            path, f"{where}.accelerator_id" if where else "accelerator_id", str(exc)
        ) from None


def _harness_point(block: Mapping, meta: Mapping) -> dict:
    """One harness operating-point block (see the runner) flattened onto the run's metadata."""
    throughput = block.get("throughput") or {}
    ttft = (block.get("latency_ms") or {}).get("ttft") or {}
    requests = block.get("requests") or {}
    out = {k: v for k, v in meta.items() if k in BenchmarkResult.model_fields}
    out.update(
        {
            "concurrency": block.get("concurrency"),
            "request_rate_rps": None
            if block.get("request_rate_rps") in (None, "inf")
            else block.get("request_rate_rps"),
            "output_tok_s": throughput.get("output_tok_s"),
            "total_tok_s": throughput.get("total_tok_s"),
            "ttft_ms_p50": ttft.get("p50"),
            "ttft_ms_p90": ttft.get("p90"),
            "ttft_ms_p95": ttft.get("p95"),
            "ttft_ms_p99": ttft.get("p99"),
            "requests_ok": requests.get("ok"),
            "requests_failed": requests.get("failed"),
            "measured_at": block.get("started_at")
            or meta.get("measured_at")
            or meta.get("started_at"),
        }
    )
    out.setdefault("source_tool", meta.get("source_tool", "tokendesk-harness"))
    out.setdefault("workload", meta.get("workload", "golden-prompts"))
    return {k: v for k, v in out.items() if v is not None}


def _from_json(path: Path) -> list[BenchmarkResult]:
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise GateInputError(path, f"line {exc.lineno}", f"not valid JSON: {exc.msg}") from None
    if isinstance(doc, list):
        return [_validate(path, f"[{i}]", dict(row), harness=False) for i, row in enumerate(doc)]
    if not isinstance(doc, dict):
        raise GateInputError(
            path, "-", "expected a JSON object (harness result) or a list of results"
        )
    meta: dict = {}
    for key in _META_KEYS:
        if isinstance(doc.get(key), dict):
            meta.update(doc[key])
    meta.update({k: v for k, v in doc.items() if not isinstance(v, dict | list)})
    points_key = next((k for k in _POINT_KEYS if isinstance(doc.get(k), list)), None)
    if points_key is None:
        raise GateInputError(
            path,
            "points",
            f"missing: a result file needs a list under one of {', '.join(_POINT_KEYS)}",
        )
    out = []
    for i, block in enumerate(doc[points_key]):
        if not isinstance(block, dict):
            raise GateInputError(path, f"{points_key}[{i}]", "expected an object")
        harness = "throughput" in block or "latency_ms" in block
        fields = (
            _harness_point(block, meta)
            if harness
            else {**{k: v for k, v in meta.items() if k in BenchmarkResult.model_fields}, **block}
        )
        out.append(_validate(path, f"{points_key}[{i}]", fields, harness=harness))
    return out


def _from_importers(path: Path) -> list[BenchmarkResult] | None:
    """Harness result JSON and other tools' result files, through the benchmark importers (format
    detected from the content). None when no importer recognises the file."""

    try:
        [(_, results)] = import_files([path])
    except ResultFileError as exc:
        if "unrecognised result format" in exc.reason:
            return None
        raise GateInputError(exc.file, exc.key or "-", exc.reason) from None
    return list(results)


def _harness_with_repeats(path: Path) -> pd.DataFrame | None:
    """A harness result file whose points were repeated (``--repeats N``): the recorded runs,
    each with the run-to-run spread the file measured (``cv_*`` columns). None otherwise."""
    try:
        from benchmarks.results import SCHEMA, document_points
    except ImportError:
        return None
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError):
        return None
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA:
        return None
    points = doc.get("operating_points") or []
    if not any(isinstance(b, dict) and b.get("repeats") for b in points):
        return None
    try:
        pairs = document_points(doc, source_file=path.name)
    except (KeyError, ValueError):
        return None  # let the importer report what is wrong with the file
    rows = []
    for block, result in pairs:
        row = result.model_dump(mode="python")
        rep = block.get("repeats") or {}
        row["cv_output_tok_s"] = (rep.get("output_tok_s") or {}).get("cv")
        row["cv_ttft_ms_p95"] = (rep.get("ttft_p95_ms") or {}).get("cv")
        rows.append(row)
    return pd.DataFrame(rows) if rows else None


def load_result_set(
    spec: str, snapshot_loader: Callable[[str], pd.DataFrame] | None = None
) -> pd.DataFrame:
    """A result set as a frame of BenchmarkResult fields: ``snapshot:<id>`` from the warehouse, a
    seed-format results CSV, the harness's result JSON or any file a benchmark importer reads, or
    a JSON list of BenchmarkResult rows."""
    if spec.startswith("snapshot:"):
        snapshot_id = spec.split(":", 1)[1]
        if snapshot_loader is None:
            raise GateInputError(spec, "snapshot", "no warehouse to read snapshots from; pass --db")
        frame = snapshot_loader(snapshot_id)
        if frame.empty:
            raise GateInputError(
                spec,
                "snapshot_id",
                f"no benchmark results in snapshot {snapshot_id!r}; see `tokendesk db info`",
            )
        return frame
    path = Path(spec)
    if not path.exists():
        raise GateInputError(path, "-", "file not found")
    if path.suffix.lower() == ".csv":
        try:
            results = read_result_file(path)
        except SeedFileError as exc:
            raise GateInputError(path, f"row {exc.row}.{exc.field}", exc.message) from None
    else:
        spread = _harness_with_repeats(path)
        if spread is not None:
            return spread
        found = _from_importers(path)
        if found is None and path.suffix.lower() == ".json":
            found = _from_json(path)  # a JSON list of BenchmarkResult rows, or {config, points}
        if found is None:
            raise GateInputError(
                path,
                "-",
                "unrecognised result format: use a harness or importer result file, a "
                "seed-format results .csv or snapshot:<id>",
            )
        results = found
    if not results:
        raise GateInputError(path, "-", "no results in file")
    return pd.DataFrame([r.model_dump(mode="python") for r in results])


def norm_value(value: object) -> str:
    """A configuration field as the text it is matched on: empty for a missing value, 8 for 8.0."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


# -- exceptions -------------------------------------------------------------------------------
@dataclass(frozen=True)
class GateException:
    match: tuple[tuple[str, str], ...]
    metric: str  # cost | ftl | any
    reason: str
    expires_on: date
    index: int = 0

    def expired(self, today: date) -> bool:
        return self.expires_on < today

    def applies(self, config: Mapping[str, object], metric: str) -> bool:
        if self.metric not in ("any", metric):
            return False
        return all(
            fnmatch.fnmatchcase(norm_value(config.get(k)), pattern) for k, pattern in self.match
        )

    @property
    def label(self) -> str:
        return ", ".join(f"{k}={v}" for k, v in self.match) + f" [{self.metric}]"


def load_exceptions(path: str | Path) -> list[GateException]:

    path = Path(path)
    if not path.exists():
        raise GateInputError(path, "-", "file not found")
    try:
        doc = load_yaml_file(path, YamlLimits(max_bytes=1024 * 1024))
    except YamlInputError as exc:
        raise GateInputError(path, "-", exc.message) from None
    items = doc.get("exceptions") if isinstance(doc, dict) else doc
    if doc is None:
        return []
    if not isinstance(items, list):
        raise GateInputError(path, "exceptions", "expected a list of exceptions")
    out = []
    for i, item in enumerate(items):
        where = f"exceptions[{i}]"
        if not isinstance(item, dict):
            raise GateInputError(
                path, where, "expected a mapping with match, metric, reason, expires_on"
            )
        match = item.get("match")
        if not isinstance(match, dict) or not match:
            raise GateInputError(
                path,
                f"{where}.match",
                f"missing: name the configuration with any of {', '.join(MATCH_FIELDS)}",
            )
        unknown = sorted(set(match) - set(MATCH_FIELDS))
        if unknown:
            raise GateInputError(
                path, f"{where}.match.{unknown[0]}", f"unknown field; use {', '.join(MATCH_FIELDS)}"
            )
        metric = str(item.get("metric", "")).lower()
        if metric not in ("cost", "ftl", "any"):
            raise GateInputError(path, f"{where}.metric", "must be cost, ftl or any")
        reason = item.get("reason")
        if not isinstance(reason, str) or not reason.strip():
            raise GateInputError(path, f"{where}.reason", "missing: every exception needs a reason")
        expires = item.get("expires_on")
        if expires is None or expires == "":
            raise GateInputError(
                path,
                f"{where}.expires_on",
                "missing: every exception needs an expiry date (YYYY-MM-DD)",
            )
        try:
            expires_on = (
                expires
                if isinstance(expires, date) and not isinstance(expires, datetime)
                else date.fromisoformat(str(expires)[:10])
            )
        except ValueError:
            raise GateInputError(
                path, f"{where}.expires_on", f"{expires!r} is not a date (YYYY-MM-DD)"
            ) from None
        out.append(
            GateException(
                tuple((k, norm_value(v)) for k, v in match.items()),
                metric,
                reason.strip(),
                expires_on,
                i,
            )
        )
    return out
