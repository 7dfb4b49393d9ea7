"""The company's own situation: the fleet it runs, the contracts it is under, the demand it serves
and the constraints it buys within. Scenarios start from here.

Plain records plus one validator (``workspace_from_dict``) that names the field at fault, and the
inverse (``workspace_to_dict``) so a workspace round-trips through YAML and the warehouse unchanged.

It stays one module (about 700 lines): each record sits beside the validator that reads it and the
inverse that writes it, so a field is added, checked and written back in one place.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date, datetime

from costmodel import domain
from costmodel.commit_levels import AT_END, CommitmentInputs, DemandScenario
from costmodel.demand import PERCENTILES
from costmodel.owned import OwnedParams
from costmodel.sizing import DEFAULT_ON_DEMAND_BASIS, OnDemandBasis
from tokendesk.labels import sku_label
from tokendesk.records import PricingModel
from tokendesk.textsafety import excerpt, has_control

#: Pricing models a fleet line may be bought under; the committed ones are paid for every hour of
#: the term whether used or not.
FLEET_PRICING_MODELS = tuple(m.value for m in PricingModel)


#: Month 1 of a workspace that states no start.
DEFAULT_START = date(2026, 12, 1)
#: Dates a workspace may hold: a plan runs 36 months from its start, so the last day of the range
#: leaves room for it (9999-12-01 would run past the calendar).
FIRST_DATE, LAST_DATE = date(2000, 1, 1), date(2199, 12, 31)
#: Fleet lines and workloads one workspace may hold: every plan prices each line against each
#: workload, so the count bounds how long every page and command takes.
MAX_FLEET_LINES = 500
MAX_WORKLOADS = 200
#: Longest name, region or other text field.
MAX_TEXT_CHARS = 200


#: How on-demand capacity is paid (``Workspace.on_demand_basis``).
ON_DEMAND_BASES = tuple(OnDemandBasis)


class WorkspaceError(ValueError):
    """A workspace field failed validation; ``where`` names it (``fleet[2].count``)."""

    def __init__(self, where: str, message: str) -> None:
        self.where, self.message = where, message
        super().__init__(f"{where}: {message}")


@dataclass(frozen=True)
class FleetEntry:
    """One line of what runs today."""

    provider: str
    region: str
    instance_type: str
    count: int
    pricing_model: str
    serves: str
    #: Effective rate per instance-hour; None = the current list price for the pricing model.
    usd_per_hour: float | None = None
    #: Committed capacity is paid until this date (None = no commitment).
    commitment_end: date | None = None
    #: Cost to end the whole line's commitment now (pro-rata for part of the line); None = unknown,
    #: so released committed units are paid until ``commitment_end``.
    early_termination_usd: float | None = None

    @property
    def label(self) -> str:
        return sku_label(
            self.provider, self.region, self.instance_type, self.pricing_model, count=self.count
        )


@dataclass(frozen=True)
class Workload:
    """One workload's demand and SLO."""

    workload: str
    model: str
    output_tokens_per_month: float
    #: Prompt tokens a month; None = not stated: capacity is read at each result's own
    #: input:output mix and no per-total-token figure is worked out from it.
    input_tokens_per_month: float | None = None
    interactive_share: float = 1.0
    peak_to_mean: float = 1.5
    ttft_ms: float = 2000.0
    percentile: str = "p95"
    growth_per_quarter: float = 0.0
    #: Published results for these models may stand in for ``model`` (same size and architecture).
    accept_results_from: tuple[str, ...] = ()
    #: A small model (3B-13B) that a CPU fallback may serve.
    small_model: bool = False
    #: Share of the input tokens a prefix cache serves (0-1; None = not known): cached input
    #: tokens are priced as what they cost on each configuration (``costmodel.shape``).
    prefix_cache_share: float | None = None
    #: Mean tokens per request (None = not known: the workspace gives monthly totals only).
    input_tokens_mean: float | None = None
    output_tokens_mean: float | None = None
    #: Where the shape came from ("from the trace X"); "" = typed into the workspace.
    shape_source: str = ""

    @property
    def models(self) -> tuple[str, ...]:
        return (self.model, *[m for m in self.accept_results_from if m != self.model])


