"""AWS EC2 prices through the boto3 Pricing (Query) API and EC2 spot price history.

* ``fetch_price_list`` / ``fetch_spot_history`` are the thin network calls;
* ``parse_price_list`` / ``parse_spot_history`` turn the documented payloads into PriceQuotes;
* ``fetch_aws`` walks the regions and reports per region.

The Pricing API only answers from ``us-east-1`` (and ``ap-south-1``) whatever region is priced,
and every ``PriceList`` entry is a JSON *string*. Credentials come from boto3's default chain
and are never logged or stored. The no-credential alternative is ``aws_bulk``.
"""

from __future__ import annotations

import json
import re
import statistics
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pricing.provider import (
    HOURS_1Y,
    HOURS_3Y,
    InstanceShape,
    MissingCredentialsError,
    PermissionDeniedError,
    ProviderResult,
    RegionProgress,
    SkippedItem,
    filter_regions,
    no_progress,
    utcnow,
)
from tokendesk.records import PriceQuote, PricingModel

# boto3/botocore are imported inside the functions that call AWS, a measured start-up cost:
# `import boto3` takes about 0.35 s on the dev box and only the AWS fetch needs it.

PROVIDER = "aws"
SOURCE_API = "aws-pricing-api"
SOURCE_SPOT = "aws-ec2-spot-price-history"
PRICING_API_URL = "https://api.pricing.us-east-1.amazonaws.com"
SPOT_DOC_URL = (
    "https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_DescribeSpotPriceHistory.html"
)
#: The Pricing API has endpoints only in us-east-1 and ap-south-1, whatever region is priced.
PRICING_ENDPOINT_REGION = "us-east-1"
DEFAULT_REGIONS = (
    "us-east-1",
    "us-east-2",
    "us-west-2",
    "eu-west-1",
    "eu-north-1",
    "ap-northeast-1",
)
REGION_PATTERN = re.compile(r"[a-z]{2}(-gov)?-[a-z]+-\d+")

#: Instance family -> accelerator id. The Price List ``GPU`` column is empty for Neuron, Gaudi
#: and Qualcomm instances and p5en's GPU name came back as "NVIDIA", so the family decides.
ACCELERATOR_FAMILIES: dict[str, str] = {
    "p4d": "nvidia-a100-40gb",
    "p4de": "nvidia-a100-80gb",
    "p5": "nvidia-h100-sxm-80gb",
    "p5e": "nvidia-h200-141gb",
    "p5en": "nvidia-h200-141gb",
    "p6-b200": "nvidia-b200-180gb",
    "g5": "nvidia-a10g-24gb",
    "g6": "nvidia-l4-24gb",
    "g6e": "nvidia-l40s-48gb",
    "dl1": "intel-gaudi1-32gb",
    "dl2q": "qualcomm-ai100-std",
    "inf2": "aws-inferentia2",
    "trn1": "aws-trainium1",
    "trn1n": "aws-trainium1",
    "trn2": "aws-trainium2",
}
#: Accelerators per instance where the Price List has no (or no trustworthy) GPU count; from the
#: AWS instance-type pages (inf2, trn1, trn2, dl1, dl2q, p4, p5).
STATIC_ACCELERATOR_COUNTS: dict[str, int] = {
    "inf2.xlarge": 1,
    "inf2.8xlarge": 1,
    "inf2.24xlarge": 6,
    "inf2.48xlarge": 12,
    "trn1.2xlarge": 1,
    "trn1.32xlarge": 16,
    "trn1n.32xlarge": 16,
    "trn2.3xlarge": 1,
    "trn2.48xlarge": 16,
    "dl1.24xlarge": 8,
    "dl2q.24xlarge": 8,
    "p4d.24xlarge": 8,
    "p4de.24xlarge": 8,
    "p5.4xlarge": 1,
    "p5.48xlarge": 8,
    "p5e.48xlarge": 8,
    "p5en.48xlarge": 8,
    "p6-b200.48xlarge": 8,
}


@dataclass(frozen=True)
class CpuFamily:
    accelerator_id: str
    #: vCPUs of one full socket; accelerator_count = vcpus // this (0 = less than one socket).
    vcpus_per_socket: int


