"""Build ``data/market_prices.csv``: the accelerator instances of AWS, GCP and Azure, on-demand
and spot per region, from the SkyPilot catalog's ``vms.csv`` files at pinned commits.

    python scripts/build_market_prices.py --catalog DIR     # DIR laid out as the repository
    python scripts/build_market_prices.py --download        # fetch the pinned files (network)

``data/sources/skypilot_catalog.yaml`` pins, per cloud, the repository, the path, the commit and
the rows kept: the instance types (or families) and the regions, and the sha256 of the kept rows
(the header and every kept line, byte for byte, joined by newlines). Only those rows are checked,
not the whole file: the files are 0.35 to 2.5 MB and this repository holds none of them, so a
folder with the kept rows alone (as the header plus those lines) builds the same output as the
full file. A kept row that differs from the pinned digest stops the build, naming the file.

What the script makes of the rows (one home for each rule, said where it is applied):

* AWS: one row per availability zone; the regional on-demand price is the zones' ``Price`` and
  the spot price is the cheapest zone's ``SpotPrice``.
* GCP: a machine's row holds its host (vCPUs and memory) price only; the attached GPUs are rows
  of their own (no instance type, ``AcceleratorName`` and count). A machine type's price is host
  plus GPUs of the same zone, as SkyPilot itself adds them; a zone with either side missing is
  not priced.
* Azure: one row per region. Where the size is in ``pricing.azure.SIZES`` (the shapes the live
  client prices) that shape decides the part and count; ``SpotPrice`` equal to ``Price`` is the
  generator's fill for a size Azure sells no spot capacity for, and gives no spot row.

The source states no date for its rows (a commit read by its hash alone), so ``observed_at`` is
empty ("date unknown") and ``source_date_text`` says so. The output is a function of the pinned
rows alone: a rerun writes the same bytes.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import io
import sys
import urllib.request
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a script from anywhere: the project's packages first
    sys.path.insert(0, str(ROOT))

from pricing.aws import CPU_FAMILIES, STATIC_ACCELERATOR_COUNTS  # noqa: E402
from pricing.azure import SIZES  # noqa: E402
from tokendesk.safeyaml import YamlLimits, load_yaml_file  # noqa: E402

DATA = ROOT / "data"
MANIFEST = DATA / "sources" / "skypilot_catalog.yaml"
OUT_CSV = DATA / "market_prices.csv"
RAW_URL = "https://raw.githubusercontent.com/{repository}/{commit}/{path}"
BLOB_URL = "https://github.com/{repository}/blob/{commit}/{path}"
#: The manifest is a few kilobytes; anything near this is not the pinned manifest.
MANIFEST_LIMITS = YamlLimits(max_bytes=256 * 1024)
#: The pinned files are at most 2.5 MB; a download past this is not the pinned file.
MAX_DOWNLOAD_BYTES = 32 * 1024 * 1024

COLUMNS = (
    "seed_snapshot",
    "provider",
    "region",
    "instance_type",
    "accelerator_id",
    "accelerator_count",
    "vcpus",
    "memory_gib",
    "pricing_model",
    "usd_per_hour",
    "price_basis",
    "source",
    "source_url",
    "observed_at",
    "source_date_text",
    "confidence",
    "notes",
)

#: SkyPilot's ``AcceleratorName`` -> the accelerator table's id. The names are the catalog's own
#: (``catalogs/v7/common/metadata.csv``); a name that stands for two parts is resolved per cloud
#: below (A100 is the 40 GB SXM4 module on AWS p4d, GCP a2-highgpu and Azure ND A100 v4).
ACCELERATOR_ALIASES: dict[str, str] = {
    "T4": "nvidia-t4-16gb",
    # AWS g5g: the same T4 silicon beside a Graviton2 host (the catalog names it T4g).
    "T4g": "nvidia-t4-16gb",
    "A10": "nvidia-a10-24gb",
    "A10G": "nvidia-a10g-24gb",
    "L4": "nvidia-l4-24gb",
    "L40S": "nvidia-l40s-48gb",
    "A100": "nvidia-a100-40gb",
    "A100-80GB": "nvidia-a100-80gb",
    "H100": "nvidia-h100-sxm-80gb",
    "H100-MEGA": "nvidia-h100-sxm-80gb",
    "H200": "nvidia-h200-141gb",
    "Inferentia2": "aws-inferentia2",
    "Trainium": "aws-trainium1",
}
#: AWS families the catalog lists without an ``AcceleratorName`` (its generator reads the Price
#: List GPU column, empty for Neuron parts): the family decides, the count is the project's.
AWS_UNNAMED_FAMILIES: dict[str, str] = {"trn2": "aws-trainium2"}
#: GCP machine type -> (SkyPilot accelerator name, count) of the GPUs the machine always carries
#: (the machine-type tables of the GCP accelerator-optimized and G2 documentation).
GCP_MACHINE_GPUS: dict[str, tuple[str, int]] = {
    **{f"a2-highgpu-{n}g": ("A100", n) for n in (1, 2, 4, 8)},
    "a2-megagpu-16g": ("A100", 16),
    **{f"a2-ultragpu-{n}g": ("A100-80GB", n) for n in (1, 2, 4, 8)},
    **{f"a3-highgpu-{n}g": ("H100", n) for n in (1, 2, 4, 8)},
    "a3-megagpu-8g": ("H100-MEGA", 8),
    "a3-ultragpu-8g": ("H200", 8),
    **{f"g2-standard-{v}": ("L4", 1) for v in (4, 8, 12, 16, 32)},
    "g2-standard-24": ("L4", 2),
    "g2-standard-48": ("L4", 4),
    "g2-standard-96": ("L4", 8),
}


class CatalogError(ValueError):
    """A pinned file or its rows do not match the manifest: the message names file and fix."""


@dataclass(frozen=True)
class Pin:
    """One pinned ``vms.csv``: where it is and which of its rows are kept."""

    cloud: str
    repository: str
    path: str
    commit: str
    rows_sha256: str
    rows: int
    regions: frozenset[str]
    families: frozenset[str]
    instance_types: frozenset[str]
    accelerator_names: frozenset[str]
    date_text: str
    confidence: str
    #: Families whose list price this file predates (a dated newer source supersedes it): their
    #: rows go to the historical snapshot, with ``historical_reason`` in their notes.
    historical_families: frozenset[str] = frozenset()
    historical_reason: str = ""

    @property
    def source(self) -> str:
        return f"SkyPilot catalog {self.repository} {self.path} @ {self.commit[:12]}"

    @property
    def url(self) -> str:
        return BLOB_URL.format(repository=self.repository, commit=self.commit, path=self.path)

    def keeps(self, row: Mapping[str, str]) -> bool:
        """Whether a parsed row is one of the pinned rows (region, then type, family or GPU)."""
        if row["Region"] not in self.regions:
            return False
        instance_type = row["InstanceType"]
        if not instance_type:  # GCP: a GPU row of its own
            return row["AcceleratorName"] in self.accelerator_names
        return instance_type in self.instance_types or instance_type.split(".")[0] in self.families


def load_pins(path: Path = MANIFEST) -> list[Pin]:
    document = load_yaml_file(path, MANIFEST_LIMITS)
    if not isinstance(document, dict) or not isinstance(document.get("files"), list):
        raise CatalogError(f"{path}: expected a mapping with a 'files' list; see its header")
    pins = []
    for entry in document["files"]:
        keep = entry.get("keep", {})
        pins.append(
            Pin(
                cloud=str(entry["cloud"]),
                repository=str(entry["repository"]),
                path=str(entry["path"]),
                commit=str(entry["commit"]),
                rows_sha256=str(entry["rows_sha256"]),
                rows=int(entry["rows"]),
                regions=frozenset(keep.get("regions", ())),
                families=frozenset(keep.get("families", ())),
                instance_types=frozenset(keep.get("instance_types", ())),
                accelerator_names=frozenset(keep.get("accelerator_names", ())),
                date_text=str(entry["date_text"]),
                confidence=str(entry["confidence"]),
                historical_families=frozenset(entry.get("historical_families", ())),
                historical_reason=str(entry.get("historical_reason", "")),
            )
        )
    return pins


def read_text(pin: Pin, catalog: Path | None) -> tuple[str, str]:
    """(text of the pinned file, where it was read) from ``catalog`` or the pinned commit."""
    if catalog is not None:
        local = catalog / pin.path
        if not local.is_file():
            raise CatalogError(
                f"{local}: not found; --catalog must be laid out as the repository"
                f" (catalogs/v7/<cloud>/vms.csv), or use --download"
            )
        return local.read_text(encoding="utf-8"), str(local)
    return download_pinned(pin.repository, pin.commit, pin.path, MAX_DOWNLOAD_BYTES)


def download_pinned(repository: str, commit: str, path: str, max_bytes: int) -> tuple[str, str]:
    """(text, url) of ``path`` at ``commit`` of a public repository (its raw-file URL); a body
    past ``max_bytes`` is not the pinned file and is refused."""
    url = RAW_URL.format(repository=repository, commit=commit, path=path)
    with urllib.request.urlopen(url, timeout=120) as response:  # the pinned https URL only
        body = response.read(max_bytes + 1)
    if len(body) > max_bytes:
        raise CatalogError(f"{url}: larger than {max_bytes} bytes; not the pinned file")
    return body.decode("utf-8"), url


def kept_rows(pin: Pin, text: str, where: str) -> list[dict[str, str]]:
    """The pinned rows of ``text``, checked against the manifest's count and digest."""
    lines = text.splitlines()
    if not lines:
        raise CatalogError(f"{where}: empty; expected the SkyPilot vms.csv header")
    header = next(csv.reader([lines[0]]))
    kept_lines, rows = [lines[0]], []
    for line in lines[1:]:
        values = next(csv.reader([line]), [])
        if len(values) != len(header):
            raise CatalogError(f"{where}: a row has {len(values)} values for {len(header)} columns")
        row = dict(zip(header, values, strict=True))
        if pin.keeps(row):
            kept_lines.append(line)
            rows.append(row)
    digest = hashlib.sha256("\n".join(kept_lines).encode("utf-8")).hexdigest()
    if len(rows) != pin.rows or digest != pin.rows_sha256:
        raise CatalogError(
            f"{where}: the kept rows ({len(rows)}, sha256 {digest}) are not the pinned ones"
            f" ({pin.rows}, {pin.rows_sha256}); read the file at commit {pin.commit} or update"
            f" the pin in {MANIFEST.name} after checking the new rows"
        )
    return rows


