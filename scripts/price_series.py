"""Dated GCP and Azure price series from public repositories whose bots commit a provider's own
prices on a schedule, each version dated by what the file at that commit states.

Used by ``scripts/build_price_history.py``; pinned in ``data/sources/cloud_price_series.yaml``:
per series the repository, the path, the format, the regions kept, and per version the commit
and the sha256 of what is kept of the file (the kept lines of a YAML file, or the kept items of
a JSON file written canonically). ``data/sources/price_series/<repository>/<commit>/`` holds
exactly that, so the build needs no network; the whole file at the pinned commit builds the same
output. What is kept: the instance types ``data/market_prices.csv`` describes for the provider
(the part, count, vCPUs and memory come from there), in the regions listed.

* ``cyclenerd-pricing-yml`` (GCP, ``pricing.yml`` of Cyclenerd/google-cloud-pricing-cost-
  calculator): ``compute.instance.<type>.cost.<region>.hour`` (on demand) and ``hour_spot``
  (spot), a machine type's price as that project adds it up from the Cloud Billing Catalog's
  SKUs (vCPU, memory and GPU). Dated by ``about.timestamp`` (the file's generation time).
* ``azure-retail-items`` (Azure, ``data/latest/vm-<region>.json`` of
  andy-diericks/azure-pricing-radar): Retail Prices API items as the bot stores them (meter,
  product, SKU name, price; no ``armSkuName``). Linux meters only (``pricing.azure.is_windows``),
  no Low Priority; a meter with "Spot" is the spot price. Dated by ``"at"`` in
  ``data/latest/last-checked.json`` at the same commit (when the bot read the API).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from build_market_prices import BLOB_URL, download_pinned

from pricing.azure import is_windows
from tokendesk.safeyaml import YamlLimits, load_yaml_file, load_yaml_text

#: The pinned files are at most 4 MB (pricing.yml); a download past this is not the pinned file.
MAX_DOWNLOAD_BYTES = 16 * 1024 * 1024
MANIFEST_LIMITS = YamlLimits(max_bytes=64 * 1024)
KEPT_LIMITS = YamlLimits(max_bytes=1024 * 1024)


class SeriesError(ValueError):
    """A pinned version or what is kept of it does not match the manifest."""


@dataclass(frozen=True)
class Version:
    commit: str
    kept_sha256: str
    kept: int
    #: The dating file's sha256 (Azure: last-checked.json), "" where the file dates itself.
    dated_by_sha256: str = ""


@dataclass(frozen=True)
class Series:
    provider: str
    repository: str
    path: str
    format: str
    regions: frozenset[str]
    confidence: str
    describes: str
    versions: tuple[Version, ...]
    dated_by: str = ""

    def url(self, commit: str) -> str:
        return BLOB_URL.format(repository=self.repository, commit=commit, path=self.path)

    def folder(self, root: Path, commit: str) -> Path:
        return root / self.repository.replace("/", "+") / commit


def load_series(path: Path) -> list[Series]:
    document = load_yaml_file(path, MANIFEST_LIMITS)
    if not isinstance(document, dict) or not isinstance(document.get("series"), list):
        raise SeriesError(f"{path}: expected 'series:' with one entry per repository")
    out = []
    for entry in document["series"]:
        try:
            versions = tuple(
                Version(
                    commit=str(v["commit"]),
                    kept_sha256=str(v["kept_sha256"]),
                    kept=int(v["kept"]),
                    dated_by_sha256=str(v.get("dated_by_sha256", "")),
                )
                for v in entry["versions"]
            )
            out.append(
                Series(
                    provider=str(entry["provider"]),
                    repository=str(entry["repository"]),
                    path=str(entry["path"]),
                    format=str(entry["format"]),
                    regions=frozenset(entry["regions"]),
                    confidence=str(entry["confidence"]),
                    describes=str(entry["describes"]),
                    versions=versions,
                    dated_by=str(entry.get("dated_by", "")),
                )
            )
        except (KeyError, TypeError) as exc:
            raise SeriesError(f"{path}: a series entry lacks {exc}") from None
    return out


def read_file(series: Series, commit: str, path: str, source: Path | None) -> tuple[str, str]:
    """(text, where read) of ``path`` at ``commit``: from the copy under ``source`` or the
    pinned commit online (None)."""
    if source is not None:
        local = series.folder(source, commit) / path
        if not local.is_file():
            raise SeriesError(f"{local}: not found; keep the copy there, or build with --download")
        return local.read_text(encoding="utf-8"), str(local)
    return download_pinned(series.repository, commit, path, MAX_DOWNLOAD_BYTES)


def _check(series: Series, version: Version, kept_text: str, count: int, where: str) -> None:
    digest = hashlib.sha256(kept_text.encode("utf-8")).hexdigest()
    if count != version.kept or digest != version.kept_sha256:
        raise SeriesError(
            f"{where}: what is kept ({count}, sha256 {digest}) is not what is pinned"
            f" ({version.kept}, {version.kept_sha256}) for {series.repository}@{version.commit[:12]};"
            " read the file at the pinned commit, or re-pin after checking the new lines"
        )


# ---------------------------------------------------------------------------------- GCP (YAML)
_YAML_KEY = re.compile(r"^(?P<indent> *)(?P<key>[^\s:#][^:]*):(?:\s|$)")


def yaml_kept_lines(text: str, types: Iterable[str], regions: Iterable[str]) -> list[str]:
    """The lines of ``pricing.yml`` that state its date and the kept prices, with every parent
    key line, in file order: a YAML document of its own."""
    types, regions = set(types), set(regions)
    kept: list[str] = []
    path: list[tuple[int, str]] = []
    for line in text.splitlines():
        found = _YAML_KEY.match(line)
        if found is None:
            continue
        indent, key = len(found["indent"]), found["key"]
        while path and path[-1][0] >= indent:
            path.pop()
        path.append((indent, key))
        keys = [k for _, k in path]
        if keys in (["about"], ["compute"], ["compute", "instance"]) or (
            len(keys) == 2 and keys[0] == "about" and keys[1] in ("generated", "timestamp")
        ):
            kept.append(line)
        elif len(keys) >= 3 and keys[:2] == ["compute", "instance"] and keys[2] in types:
            tail = keys[3:]
            if (
                not tail
                or tail == ["cost"]
                or (len(tail) == 2 and tail[0] == "cost" and tail[1] in regions)
                or (
                    len(tail) == 3
                    and tail[0] == "cost"
                    and tail[1] in regions
                    and tail[2] in ("hour", "hour_spot")
                )
            ):
                kept.append(line)
    return kept


def gcp_version(
    series: Series, version: Version, source: Path | None, types: Iterable[str]
) -> tuple[datetime, list[tuple[str, str, str, float]]]:
    """(generation time, [(region, instance type, pricing model, usd/h)]) of one version."""
    text, where = read_file(series, version.commit, series.path, source)
    lines = yaml_kept_lines(text, types, series.regions)
    kept_text = "\n".join(lines)
    prices = sum(1 for line in lines if line.strip().startswith(("hour:", "hour_spot:")))
    _check(series, version, kept_text, prices, where)
    document = load_yaml_text(kept_text, where, KEPT_LIMITS)
    if not isinstance(document, dict):
        raise SeriesError(f"{where}: the kept lines are not a YAML mapping")
    about = document.get("about") or {}
    stamp = about.get("timestamp")
    if not isinstance(stamp, int):
        raise SeriesError(f"{where}: about.timestamp (the generation time) is missing")
    when = datetime.fromtimestamp(stamp, UTC)
    rows = []
    for instance_type, entry in sorted(
        ((document.get("compute") or {}).get("instance") or {}).items()
    ):
        for region, cost in sorted((entry.get("cost") or {}).items()):
            for key, model in (("hour", "on_demand"), ("hour_spot", "spot")):
                value = cost.get(key)
                if isinstance(value, (int, float)) and value > 0:
                    rows.append((region, instance_type, model, float(value)))
    return when, rows


# ------------------------------------------------------------------------------ Azure (JSON)
#: Azure names the ND A100 v4 size Standard_ND96asr_v4 while its meters say ND96asr_A100_v4;
#: every other kept size's meter is its armSkuName without "Standard_", "_" and spaces.
METER_ALIASES = {"ND96asrA100v4": "Standard_ND96asr_v4"}


def _squash(name: str) -> str:
    return re.sub(r"[\s_]", "", name.removeprefix("Standard_"))


def meter_sizes(sizes: Iterable[str]) -> dict[str, str]:
    """A meter's squashed name (without " Spot") -> the kept size it prices."""
    kept = set(sizes)
    by_meter = {_squash(size): size for size in kept}
    return by_meter | {k: v for k, v in METER_ALIASES.items() if v in kept}