#: CPU-fallback families. c7i/m7i/r7i and Graviton4 hosts are two sockets of 96 vCPUs (so the
#: 48xlarge is the full host = 2, the 24xlarge = 1); c8i's full two-socket host is the 96xlarge.
CPU_FAMILIES: dict[str, CpuFamily] = {
    "c7i": CpuFamily("cpu-intel-spr-amx", 96),
    "m7i": CpuFamily("cpu-intel-spr-amx", 96),
    "r7i": CpuFamily("cpu-intel-spr-amx", 96),
    "c8i": CpuFamily("cpu-intel-gnr-amx", 192),
    "c8g": CpuFamily("cpu-aws-graviton4", 96),
    "m8g": CpuFamily("cpu-aws-graviton4", 96),
}
ALL_FAMILIES: tuple[str, ...] = tuple(ACCELERATOR_FAMILIES) + tuple(CPU_FAMILIES)

_PERMISSION_FIX = (
    "add it to the IAM policy of the identity boto3 resolves, or use --provider aws-bulk"
)
_DENIED_CODES = {"AccessDenied", "AccessDeniedException", "UnauthorizedOperation"}
#: EC2 answers these in regions the account has not opted into: skip the region, report it.
_NOT_OPTED_IN_CODES = {"AuthFailure", "OptInRequired"}


def family_of(instance_type: str) -> str:
    return instance_type.split(".", 1)[0]


def accelerator_for(
    instance_type: str, gpu_column: str | None, vcpus: int | None
) -> tuple[str, int] | None:
    """(accelerator id, count) for an instance type, or None when it is not one we price."""
    family = family_of(instance_type)
    if family in ACCELERATOR_FAMILIES:
        count = STATIC_ACCELERATOR_COUNTS.get(instance_type)
        if count is None and gpu_column and gpu_column.strip().isdigit():
            count = int(gpu_column.strip())
        if not count:
            return None
        return ACCELERATOR_FAMILIES[family], count
    if family in CPU_FAMILIES:
        if not vcpus:
            return None
        spec = CPU_FAMILIES[family]
        return spec.accelerator_id, vcpus // spec.vcpus_per_socket
    return None


def parse_memory_gib(text: str | None) -> float | None:
    """'2,048 GiB' / '16 GiB' -> 2048.0 / 16.0; None for 'NA' or empty."""
    if not text:
        return None
    match = re.match(r"\s*([\d,.]+)\s*GiB", text)
    if not match:
        return None
    value = float(match.group(1).replace(",", ""))
    return value if value > 0 else None


def _int_or_none(text: Any) -> int | None:
    try:
        value = int(str(text).replace(",", ""))
    except (TypeError, ValueError):
        return None
    return value if value > 0 else None


# -- pure parsing --------------------------------------------------------------------------


def _usd(dimension: dict[str, Any]) -> float:
    return float(dimension.get("pricePerUnit", {}).get("USD", "nan"))


