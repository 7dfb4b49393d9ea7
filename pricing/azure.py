"""Azure VM prices from the public Retail Prices REST API (no authentication).

``GET https://prices.azure.com/api/retail/prices?api-version=2023-01-01-preview&$filter=...``
returns ``{"Items": [...], "NextPageLink": url | null, "Count": n}``. We query per region and
price type for the accelerator sizes we know, follow ``NextPageLink``, and on HTTP 429 wait for
``Retry-After`` (or back off exponentially) and retry.

Rules (from the API's behaviour, not its docs alone): Windows products (``Windows`` or the
``' Win'`` spelling some GPU series use) and Cloud Services are dropped; ``Low Priority`` meters
are dropped; a meter is spot when ``Spot`` appears in ``skuName`` or ``meterName``; reservation
rows are term totals and become hourly (1 Year / 8760, 3 Years / 26280); ``savingsPlan`` entries
(preview api-version only) are already hourly. The SKU API lacks a GPU count for MI300X, so the
counts below are supplied here.
"""

from __future__ import annotations

import email.utils
import math
import re
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import httpx

from pricing.provider import (
    HOURS_1Y,
    HOURS_3Y,
    InstanceShape,
    ProviderResult,
    RegionProgress,
    SkippedItem,
    filter_regions,
    no_progress,
    utcnow,
)
from tokendesk.records import PricingModel

PROVIDER = "azure"
SOURCE = "azure-retail-prices-api"
API_URL = "https://prices.azure.com/api/retail/prices"
API_VERSION = "2023-01-01-preview"
DEFAULT_REGIONS = (
    "eastus",
    "eastus2",
    "southcentralus",
    "westus3",
    "northcentralus",
    "swedencentral",
    "westeurope",
)
REGION_PATTERN = re.compile(r"[a-z][a-z0-9]+")
MAX_RETRIES = 5
#: Used when a 429 carries no Retry-After: 1, 2, 4, 8, 16 s.
BACKOFF_BASE_S = 1.0
MAX_PAGES = 200
#: The longest Retry-After honoured; a longer one skips the region (reported), it never hangs.
MAX_RETRY_AFTER_S = 60.0
#: All waiting (Retry-After and backoff) one refresh may do, and its wall-clock deadline.
MAX_TOTAL_WAIT_S = 180.0
REFRESH_DEADLINE_S = 900.0


@dataclass
class WaitBudget:
    """How long one refresh may wait on the service: per wait, in total, and by the clock."""

    deadline_s: float = REFRESH_DEADLINE_S
    max_total_wait_s: float = MAX_TOTAL_WAIT_S
    clock: Callable[[], float] = time.monotonic
    waited_s: float = 0.0
    started: float | None = None

    def check_deadline(self) -> None:
        if self.started is None:
            self.started = self.clock()
        if self.clock() - self.started > self.deadline_s:
            raise AzurePageError(
                f"the refresh deadline ({self.deadline_s:.0f} s) passed; region skipped,"
                " run the refresh again later"
            )

    def wait(self, seconds: float, sleep: Callable[[float], None], why: str) -> None:
        if seconds > MAX_RETRY_AFTER_S:
            raise AzurePageError(
                f"{why}: the service asked to wait {seconds:.0f} s, over the"
                f" {MAX_RETRY_AFTER_S:.0f} s cap; region skipped, run the refresh again later"
            )
        if self.waited_s + seconds > self.max_total_wait_s:
            raise AzurePageError(
                f"{why}: waiting {seconds:.0f} s more would pass this refresh's"
                f" {self.max_total_wait_s:.0f} s waiting budget; region skipped"
            )
        self.waited_s += seconds
        sleep(seconds)


@dataclass(frozen=True)
class AzureSize:
    accelerator_id: str
    accelerator_count: int
    vcpus: int
    memory_gib: float