@dataclass(frozen=True)
class AuditEffort:
    """A portability audit's estimate for one backend (``tokendesk audit --format json``)."""

    backend: str
    weeks_low: float
    weeks_base: float
    weeks_high: float
    confidence: str
    blocking_findings: int


@dataclass(frozen=True)
class Constraints:
    providers: tuple[str, ...] | None = None  # approved; None = any
    regions: tuple[str, ...] | None = None  # approved for new capacity; None = any
    max_vendor_share: float = 1.0
    #: The optimizer may buy servers (priced by the workspace's ``owned`` terms).
    allow_owned: bool = False
    #: The workloads may run on spot capacity (interruptible): only then does a spot price
    #: compete with a line that is not spot (futures-day suggestions).
    allow_spot: bool = False
    #: A backend on which no measured result of a workload's models meets its SLO may serve it
    #: with capacity the calibrated performance model estimates (each such line marked, with its
    #: interval; the optimal fleet buys it only for a workload no measured option serves). On by
    #: default: without it a model no bundled result measured is unservable.
    allow_estimates: bool = True


@dataclass(frozen=True)
class Workspace:
    name: str
    fleet: tuple[FleetEntry, ...]
    demand: tuple[Workload, ...]
    constraints: Constraints = field(default_factory=Constraints)
    #: Month 1 of every 36-month curve starts on this date.
    start: date = DEFAULT_START
    #: Explicit one-time migration cost per new backend (overrides the engineering estimate).
    one_time_usd_by_backend: tuple[tuple[str, float], ...] = ()
    #: A portability audit of the company's code: porting effort per backend. When present it
    #: replaces the default engineer-weeks in the one-time cost and lengthens the certify gate.
    audit: tuple[AuditEffort, ...] = ()
    #: Where the audit came from ("from the audit of <path> on <date>").
    audit_basis: str = ""
    #: The company's terms for running its own servers (used where ``allow_owned``).
    owned: OwnedParams | None = None
    #: Demand scenarios and committed discounts for the commitment analysis.
    commitment: CommitmentInputs = field(default_factory=CommitmentInputs)
    #: How on-demand capacity is paid, in every plan alike (Stay's fleet lines, top-ups and new
    #: lines): ``held`` (every unit all month) or ``autoscaled`` (units follow the hourly load).
    on_demand_basis: OnDemandBasis = DEFAULT_ON_DEMAND_BASIS

    def audit_for(self, backend: str) -> AuditEffort | None:
        return next((a for a in self.audit if a.backend == backend), None)

    def workload(self, name: str) -> Workload:
        for w in self.demand:
            if w.workload == name:
                return w
        raise KeyError(name)


# ---- validation ------------------------------------------------------------------------------
def _text(data: Mapping, key: str, where: str, *, required: bool = True) -> str:
    value = data.get(key)
    if value is None or (isinstance(value, str) and not value.strip()):
        if required:
            raise WorkspaceError(f"{where}.{key}", "is required")
        return ""
    if not isinstance(value, (str, int, float)) or isinstance(value, bool):
        raise WorkspaceError(f"{where}.{key}", f"expected text, got {excerpt(value)}")
    if isinstance(value, int) and value.bit_length() > 64:
        raise WorkspaceError(f"{where}.{key}", f"expected text, got {excerpt(value)}")
    text = str(value).strip()
    if len(text) > MAX_TEXT_CHARS:
        raise WorkspaceError(
            f"{where}.{key}", f"is {len(text):,} characters long; at most {MAX_TEXT_CHARS}"
        )
    if has_control(text) or "\n" in text or "\r" in text or "\t" in text:
        raise WorkspaceError(
            f"{where}.{key}",
            f"{excerpt(text)} holds a line break or control character; write it on one line",
        )
    return text