def azure_kept_items(
    items: Mapping[str, Any], sizes: Iterable[str], regions: Iterable[str]
) -> dict:
    """The items kept: Linux, not Low Priority, one hour, a kept region, a meter that names a
    kept size (spot or not)."""
    by_meter = meter_sizes(sizes)
    regions = set(regions)
    kept = {}
    for key, item in items.items():
        meter = str(item.get("meterName", ""))
        base = meter.removesuffix(" Spot")
        if (
            by_meter.get(_squash(base)) is None
            or "Low Priority" in meter
            or is_windows(str(item.get("productName", "")))
            or item.get("armRegionName") not in regions
            or item.get("unitOfMeasure") != "1 Hour"
        ):
            continue
        kept[key] = item
    return kept


def canonical(items: Mapping[str, Any]) -> str:
    return json.dumps(items, sort_keys=True, indent=1, ensure_ascii=False)


def azure_version(
    series: Series, version: Version, source: Path | None, sizes: Sequence[str]
) -> tuple[datetime, list[tuple[str, str, str, float]]]:
    text, where = read_file(series, version.commit, series.path, source)
    try:
        items = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SeriesError(f"{where}: not JSON ({exc.msg} at line {exc.lineno})") from None
    kept = azure_kept_items(items, sizes, series.regions)
    _check(series, version, canonical(kept), len(kept), where)
    dated_text, dated_where = read_file(series, version.commit, series.dated_by, source)
    digest = hashlib.sha256(dated_text.encode("utf-8")).hexdigest()
    if digest != version.dated_by_sha256:
        raise SeriesError(f"{dated_where}: sha256 {digest} is not the pinned one")
    when = datetime.fromisoformat(json.loads(dated_text)["at"]).astimezone(UTC)
    by_meter = meter_sizes(sizes)
    rows: dict[tuple[str, str, str], float] = {}
    for item in kept.values():
        meter = str(item["meterName"])
        size = by_meter[_squash(meter.removesuffix(" Spot"))]
        model = "spot" if meter.endswith(" Spot") else "on_demand"
        key = (str(item["armRegionName"]), size, model)
        price = float(item["retailPrice"])
        if price <= 0:
            continue
        if key in rows and rows[key] != price:
            raise SeriesError(
                f"{where}: two Linux meters price {size} {model} in {key[0]}"
                f" ({rows[key]} and {price}); pin the meter to keep"
            )
        rows[key] = price
    return when, [(r, s, m, p) for (r, s, m), p in sorted(rows.items())]


