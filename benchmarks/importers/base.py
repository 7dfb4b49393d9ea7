"""Shared pieces of the importers: the overrides a user passes, the parsed input, and helpers that
turn a bad value into a :class:`ResultFileError` naming the file, the key and the fix."""

from __future__ import annotations

import csv
import io
import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal, overload

import yaml
from pydantic import ValidationError

from benchmarks.errors import ResultFileError
from benchmarks.importers.hardware import identify
from tokendesk.catalog import UnknownAcceleratorError, check_accelerator_id, check_in_catalog
from tokendesk.records import BenchmarkResult
from tokendesk.units import UnitError, to_ms

#: A YAML document whose top level states a report schema version (llm-d-benchmark's reports).
_YAML_REPORT = re.compile(r"^version:\s*['\"]?\d+(\.\d+)+['\"]?\s*(#.*)?$", re.MULTILINE)
_YAML_REPORT_SECTION = re.compile(r"^(scenario|metrics|run|results):(\s|$)", re.MULTILINE)
#: Bounds on a YAML document's nodes: anchors and aliases can make a small text a huge tree.
MAX_YAML_NODES = 200_000
MAX_YAML_DEPTH = 64
#: A console log's first line: "[TensorRT-LLM] TensorRT-LLM version: 0.17.0",
#: "[01/18/2025-01:01:13] [TRT-LLM] [I] ...": a bracketed tag with a word in it, then text.
_LOG_FIRST_LINE = re.compile(r"^\[[^\]\[{}\"]*[A-Za-z][^\]\[{}\"]*\]\s*[^\s,\]}]")
#: GuideLLM's YAML report (``--output kind=yaml``): ``yaml.dump`` of the JSON report's mapping,
#: keys sorted, so ``benchmarks:`` is a top-level key at the start of a line.
_YAML_GUIDELLM = re.compile(r"^benchmarks:\s*$", re.MULTILINE)
_HUB_CACHE = re.compile(r"models--([^/\\]+?)--([^/\\]+)")
_COUNT_PREFIX = re.compile(r"^\s*(\d+)\s*[xX×*]\s*(.+)$")


def model_id(text: str) -> str:
    """A model id as people write it, from what tools record.

    ``/models/models--meta-llama--Llama-3.1-8B/snapshots/<sha>/`` -> ``meta-llama/Llama-3.1-8B``
    (a Hugging Face hub-cache path); ``/data/llama-3.1-8b-instruct/`` -> ``llama-3.1-8b-instruct``
    (a local folder); ``meta-llama/Llama-3.1-8B`` stays as it is.
    """
    text = str(text).strip()
    cached = _HUB_CACHE.search(text)
    if cached:
        return f"{cached.group(1)}/{cached.group(2)}"
    if text.startswith(("/", "./", "../", "~")) or "\\" in text:
        parts = [p for p in re.split(r"[/\\]+", text) if p and p not in (".", "..", "~")]
        return parts[-1] if parts else text
    return text


def count_and_name(text: str) -> tuple[int | None, str]:
    """``"4xNVIDIA_L40S"`` -> ``(4, "NVIDIA_L40S")``; a plain name -> ``(None, name)``."""
    match = _COUNT_PREFIX.match(str(text))
    if match:
        return int(match.group(1)), match.group(2)
    return None, str(text)


@dataclass(frozen=True)
class ImportOverrides:
    """Flags that fill in (or correct) what a result file does not say."""

    accelerator_id: str | None = None
    accelerators_per_replica: int | None = None
    instance_type: str | None = None
    runtime: str | None = None
    runtime_version: str | None = None
    model: str | None = None
    precision: str | None = None
    workload: str | None = None
    concurrency: float | None = None
    measured_at: datetime | None = None
    #: Multi-system files (MLPerf summaries): skip rows whose accelerator is not in the catalog.
    skip_unknown_accelerators: bool = False