def _number(data: Mapping, key: str, where: str, bound: domain.Bound, default=None):
    value = data.get(key, default)
    if value is None:
        return None
    if isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            raise WorkspaceError(f"{where}.{key}", f"{excerpt(value)} is not a number") from None
    try:
        return bound.check(value)
    except ValueError as exc:
        raise WorkspaceError(f"{where}.{key}", str(exc)) from None


def _date(data: Mapping, key: str, where: str) -> date | None:
    """A calendar day. YAML reads an unquoted ``2026-12-01`` as a date and ``2026-12-01 00:00``
    as a date and time; both are taken as their day (a time other than midnight is refused, as
    the plan counts whole months), so what is stored is always a plain YYYY-MM-DD."""
    value = data.get(key)
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    field = f"{where}.{key}"
    if isinstance(value, datetime):
        if (value.hour, value.minute, value.second, value.microsecond) != (0, 0, 0, 0):
            raise WorkspaceError(
                field, f"{excerpt(value)} has a time of day; write the day only (YYYY-MM-DD)"
            )
        day = value.date()
    elif isinstance(value, date):
        day = value
    elif isinstance(value, str):
        try:
            day = date.fromisoformat(value.strip())
        except ValueError:
            # A version stored before timestamps were normalised holds "2026-12-01T00:00:00".
            try:
                moment = datetime.fromisoformat(value.strip())
            except ValueError:
                raise WorkspaceError(
                    field, f"{excerpt(value)} is not a date (YYYY-MM-DD)"
                ) from None
            return _date({key: moment}, key, where)
    else:
        raise WorkspaceError(field, f"{excerpt(value)} is not a date (YYYY-MM-DD)")
    if not FIRST_DATE <= day <= LAST_DATE:
        raise WorkspaceError(
            field,
            f"{day.isoformat()} is outside {FIRST_DATE.isoformat()} to {LAST_DATE.isoformat()};"
            " a plan runs 36 months from the start, so write a date in that range",
        )
    return day


def _names(value: object, where: str) -> tuple[str, ...] | None:
    if value is None:
        return None
    if isinstance(value, str):
        value = [v for v in value.split(",") if v.strip()]
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise WorkspaceError(where, f"expected a list of names, got {excerpt(value)}")
    names = tuple(v.strip() for v in value if v.strip())
    return names or None


def _unknown(data: Mapping, allowed: set[str] | frozenset[str], where: str) -> None:
    extra = sorted(set(data) - allowed)
    if extra:
        raise WorkspaceError(
            where, f"unknown field(s) {', '.join(extra)}; allowed: {', '.join(sorted(allowed))}"
        )


#: A fleet line's fields, in the order the Workspace page's table shows them.
FLEET_COLUMNS = (
    "provider",
    "region",
    "instance_type",
    "count",
    "pricing_model",
    "usd_per_hour",
    "commitment_end",
    "early_termination_usd",
    "serves",
)
FLEET_FIELDS = frozenset(FLEET_COLUMNS)
WORKLOAD_FIELDS = {
    "workload",
    "model",
    "output_tokens_per_month",
    "input_tokens_per_month",
    "interactive_share",
    "peak_to_mean",
    "slo",
    "growth_per_quarter",
    "accept_results_from",
    "small_model",
    "prefix_cache_share",
    "input_tokens_mean",
    "output_tokens_mean",
    "shape_source",
}


#: A workload's optional shape fields (left out of the YAML when unset).
SHAPE_FIELDS = ("prefix_cache_share", "input_tokens_mean", "output_tokens_mean", "shape_source")