# Long by design: one filter-then-price pass per Price List entry, each ``continue`` a rule for
# which entries are not an instance quote; split, the order of those rules (which is the
# behaviour) would be read across functions.
def parse_price_list(
    price_list: Iterable[str | dict[str, Any]], observed_at: datetime
) -> tuple[ProviderResult, dict[tuple[str, str], InstanceShape]]:
    """Turn Pricing API ``PriceList`` entries into on-demand and reserved quotes.

    Reserved prices become an effective hourly rate: upfront fee amortised over the term
    (8760 h for 1yr, 26280 h for 3yr) plus the recurring hourly fee. Of the standard offerings
    the cheapest effective rate is kept, and its purchase option is named in ``notes``.
    A $0 on-demand row (capacity-block or reservation-only SKU) is skipped and reported.
    Returns the result and the instance shapes seen per (region, instance type).
    """
    result = ProviderResult()
    shapes: dict[tuple[str, str], InstanceShape] = {}
    seen: set[tuple[str, str, PricingModel]] = set()
    for raw in price_list:
        item = json.loads(raw) if isinstance(raw, str) else raw
        product = item.get("product", {})
        attrs = product.get("attributes", {})
        instance_type = attrs.get("instanceType", "")
        region = attrs.get("regionCode", "")
        what = f"{instance_type or product.get('sku', '?')} {region}".strip()
        if product.get("productFamily") != "Compute Instance" or not instance_type or not region:
            continue
        if "BoxUsage" not in attrs.get("usagetype", "BoxUsage"):
            continue
        if (
            attrs.get("operatingSystem") != "Linux"
            or attrs.get("tenancy") != "Shared"
            or attrs.get("preInstalledSw", "NA") not in ("NA", "")
            or attrs.get("capacitystatus", "Used") != "Used"
        ):
            continue
        if attrs.get("marketoption", "OnDemand") != "OnDemand":
            result.skipped.append(
                SkippedItem(
                    what, f"market option {attrs.get('marketoption')}: not an on-demand SKU"
                )
            )
            continue
        vcpus = _int_or_none(attrs.get("vcpu"))
        accel = accelerator_for(instance_type, attrs.get("gpu"), vcpus)
        if accel is None:
            if family_of(instance_type) in ALL_FAMILIES:
                result.skipped.append(
                    SkippedItem(
                        what, "accelerator count unknown (no GPU column and no static count)"
                    )
                )
            continue
        shape = InstanceShape(
            instance_type, accel[0], accel[1], vcpus, parse_memory_gib(attrs.get("memory"))
        )
        shapes[(region, instance_type)] = shape
        terms = item.get("terms", {})

        def emit(
            model: PricingModel,
            usd: float,
            notes: str,
            shape: InstanceShape = shape,
            region: str = region,
        ) -> None:
            key = (region, shape.instance_type, model)
            if key in seen:
                result.skipped.append(
                    SkippedItem(f"{shape.instance_type} {region} {model}", "duplicate SKU")
                )
                return
            seen.add(key)
            result.quotes.append(
                shape.quote(
                    provider=PROVIDER,
                    region=region,
                    pricing_model=model,
                    usd_per_hour=usd,
                    source=SOURCE_API,
                    source_url=PRICING_API_URL,
                    observed_at=observed_at,
                    notes=notes,
                )
            )

        for offer in terms.get("OnDemand", {}).values():
            hourly = [
                d for d in offer.get("priceDimensions", {}).values() if d.get("unit") == "Hrs"
            ]
            if not hourly:
                continue
            usd = _usd(hourly[0])
            if not usd > 0:
                result.skipped.append(
                    SkippedItem(
                        what, "$0 on-demand price: sold only as capacity blocks or reservations"
                    )
                )
                continue
            emit(PricingModel.ON_DEMAND, usd, "")

        best: dict[PricingModel, tuple[float, str]] = {}
        for offer in terms.get("Reserved", {}).values():
            term = offer.get("termAttributes", {})
            if term.get("OfferingClass", "standard") != "standard":
                continue
            lease = term.get("LeaseContractLength")
            model, hours = {
                "1yr": (PricingModel.RESERVED_1Y, HOURS_1Y),
                "3yr": (PricingModel.RESERVED_3Y, HOURS_3Y),
            }.get(lease, (None, 0))
            if model is None:
                continue
            upfront = hourly_fee = 0.0
            for dim in offer.get("priceDimensions", {}).values():
                if dim.get("unit") == "Quantity":
                    upfront += _usd(dim)
                elif dim.get("unit") == "Hrs":
                    hourly_fee += _usd(dim)
            effective = hourly_fee + upfront / hours
            if not effective > 0:
                continue
            option = term.get("PurchaseOption", "?")
            note = (
                f"standard RI {lease} {option}: ${upfront:g} upfront / {hours} h"
                f" + ${hourly_fee:g}/h = effective hourly"
            )
            if model not in best or effective < best[model][0]:
                best[model] = (effective, note)
        for model, (effective, note) in sorted(best.items()):
            emit(model, effective, note)
    return result, shapes


