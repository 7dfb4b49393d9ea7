"""A cloud bill (FOCUS exports) as the workspace's baseline: the fleet it yields, the charges it
could not place, Stay's month-1 cost for that fleet against the bill, and what saving it as a new
workspace version would change. Shared by ``tokendesk workspace from-bill`` and the Workspace
page.

The files are read by the warehouse (DuckDB), their columns and charges judged by
``pricing.focus``, the reconciliation's arithmetic is ``costmodel.bill_reconciliation``'s; Stay
comes from the plan engine through ``stay_month1_by_line`` alone.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

from costmodel import Engine
from costmodel.bill_reconciliation import (
    BilledLine,
    FleetChange,
    Reconciliation,
    fleet_changes,
    reconcile,
)
from costmodel.plan_inputs import STAY
from costmodel.risk import STALE_AFTER
from costmodel.workspace_model import (
    FLEET_COLUMNS,
    FleetEntry,
    Workspace,
    WorkspaceError,
    workspace_from_dict,
    workspace_to_dict,
)
from planning import bill_validation
from planning import workspaces as pw
from planning.context import planner_for
from pricing import focus
from warehouse import Warehouse, catalog_queries
from warehouse.focus_files import BillFileError, file_columns, read_groups
from warehouse.workspace_versions import save_workspace


class BillImportError(ValueError):
    """A bill could not be imported; the message names the file, row or field."""


# ---- the one place the reconciliation asks the plan engine for Stay ---------------------------
def stay_month1_by_line(engine: Engine, ws: Workspace) -> list[float]:
    """Stay's month-1 cost of each of ``ws.fleet``'s lines (same order), as ``tokendesk
    scenarios`` prices Stay: the fleet as it is, Σ count × effective $/h × 730 h per line.
    Top-ups Stay may add where the fleet falls short are not on the bill and not counted here."""
    stay = planner_for(engine, ws).evaluate((STAY,))[0]
    fleet_lines = iter(ln for ln in stay.fleet if ln.role == "fleet")
    by_index: dict[int, float] = {}
    # Stay lists each workload's fleet lines in fleet order, workload by workload.
    for w in ws.demand:
        for i, entry in enumerate(ws.fleet):
            if entry.serves != w.workload:
                continue
            line = next(fleet_lines)
            if (line.provider, line.instance_type) != (entry.provider, entry.instance_type):
                raise RuntimeError("Stay's fleet lines are not in the workspace's order")
            by_index[i] = line.monthly_usd
    return [by_index[i] for i in range(len(ws.fleet))]


# ---- reading the files -------------------------------------------------------------------------
def _group(source: str, row: dict) -> focus.ChargeGroup:
    month = row["month"]
    return focus.ChargeGroup(
        source=source,
        month=month.date() if isinstance(month, datetime) else month,
        rows=int(row["rows"]),
        billed=float(row["billed"]),
        effective=float(row["effective"]),
        consumed=float(row["consumed"]),
        charge_start=row["charge_start"],
        charge_end=row["charge_end"],
        unit_rate_min=row["unit_rate_min"],
        unit_rate_max=row["unit_rate_max"],
        text={k: row[k] for k in focus.TEXT_COLUMNS},
    )


def read_bill(paths: Sequence[Path], shapes: dict[tuple[str, str], focus.InstanceShape]):
    """The fleet a set of FOCUS files yields (several months and providers at once)."""
    if not paths:
        raise BillImportError("give at least one bill file (FOCUS CSV, gzip CSV or Parquet)")
    groups: list[focus.ChargeGroup] = []
    files: list[focus.FileSummary] = []
    currency_columns: dict[str, str] = {}
    try:
        bill_validation.check_distinct_files(paths)
    except bill_validation.BillValidationError as exc:
        raise BillImportError(str(exc)) from None
    for path in paths:
        try:
            types = file_columns(path)
            columns = focus.resolve_columns(list(types), path.name)
            read = read_groups(path, columns.text, columns.numbers, columns.times, types)
        except (BillFileError, focus.FocusFileError) as exc:
            raise BillImportError(str(exc)) from None
        currency_columns[path.name] = columns.text.get("currency") or "BillingCurrency"
        mine = [_group(path.name, r) for r in read.groups]
        if any(g.month is None for g in mine if g.rows):
            raise BillImportError(f"{path.name}: a charge has no ChargePeriodStart")
        groups += mine
        starts = [g.charge_start for g in mine if g.charge_start]
        ends = [g.charge_end for g in mine if g.charge_end]
        files.append(
            focus.FileSummary(
                path.name,
                read.rows,
                sum(g.billed for g in mine),
                columns.version_hint,
                tuple(sorted({g.get("provider") for g in mine if g.get("provider")})),
                min(starts) if starts else None,
                max(ends) if ends else None,
            )
        )
    try:
        bill_validation.check_one_currency(groups, paths, currency_columns)
    except bill_validation.BillValidationError as exc:
        raise BillImportError(str(exc)) from None
    return focus.derive_fleet(groups, files, shapes)


def instance_shapes(warehouse: Warehouse) -> dict[tuple[str, str], focus.InstanceShape]:
    frame = catalog_queries.instance_shapes(warehouse)
    return {
        (str(r.provider), str(r.instance_type)): focus.InstanceShape(
            str(r.accelerator_id), int(r.accelerator_count)
        )
        for r in frame.itertuples(index=False)
    }


# ---- the report --------------------------------------------------------------------------------
@dataclass(frozen=True)
class BillReport:
    bill: focus.BillFleet
    #: The workspace the bill's fleet would become (the current one with its fleet replaced).
    workspace: Workspace
    current_version: int | None
    current: Workspace
    #: Per fleet line of ``workspace``: the bill line it came from (None: a line kept from the
    #: current workspace, on a provider the bill does not cover).
    lines: tuple[focus.BillLine | None, ...]
    reconciliation: Reconciliation
    changes: tuple[FleetChange, ...]
    notes: tuple[str, ...]
    read_at: datetime
    #: The day the bill's age is judged against (today when it was read).
    today: date | None = None

    def fleet_rows(self) -> list[dict]:
        """Each line of the workspace the bill would become: what the bill billed for it (its
        usage and, apart, its commitment's fees), or None where the line is kept from the
        current workspace because the bill does not cover its provider."""
        rows = []
        for entry, line in zip(self.workspace.fleet, self.lines, strict=True):
            body = fleet_entry_dict(entry)
            if line is None:
                body.update(
                    billed_usd=None, usage_billed_usd=None, commitment_fees_usd=None, origin="kept"
                )
            else:
                body.update(
                    billed_usd=round(line.billed_usd, 6),
                    usage_billed_usd=round(line.billed_usd - line.commitment_fees_usd, 6),
                    commitment_fees_usd=round(line.commitment_fees_usd, 6),
                    origin="bill",
                )
            rows.append(body)
        return rows

    def older_than_a_quarter(self) -> bool:
        return older_than_a_quarter(self.bill.month, self.today or self.read_at.date())

    def unplaced_rows(self) -> list[dict]:
        return [
            {"reason": u.reason, "cost_usd": round(u.cost_usd, 6), "rows": u.rows}
            for u in self.bill.unplaced
        ]

    def source(self) -> dict:
        month = self.bill.month
        return {
            "files": [
                {
                    "file": f.source,
                    "rows": f.rows,
                    "billed_usd": round(f.billed_usd, 6),
                    "focus_version": f.focus_version,
                    "providers": list(f.providers),
                    "first_charge": f.first_charge.isoformat() if f.first_charge else None,
                    "last_charge": f.last_charge.isoformat() if f.last_charge else None,
                }
                for f in self.bill.files
            ],
            "month": f"{month:%Y-%m}" if month else None,
            "month_is_full": self.bill.month_is_full,
            "older_than_a_quarter": self.older_than_a_quarter(),
            "read_at": self.read_at.isoformat(timespec="seconds"),
            "confidence": "high: the provider's own bill"
            if self.bill.month_is_full
            else "medium: no calendar month is covered whole",
        }

    def as_dict(self) -> dict:
        return {
            "source": self.source(),
            "fleet": self.fleet_rows(),
            "unplaced": self.unplaced_rows(),
            "total_billed_usd": round(self.bill.total_billed_usd, 6),
            "reconciliation": self.reconciliation.as_dict(),
            "preview": {
                "current_version": self.current_version,
                "changes": [c.as_dict() for c in self.changes],
            },
            "notes": list(self.notes),
        }


def older_than_a_quarter(month: date | None, today: date) -> bool:
    """Whether a bill's month ended more than a quarter (92 days, the staleness rule of prices
    and results) before ``today``."""
    return month is not None and (today - _month_end_day(month)) > STALE_AFTER


def age_note(month: date | None, today: date) -> str:
    """The bill's period, named as old when it ended more than a quarter before ``today``."""
    if month is None or not older_than_a_quarter(month, today):
        return ""
    return (
        f"The bill is from {month:%Y-%m}, more than a quarter before {today.isoformat()}: the"
        " fleet it shows may have changed since."
    )


