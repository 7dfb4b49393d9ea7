"""Negotiated fleet rates kept from the roles that may not see negotiated quotes.

A workspace fleet line bought under ``pricing_model: negotiated`` carries the rate of a private
contract (or, without one, is priced from the current negotiated quote). A person whose role may
not see negotiated quotes still gets every page: the Workspace page and its YAML export show the
line with its rate withheld, and every plan, figure, page and brief they read prices the line at
the public on-demand list price instead (:func:`priced_at_list`). Pricing it at its real rate
and hiding only the line's own cells is not enough: a plan's total, a stranded commitment or a
per-token cost is the rate times known hours and units, so one division gives the rate back.
No Streamlit here: each rule is a plain function the pages and tests call.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace

import pandas as pd

from briefs.document import Document, Table
from costmodel.option_table import Option
from costmodel.workspace_model import FleetEntry, Workspace
from tokendesk.records import PriceQuote

NEGOTIATED = "negotiated"
ON_DEMAND = "on_demand"
#: The note a plan line whose figures are withheld carries.
WITHHELD_RATE = "negotiated rate withheld; priced at the on-demand list price"
#: The sentence a page (and a brief) shows once when it withheld anything.
WITHHELD_NOTE = (
    "Negotiated fleet rates are withheld: your role may not see negotiated quotes. Every plan,"
    " figure and download here prices those fleet lines at the public on-demand list price"
    " instead, so totals differ from what the company pays; ask an editor for the real figures."
)


def _line_key(line: FleetEntry) -> tuple[str, str, str, str]:
    return (line.provider, line.region, line.instance_type, line.serves)


def withheld_lines(ws: Workspace) -> list[int]:
    """Indices of the fleet lines whose rate is confidential (bought under a negotiated quote)."""
    return [i for i, line in enumerate(ws.fleet) if line.pricing_model == NEGOTIATED]


def withhold_rates(ws: Workspace) -> Workspace:
    """``ws`` as a person who may not see negotiated quotes reads it: negotiated lines without
    their rate and early-termination fee (both are terms of the private contract)."""
    hidden = set(withheld_lines(ws))
    if not hidden:
        return ws
    fleet = tuple(
        replace(line, usd_per_hour=None, early_termination_usd=None) if i in hidden else line
        for i, line in enumerate(ws.fleet)
    )
    return replace(ws, fleet=fleet)


def restore_rates(edited: Workspace, stored: Workspace) -> Workspace:
    """An edit made on the withheld view, with each negotiated line's withheld terms taken back
    from the stored line it came from (same provider, region, instance type and workload), so
    saving never drops a rate the editor could not see."""
    terms: dict[tuple[str, str, str, str], FleetEntry] = {}
    for line in stored.fleet:
        if line.pricing_model == NEGOTIATED:
            terms.setdefault(_line_key(line), line)
    fleet = []
    for line in edited.fleet:
        source = terms.get(_line_key(line)) if line.pricing_model == NEGOTIATED else None
        if source is not None:
            line = replace(
                line,
                usd_per_hour=line.usd_per_hour
                if line.usd_per_hour is not None
                else source.usd_per_hour,
                early_termination_usd=line.early_termination_usd
                if line.early_termination_usd is not None
                else source.early_termination_usd,
            )
        fleet.append(line)
    return replace(edited, fleet=tuple(fleet))


def priced_at_list(
    ws: Workspace, options: Sequence[Option], quotes: Iterable[PriceQuote]
) -> tuple[Workspace, tuple[str, ...]]:
    """``ws`` as every plan is priced for a person who may not see negotiated quotes: each
    negotiated fleet line at the public on-demand list price, with no early-termination fee
    (a contract term), and the sentences saying what was done to which line.

    The list price is the one the plan engine gives an on-demand line of the same SKU (the
    lowest in the line's region, else at any region of that provider; ``options`` are the
    reader's engine options). A SKU sold only under a negotiated quote has no list price of its
    own: the line is priced at the lowest on-demand list price of the same accelerators
    (``quotes`` name the SKU's accelerator and count, never its rate). A line neither gives a
    price for is left out of the reader's plans, and a sentence says so. Nothing here reads a
    negotiated rate, so no figure computed from the result can give one back.
    """
    hidden = set(withheld_lines(ws))
    if not hidden:
        return ws, ()
    on_demand = [o for o in options if o.pricing_model == ON_DEMAND]
    fleet: list[FleetEntry] = []
    notes: list[str] = []
    for i, line in enumerate(ws.fleet):
        if i not in hidden:
            fleet.append(line)
            continue
        rate = _sku_list_rate(line, on_demand)
        how = "the on-demand list price of the same instance"
        if rate is None:
            rate = _hardware_list_rate(line, on_demand, quotes)
            how = "the lowest on-demand list price of the same accelerators"
        if rate is None:
            notes.append(
                f"{line.label}: left out of the plans you see (negotiated rate withheld, and no"
                " public on-demand list price for its hardware)"
            )
            continue
        notes.append(f"{line.label}: priced at {how} (negotiated rate withheld)")
        fleet.append(replace(line, usd_per_hour=rate, early_termination_usd=None))
    return replace(ws, fleet=tuple(fleet)), tuple(notes)


def _sku_list_rate(line: FleetEntry, on_demand: Sequence[Option]) -> float | None:
    """The plan engine's list rule (``costmodel.plan_fleet``) for the line's SKU, on demand."""
    same = [
        o for o in on_demand if (o.provider, o.instance_type) == (line.provider, line.instance_type)
    ]
    here = [o for o in same if o.region == line.region] or same
    return min((o.usd_per_unit_hour for o in here), default=None)


def _per_accelerator_hour(option: Option) -> float:
    # A unit is an instance (its accelerators) or, priced per accelerator, one replica's worth.
    return option.usd_per_unit_hour / max(option.accelerators_per_unit, 1)


def _hardware_list_rate(
    line: FleetEntry, on_demand: Sequence[Option], quotes: Iterable[PriceQuote]
) -> float | None:
    """$ per instance-hour of the line's accelerators at the lowest on-demand list price per
    accelerator-hour (the line's SKU has no option of its own, so it is billed per instance)."""
    hardware = next(
        (
            (q.accelerator_id, q.accelerator_count)
            for q in quotes
            if (q.provider.lower(), q.instance_type) == (line.provider, line.instance_type)
        ),
        None,
    )
    if hardware is None:
        return None
    accelerator, count = hardware
    per_hour = [_per_accelerator_hour(o) for o in on_demand if o.accelerator_id == accelerator]
    return min(per_hour) * count if per_hour else None


def masked_rows(rows: Sequence[Mapping[str, object]]) -> list[dict[str, object]]:
    """Plan lines as a page shows them to a person who may not see negotiated quotes: a
    negotiated line's $/hour and $/month are left empty and its note says they are withheld
    (the number columns stay numbers, so the table still formats and sorts)."""
    out = []
    for row in rows:
        row = dict(row)
        if row.get("pricing_model") == NEGOTIATED:
            for column in ("usd_per_hour", "monthly_usd"):
                if column in row:
                    row[column] = None
            note = str(row.get("note") or "")
            row["note"] = f"{WITHHELD_RATE}; {note}" if note else WITHHELD_RATE
        out.append(row)
    return out


def _money_column(name: object) -> bool:
    text = str(name).lower()
    return any(word in text for word in ("$", "usd", "rate", "cost", "price", "/hour", "/month"))


def masked_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """A brief's table without the money figures of its negotiated rows: in every row where any
    column reads 'negotiated', each money column (named with $, usd, rate, cost or price) is
    emptied."""
    if frame.empty:
        return frame
    negotiated = pd.Series(False, index=frame.index)
    for column in frame.columns:
        if frame[column].dtype == object or pd.api.types.is_string_dtype(frame[column]):
            negotiated |= frame[column].astype(str).str.strip().str.lower().eq(NEGOTIATED)
    if not negotiated.any():
        return frame
    out = frame.copy()
    for column in out.columns:
        if _money_column(column):
            out[column] = out[column].astype(object)
            out.loc[negotiated, column] = None
    return out


def masked_document(doc: Document, notes: Sequence[str] = ()) -> Document:
    """``doc`` with :func:`masked_frame` applied to every table and to the CSV export, and the
    withholding said in words under its title (``notes``: what was done to each line)."""
    sections = []
    for section in doc.sections:
        blocks = tuple(
            replace(block, frame=masked_frame(block.frame)) if isinstance(block, Table) else block
            for block in section.blocks
        )
        sections.append(replace(section, blocks=blocks))
    said = (("Negotiated rates", WITHHELD_NOTE), *(("Withheld line", note) for note in notes))
    return replace(
        doc,
        meta=(*doc.meta, *said),
        sections=tuple(sections),
        csv_frame=masked_frame(doc.csv_frame),
        assumptions=masked_frame(doc.assumptions),
    )
