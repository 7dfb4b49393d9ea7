# Long by design: a FOCUS bill read in order: columns, the warehouse's charge groups,
# classification, the fleet result and the monthly aggregation, each step typed by the one
# before; split, the bill's path from column to fleet line would run through several files.
"""A cloud bill in the FinOps Foundation's FOCUS schema -> the accelerator fleet that ran.

FOCUS (FinOps Open Cost and Usage Specification) is the export every major provider writes
(AWS Data Exports, Azure Cost Management, Google Cloud's FOCUS view, OCI), versions 1.0-preview
to 1.3. This module is pure: ``resolve_columns`` maps a file's header onto the columns it needs
(per FOCUS version, with the provider ``x_`` columns that carry the instance type), and
``derive_fleet`` turns the per-group sums the warehouse reads (``warehouse.focus_files``) into
fleet lines and the charges it could not place, summed by reason.

Rules, stated so every figure can be checked by hand:

* A fleet line is the accelerator-instance usage of one provider, region, instance type, pricing
  model and commitment end in one calendar month. Its average count is the consumed
  instance-hours ÷ the hours of the period; its effective rate is ``EffectiveCost`` ÷ consumed
  hours (FOCUS amortises commitment purchases into ``EffectiveCost``); ``billed_usd`` is the
  ``BilledCost`` behind it.
* Everything else is unplaced, by reason (tax, credits, purchases, unused commitments,
  non-accelerator services, instance types the price data does not know, ...). The lines'
  ``BilledCost`` plus the unplaced ``BilledCost`` is the files' total ``BilledCost``.
"""

from __future__ import annotations

import calendar
import json
import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

from tokendesk.textsafety import json_depth_ok

# ---- columns -----------------------------------------------------------------------------------
#: Text columns read from a bill: our name -> the FOCUS names that carry it, newest first.
#: 1.3 renamed ProviderName to ServiceProviderName; 1.0-preview called RegionId "Region" and
#: ConsumedQuantity/ConsumedUnit "UsageQuantity"/"UsageUnit". OCI's 1.0 export leaves RegionId
#: empty and fills RegionName with the region id, hence the fallback.
TEXT_COLUMNS: dict[str, tuple[str, ...]] = {
    "provider": ("ServiceProviderName", "ProviderName"),
    "region": ("RegionId", "Region", "RegionName"),
    "currency": ("BillingCurrency",),
    "charge_category": ("ChargeCategory",),
    "charge_class": ("ChargeClass",),
    "charge_subcategory": ("ChargeSubcategory",),
    "charge_description": ("ChargeDescription",),
    "pricing_category": ("PricingCategory",),
    "service_category": ("ServiceCategory",),
    "commitment_id": ("CommitmentDiscountId",),
    "commitment_type": ("CommitmentDiscountType",),
    "commitment_category": ("CommitmentDiscountCategory",),
    "commitment_status": ("CommitmentDiscountStatus",),
    "capacity_reservation_id": ("CapacityReservationId",),
    "consumed_unit": ("ConsumedUnit", "UsageUnit"),
    #: FOCUS 1.1+: a JSON object whose FOCUS-defined "InstanceType" key names the instance.
    "sku_price_details": ("SkuPriceDetails",),
    #: AWS: "USE1-BoxUsage:p5.48xlarge" (the instance type after the colon).
    "x_usage_type": ("x_UsageType",),
    #: Microsoft: the JSON of the usage's additional info ("ServiceType": the VM size).
    "x_sku_details": ("x_SkuDetails",),
    #: Microsoft: a commitment's term in months.
    "x_sku_term": ("x_SkuTerm",),
}
#: Number columns summed per group.
NUMBER_COLUMNS: dict[str, tuple[str, ...]] = {
    "billed": ("BilledCost",),
    "effective": ("EffectiveCost",),
    "consumed": ("ConsumedQuantity", "UsageQuantity"),
}
#: Time columns (min of the starts, max of the ends per group).
TIME_COLUMNS: dict[str, tuple[str, ...]] = {
    "charge_start": ("ChargePeriodStart",),
    "charge_end": ("ChargePeriodEnd",),
}
#: Without these a file is not a FOCUS cost export we can account for.
REQUIRED = ("provider", "charge_category", "billed", "effective", "charge_start", "charge_end")