def _month_end_day(month: date) -> date:
    """The last day of a bill's month."""
    following = date(month.year + (month.month == 12), month.month % 12 + 1, 1)
    return following - timedelta(days=1)


def fleet_entry_dict(entry: FleetEntry) -> dict:
    """A fleet line with every workspace field name (None where unset)."""
    out: dict = {}
    for name in FLEET_COLUMNS:
        value = getattr(entry, name)
        if isinstance(value, date):
            value = value.isoformat()
        if name == "usd_per_hour" and value is not None:
            value = round(value, 6)
        out[name] = value
    return out


def _serves(line: focus.BillLine, current: Workspace, forced: str | None) -> tuple[str, str]:
    """The workload a derived line serves: the one given, else the current workspace's line of
    the same type, else the first workload (said in a note)."""
    if forced:
        return forced, ""
    for match in (
        lambda e: (
            (e.provider, e.region, e.instance_type)
            == (line.provider, line.region, line.instance_type)
        ),
        lambda e: (e.provider, e.instance_type) == (line.provider, line.instance_type),
    ):
        hit = next((e for e in current.fleet if match(e)), None)
        if hit is not None:
            return hit.serves, ""
    first = current.demand[0].workload
    return first, (
        f"{line.provider} {line.instance_type}: no current line of this type; assumed it serves"
        f" {first} (use --serves, or edit before saving)"
    )


