"""Refresh live prices into the warehouse: fetch each provider, check integrity, write one
immutable snapshot per provider.

A provider that raises is recorded as a failed snapshot with the error; a provider with failed
regions is written as a *partial* snapshot (kept for inspection, not current). Either way its
last good snapshot stays current and nothing is deleted. The same function serves the CLI
(rich progress bars) and the dashboard (``st.status``) through a progress callback.

``pricing`` never opens DuckDB itself: the caller passes the warehouse object.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Protocol

from pricing.integrity import RuleResult, check_snapshot
from pricing.provider import (
    ProgressCallback,
    ProgressEvent,
    ProviderResult,
    SkippedItem,
    utcnow,
)
from pricing.registry import PROVIDERS, ProviderSpec, get_provider, provider_names
from tokendesk.records import PriceQuote, PricingModel, SnapshotKind, SnapshotStatus
from tokendesk.textsafety import safe_message


class PriceWarehouse(Protocol):
    """The part of ``warehouse.Warehouse`` refresh uses."""

    def ingest_prices(
        self,
        source: str,
        quotes: Sequence[PriceQuote],
        *,
        origin: str = ...,
        status: SnapshotStatus = ...,
        error: str = ...,
        as_of: datetime | None = ...,
        scope: Sequence[str] | None = ...,
        quarantine: Mapping[int, str] | None = ...,
        review_flags: Mapping[int, str] | None = ...,
        integrity: Sequence[tuple[str, int, int, str]] | None = ...,
        notes: str = ...,
    ) -> str: ...

    def record_failed_snapshot(
        self, kind: SnapshotKind, source: str, error: str, *, origin: str = "api"
    ) -> str: ...

    def current_price_quotes(self, provider: str | None = None) -> list[PriceQuote]: ...


@dataclass
class SnapshotOutcome:
    """One snapshot written (or one failure recorded) by a refresh."""

    provider: str
    source: str
    status: SnapshotStatus
    snapshot_id: str
    rows: int = 0
    quarantined: int = 0
    review_flagged: int = 0
    error: str = ""
    integrity: list[RuleResult] = field(default_factory=list)
    skipped: list[SkippedItem] = field(default_factory=list)


@dataclass
class RefreshReport:
    outcomes: list[SnapshotOutcome] = field(default_factory=list)
    #: Providers not run because none of the requested regions applies to them.
    not_applicable: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(o.status is SnapshotStatus.OK for o in self.outcomes)


def _summarise_skips(skipped: Sequence[SkippedItem], limit: int = 20) -> str:
    if not skipped:
        return ""
    lines = [f"{s.what}: {s.reason}" for s in skipped[:limit]]
    more = f" (+{len(skipped) - limit} more)" if len(skipped) > limit else ""
    return f"skipped {len(skipped)}: " + "; ".join(lines) + more


def _source_for(spec: ProviderSpec, quote: PriceQuote) -> str:
    if spec.source is not None:
        return spec.source
    # Sheets: list prices supersede that provider's older list prices; negotiated quotes are a
    # separate source so they never hide (or get hidden by) the public list.
    if quote.pricing_model is PricingModel.NEGOTIATED:
        return f"sheet:{quote.provider}:negotiated"
    return quote.provider


def refresh(
    providers: Sequence[str] | None = None,
    regions: Sequence[str] | None = None,
    warehouse: PriceWarehouse | None = None,
    progress: ProgressCallback | None = None,
    *,
    today: date | None = None,
    registry: Mapping[str, ProviderSpec] | None = None,
) -> RefreshReport:
    """Refresh ``providers`` (default: every default provider) for ``regions`` (default: each
    provider's default regions) into ``warehouse``; report what was written."""
    if warehouse is None:
        raise ValueError("refresh needs a warehouse (warehouse.Warehouse.open(...))")
    table = registry if registry is not None else PROVIDERS
    names = (
        list(providers)
        if providers
        else [n for n in provider_names(defaults_only=True) if n in table]
    )
    specs = [table[n] if n in table else get_provider(n) for n in names]
    emit = progress or (lambda event: None)
    report = RefreshReport()
    for spec in specs:
        emit(ProgressEvent(spec.name, "start", message=spec.description))

        def region_progress(
            region: str, completed: int, total: int, message: str = "", _name: str = spec.name
        ) -> None:
            emit(ProgressEvent(_name, "region", region, completed, total, message))

        now = utcnow()
        try:
            result = spec.fetch(regions, region_progress)
        except Exception as exc:  # one provider's failure must not stop the others
            error = safe_message(f"{type(exc).__name__}: {exc}")
            source = spec.source or spec.name
            snapshot_id = warehouse.record_failed_snapshot(
                SnapshotKind.PRICES, source, error, origin=spec.origin
            )
            report.outcomes.append(
                SnapshotOutcome(spec.name, source, SnapshotStatus.FAILED, snapshot_id, error=error)
            )
            emit(ProgressEvent(spec.name, "failed", message=error))
            continue
        if not result.quotes and not result.region_errors and spec.independent_parts:
            # No price sheet exists: nothing to refresh is not a failure.
            report.not_applicable.append(spec.name)
            emit(ProgressEvent(spec.name, "skipped", message="no price sheets found"))
            continue
        if not result.quotes and not result.region_errors and regions and not result.skipped:
            report.not_applicable.append(spec.name)
            emit(ProgressEvent(spec.name, "skipped", message="no requested region applies"))
            continue
        report.outcomes.extend(_write(spec, result, warehouse, now, today))
        worst = (
            "failed"
            if any(
                o.status is SnapshotStatus.FAILED
                for o in report.outcomes
                if o.provider == spec.name
            )
            else "done"
        )
        emit(ProgressEvent(spec.name, worst, message=f"{len(result.quotes)} prices"))
    return report


def _write(
    spec: ProviderSpec,
    result: ProviderResult,
    warehouse: PriceWarehouse,
    now: datetime,
    today: date | None,
) -> list[SnapshotOutcome]:
    outcomes: list[SnapshotOutcome] = []
    if spec.independent_parts:
        for part, error in sorted(result.region_errors.items()):
            source = f"sheet:{part}"
            snapshot_id = warehouse.record_failed_snapshot(
                SnapshotKind.PRICES, source, error, origin=spec.origin
            )
            outcomes.append(
                SnapshotOutcome(spec.name, source, SnapshotStatus.FAILED, snapshot_id, error=error)
            )
        status, error = SnapshotStatus.OK, ""
    else:
        status = SnapshotStatus.PARTIAL if result.partial else SnapshotStatus.OK
        error = result.error_text()
    if not result.quotes:
        if not outcomes:
            source = spec.source or spec.name
            message = error or _summarise_skips(result.skipped) or "the source returned no prices"
            snapshot_id = warehouse.record_failed_snapshot(
                SnapshotKind.PRICES, source, message, origin=spec.origin
            )
            outcomes.append(
                SnapshotOutcome(
                    spec.name,
                    source,
                    SnapshotStatus.FAILED,
                    snapshot_id,
                    error=message,
                    skipped=result.skipped,
                )
            )
        return outcomes
    groups: dict[str, list[PriceQuote]] = defaultdict(list)
    for quote in result.quotes:
        groups[_source_for(spec, quote)].append(quote)
    notes = _summarise_skips(result.skipped)
    for source, quotes in sorted(groups.items()):
        previous = warehouse.current_price_quotes(quotes[0].provider)
        integrity = check_snapshot(quotes, previous, today=today)
        scope = sorted({q.region for q in quotes})
        snapshot_id = warehouse.ingest_prices(
            source,
            quotes,
            origin=spec.origin,
            status=status,
            error=error,
            as_of=now,
            scope=scope,
            quarantine=integrity.quarantine,
            review_flags=integrity.review_flags,
            integrity=integrity.as_tuples(),
            notes=notes,
        )
        outcomes.append(
            SnapshotOutcome(
                spec.name,
                source,
                status,
                snapshot_id,
                rows=len(quotes),
                quarantined=len(integrity.quarantine),
                review_flagged=len(integrity.review_flags),
                error=error,
                integrity=integrity.rules,
                skipped=result.skipped,
            )
        )
    return outcomes