@dataclass
class Source:
    """One file to import: its name, text and the structure it parsed into."""

    name: str
    text: str
    kind: str  # json | jsonl | yaml | csv | text
    data: Any
    overrides: ImportOverrides = field(default_factory=ImportOverrides)
    #: Companion files given alongside (e.g. an MLPerf system description), by file name.
    companions: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    #: Accelerator count a file states with its accelerator name ("4xNVIDIA_L40S").
    found_count: int | None = None
    #: Set when the file's encoding was a guess (Latin-1); added to every result's notes.
    encoding_note: str = ""

    # -- errors and values ----------------------------------------------------------------------
    def fail(self, key: str, reason: str) -> ResultFileError:
        return ResultFileError(self.name, key, reason)

    def need(self, obj: dict, key: str, where: str = "") -> Any:
        if not isinstance(obj, dict) or key not in obj or obj[key] is None:
            raise self.fail(f"{where}{key}", "required key is missing")
        return obj[key]

    @overload
    def number(self, obj: dict, key: str, where: str = "", *, required: Literal[True]) -> float: ...
    @overload
    def number(
        self, obj: dict, key: str, where: str = "", required: bool = False
    ) -> float | None: ...
    def number(self, obj: dict, key: str, where: str = "", required: bool = False) -> float | None:
        value = obj.get(key) if isinstance(obj, dict) else None
        if value is None or value == "":
            if required:
                raise self.fail(f"{where}{key}", "required number is missing")
            return None
        if isinstance(value, str) and value.strip().lower() in {"inf", "infinity"}:
            return math.inf
        try:
            number = float(value)
        except (TypeError, ValueError) as exc:
            raise self.fail(f"{where}{key}", f"expected a number, got {value!r}") from exc
        if math.isnan(number):
            if required:
                raise self.fail(f"{where}{key}", "is NaN")
            return None
        return number

    def ms(self, value: float | None, unit: str | None, key: str) -> float | None:
        if value is None:
            return None
        try:
            return to_ms(value, unit)
        except UnitError as exc:
            raise self.fail(key, str(exc)) from exc

    # -- context ----------------------------------------------------------------------------------
    def accelerator(self, found_name: str | None, key: str, memory_gb: float | None = None) -> str:
        """The catalog id the file states (exactly: see :mod:`benchmarks.importers.hardware`),
        or the one ``--accelerator`` gives; otherwise a rejection naming the string and the flag.
        ``memory_gb`` is a memory size the file states beside the name."""
        ov = self.overrides.accelerator_id
        if ov:
            try:
                return check_accelerator_id(ov)
            except UnknownAcceleratorError as exc:
                raise self.fail("--accelerator", str(exc)) from exc
        if found_name:
            count, found_name = count_and_name(str(found_name))
            if count:
                self.found_count = count
            placed = identify(found_name, memory_gb)
            if placed.accelerator_id:
                return placed.accelerator_id
            if placed.mixed:  # one figure for several parts: no single --accelerator is true
                raise self.fail(key, f"not imported: {placed.reason}")
            raise self.fail(
                key,
                f"cannot place the accelerator: {placed.reason}; "
                "pass --accelerator ID (a catalog id from data/accelerators.csv)",
            )
        raise self.fail(
            key or "accelerator",
            "the file does not say which accelerator ran it; "
            "pass --accelerator ID and --accelerators-per-replica N",
        )

    def per_replica(self, found: float | None) -> int:
        if self.overrides.accelerators_per_replica:
            return int(self.overrides.accelerators_per_replica)
        found = found or self.found_count
        if found and found >= 1:
            return int(found)
        self.notes.append("accelerators_per_replica=1 assumed (pass --accelerators-per-replica)")
        return 1

    def required_text(self, found: str | None, flag: str, what: str) -> str:
        value = getattr(self.overrides, flag.lstrip("-").replace("-", "_"), None) or found
        if not value:
            raise self.fail(flag.lstrip("-"), f"the file does not say the {what}; pass {flag}")
        return str(value)

    def when(self, found: datetime | None) -> datetime | None:
        if self.overrides.measured_at:
            return self.overrides.measured_at
        if found is not None:
            return found if found.tzinfo else found.replace(tzinfo=UTC)
        # Never the import time: a result dated today would look fresh whatever its age.
        self.notes.append("date unknown: the file carries no date (pass --measured-at)")
        return None

    def result(self, **fields: Any) -> BenchmarkResult:
        ov = self.overrides
        if ov.instance_type:
            fields["instance_type"] = ov.instance_type
        if ov.runtime_version:
            fields["runtime_version"] = ov.runtime_version
        if ov.workload:
            fields["workload"] = ov.workload
        if ov.concurrency and fields.get("concurrency") is None:
            fields["concurrency"] = ov.concurrency
        fields.setdefault("source_file", self.name)
        if fields.get("model") and not ov.model:
            fields["model"] = model_id(fields["model"])
        notes = [n for n in (fields.pop("notes", ""), *dict.fromkeys(self.notes)) if n]
        fields["notes"] = "; ".join(notes)
        try:
            result = BenchmarkResult(**fields)
        except ValidationError as exc:
            err = exc.errors()[0]
            key = ".".join(str(p) for p in err.get("loc", ())) or "record"
            raise self.fail(key, err.get("msg", str(exc))) from exc
        try:
            return check_in_catalog(result)
        except ValueError as exc:
            raise self.fail("accelerator_id", str(exc)) from exc


