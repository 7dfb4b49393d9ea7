"""Importers for other tools' benchmark result files -> validated BenchmarkResult rows.

Each importer is a pair of pure functions: ``sniff`` (is this file mine?) and ``parse`` (file ->
results). The format is detected from the content, never the file name. A file that fails any
check raises :class:`~benchmarks.errors.ResultFileError` naming the file, the key and
the reason, and contributes nothing: callers store a file's rows all together or not at all.
"""

from __future__ import annotations

import csv
import dataclasses
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from benchmarks.errors import ResultFileError
from benchmarks.importers import (
    guidellm,
    harness,
    inferencex,
    ledger,
    llamabench,
    llmd,
    llmperf,
    mlperf,
    nvidia,
    serving,
    trtllm,
)
from benchmarks.importers.base import Importer, ImportOverrides, Source, parse_structure
from tokendesk.records import BenchmarkResult
from tokendesk.textsafety import MAX_JSON_DEPTH, InputFileError, decode_text, json_depth_ok

#: Upload limit: result summaries are kilobytes; 20 MB leaves room for vLLM --save-detailed files.
MAX_IMPORT_BYTES = 20 * 1024 * 1024

#: Every importer, in detection order (more specific formats first).
REGISTRY: list[Importer] = [
    *harness.IMPORTERS,
    *llmd.IMPORTERS,
    *guidellm.IMPORTERS,
    *nvidia.IMPORTERS,
    *trtllm.IMPORTERS,
    *llmperf.IMPORTERS,
    *mlperf.IMPORTERS,
    *inferencex.IMPORTERS,
    *serving.IMPORTERS,
    *llamabench.IMPORTERS,
]


def importer_names() -> list[str]:
    return [imp.name for imp in REGISTRY]


def _decode(name: str, data: bytes) -> tuple[str, str]:
    """The file's text and, when the encoding was a guess, a note saying so."""
    if len(data) > MAX_IMPORT_BYTES:
        raise ResultFileError(
            name,
            "",
            f"the file is {len(data) / 1e6:.1f} MB; the limit is "
            f"{MAX_IMPORT_BYTES / 1e6:.0f} MB (import the summary, not per-request detail)",
        )
    try:
        decoded = decode_text(data, name)
    except InputFileError as exc:
        raise ResultFileError(name, "", exc.message) from None
    return decoded.text, decoded.note


def _source(name: str, data: bytes, overrides: ImportOverrides) -> Source:
    text, note = _decode(name, data)
    if text.lstrip()[:1] in ("[", "{") and not json_depth_ok(text):
        raise ResultFileError(
            name,
            "",
            f"JSON nested deeper than {MAX_JSON_DEPTH} levels; no result format nests like"
            " this — check that this is the tool's result file",
        )
    try:
        kind, parsed = parse_structure(name, text)
    except ResultFileError:
        raise
    except (ValueError, RecursionError, OverflowError, csv.Error) as exc:
        raise ResultFileError(
            name, "", f"cannot be read as JSON or CSV ({type(exc).__name__}: {exc})"
        ) from None
    return Source(
        name=name, text=text, kind=kind, data=parsed, overrides=overrides, encoding_note=note
    )


def detect(src: Source) -> Importer:
    for imp in REGISTRY:
        try:
            if imp.sniff(src):
                return imp
        except Exception:  # a sniffer that trips on a hostile file says "not mine"
            continue
    known = ", ".join(i.description for i in REGISTRY if not i.context_only)
    raise ResultFileError(src.name, "", f"unrecognised result format; supported: {known}")


#: A stand-in per flag, used only to find every flag a file needs before reporting any.
_STAND_INS: dict[str, dict[str, Any]] = {
    "--accelerator": {"accelerator_id": "nvidia-h100-sxm-80gb"},
    "--accelerators-per-replica": {"accelerators_per_replica": 1},
    "--model": {"model": "stand-in"},
    "--precision": {"precision": "stand-in"},
    "--runtime": {"runtime": "stand-in"},
}
_PASS_FLAG = re.compile(r"pass (--[a-z-]+)")


def _missing_flags(src: Source, imp: Importer, first: ResultFileError) -> list[str]:
    """Every flag the file needs, found by re-parsing with a stand-in for each one reported."""
    flags: list[str] = []
    error: ResultFileError | None = first
    while error is not None:
        new = [f for f in _PASS_FLAG.findall(error.reason) if f in _STAND_INS and f not in flags]
        if not new:
            break
        flags += new
        stand_ins: dict = {}
        for flag in flags:
            stand_ins.update(_STAND_INS[flag])
        trial = dataclasses.replace(
            src, overrides=dataclasses.replace(src.overrides, **stand_ins), notes=[]
        )
        try:
            imp.parse(trial)
            error = None
        except ResultFileError as exc:
            error = exc
        except (KeyError, TypeError, ValueError, AttributeError, IndexError):
            error = None
    return flags


