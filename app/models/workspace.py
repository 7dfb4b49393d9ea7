# Long by design: the Workspace page's one model, the rows <-> workspace rules of its tables,
# settings, catalog search and bill view. Each turns the same edited rows back into a workspace
# with the same cleaning helpers; split, those rules would be read apart from what they share.
"""Page model for the Workspace and Scenarios pages: no Streamlit here, so every rule is testable.

* The Workspace page edits the fleet and the demand as tables; ``fleet_from_rows`` /
  ``demand_from_rows`` turn the edited rows back into a workspace, or a list of problems that
  name the table, the row and the column.
* The Scenarios page keeps its what-ifs in the URL; ``scenario_view`` (shared with the command
  line's ``--link``) applies the ones the link carries on top of the stored workspace.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import pandas as pd

from briefs.demand_doc import TraceFileError, TrafficError, trace_document
from costmodel.workspace_model import (
    FLEET_COLUMNS,
    FLEET_PRICING_MODELS,
    OWNED_REQUIRED,
    SHAPE_FIELDS,
    Workspace,
    WorkspaceError,
    workspace_from_dict,
    workspace_to_dict,
)
from planning.workspaces import (
    DEMAND_OVERRIDES,
    ScenarioView,
    example_workspace,
    problem_in_words,
    scenario_view,
)
from tokendesk import formatting, units
from tokendesk.labels import label

if TYPE_CHECKING:
    from planning.bill import BillReport

DEMAND_COLUMNS = (
    "workload",
    "model",
    "output_tokens_per_month",
    "input_tokens_per_month",
    "interactive_share",
    "peak_to_mean",
    "ttft_ms",
    "percentile",
    "growth_per_quarter",
    "accept_results_from",
    "small_model",
)
#: How the demand table shows its columns: what a workload is and asks for (volume, latency,
#: growth) before the finer points, so they show without scrolling at 1280 px.
DEMAND_ORDER = (
    "workload",
    "model",
    "output_tokens_per_month",
    "ttft_ms",
    "percentile",
    "growth_per_quarter",
    "input_tokens_per_month",
    "peak_to_mean",
    "interactive_share",
    "accept_results_from",
    "small_model",
)
#: How the fleet table shows its columns (the count first: it is what changes most often; what a
#: line serves before the optional terms, so it shows without scrolling at 1280 px).
FLEET_ORDER = (
    "count",
    "instance_type",
    "provider",
    "region",
    "pricing_model",
    "serves",
    "usd_per_hour",
    "commitment_end",
    "early_termination_usd",
)
#: Optional numbers are edited as text so an unset one shows empty; the validator parses them.
_OPTIONAL_NUMBERS = {"usd_per_hour", "early_termination_usd"}


def _blank(value: object) -> bool:
    if value is None:
        return True
    if isinstance(value, float) and math.isnan(value):
        return True
    return isinstance(value, str) and not value.strip()


def _clean(row: Mapping) -> dict:
    out = {}
    for key, value in row.items():
        if _blank(value):
            continue
        if hasattr(value, "isoformat") and not isinstance(value, str):
            value = value.isoformat()[:10]
        if hasattr(value, "item"):  # numpy scalars from an edited frame
            value = value.item()
        out[key] = value
    return out


#: Pricing models as a person reads them in the fleet table (the stored id is kept on save).
PRICING_LABELS = {label(m): m for m in FLEET_PRICING_MODELS}


def pricing_model_id(value: object) -> object:
    """The stored id for a pricing model the table shows as its label ("On demand" ->
    "on_demand"); an id typed as it is stays; anything else goes to the validator, which names
    the choices."""
    text = str(value).strip() if isinstance(value, str) else value
    return PRICING_LABELS.get(text, text) if isinstance(text, str) else value


def _cell(column: str, value: object) -> object:
    if value is None:
        return ""
    if column in _OPTIONAL_NUMBERS:
        return f"{value:g}"
    if column == "pricing_model":
        return label(value)
    return value


def fleet_rows(ws: Workspace) -> list[dict]:
    """One row per fleet line; an unset value is an empty cell (never "None"), the pricing
    model as its label."""
    body = workspace_to_dict(ws)
    return [{c: _cell(c, line.get(c)) for c in FLEET_COLUMNS} for line in body["fleet"]]


#: Demand columns entered as text in people's units, with the one parser each goes through.
HUMAN_COLUMNS: dict[str, tuple[Callable[[Any], str], Callable[[Any, str], float]]] = {
    "output_tokens_per_month": (units.tokens_text, units.parse_tokens),
    "input_tokens_per_month": (units.tokens_text, units.parse_tokens),
    "ttft_ms": (units.ms_text, units.parse_ms),
    "growth_per_quarter": (units.growth_text, units.parse_growth),
}


def demand_row(w) -> dict:
    """One workload as the Demand table shows it: 30 B tokens, 1,500 ms, 10 %/qtr."""
    return {
        "workload": w.workload,
        "model": w.model,
        "output_tokens_per_month": units.tokens_text(w.output_tokens_per_month),
        # None: not stated (capacity is read at the results' own mix), an empty cell
        "input_tokens_per_month": units.tokens_text(w.input_tokens_per_month),
        "interactive_share": w.interactive_share,
        "peak_to_mean": w.peak_to_mean,
        "ttft_ms": units.ms_text(w.ttft_ms),
        "percentile": w.percentile,
        "growth_per_quarter": units.growth_text(w.growth_per_quarter),
        "accept_results_from": ", ".join(w.accept_results_from),
        "small_model": w.small_model,
    }


def demand_rows(ws: Workspace) -> list[dict]:
    return [demand_row(w) for w in ws.demand]


def _demand_body(row: Mapping, index: int) -> dict:
    row = _clean(row)
    for column, (_, parse) in HUMAN_COLUMNS.items():
        if column in row:
            try:
                row[column] = parse(row[column], "")
            except units.UnitError as exc:
                where = f"demand[{index}].{'slo.' if column == 'ttft_ms' else ''}{column}"
                raise WorkspaceError(where, str(exc).removeprefix(": ")) from None
    slo = {}
    if "ttft_ms" in row:
        slo["ttft_ms"] = row.pop("ttft_ms")
    if "percentile" in row:
        slo["percentile"] = row.pop("percentile")
    if slo:
        row["slo"] = slo
    if isinstance(row.get("accept_results_from"), str):
        row["accept_results_from"] = [
            m.strip() for m in row["accept_results_from"].split(",") if m.strip()
        ]
    return row


def _fleet_body(row: Mapping) -> dict:
    row = _clean(row)
    if "pricing_model" in row:
        row["pricing_model"] = pricing_model_id(row["pricing_model"])
    return row


def _filled(row: Mapping) -> bool:
    return any(not _blank(v) and v is not False for v in row.values())


def edited_workspace(
    ws: Workspace,
    fleet: Sequence[Mapping],
    demand: Sequence[Mapping],
    settings: Callable[[], dict] | None = None,
) -> tuple[Workspace | None, list[str]]:
    """The workspace with the edited tables (and ``settings()``, a :func:`settings_body`), or
    None and the problem in the words of the page: the line or workload counted from 1 and
    named, the column by its header."""
    body = workspace_to_dict(ws)
    body["fleet"] = [_fleet_body(r) for r in fleet if _filled(r)]
    try:
        if settings is not None:
            body.update(settings())
        body["demand"] = [_demand_body(r, i) for i, r in enumerate(r for r in demand if _filled(r))]
        if not body["demand"]:
            return None, [
                "Add at least one workload to the Demand table: what the fleet serves (a name,"
                " the model and its tokens per month)."
            ]
        _keep_shapes(ws, body["demand"])
        return workspace_from_dict(body), []
    except WorkspaceError as exc:
        return None, [problem_in_words(exc, body)]


def _keep_shapes(ws: Workspace, rows: list[dict]) -> None:
    """The table does not show a workload's shape (prefix-cache share, mean lengths, source):
    a workload kept under its name keeps the shape it had."""
    shapes = {w["workload"]: w for w in workspace_to_dict(ws)["demand"]}
    for row in rows:
        kept = shapes.get(row.get("workload"), {})
        for name in SHAPE_FIELDS:
            if name in kept and _blank(row.get(name)):
                row[name] = kept[name]


def new_workload_row(
    workload: str,
    model: str,
    output_tokens: str,
    input_tokens: str,
    slo: str,
    percentile: str,
    growth: str,
    peak_to_mean: float,
    stand_ins: Sequence[str] = (),
) -> tuple[dict, str | None]:
    """A Demand table row from the "Add a workload" fields, checked the way a save checks it:
    (the row, None), or (the row, the problem in the page's words)."""
    from costmodel.workspace_model import workload_from_dict

    row = {
        "workload": workload.strip(),
        "model": model.strip(),
        "output_tokens_per_month": output_tokens.strip(),
        "input_tokens_per_month": input_tokens.strip(),
        "interactive_share": 1.0,
        "peak_to_mean": float(peak_to_mean),
        "ttft_ms": slo.strip(),
        "percentile": percentile,
        "growth_per_quarter": growth.strip(),
        "accept_results_from": ", ".join(m for m in stand_ins if m != model.strip()),
        "small_model": False,
    }
    try:
        parsed = workload_from_dict(_demand_body(row, 0), "demand[0]")
    except WorkspaceError as exc:
        problem = problem_in_words(exc, {"demand": [row]})
        return row, problem.replace("Workload 1", "The new workload", 1)
    # shown as the table shows it, so the person sees how their figures were read
    return {**row, **demand_row(parsed)}, None


# ---- the settings beyond the tables: start month, owned hardware, commitment, one-time costs ----
#: Columns of the commitment-scenario table, growth in people's units like the Demand table's.
SCENARIO_COLUMNS = ("name", "probability", "demand_factor", "growth_per_quarter")


def scenario_rows(ws: Workspace) -> list[dict]:
    """The commitment analysis's demand scenarios; empty growth = each workload's own."""
    return [
        {
            "name": s.name,
            "probability": s.probability,
            "demand_factor": s.demand_factor,
            "growth_per_quarter": units.growth_text(s.growth_per_quarter),
        }
        for s in ws.commitment.scenarios
    ]


ONE_TIME_COLUMNS = ("backend", "usd")


def one_time_rows(ws: Workspace) -> list[dict]:
    return [{"backend": b, "usd": usd} for b, usd in ws.one_time_usd_by_backend]


def settings_body(
    *,
    start: object,
    owned: Mapping | None,
    discount_1y: object,
    discount_3y: object,
    scenarios: Sequence[Mapping],
    one_time: Sequence[Mapping],
) -> dict:
    """The workspace fields the settings section edits, in the YAML shape the validator reads
    (``edited_workspace(settings=...)``); a bad value is named by the validator."""
    body: dict = {"start": start.isoformat() if hasattr(start, "isoformat") else start}
    body["owned"] = {k: v for k, v in (owned or {}).items() if not _blank(v)} or None
    commitment_scenarios = []
    for index, row in enumerate(r for r in scenarios if _filled(r)):
        row = _clean(row)
        if "growth_per_quarter" in row:
            try:
                row["growth_per_quarter"] = units.parse_growth(row["growth_per_quarter"], "")
            except units.UnitError as exc:
                raise WorkspaceError(
                    f"commitment.scenarios[{index}].growth_per_quarter",
                    str(exc).removeprefix(": "),
                ) from None
        commitment_scenarios.append(row)
    commitment = {
        "scenarios": commitment_scenarios,
        "discount_1y": discount_1y,
        "discount_3y": discount_3y,
    }
    body["commitment"] = {k: v for k, v in commitment.items() if v not in (None, [])} or None
    costs = {}
    for row in one_time:
        row = _clean(row)
        if row.get("backend"):
            costs[str(row["backend"]).strip().lower()] = row.get("usd")
    body["one_time_usd"] = costs or None
    return body


#: The owned-hardware terms the settings section edits, in the workspace file's names.
OWNED_FIELDS = ("site_region", "usd_per_kwh", *(name for name, _ in OWNED_REQUIRED))


def _as_edited(rows: list[dict], columns: Sequence[str]) -> list[dict]:
    """Rows as a table editor gives them back unedited (every column present)."""
    return pd.DataFrame(rows, columns=list(columns)).to_dict("records")


def settings_fields(ws: Workspace) -> dict[str, Any]:
    """The settings section's fields as the page first shows them for ``ws``, by the workspace
    file's names, with the tables as rows. Save reads these while the section was never opened;
    owned-hardware terms come from the example where ``ws`` keeps none (used only if the person
    lets the optimizer buy servers)."""
    terms = ws.owned or start_own(example_workspace()).owned
    fields: dict[str, Any] = {
        "start": ws.start,
        "site_region": terms.site_region if terms else "",
        "usd_per_kwh": ""
        if terms is None or terms.usd_per_kwh is None
        else f"{terms.usd_per_kwh:g}",
        "servers": list(terms.servers) if terms is not None and terms.servers else [],
        "discount_1y": ""
        if ws.commitment.discount_1y is None
        else f"{ws.commitment.discount_1y:g}",
        "discount_3y": ""
        if ws.commitment.discount_3y is None
        else f"{ws.commitment.discount_3y:g}",
        "scenarios": _as_edited(scenario_rows(ws), SCENARIO_COLUMNS),
        "one_time": _as_edited(one_time_rows(ws), ONE_TIME_COLUMNS),
    }
    for name, bound in OWNED_REQUIRED:
        fields[name] = float(getattr(terms, name)) if terms else bound.low
    return fields


def settings_signature(fields: Mapping[str, Any]) -> str:
    """The settings as one text, equal for equal settings (a gap reads the same each time)."""
    return json.dumps(fields, sort_keys=True, default=str)


def settings_from_fields(fields: Mapping[str, Any], *, owned: bool) -> dict:
    """``settings_body`` from the section's fields; ``owned``: whether the workspace keeps
    owned-hardware terms (it has them, or the optimizer may buy servers)."""
    terms: dict[str, Any] = {name: fields[name] for name in OWNED_FIELDS}
    if fields["servers"]:
        terms["servers"] = list(fields["servers"])
    return settings_body(
        start=fields["start"],
        owned=terms if owned else None,
        discount_1y=str(fields["discount_1y"]).strip() or None,
        discount_3y=str(fields["discount_3y"]).strip() or None,
        scenarios=fields["scenarios"],
        one_time=fields["one_time"],
    )


# ---- a workspace of one's own -----------------------------------------------------------------
#: The name a new workspace starts with (the person types their company's).
OWN_WORKSPACE_NAME = "My company"


def start_own(example: Workspace) -> Workspace:
    """An empty workspace to fill in: no fleet and no workloads, with the example's settings for
    the rest (start month, vendor-share cap, commitment scenarios, owned-hardware terms,
    on-demand basis), which the scenarios need and the person may change later. Not its approved
    providers and regions: those are the company's own choice (inherited, Optimal bought from
    providers the person never chose), so the page asks for them (:func:`providers_problem`)."""
    return replace(
        example,
        name=OWN_WORKSPACE_NAME,
        fleet=(),
        demand=(),
        audit=(),
        audit_basis="",
        constraints=replace(example.constraints, providers=None, regions=None),
    )


#: What a new workspace's save says while its approved providers are not chosen.
PROVIDERS_UNCHOSEN = (
    "choose the providers you may buy from under Constraints (Approved providers), or tick"
    " “Any provider”: a new workspace does not take the example's"
)


def providers_problem(providers: Sequence[str] | None, any_provider: bool) -> str | None:
    """Why a new workspace cannot be saved yet: no approved providers named and "any provider"
    not ticked; None once either is given."""
    return None if providers or any_provider else PROVIDERS_UNCHOSEN


def header(name: str, version: int | None, example: bool) -> str:
    """The line under the page title: which workspace and which stored version is shown."""
    if version is None:
        return f"Current: **{name}**, the bundled example (not saved yet)."
    return f"Current: **{name}**, version {version}" + (
        " (the bundled example)." if example else "."
    )


# ---- the instance catalog: search and add a fleet line ----------------------------------------
def _search_key(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def search_catalog(catalog: pd.DataFrame, query: str) -> pd.DataFrame:
    """Catalog rows whose provider, region, instance type or accelerator match every word of
    ``query``, ignoring case, spaces and ``_`` ("ND96isr MI300X v5" and "mi300x" both find
    Standard_ND96isr_MI300X_v5)."""
    words = [_search_key(w) for w in re.split(r"[\s,]+", query) if _search_key(w)]
    if not words or catalog.empty:
        return catalog
    haystack = (
        catalog["provider"].astype(str)
        + " "
        + catalog["region"].astype(str)
        + " "
        + catalog["instance_type"].astype(str)
        + " "
        + catalog["accelerator_name"].astype(str)
    ).map(_search_key)
    keep = haystack.map(lambda text: all(w in text for w in words))
    return catalog[keep]


def sku_text(row: Mapping) -> str:
    """What the instance list shows for one SKU: the instance, its accelerators and the
    on-demand list price with its date ("date unknown" when the source states none)."""
    count = int(row["accelerator_count"]) if not _blank(row["accelerator_count"]) else 0
    accelerator = str(row["accelerator_name"])
    hardware = f"{count} × {accelerator}" if count > 1 else accelerator
    price = row.get("on_demand_usd_per_hour")
    if _blank(price):
        listed = "no on-demand list price per instance"
    else:
        listed = (
            f"{formatting.usd_rate(price)}/h on demand ({formatting.day(row.get('observed_at'))})"
        )
    return f"{row['instance_type']} — {hardware} — {listed}"


def fleet_line_from_sku(
    sku: Mapping,
    *,
    count: int,
    pricing_model: str,
    serves: str,
    region: str = "",
    usd_per_hour: str = "",
    commitment_end: str = "",
) -> dict:
    """A fleet table row for a SKU picked from the catalog (provider, region and instance type
    from the catalog; the region the person runs it in when the catalog's differs)."""
    return {
        "provider": str(sku["provider"]),
        "region": region.strip() or str(sku["region"]),
        "instance_type": str(sku["instance_type"]),
        "count": count,
        "pricing_model": label(pricing_model_id(pricing_model)),
        "usd_per_hour": usd_per_hour.strip(),
        "commitment_end": commitment_end.strip(),
        "early_termination_usd": "",
        "serves": serves,
    }


@dataclass(frozen=True)
class BillView:
    """What the Workspace page shows of an uploaded bill, as text and table rows."""

    source: str
    fleet: list[dict]
    unplaced: list[dict]
    reconciliation: str
    explained: list[str]
    changes: list[dict]
    notes: list[str]


def bill_view(report: BillReport) -> BillView:
    """The same figures ``tokendesk workspace from-bill`` prints, laid out for the page."""
    src = report.source()
    files = "; ".join(
        f"{f['file']} ({f['rows']:,} rows, FOCUS {f['focus_version']},"
        f" {', '.join(f['providers'])}, billed ${f['billed_usd']:,.2f})"
        for f in src["files"]
    )
    month = src["month"] or "no month"
    source = f"Source: {files}. Fleet month: {month}; confidence {src['confidence']}."
    fleet = [
        {
            "Count": r["count"],
            "Instance type": r["instance_type"],
            "Provider": r["provider"],
            "Region": r["region"],
            "Pricing model": r["pricing_model"],
            "$/hour (effective)": f"{r['usd_per_hour']:,.4f}",
            "Commitment ends": r["commitment_end"] or "",
            "Serves": r["serves"],
            "Billed $": _usd_or_kept(r["billed_usd"]),
            "Usage billed $": _usd_or_kept(r["usage_billed_usd"]),
            "Commitment fees $": _usd_or_kept(r["commitment_fees_usd"]),
        }
        for r in report.fleet_rows()
    ]
    unplaced = [
        {"Reason": u["reason"], "Billed $": f"{u['cost_usd']:,.2f}", "Rows": f"{u['rows']:,}"}
        for u in report.unplaced_rows()
    ]
    rec = report.reconciliation
    summary = (
        f"{month}: accelerator spend on the bill ${rec.bill_usd:,.2f}; Stay month 1"
        f" ${rec.stay_month1_usd:,.2f}; difference ${rec.difference_usd:+,.2f}."
    )
    explained = [
        f"{ln.label}: ${ln.difference_usd:+,.2f} = "
        + " ".join(f"({p.usd:+,.2f}: {p.why})" for p in ln.parts)
        for ln in rec.lines
    ]
    changes = [
        {
            "Change": c.change,
            "Instance type": c.instance_type,
            "Provider": c.provider,
            "Region": c.region,
            "Pricing model": c.pricing_model,
            "Details": "; ".join(c.details),
            "Why": c.reason,
        }
        for c in report.changes
    ]
    return BillView(source, fleet, unplaced, summary, explained, changes, list(report.notes))


def _usd_or_kept(value: float | None) -> str:
    """A billed figure, or why there is none: the line is kept from the current workspace."""
    return "not on this bill (kept)" if value is None else f"{value:,.2f}"


def bill_provenance(versions: pd.DataFrame, version: int | None) -> str:
    """The sentence the Scenarios page shows when the current fleet was taken from a bill."""
    if version is None or versions.empty:
        return ""
    rows = versions[versions["version"] == version]
    if rows.empty or rows.iloc[0]["origin"] != "bill":
        return ""
    row = rows.iloc[0]
    who = row["created_by"] or "someone not recorded"
    return (
        f"The fleet comes from your cloud bill: {row['source']} (workspace version {version},"
        f" saved by {who} on {row['saved_at']:%Y-%m-%d}). Stay prices each line at its count ×"
        " the bill's effective rate × 730 h."
    )


__all__ = [
    "DEMAND_OVERRIDES",
    "BillView",
    "bill_provenance",
    "bill_view",
    "ScenarioView",
    "demand_rows",
    "edited_workspace",
    "fleet_rows",
    "scenario_view",
]


# ------------------------------------------------------------------ demand from a trace
#: The dashboard's upload limit (``.streamlit/config.toml`` ``maxUploadSize``): about 550,000
#: rows of an Azure trace. The week-long Azure traces (~700 MB) belong on the command line
#: (``tokendesk workspace demand-from FILE``), which streams them.
MAX_TRACE_UPLOAD_BYTES = 20 * 1024 * 1024


def trace_demand(name: str, data: bytes) -> tuple[dict | None, str | None]:
    """(the demand document, None) for an uploaded trace, or (None, why it was refused)."""
    if len(data) > MAX_TRACE_UPLOAD_BYTES:
        return None, (
            f"{name}: {len(data) / 1024**2:,.0f} MB is over the page's "
            f"{MAX_TRACE_UPLOAD_BYTES // 1024**2} MB; use `tokendesk workspace demand-from FILE`"
        )
    try:
        return trace_document(name=name, data=data), None
    except (TraceFileError, TrafficError) as exc:
        return None, str(exc)


def hour_of_day_frame(doc: dict) -> pd.DataFrame:
    """One row per hour of the clock the trace covered: its rate relative to the mean."""
    curve = doc["hour_of_day"]
    rows = (
        []
        if curve is None
        else [
            {"hour": f"{h:02d}:00", "relative_rate": v}
            for h, v in enumerate(curve["values"])
            if v is not None
        ]
    )
    return pd.DataFrame(rows, columns=["hour", "relative_rate"])


def over_time_frame(doc: dict) -> pd.DataFrame:
    """The trace's tokens per bucket (its peak ÷ mean grain) relative to the mean, by bucket
    start: hours or minutes after the first request."""
    curve = doc["over_time"]
    grain = curve["grain"].split()[-1]
    return pd.DataFrame(
        {"after": list(range(len(curve["values"]))), "relative_rate": curve["values"]}
    ).assign(unit=grain)


def daily_curve_complete(doc: dict) -> bool:
    """A daily curve needs every hour of the day."""
    curve = doc["hour_of_day"]
    return curve is not None and all(v is not None for v in curve["values"])


def _bin_label(low: int, below: int) -> str:
    return f"{low:,}" if below - low == 1 else f"{low:,}–{below - 1:,}"


def length_frame(doc: dict) -> pd.DataFrame:
    """Requests per doubling of length, input and output, in length order."""
    rows = [
        {
            "tokens": _bin_label(b["from_tokens"], b["below_tokens"]),
            "from_tokens": b["from_tokens"],
            "which": which,
            "requests": b["requests"],
        }
        for key, which in (("input_length", "Input"), ("output_length", "Output"))
        for b in doc[key]["histogram"]
    ]
    frame = pd.DataFrame(rows, columns=["tokens", "from_tokens", "which", "requests"])
    return frame.sort_values(["from_tokens", "which"], kind="stable").reset_index(drop=True)
