"""The workspace and its what-ifs: read a workspace (a YAML file, the warehouse's current version
or the bundled example), validate it against the current prices, and apply the what-ifs a page
address or the command line carries."""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pandas as pd
import yaml

from costmodel import Engine
from costmodel.plan import WorkspaceEngine
from costmodel.plan_inputs import PlanContext
from costmodel.workspace_model import (
    Workload,
    Workspace,
    WorkspaceError,
    workspace_from_dict,
    workspace_to_dict,
)
from planning import what_ifs as si
from planning.estimates import with_estimates
from tokendesk import formatting
from tokendesk.safeyaml import YamlInputError, YamlLimits, load_yaml_text, read_yaml_text
from tokendesk.textsafety import clean_text
from warehouse import Warehouse, queries
from warehouse.seed import PriceCheck
from warehouse.workspace_versions import (
    current_workspace,
    example_workspace_body,
    save_workspace,
    workspace_versions,
)

#: The one table of defaults every surface starts from (shares, SLO, peak, utilisation, …).
DEFAULTS = si.DEFAULTS


class WorkspaceFileError(ValueError):
    """A workspace file could not be read; the message names the file and the field."""


#: Largest workspace file: the bundled example is 3 KiB and a 500-line fleet about 100 KiB.
MAX_WORKSPACE_BYTES = 512 * 1024
#: Every way a workspace enters (a file, an upload, ``--workspace``) is read within these: the
#: size, and YAML's alias, depth and node limits, before anything is parsed whole.
WORKSPACE_LIMITS = YamlLimits(max_bytes=MAX_WORKSPACE_BYTES, max_nodes=50_000)


def parse_workspace_text(text: str, source: str) -> tuple[Workspace, dict]:
    """The validated workspace in ``text`` and the parsed document; a refusal names the file
    and the field in one short sentence, never the document echoed back."""
    source = clean_text(source)
    try:
        body = load_yaml_text(text, source, WORKSPACE_LIMITS)
    except YamlInputError as exc:
        raise WorkspaceFileError(str(exc)) from None
    try:
        return workspace_from_dict(body), body  # type: ignore[return-value]
    except WorkspaceError as exc:
        raise WorkspaceFileError(
            f"{source}: {problem_in_words(exc, body if isinstance(body, Mapping) else None, with_path=True)}"
        ) from None


def read_workspace_file(path: Path) -> tuple[Workspace, dict]:
    """A workspace file: a regular file (a directory, device or pipe is refused by its type
    before a byte is read), at most ``MAX_WORKSPACE_BYTES``, UTF-8, then validated."""
    try:
        text = read_yaml_text(path, WORKSPACE_LIMITS)
    except YamlInputError as exc:
        raise WorkspaceFileError(str(exc)) from None
    return parse_workspace_text(text, path.name)


def workspace_from_upload(name: str, payload: bytes) -> tuple[Workspace, dict]:
    """An uploaded workspace (the dashboard's file uploader holds it in memory)."""
    if len(payload) > MAX_WORKSPACE_BYTES:
        raise WorkspaceFileError(
            f"{clean_text(name)}: is larger than {MAX_WORKSPACE_BYTES // 1024} KiB; shorten it"
        )
    try:
        text = payload.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise WorkspaceFileError(
            f"{clean_text(name)}: is not UTF-8 text (byte {exc.start:,}); save it as UTF-8"
        ) from None
    return parse_workspace_text(text, name)


def example_workspace() -> Workspace:
    return workspace_from_dict(example_workspace_body())


def is_example(ws: Workspace) -> bool:
    """Whether ``ws`` is still the bundled example (an illustrative company, not the user's)."""
    return ws.name == example_workspace_body().get("name")


def stored_workspace(warehouse: Warehouse) -> tuple[int | None, Workspace]:
    """The warehouse's current workspace (version, workspace); the bundled example if none."""
    hit = current_workspace(warehouse)
    if hit is None:
        return None, example_workspace()
    version, body = hit
    return version, workspace_from_dict(body)