def fleet_entry_from_dict(row: Mapping, where: str) -> FleetEntry:
    if not isinstance(row, Mapping):
        raise WorkspaceError(where, f"expected a mapping, got {excerpt(row)}")
    _unknown(row, FLEET_FIELDS, where)
    count = _number(row, "count", where, domain.FLEET_COUNT)
    if count is None:
        raise WorkspaceError(f"{where}.count", "is required")
    if count != int(count):
        raise WorkspaceError(f"{where}.count", f"must be a whole number of instances, got {count}")
    pricing = _text(row, "pricing_model", where)
    if pricing not in FLEET_PRICING_MODELS:
        raise WorkspaceError(
            f"{where}.pricing_model",
            f"{excerpt(pricing)}: use one of {', '.join(FLEET_PRICING_MODELS)}",
        )
    end = _date(row, "commitment_end", where)
    if end is not None and pricing in ("on_demand", "spot"):
        raise WorkspaceError(
            f"{where}.commitment_end", f"{pricing} capacity has no commitment; remove the date"
        )
    return FleetEntry(
        provider=_text(row, "provider", where).lower(),
        region=_text(row, "region", where),
        instance_type=_text(row, "instance_type", where),
        count=int(count),
        pricing_model=pricing,
        serves=_text(row, "serves", where),
        usd_per_hour=_number(row, "usd_per_hour", where, domain.USD_PER_HOUR),
        commitment_end=end,
        early_termination_usd=_number(
            row, "early_termination_usd", where, domain.EARLY_TERMINATION_USD
        ),
    )


def workload_from_dict(row: Mapping, where: str) -> Workload:
    if not isinstance(row, Mapping):
        raise WorkspaceError(where, f"expected a mapping, got {excerpt(row)}")
    _unknown(row, WORKLOAD_FIELDS, where)
    slo = row.get("slo") or {}
    if not isinstance(slo, Mapping):
        raise WorkspaceError(f"{where}.slo", "expected {ttft_ms: N, percentile: p95}")
    _unknown(slo, {"ttft_ms", "percentile"}, f"{where}.slo")
    percentile = str(slo.get("percentile", "p95"))
    if percentile not in PERCENTILES:
        raise WorkspaceError(
            f"{where}.slo.percentile", f"{excerpt(percentile)}: use one of {', '.join(PERCENTILES)}"
        )
    out = _number(row, "output_tokens_per_month", where, domain.TOKENS_PER_MONTH)
    if out is None:
        raise WorkspaceError(f"{where}.output_tokens_per_month", "is required")
    small = row.get("small_model", False)
    if not isinstance(small, bool):
        raise WorkspaceError(
            f"{where}.small_model", f"expected true or false, got {excerpt(small)}"
        )
    return Workload(
        workload=_text(row, "workload", where),
        model=_text(row, "model", where),
        output_tokens_per_month=out,
        input_tokens_per_month=_number(
            row, "input_tokens_per_month", where, domain.TOKENS_PER_MONTH
        ),
        interactive_share=_number(row, "interactive_share", where, domain.INTERACTIVE_SHARE, 1.0),
        peak_to_mean=_number(row, "peak_to_mean", where, domain.PEAK_TO_MEAN, 1.5),
        ttft_ms=_number(slo, "ttft_ms", f"{where}.slo", domain.SLO_MS, 2000.0),
        percentile=percentile,
        growth_per_quarter=_number(
            row, "growth_per_quarter", where, domain.GROWTH_PER_QUARTER, 0.0
        ),
        accept_results_from=_names(row.get("accept_results_from"), f"{where}.accept_results_from")
        or (),
        small_model=small,
        prefix_cache_share=_number(row, "prefix_cache_share", where, domain.PREFIX_CACHE_SHARE),
        input_tokens_mean=_number(row, "input_tokens_mean", where, domain.TOKENS_PER_REQUEST),
        output_tokens_mean=_number(row, "output_tokens_mean", where, domain.TOKENS_PER_REQUEST),
        shape_source=_text(row, "shape_source", where, required=False),
    )