def _number(text: str) -> float | None:
    return float(text) if text.strip() else None


def _price_text(value: float) -> str:
    # Cents of cents: the sources quote to five decimals; round only the float noise of sums.
    return f"{round(value, 6):g}"


@dataclass
class Offer:
    """One instance type in one region, gathered over its zones."""

    accelerator_id: str
    count: int
    vcpus: int | None
    memory_gib: float | None
    on_demand: set[float]
    spot: list[float]
    notes: list[str]
    #: Set where the source contradicts itself (``confidence`` of the pin otherwise).
    confidence: str | None = None


def _offer_rows(pin: Pin, key: tuple[str, str], offer: Offer) -> Iterable[dict[str, str]]:
    region, instance_type = key
    historical = instance_type.split(".")[0] in pin.historical_families
    common = {
        "seed_snapshot": "historical" if historical else "current",
        "provider": pin.cloud,
        "region": region,
        "instance_type": instance_type,
        "accelerator_id": offer.accelerator_id,
        "accelerator_count": str(offer.count),
        "vcpus": "" if offer.vcpus is None else str(offer.vcpus),
        "memory_gib": "" if offer.memory_gib is None else f"{offer.memory_gib:g}",
        "price_basis": "instance",
        "source": pin.source,
        "source_url": pin.url,
        "observed_at": "",
        "source_date_text": pin.date_text,
        "confidence": offer.confidence or pin.confidence,
    }
    notes = sorted(set(offer.notes)) + ([pin.historical_reason] if historical else [])
    if offer.on_demand:
        # Zones of one region carry one list price; if not, the highest: never understate it.
        spread = " (zones disagree: highest shown)" if len(offer.on_demand) > 1 else ""
        yield {
            **common,
            "pricing_model": "on_demand",
            "usd_per_hour": _price_text(max(offer.on_demand)),
            "notes": "; ".join([*notes, f"regional list price{spread}"]),
        }
    if offer.spot:
        zones = len(offer.spot)
        yield {
            **common,
            "pricing_model": "spot",
            "usd_per_hour": _price_text(min(offer.spot)),
            "confidence": offer.confidence or "medium",
            "notes": "; ".join(
                [*notes, f"spot varies by zone and hour: cheapest of {zones} zone quote(s)"]
            ),
        }