def bill_provenance(warehouse: Warehouse) -> str | None:
    """Where the current workspace's fleet came from when it was derived from a cloud bill
    (``tokendesk workspace from-bill --save``): its files, month and the reconciliation of that
    month's accelerator spend against Stay; None otherwise."""
    versions = workspace_versions(warehouse)
    if versions.empty or versions.iloc[0]["origin"] != "bill":
        return None
    newest = versions.iloc[0]
    return (
        f"{newest['source']} (saved as version {int(newest['version'])} by {newest['created_by']})"
    )


def fleet_instance_types(ws: Workspace) -> tuple[str, ...]:
    """The instance types ``ws``'s fleet names (sorted, once each)."""
    return tuple(sorted({entry.instance_type for entry in ws.fleet}))


def planning_options(
    warehouse: Warehouse, ws: Workspace | None = None, *, pricing_model: Iterable[str] | None = None
) -> pd.DataFrame:
    """The cost-options rows ``ws`` is planned on (``queries.planning_options``: dominated
    duplicate quotes pruned, every quote of the fleet's instance types kept); ``ws`` None is
    the warehouse's stored workspace. The one frame an engine is built from and a brief lists
    its sources from."""
    if ws is None:
        _, ws = stored_workspace(warehouse)
    return queries.planning_options(
        warehouse,
        pricing_model=None if pricing_model is None else list(pricing_model),
        keep_instance_types=fleet_instance_types(ws),
    )


def engine_for(
    warehouse: Warehouse, ws: Workspace | None = None, *, pricing_model: Iterable[str] | None = None
) -> Engine:
    """The scenario engine over :func:`planning_options` for ``ws`` (None: the stored one), with
    estimated capacity where ``ws`` allows it and a workload needs it."""
    return planned_on(warehouse, ws, pricing_model=pricing_model)[1]


def planned_on(
    warehouse: Warehouse, ws: Workspace | None = None, *, pricing_model: Iterable[str] | None = None
) -> tuple[pd.DataFrame, Engine]:
    """The cost-options rows ``ws`` is planned on and the engine built from them, estimated
    capacity added for ``ws``'s own demand: every surface (the scenarios command, the brief,
    the tests that compare them) builds its engine here, so a plan is computed on one engine."""
    if ws is None:
        _, ws = stored_workspace(warehouse)
    options = planning_options(warehouse, ws, pricing_model=pricing_model)
    return options, with_estimates(Engine.from_frame(options), ws, warehouse)


@dataclass(frozen=True)
class Knobs:
    """The scenario inputs beyond the workspace (URL keys on the Scenarios page)."""

    amd_share: float = DEFAULTS.amd
    cpu_share: float = DEFAULTS.cpu
    custom: tuple[tuple[str, float], ...] = ()
    loaded_usd_per_engineer_week: float = DEFAULTS.rate
    utilisation_cap: float = DEFAULTS.util
    #: One-time cost per new backend (e.g. from a portability audit), overriding the estimate.
    one_time_usd_by_backend: tuple[tuple[str, float], ...] = ()


#: URL keys that change the workspace's demand for a what-if (every workload alike). ``pct`` is
#: the percentile every latency is read at, the same key the Overview uses.
DEMAND_OVERRIDES = {
    "peak": "peak_to_mean",
    "inter": "interactive_share",
    "slo": "ttft_ms",
    "pct": "percentile",
}
#: The what-ifs that are text, not numbers.
TEXT_OVERRIDES = frozenset({"pct"})


@dataclass(frozen=True)
class ScenarioView:
    workspace: Workspace
    knobs: Knobs
    #: The what-ifs set aside (a bad value falls back to its default), each with why.
    rejected: tuple[si.Rejected, ...]
    #: What-ifs applied on top of the stored workspace, as URL key -> value.
    overrides: dict


def scenario_view(params: Mapping, ws: Workspace) -> ScenarioView:
    """Validated URL what-ifs on top of the workspace; a bad value falls back with a notice."""
    inputs, rejected = si.from_params(params)
    set_aside = {r.key for r in rejected}
    good = {k for k in params if k in DEMAND_OVERRIDES and k not in set_aside}
    overrides = {k: getattr(inputs, k) for k in sorted(good)}
    changes: dict[str, Any] = {
        DEMAND_OVERRIDES[k]: v if k in TEXT_OVERRIDES else float(v) for k, v in overrides.items()
    }
    demand = tuple(replace(w, **changes) for w in ws.demand)
    custom = si.parse_custom(inputs.custom) if inputs.custom else ()
    knobs = Knobs(
        amd_share=inputs.amd,
        cpu_share=inputs.cpu,
        custom=custom,
        loaded_usd_per_engineer_week=inputs.rate,
        utilisation_cap=inputs.util,
    )
    return ScenarioView(replace(ws, demand=demand), knobs, rejected, overrides)


