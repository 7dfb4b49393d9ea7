"""Price sheets: CSV or YAML files for clouds without a price API (Lambda, RunPod, Vultr,
CoreWeave, TensorWave, Crusoe, OCI, ...) and for negotiated quotes.

Format (YAML; a CSV has one row per quote with the same column names and no ``defaults``)::

    format_version: 1
    defaults:                  # optional; applied to every quote that does not set the field
      provider: lambda
      source: Lambda public pricing page
      source_url: https://lambda.ai/pricing
      observed_at: 2026-09-01
    quotes:
      - instance_type: gpu_8x_h100_sxm5
        region: us-east-1      # the provider's region name, or "any" for region-uniform prices
        accelerator_id: nvidia-h100-sxm-80gb
        accelerator_count: 8
        pricing_model: on_demand          # any tokendesk PricingModel value
        usd_per_hour: 23.92               # or usd_per_accelerator_hour (then price_basis per_accelerator)
        vcpus: 208                        # optional
        memory_gib: 1800                  # optional
        # negotiated quotes (pricing_model: negotiated) also need:
        quote_id: Q-2026-001
        vendor_contact: sales@example.com
        expires_on: 2026-12-31

Required per quote: provider, region, instance_type, accelerator_id, accelerator_count,
pricing_model, one of usd_per_hour / usd_per_accelerator_hour, source, observed_at.
Every problem is reported as ``file:row: field: message`` and the whole sheet is rejected, so a
half-valid sheet never becomes a half-current price list. Files whose name starts with
``example`` are documentation and are never loaded by refresh.
"""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, datetime, time
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from pricing.provider import ProviderResult, RegionProgress, SkippedItem, no_progress
from tokendesk.catalog import check_in_catalog
from tokendesk.paths import data_dir, user_data_dir
from tokendesk.records import PriceBasis, PriceQuote, PricingModel
from tokendesk.safeyaml import YamlInputError, YamlLimits, load_yaml_text
from tokendesk.textsafety import (
    MAX_FILE_BYTES,
    InputFileError,
    clean_text,
    decode_text,
    read_limited,
)

PROVIDER = "sheets"
SHEETS_DIR_ENV = "TOKENDESK_PRICE_SHEETS"
SUFFIXES = (".yaml", ".yml", ".csv")
#: A YAML sheet: as large as any input file, up to two million values, few aliases.
SHEET_LIMITS = YamlLimits(max_bytes=MAX_FILE_BYTES, max_nodes=2_000_000)
FIELDS = (
    "provider",
    "region",
    "zone",
    "instance_type",
    "accelerator_id",
    "accelerator_count",
    "vcpus",
    "memory_gib",
    "pricing_model",
    "usd_per_hour",
    "usd_per_accelerator_hour",
    "price_basis",
    "source",
    "source_url",
    "observed_at",
    "confidence",
    "notes",
    "quote_id",
    "vendor_contact",
    "expires_on",
)


@dataclass(frozen=True)
class SheetIssue:
    file: str
    row: int
    field: str
    message: str

    def __str__(self) -> str:
        return clean_text(f"{self.file}:{self.row}: {self.field}: {self.message}")


class SheetValidationError(ValueError):
    def __init__(self, issues: Sequence[SheetIssue]) -> None:
        self.issues = list(issues)
        lines = "\n".join(f"  {issue}" for issue in self.issues[:50])
        more = f"\n  ... and {len(self.issues) - 50} more" if len(self.issues) > 50 else ""
        super().__init__(f"{len(self.issues)} problem(s) in price sheet(s):\n{lines}{more}")


def is_expired(quote: PriceQuote, today: date) -> bool:
    """A quote with an ``expires_on`` date before ``today`` has lapsed (valid through that day)."""
    return quote.expires_on is not None and quote.expires_on < today