def constraints_from_dict(raw: object) -> Constraints:
    """The workspace's constraints block (approved providers and regions, the vendor-share cap,
    owned hardware allowed), validated."""
    raw = raw or {}
    if not isinstance(raw, Mapping):
        raise WorkspaceError("constraints", "expected a mapping")
    _unknown(
        raw,
        {
            "providers",
            "regions",
            "max_vendor_share",
            "allow_owned",
            "allow_spot",
            "allow_estimates",
        },
        "constraints",
    )
    allow_owned, allow_spot = _flag(raw, "allow_owned"), _flag(raw, "allow_spot")
    providers = _names(raw.get("providers"), "constraints.providers")
    return Constraints(
        providers=tuple(p.lower() for p in providers) if providers else None,
        regions=_names(raw.get("regions"), "constraints.regions"),
        max_vendor_share=_number(
            raw, "max_vendor_share", "constraints", domain.MAX_VENDOR_SHARE, 1.0
        ),
        allow_owned=allow_owned,
        allow_spot=allow_spot,
        allow_estimates=_flag(raw, "allow_estimates", default=True),
    )


def _flag(raw: Mapping, key: str, default: bool = False) -> bool:
    """A true/false setting of the constraints block (absent = ``default``)."""
    value = raw.get(key, default)
    if not isinstance(value, bool):
        raise WorkspaceError(f"constraints.{key}", f"expected true or false, got {excerpt(value)}")
    return value


def _one_time_from_dict(raw: object) -> tuple[tuple[str, float], ...]:
    """One-time cost per backend, as (backend, USD) pairs sorted by backend."""
    one_time = raw or {}
    if not isinstance(one_time, Mapping):
        raise WorkspaceError("one_time_usd", "expected backend: USD pairs, e.g. {rocm: 90000}")
    pairs = []
    for backend in sorted(one_time, key=str):
        usd = _number(one_time, backend, "one_time_usd", domain.ONE_TIME_USD)
        if usd is None:  # an empty cost is not a free move
            raise WorkspaceError(
                f"one_time_usd.{backend}",
                "is empty; write the one-time cost in USD (0 when there is none) or remove the"
                " backend",
            )
        pairs.append((str(backend), usd))
    return tuple(pairs)


