"""Owned (colocated) servers priced as an equivalent hourly rate: total cost of ownership.

For one server bought for ``N`` years at an annual financing rate ``r``::

    capital $/year      = capex × r ÷ (1 − (1 + r)^−N)      (the annuity that repays capex with
                                                            interest over N years; capex ÷ N at r = 0)
    colocation $/year   = colo $ per kW-month × power kW × 12
    staff $/year        = operations $ per person-year ÷ servers per person
    power $/hour        = power kW × PUE × electricity $/kWh
    $/server-hour       = (capital + colocation + staff) $/year ÷ 8,760 h + power $/hour
    $/accelerator-hour  = $/server-hour ÷ accelerators per server

The server is paid for every hour of the ``N`` years whether used or not, so it is committed
capacity for the depreciation horizon. Power is the vendor's rated maximum, used as the average
draw (a conservative figure: servers rarely run at their maximum all day).

**Break-even against the cloud option it replaces** (cash for the server, then its running cost)::

    months = capex ÷ (cloud $/month − running $/month),  running = colocation + staff + power

The cloud option is the cheapest approved one with the same accelerator: an instance with the
server's accelerator count at its hourly price, or a quote per accelerator-hour × the server's
accelerators (``cloud_alternatives``), whichever costs less; spot is left out (it can be taken
back, a server cannot).

``None`` when the cloud option costs no more a month than running the server does. Months are of
730 hours, as everywhere in the cost model.

Pure functions over plain records: the price sheet and the electricity table are read by
``costmodel.bundled_tables``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import NamedTuple

import numpy as np

from costmodel.demand import HOURS_PER_MONTH
from costmodel.option_table import OWNED, OperatingPoint, Option, OptionTable

HOURS_PER_YEAR = 12 * HOURS_PER_MONTH
#: The provider name every owned option carries (the company itself).
OWNED_PROVIDER = "owned"
#: Confidence labels, weakest first: a figure is as strong as its weakest input.
CONFIDENCE_ORDER = ("low", "medium", "high")


@dataclass(frozen=True)
class Sourced:
    """One input figure with where it came from."""

    name: str
    value: float
    unit: str
    source: str
    source_url: str = ""
    as_of: str = "date unknown"
    confidence: str = "low"


@dataclass(frozen=True)
class OwnedServer:
    """One row of the server price sheet (``data/owned_servers.csv``)."""

    server_id: str
    name: str
    accelerator_id: str
    accelerator_count: int
    capex: Sourced
    power_kw: Sourced
    notes: str = ""

    def __post_init__(self) -> None:
        if self.accelerator_count < 1:
            raise ValueError(f"server {self.server_id}: accelerator_count must be at least 1")
        if not self.capex.value > 0 or not self.power_kw.value > 0:
            raise ValueError(f"server {self.server_id}: capex and power must be positive")


@dataclass(frozen=True)
class ElectricityPrice:
    """Average electricity price where a cloud region sits (``data/electricity_prices.csv``)."""

    provider: str
    region: str
    state: str
    usd_per_kwh: float
    source: str
    source_url: str
    as_of: str
    confidence: str


@dataclass(frozen=True)
class OwnedParams:
    """The company's own terms for running servers (the workspace's ``owned`` block)."""

    #: The cloud region whose electricity price applies (the colocation site's location).
    site_region: str
    depreciation_years: float
    financing_rate: float
    pue: float
    colo_usd_per_kw_month: float
    staff_usd_per_fte_year: float
    servers_per_fte: float
    #: The site's own contracted electricity price; None = the regional average from the table.
    usd_per_kwh: float | None = None
    #: Servers from the price sheet that may be bought; None = every one.
    servers: tuple[str, ...] | None = None

    def workspace_input(self, name: str, value: float, unit: str) -> Sourced:
        return Sourced(
            name, value, unit, "the workspace's owned-hardware terms", "", "as stated", "stated"
        )


@dataclass(frozen=True)
class OwnedRate:
    """One server's equivalent hourly rate, component by component, with every input's source."""

    server: OwnedServer
    params: OwnedParams
    electricity: Sourced
    capital_usd_per_year: float
    colo_usd_per_year: float
    staff_usd_per_year: float
    power_usd_per_hour: float

    @property
    def usd_per_server_hour(self) -> float:
        fixed = self.capital_usd_per_year + self.colo_usd_per_year + self.staff_usd_per_year
        return fixed / HOURS_PER_YEAR + self.power_usd_per_hour

    @property
    def usd_per_accelerator_hour(self) -> float:
        return self.usd_per_server_hour / self.server.accelerator_count

    @property
    def running_usd_per_month(self) -> float:
        """What the server costs a month once bought: colocation, staff and power."""
        yearly = self.colo_usd_per_year + self.staff_usd_per_year
        return yearly / 12 + self.power_usd_per_hour * HOURS_PER_MONTH

    @property
    def inputs(self) -> tuple[Sourced, ...]:
        p = self.params
        return (
            self.server.capex,
            self.server.power_kw,
            self.electricity,
            p.workspace_input("depreciation", p.depreciation_years, "years"),
            p.workspace_input("financing rate", p.financing_rate, "per year"),
            p.workspace_input("PUE", p.pue, "facility ÷ IT power"),
            p.workspace_input("colocation fee", p.colo_usd_per_kw_month, "$ per kW-month"),
            p.workspace_input("operations staff", p.staff_usd_per_fte_year, "$ per person-year"),
            p.workspace_input("servers per person", p.servers_per_fte, "servers"),
        )

    @property
    def confidence(self) -> str:
        """The weakest confidence among the sourced figures (the sheet and the electricity)."""
        sourced = (self.server.capex, self.server.power_kw, self.electricity)
        ranks = [
            CONFIDENCE_ORDER.index(s.confidence) if s.confidence in CONFIDENCE_ORDER else 0
            for s in sourced
        ]
        return CONFIDENCE_ORDER[min(ranks)]

    @property
    def source_note(self) -> str:
        return "; ".join(
            f"{s.name} {s.value:,.4g} {s.unit} ({s.source}, {s.as_of or 'date unknown'},"
            f" {s.confidence} confidence)"
            for s in self.inputs
        )


def capital_recovery_factor(rate: float, years: float) -> float:
    """The share of a capital sum paid each year to repay it with interest over ``years``."""
    if years <= 0:
        raise ValueError(f"depreciation must be more than 0 years, got {years}")
    if rate == 0:
        return 1.0 / years
    return rate / (1.0 - (1.0 + rate) ** -years)


def electricity_input(
    params: OwnedParams, table: Sequence[ElectricityPrice], provider: str | None = None
) -> Sourced:
    """The site's electricity price: the workspace's own figure, else the region's average."""
    if params.usd_per_kwh is not None:
        return params.workspace_input("electricity", params.usd_per_kwh, "$ per kWh")
    rows = [
        e
        for e in table
        if e.region == params.site_region and (provider is None or e.provider == provider)
    ]
    if not rows:
        known = ", ".join(sorted({e.region for e in table}))
        raise ValueError(
            f"owned.site_region: no electricity price for region {params.site_region!r}; use one of"
            f" {known}, or give owned.usd_per_kwh"
        )
    e = rows[0]
    return Sourced(
        "electricity",
        e.usd_per_kwh,
        "$ per kWh",
        f"{e.source}, {e.state} {e.region}",
        e.source_url,
        e.as_of,
        e.confidence,
    )