def check_workspace(engine: Engine, ws: Workspace) -> WorkspaceEngine:
    """Raises WorkspaceError when a fleet line has neither a rate nor a current list price."""
    return WorkspaceEngine(engine, PlanContext(ws))


def pricing_problems(
    engine: Engine,
    ws: Workspace,
    *,
    with_path: bool = False,
    known_instance_types: Iterable[str] | None = None,
) -> list[str]:
    """What stops ``ws`` from being priced, in the words of :func:`problem_in_words` (a fleet
    line with neither a rate nor a current list price, with the catalog's nearest instance type
    among ``known_instance_types``, default the engine's); empty when every line is priced.

    The engine plans on pruned options (``queries.planning_options``), so an instance type a
    mistyped line meant may be absent from it: pass every current one
    (``queries.current_instance_types``)."""
    try:
        check_workspace(engine, ws)
    except WorkspaceError as exc:
        known = (
            set(known_instance_types)
            if known_instance_types is not None
            else {o.instance_type for o in engine.table.options}
        )
        return [problem_in_words(exc, workspace_to_dict(ws), known, with_path=with_path)]
    return []


def import_workspace(warehouse: Warehouse, path: Path) -> int:
    """Validate a YAML file whole (fields, then rates against current prices) and append it."""
    ws, body = read_workspace_file(path)
    problems = pricing_problems(
        engine_for(warehouse, ws),
        ws,
        with_path=True,
        known_instance_types=queries.current_instance_types(warehouse),
    )
    if problems:
        raise WorkspaceFileError(f"{path.name}: {problems[0]}")
    return save_workspace(warehouse, workspace_to_dict(ws), origin="import", source=path.name)


def export_yaml(ws: Workspace) -> str:
    return yaml.safe_dump(workspace_to_dict(ws), sort_keys=False, allow_unicode=True)


def view_params(
    ws: Workspace, knobs: Knobs, unit: str = formatting.DEFAULT_TOKEN_UNIT
) -> dict[str, str]:
    """The Scenarios-page URL keys that reproduce this comparison: the knobs that differ from the
    defaults, the what-ifs (peak, SLO, interactive share) as the comparison used them and the
    token unit, and the optimal fleet solved (a brief always holds it); only keys that page reads
    (``what_ifs.PAGE_KEYS``, its unit and its optimizer switch).

    The page applies a what-if to every workload alike, so one is written only where every
    workload has the same value: workloads that differ (a 2,000 ms chat SLO beside a 1,000 ms
    routing SLO) are reproduced by leaving the key out."""
    params = si.page_params(
        si.ScenarioInputs(
            amd=knobs.amd_share,
            cpu=knobs.cpu_share,
            util=knobs.utilisation_cap,
            rate=knobs.loaded_usd_per_engineer_week,
            custom=",".join(f"{b}:{s:g}" for b, s in knobs.custom),
        )
    )
    for key, field in DEMAND_OVERRIDES.items():
        values = {getattr(w, field) for w in ws.demand}
        if len(values) == 1:
            value = values.pop()
            params[key] = str(value) if key in TEXT_OVERRIDES else f"{value:g}"
    return params | formatting.token_unit_params(unit) | {si.OPTIMAL_KEY: "true"}


#: The name of the workspace a market-wide brief prices: no fleet, the demand of its inputs.
MARKET_WORKSPACE = "The market (no fleet of your own)"