#: Pricing models with no commitment: a bill's line of these has no end date to carry.
_NO_COMMITMENT = ("on_demand", "spot")


@dataclass(frozen=True)
class Derived:
    """The workspace a bill would become, with each line's bill line (None: kept from the
    current workspace), what was carried per line, the providers the bill covers, and notes."""

    workspace: Workspace
    lines: tuple[focus.BillLine | None, ...]
    carried: dict[tuple[str, str, str, str], list[str]]
    covered_providers: frozenset[str]
    notes: list[str]


def _current_line(line: focus.BillLine, current: Workspace) -> FleetEntry | None:
    """The current workspace's line the bill line stands for: same provider, region, instance
    type and pricing model; or a negotiated line of the same type, which a bill shows as on
    demand (the discount is in the effective cost, not in the pricing category)."""
    same = (line.provider, line.region, line.instance_type)
    for e in current.fleet:
        if (
            e.provider,
            e.region,
            e.instance_type,
        ) == same and e.pricing_model == line.pricing_model:
            return e
    if line.pricing_model == "on_demand":
        for e in current.fleet:
            if (e.provider, e.region, e.instance_type) == same and e.pricing_model == "negotiated":
                return e
    return None


def _entry(
    line: focus.BillLine, workload: str, match: FleetEntry | None
) -> tuple[FleetEntry, list[str]]:
    """The fleet line a bill line becomes, with what the bill does not know carried from the
    current workspace's matching line (and said)."""
    carried: list[str] = []
    end = line.commitment_end
    pricing_model = line.pricing_model
    early = None
    if match is not None:
        if end is None and match.commitment_end and line.pricing_model not in _NO_COMMITMENT:
            end = match.commitment_end
            carried.append(
                f"commitment end {end} kept from the current workspace (the bill does not say"
                " when the commitment ends)"
            )
        if match.pricing_model == "negotiated" and line.pricing_model == "on_demand":
            pricing_model = "negotiated"
            carried.append(
                "negotiated pricing kept from the current workspace (the bill shows the line as"
                " on demand; its effective rate is the negotiated one)"
            )
        if match.early_termination_usd is not None:
            early = match.early_termination_usd
            carried.append("early-termination cost kept from the current workspace")
    entry = FleetEntry(
        provider=line.provider,
        region=line.region,
        instance_type=line.instance_type,
        count=line.count,
        pricing_model=pricing_model,
        serves=workload,
        usd_per_hour=round(line.usd_per_hour, 6),
        commitment_end=end,
        early_termination_usd=early,
    )
    return entry, carried


