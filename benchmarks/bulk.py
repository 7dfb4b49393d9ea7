"""Import a whole results tree (an MLPerf round, an InferenceX results folder, a directory of
tool outputs) in one pass, each file on its own: what imported, what was refused and why, and
what needs a flag before it can import.

A tree is not one import: one file's refusal says nothing about its neighbours, so each result
file is parsed and checked alone (with the companions the submission layout puts beside it,
which the MLPerf importer finds on disk) and the outcome is one row per file. Which files are
result files is decided by name, the way the tools name them, so the accuracy logs, compliance
runs and per-request dumps of an MLPerf round are not read at all.
"""

from __future__ import annotations

import fnmatch
import os
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from benchmarks.errors import ResultFileError
from benchmarks.importers import MAX_IMPORT_BYTES, ImportOverrides, import_sources
from benchmarks.plausibility import Plausibility, gate
from tokendesk.records import BenchmarkResult

#: File names the supported tools write (fnmatch patterns on the file name).
RESULT_FILE_NAMES = (
    "mlperf_log_summary.txt",  # MLPerf: one per run (performance/run_N/)
    "result_summary.json",  # MLPerf v6.1's endpoints harness: one per run (performance/)
    "summary_results.json",  # MLPerf: a round's table
    "agg_*.json",  # InferenceX per-run aggregates
    "profile_export_aiperf.json",
    "profile_export_aiperf.csv",
    "profile_export_genai_perf.json",
    "profile_export_genai_perf.csv",
    "benchmarks.json",  # GuideLLM
    "benchmarks.csv",
    "*_summary.json",  # LLMPerf
    "*bench*serv*.json",  # vLLM / SGLang serving benchmarks (as commonly saved)
    "*bench*serv*.jsonl",
    "llama-bench*.json",
    "llama-bench*.jsonl",
    "llama-bench*.csv",
    "benchmark_report,_*.yaml",  # llm-d-benchmark report v0.1
    "benchmark_report_v0.2*,_*.yaml",  # llm-d-benchmark report v0.2 / v0.2.1
    "benchmark_report*.json",
)
#: Folders whose files are never a result a record should carry. MLPerf v6.1's "audit" holds
#: the endpoints harness's output-caching test runs.
SKIPPED_FOLDERS = frozenset({"accuracy", "audit", "compliance", "ranging", ".git", "node_modules"})
#: MLPerf v6.0 and v6.1 keep their compliance runs beside the result, in TEST01 … TEST09 of the
#: scenario folder (…/Offline/TEST07/performance/run_1/): audits, not results.
_COMPLIANCE_TEST = re.compile(r"^TEST\d+$")
#: MLPerf keeps its performance runs in performance/run_N; only those are results.
_MLPERF_RUN = re.compile(r"^run_\d+$")
_FLAG = re.compile(r"--[a-z][a-z-]*")

IMPORTED, REFUSED, NEEDS_FLAG = "imported", "refused", "needs a flag"


@dataclass
class FileOutcome:
    path: Path
    status: str  # IMPORTED | REFUSED | NEEDS_FLAG
    importer: str = ""
    results: list[BenchmarkResult] = field(default_factory=list)
    checks: list[Plausibility] = field(default_factory=list)
    key: str = ""
    reason: str = ""
    flags: tuple[str, ...] = ()


#: Deepest folder a tree is walked to: an MLPerf submission nests about 10 folders
#: (closed/ORG/results/SYSTEM/MODEL/SCENARIO/performance/run_1); thousands of levels are no
#: result tree, and a recursive walk of them would exhaust the stack.
MAX_TREE_DEPTH = 40
#: Most entries (files and folders) one tree walk visits (an MLPerf round has ~100,000).
MAX_TREE_ENTRIES = 2_000_000


class ResultTreeError(ValueError):
    """A folder cannot be walked as a results tree; the message names the folder and why."""