def market_workspace(inputs: si.ScenarioInputs) -> Workspace:
    """A company with no fleet yet and the demand of the dashboard's market inputs (``model``,
    ``out_b``, ``in_b``, ``small_b``, ``inter``, ``peak``, ``slo``, ``pct``): the market-wide brief
    is the same evaluation as a company's, on this workspace. Its Stay buys every token on the
    incumbent backend (CUDA) at market prices."""
    family = si.MODEL_FAMILIES[inputs.model]
    shape = (inputs.inter, inputs.peak, inputs.slo, inputs.pct)
    demand = [
        Workload(
            f"main ({inputs.model})",
            family[0],
            inputs.out_b * 1e9,
            inputs.in_b * 1e9,
            *shape,
            accept_results_from=tuple(family[1:]),
            small_model=inputs.model == "8b",
        )
    ]
    if inputs.small_b > 0 and inputs.model != "8b":
        small = si.MODEL_FAMILIES["8b"]
        demand.append(
            Workload(
                "small model (8b)",
                small[0],
                inputs.small_b * 1e9,
                # Routing and classification prompts run about twice their outputs.
                inputs.small_b * 2e9,
                *shape,
                accept_results_from=tuple(small[1:]),
                small_model=True,
            )
        )
    return Workspace(MARKET_WORKSPACE, (), tuple(demand))


def market_knobs(inputs: si.ScenarioInputs) -> Knobs:
    return Knobs(
        amd_share=inputs.amd,
        cpu_share=inputs.cpu,
        custom=si.parse_custom(inputs.custom) if inputs.custom else (),
        loaded_usd_per_engineer_week=inputs.rate,
        utilisation_cap=inputs.util,
    )


def market_view_defaults(ws: Workspace) -> tuple[str, float, str]:
    """The Overview's model class, SLO and percentile for this company: those of its largest
    workload (by output tokens), so the market view starts from the company's own SLO."""
    main = max(ws.demand, key=lambda w: w.output_tokens_per_month)
    name = " ".join((main.model, *main.accept_results_from)).lower()
    family = next(
        (
            key
            for key in si.MODEL_FAMILIES
            if key in name.replace("-", " ").split() or f"-{key}" in name
        ),
        DEFAULTS.model,
    )
    return family, float(main.ttft_ms), main.percentile


def workspace_and_engine(
    db: Path | None, workspace: Path | None, seed_check: PriceCheck
) -> tuple[Workspace, Engine]:
    """The workspace (from ``workspace``, else the warehouse's current one) and the scenario
    engine over the warehouse's priced options, read in one visit to the warehouse.

    ``seed_check`` is required: a command run first on a new install builds the warehouse from
    the bundled data through it; without it the new file would hold the schema and no data."""
    with Warehouse.open(db, read_only=True, seed_check=seed_check) as warehouse:
        if workspace is not None:
            ws, _ = read_workspace_file(workspace)
        else:
            _, ws = stored_workspace(warehouse)
        return ws, engine_for(warehouse, ws)


# ---- problems in the words of the person who entered the workspace -----------------------------
#: What a person reads for each workspace field: the Workspace page's column headers and the
#: field a problem names.
FIELD_WORDS = {
    "provider": "Provider",
    "region": "Region",
    "instance_type": "Instance type",
    "count": "Count",
    "pricing_model": "Pricing model",
    "usd_per_hour": "$/hour (effective)",
    "commitment_end": "Commitment ends",
    "early_termination_usd": "Early-termination cost ($)",
    "serves": "Serves",
    "workload": "Workload",
    "model": "Model",
    "output_tokens_per_month": "Output tokens / month",
    "input_tokens_per_month": "Input tokens / month",
    "interactive_share": "Interactive share",
    "peak_to_mean": "Peak ÷ mean",
    "ttft_ms": "FTL SLO",
    "percentile": "Percentile",
    "growth_per_quarter": "Growth / quarter",
    "accept_results_from": "Results that may stand in",
    "small_model": "Small model",
    "name": "Name",
    "max_vendor_share": "Largest share on one vendor",
    "providers": "Approved providers",
    "regions": "Approved regions",
    "allow_owned": "The optimizer may buy servers",
    "allow_spot": "The workloads may run on spot",
    "allow_estimates": "Estimated capacity may serve a workload no result measures",
    "start": "Month 1 starts",
    "site_region": "Site region",
    "usd_per_kwh": "Electricity ($ per kWh)",
    "depreciation_years": "Depreciation (years)",
    "financing_rate": "Financing rate (per year)",
    "pue": "PUE",
    "colo_usd_per_kw_month": "Colocation fee ($ per kW per month)",
    "staff_usd_per_fte_year": "Operations staff ($ per person per year)",
    "servers_per_fte": "Servers one operations person runs",
    "discount_1y": "1-year committed discount",
    "discount_3y": "3-year committed discount",
    "probability": "Probability",
    "demand_factor": "Demand ÷ stated demand",
    "scenarios": "Commitment scenarios",
    "one_time_usd": "One-time cost per new backend",
    # whole blocks of the file
    "workspace": "The workspace",
    "fleet": "Fleet",
    "demand": "Demand",
    "constraints": "Constraints",
    "owned": "Owned hardware",
    "commitment": "Commitment",
    "audit": "Portability audit",
    "engineer_weeks": "Engineer-weeks",
}
_ROW = re.compile(r"^(fleet|demand)\[(\d+)\]\.?(.*)$")
_SCENARIO = re.compile(r"^commitment\.scenarios\[(\d+)\]\.?(.*)$")