def owned_rate(server: OwnedServer, params: OwnedParams, electricity: Sourced) -> OwnedRate:
    """One server's total cost of ownership as an hourly rate (see the module docstring)."""
    kw = server.power_kw.value
    return OwnedRate(
        server=server,
        params=params,
        electricity=electricity,
        capital_usd_per_year=server.capex.value
        * capital_recovery_factor(params.financing_rate, params.depreciation_years),
        colo_usd_per_year=params.colo_usd_per_kw_month * kw * 12,
        staff_usd_per_year=params.staff_usd_per_fte_year / params.servers_per_fte,
        power_usd_per_hour=kw * params.pue * electricity.value,
    )


def owned_rates(
    servers: Sequence[OwnedServer], params: OwnedParams, electricity: Sourced
) -> tuple[OwnedRate, ...]:
    """The rate of every server the workspace allows (all of the sheet when it names none)."""
    known = {s.server_id for s in servers}
    unknown = sorted(set(params.servers or ()) - known)
    if unknown:
        raise ValueError(
            f"owned.servers: {', '.join(unknown)} not in the server price sheet; use"
            f" {', '.join(sorted(known))}"
        )
    chosen = [s for s in servers if params.servers is None or s.server_id in params.servers]
    return tuple(owned_rate(s, params, electricity) for s in chosen)


def break_even_months(rate: OwnedRate, cloud_usd_per_server_hour: float) -> float | None:
    """Months until buying the server outright beats renting the cloud option (docstring)."""
    saving = cloud_usd_per_server_hour * HOURS_PER_MONTH - rate.running_usd_per_month
    if saving <= 0:
        return None
    return rate.server.capex.value / saving