# ------------------------------------------------------------------------------------ pinning
def kept_copy(series: Series, commit: str, full: Path, types: Sequence[str], out: Path) -> Version:
    """Write what is kept of the version at ``full`` (laid out as ``folder()``) under ``out``
    and return its pin: the way a new version is pinned (check the printed rows first)."""
    text, _ = read_file(series, commit, series.path, full)
    target = series.folder(out, commit) / series.path
    target.parent.mkdir(parents=True, exist_ok=True)
    dated_sha = ""
    if series.format == "cyclenerd-pricing-yml":
        lines = yaml_kept_lines(text, types, series.regions)
        kept_text = "\n".join(lines)
        count = sum(1 for line in lines if line.strip().startswith(("hour:", "hour_spot:")))
    else:
        kept = azure_kept_items(json.loads(text), types, series.regions)
        kept_text, count = canonical(kept), len(kept)
        dated_text, _ = read_file(series, commit, series.dated_by, full)
        dated = series.folder(out, commit) / series.dated_by
        dated.parent.mkdir(parents=True, exist_ok=True)
        dated.write_text(dated_text, encoding="utf-8")
        dated_sha = hashlib.sha256(dated_text.encode("utf-8")).hexdigest()
    target.write_text(kept_text, encoding="utf-8")
    digest = hashlib.sha256(kept_text.encode("utf-8")).hexdigest()
    return Version(commit, digest, count, dated_sha)