def parse_spot_history(
    entries: Iterable[dict[str, Any]],
    region: str,
    shapes: dict[str, InstanceShape],
) -> list[PriceQuote]:
    """Reduce DescribeSpotPriceHistory entries to one spot quote per instance type.

    The latest reading per availability zone is kept; the quote's price is the median across
    AZs (what a launch anywhere in the region can expect) with the minimum, its AZ, the AZ count
    and the reading time in ``notes``. ``observed_at`` is the newest reading.
    """
    latest: dict[tuple[str, str], tuple[datetime, float]] = {}
    for entry in entries:
        if entry.get("ProductDescription", "Linux/UNIX") != "Linux/UNIX":
            continue
        key = (entry["InstanceType"], entry["AvailabilityZone"])
        stamp = entry["Timestamp"]
        price = float(entry["SpotPrice"])
        if key not in latest or stamp > latest[key][0]:
            latest[key] = (stamp, price)
    per_type: dict[str, list[tuple[str, datetime, float]]] = defaultdict(list)
    for (instance_type, zone), (stamp, price) in latest.items():
        if price > 0:
            per_type[instance_type].append((zone, stamp, price))
    quotes = []
    for instance_type, readings in sorted(per_type.items()):
        shape = shapes.get(instance_type)
        if shape is None:
            continue
        prices = [p for _, _, p in readings]
        min_zone, _, min_price = min(readings, key=lambda r: r[2])
        read_at = max(s for _, s, _ in readings)
        median = statistics.median(prices)
        quotes.append(
            PriceQuote(
                provider=PROVIDER,
                region=region,
                instance_type=instance_type,
                accelerator_id=shape.accelerator_id,
                accelerator_count=shape.accelerator_count,
                vcpus=shape.vcpus,
                memory_gib=shape.memory_gib,
                pricing_model=PricingModel.SPOT,
                usd_per_hour=round(median, 6),
                source=SOURCE_SPOT,
                source_url=SPOT_DOC_URL,
                observed_at=read_at,
                confidence="medium",
                notes=(
                    f"median of {len(prices)} AZ(s); min ${min_price:g} in {min_zone};"
                    f" read at {read_at.isoformat()}"
                ),
            )
        )
    return quotes


# -- thin network calls --------------------------------------------------------------------


def _error_code(exc: Exception) -> str:
    response = getattr(exc, "response", None) or {}
    return str(response.get("Error", {}).get("Code", ""))


def price_list_filters(region: str, family: str) -> list[dict[str, str]]:
    return [
        {"Type": "TERM_MATCH", "Field": "regionCode", "Value": region},
        {"Type": "TERM_MATCH", "Field": "operatingSystem", "Value": "Linux"},
        {"Type": "TERM_MATCH", "Field": "tenancy", "Value": "Shared"},
        {"Type": "TERM_MATCH", "Field": "preInstalledSw", "Value": "NA"},
        {"Type": "TERM_MATCH", "Field": "capacitystatus", "Value": "Used"},
        # "p5." matches p5.4xlarge and p5.48xlarge but not p5en.48xlarge.
        {"Type": "CONTAINS", "Field": "instanceType", "Value": f"{family}."},
    ]


def fetch_price_list(pricing_client: Any, region: str, families: Sequence[str]) -> list[str]:
    """All PriceList JSON strings for ``families`` in ``region`` (follows NextToken)."""
    from botocore.exceptions import ClientError

    items: list[str] = []
    paginator = pricing_client.get_paginator("get_products")
    for family in families:
        try:
            for page in paginator.paginate(
                ServiceCode="AmazonEC2",
                Filters=price_list_filters(region, family),
                FormatVersion="aws_v1",
            ):
                items.extend(page.get("PriceList", []))
        except ClientError as exc:
            if _error_code(exc) in _DENIED_CODES:
                raise PermissionDeniedError(
                    "aws", "pricing:GetProducts", _error_code(exc), _PERMISSION_FIX
                ) from exc
            raise
    return items


def fetch_spot_history(ec2_client: Any, instance_types: Sequence[str], now: datetime) -> list[dict]:
    """Latest spot prices for ``instance_types`` in the client's region, one entry per AZ."""
    from botocore.exceptions import ClientError

    entries: list[dict] = []
    paginator = ec2_client.get_paginator("describe_spot_price_history")
    try:
        for page in paginator.paginate(
            InstanceTypes=list(instance_types),
            ProductDescriptions=["Linux/UNIX"],
            StartTime=now,
        ):
            entries.extend(page.get("SpotPriceHistory", []))
    except ClientError as exc:
        if _error_code(exc) in _DENIED_CODES:
            raise PermissionDeniedError(
                "aws", "ec2:DescribeSpotPriceHistory", _error_code(exc), _PERMISSION_FIX
            ) from exc
        raise
    return entries