#: armSkuName -> shape, from the Azure VM size pages (ND H100 v5, ND H200 v5, ND MI300X v5,
#: NC A100 v4 (A100 80GB PCIe cards), NC H100 v5 (H100 NVL), ND A100 v4 (SXM4 modules)).
SIZES: dict[str, AzureSize] = {
    "Standard_ND96isr_H100_v5": AzureSize("nvidia-h100-sxm-80gb", 8, 96, 1900),
    "Standard_ND96is_H100_v5": AzureSize("nvidia-h100-sxm-80gb", 8, 96, 1900),
    "Standard_ND96isr_H200_v5": AzureSize("nvidia-h200-141gb", 8, 96, 1850),
    "Standard_ND96isr_MI300X_v5": AzureSize("amd-mi300x-192gb", 8, 96, 1850),
    "Standard_ND96is_MI300X_v5": AzureSize("amd-mi300x-192gb", 8, 96, 1850),
    "Standard_NC24ads_A100_v4": AzureSize("nvidia-a100-pcie-80gb", 1, 24, 220),
    "Standard_NC48ads_A100_v4": AzureSize("nvidia-a100-pcie-80gb", 2, 48, 440),
    "Standard_NC96ads_A100_v4": AzureSize("nvidia-a100-pcie-80gb", 4, 96, 880),
    "Standard_ND96asr_v4": AzureSize("nvidia-a100-40gb", 8, 96, 900),
    "Standard_ND96amsr_A100_v4": AzureSize("nvidia-a100-80gb", 8, 96, 1900),
    "Standard_NC40ads_H100_v5": AzureSize("nvidia-h100-nvl-94gb", 1, 40, 320),
    "Standard_NC80adis_H100_v5": AzureSize("nvidia-h100-nvl-94gb", 2, 80, 640),
}
_RESERVATION_HOURS = {
    "1 Year": (PricingModel.RESERVED_1Y, HOURS_1Y),
    "3 Years": (PricingModel.RESERVED_3Y, HOURS_3Y),
}
_SAVINGS_PLAN = {"1 Year": PricingModel.SAVINGS_PLAN_1Y, "3 Years": PricingModel.SAVINGS_PLAN_3Y}


def region_filter(region: str, price_type: str, sizes: Iterable[str]) -> str:
    # Filter values are case-sensitive on this api-version: armRegionName is lower case.
    names = " or ".join(f"armSkuName eq '{name}'" for name in sorted(sizes))
    return (
        f"serviceName eq 'Virtual Machines' and armRegionName eq '{region.lower()}'"
        f" and priceType eq '{price_type}' and ({names})"
    )


def is_windows(product: str) -> bool:
    """Whether a Retail Prices product name is a Windows (licensed) meter, not the Linux price."""
    return "Windows" in product or " Win" in product or "Cloud Services" in product


def parse_items(items: Iterable[dict[str, Any]], observed_at: datetime) -> ProviderResult:
    """Retail Prices ``Items`` -> quotes (Linux only; spot, reservations and savings plans hourly)."""
    result = ProviderResult()
    seen: set[tuple[str, str, PricingModel]] = set()

    def emit(
        item: dict[str, Any], size: AzureSize, model: PricingModel, usd: float, notes: str
    ) -> None:
        region = str(item.get("armRegionName", "")).lower()
        key = (region, item["armSkuName"], model)
        if key in seen:
            return
        seen.add(key)
        result.quotes.append(
            InstanceShape(
                item["armSkuName"],
                size.accelerator_id,
                size.accelerator_count,
                size.vcpus,
                size.memory_gib,
            ).quote(
                provider=PROVIDER,
                region=region,
                pricing_model=model,
                usd_per_hour=usd,
                source=SOURCE,
                source_url=API_URL,
                observed_at=observed_at,
                notes=notes,
            )
        )

    for item in items:
        sku_name = str(item.get("armSkuName", ""))
        size = SIZES.get(sku_name)
        if size is None:
            continue
        product = str(item.get("productName", ""))
        meter = f"{item.get('skuName', '')} {item.get('meterName', '')}"
        what = f"{sku_name} {item.get('armRegionName', '')} {item.get('skuName', '')}".strip()
        if is_windows(product) or "Low Priority" in meter:
            continue
        if item.get("isPrimaryMeterRegion") is False:
            continue
        if item.get("currencyCode", "USD") != "USD":
            continue
        price = float(item.get("retailPrice") or 0.0)
        spot = "Spot" in meter
        if item.get("type") == "Reservation":
            term = item.get("reservationTerm", "")
            if term not in _RESERVATION_HOURS or spot:
                continue
            if price <= 0:
                result.skipped.append(SkippedItem(what, "reservation without a price"))
                continue
            model, hours = _RESERVATION_HOURS[term]
            emit(
                item,
                size,
                model,
                price / hours,
                f"reservation {term}: ${price:g} total / {hours} h",
            )
            continue
        if (
            item.get("type", "Consumption") != "Consumption"
            or item.get("unitOfMeasure", "1 Hour") != "1 Hour"
        ):
            continue
        if price <= 0:
            result.skipped.append(SkippedItem(what, "no price (preview size or $0 meter)"))
            continue
        emit(item, size, PricingModel.SPOT if spot else PricingModel.ON_DEMAND, price, "")
        if not spot:
            for plan in item.get("savingsPlan") or []:
                plan_model = _SAVINGS_PLAN.get(plan.get("term", ""))
                rate = float(plan.get("retailPrice") or plan.get("unitPrice") or 0.0)
                if plan_model and rate > 0:
                    emit(item, size, plan_model, rate, f"savings plan {plan['term']} hourly rate")
    return result


