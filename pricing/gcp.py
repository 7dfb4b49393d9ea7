"""GCP Compute Engine prices: Cloud Billing Catalog SKUs composed onto machine types.

GCP prices components, not machine types. An instance's hourly price is
``vCPUs x core SKU + GiB x RAM SKU + GPUs x GPU SKU (+ bundled local SSD)``, except
per-GPU-slice families (A4: the slice SKU already includes host CPU and RAM) and TPUs
(priced per chip-hour, so quoted with ``price_basis=per_accelerator``).

Pricing models: usage type ``OnDemand`` -> on-demand (or spot when the description says
"Preemptible": TPU spot SKUs are filed as OnDemand), ``Preemptible`` -> spot, ``Commit1Yr`` /
``Commit3Yr`` -> committed-use 1y/3y. A3 Ultra (H200), A4 (B200) and A3 High below 8 GPUs carry
on-demand SKUs but are not sold on demand, so they get no on-demand quote (reported instead).

Credentials come from google-auth's application-default chain. The catalog needs a project with
the Cloud Billing API enabled (``cloudbilling.services.list`` / ``billing.skus``); machine types
need ``compute.machineTypes.list``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pricing.provider import (
    MissingCredentialsError,
    PermissionDeniedError,
    ProviderResult,
    RegionProgress,
    SkippedItem,
    no_progress,
    utcnow,
)
from tokendesk.records import PriceBasis, PriceQuote, PricingModel

# The google-cloud clients are imported inside the functions that call them, a measured start-up
# cost: `import google.cloud.compute_v1` takes about 2.7 s and billing_v1 about 0.6 s on the dev box,
# which every `tokendesk` command and the dashboard would otherwise pay for one provider's fetch.

PROVIDER = "gcp"
SOURCE = "gcp-cloud-billing-catalog"
COMPUTE_SERVICE = "services/6F81-5844-456A"
SOURCE_URL = f"https://cloudbilling.googleapis.com/v1/{COMPUTE_SERVICE}/skus"
REGION_PATTERN = re.compile(r"[a-z]+-[a-z]+\d+")
#: Billing convention for monthly-priced storage.
HOURS_PER_MONTH = 730

#: guestAcceleratorType -> (accelerator id, GPU SKU key).
ACCELERATOR_TYPES: dict[str, tuple[str, str]] = {
    "nvidia-tesla-a100": ("nvidia-a100-40gb", "a100"),
    "nvidia-a100-80gb": ("nvidia-a100-80gb", "a100-80gb"),
    "nvidia-h100-80gb": ("nvidia-h100-sxm-80gb", "h100"),
    "nvidia-h100-mega-80gb": ("nvidia-h100-sxm-80gb", "h100-mega"),
    "nvidia-h200-141gb": ("nvidia-h200-141gb", "h200"),
    "nvidia-l4": ("nvidia-l4-24gb", "l4"),
    "nvidia-b200": ("nvidia-b200-180gb", "b200"),
}
#: Machine series priced whole-instance; C3 is the Sapphire Rapids (AMX) CPU-fallback series.
GPU_SERIES = ("a2", "a3", "a3-megagpu", "a3-ultragpu", "a3-edgegpu", "a4", "g2")
#: Per-GPU-slice series: the slice SKU covers one GPU plus its share of the host.
SLICE_SERIES = ("a4",)
CPU_SERIES: dict[str, tuple[str, int]] = {
    # series -> (accelerator id, vCPUs per socket): c3-standard-176 is the full 2-socket host.
    "c3": ("cpu-intel-spr-amx", 88),
}
#: Bundled local SSD (GiB) for machine types that always come with it.
LOCAL_SSD_GIB: dict[str, int] = {
    "a3-highgpu-8g": 16 * 375,
    "a3-megagpu-8g": 16 * 375,
    "a2-ultragpu-1g": 375,
    "a2-ultragpu-2g": 2 * 375,
    "a2-ultragpu-4g": 4 * 375,
    "a2-ultragpu-8g": 8 * 375,
}
TPU_ACCELERATORS = {"v5e": "google-tpu-v5e", "v5p": "google-tpu-v5p", "v6e": "google-tpu-v6e"}
_SERIES_ALIASES = {
    "a3plus": "a3-megagpu",
    "a3mega": "a3-megagpu",
    "a3ultra": "a3-ultragpu",
    "a3edge": "a3-edgegpu",
}
_SKIP_WORDS = (
    "sole tenancy",
    "reserved",
    "premium",
    "custom",
    "suspended",
    "dws",
    "calendar",
    "flex",
)
_COMPONENT = re.compile(
    r"^(?:commitment(?: v\d+)?:\s*)?(?:spot preemptible |preemptible )?(?P<name>.+?)\s+"
    r"(?P<res>core|cpu|ram|gpu)\b",
    re.IGNORECASE,
)
_SLICE = re.compile(
    r"^(?:commitment(?: v\d+)?:\s*)?(?:spot preemptible |preemptible )?(?P<name>.+?)\s*\(1 gpu slice\)",
    re.IGNORECASE,
)
_TPU = re.compile(r"\btpu[-\s]?(?:v)?(?P<ver>5e|5p|6e|5\s?lite(?:pod)?)\b", re.IGNORECASE)


def not_sold_on_demand(machine_type: str) -> bool:
    """A3 Ultra, A4 and A3 High with fewer than 8 GPUs: spot, DWS or reservation only."""
    return (
        machine_type.startswith(("a3-ultragpu-", "a4-"))
        or re.fullmatch(r"a3-highgpu-[124]g", machine_type) is not None
    )


def series_of(machine_type: str) -> str:
    for multi in ("a3-megagpu", "a3-ultragpu", "a3-edgegpu"):
        if machine_type.startswith(multi):
            return multi
    return machine_type.split("-", 1)[0]


def _gpu_key(name: str) -> str | None:
    tokens = set(name.lower().replace("nvidia", " ").replace("tesla", " ").split())
    if "h100" in tokens:
        return "h100-mega" if tokens & {"mega", "plus"} else "h100"
    if "h200" in tokens:
        return "h200"
    if "b200" in tokens:
        return "b200"
    if "a100" in tokens:
        return "a100-80gb" if "80gb" in tokens else "a100"
    if "l4" in tokens:
        return "l4"
    return None


def _series_key(name: str) -> str | None:
    compact = name.lower().replace(" instance", "").replace(" ", "")
    if compact in _SERIES_ALIASES:
        return _SERIES_ALIASES[compact]
    match = re.fullmatch(r"([a-z]\d[a-z]?)", compact)
    return match.group(1) if match else None


def _model_for(usage_type: str, description: str) -> PricingModel | None:
    if usage_type == "OnDemand":
        return PricingModel.SPOT if "preemptible" in description.lower() else PricingModel.ON_DEMAND
    return {
        "Preemptible": PricingModel.SPOT,
        "Commit1Yr": PricingModel.COMMITTED_USE_1Y,
        "Commit3Yr": PricingModel.COMMITTED_USE_3Y,
    }.get(usage_type)


def _unit_price(sku: dict[str, Any]) -> tuple[float, str] | None:
    infos = sku.get("pricing_info") or []
    if not infos:
        return None
    expression = infos[0].get("pricing_expression", {})
    rates = expression.get("tiered_rates") or []
    if not rates:
        return None
    # Tiered SKUs start with a free tier at 0; the last tier is the marginal rate.
    price = rates[-1].get("unit_price", {})
    value = int(price.get("units", 0) or 0) + int(price.get("nanos", 0) or 0) / 1e9
    return value, expression.get("usage_unit", "")


@dataclass
class ComponentPrices:
    """(kind, key, region, model) -> USD per unit-hour, where kind is core/ram/gpu/slice/ssd/tpu."""

    table: dict[tuple[str, str, str, PricingModel], float]

    def get(self, kind: str, key: str, region: str, model: PricingModel) -> float | None:
        return self.table.get((kind, key, region, model))


def index_skus(skus: Iterable[dict[str, Any]]) -> ComponentPrices:
    """Classify Compute Engine SKUs into per-unit component prices."""
    table: dict[tuple[str, str, str, PricingModel], float] = {}
    for sku in skus:
        category = sku.get("category", {})
        description = sku.get("description", "")
        lowered = description.lower()
        model = _model_for(category.get("usage_type", ""), description)
        if model is None or any(word in lowered for word in _SKIP_WORDS):
            continue
        priced = _unit_price(sku)
        if priced is None:
            continue
        value, unit = priced
        family = category.get("resource_family", "")
        entry: tuple[str, str] | None = None
        tpu = _TPU.search(description)
        if tpu or category.get("resource_group") == "TPU":
            if tpu is None:
                continue
            version = tpu.group("ver").lower().replace(" ", "")
            version = "v5e" if version.startswith("5lite") else f"v{version}"
            entry = ("tpu", version)
        elif family == "Storage" and lowered.startswith(("ssd backed local storage",)):
            if "spot" in lowered or "preemptible" in lowered:
                model = PricingModel.SPOT
            entry, value = ("ssd", "local"), value / HOURS_PER_MONTH
        elif family == "Compute":
            sliced = _SLICE.match(description)
            if sliced:
                key = _gpu_key(sliced.group("name"))
                entry = ("slice", key) if key else None
            else:
                match = _COMPONENT.match(description)
                if match:
                    res = match.group("res").lower()
                    if res == "gpu":
                        key = _gpu_key(match.group("name"))
                        entry = ("gpu", key) if key else None
                    else:
                        key = _series_key(match.group("name"))
                        kind = "ram" if res == "ram" else "core"
                        entry = (kind, key) if key else None
        if entry is None or unit not in ("h", "GiBy.h", "GiBy.mo", ""):
            continue
        for region in sku.get("service_regions", []):
            table.setdefault((entry[0], entry[1], region, model), value)
    return ComponentPrices(table)


# Long by design: each machine type priced per pricing model from its SKU components, then the
# TPU per-chip quotes, both writing the one result (and its skipped items) in one pass.
def parse_gcp(
    skus: Iterable[dict[str, Any]],
    machine_types: Iterable[dict[str, Any]],
    observed_at: datetime,
    regions: Sequence[str] | None = None,
) -> ProviderResult:
    """Compose instance quotes (and TPU per-chip quotes) from SKUs and machine types.

    ``skus`` are Billing Catalog ``Sku`` messages as dicts (snake_case, as ``Sku.to_dict``
    gives); ``machine_types`` are Compute ``MachineType`` messages as dicts.
    """
    prices = index_skus(skus)
    wanted = set(regions) if regions else None
    result = ProviderResult()
    models = (
        PricingModel.ON_DEMAND,
        PricingModel.SPOT,
        PricingModel.COMMITTED_USE_1Y,
        PricingModel.COMMITTED_USE_3Y,
    )
    seen: set[tuple[str, str]] = set()
    for mt in machine_types:
        name = mt.get("name", "")
        zone = str(mt.get("zone", "")).rsplit("/", 1)[-1]
        region = zone.rsplit("-", 1)[0]
        if not name or not region or (wanted and region not in wanted) or (region, name) in seen:
            continue
        series = series_of(name)
        if series not in GPU_SERIES and series not in CPU_SERIES:
            continue
        seen.add((region, name))
        vcpus = int(mt.get("guest_cpus") or 0) or None
        memory_gib = (int(mt.get("memory_mb") or 0) / 1024) or None
        accelerators = mt.get("accelerators") or []
        if series in CPU_SERIES:
            accelerator_id, per_socket = CPU_SERIES[series]
            count, gpu_key = (vcpus or 0) // per_socket, None
        else:
            if not accelerators:
                continue
            acc_type = accelerators[0].get("guest_accelerator_type", "")
            if acc_type not in ACCELERATOR_TYPES:
                result.skipped.append(
                    SkippedItem(f"{name} {region}", f"unknown accelerator {acc_type!r}")
                )
                continue
            accelerator_id, gpu_key = ACCELERATOR_TYPES[acc_type]
            count = int(accelerators[0].get("guest_accelerator_count") or 0)
        for model in models:
            if model is PricingModel.ON_DEMAND and not_sold_on_demand(name):
                result.skipped.append(
                    SkippedItem(
                        f"{name} {region}", "not sold on demand (spot, DWS or reservation only)"
                    )
                )
                continue
            usd, missing, notes = _compose(
                prices, name, series, region, model, vcpus, memory_gib, gpu_key, count
            )
            if usd is None:
                if model in (PricingModel.ON_DEMAND, PricingModel.SPOT):
                    result.skipped.append(
                        SkippedItem(f"{name} {region} {model}", f"no SKU for {missing}")
                    )
                continue
            result.quotes.append(
                PriceQuote(
                    provider=PROVIDER,
                    region=region,
                    instance_type=name,
                    accelerator_id=accelerator_id,
                    accelerator_count=count,
                    vcpus=vcpus,
                    memory_gib=round(memory_gib, 3) if memory_gib else None,
                    pricing_model=model,
                    usd_per_hour=round(usd, 6),
                    source=SOURCE,
                    source_url=SOURCE_URL,
                    observed_at=observed_at,
                    confidence="medium",
                    notes=notes,
                )
            )
    for (kind, key, region, model), usd in sorted(prices.table.items()):
        if kind != "tpu" or key not in TPU_ACCELERATORS or (wanted and region not in wanted):
            continue
        if usd <= 0:
            continue
        result.quotes.append(
            PriceQuote(
                provider=PROVIDER,
                region=region,
                instance_type=f"tpu-{key}",
                accelerator_id=TPU_ACCELERATORS[key],
                accelerator_count=1,
                pricing_model=model,
                usd_per_hour=round(usd, 6),
                price_basis=PriceBasis.PER_ACCELERATOR,
                source=SOURCE,
                source_url=SOURCE_URL,
                observed_at=observed_at,
                confidence="medium",
                notes="per chip-hour",
            )
        )
    return result


def _compose(
    prices: ComponentPrices,
    name: str,
    series: str,
    region: str,
    model: PricingModel,
    vcpus: int | None,
    memory_gib: float | None,
    gpu_key: str | None,
    gpu_count: int,
) -> tuple[float | None, str, str]:
    """(USD/h or None, the missing component, notes)."""
    if series in SLICE_SERIES:
        slice_price = prices.get("slice", gpu_key or "", region, model)
        if slice_price is None:
            return None, f"{gpu_key} GPU slice", ""
        return (
            slice_price * gpu_count,
            "",
            f"{gpu_count} x per-GPU slice (includes host CPU and RAM)",
        )
    core = prices.get("core", series, region, model)
    ram = prices.get("ram", series, region, model)
    if core is None or ram is None or not vcpus or not memory_gib:
        return None, f"{series} core/RAM", ""
    total = vcpus * core + memory_gib * ram
    parts = [f"{vcpus} vCPU x ${core:g}", f"{memory_gib:g} GiB x ${ram:g}"]
    if gpu_key:
        gpu = prices.get("gpu", gpu_key, region, model)
        if gpu is None:
            return None, f"{gpu_key} GPU", ""
        total += gpu_count * gpu
        parts.append(f"{gpu_count} GPU x ${gpu:g}")
    ssd_gib = LOCAL_SSD_GIB.get(name)
    if ssd_gib:
        # Committed-use discounts do not cover local SSD; spot has its own SSD rate.
        ssd_model = PricingModel.SPOT if model is PricingModel.SPOT else PricingModel.ON_DEMAND
        ssd = prices.get("ssd", "local", region, ssd_model) or prices.get(
            "ssd", "local", region, PricingModel.ON_DEMAND
        )
        if ssd is None:
            return None, "local SSD", ""
        total += ssd_gib * ssd
        parts.append(f"{ssd_gib} GiB local SSD")
    return total, "", " + ".join(parts)


# -- thin network calls --------------------------------------------------------------------


def _permission(permission: str, exc: Exception) -> PermissionDeniedError:
    return PermissionDeniedError(
        "gcp",
        permission,
        type(exc).__name__,
        "grant it to the application-default credentials' identity and enable the API on the project",
    )


def fetch_skus(client: Any = None) -> list[dict[str, Any]]:
    """Every Compute Engine SKU (the pager follows nextPageToken)."""
    from google.api_core import exceptions as gexc
    from google.cloud import billing_v1

    client = client or billing_v1.CloudCatalogClient()
    try:
        return [billing_v1.Sku.to_dict(sku) for sku in client.list_skus(parent=COMPUTE_SERVICE)]
    except (gexc.PermissionDenied, gexc.Forbidden, gexc.Unauthenticated) as exc:
        raise _permission(
            "cloudbilling.services.list / billing.skus (Cloud Billing API)", exc
        ) from exc


def fetch_machine_types(project: str, client: Any = None) -> list[dict[str, Any]]:
    """Machine types of every zone (aggregated list; zones that fail are reported by GCP as warnings)."""
    from google.api_core import exceptions as gexc
    from google.cloud import compute_v1

    client = client or compute_v1.MachineTypesClient()
    out: list[dict[str, Any]] = []
    try:
        request = compute_v1.AggregatedListMachineTypesRequest(project=project)
        for _scope, scoped in client.aggregated_list(request=request):
            for machine_type in scoped.machine_types:
                out.append(compute_v1.MachineType.to_dict(machine_type))
    except (gexc.PermissionDenied, gexc.Forbidden, gexc.Unauthenticated) as exc:
        raise _permission("compute.machineTypes.list", exc) from exc
    return out


def default_project() -> str:
    import google.auth
    from google.auth.exceptions import DefaultCredentialsError

    try:
        _, project = google.auth.default()
    except DefaultCredentialsError as exc:
        raise MissingCredentialsError(
            "gcp: no application-default credentials (run `gcloud auth application-default login`"
            " or set GOOGLE_APPLICATION_CREDENTIALS); the identity needs billing.skus and"
            " compute.machineTypes.list"
        ) from exc
    if not project:
        raise MissingCredentialsError(
            "gcp: no project in the default credentials; set GOOGLE_CLOUD_PROJECT"
        )
    return project


def fetch_gcp(
    regions: Sequence[str] | None = None,
    *,
    project: str | None = None,
    catalog_client: Any = None,
    machine_types_client: Any = None,
    progress: RegionProgress = no_progress,
    now: datetime | None = None,
) -> ProviderResult:
    now = now or utcnow()
    wanted = [r for r in (regions or []) if REGION_PATTERN.fullmatch(r)] or None
    if regions and not wanted:
        return ProviderResult()
    project = project or default_project()
    progress("catalog", 0, 2, "listing Compute Engine SKUs")
    skus = fetch_skus(catalog_client)
    progress("catalog", 1, 2, f"{len(skus)} SKUs; listing machine types")
    machine_types = fetch_machine_types(project, machine_types_client)
    result = parse_gcp(skus, machine_types, now, wanted)
    progress("catalog", 2, 2, f"{len(result.quotes)} prices")
    return result