def default_botocore_config() -> Any:
    from botocore.config import Config

    # A dead regional endpoint must not stall a refresh: short connect timeout, few attempts.
    return Config(
        connect_timeout=5, read_timeout=30, retries={"max_attempts": 3, "mode": "standard"}
    )


def fetch_aws(
    regions: Sequence[str] | None = None,
    *,
    session: Any = None,
    families: Sequence[str] = ALL_FAMILIES,
    progress: RegionProgress = no_progress,
    now: datetime | None = None,
    botocore_config: Any = None,
    pricing_client: Any = None,
    ec2_client_for: Any = None,
) -> ProviderResult:
    """On-demand, reserved 1y/3y and spot quotes for ``regions``.

    ``session`` defaults to a boto3 Session on the default credential chain. Tests may pass
    ``pricing_client`` and ``ec2_client_for(region)`` (stubbed clients) instead.
    Raises PermissionDeniedError when the Pricing API is denied (nothing can be priced);
    per-region failures end up in ``region_errors``.
    """
    from botocore.exceptions import BotoCoreError, ClientError

    now = now or utcnow()
    wanted = filter_regions(regions, DEFAULT_REGIONS, REGION_PATTERN)
    if not wanted:
        return ProviderResult()
    config = botocore_config or default_botocore_config()
    if pricing_client is None or ec2_client_for is None:
        import boto3

        session = session or boto3.session.Session()
        if session.get_credentials() is None:
            raise MissingCredentialsError(
                "aws: no credentials in boto3's default chain (AWS_PROFILE, AWS_ACCESS_KEY_ID/"
                "AWS_SECRET_ACCESS_KEY, ~/.aws/config, SSO or an instance role); the caller needs"
                " pricing:GetProducts and ec2:DescribeSpotPriceHistory, or use --provider aws-bulk"
            )
        if pricing_client is None:
            pricing_client = session.client(
                "pricing", region_name=PRICING_ENDPOINT_REGION, config=config
            )
        if ec2_client_for is None:

            def ec2_client_for(region: str) -> Any:
                return session.client("ec2", region_name=region, config=config)

    result = ProviderResult()
    for index, region in enumerate(wanted, start=1):
        try:
            items = fetch_price_list(pricing_client, region, families)
            parsed, shapes = parse_price_list(items, now)
        except PermissionDeniedError:
            raise
        except (ClientError, BotoCoreError, ValueError) as exc:
            result.region_errors[region] = f"pricing:GetProducts failed: {exc}"
            progress(region, index, len(wanted), "failed")
            continue
        spot: list[PriceQuote] = []
        types = sorted({t for (r, t) in shapes if r == region})
        if types:
            try:
                entries = fetch_spot_history(ec2_client_for(region), types, now)
                spot = parse_spot_history(
                    entries, region, {t: s for (r, t), s in shapes.items() if r == region}
                )
            except PermissionDeniedError as exc:
                result.region_errors[region] = str(exc)
            except ClientError as exc:
                if _error_code(exc) in _NOT_OPTED_IN_CODES:
                    result.skipped.append(
                        SkippedItem(
                            region, f"{_error_code(exc)}: region not enabled for this account"
                        )
                    )
                    progress(region, index, len(wanted), "skipped (not opted in)")
                    continue
                result.region_errors[region] = f"ec2:DescribeSpotPriceHistory failed: {exc}"
            except (BotoCoreError, ValueError) as exc:
                result.region_errors[region] = f"ec2:DescribeSpotPriceHistory failed: {exc}"
        # Defensive: a regionCode filter should only return this region; keep only it.
        result.quotes.extend(q for q in parsed.quotes if q.region == region)
        result.quotes.extend(spot)
        result.skipped.extend(parsed.skipped)
        progress(region, index, len(wanted), f"{len(parsed.quotes) + len(spot)} prices")
    return result