class AzurePageError(RuntimeError):
    pass


def fetch_pages(
    client: httpx.Client,
    url: str,
    params: dict[str, str] | None,
    *,
    sleep: Callable[[float], None] = time.sleep,
    budget: WaitBudget | None = None,
) -> list[dict[str, Any]]:
    """All items from ``url``, following NextPageLink; retries 429 honouring Retry-After up to
    ``MAX_RETRY_AFTER_S`` and within the refresh's ``budget``."""
    budget = budget or WaitBudget()
    items: list[dict[str, Any]] = []
    next_url: str | None = url
    pages = 0
    while next_url:
        pages += 1
        if pages > MAX_PAGES:
            raise AzurePageError(f"more than {MAX_PAGES} pages; refusing to walk further")
        response = _get_with_retry(client, next_url, params, sleep, budget)
        params = None  # NextPageLink already carries the query
        try:
            payload = response.json()
        except ValueError as exc:
            raise AzurePageError(f"page {pages} is not valid JSON ({exc})") from exc
        if not isinstance(payload, dict) or not isinstance(payload.get("Items"), list):
            raise AzurePageError(f"page {pages} has no 'Items' list")
        items.extend(payload["Items"])
        next_url = payload.get("NextPageLink") or None
    return items


def _retry_after_s(response: httpx.Response, attempt: int) -> float:
    """Seconds the service asks us to wait: delta-seconds or an HTTP date; backoff otherwise."""
    header = response.headers.get("Retry-After", "").strip()
    try:
        value = float(header)
        if math.isfinite(value):
            return max(0.0, value)
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(header)
    except (TypeError, ValueError, IndexError):
        return BACKOFF_BASE_S * (2**attempt)
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - datetime.now(UTC)).total_seconds())


def _get_with_retry(
    client: httpx.Client,
    url: str,
    params: dict[str, str] | None,
    sleep: Callable[[float], None],
    budget: WaitBudget,
) -> httpx.Response:
    for attempt in range(MAX_RETRIES + 1):
        budget.check_deadline()
        response = client.get(url, params=params)
        if response.status_code == 429 and attempt < MAX_RETRIES:
            budget.wait(_retry_after_s(response, attempt), sleep, "rate limited (HTTP 429)")
            continue
        if response.status_code >= 500 and attempt < MAX_RETRIES:
            budget.wait(
                BACKOFF_BASE_S * (2**attempt), sleep, f"server error (HTTP {response.status_code})"
            )
            continue
        response.raise_for_status()
        return response
    raise AzurePageError("unreachable")  # pragma: no cover


def fetch_azure(
    regions: Sequence[str] | None = None,
    *,
    client: httpx.Client | None = None,
    sizes: Iterable[str] = tuple(SIZES),
    progress: RegionProgress = no_progress,
    now: datetime | None = None,
    sleep: Callable[[float], None] = time.sleep,
    budget: WaitBudget | None = None,
) -> ProviderResult:
    now = now or utcnow()
    budget = budget or WaitBudget()
    wanted = filter_regions(regions, DEFAULT_REGIONS, REGION_PATTERN)
    sizes = tuple(sizes)
    owns = client is None
    client = client or httpx.Client(timeout=httpx.Timeout(30.0, connect=10.0))
    result = ProviderResult()
    try:
        for index, region in enumerate(wanted, start=1):
            items: list[dict[str, Any]] = []
            try:
                for price_type in ("Consumption", "Reservation"):
                    items.extend(
                        fetch_pages(
                            client,
                            API_URL,
                            {
                                "api-version": API_VERSION,
                                "$filter": region_filter(region, price_type, sizes),
                            },
                            sleep=sleep,
                            budget=budget,
                        )
                    )
            except (httpx.HTTPError, AzurePageError) as exc:
                result.region_errors[region] = f"{type(exc).__name__}: {exc}"
                progress(region, index, len(wanted), "failed")
                continue
            if not items:  # an unknown or empty region: say so, never a silent "nothing to do"
                result.skipped.append(
                    SkippedItem(region, "the price API returned no items; check the region name")
                )
            parsed = parse_items(items, now)
            result.quotes.extend(parsed.quotes)
            result.skipped.extend(parsed.skipped)
            progress(region, index, len(wanted), f"{len(parsed.quotes)} prices")
    finally:
        if owns:
            client.close()
    return result