def _read_rows(path: Path) -> tuple[list[tuple[int, dict[str, Any]]], dict[str, Any]]:
    """(row number, raw mapping) pairs and sheet defaults. Row numbers are the file's line for
    CSV (header = 1) and the 1-based position in ``quotes`` for YAML."""
    try:
        text = decode_text(read_limited(path), clean_text(path.name)).text
    except InputFileError as exc:
        raise SheetValidationError([SheetIssue(str(path), 0, "(file)", exc.message)]) from None
    if path.suffix.lower() == ".csv":
        try:
            return _read_csv_rows(path, text), {}
        except csv.Error as exc:
            raise SheetValidationError(
                [SheetIssue(str(path), 0, "(csv)", f"not a readable CSV ({exc})")]
            ) from None
    try:
        doc = load_yaml_text(text, path.name, SHEET_LIMITS)
    except YamlInputError as exc:
        raise SheetValidationError([SheetIssue(str(path), 0, "(yaml)", exc.message)]) from None
    return _yaml_rows(path, doc)


def _read_csv_rows(path: Path, text: str) -> list[tuple[int, dict[str, Any]]]:
    reader = csv.DictReader(io.StringIO(text, newline=""))
    unknown = [c for c in (reader.fieldnames or []) if c not in FIELDS]
    if unknown:
        raise SheetValidationError(
            [
                SheetIssue(
                    str(path),
                    1,
                    clean_text(c),
                    f"unknown column; expected some of {', '.join(FIELDS)}",
                )
                for c in unknown
            ]
        )
    return [
        (n, {k: v for k, v in row.items() if v not in ("", None)})
        for n, row in enumerate(reader, start=2)
    ]


def _yaml_rows(path: Path, doc: Any) -> tuple[list[tuple[int, dict[str, Any]]], dict[str, Any]]:
    if not isinstance(doc, dict) or not isinstance(doc.get("quotes"), list):
        raise SheetValidationError(
            [SheetIssue(str(path), 0, "quotes", "a YAML sheet needs a top-level 'quotes' list")]
        )
    if doc.get("format_version", 1) != 1:
        raise SheetValidationError(
            [
                SheetIssue(
                    str(path),
                    0,
                    "format_version",
                    f"unsupported {doc.get('format_version')!r}; expected 1",
                )
            ]
        )
    defaults = doc.get("defaults") or {}
    if not isinstance(defaults, dict):
        raise SheetValidationError(
            [SheetIssue(str(path), 0, "defaults", "'defaults' must be a mapping of field: value")]
        )
    rows = []
    for n, row in enumerate(doc["quotes"], start=1):
        rows.append((n, row if isinstance(row, dict) else {"(row)": row}))
    return rows, defaults


def _coerce(
    raw: dict[str, Any], path: Path, row_no: int
) -> tuple[dict[str, Any], list[SheetIssue]]:
    issues: list[SheetIssue] = []
    data = dict(raw)
    for key in list(data):
        if key not in FIELDS:
            issues.append(SheetIssue(str(path), row_no, key, "unknown field"))
            data.pop(key)
    for field in (
        "provider",
        "region",
        "instance_type",
        "accelerator_id",
        "accelerator_count",
        "pricing_model",
        "source",
        "observed_at",
    ):
        if data.get(field) in (None, ""):
            issues.append(SheetIssue(str(path), row_no, field, "required"))
    per_acc = data.pop("usd_per_accelerator_hour", None)
    if per_acc is not None:
        if data.get("usd_per_hour") is not None:
            issues.append(
                SheetIssue(
                    str(path),
                    row_no,
                    "usd_per_hour",
                    "give usd_per_hour or usd_per_accelerator_hour, not both",
                )
            )
        data["usd_per_hour"] = per_acc
        data["price_basis"] = PriceBasis.PER_ACCELERATOR.value
        if str(data.get("accelerator_count")) not in ("1", "None"):
            issues.append(
                SheetIssue(
                    str(path),
                    row_no,
                    "accelerator_count",
                    "a per-accelerator-hour price has accelerator_count 1",
                )
            )
        data["accelerator_count"] = 1
    elif data.get("usd_per_hour") in (None, ""):
        issues.append(
            SheetIssue(str(path), row_no, "usd_per_hour", "required (or usd_per_accelerator_hour)")
        )
    observed = data.get("observed_at")
    if isinstance(observed, date) and not isinstance(observed, datetime):
        data["observed_at"] = datetime.combine(observed, time(0, 0))
    model = data.get("pricing_model")
    if model is not None and model not in {m.value for m in PricingModel}:
        issues.append(
            SheetIssue(
                str(path),
                row_no,
                "pricing_model",
                f"{model!r} is not one of {', '.join(m.value for m in PricingModel)}",
            )
        )
    if model == PricingModel.NEGOTIATED.value:
        for field in ("quote_id", "vendor_contact", "expires_on"):
            if data.get(field) in (None, ""):
                issues.append(
                    SheetIssue(str(path), row_no, field, "required for a negotiated quote")
                )
    return data, issues


