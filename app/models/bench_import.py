"""The Benchmarks page's upload, without Streamlit: the fields ``tokendesk bench import`` takes,
a preview of every record an upload would write (with its plausibility verdict), and every
rejection as a plain sentence that names the file and the field to fill in.

The page previews first and writes only on a confirm click, and only what it previewed: the
preview carries a fingerprint of the file and the fields, so a change after the preview asks
for a new one instead of writing something nobody has seen.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, date, datetime

import pandas as pd

from app.models.tables import Table, readable
from benchmarks.errors import ResultFileError
from benchmarks.importers import ImportOverrides, import_sources
from benchmarks.plausibility import Plausibility, gate
from tokendesk import formatting
from tokendesk.records import Accelerator, BenchmarkResult

#: The page's field for each command-line flag an importer's message may ask for.
FIELD_FOR_FLAG = {
    "--accelerator": "Accelerator",
    "--accelerators-per-replica": "Accelerators per replica",
    "--model": "Model",
    "--precision": "Precision",
    "--runtime": "Runtime",
    "--runtime-version": "Runtime version",
    "--measured-at": "Measured on",
    "--instance-type": "Instance type",
}
#: The page's field for each key an importer names when a flag's value is missing or wrong.
FIELD_FOR_KEY = {flag.lstrip("-"): label for flag, label in FIELD_FOR_FLAG.items()} | {
    "accelerator_id": "Accelerator",
    "accelerators_per_replica": "Accelerators per replica",
}

#: Importer advice written for the command line, reworded for the page (most specific first).
_REWORDINGS: tuple[tuple[re.Pattern[str], str], ...] = (
    (
        re.compile(r"pass --accelerator ID \(a catalog id from data/accelerators\.csv\)"),
        "choose it in the Accelerator field",
    ),
    (
        re.compile(r"pass --accelerator ID and --accelerators-per-replica N"),
        "choose it in the Accelerator field and fill in Accelerators per replica",
    ),
    (
        re.compile(r",? ?or keep it flagged with --accept-implausible"),
        " (to keep it anyway, flagged, import it with `tokendesk bench import "
        "--accept-implausible`)",
    ),
    (re.compile(r"\(pass --accelerators-per-replica\)"), "(fill in Accelerators per replica)"),
    (re.compile(r"\(pass --measured-at\)"), "(fill in Measured on)"),
    (re.compile(r"or pass --skip-unknown-hardware"), "or import it with the command line"),
)
_FLAG = re.compile(r"(pass )?(--[a-z-]+)(?: (?:ID|N|…))?")


@dataclass(frozen=True)
class UploadFields:
    """What the person filled in; empty means "as the file says" (the CLI's flags left out)."""

    accelerator_id: str | None = None
    accelerators_per_replica: int | None = None
    model: str = ""
    precision: str = ""
    runtime: str = ""
    runtime_version: str = ""
    instance_type: str = ""
    measured_on: date | None = None

    def overrides(self) -> ImportOverrides:
        """The same overrides ``tokendesk bench import`` builds from its flags."""
        measured = self.measured_on
        return ImportOverrides(
            accelerator_id=self.accelerator_id or None,
            accelerators_per_replica=int(self.accelerators_per_replica or 0) or None,
            instance_type=self.instance_type.strip() or None,
            runtime=self.runtime.strip() or None,
            runtime_version=self.runtime_version.strip() or None,
            model=self.model.strip() or None,
            precision=self.precision.strip().lower() or None,
            measured_at=(
                datetime(measured.year, measured.month, measured.day, tzinfo=UTC)
                if measured
                else None
            ),
        )


def fingerprint(name: str, payload: bytes, fields: UploadFields) -> str:
    """Identifies one file with one set of fields: a preview is confirmed only while it matches."""
    digest = hashlib.sha256(payload)
    digest.update(repr((name, fields)).encode())
    return digest.hexdigest()


@dataclass(frozen=True)
class Preview:
    """What an upload would write: the records, a table of them, and why it cannot (if it can't)."""

    file: str
    fingerprint: str
    tool: str = ""
    results: tuple[BenchmarkResult, ...] = ()
    table: Table | None = None
    errors: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()

    @property
    def writable(self) -> bool:
        return bool(self.results) and not self.errors


def _field_words(text: str) -> str:
    """Command-line advice ("pass --model") as page advice ("fill in the Model field")."""
    for pattern, words in _REWORDINGS:
        text = pattern.sub(words, text)

    def field_for(match: re.Match[str]) -> str:
        label = FIELD_FOR_FLAG.get(match.group(2))
        if label is None:
            return match.group(0)
        return f"fill in the {label} field" if match.group(1) else f"the {label} field"

    text = _FLAG.sub(field_for, text)
    # "fill in the Model field the Precision field" (several flags at once) reads as a list.
    return re.sub(r"field,? (?=the [A-Z])", "field, ", text)


def _listed(words: list[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def explain(exc: ResultFileError) -> str:
    """One plain sentence: the file, the field (or the file's key) and what to do."""
    keys = [k.strip() for k in exc.key.split(",") if k.strip()]
    fields = list(dict.fromkeys(FIELD_FOR_KEY[k] for k in keys if k in FIELD_FOR_KEY))
    if keys and len(fields) == len(keys) and "does not say" in exc.reason:
        # The file leaves out what a result needs: say which fields to fill in, nothing more.
        plural = "s" if len(fields) > 1 else ""
        return (
            f"{exc.file} was not imported: the file does not say everything a result needs. "
            f"Fill in the {_listed(fields)} field{plural} above and preview again; "
            "nothing was written."
        )
    if keys and len(fields) == len(keys):
        where = f"the {_listed(fields)} field{'s' if len(fields) > 1 else ''}"
    elif exc.key:
        where = f"its key “{exc.key}”"
    else:
        where = "the file as a whole"
    reason = _field_words(exc.reason).rstrip(".")
    return f"{exc.file} was not imported ({where}): {reason}. Nothing was written."


def _verdict(check: Plausibility) -> str:
    if check.verdict == "within":
        if check.roofline_pct is None:
            return "within physical bounds"
        return (
            f"within physical bounds ({check.roofline_pct:.0f}% of "
            f"{check.decode_tok_s_max:,.0f} tok/s)"
        )
    if check.verdict == "implausible":
        return "implausible: " + "; ".join(check.reasons)
    return "unchecked: " + ("; ".join(check.reasons) or "no bound applies")


def _load(result: BenchmarkResult) -> str:
    if result.request_rate_rps is not None:
        cap = f", ≤ {result.concurrency:g} concurrent" if result.concurrency else ""
        return f"{result.request_rate_rps:g} req/s{cap}"
    if result.concurrency is not None:
        return f"concurrency {result.concurrency:g}"
    return result.scenario or "unstated"


#: Preview columns: record field -> label (decision columns first: what, then how good).
PREVIEW_LABELS = {
    "accelerator": "Accelerator",
    "accelerators_per_replica": "Accelerators / replica",
    "model": "Model",
    "precision": "Precision",
    "runtime": "Runtime",
    "load": "Load",
    "output_tok_s": "Output tok/s (replica)",
    "ttft_ms_p50": "TTFT p50 (ms)",
    "ttft_ms_p95": "TTFT p95 (ms)",
    "ttft_ms_p99": "TTFT p99 (ms)",
    "plausibility": "Plausibility",
    "measured_on": "Measured on",
    "workload": "Workload",
    "instance_type": "Instance type",
}
PREVIEW_NUMBERS = {
    "accelerators_per_replica": "%d",
    "output_tok_s": "%,.1f",
    "ttft_ms_p50": "%,.1f",
    "ttft_ms_p95": "%,.1f",
    "ttft_ms_p99": "%,.1f",
}


def preview_table(
    results: tuple[BenchmarkResult, ...],
    checks: list[Plausibility],
    catalog: Mapping[str, Accelerator],
) -> Table:
    rows = []
    for result, check in zip(results, checks, strict=True):
        accelerator = catalog.get(result.accelerator_id)
        rows.append(
            {
                "accelerator": accelerator.name if accelerator else result.accelerator_id,
                "accelerators_per_replica": result.accelerators_per_replica,
                "model": result.model,
                "precision": result.precision,
                "runtime": result.runtime,
                "load": _load(result),
                "output_tok_s": result.output_tok_s,
                "ttft_ms_p50": result.ttft_ms_p50,
                "ttft_ms_p95": result.ttft_ms_p95,
                "ttft_ms_p99": result.ttft_ms_p99,
                "plausibility": _verdict(check),
                # An undated file says "date unknown", never the upload's date.
                "measured_on": formatting.day(result.measured_at),
                "workload": result.workload,
                "instance_type": result.instance_type,
            }
        )
    frame = pd.DataFrame(rows, columns=list(PREVIEW_LABELS))
    return readable(frame, PREVIEW_LABELS, PREVIEW_NUMBERS)


def build_preview(
    name: str, payload: bytes, fields: UploadFields, catalog: Mapping[str, Accelerator]
) -> Preview:
    """Read, validate and bound-check one uploaded file; write nothing."""
    mark = fingerprint(name, payload, fields)
    try:
        [(_, _format, results)] = import_sources([(name, payload)], fields.overrides())
    except ResultFileError as exc:
        return Preview(file=name, fingerprint=mark, errors=(explain(exc),))
    except (ValueError, UnicodeDecodeError) as exc:
        reason = _field_words(str(exc)).rstrip(".")
        return Preview(
            file=name,
            fingerprint=mark,
            errors=(f"{name} was not imported: {reason}. Nothing was written.",),
        )
    gated, checks, implausible = gate(name, results, dict(catalog))
    kept = tuple(gated)
    tool = kept[0].source_tool if kept else ""
    notes = tuple(sorted({note for r in kept for note in r.notes.split("; ") if note}))
    return Preview(
        file=name,
        fingerprint=mark,
        tool=tool,
        results=kept,
        table=preview_table(kept, checks, catalog),
        errors=tuple(explain(exc) for exc in implausible),
        notes=tuple(_field_words(note) for note in notes),
    )


@dataclass
class ImportOutcome:
    """What the confirm click wrote."""

    file: str
    snapshot_id: str
    points: int
    tool: str
    notes: tuple[str, ...] = field(default_factory=tuple)


def write(warehouse, preview: Preview) -> ImportOutcome:
    """Write exactly the previewed records as one snapshot (one transaction)."""
    if not preview.writable:
        raise ValueError(f"{preview.file} has nothing that can be written; preview it again")
    snapshot_id = warehouse.ingest_results(
        f"import:{preview.tool}",
        list(preview.results),
        origin="import",
        notes=f"uploaded {preview.file} in the dashboard",
    )
    return ImportOutcome(
        file=preview.file,
        snapshot_id=snapshot_id,
        points=len(preview.results),
        tool=preview.tool,
        notes=preview.notes,
    )