def workspace_from_dict(data: object) -> Workspace:
    """A validated workspace, or a WorkspaceError naming the field and what to do."""
    if not isinstance(data, Mapping):
        raise WorkspaceError("workspace", "expected a mapping with name, fleet, demand")
    _unknown(
        data,
        {
            "name",
            "start",
            "fleet",
            "demand",
            "constraints",
            "one_time_usd",
            "audit",
            "owned",
            "commitment",
            "on_demand_basis",
        },
        "workspace",
    )
    name = _text(data, "name", "workspace")
    fleet_rows = data.get("fleet") or []
    demand_rows = data.get("demand") or []
    if not isinstance(fleet_rows, list):
        raise WorkspaceError("fleet", "expected a list of fleet lines")
    if not isinstance(demand_rows, list) or not demand_rows:
        raise WorkspaceError("demand", "expected at least one workload")
    if len(fleet_rows) > MAX_FLEET_LINES:
        raise WorkspaceError(
            "fleet", f"has {len(fleet_rows):,} lines; at most {MAX_FLEET_LINES} (merge lines)"
        )
    if len(demand_rows) > MAX_WORKLOADS:
        raise WorkspaceError(
            "demand", f"has {len(demand_rows):,} workloads; at most {MAX_WORKLOADS}"
        )
    demand = tuple(workload_from_dict(row, f"demand[{i}]") for i, row in enumerate(demand_rows))
    names = [w.workload for w in demand]
    for i, n in enumerate(names):
        if names.index(n) != i:
            raise WorkspaceError(f"demand[{i}].workload", f"{excerpt(n)} is listed twice")
    fleet = tuple(fleet_entry_from_dict(row, f"fleet[{i}]") for i, row in enumerate(fleet_rows))
    for i, line in enumerate(fleet):
        if line.serves not in names:
            raise WorkspaceError(
                f"fleet[{i}].serves",
                f"{excerpt(line.serves)} is not a workload in demand ({', '.join(names)})",
            )
    constraints = constraints_from_dict(data.get("constraints"))
    owned = owned_from_dict(data.get("owned"))
    if constraints.allow_owned and owned is None:
        raise WorkspaceError(
            "constraints.allow_owned",
            "owned hardware needs its terms: add an owned block (site_region, depreciation_years,"
            " financing_rate, pue, colo_usd_per_kw_month, staff_usd_per_fte_year, servers_per_fte)",
        )
    start = _date(data, "start", "workspace") or DEFAULT_START
    one_time_pairs = _one_time_from_dict(data.get("one_time_usd"))
    audit, audit_basis = audit_from_dict(data.get("audit"))
    basis = data.get("on_demand_basis", DEFAULT_ON_DEMAND_BASIS.value)
    if basis not in ON_DEMAND_BASES:
        raise WorkspaceError(
            "on_demand_basis",
            f"{str(basis)[:40]!r} is not one of {', '.join(ON_DEMAND_BASES)} (held: every"
            " on-demand unit is paid all month; autoscaled: units follow the hourly load)",
        )
    return Workspace(
        name,
        fleet,
        demand,
        constraints,
        start,
        one_time_pairs,
        audit,
        audit_basis,
        owned,
        commitment_from_dict(data.get("commitment")),
        OnDemandBasis(basis),
    )


OWNED_REQUIRED = (
    ("depreciation_years", domain.DEPRECIATION_YEARS),
    ("financing_rate", domain.FINANCING_RATE),
    ("pue", domain.PUE),
    ("colo_usd_per_kw_month", domain.COLO_USD_PER_KW_MONTH),
    ("staff_usd_per_fte_year", domain.STAFF_USD_PER_FTE_YEAR),
    ("servers_per_fte", domain.SERVERS_PER_FTE),
)


def owned_from_dict(data: object) -> OwnedParams | None:
    """The ``owned`` block: the terms every owned server's hourly rate is computed from."""
    if data is None:
        return None
    if not isinstance(data, Mapping):
        raise WorkspaceError("owned", "expected a mapping of owned-hardware terms")
    fields = {"site_region", "usd_per_kwh", "servers", *(k for k, _ in OWNED_REQUIRED)}
    _unknown(data, fields, "owned")
    values = {}
    for key, bound in OWNED_REQUIRED:
        value = _number(data, key, "owned", bound)
        if value is None:
            raise WorkspaceError(f"owned.{key}", f"is required ({bound.label})")
        values[key] = value
    return OwnedParams(
        site_region=_text(data, "site_region", "owned"),
        usd_per_kwh=_number(data, "usd_per_kwh", "owned", domain.USD_PER_KWH),
        servers=_names(data.get("servers"), "owned.servers"),
        **values,
    )