def _walk(root: Path) -> list[Path]:
    """Every file under ``root`` (symbolic links to folders not followed: a link loop would never
    end), walked with a stack, not recursion, to ``MAX_TREE_DEPTH`` folders."""
    files: list[Path] = []
    stack: list[tuple[Path, int]] = [(root, 0)]
    seen = 0
    while stack:
        folder, depth = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError as exc:
            raise ResultTreeError(
                f"{_shown(folder)}: cannot be read ({exc.strerror or exc})"
            ) from None
        seen += len(entries)
        if seen > MAX_TREE_ENTRIES:
            raise ResultTreeError(
                f"{root}: more than {MAX_TREE_ENTRIES:,} files and folders; import its"
                " sub-folders one at a time"
            )
        for entry in entries:
            path = Path(entry.path)
            if entry.is_dir(follow_symlinks=False):
                if depth + 1 > MAX_TREE_DEPTH:
                    raise ResultTreeError(
                        f"{_shown(path)}: folders nest more than {MAX_TREE_DEPTH} deep"
                        " under the tree; no result tree does: import the folder that holds"
                        " the results"
                    )
                stack.append((path, depth + 1))
            elif entry.is_file():
                files.append(path)
    return sorted(files)


def _shown(path: Path) -> str:
    """A folder as an error shows it: its middle cut when it is long."""
    text = str(path)
    return text if len(text) <= 160 else f"{text[:60]} … {text[-80:]}"


def result_files(root: Path) -> Iterator[Path]:
    """The result files under ``root`` (or ``root`` itself), in a stable order."""
    if root.is_file():
        yield root
        return
    for path in _walk(root):
        folders = path.relative_to(root).parts[:-1]
        if not path.is_file() or SKIPPED_FOLDERS.intersection(folders):
            continue
        if any(_COMPLIANCE_TEST.match(folder) for folder in folders):
            continue
        if not any(fnmatch.fnmatch(path.name, pattern) for pattern in RESULT_FILE_NAMES):
            continue
        if path.name == "mlperf_log_summary.txt" and not (
            _MLPERF_RUN.match(path.parent.name) and path.parent.parent.name == "performance"
        ):
            continue
        yield path


def _outcome_of_error(path: Path, exc: ResultFileError) -> FileOutcome:
    # "pass --runtime … --accelerator …", "… or --precision": every flag the reason names is
    # one that settles (part of) what the file left open.
    flags = tuple(dict.fromkeys(_FLAG.findall(exc.reason)))
    return FileOutcome(
        path=path,
        status=NEEDS_FLAG if flags else REFUSED,
        key=exc.key,
        reason=exc.reason,
        flags=flags,
    )


def import_one(path: Path, overrides: ImportOverrides, *, accept: bool = False) -> FileOutcome:
    """Parse and check one result file: its outcome, never an exception."""
    try:
        if path.stat().st_size > MAX_IMPORT_BYTES:
            raise ResultFileError(
                str(path), "", f"the file is over the {MAX_IMPORT_BYTES // 1_000_000} MB limit"
            )
        [(_, importer, results)] = import_sources([(str(path), path.read_bytes())], overrides)
        kept, checks, rejected = gate(str(path), results, accept=accept)
    except ResultFileError as exc:
        return _outcome_of_error(path, exc)
    except OSError as exc:
        return FileOutcome(path, REFUSED, reason=f"cannot be read ({exc.strerror or exc})")
    if rejected:
        return _outcome_of_error(path, rejected[0])
    return FileOutcome(path, IMPORTED, importer=importer, results=kept, checks=checks)


def import_tree(
    root: Path, overrides: ImportOverrides | None = None, *, accept: bool = False
) -> list[FileOutcome]:
    overrides = overrides or ImportOverrides()
    return [import_one(path, overrides, accept=accept) for path in result_files(root)]


def summary(outcomes: list[FileOutcome]) -> dict[str, object]:
    """Counts by status, records imported, and how many files each flag would unblock."""
    by_status = Counter(o.status for o in outcomes)
    by_flag: Counter[str] = Counter(flag for o in outcomes for flag in o.flags)
    return {
        "files": len(outcomes),
        IMPORTED: by_status[IMPORTED],
        REFUSED: by_status[REFUSED],
        NEEDS_FLAG: by_status[NEEDS_FLAG],
        "records": sum(len(o.results) for o in outcomes),
        "flags": dict(sorted(by_flag.items())),
    }