class FocusFileError(ValueError):
    """A bill file could not be read; the message names the file, the row or column and the fix."""


@dataclass(frozen=True)
class ColumnMap:
    """Which of a file's columns carries each of our names (None: the file has no such column)."""

    text: dict[str, str | None]
    numbers: dict[str, str | None]
    times: dict[str, str | None]
    version_hint: str

    def all(self) -> dict[str, str | None]:
        return {**self.text, **self.numbers, **self.times}


def resolve_columns(header: Sequence[str], source: str) -> ColumnMap:
    """Map a file's header onto the columns the import reads; a FocusFileError names what is
    missing. Column names match case-insensitively (Parquet exports keep FOCUS's PascalCase,
    some hand-written CSVs do not)."""
    by_lower = {name.lower(): name for name in header}

    def pick(candidates: tuple[str, ...]) -> str | None:
        return next((by_lower[c.lower()] for c in candidates if c.lower() in by_lower), None)

    text = {k: pick(v) for k, v in TEXT_COLUMNS.items()}
    numbers = {k: pick(v) for k, v in NUMBER_COLUMNS.items()}
    times = {k: pick(v) for k, v in TIME_COLUMNS.items()}
    found = {**text, **numbers, **times}
    missing = [k for k in REQUIRED if found.get(k) is None]
    if missing:
        wanted = {**TEXT_COLUMNS, **NUMBER_COLUMNS, **TIME_COLUMNS}
        names = " / ".join(f"{' or '.join(wanted[k])}" for k in missing)
        raise FocusFileError(
            f"{source}: not a FOCUS cost export: no {names} column"
            f" (it has {', '.join(header[:12])}{', ...' if len(header) > 12 else ''})"
        )
    if "ServiceProviderName".lower() in by_lower:
        hint = "1.3"
    elif "InvoiceId".lower() in by_lower or "BillingAccountType".lower() in by_lower:
        hint = "1.2"
    elif "SkuPriceDetails".lower() in by_lower or "CapacityReservationId".lower() in by_lower:
        hint = "1.1"
    elif "UsageQuantity".lower() in by_lower and "ConsumedQuantity".lower() not in by_lower:
        hint = "1.0-preview"
    else:
        hint = "1.0"
    return ColumnMap(text, numbers, times, hint)


# ---- the groups the warehouse reads -----------------------------------------------------------
@dataclass(frozen=True)
class ChargeGroup:
    """The sums of one file's charges that share every text column and calendar month."""

    source: str
    month: date
    rows: int
    billed: float
    effective: float
    consumed: float
    charge_start: datetime | None
    charge_end: datetime | None
    #: Lowest and highest effective $ per consumed unit among the group's rows (spot variation).
    unit_rate_min: float | None = None
    unit_rate_max: float | None = None
    text: Mapping[str, str | None] = field(default_factory=dict)

    def get(self, key: str) -> str:
        value = self.text.get(key)
        return value.strip() if isinstance(value, str) else ""


# ---- classification ----------------------------------------------------------------------------
PROVIDER_IDS = {
    "aws": "aws",
    "amazon web services": "aws",
    "amazon web services, inc.": "aws",
    "microsoft": "azure",
    "azure": "azure",
    "microsoft azure": "azure",
    "google": "gcp",
    "google cloud": "gcp",
    "google cloud platform": "gcp",
    "gcp": "gcp",
    "oracle": "oci",
    "oracle cloud infrastructure": "oci",
    "oci": "oci",
}


def provider_id(name: str) -> str:
    """The price data's provider id for a FOCUS provider name ("AWS" -> aws, "Microsoft" -> azure)."""
    key = name.strip().lower()
    return PROVIDER_IDS.get(key, re.sub(r"[^a-z0-9]+", "-", key).strip("-"))


