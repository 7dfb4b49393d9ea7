"""AWS EC2 prices from the public per-region bulk price file, with no credentials.

``https://pricing.us-east-1.amazonaws.com/offers/v1.0/aws/AmazonEC2/current/<region>/index.csv``
is five disclaimer lines (FormatVersion, Disclaimer, Publication Date, Version, OfferCode), then
a header and one row per (SKU, term, price dimension). The file is hundreds of MB to GBs, and
well under 1% of rows are Linux/shared/used compute rows of the families we price, so the file
is streamed into an in-memory DuckDB and filtered in SQL; Python only sees the few hundred
surviving aggregates. (DuckDB here is a throwaway parser, not the warehouse connection.)
"""

from __future__ import annotations

import re
import shutil
import tempfile
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

import duckdb
import httpx

from pricing.aws import (
    ALL_FAMILIES,
    DEFAULT_REGIONS,
    PROVIDER,
    REGION_PATTERN,
    InstanceShape,
    accelerator_for,
    family_of,
    parse_memory_gib,
)
from pricing.provider import (
    HOURS_1Y,
    HOURS_3Y,
    ProviderResult,
    RegionProgress,
    SkippedItem,
    filter_regions,
    no_progress,
    utcnow,
)
from tokendesk.paths import user_data_dir
from tokendesk.records import PricingModel

SOURCE_BULK = "aws-bulk-price-list"
BULK_URL = (
    "https://pricing.us-east-1.amazonaws.com/offers/v1.0/aws/AmazonEC2/current/{region}/index.csv"
)
#: FormatVersion, Disclaimer, Publication Date, Version, OfferCode precede the header.
DISCLAIMER_LINES = 5
#: The header as AWS published it (AmazonEC2 offer, 2025-09). The query reads columns by name, so
#: columns AWS adds later are harmless; tests and the perf benchmark build files with this header.
BULK_HEADER: tuple[str, ...] = (
    "SKU",
    "OfferTermCode",
    "RateCode",
    "TermType",
    "PriceDescription",
    "EffectiveDate",
    "StartingRange",
    "EndingRange",
    "Unit",
    "PricePerUnit",
    "Currency",
    "RelatedTo",
    "LeaseContractLength",
    "PurchaseOption",
    "OfferingClass",
    "Product Family",
    "serviceCode",
    "Location",
    "Location Type",
    "Instance Type",
    "Current Generation",
    "Instance Family",
    "vCPU",
    "Physical Processor",
    "Clock Speed",
    "Memory",
    "Storage",
    "Network Performance",
    "Processor Architecture",
    "Storage Media",
    "Volume Type",
    "Max Volume Size",
    "Max IOPS/volume",
    "Max IOPS Burst Performance",
    "Max throughput/volume",
    "Provisioned",
    "Tenancy",
    "EBS Optimized",
    "Operating System",
    "License Model",
    "Group",
    "Group Description",
    "Transfer Type",
    "From Location",
    "From Location Type",
    "To Location",
    "To Location Type",
    "usageType",
    "operation",
    "AvailabilityZone",
    "CapacityStatus",
    "ClassicNetworkingSupport",
    "Dedicated EBS Throughput",
    "ECU",
    "Elastic Graphics Type",
    "Enhanced Networking Supported",
    "From Region Code",
    "GPU",
    "GPU Memory",
    "Instance",
    "Instance Capacity - 10xlarge",
    "Instance Capacity - 12xlarge",
    "Instance Capacity - 16xlarge",
    "Instance Capacity - 18xlarge",
    "Instance Capacity - 24xlarge",
    "Instance Capacity - 2xlarge",
    "Instance Capacity - 32xlarge",
    "Instance Capacity - 4xlarge",
    "Instance Capacity - 8xlarge",
    "Instance Capacity - 9xlarge",
    "Instance Capacity - large",
    "Instance Capacity - medium",
    "Instance Capacity - metal",
    "Instance Capacity - xlarge",
    "instanceSKU",
    "Intel AVX2 Available",
    "Intel AVX Available",
    "Intel Turbo Available",
    "MarketOption",
    "Normalization Size Factor",
    "Physical Cores",
    "Pre Installed S/W",
    "Processor Features",
    "Product Type",
    "Region Code",
    "Resource Type",
    "serviceName",
    "SnapshotArchiveFeeType",
    "To Region Code",
    "Volume API Name",
    "VPCNetworkingSupport",
)
#: Columns the query reads; a file without one of them is rejected with its name.
REQUIRED_COLUMNS = (
    "SKU",
    "OfferTermCode",
    "TermType",
    "Unit",
    "PricePerUnit",
    "Currency",
    "LeaseContractLength",
    "PurchaseOption",
    "OfferingClass",
    "Product Family",
    "Instance Type",
    "vCPU",
    "Memory",
    "Tenancy",
    "Operating System",
    "usageType",
    "CapacityStatus",
    "GPU",
    "MarketOption",
    "Pre Installed S/W",
    "Region Code",
)
#: DuckDB memory cap for the parse: the scan streams, so this bounds peak RSS, not file size.
DUCKDB_MEMORY_LIMIT = "1GB"

