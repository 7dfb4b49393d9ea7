"""The bill against the plan: Stay's month-1 cost for the fleet lines a bill yields, against what
the bill says those lines cost, explained line by line; and the derived fleet against the
workspace's (added / changed / removed, rates old -> new). Pure: plain records in, records out.

Why the two differ, line by line (each part in dollars, the parts add up to the difference):

* **month length**: Stay prices 730 hours a month (costmodel.demand.HOURS_PER_MONTH); a calendar
  month has 672-744;
* **partial month / rounding**: the bill's consumed hours average a fractional count over the
  month, the workspace holds whole instances;
* **idle commitments**: reserved hours paid and not used are on the bill, not in any line's rate;
* **rate**: anything left is Stay pricing the line at another rate than the bill's effective one.
Spot lines also say how far the hourly spot rate moved over the month (Stay uses the average).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date

from costmodel.demand import HOURS_PER_MONTH
from costmodel.workspace_model import FleetEntry

#: Below half a cent a part is noise from rounding, not a reason.
_CENT = 0.005


@dataclass(frozen=True)
class BilledLine:
    """What the bill says about one fleet line in the reconciled month."""

    label: str
    pricing_model: str
    count: int
    consumed_hours: float
    period_hours: float
    effective_usd: float
    idle_commitment_usd: float = 0.0
    unit_rate_min: float | None = None
    unit_rate_max: float | None = None

    @property
    def usd_per_hour(self) -> float:
        return self.effective_usd / self.consumed_hours if self.consumed_hours > 0 else 0.0

    @property
    def bill_usd(self) -> float:
        return self.effective_usd + self.idle_commitment_usd


@dataclass(frozen=True)
class Part:
    why: str
    usd: float

    def as_dict(self) -> dict:
        return {"why": self.why, "usd": round(self.usd, 2)}


@dataclass(frozen=True)
class LineReconciliation:
    label: str
    bill_usd: float
    stay_usd: float
    parts: tuple[Part, ...]

    @property
    def difference_usd(self) -> float:
        return self.stay_usd - self.bill_usd

    def as_dict(self) -> dict:
        return {
            "line": self.label,
            "bill_usd": round(self.bill_usd, 2),
            "stay_usd": round(self.stay_usd, 2),
            "difference_usd": round(self.difference_usd, 2),
            "parts": [p.as_dict() for p in self.parts],
        }


@dataclass(frozen=True)
class Reconciliation:
    month: date | None
    lines: tuple[LineReconciliation, ...]

    @property
    def bill_usd(self) -> float:
        return sum(ln.bill_usd for ln in self.lines)

    @property
    def stay_month1_usd(self) -> float:
        return sum(ln.stay_usd for ln in self.lines)

    @property
    def difference_usd(self) -> float:
        return self.stay_month1_usd - self.bill_usd

    def as_dict(self) -> dict:
        return {
            "month": f"{self.month:%Y-%m}" if self.month else None,
            "bill_usd": round(self.bill_usd, 2),
            "stay_month1_usd": round(self.stay_month1_usd, 2),
            "difference_usd": round(self.difference_usd, 2),
            "explained": [ln.as_dict() for ln in self.lines],
        }


def reconcile_line(line: BilledLine, stay_usd: float) -> LineReconciliation:
    """Split Stay minus bill for one line into its reasons (they add up to the difference)."""
    rate = line.usd_per_hour
    parts: list[Part] = []
    month_part = rate * line.count * (HOURS_PER_MONTH - line.period_hours)
    if abs(month_part) >= _CENT:
        parts.append(
            Part(
                f"month length: Stay prices {HOURS_PER_MONTH:g} h a month, the bill's period has"
                f" {line.period_hours:,.0f} h ({line.count} × ${rate:,.4f}/h ×"
                f" {HOURS_PER_MONTH - line.period_hours:+,.0f} h)",
                month_part,
            )
        )
    hours_part = rate * (line.count * line.period_hours - line.consumed_hours)
    if abs(hours_part) >= _CENT:
        average = line.consumed_hours / line.period_hours if line.period_hours else 0.0
        parts.append(
            Part(
                f"partial use: the bill's {line.consumed_hours:,.1f} instance-hours average"
                f" {average:,.2f} instances over the period; the line counts {line.count}",
                hours_part,
            )
        )
    if abs(line.idle_commitment_usd) >= _CENT:
        parts.append(
            Part(
                f"idle commitment: ${line.idle_commitment_usd:,.2f} paid for reserved hours"
                " nobody used (on the bill, in no line's rate)",
                -line.idle_commitment_usd,
            )
        )
    explained = sum(p.usd for p in parts)
    rest = (stay_usd - line.bill_usd) - explained
    if abs(rest) >= _CENT:
        stay_rate = stay_usd / (line.count * HOURS_PER_MONTH) if line.count else 0.0
        parts.append(
            Part(
                f"rate: Stay prices the line at ${stay_rate:,.4f}/h, the bill's effective rate is"
                f" ${rate:,.4f}/h",
                rest,
            )
        )
    if (
        line.pricing_model == "spot"
        and line.unit_rate_min is not None
        and line.unit_rate_max is not None
        and line.unit_rate_max - line.unit_rate_min >= 0.0001
    ):
        parts.append(
            Part(
                f"spot variation: the hourly rate ran ${line.unit_rate_min:,.4f}–"
                f"${line.unit_rate_max:,.4f}/h over the period; Stay uses the average"
                f" ${rate:,.4f}/h (no dollars of its own)",
                0.0,
            )
        )
    return LineReconciliation(line.label, line.bill_usd, stay_usd, tuple(parts))


def reconcile(
    month: date | None, lines: Sequence[BilledLine], stay_usd: Sequence[float]
) -> Reconciliation:
    if len(lines) != len(stay_usd):
        raise ValueError("one Stay cost per billed line")
    return Reconciliation(
        month, tuple(reconcile_line(ln, s) for ln, s in zip(lines, stay_usd, strict=True))
    )


# ---- the derived fleet against the workspace's -------------------------------------------------
#: The four ways a line of the current workspace fares when a bill's fleet is saved over it.
KEPT, CHANGED, ADDED, REMOVED = "kept", "changed", "added", "removed"


@dataclass(frozen=True)
class FleetChange:
    change: str  # kept | changed | added | removed
    provider: str
    region: str
    instance_type: str
    pricing_model: str
    details: tuple[str, ...]
    #: Why, in words: what the bill says (or does not say) about the line.
    reason: str = ""

    def as_dict(self) -> dict:
        return {
            "change": self.change,
            "provider": self.provider,
            "region": self.region,
            "instance_type": self.instance_type,
            "pricing_model": self.pricing_model,
            "details": list(self.details),
            "reason": self.reason,
        }


Key = tuple[str, str, str, str]


def _key(e: FleetEntry) -> Key:
    return (e.provider, e.region, e.instance_type, e.pricing_model)


def _change(change: str, key: Key, details: Sequence[str], reason: str) -> FleetChange:
    provider, region, instance_type, pricing_model = key
    return FleetChange(
        change, provider, region, instance_type, pricing_model, tuple(details), reason
    )


def _rate(value: float | None) -> str:
    return "list price" if value is None else f"${value:,.4f}/h"


def _differences(before: Sequence[FleetEntry], after: Sequence[FleetEntry]) -> list[str]:
    out: list[str] = []
    count_old, count_new = sum(e.count for e in before), sum(e.count for e in after)
    if count_old != count_new:
        out.append(f"count {count_old} -> {count_new}")
    rates_old = [e.usd_per_hour for e in before]
    rates_new = [e.usd_per_hour for e in after]
    if rates_old != rates_new:
        out.append(
            "rate "
            + ", ".join(_rate(r) for r in rates_old)
            + " -> "
            + ", ".join(_rate(r) for r in rates_new)
        )
    ends_old = [e.commitment_end for e in before]
    ends_new = [e.commitment_end for e in after]
    if ends_old != ends_new:
        out.append(
            "commitment end "
            + ", ".join(str(d) if d else "none" for d in ends_old)
            + " -> "
            + ", ".join(str(d) if d else "none" for d in ends_new)
        )
    return out


def fleet_changes(
    current: Sequence[FleetEntry],
    derived: Sequence[FleetEntry],
    *,
    covered_providers: Iterable[str] | None = None,
    period: str = "the bill's month",
    carried: Mapping[Key, Sequence[str]] | None = None,
) -> list[FleetChange]:
    """Line by line, what saving the derived fleet would change, and why (lines are matched on
    provider, region, instance type and pricing model; several lines with one key are summed).

    ``covered_providers``: the providers the bill covers (None: every provider); a current line
    on another provider is kept as it is. ``carried``: per line, what was kept from the current
    workspace because the bill does not say it (a commitment's end, a negotiated rate)."""
    covered = None if covered_providers is None else set(covered_providers)
    carried = carried or {}

    def by_key(entries: Sequence[FleetEntry]) -> dict[Key, list[FleetEntry]]:
        out: dict[Key, list[FleetEntry]] = {}
        for e in entries:
            out.setdefault(_key(e), []).append(e)
        return out

    old, new = by_key(current), by_key(derived)
    out: list[FleetChange] = []
    for key in [*old, *(k for k in new if k not in old)]:
        before, after = old.get(key, []), new.get(key, [])
        kept_from_workspace = list(carried.get(key, ()))
        if not before:
            details = tuple(
                f"{e.count} × at {_rate(e.usd_per_hour)}"
                + (f", commitment ends {e.commitment_end}" if e.commitment_end else "")
                for e in after
            )
            reason = f"on the bill in {period}; not in the current workspace"
            out.append(_change(ADDED, key, [*details, *kept_from_workspace], reason))
            continue
        if not after:
            details = tuple(f"{e.count} × at {_rate(e.usd_per_hour)}" for e in before)
            reason = f"the bill covers {key[0]} and shows no use of this line in {period}"
            out.append(_change(REMOVED, key, details, reason))
            continue
        if covered is not None and key[0] not in covered:
            reason = f"the bill does not cover {key[0]}: kept from the current workspace"
            out.append(_change(KEPT, key, (), reason))
            continue
        details_list = _differences(before, after)
        if details_list:
            reason = f"the bill's use in {period}"
            out.append(_change(CHANGED, key, [*details_list, *kept_from_workspace], reason))
        else:
            reason = f"the bill's use in {period} agrees with the current workspace"
            out.append(_change(KEPT, key, kept_from_workspace, reason))
    return out