def _normalised(name: str) -> str:
    """An instance type as people loosely write it: case, spaces, ``_`` and Azure's ``Standard``
    prefix do not count ("ND96isr MI300X v5" ~ "Standard_ND96isr_MI300X_v5")."""
    key = re.sub(r"[^a-z0-9]", "", name.lower())
    return key.removeprefix("standard")


def nearest_instance_type(name: str, known: Iterable[str]) -> str | None:
    """The catalog's instance type ``name`` most likely means (None when none is close)."""
    by_key: dict[str, str] = {}
    for candidate in sorted(set(known)):
        by_key.setdefault(_normalised(candidate), candidate)
    key = _normalised(name)
    if not key or by_key.get(key) == name:
        return None
    if key in by_key:
        return by_key[key]
    close = difflib.get_close_matches(key, list(by_key), n=1, cutoff=0.75)
    return by_key[close[0]] if close else None


def _row_name(body: Mapping | None, table: str, index: int) -> str:
    rows = body.get(table) if isinstance(body, Mapping) else None
    if not isinstance(rows, list) or not 0 <= index < len(rows):
        return ""
    row = rows[index]
    if not isinstance(row, Mapping):
        return ""
    value = row.get("instance_type" if table == "fleet" else "workload")
    if not isinstance(value, (str, int, float)) or isinstance(value, bool) or value == "":
        return ""  # a name that is itself the problem is not repeated
    if isinstance(value, int) and value.bit_length() > 64:
        return ""  # nor a number too long to be a name
    text = clean_text(str(value)).strip()
    return text if len(text) <= 60 else text[:59] + "…"


def problem_in_words(
    exc: WorkspaceError,
    body: Mapping | None = None,
    known_instances: Iterable[str] = (),
    *,
    with_path: bool = False,
) -> str:
    """A workspace problem as the person who entered it reads it: fleet lines and workloads
    counted from 1 and named ("Fleet line 2 (ND96isr MI300X v5), $/hour (effective): …"), the
    field in words, and for a fleet line the catalog's nearest instance type ("did you mean
    Standard_ND96isr_MI300X_v5?"). ``with_path`` adds the field's place in the YAML file
    ("(at fleet[1].usd_per_hour)") for a person fixing the file."""
    where = exc.where
    match = _ROW.match(where)
    suggestion = ""
    scenario = _SCENARIO.match(where)
    if scenario is not None:
        field = scenario.group(2)
        place = f"Commitment scenario {int(scenario.group(1)) + 1}" + (
            f", {FIELD_WORDS.get(field, field)}" if field else ""
        )
    elif match is None:
        field = where.split(".")[-1]
        place = FIELD_WORDS.get(field, where)
    else:
        table, index, field = match.group(1), int(match.group(2)), match.group(3)
        field = field.removeprefix("slo.")
        name = _row_name(body, table, index)
        place = f"{'Fleet line' if table == 'fleet' else 'Workload'} {index + 1}"
        if name:
            place += f" ({name})"
        if field:
            place += f", {FIELD_WORDS.get(field, field)}"
        if table == "fleet" and field in ("usd_per_hour", "instance_type") and name:
            nearest = nearest_instance_type(name, known_instances)
            if nearest is not None:
                suggestion = f" — did you mean {nearest}?"
    # Parentheses, not brackets: a terminal that reads markup would take "[workspace.name]" for a tag.
    path = f" (at {where})" if with_path and place != where else ""
    return f"{place}{path}: {exc.message}{suggestion}"