def commitment_from_dict(data: object) -> CommitmentInputs:
    """The ``commitment`` block: demand scenarios (probabilities adding up to 1) and discounts."""
    if data is None:
        return CommitmentInputs()
    if not isinstance(data, Mapping):
        raise WorkspaceError("commitment", "expected scenarios, discount_1y and discount_3y")
    _unknown(
        data,
        {"scenarios", "discount_1y", "discount_3y", "at_end", "discount_rate_per_year"},
        "commitment",
    )
    at_end = data.get("at_end", "renew")
    if at_end not in AT_END:
        raise WorkspaceError(
            "commitment.at_end",
            f"{str(at_end)[:40]!r} is not one of {', '.join(AT_END)} (renew: at the effective"
            " rate; lapse: to the list on-demand price; optimize: the optimizer decides)",
        )
    rows = data.get("scenarios") or []
    if not isinstance(rows, list):
        raise WorkspaceError("commitment.scenarios", "expected a list of scenarios")
    scenarios = []
    for i, row in enumerate(rows):
        where = f"commitment.scenarios[{i}]"
        if not isinstance(row, Mapping):
            raise WorkspaceError(where, f"expected a mapping, got {excerpt(row)}")
        _unknown(row, {"name", "probability", "demand_factor", "growth_per_quarter"}, where)
        probability = _number(row, "probability", where, domain.PROBABILITY)
        if probability is None:
            raise WorkspaceError(f"{where}.probability", "is required")
        scenarios.append(
            DemandScenario(
                name=_text(row, "name", where),
                probability=probability,
                demand_factor=_number(row, "demand_factor", where, domain.DEMAND_FACTOR, 1.0),
                growth_per_quarter=_number(
                    row, "growth_per_quarter", where, domain.GROWTH_PER_QUARTER
                ),
            )
        )
    if scenarios:
        total = sum(s.probability for s in scenarios)
        if abs(total - 1.0) > 1e-6:
            raise WorkspaceError(
                "commitment.scenarios", f"probabilities add up to {total:g}; make them add up to 1"
            )
        names = [s.name for s in scenarios]
        if len(set(names)) != len(names):
            raise WorkspaceError("commitment.scenarios", "each scenario needs its own name")
    return CommitmentInputs(
        scenarios=tuple(scenarios),
        discount_1y=_number(data, "discount_1y", "commitment", domain.DISCOUNT),
        discount_3y=_number(data, "discount_3y", "commitment", domain.DISCOUNT),
        at_end=at_end,
        discount_rate_per_year=_number(
            data, "discount_rate_per_year", "commitment", domain.DISCOUNT_RATE, 0.0
        ),
    )


def audit_from_dict(data: object) -> tuple[tuple[AuditEffort, ...], str]:
    """The effort summary of ``tokendesk audit --format json`` output (its findings and other
    fields are not needed here and are not kept)."""
    if data is None:
        return (), ""
    if not isinstance(data, Mapping):
        raise WorkspaceError(
            "audit", "expected the JSON that `tokendesk audit --format json` prints"
        )
    basis = _text(data, "basis", "audit")
    backends = data.get("backends")
    if not isinstance(backends, Mapping) or not backends:
        raise WorkspaceError("audit.backends", "expected effort per backend (rocm, cpu, ...)")
    out = []
    for backend in sorted(backends, key=str):
        where = f"audit.backends.{backend}"
        entry = backends[backend]
        if not isinstance(entry, Mapping) or not isinstance(entry.get("engineer_weeks"), Mapping):
            raise WorkspaceError(f"{where}.engineer_weeks", "expected low, base and high")
        weeks = entry["engineer_weeks"]
        low, base, high = (
            _number(weeks, k, f"{where}.engineer_weeks", domain.ENGINEER_WEEKS)
            for k in ("low", "base", "high")
        )
        if low is None or base is None or high is None or not low <= base <= high:
            raise WorkspaceError(f"{where}.engineer_weeks", "needs low <= base <= high")
        blocking = _number(entry, "blocking_findings", where, domain.FINDINGS, 0)
        confidence = _text(entry, "confidence", where, required=False) or "unknown"
        out.append(AuditEffort(str(backend), low, base, high, confidence, int(blocking)))
    return tuple(out), basis


