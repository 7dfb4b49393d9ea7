"""Read, parse and check a set of result files as one import: every file passes, or none is
written (``tokendesk bench import``).

Context files (MLPerf system JSON) travel with their summaries, so the files are parsed together;
each result then passes the gate of its accelerator's and model's physical bounds.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

from benchmarks.errors import ResultFileError
from benchmarks.importers import MAX_IMPORT_BYTES, ImportOverrides, import_sources
from benchmarks.plausibility import Plausibility, gate
from tokendesk.records import BenchmarkResult
from tokendesk.textsafety import InputFileError, read_limited


class CheckedFile(NamedTuple):
    """One imported file after the checks."""

    name: str
    #: The importer that read it (its format).
    format: str
    results: list[BenchmarkResult]
    #: One plausibility check per result.
    checks: list[Plausibility]


def read_and_check(
    files: Sequence[Path], overrides: ImportOverrides, accept_implausible: bool
) -> tuple[list[CheckedFile], list[ResultFileError]]:
    """Read, parse and plausibility-check every file: (checked files, failures). Each stage runs
    only when the one before it failed nothing."""
    failures: list[ResultFileError] = []
    blobs = []
    for path in files:
        try:
            blobs.append((str(path), read_limited(path, MAX_IMPORT_BYTES)))
        except InputFileError as exc:
            failures.append(ResultFileError(str(path), "", exc.message))
    parsed = []
    # Files are parsed together; a failure is then attributed by re-parsing each with the same
    # companions.
    if not failures:
        try:
            parsed = import_sources(blobs, overrides)
        except ResultFileError as exc:
            failures.append(exc)
    checked: list[CheckedFile] = []
    if not failures:
        checked, implausible = check_plausibility(parsed, accept_implausible)
        failures.extend(implausible)
    return checked, failures


def check_plausibility(
    parsed: Sequence[tuple[str, str, list[BenchmarkResult]]], accept: bool
) -> tuple[list[CheckedFile], list[ResultFileError]]:
    """Check every result; (results with their checks, one rejection per implausible result)."""
    checked, rejected = [], []
    for name, fmt, results in parsed:
        kept, checks, errors = gate(name, results, accept=accept)
        checked.append(CheckedFile(name, fmt, kept, checks))
        rejected.extend(errors)
    return checked, rejected