# Every value is bound as a parameter; the statement itself is constant.
_BULK_QUERY = """
WITH rows AS (
    SELECT "SKU" AS sku, "OfferTermCode" AS term_code, "TermType" AS term_type, "Unit" AS unit,
           TRY_CAST("PricePerUnit" AS DOUBLE) AS price, "LeaseContractLength" AS lease,
           "PurchaseOption" AS purchase_option, coalesce("OfferingClass", 'standard') AS offering_class,
           "Instance Type" AS instance_type, "Region Code" AS region, "vCPU" AS vcpu,
           "Memory" AS memory, "GPU" AS gpu, coalesce("MarketOption", 'OnDemand') AS market_option
    FROM read_csv($path, header = true, skip = $skip, all_varchar = true,
                  delim = ',', quote = '"', escape = '"')
    WHERE "Product Family" = 'Compute Instance'
      AND "Operating System" = 'Linux'
      AND "Tenancy" = 'Shared'
      AND coalesce("Pre Installed S/W", 'NA') IN ('NA', '')
      AND coalesce("CapacityStatus", 'Used') = 'Used'
      AND "Currency" = 'USD'
      AND "usageType" LIKE '%BoxUsage%'
      AND regexp_matches("Instance Type", $families)
)
SELECT instance_type, region, term_type, market_option, lease, purchase_option, offering_class,
       sku, term_code, sum(price) FILTER (WHERE unit = 'Hrs') AS hourly,
       sum(price) FILTER (WHERE unit = 'Quantity') AS upfront,
       any_value(vcpu) AS vcpu, any_value(memory) AS memory, any_value(gpu) AS gpu
FROM rows
GROUP BY instance_type, region, term_type, market_option, lease, purchase_option,
         offering_class, sku, term_code
ORDER BY instance_type, region, term_type, sku, term_code
"""


def families_regex(families: Sequence[str]) -> str:
    return r"^(" + "|".join(re.escape(f) for f in families) + r")\."


def query_bulk_csv(
    path: Path, families: Sequence[str] = ALL_FAMILIES, *, threads: int | None = None
) -> list[dict[str, Any]]:
    """Stream ``path`` through DuckDB; return one aggregate row per (SKU, term) that survives."""
    config: dict[str, Any] = {
        "memory_limit": DUCKDB_MEMORY_LIMIT,
        "preserve_insertion_order": False,
    }
    if threads:
        config["threads"] = threads
    con = duckdb.connect(":memory:", config=config)
    try:
        cursor = con.execute(
            _BULK_QUERY,
            {"path": str(path), "skip": DISCLAIMER_LINES, "families": families_regex(families)},
        )
        columns = [d[0] for d in cursor.description]
        return [dict(zip(columns, row, strict=True)) for row in cursor.fetchall()]
    except duckdb.BinderException as exc:
        missing = [c for c in REQUIRED_COLUMNS if f'"{c}"' in str(exc) or f"'{c}'" in str(exc)]
        raise ValueError(
            f"{path}: not an AWS EC2 bulk price file with the expected header"
            f" (missing column {', '.join(missing) or '?'}; the header must be line"
            f" {DISCLAIMER_LINES + 1}): {exc}"
        ) from exc
    except duckdb.Error as exc:
        raise ValueError(f"{path}: could not read as an AWS bulk price CSV: {exc}") from exc
    finally:
        con.close()