def _aws_accelerator(row: Mapping[str, str]) -> tuple[str, int, list[str]]:
    instance_type = row["InstanceType"]
    family = instance_type.split(".")[0]
    vcpus = int(float(row["vCPUs"]))
    if family in CPU_FAMILIES:
        spec = CPU_FAMILIES[family]
        return spec.accelerator_id, vcpus // spec.vcpus_per_socket, ["CPU-fallback host"]
    if not row["AcceleratorName"]:
        if family not in AWS_UNNAMED_FAMILIES or instance_type not in STATIC_ACCELERATOR_COUNTS:
            raise CatalogError(f"{instance_type}: no AcceleratorName and no family mapping")
        note = "the catalog names no accelerator: family and count from pricing.aws"
        return AWS_UNNAMED_FAMILIES[family], STATIC_ACCELERATOR_COUNTS[instance_type], [note]
    return _alias(row["AcceleratorName"]), int(float(row["AcceleratorCount"])), []


def _alias(name: str) -> str:
    if name not in ACCELERATOR_ALIASES:
        raise CatalogError(
            f"AcceleratorName {name!r} has no accelerator id; add it to ACCELERATOR_ALIASES"
            " (and the part to data/accelerators.csv with its datasheet figures)"
        )
    return ACCELERATOR_ALIASES[name]