def workspace_to_dict(ws: Workspace) -> dict:
    """The YAML shape of a workspace (optional fields left out when unset)."""
    fleet = []
    for line in ws.fleet:
        row: dict = {
            "provider": line.provider,
            "region": line.region,
            "instance_type": line.instance_type,
            "count": line.count,
            "pricing_model": line.pricing_model,
        }
        if line.usd_per_hour is not None:
            row["usd_per_hour"] = line.usd_per_hour
        if line.commitment_end is not None:
            row["commitment_end"] = line.commitment_end.isoformat()
        if line.early_termination_usd is not None:
            row["early_termination_usd"] = line.early_termination_usd
        row["serves"] = line.serves
        fleet.append(row)
    demand = []
    for w in ws.demand:
        row = {
            "workload": w.workload,
            "model": w.model,
            "output_tokens_per_month": w.output_tokens_per_month,
            "interactive_share": w.interactive_share,
            "peak_to_mean": w.peak_to_mean,
            "slo": {"ttft_ms": w.ttft_ms, "percentile": w.percentile},
            "growth_per_quarter": w.growth_per_quarter,
        }
        if w.input_tokens_per_month is not None:
            row["input_tokens_per_month"] = w.input_tokens_per_month
        if w.accept_results_from:
            row["accept_results_from"] = list(w.accept_results_from)
        if w.small_model:
            row["small_model"] = True
        for name in SHAPE_FIELDS:
            if getattr(w, name) not in (None, ""):
                row[name] = getattr(w, name)
        demand.append(row)
    constraints: dict = {"max_vendor_share": ws.constraints.max_vendor_share}
    if ws.constraints.providers:
        constraints["providers"] = list(ws.constraints.providers)
    if ws.constraints.regions:
        constraints["regions"] = list(ws.constraints.regions)
    if ws.constraints.allow_owned:
        constraints["allow_owned"] = True
    if ws.constraints.allow_spot:
        constraints["allow_spot"] = True
    if not ws.constraints.allow_estimates:
        constraints["allow_estimates"] = False
    out: dict = {
        "name": ws.name,
        "start": ws.start.isoformat(),
        "fleet": fleet,
        "demand": demand,
        "constraints": constraints,
    }
    if ws.on_demand_basis != DEFAULT_ON_DEMAND_BASIS:
        out["on_demand_basis"] = OnDemandBasis(ws.on_demand_basis).value
    if ws.one_time_usd_by_backend:
        out["one_time_usd"] = dict(ws.one_time_usd_by_backend)
    if ws.owned is not None:
        out["owned"] = _owned_to_dict(ws.owned)
    commitment = _commitment_to_dict(ws.commitment)
    if commitment:
        out["commitment"] = commitment
    if ws.audit:
        out["audit"] = {
            "basis": ws.audit_basis,
            "backends": {
                a.backend: {
                    "engineer_weeks": {
                        "low": a.weeks_low,
                        "base": a.weeks_base,
                        "high": a.weeks_high,
                    },
                    "confidence": a.confidence,
                    "blocking_findings": a.blocking_findings,
                }
                for a in ws.audit
            },
        }
    return out


def _owned_to_dict(owned: OwnedParams) -> dict:
    row: dict = {"site_region": owned.site_region}
    row.update({key: getattr(owned, key) for key, _ in OWNED_REQUIRED})
    if owned.usd_per_kwh is not None:
        row["usd_per_kwh"] = owned.usd_per_kwh
    if owned.servers:
        row["servers"] = list(owned.servers)
    return row


def _commitment_to_dict(c: CommitmentInputs) -> dict:
    out: dict = {}
    if c.scenarios:
        out["scenarios"] = []
        for s in c.scenarios:
            row: dict = {
                "name": s.name,
                "probability": s.probability,
                "demand_factor": s.demand_factor,
            }
            if s.growth_per_quarter is not None:
                row["growth_per_quarter"] = s.growth_per_quarter
            out["scenarios"].append(row)
    if c.discount_1y is not None:
        out["discount_1y"] = c.discount_1y
    if c.discount_3y is not None:
        out["discount_3y"] = c.discount_3y
    if c.at_end != "renew":
        out["at_end"] = c.at_end
    if c.discount_rate_per_year:
        out["discount_rate_per_year"] = c.discount_rate_per_year
    return out