class CloudAlternative(NamedTuple):
    """A cloud option an owned server would replace, priced per server-hour."""

    pricing_model: str
    option: Option
    #: What the cloud charges for the server's accelerators for one hour.
    usd_per_server_hour: float
    break_even_months: float | None
    usd_per_accelerator_hour: float
    #: How the server-hour was priced, in words.
    basis: str


def cloud_alternatives(
    options: Sequence[Option], rate: OwnedRate, providers: Sequence[str] | None
) -> tuple[CloudAlternative, ...]:
    """The cheapest approved cloud option with the server's accelerator per pricing model,
    cheapest first: instances with the server's accelerator count at their hourly price, and
    quotes per accelerator-hour × the server's accelerator count (module docstring)."""
    server = rate.server
    best: dict[str, tuple[float, Option, str]] = {}
    for o in options:
        if (
            o.provider == OWNED_PROVIDER
            or o.accelerator_id != server.accelerator_id
            or o.pricing_model == "spot"
            or (providers is not None and o.provider not in providers)
        ):
            continue
        per_accelerator = o.usd_per_unit_hour / max(o.accelerators_per_unit, 1)
        if o.price_basis == "per_accelerator":
            usd = per_accelerator * server.accelerator_count
            basis = (
                f"${per_accelerator:,.2f} per accelerator-hour × {server.accelerator_count}"
                " accelerators"
            )
        elif o.accelerators_per_unit == server.accelerator_count:
            usd = o.usd_per_unit_hour
            basis = f"one {o.instance_type} instance ({o.accelerators_per_unit} accelerators)"
        else:
            continue
        kept = best.get(o.pricing_model)
        if kept is None or usd < kept[0]:
            best[o.pricing_model] = (usd, o, basis)
    return tuple(
        CloudAlternative(
            model,
            o,
            usd,
            break_even_months(rate, usd),
            usd / server.accelerator_count,
            basis,
        )
        for model, (usd, o, basis) in sorted(best.items(), key=lambda kv: kv[1][0])
    )


# ---- owned servers as options --------------------------------------------------------------------
def owned_options(table: OptionTable, rates: Sequence[OwnedRate], site_region: str) -> list[Option]:
    """Each owned server as options of the table: one per benchmark configuration measured on a
    cloud instance with the same accelerator and count (the same hardware, so the same operating
    points), priced at the server's TCO rate."""
    out: list[Option] = []
    for rate in rates:
        server = rate.server
        seen: set[str] = set()
        for i, o in enumerate(table.options):
            if (
                o.accelerator_id != server.accelerator_id
                or o.price_basis != "instance"
                or o.accelerators_per_unit != server.accelerator_count
                or o.config_key in seen
            ):
                continue
            seen.add(o.config_key)
            out.append(
                replace(
                    o,
                    option_id=f"{OWNED_PROVIDER}:{site_region}:{server.server_id}:{OWNED}:"
                    f"{o.config_key}",
                    provider=OWNED_PROVIDER,
                    region=site_region,
                    zone=None,
                    instance_type=server.server_id,
                    pricing_model=OWNED,
                    usd_per_unit_hour=rate.usd_per_server_hour,
                    price_source_url=server.capex.source_url,
                    price_observed_at=None,
                    points=_points(table, i),
                    n_table_points=0,
                )
            )
    return out


def _points(table: OptionTable, i: int) -> tuple[OperatingPoint, ...]:
    """Option ``i``'s operating points, read back from the table's columns."""
    lo, hi = int(table.offsets[i]), int(table.offsets[i + 1])

    def value(array: np.ndarray, j: int) -> float | None:
        v = float(array[j])
        return None if np.isnan(v) else v

    return tuple(
        OperatingPoint(
            unit_output_tok_s=float(table.pt_tok_s[j]),
            concurrency=value(table.pt_concurrency, j),
            offline=bool(table.pt_offline[j]),
            ttft_ms_p50=value(table.pt_ttft["p50"], j),
            ttft_ms_p90=value(table.pt_ttft["p90"], j),
            ttft_ms_p95=value(table.pt_ttft["p95"], j),
            ttft_ms_p99=value(table.pt_ttft["p99"], j),
            tpot_ms_p50=value(table.pt_tpot["p50"], j),
            tpot_ms_p95=value(table.pt_tpot["p95"], j),
            tpot_ms_p99=value(table.pt_tpot["p99"], j),
        )
        for j in range(lo, hi)
    )