def aws_offers(rows: Sequence[Mapping[str, str]]) -> dict[tuple[str, str], Offer]:
    offers: dict[tuple[str, str], Offer] = {}
    for row in rows:
        accelerator_id, count, notes = _aws_accelerator(row)
        offer = offers.setdefault(
            (row["Region"], row["InstanceType"]),
            Offer(
                accelerator_id,
                count,
                int(float(row["vCPUs"])),
                _number(row["MemoryGiB"]),
                set(),
                [],
                notes,
            ),
        )
        _add_prices(offer, _number(row["Price"]), _number(row["SpotPrice"]))
    return offers


def _add_prices(offer: Offer, price: float | None, spot: float | None) -> None:
    if price:
        offer.on_demand.add(price)
    if spot:
        offer.spot.append(spot)


def gcp_offers(rows: Sequence[Mapping[str, str]]) -> dict[tuple[str, str], Offer]:
    gpus: dict[tuple[str, int, str], Mapping[str, str]] = {}
    for row in rows:
        if not row["InstanceType"]:
            gpus[
                (row["AcceleratorName"], int(row["AcceleratorCount"]), row["AvailabilityZone"])
            ] = row
    offers: dict[tuple[str, str], Offer] = {}
    for row in rows:
        machine = row["InstanceType"]
        if not machine:
            continue
        if machine not in GCP_MACHINE_GPUS:
            raise CatalogError(f"{machine}: kept but not in GCP_MACHINE_GPUS; add its GPUs")
        name, count = GCP_MACHINE_GPUS[machine]
        gpu = gpus.get((name, count, row["AvailabilityZone"]))
        if gpu is None:
            continue  # the zone lists the host but not its GPUs: no whole price to give
        offer = offers.setdefault(
            (row["Region"], machine),
            Offer(
                _alias(name),
                count,
                int(float(row["vCPUs"])),
                _number(row["MemoryGiB"]),
                set(),
                [],
                [f"host + {count} x {name} rows of the same zone, summed"],
            ),
        )
        _add_prices(
            offer,
            _sum(_number(row["Price"]), _number(gpu["Price"])),
            _sum(_number(row["SpotPrice"]), _number(gpu["SpotPrice"])),
        )
    _flag_inconsistent_gpus(offers, gpus)
    return offers


