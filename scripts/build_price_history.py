"""Build ``data/price_history.csv``: AWS on-demand prices as the AWS Price List published them,
one snapshot per Price List version, from a pinned public tabulation of those versions.

    python scripts/build_price_history.py                # the lines kept in data/sources/
    python scripts/build_price_history.py --source DIR   # DIR laid out as the repository
    python scripts/build_price_history.py --download     # fetch the pinned file (network)

The AWS Price List keeps every published version of the EC2 offer file
(``offers/v1.0/aws/AmazonEC2/index.json`` lists them; a version id is its publication time,
``20250703204906`` = 2025-07-03 20:49:06 UTC). ``data/sources/aws_price_list_history.yaml``
pins a public document that read a series of those versions with one filter (Linux, shared
tenancy, on-demand market, us-east-1) and tabulated the rates: its repository, path, commit, and
the sha256 of the lines kept (the source-inventory row naming the current version and the
tables of rates, byte for byte, joined by newlines). A kept line that differs stops the build.
``data/sources/aws_price_list/`` holds those lines at the file's path in the repository, so the
build needs no network; the whole file at the pinned commit builds the same output.

What the script makes of the lines:

* A table headed ``| Price list version | Effective | <instance type> |`` (or ``| Version |
  ...``) gives that instance type's rate in each version listed.
* The table headed ``| Instance type | $/hr | ...`` is the current version's full set; the
  current version is the one the ``PL-CUR`` inventory row names.
* Each row is dated by its version's publication day (``observed_at``); the document's own
  month label is kept in ``source_date_text``. Every version older than the current one is a
  snapshot of its own (``historical <version>``) in ``data/price_history.csv``. The current
  version's rows are today's list prices: ``scripts/curate_seed.py`` takes them into the curated
  seed (``current_rows`` below), whose current snapshot is the provider's whole price list.
* An instance type is described (accelerator part and count, vCPUs, memory) by the cloud
  catalog rows ``data/market_prices.csv`` already holds for it; a type the catalog does not
  describe is left out and named on the console.
* A version listed twice for one instance type must carry one rate: two different rates stop
  the build.

The output is a function of the pinned lines and ``data/market_prices.csv``: a rerun writes the
same bytes.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import io
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for folder in (ROOT, Path(__file__).resolve().parent):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))

import price_series  # noqa: E402  (the modules beside this script)
from build_market_prices import BLOB_URL, COLUMNS, CatalogError, download_pinned  # noqa: E402

from tokendesk.safeyaml import YamlLimits, load_yaml_file  # noqa: E402

DATA = ROOT / "data"
MANIFEST = DATA / "sources" / "aws_price_list_history.yaml"
CATALOG_CSV = DATA / "market_prices.csv"
SOURCE_COPY = DATA / "sources" / "aws_price_list"
SERIES_MANIFEST = DATA / "sources" / "cloud_price_series.yaml"
SERIES_COPY = DATA / "sources" / "price_series"
OUT_CSV = DATA / "price_history.csv"
MANIFEST_LIMITS = YamlLimits(max_bytes=64 * 1024)
#: The pinned document is about 30 KB; a download past this is not the pinned file.
MAX_DOWNLOAD_BYTES = 4 * 1024 * 1024


_CURRENT_ROW = re.compile(r"^\| \*\*PL-CUR\*\* \|.*`Version (?P<version>\d{14})`")
_VERSION_HEADER = re.compile(
    r"^\| (?:Price list version|Version) \| Effective \| (?P<instance>[a-z0-9.-]+) \|$"
)
_VERSION_ROW = re.compile(
    r"^\| `(?P<version>\d{14})` \| (?P<label>\d{4}-\d{2}) \| \*\*\$(?P<price>\d+(?:\.\d+)?)\*\* \|$"
)
_CURRENT_HEADER = re.compile(r"^\| Instance type \| \$/hr \|")
_CURRENT_SET_ROW = re.compile(r"^\| (?P<instance>[a-z0-9.-]+) \| (?P<price>\d+(?:\.\d+)?) \|")
_SEPARATOR = re.compile(r"^\|(?: --- \|)+$")


class HistoryError(ValueError):
    """The pinned file or its lines do not match the manifest: the message names file and fix."""


@dataclass(frozen=True)
class Pin:
    repository: str
    path: str
    commit: str
    lines_sha256: str
    lines: int
    region: str
    confidence: str
    describes: str

    @property
    def url(self) -> str:
        return BLOB_URL.format(repository=self.repository, commit=self.commit, path=self.path)

    @property
    def source(self) -> str:
        return (
            f"AWS Price List (AmazonEC2 {self.region} offer file) as tabulated in"
            f" {self.repository} {self.path} @ {self.commit[:12]}"
        )


@dataclass(frozen=True)
class Rate:
    instance_type: str
    version: str
    label: str  # the document's month label; empty for the current set
    usd_per_hour: Decimal


def load_pin(path: Path = MANIFEST) -> Pin:
    document = load_yaml_file(path, MANIFEST_LIMITS)
    if not isinstance(document, dict):
        raise HistoryError(f"{path}: expected a mapping of the pinned file's fields")
    try:
        return Pin(
            repository=str(document["repository"]),
            path=str(document["path"]),
            commit=str(document["commit"]),
            lines_sha256=str(document["lines_sha256"]),
            lines=int(document["lines"]),
            region=str(document["region"]),
            confidence=str(document["confidence"]),
            describes=str(document["describes"]),
        )
    except KeyError as exc:
        raise HistoryError(f"{path}: field {exc.args[0]!r} is missing") from None


def read_text(pin: Pin, source: Path | None) -> tuple[str, str]:
    """(text of the pinned file, where it was read) from ``source`` or the pinned commit."""
    if source is not None:
        local = source / pin.path
        if not local.is_file():
            raise HistoryError(
                f"{local}: not found; --source must be laid out as the repository"
                f" ({pin.path}), or use --download"
            )
        return local.read_text(encoding="utf-8"), str(local)
    return download_pinned(pin.repository, pin.commit, pin.path, MAX_DOWNLOAD_BYTES)


def kept_lines(text: str) -> list[str]:
    """The inventory row of the current version and every rate table (header, separator and
    rows), in file order."""
    kept: list[str] = []
    in_table = False
    for line in text.splitlines():
        if _CURRENT_ROW.match(line):
            kept.append(line)
            in_table = False
        elif _VERSION_HEADER.match(line) or _CURRENT_HEADER.match(line):
            kept.append(line)
            in_table = True
        elif in_table and line.startswith("|"):
            kept.append(line)
        else:
            in_table = False
    return kept


def read_rates(pin: Pin, text: str, where: str) -> tuple[str, list[Rate]]:
    """(current version, every rate the kept lines state), checked against the pin."""
    lines = kept_lines(text)
    digest = hashlib.sha256("\n".join(lines).encode("utf-8")).hexdigest()
    if len(lines) != pin.lines or digest != pin.lines_sha256:
        raise HistoryError(
            f"{where}: the kept lines ({len(lines)}, sha256 {digest}) are not the pinned ones"
            f" ({pin.lines}, {pin.lines_sha256}); read the file at commit {pin.commit} or update"
            f" the pin in {MANIFEST.name} after checking the new lines"
        )
    current = ""
    rates: list[Rate] = []
    instance = None  # the instance type of the version table being read; None: the current set
    for line in lines:
        if found := _CURRENT_ROW.match(line):
            current = found["version"]
        elif found := _VERSION_HEADER.match(line):
            instance = found["instance"]
        elif _CURRENT_HEADER.match(line):
            instance = None
        elif _SEPARATOR.match(line):
            continue
        elif instance is not None:
            row = _VERSION_ROW.match(line)
            if row is None:
                raise HistoryError(f"{where}: not a version row of {instance}'s table: {line!r}")
            price = Decimal(row["price"])
            rates.append(Rate(instance, row["version"], row["label"], price))
        else:
            row = _CURRENT_SET_ROW.match(line)
            if row is None or not current:
                raise HistoryError(f"{where}: not a row of the current version's set: {line!r}")
            rates.append(Rate(row["instance"], current, "", Decimal(row["price"])))
    if not current:
        raise HistoryError(f"{where}: no PL-CUR row names the current Price List version")
    return current, rates


def published(version: str) -> datetime:
    """A Price List version id is its publication time (UTC)."""
    return datetime.strptime(version, "%Y%m%d%H%M%S").replace(tzinfo=UTC)


def catalog_descriptions(
    path: Path = CATALOG_CSV, provider: str = "aws"
) -> dict[str, dict[str, str]]:
    """instance type -> its description in the cloud catalog (part, count, vCPUs, memory)."""
    described: dict[str, dict[str, str]] = {}
    with path.open(newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            if row["provider"] != provider:
                continue
            fields = {
                k: row[k] for k in ("accelerator_id", "accelerator_count", "vcpus", "memory_gib")
            }
            described.setdefault(row["instance_type"], fields)
    return described


def _price_text(value: Decimal) -> str:
    # Every digit the source prints (a YAML float is first rounded to six decimals: its binary
    # noise, e.g. 88.4899999025753 for 88.49, is not a figure anyone quoted).
    return format(value.normalize(), "f")


def build_rows(
    pin: Pin, current: str, rates: Sequence[Rate], described: Mapping[str, Mapping[str, str]]
) -> tuple[list[dict[str, str]], list[str]]:
    """(rows in the seed price format, instance types left out because no catalog row
    describes them)."""
    by_key: dict[tuple[str, str], Rate] = {}
    for rate in rates:
        key = (rate.instance_type, rate.version)
        earlier = by_key.get(key)
        if earlier is not None and earlier.usd_per_hour != rate.usd_per_hour:
            raise HistoryError(
                f"{pin.path}: version {rate.version} gives {rate.instance_type} two rates"
                f" ({earlier.usd_per_hour} and {rate.usd_per_hour})"
            )
        if earlier is None:
            by_key[key] = rate
    left_out = sorted(
        {r.instance_type for r in by_key.values() if r.instance_type not in described}
    )
    rows: list[dict[str, str]] = []
    for (instance_type, version), rate in sorted(
        by_key.items(), key=lambda kv: (kv[0][1], kv[0][0])
    ):
        if instance_type not in described:
            continue
        when = published(version)
        label = f"; the source labels it {rate.label}" if rate.label else ""
        rows.append(
            {
                "seed_snapshot": "current" if version == current else f"historical {version}",
                "provider": "aws",
                "region": pin.region,
                "instance_type": instance_type,
                **described[instance_type],
                "pricing_model": "on_demand",
                "usd_per_hour": _price_text(rate.usd_per_hour),
                "price_basis": "instance",
                "source": pin.source,
                "source_url": pin.url,
                "observed_at": when.date().isoformat(),
                "source_date_text": (
                    f"AWS Price List version {version}, published"
                    f" {when:%Y-%m-%d %H:%M:%S} UTC{label}"
                ),
                "confidence": pin.confidence,
                "notes": pin.describes,
            }
        )
    return rows, left_out


def render(rows: Sequence[Mapping[str, str]]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()


def all_rows(
    source: Path | None = SOURCE_COPY, manifest: Path = MANIFEST, catalog: Path = CATALOG_CSV
) -> tuple[list[dict[str, str]], list[str]]:
    """(every version's rows, instance types left out) from the pinned lines in ``source``
    (None: download them)."""
    pin = load_pin(manifest)
    text, read_from = read_text(pin, source)
    current, rates = read_rates(pin, text, read_from)
    return build_rows(pin, current, rates, catalog_descriptions(catalog))


def series_rows(
    source: Path | None = SERIES_COPY,
    manifest: Path = SERIES_MANIFEST,
    catalog: Path = CATALOG_CSV,
) -> list[dict[str, str]]:
    """Every pinned GCP and Azure version's rows, one historical snapshot per version, from the
    kept copies in ``source`` (None: download the pinned files)."""
    rows: list[dict[str, str]] = []
    for series in price_series.load_series(manifest):
        described = catalog_descriptions(catalog, series.provider)
        for version in series.versions:
            if series.format == "cyclenerd-pricing-yml":
                when, prices = price_series.gcp_version(series, version, source, described)
                date_text = f"generated {when:%Y-%m-%d %H:%M:%S} UTC (the file's about.timestamp)"
            elif series.format == "azure-retail-items":
                when, prices = price_series.azure_version(
                    series, version, source, sorted(described)
                )
                date_text = (
                    f"read from the Retail Prices API {when:%Y-%m-%d %H:%M:%S} UTC"
                    f" ({series.dated_by} at that commit)"
                )
            else:
                raise HistoryError(f"{manifest}: unknown series format {series.format!r}")
            for region, instance_type, model, usd in prices:
                rows.append(
                    {
                        "seed_snapshot": f"historical {version.commit[:12]}",
                        "provider": series.provider,
                        "region": region,
                        "instance_type": instance_type,
                        **described[instance_type],
                        "pricing_model": model,
                        "usd_per_hour": _price_text(Decimal(repr(round(usd, 6)))),
                        "price_basis": "instance",
                        "source": f"{series.repository} {series.path} @ {version.commit[:12]}",
                        "source_url": series.url(version.commit),
                        "observed_at": when.date().isoformat(),
                        "source_date_text": date_text,
                        "confidence": series.confidence,
                        "notes": series.describes,
                    }
                )
    return rows


def current_rows() -> list[dict[str, str]]:
    """The current Price List version's rows (seed snapshot "current"), for the curated seed."""
    rows, _ = all_rows()
    return [row for row in rows if row["seed_snapshot"] == "current"]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    where = parser.add_mutually_exclusive_group()
    where.add_argument(
        "--source", type=Path, default=SOURCE_COPY, help="folder laid out as the pinned repository"
    )
    where.add_argument("--download", action="store_true", help="fetch the pinned file")
    parser.add_argument(
        "--series-source",
        type=Path,
        default=SERIES_COPY,
        help="folder of the GCP and Azure versions (<owner>+<name>/<commit>/<path>)",
    )
    parser.add_argument("--manifest", type=Path, default=MANIFEST)
    parser.add_argument("--catalog", type=Path, default=CATALOG_CSV)
    parser.add_argument("--out", type=Path, default=OUT_CSV)
    args = parser.parse_args(argv)
    try:
        rows, left_out = all_rows(
            None if args.download else args.source, args.manifest, args.catalog
        )
        series = series_rows(None if args.download else args.series_source, catalog=args.catalog)
    except (HistoryError, price_series.SeriesError, CatalogError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    history = [row for row in rows if row["seed_snapshot"] != "current"]
    args.out.write_text(render(history + series), encoding="utf-8")
    for provider in ("aws", "gcp", "azure"):
        mine = [row for row in history + series if row["provider"] == provider]
        dates = sorted({row["observed_at"] for row in mine})
        print(
            f"{provider}: {len(mine)} rows in {len(dates)} dated snapshots, {dates[0]} to {dates[-1]}"
        )
    print(
        f"wrote {len(history) + len(series)} rows to {args.out}; the current AWS Price List"
        f" version's {len(rows) - len(history)} rows go to the curated seed"
        " (scripts/curate_seed.py)"
    )
    if left_out:
        print("left out (no catalog row describes them): " + ", ".join(left_out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