def derive_workspace(
    bill: focus.BillFleet, current: Workspace, serves: str | None = None
) -> Derived:
    """The current workspace with the bill's fleet: each bill line takes what the bill does not
    know (a commitment's end, negotiated pricing, the workload it serves) from the current line
    it stands for; the current lines on providers the bill does not cover are kept as they are."""
    if serves is not None and serves not in {w.workload for w in current.demand}:
        names = ", ".join(w.workload for w in current.demand)
        raise BillImportError(f"--serves {serves!r} is not a workload of the workspace ({names})")
    entries: list[FleetEntry] = []
    notes: list[str] = []
    carried: dict[tuple[str, str, str, str], list[str]] = {}
    bill_lines = tuple(bill.fleet_lines())
    for line in bill_lines:
        workload, note = _serves(line, current, serves)
        if note:
            notes.append(note)
        entry, kept = _entry(line, workload, _current_line(line, current))
        if kept:
            key = (entry.provider, entry.region, entry.instance_type, entry.pricing_model)
            carried.setdefault(key, []).extend(kept)
        entries.append(entry)
    covered = frozenset(focus.provider_id(p) for f in bill.files for p in f.providers)
    others = tuple(e for e in current.fleet if e.provider not in covered)
    if others and entries:
        notes.append(
            f"{len(others)} line(s) on {', '.join(sorted({e.provider for e in others}))}, which"
            " the bill does not cover, are kept from the current workspace."
        )
    if not entries:
        # No fleet from the bill: nothing to save over the workspace, nothing kept.
        others = ()
    return Derived(
        replace(current, fleet=(*entries, *others)),
        (*bill_lines, *(None for _ in others)),
        carried,
        covered,
        notes,
    )


def build_report(
    warehouse: Warehouse,
    paths: Sequence[Path],
    *,
    serves: str | None = None,
    engine_for: Callable[[Workspace], Engine] | None = None,
) -> BillReport:
    """The bill's fleet against the current workspace; Stay is priced by the engine
    ``engine_for`` gives for the derived workspace (default ``pw.engine_for``: every quote of
    the bill's instance types is kept, so each line's list price is found)."""
    shapes = instance_shapes(warehouse)
    bill = read_bill(paths, shapes)
    version, current = pw.stored_workspace(warehouse)
    derived = derive_workspace(bill, current, serves)
    ws, lines = derived.workspace, derived.lines
    engine = engine_for(ws) if engine_for is not None else pw.engine_for(warehouse, ws)
    stay = stay_month1_by_line(engine, ws) if ws.fleet else []
    # Only the lines the bill shows are reconciled with it; a kept line has no bill to meet.
    billed, stay_billed = [], []
    for e, ln, usd in zip(ws.fleet, lines, stay, strict=True):
        if ln is None:
            continue
        billed.append(
            BilledLine(
                e.label,
                e.pricing_model,
                e.count,
                ln.consumed_hours,
                ln.period_hours,
                ln.effective_usd,
                ln.idle_commitment_usd,
                ln.unit_rate_min,
                ln.unit_rate_max,
            )
        )
        stay_billed.append(usd)
    month = bill.month
    changes = fleet_changes(
        current.fleet,
        ws.fleet,
        covered_providers=derived.covered_providers,
        period=f"{month:%Y-%m}" if month else "the bill's period",
        carried=derived.carried,
    )
    now = datetime.now(UTC)
    return BillReport(
        bill=bill,
        workspace=ws,
        current_version=version,
        current=current,
        lines=lines,
        reconciliation=reconcile(bill.month, billed, stay_billed),
        changes=tuple(changes),
        notes=tuple(n for n in (age_note(month, now.date()), *bill.notes, *derived.notes) if n),
        read_at=now,
        today=now.date(),
    )


def save_report(warehouse: Warehouse, report: BillReport) -> int:
    """Store the bill's fleet as a new workspace version; its source names the files, the month
    and the reconciliation's two totals (the warehouse records who saved it)."""
    if not report.workspace.fleet:
        raise BillImportError("the bill yields no fleet line; nothing to save")
    body = workspace_to_dict(report.workspace)
    try:
        # What is stored must read back: every field within the workspace's own bounds.
        workspace_from_dict(body)
    except WorkspaceError as exc:
        raise BillImportError(f"the bill's fleet cannot be saved: {exc}") from None
    pw.check_workspace(pw.engine_for(warehouse, report.workspace), report.workspace)
    month = report.bill.month
    files = ", ".join(f.source for f in report.bill.files)
    rec = report.reconciliation
    source = (
        f"bill: {files}"
        + (f" ({month:%Y-%m})" if month else "")
        + f"; accelerator spend ${rec.bill_usd:,.2f}, Stay month 1 ${rec.stay_month1_usd:,.2f}"
    )
    return save_workspace(warehouse, body, origin="bill", source=source[:500])