#: GPU rows of one part and count whose on-demand price differs more than this between two kept
#: regions: one of them is not the list price (GCP lists one GPU price per region or a few
#: percent apart), so the machines built on them are marked low confidence and say so.
GPU_REGION_SPREAD = 1.25


def _flag_inconsistent_gpus(
    offers: dict[tuple[str, str], Offer], gpus: Mapping[tuple[str, int, str], Mapping[str, str]]
) -> None:
    by_part: dict[tuple[str, int], dict[str, float]] = defaultdict(dict)
    for (name, count, _zone), row in gpus.items():
        price = _number(row["Price"])
        if price:
            by_part[name, count][row["Region"]] = price
    for (_region, machine), offer in offers.items():
        prices = by_part.get(GCP_MACHINE_GPUS[machine], {})
        if len(prices) > 1 and max(prices.values()) > GPU_REGION_SPREAD * min(prices.values()):
            name, count = GCP_MACHINE_GPUS[machine]
            shown = ", ".join(f"{r} ${p:g}" for r, p in sorted(prices.items()))
            offer.confidence = "low"
            offer.notes.append(
                f"the catalog's {count} x {name} on-demand rows differ between regions ({shown}):"
                " one is not the list price; check before relying on it"
            )


def _sum(host: float | None, gpu: float | None) -> float | None:
    return None if host is None or gpu is None else host + gpu


def azure_offers(rows: Sequence[Mapping[str, str]]) -> dict[tuple[str, str], Offer]:
    offers: dict[tuple[str, str], Offer] = {}
    for row in rows:
        size = row["InstanceType"]
        count = int(row["AcceleratorCount"])
        notes: list[str] = []
        if size in SIZES:
            shape = SIZES[size]
            accelerator_id = shape.accelerator_id
            if shape.accelerator_count != count:
                notes.append(
                    f"the catalog says {count} GPUs; the VM size page (pricing.azure.SIZES)"
                    f" says {shape.accelerator_count}, used here"
                )
            count = shape.accelerator_count
        else:
            accelerator_id = _alias(row["AcceleratorName"])
        offer = offers.setdefault(
            (row["Region"], size),
            Offer(
                accelerator_id,
                count,
                int(float(row["vCPUs"])),
                _number(row["MemoryGiB"]),
                set(),
                [],
                notes,
            ),
        )
        price, spot = _number(row["Price"]), _number(row["SpotPrice"])
        # The generator copies the on-demand price into SpotPrice where Azure sells no spot.
        _add_prices(offer, price, spot if spot and price and spot < price else None)
    return offers


OFFERS = {"aws": aws_offers, "gcp": gcp_offers, "azure": azure_offers}


def build_rows(pins: Sequence[Pin], texts: Mapping[str, tuple[str, str]]) -> list[dict[str, str]]:
    """Every output row, sorted so that the file does not depend on reading order."""
    out: list[dict[str, str]] = []
    for pin in pins:
        text, where = texts[pin.cloud]
        offers = OFFERS[pin.cloud](kept_rows(pin, text, where))
        for key in sorted(offers):
            out.extend(_offer_rows(pin, key, offers[key]))
    out.sort(key=lambda r: (r["provider"], r["region"], r["instance_type"], r["pricing_model"]))
    return out


def render(rows: Sequence[Mapping[str, str]]) -> str:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buffer.getvalue()


def counts(rows: Iterable[Mapping[str, str]]) -> dict[str, dict[str, int]]:
    table: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for row in rows:
        table[row["provider"]][row["pricing_model"]] += 1
    return {provider: dict(models) for provider, models in sorted(table.items())}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--catalog", type=Path, help="folder laid out as the catalog repository")
    where.add_argument("--download", action="store_true", help="fetch the pinned files")
    parser.add_argument("--manifest", type=Path, default=MANIFEST)
    parser.add_argument("--out", type=Path, default=OUT_CSV)
    args = parser.parse_args(argv)
    pins = load_pins(args.manifest)
    try:
        texts = {pin.cloud: read_text(pin, args.catalog) for pin in pins}
        rows = build_rows(pins, texts)
    except CatalogError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    args.out.write_text(render(rows), encoding="utf-8")
    for provider, models in counts(rows).items():
        print(f"{provider}: {models}")
    print(f"wrote {len(rows)} rows to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