def parse_bulk_rows(
    rows: Sequence[dict[str, Any]], observed_at: datetime, source_url: str
) -> ProviderResult:
    """Aggregated bulk rows -> on-demand and reserved (effective hourly) quotes."""
    result = ProviderResult()
    best: dict[tuple[str, str, PricingModel], tuple[float, str, InstanceShape]] = {}
    for row in rows:
        instance_type, region = row["instance_type"], row["region"]
        what = f"{instance_type} {region}"
        vcpus = int(row["vcpu"]) if (row.get("vcpu") or "").isdigit() else None
        accel = accelerator_for(instance_type, row.get("gpu"), vcpus)
        if accel is None:
            if family_of(instance_type) in ALL_FAMILIES:
                result.skipped.append(SkippedItem(what, "accelerator count unknown"))
            continue
        shape = InstanceShape(
            instance_type, accel[0], accel[1], vcpus, parse_memory_gib(row.get("memory"))
        )
        hourly = row.get("hourly") or 0.0
        upfront = row.get("upfront") or 0.0
        if row["term_type"] == "OnDemand":
            if row["market_option"] != "OnDemand":
                result.skipped.append(SkippedItem(what, f"market option {row['market_option']}"))
                continue
            if not hourly > 0:
                result.skipped.append(
                    SkippedItem(
                        what, "$0 on-demand price: sold only as capacity blocks or reservations"
                    )
                )
                continue
            key = (region, instance_type, PricingModel.ON_DEMAND)
            if key in best:
                # Not expected after the filters; keep the lower price so the result does not
                # depend on row order, and say so.
                result.skipped.append(
                    SkippedItem(what, "duplicate on-demand SKU (lower price kept)")
                )
                if hourly >= best[key][0]:
                    continue
            best[key] = (hourly, "", shape)
        elif row["term_type"] == "Reserved" and row["offering_class"] == "standard":
            model, hours = {
                "1yr": (PricingModel.RESERVED_1Y, HOURS_1Y),
                "3yr": (PricingModel.RESERVED_3Y, HOURS_3Y),
            }.get(row.get("lease") or "", (None, 0))
            if model is None:
                continue
            effective = hourly + upfront / hours
            if not effective > 0:
                continue
            note = (
                f"standard RI {row['lease']} {row['purchase_option']}: ${upfront:g} upfront / {hours} h"
                f" + ${hourly:g}/h = effective hourly"
            )
            key = (region, instance_type, model)
            if key not in best or effective < best[key][0]:
                best[key] = (effective, note, shape)
    for (region, _, model), (usd, note, shape) in sorted(best.items()):
        result.quotes.append(
            shape.quote(
                provider=PROVIDER,
                region=region,
                pricing_model=model,
                usd_per_hour=usd,
                source=SOURCE_BULK,
                source_url=source_url,
                observed_at=observed_at,
                notes=note,
            )
        )
    return result


def parse_bulk_csv(
    path: Path,
    observed_at: datetime,
    *,
    families: Sequence[str] = ALL_FAMILIES,
    source_url: str = "",
    threads: int | None = None,
) -> ProviderResult:
    """A downloaded bulk ``index.csv`` -> quotes (pure apart from reading the file)."""
    rows = query_bulk_csv(path, families, threads=threads)
    return parse_bulk_rows(rows, observed_at, source_url)


def fetch_bulk_csv(region: str, dest: Path, *, client: Any = None, timeout_s: float = 60.0) -> Path:
    """Stream one region's bulk file to ``dest`` (never held in memory)."""

    url = BULK_URL.format(region=region)
    owns = client is None
    client = client or httpx.Client(
        timeout=httpx.Timeout(timeout_s, connect=10.0), follow_redirects=True
    )
    try:
        with client.stream("GET", url) as response:
            response.raise_for_status()
            with dest.open("wb") as handle:
                for chunk in response.iter_bytes(1 << 20):
                    handle.write(chunk)
    finally:
        if owns:
            client.close()
    return dest


def bulk_scratch_dir(work_dir: Path | None = None) -> Path:
    """The one folder bulk downloads go to, emptied at the start of every refresh: a refresh that
    was killed (and so never ran its clean-up) leaves nothing behind for longer than that."""
    folder = (work_dir or user_data_dir()) / "tmp" / "aws-bulk"
    if folder.exists():
        shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def fetch_aws_bulk(
    regions: Sequence[str] | None = None,
    *,
    client: Any = None,
    families: Sequence[str] = ALL_FAMILIES,
    progress: RegionProgress = no_progress,
    now: datetime | None = None,
    work_dir: Path | None = None,
) -> ProviderResult:
    """On-demand and reserved quotes for ``regions`` from the public bulk files."""

    now = now or utcnow()
    wanted = filter_regions(regions, DEFAULT_REGIONS, REGION_PATTERN)
    result = ProviderResult()
    scratch = bulk_scratch_dir(work_dir)
    with tempfile.TemporaryDirectory(dir=scratch, prefix="refresh-") as tmp:
        for index, region in enumerate(wanted, start=1):
            target = Path(tmp) / f"{region}.csv"
            try:
                fetch_bulk_csv(region, target, client=client)
                parsed = parse_bulk_csv(
                    target, now, families=families, source_url=BULK_URL.format(region=region)
                )
            except httpx.HTTPStatusError as exc:
                if exc.response.status_code in (403, 404):
                    result.skipped.append(
                        SkippedItem(region, f"no bulk price file (HTTP {exc.response.status_code})")
                    )
                else:
                    result.region_errors[region] = f"bulk file download failed: {exc}"
                progress(region, index, len(wanted), "failed")
                continue
            except (httpx.HTTPError, ValueError, OSError) as exc:
                result.region_errors[region] = f"bulk file failed: {exc}"
                progress(region, index, len(wanted), "failed")
                continue
            finally:
                target.unlink(missing_ok=True)
            result.quotes.extend(q for q in parsed.quotes if q.region == region)
            result.skipped.extend(parsed.skipped)
            progress(region, index, len(wanted), f"{len(parsed.quotes)} prices")
    return result
