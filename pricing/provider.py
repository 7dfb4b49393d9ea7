"""Shared shapes for every price source: what a fetch returns, how it reports progress, and the
error a denied call raises.

A provider's ``fetch`` walks regions one by one. A region that fails (timeout, bad page) does not
lose the regions already read: the result carries the quotes it has plus one error per failed
region, and refresh records the snapshot as partial. A region the account is not opted into is
*skipped*, not failed: that is the account's configuration, not a fault of the source.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Protocol

from tokendesk.records import PriceQuote, PricingModel

#: Hours in a 1-year and a 3-year term; how clouds amortise term totals into hourly rates.
HOURS_1Y = 8760
HOURS_3Y = 26280


class PricingError(RuntimeError):
    """A price source could not be read at all."""


class PermissionDeniedError(PricingError):
    """The caller's identity lacks a permission. The message names it and how to grant it."""

    def __init__(self, provider: str, permission: str, detail: str = "", fix: str = "") -> None:
        self.provider = provider
        self.permission = permission
        message = f"{provider}: access denied; the caller needs the {permission!r} permission"
        if fix:
            message += f" ({fix})"
        if detail:
            message += f" [{detail}]"
        super().__init__(message)


class MissingCredentialsError(PricingError):
    """The SDK's default credential chain found nothing."""


@dataclass(frozen=True)
class SkippedItem:
    """A row, SKU or region deliberately left out, with why (shown in refresh reports)."""

    what: str
    reason: str


@dataclass
class ProviderResult:
    """What one provider's fetch produced."""

    quotes: list[PriceQuote] = field(default_factory=list)
    skipped: list[SkippedItem] = field(default_factory=list)
    #: region (or page) -> error text, for parts that failed; non-empty means a partial result.
    region_errors: dict[str, str] = field(default_factory=dict)

    @property
    def partial(self) -> bool:
        return bool(self.region_errors)

    def error_text(self) -> str:
        return "; ".join(f"{where}: {err}" for where, err in sorted(self.region_errors.items()))


@dataclass(frozen=True)
class ProgressEvent:
    """One step of a refresh, for a progress bar or a dashboard status box.

    ``stage`` is one of ``start`` (total known), ``region`` (one region done), ``done``,
    ``failed`` or ``skipped``.
    """

    provider: str
    stage: str
    region: str | None = None
    completed: int = 0
    total: int = 0
    message: str = ""


ProgressCallback = Callable[[ProgressEvent], None]


class RegionProgress(Protocol):
    def __call__(self, region: str, completed: int, total: int, message: str = "") -> None: ...


def no_progress(region: str, completed: int, total: int, message: str = "") -> None:
    return None


def utcnow() -> datetime:
    return datetime.now(UTC)


def filter_regions(
    requested: Sequence[str] | None, default: Sequence[str], pattern: re.Pattern[str]
) -> list[str]:
    """Regions this provider should read: the requested ones that look like its region names,
    or its defaults when none were requested."""
    if not requested:
        return list(default)
    return [r for r in dict.fromkeys(requested) if pattern.fullmatch(r)]


@dataclass(frozen=True)
class InstanceShape:
    """What one instance type is: its accelerators, vCPUs and memory."""

    instance_type: str
    accelerator_id: str
    accelerator_count: int
    vcpus: int | None
    memory_gib: float | None

    def quote(
        self,
        *,
        provider: str,
        region: str,
        pricing_model: PricingModel,
        usd_per_hour: float,
        source: str,
        source_url: str,
        observed_at: datetime,
        notes: str = "",
        confidence: str = "high",
    ) -> PriceQuote:
        """This shape's price as a validated record (to the micro-dollar, as price lists state it)."""
        return PriceQuote(
            provider=provider,
            region=region,
            instance_type=self.instance_type,
            accelerator_id=self.accelerator_id,
            accelerator_count=self.accelerator_count,
            vcpus=self.vcpus,
            memory_gib=self.memory_gib,
            pricing_model=pricing_model,
            usd_per_hour=round(usd_per_hour, 6),
            source=source,
            source_url=source_url,
            observed_at=observed_at,
            confidence=confidence,
            notes=notes,
        )