def parse_structure(name: str, text: str) -> tuple[str, Any]:
    """JSON, JSON Lines, a versioned YAML report, CSV or plain text, decided by content (file
    names lie)."""
    stripped = text.strip()
    if not stripped:
        raise ResultFileError(name, "", "the file is empty")
    if stripped[0] in "[{":
        try:
            return "json", json.loads(stripped)
        except json.JSONDecodeError as whole_err:
            if _LOG_FIRST_LINE.match(stripped):
                # A console log (trtllm-bench's starts "[TensorRT-LLM] ..."), not broken JSON.
                return "text", stripped
            rows = []
            for line_no, line in enumerate(stripped.splitlines(), start=1):
                if not line.strip():
                    continue
                try:
                    rows.append(json.loads(line))
                except json.JSONDecodeError as exc:
                    if line_no == 1:
                        raise ResultFileError(
                            name, f"line {whole_err.lineno}", f"not valid JSON ({whole_err.msg})"
                        ) from whole_err
                    raise ResultFileError(
                        name, f"line {line_no}", f"not valid JSON ({exc.msg})"
                    ) from exc
            return "jsonl", rows
    if _YAML_REPORT.search(stripped) and _YAML_REPORT_SECTION.search(stripped):
        return "yaml", _load_yaml(name, stripped)
    if _YAML_GUIDELLM.search(stripped) and re.match(r"^[a-z_]+:(\s|$)", stripped):
        return "yaml", _load_yaml(name, stripped)
    first = stripped.splitlines()[0]
    if "," in first and ":" not in first.split(",")[0]:
        return "csv", list(csv.reader(io.StringIO(stripped)))
    return "text", stripped


def _load_yaml(name: str, text: str) -> Any:
    """A YAML report as plain data; a document that is not one mapping, is malformed or grows
    beyond the node bounds (alias expansion) is refused naming the line."""
    try:
        data = yaml.safe_load(text)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        where = f"line {mark.line + 1}" if mark is not None else ""
        raise ResultFileError(name, where, f"not valid YAML ({exc.problem})") from None
    except (yaml.YAMLError, RecursionError) as exc:
        raise ResultFileError(name, "", f"not valid YAML ({type(exc).__name__})") from None
    if not isinstance(data, dict):
        raise ResultFileError(name, "", "a YAML result file must be one mapping of keys")
    if not _yaml_bounded(data):
        raise ResultFileError(
            name,
            "",
            f"the YAML expands to more than {MAX_YAML_NODES:,} values or nests deeper than"
            f" {MAX_YAML_DEPTH} levels; no report is this large — check that this is the tool's"
            " result file",
        )
    return data


def _yaml_bounded(data: Any) -> bool:
    """Whether the loaded tree stays within the node and depth bounds (aliases counted each
    time they are reached, as any reader of the tree would reach them)."""
    budget = MAX_YAML_NODES
    stack: list[tuple[Any, int]] = [(data, 0)]
    while stack:
        node, depth = stack.pop()
        budget -= 1
        if budget < 0 or depth > MAX_YAML_DEPTH:
            return False
        if isinstance(node, dict):
            stack.extend((v, depth + 1) for v in node.values())
        elif isinstance(node, list):
            stack.extend((v, depth + 1) for v in node)
    return True


Sniffer = Callable[[Source], bool]
Parser = Callable[[Source], list[BenchmarkResult]]


@dataclass(frozen=True)
class Importer:
    name: str
    tool: str
    description: str
    sniff: Sniffer
    parse: Parser
    #: A context-only file (e.g. an MLPerf system JSON) is attached to the others, not imported.
    context_only: bool = False


def first_present(obj: dict, *keys: str) -> Any:
    for key in keys:
        if isinstance(obj, dict) and obj.get(key) not in (None, ""):
            return obj[key]
    return None


def find_key(obj: Any, *keys: str, depth: int = 0) -> Any:
    """Depth-first search of nested dicts/lists for the first non-empty value under ``keys``."""
    if depth > 6:
        return None
    if isinstance(obj, dict):
        for key in keys:
            if obj.get(key) not in (None, "", []):
                return obj[key]
        for value in obj.values():
            if isinstance(value, dict | list):
                found = find_key(value, *keys, depth=depth + 1)
                if found not in (None, "", []):
                    return found
    elif isinstance(obj, list):
        for value in obj[:20]:
            found = find_key(value, *keys, depth=depth + 1)
            if found not in (None, "", []):
                return found
    return None