_AWS_TYPE = re.compile(
    r"\b([a-z][a-z0-9-]*\d[a-z0-9-]*\.(?:nano|micro|small|medium|large|metal|\d*xlarge)"
    r"(?:-\d+xl)?)\b"
)
_AZURE_TYPE = re.compile(r"\b(Standard_[A-Za-z0-9_-]+)\b")
_OCI_TYPE = re.compile(r"\b((?:BM|VM)\.[A-Za-z0-9.]+)\b")
_HOUR_UNITS = frozenset(
    {"hour", "hours", "hrs", "hr", "instance hours", "instance-hours", "1 hour"}
)
_ACCELERATOR_HOUR_UNITS = frozenset({"gpu hours", "gpu-hours", "gpu per hour", "gpu hour"})


def _json_key(text: str, keys: Sequence[str]) -> str:
    if not text or not text.lstrip().startswith("{"):
        return ""
    if not json_depth_ok(text):  # the recursive parser would exhaust the stack first
        return ""
    try:
        data = json.loads(text)
    except ValueError:
        return ""
    if not isinstance(data, Mapping):
        return ""
    for key in keys:
        value = data.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return ""


def instance_type_of(group: ChargeGroup, provider: str) -> str:
    """The instance type a charge is for, from the columns that carry it, most specific first:
    SkuPriceDetails.InstanceType (FOCUS 1.1+), Microsoft's x_SkuDetails (ServiceType, the VM
    size), AWS's x_UsageType (after the colon), then the charge description."""
    found = _json_key(group.get("sku_price_details"), ("InstanceType", "x_InstanceType"))
    if found:
        return found
    found = _json_key(group.get("x_sku_details"), ("ServiceType", "VMSize", "InstanceType"))
    if found:
        return found
    usage = group.get("x_usage_type")
    if ":" in usage:
        head, _, tail = usage.partition(":")
        if "Usage" in head and _AWS_TYPE.fullmatch(tail.strip()):
            return tail.strip()
    description = group.get("charge_description")
    patterns = {"aws": _AWS_TYPE, "azure": _AZURE_TYPE, "oci": _OCI_TYPE}
    pattern = patterns.get(provider)
    if pattern is not None:
        match = pattern.search(description)
        if match:
            return match.group(1)
    return ""


_ACCELERATOR_WORDS = re.compile(
    r"\b(GPU|TPU|H100|H200|A100|A10G|L4|L40S|MI300X|B200|Gaudi|Inferentia|Trainium)\b",
    re.IGNORECASE,
)

#: Instance families that carry accelerators, by provider (for the reason of an unplaced charge:
#: an accelerator instance the price data does not know is not "not an accelerator").
_ACCELERATOR_FAMILY = {
    "aws": re.compile(r"^(p\d|g\d|inf\d|trn\d|dl\d)", re.IGNORECASE),
    "azure": re.compile(r"^Standard_N", re.IGNORECASE),
    "gcp": re.compile(r"^(a2|a3|a4|g2|g4|ct\d|tpu)", re.IGNORECASE),
    "oci": re.compile(r"GPU", re.IGNORECASE),
}


def looks_like_accelerator(provider: str, instance_type: str) -> bool:
    pattern = _ACCELERATOR_FAMILY.get(provider)
    return bool(pattern and pattern.search(instance_type))


@dataclass(frozen=True)
class InstanceShape:
    accelerator_id: str
    accelerator_count: int


def _term_years(group: ChargeGroup, terms: Mapping[str, float]) -> tuple[int, bool]:
    """(1 or 3, known?) from Microsoft's x_SkuTerm (months) or the commitment's purchase period."""
    months = group.get("x_sku_term")
    try:
        if months and float(months) > 0:
            return (3 if float(months) >= 30 else 1), True
    except ValueError:
        pass
    span_days = terms.get(group.get("commitment_id"))
    if span_days:
        return (3 if span_days >= 2 * 365 else 1), True
    return 1, False


