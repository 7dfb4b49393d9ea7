"""Negotiated fleet rates kept from the roles that may not see negotiated quotes.

A workspace fleet line bought under ``pricing_model: negotiated`` carries the rate of a private
contract (or, without one, is priced from the current negotiated quote). A person whose role may
not see negotiated quotes still gets every page: the Workspace page and its YAML export show the
line with its rate withheld, the Scenarios page prices the line at its real rate (so every plan's
total is the same for every role) but shows its per-line rate and monthly cost as withheld.
No Streamlit here: each rule is a plain function the pages and tests call.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace

import pandas as pd

from briefs.document import Document, Table
from costmodel.workspace_model import FleetEntry, Workspace
from tokendesk.records import PriceQuote

NEGOTIATED = "negotiated"
#: The note a plan line whose figures are withheld carries.
WITHHELD_RATE = "rate and cost withheld (negotiated)"
#: The sentence a page shows once when it withheld anything.
WITHHELD_NOTE = (
    "Negotiated fleet rates are withheld: your role may not see negotiated quotes. Plans are"
    " still priced at those rates; ask an editor for the figures."
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


def quoted_rates(ws: Workspace, quotes: Iterable[PriceQuote]) -> Workspace:
    """``ws`` with each negotiated line that states no rate given the current negotiated quote's
    rate for its instance (the cheapest, in its region, else anywhere at that provider): the
    pricing a person who may see the quote would get, without handing them the quote itself."""
    rates: dict[tuple[str, str, str], float] = {}
    for quote in quotes:
        if quote.pricing_model != NEGOTIATED:
            continue
        for region in (quote.region, "*"):
            key = (quote.provider.lower(), region, quote.instance_type)
            rates[key] = min(rates.get(key, quote.usd_per_hour), quote.usd_per_hour)
    fleet = []
    for line in ws.fleet:
        if line.pricing_model == NEGOTIATED and line.usd_per_hour is None:
            found = rates.get((line.provider, line.region, line.instance_type))
            if found is None:
                found = rates.get((line.provider, "*", line.instance_type))
            if found is not None:
                line = replace(line, usd_per_hour=found)
        fleet.append(line)
    return replace(ws, fleet=tuple(fleet))


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


def masked_document(doc: Document) -> Document:
    """``doc`` with :func:`masked_frame` applied to every table and to the CSV export."""
    sections = []
    for section in doc.sections:
        blocks = tuple(
            replace(block, frame=masked_frame(block.frame)) if isinstance(block, Table) else block
            for block in section.blocks
        )
        sections.append(replace(section, blocks=blocks))
    return replace(
        doc,
        sections=tuple(sections),
        csv_frame=masked_frame(doc.csv_frame),
        assumptions=masked_frame(doc.assumptions),
    )