def load_sheet(path: Path) -> list[PriceQuote]:
    """Validate and load one sheet; raises SheetValidationError naming file, row and field."""
    path = Path(path)
    rows, defaults = _read_rows(path)
    quotes: list[PriceQuote] = []
    issues: list[SheetIssue] = []
    for row_no, raw in rows:
        merged = {**defaults, **raw}
        listed = [k for k, v in merged.items() if isinstance(v, list | dict | set)]
        if listed:
            issues.append(
                SheetIssue(str(path), row_no, str(listed[0]), "must be a single value, not a list")
            )
            continue
        data, row_issues = _coerce(merged, path, row_no)
        if row_issues:
            issues.extend(row_issues)
            continue
        try:
            quote = PriceQuote.model_validate(data)
        except ValidationError as exc:
            for err in exc.errors():
                field = ".".join(str(p) for p in err["loc"]) or "(row)"
                issues.append(SheetIssue(str(path), row_no, field, err["msg"]))
            continue
        try:
            quotes.append(check_in_catalog(quote))
        except ValueError as exc:
            issues.append(SheetIssue(str(path), row_no, "accelerator_id", str(exc)))
    if issues:
        raise SheetValidationError(issues)
    return quotes


def sheet_dirs() -> list[Path]:
    """Where refresh looks for sheets: $TOKENDESK_PRICE_SHEETS (os.pathsep-separated), the
    bundled data/price_sheets and the per-user price_sheets folder."""

    override = os.environ.get(SHEETS_DIR_ENV)
    if override:
        return [Path(p) for p in override.split(os.pathsep) if p]
    return [data_dir() / "price_sheets", user_data_dir() / "price_sheets"]


def sheet_files(dirs: Iterable[Path]) -> list[Path]:
    files: list[Path] = []
    for folder in dirs:
        if folder.is_dir():
            files.extend(
                p
                for p in sorted(folder.iterdir())
                if p.suffix.lower() in SUFFIXES and not p.name.lower().startswith("example")
            )
    return files


def fetch_sheets(
    regions: Sequence[str] | None = None,
    *,
    dirs: Sequence[Path] | None = None,
    files: Sequence[Path] | None = None,
    progress: RegionProgress = no_progress,
) -> ProviderResult:
    """Load every sheet; a sheet with errors is left out whole and its issues reported."""
    paths = (
        list(files)
        if files is not None
        else sheet_files(dirs if dirs is not None else sheet_dirs())
    )
    result = ProviderResult()
    for index, path in enumerate(paths, start=1):
        try:
            quotes = load_sheet(path)
        except (SheetValidationError, OSError) as exc:
            result.region_errors[clean_text(path.name)] = str(exc)
            progress(path.name, index, len(paths), "invalid")
            continue
        if regions:
            kept = [q for q in quotes if q.region in regions or q.region == "any"]
            if len(kept) < len(quotes):
                result.skipped.append(
                    SkippedItem(
                        path.name,
                        f"{len(quotes) - len(kept)} quote(s) outside the requested regions",
                    )
                )
            quotes = kept
        result.quotes.extend(quotes)
        progress(path.name, index, len(paths), f"{len(quotes)} prices")
    return result