def pricing_model_of(group: ChargeGroup, provider: str, terms: Mapping[str, float]) -> str:
    """The workspace pricing model of a usage charge, from PricingCategory and the commitment
    columns (FOCUS 1.0-preview's values included)."""
    category = group.get("pricing_category").lower()
    usage_type = group.get("x_usage_type")
    if "CapacityBlock" in usage_type:
        return "capacity_block"
    if category in ("committed", "commitment-based"):
        kind = (group.get("commitment_type") + " " + group.get("commitment_category")).lower()
        years, _ = _term_years(group, terms)
        if "savings" in kind or ("spend" in kind and provider != "gcp"):
            base = "savings_plan"
        elif provider == "gcp" or "committed use" in kind or "cud" in kind:
            base = "committed_use"
        else:  # "Reserved Instance" (AWS), "Reservation" (Microsoft), a usage commitment
            base = "reserved"
        return f"{base}_{years}y"
    if group.get("capacity_reservation_id"):
        # A capacity reservation is paid for every hour whether used or not, like a block.
        return "capacity_block"
    if category == "dynamic":
        return "spot"
    if category == "other":
        return "negotiated"
    return "on_demand"  # Standard / On-Demand, or a provider with one pricing category (OCI)


# ---- the result ----------------------------------------------------------------------------------
@dataclass
class BillLine:
    """One fleet line derived from the bill (one calendar month)."""

    provider: str
    region: str
    instance_type: str
    pricing_model: str
    commitment_end: date | None
    month: date
    accelerator_id: str
    accelerator_count: int
    consumed_hours: float = 0.0
    effective_usd: float = 0.0
    billed_usd: float = 0.0
    rows: int = 0
    #: Hours the line's period had (the month, or the part of it the bill covers).
    period_hours: float = 0.0
    unit_rate_min: float | None = None
    unit_rate_max: float | None = None
    term_known: bool = True
    #: Unused-commitment cost of this line's commitments in the month (idle reserved hours).
    idle_commitment_usd: float = 0.0
    #: BilledCost of the purchase and recurring fees of the commitment this line runs on (an
    #: upfront payment, a No Upfront RI's monthly fee), in the month: part of ``billed_usd``,
    #: listed apart from the usage (their cost is amortised into the usage's EffectiveCost).
    commitment_fees_usd: float = 0.0
    commitment_ids: set[str] = field(default_factory=set)

    @property
    def key(self) -> tuple:
        return (
            self.provider,
            self.region,
            self.instance_type,
            self.pricing_model,
            self.commitment_end,
        )

    @property
    def average_count(self) -> float:
        return self.consumed_hours / self.period_hours if self.period_hours > 0 else 0.0

    @property
    def count(self) -> int:
        """The whole instances the line stands for: the average rounded half up, at least one."""
        return max(1, math.floor(self.average_count + 0.5))

    @property
    def usd_per_hour(self) -> float:
        return self.effective_usd / self.consumed_hours if self.consumed_hours > 0 else 0.0


@dataclass
class Unplaced:
    reason: str
    cost_usd: float = 0.0
    rows: int = 0
    effective_usd: float = 0.0


@dataclass
class FileSummary:
    source: str
    rows: int
    billed_usd: float
    focus_version: str
    providers: tuple[str, ...]
    first_charge: datetime | None
    last_charge: datetime | None


@dataclass
class BillFleet:
    """Every line of every month, the unplaced charges and the period the fleet is taken from."""

    lines: list[BillLine]
    unplaced: list[Unplaced]
    files: list[FileSummary]
    #: The month the fleet (and the reconciliation) is taken from.
    month: date | None
    month_is_full: bool
    notes: list[str]

    @property
    def total_billed_usd(self) -> float:
        return sum(f.billed_usd for f in self.files)

    def fleet_lines(self) -> list[BillLine]:
        return [ln for ln in self.lines if ln.month == self.month]


def month_hours(month: date) -> int:
    return calendar.monthrange(month.year, month.month)[1] * 24