def _ledger_note(src: Source, imp: Importer) -> str:
    """ "field X not understood" for the fields of ``src`` its format's ledger does not list."""
    unknown = ledger.not_understood(imp.name, src.kind, src.data, src.text)
    return ledger.note_for(f"{imp.name} ({src.name})" if imp.context_only else imp.name, unknown)


def _with_note(results: list[BenchmarkResult], note: str) -> list[BenchmarkResult]:
    if not note:
        return results
    return [
        r.model_copy(update={"notes": "; ".join(filter(None, [r.notes, note]))}) for r in results
    ]


def _parse(src: Source, imp: Importer) -> list[BenchmarkResult]:
    try:
        results = imp.parse(src)
    except ResultFileError as exc:
        flags = _missing_flags(src, imp, exc) if _PASS_FLAG.search(exc.reason) else []
        if len(flags) > 1:
            raise ResultFileError(
                src.name,
                ", ".join(f.lstrip("-") for f in flags),
                "the file does not say everything a result needs; pass "
                + " ".join(f"{f} …" for f in flags)
                + f" (first: {exc.reason})",
            ) from exc
        raise
    except Exception as exc:  # any parser fault is this file's plain rejection
        raise ResultFileError(
            src.name,
            str(getattr(exc, "key", "") or ""),
            f"could not be read ({type(exc).__name__}: {exc}); check the file is the tool's"
            " unmodified output",
        ) from None
    if not results:
        raise ResultFileError(src.name, "", "the file holds no results")
    if src.encoding_note:
        results = [
            r.model_copy(update={"notes": "; ".join(filter(None, [r.notes, src.encoding_note]))})
            for r in results
        ]
    return results


def import_sources(
    items: Iterable[tuple[str, bytes]], overrides: ImportOverrides | None = None
) -> list[tuple[str, str, list[BenchmarkResult]]]:
    """Parse named byte blobs; context-only files (MLPerf system JSON) are attached to the rest.

    Returns ``(name, importer name, results)`` per result file; raises on the first bad file.
    """
    overrides = overrides or ImportOverrides()
    sources = [_source(name, data, overrides) for name, data in items]
    detected = [(src, detect(src)) for src in sources]
    companions = {src.name: src.data for src, imp in detected if imp.context_only}
    # A context file's unknown fields are said on every record it informed.
    context_notes = [_ledger_note(src, imp) for src, imp in detected if imp.context_only]
    out = []
    for src, imp in detected:
        if imp.context_only:
            continue
        src.companions = companions
        results = _parse(src, imp)
        for note in [_ledger_note(src, imp), *context_notes]:
            results = _with_note(results, note)
        out.append((src.name, imp.name, results))
    if not out:
        names = ", ".join(src.name for src in sources)
        raise ResultFileError(
            names,
            "",
            "only context files were given (e.g. an MLPerf system JSON); "
            "add the result file they describe",
        )
    return out


def import_files(
    paths: Iterable[Path | str], overrides: ImportOverrides | None = None
) -> list[tuple[Path, list[BenchmarkResult]]]:
    """Parse result files (format auto-detected). All files are validated before anything is
    returned; the first failing file raises :class:`ResultFileError`."""
    items = []
    for p in paths:
        path = Path(p)
        if not path.is_file():
            raise ResultFileError(str(path), "", "no such file")
        size = path.stat().st_size
        if size > MAX_IMPORT_BYTES:
            raise ResultFileError(
                str(path),
                "",
                f"the file is {size / 1e6:.1f} MB; the limit is {MAX_IMPORT_BYTES / 1e6:.0f} MB",
            )
        items.append((str(path), path.read_bytes()))
    return [(Path(name), results) for name, _imp, results in import_sources(items, overrides)]


def import_bytes(
    name: str, data: bytes, overrides: ImportOverrides | None = None
) -> list[BenchmarkResult]:
    """Parse one uploaded file (the dashboard's upload path); size-limited to MAX_IMPORT_BYTES."""
    return import_sources([(name, data)], overrides)[0][2]


__all__ = [
    "MAX_IMPORT_BYTES",
    "REGISTRY",
    "ImportOverrides",
    "Importer",
    "ResultFileError",
    "detect",
    "import_bytes",
    "import_files",
    "import_sources",
    "importer_names",
]