def _next_month(month: date) -> date:
    return date(month.year + (month.month == 12), month.month % 12 + 1, 1)


def last_full_month(groups: Iterable[ChargeGroup]) -> tuple[date | None, bool]:
    """The latest calendar month the bill covers whole, and whether one exists (else the latest
    month it touches). A month is whole when its charges run from its first day to its last
    (hourly exports end at 23:00 of the last day, daily ones at midnight after it)."""
    first: dict[date, datetime] = {}
    last: dict[date, datetime] = {}
    for g in groups:
        if g.charge_start is None or g.charge_end is None or not _usage(g):
            continue
        first[g.month] = min(first.get(g.month, g.charge_start), g.charge_start)
        last[g.month] = max(last.get(g.month, g.charge_end), g.charge_end)
    if not first:
        return None, False
    full = [
        m
        for m in first
        if first[m] < _month_start(m) + timedelta(days=1)
        and last[m] >= _month_end(m) - timedelta(days=1)
    ]
    if full:
        return max(full), True
    return max(first), False


def _usage(g: ChargeGroup) -> bool:
    """Usage rows say which hours a bill covers; a purchase's period is a commitment's term."""
    return g.get("charge_category").lower() in ("usage", "")


def _covered_hours(groups: Sequence[ChargeGroup], month: date) -> float:
    usage = [g for g in groups if g.month == month and _usage(g)]
    starts = [g.charge_start for g in usage if g.charge_start]
    ends = [g.charge_end for g in usage if g.charge_end]
    if not starts or not ends:
        return float(month_hours(month))
    span = (
        min(max(ends), _month_end(month)) - max(min(starts), _month_start(month))
    ).total_seconds()
    return max(span / 3600.0, 1.0)


def _month_start(month: date) -> datetime:
    return datetime(month.year, month.month, 1)


def _month_end(month: date) -> datetime:
    return _month_start(_next_month(month))


def _commitment_facts(
    groups: Sequence[ChargeGroup],
) -> tuple[dict[str, float], dict[str, date]]:
    """Per commitment id: its term in days and its end, from its purchase rows (FOCUS records a
    commitment purchase with ChargePeriodStart..ChargePeriodEnd spanning the term)."""
    terms: dict[str, float] = {}
    ends: dict[str, date] = {}
    for g in groups:
        cid = g.get("commitment_id")
        if not cid or g.get("charge_category").lower() != "purchase":
            continue
        if g.charge_start is None or g.charge_end is None:
            continue
        days = (g.charge_end - g.charge_start).total_seconds() / 86400.0
        if days > 60:  # a term, not one month's recurring fee
            terms[cid] = max(terms.get(cid, 0.0), days)
            ends[cid] = max(ends.get(cid, g.charge_end.date()), g.charge_end.date())
    return terms, ends


def _unplaced_reason(g: ChargeGroup) -> str | None:
    """Why a charge is not accelerator-instance usage, from its category alone (None: look
    closer)."""
    category = g.get("charge_category").lower()
    if category == "tax":
        return "tax"
    if category == "credit":
        return "credits"
    if category == "adjustment":
        return "adjustments"
    if g.get("charge_class").lower() == "correction":
        return "corrections to earlier periods"
    if category == "purchase":
        if g.get("commitment_id"):
            return (
                "commitment purchases and fees covering no one fleet line (amortised into the"
                " covered usage's EffectiveCost)"
            )
        return "purchases (one-time or recurring, not usage)"
    if category not in ("usage", ""):
        return f"charge category {g.get('charge_category')}"
    return None


def _commitment_fee(g: ChargeGroup) -> bool:
    """A commitment's purchase or recurring fee (FOCUS ChargeCategory=Purchase naming a
    CommitmentDiscountId): an upfront payment, or a No Upfront RI's monthly fee."""
    return g.get("charge_category").lower() == "purchase" and bool(g.get("commitment_id"))


def _place_fees(
    fees: Sequence[ChargeGroup],
    lines: Iterable[BillLine],
    month: date | None,
    notes: list[str],
    drop: Callable[[str, ChargeGroup], None],
) -> None:
    """Each commitment fee belongs to the line its commitment covers (same id, same month), as
    part of that line's billed cost. A fee whose commitment covers no line, or several (a savings
    plan), stays unplaced rather than being split by guesswork."""
    lines = list(lines)
    for g in fees:
        covered = [
            ln
            for ln in lines
            if ln.month == g.month and g.get("commitment_id") in ln.commitment_ids
        ]
        if len(covered) == 1:
            covered[0].billed_usd += g.billed
            covered[0].commitment_fees_usd += g.billed
            covered[0].rows += g.rows
            continue
        if covered and month is not None and g.month == month:
            notes.append(
                f"${g.billed:,.2f} of fees of commitment {g.get('commitment_id')} cover"
                f" {len(covered)} lines; they are listed as unplaced rather than split between them."
            )
        reason = _unplaced_reason(g)
        drop(reason or "commitment purchases and fees", g)


# Long by design: one pass over a bill's groups that fills the running fleet lines, unplaced
# charges and notes together (the closure ``drop`` writes to them); split, that shared state
# would be threaded through every helper.
def derive_fleet(
    groups: Sequence[ChargeGroup],
    files: Sequence[FileSummary],
    shapes: Mapping[tuple[str, str], InstanceShape],
) -> BillFleet:
    """Fleet lines and unplaced charges from a bill's groups. ``shapes`` maps (provider,
    instance type) to its accelerator and count (from the price data)."""
    terms, ends = _commitment_facts(groups)
    month, full = last_full_month(groups)
    notes: list[str] = []
    lines: dict[tuple, BillLine] = {}
    unplaced: dict[str, Unplaced] = {}
    idle: list[ChargeGroup] = []
    fees: list[ChargeGroup] = []

    def drop(reason: str, g: ChargeGroup) -> None:
        u = unplaced.setdefault(reason, Unplaced(reason))
        u.cost_usd += g.billed
        u.effective_usd += g.effective
        u.rows += g.rows

    hours_by_month: dict[date, float] = {}
    for g in groups:
        reason = _unplaced_reason(g)
        if reason is not None:
            if _commitment_fee(g):
                fees.append(g)  # placed on the line its commitment covers, below
            else:
                drop(reason, g)
            continue
        if g.get("commitment_status").lower() == "unused":
            idle.append(g)
            drop("unused commitments (paid, no usage)", g)
            continue
        provider = provider_id(g.get("provider"))
        itype = instance_type_of(g, provider)
        if not itype:
            if _ACCELERATOR_WORDS.search(g.get("charge_description")):
                # e.g. Google Cloud bills a GPU apart from its machine ("Nvidia H100 80GB GPU
                # running in Americas"), with no column naming the machine type.
                drop(f"accelerator charge with no instance type ({provider})", g)
            else:
                category = g.get("service_category") or "no category"
                drop(f"not an accelerator instance ({category})", g)
            continue
        shape = shapes.get((provider, itype))
        if shape is None:
            if looks_like_accelerator(provider, itype):
                drop(f"accelerator instance not in the price data ({provider} {itype})", g)
            else:
                drop(f"not an accelerator instance ({g.get('service_category') or 'Compute'})", g)
            continue
        if shape.accelerator_count < 1:
            drop(f"not an accelerator instance ({g.get('service_category') or 'Compute'})", g)
            continue
        unit = g.get("consumed_unit").lower()
        # OCI meters GPU shapes per GPU-hour: an instance-hour is accelerator_count of them.
        per_accelerator = unit in _ACCELERATOR_HOUR_UNITS
        if unit not in _HOUR_UNITS and not per_accelerator:
            drop(f"accelerator instance charges not metered in hours ({g.get('consumed_unit')})", g)
            continue
        currency = g.get("currency").upper() or "USD"
        if currency != "USD":
            drop(f"billed in {currency} (not converted to USD)", g)
            continue
        model = pricing_model_of(g, provider, terms)
        cid = g.get("commitment_id")
        end = ends.get(cid) if cid and model not in ("on_demand", "spot") else None
        key = (provider, g.get("region"), itype, model, end, g.month)
        line = lines.get(key)
        if line is None:
            line = BillLine(
                provider,
                g.get("region"),
                itype,
                model,
                end,
                g.month,
                shape.accelerator_id,
                shape.accelerator_count,
            )
            line.term_known = (
                model in ("on_demand", "spot", "negotiated", "capacity_block")
                or (_term_years(g, terms)[1])
            )
            lines[key] = line
        line.consumed_hours += (
            g.consumed / shape.accelerator_count if per_accelerator else g.consumed
        )
        line.effective_usd += g.effective
        line.billed_usd += g.billed
        line.rows += g.rows
        if cid:
            line.commitment_ids.add(cid)
        per_instance = shape.accelerator_count if per_accelerator else 1
        if g.unit_rate_min is not None:
            low = g.unit_rate_min * per_instance
            line.unit_rate_min = low if line.unit_rate_min is None else min(line.unit_rate_min, low)
        if g.unit_rate_max is not None:
            high = g.unit_rate_max * per_instance
            line.unit_rate_max = (
                high if line.unit_rate_max is None else max(line.unit_rate_max, high)
            )
    for line in lines.values():
        if line.month not in hours_by_month:
            full_month = month is not None and full and line.month <= month
            hours_by_month[line.month] = (
                float(month_hours(line.month)) if full_month else _covered_hours(groups, line.month)
            )
        line.period_hours = hours_by_month[line.month]
    # Idle commitment cost belongs to the line its commitment covers (same id, same month); a
    # commitment shared by several lines (a savings plan) is not split by guesswork.
    for g in idle:
        covered = [
            ln
            for ln in lines.values()
            if ln.month == g.month and g.get("commitment_id") in ln.commitment_ids
        ]
        if len(covered) == 1:
            covered[0].idle_commitment_usd += g.effective
        elif covered and month is not None and g.month == month:
            notes.append(
                f"${g.effective:,.2f} of unused commitment {g.get('commitment_id')} covers"
                f" {len(covered)} lines; it is listed as unplaced and left out of the"
                " reconciliation rather than split between them."
            )
    _place_fees(fees, lines.values(), month, notes, drop)
    # Lines of other months than the fleet's are accounted for, not merged into it.
    out_lines = []
    for line in sorted(lines.values(), key=lambda ln: (ln.month, ln.key[:4])):
        if line.consumed_hours <= 0 or line.effective_usd <= 0:
            # No rate can be derived: no hours, or hours the export gives no effective cost for
            # (a commitment it does not amortise).
            reason = (
                "accelerator charges with no consumed hours"
                if line.consumed_hours <= 0
                else "accelerator usage with no effective cost (commitment not amortised)"
            )
            u = unplaced.setdefault(reason, Unplaced(reason))
            u.cost_usd += line.billed_usd
            u.effective_usd += line.effective_usd
            u.rows += line.rows
            continue
        if month is not None and line.month != month:
            reason = (
                f"accelerator instances in {line.month:%Y-%m}"
                f" (the fleet is taken from {month:%Y-%m})"
            )
            u = unplaced.setdefault(reason, Unplaced(reason))
            u.cost_usd += line.billed_usd
            u.effective_usd += line.effective_usd
            u.rows += line.rows
            continue
        if not line.term_known:
            notes.append(
                f"{line.provider} {line.instance_type}: the export does not say the commitment's"
                f" term; {line.pricing_model} assumed — check it before saving."
            )
        out_lines.append(line)
    if month is not None and not full:
        notes.append(
            f"No calendar month is covered whole; the fleet is taken from {month:%Y-%m}, averaged"
            " over the hours the bill covers."
        )
    order = sorted(unplaced.values(), key=lambda u: (-abs(u.cost_usd), u.reason))
    return BillFleet(out_lines, order, list(files), month, full, notes)
