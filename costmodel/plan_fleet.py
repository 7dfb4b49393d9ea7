"""The workspace's fleet inside the plan engine: each line matched to its rate and its at-SLO
capacity from the option table, what it carries per backend, which units a plan gives back, and
what the held units cost in a month (``FleetLines``, the base of ``costmodel.plan.WorkspaceEngine``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import date

import numpy as np

from costmodel.demand import HOURS_PER_MONTH, HourlyProfile, Segment, Slo
from costmodel.market import Engine, segment_shape
from costmodel.option_table import Option
from costmodel.plan_inputs import EPS, PAID_WHETHER_USED, PlanContext, month_start
from costmodel.workspace_model import FleetEntry, Workload
from tokendesk.labels import label


@dataclass
class FleetCap:
    entry: FleetEntry
    index: int
    rate: float  # $ per billed unit-hour (instance or accelerator)
    units: float  # purchasable units the count stands for
    unit_tok_s: float  # at SLO and the workload's input:output mix, per unit (0 = no result)
    option: Option | None
    note: str
    backend: str = "unknown"
    accelerator_id: str = ""
    vendor: str = ""
    #: How the unit's capacity was read at the workload's input:output mix.
    mix_basis: str = ""
    mix_basis_detail: dict | None = None
    #: The SKU's list on-demand rate in the same unit as ``rate`` (None: no list price known);
    #: what a commitment that lapses is paid after its end.
    list_rate: float | None = None


class FleetLines:
    """The fleet of one workspace priced and sized over an engine's option table."""

    def __init__(self, engine: Engine, ctx: PlanContext):
        self.engine = engine
        self.ctx = ctx
        self.ws = ctx.workspace
        # One pricing basis for every plan: the workspace says how on-demand capacity is paid.
        self.policy = replace(ctx.policy, on_demand_basis=self.ws.on_demand_basis)
        self.autoscaled = self.policy.autoscaled
        self.segments = {w.workload: self._segment(w) for w in self.ws.demand}
        self._options = {o.option_id: o for o in engine.table.options}
        self._option_index = {o.option_id: i for i, o in enumerate(engine.table.options)}
        self.fleet = [self._match(i, e) for i, e in enumerate(self.ws.fleet)]
        running = [c.backend for c in self.fleet if c.entry.count > 0 and c.backend != "unknown"]
        #: Backends the fleet runs today: moving traffic onto one of them needs no port.
        self.fleet_backends = tuple(sorted(set(running)))
        self.incumbent_backends = self.fleet_backends or ("cuda",)
        self._market_cache: dict[tuple, tuple] = {}

    # -- inputs -----------------------------------------------------------------------------------
    def _segment(self, w: Workload) -> Segment:
        return workload_segment(w)

    def _match(self, index: int, entry: FleetEntry) -> FleetCap:
        """The fleet line's rate and its at-SLO capacity from the benchmark results."""
        t = self.engine.table
        seg = self.segments[entry.serves]
        _, cap_i, _ = self.engine.segment_capacity(seg)
        same_sku = [
            i
            for i, o in enumerate(t.options)
            if o.provider == entry.provider and o.instance_type == entry.instance_type
        ]
        price_rows = [i for i in same_sku if t.options[i].region == entry.region] or same_sku
        rate = entry.usd_per_hour
        if rate is None:
            listed = [
                t.options[i].usd_per_unit_hour
                for i in price_rows
                if t.options[i].pricing_model == entry.pricing_model
            ]
            if not listed:
                from costmodel.workspace_model import WorkspaceError

                raise WorkspaceError(
                    f"fleet[{index}].usd_per_hour",
                    f"no current {label(entry.pricing_model).lower()} list price for"
                    f" {entry.instance_type} in {entry.provider} {entry.region}; give the rate"
                    " you pay",
                )
            rate = min(listed)
        on_demand = [
            t.options[i].usd_per_unit_hour
            for i in price_rows
            if t.options[i].pricing_model == "on_demand"
        ]
        model_ok = t.model_mask(seg.model_keys)
        best, best_cap = None, 0.0
        for pool in (price_rows, same_sku):
            for i in pool:
                g = int(t.group[i])
                if model_ok[i] and np.isfinite(cap_i[g]) and cap_i[g] > best_cap:
                    best, best_cap = i, float(cap_i[g])
            if best is not None:
                break
        option = t.options[best] if best is not None else None
        units = float(entry.count)
        if option is not None and option.price_basis == "per_accelerator":
            units = entry.count / option.accelerators_per_unit
        # The hardware is known from any quote of the same SKU, with or without a usable result.
        hardware = option or (t.options[same_sku[0]] if same_sku else None)
        shape = segment_shape(seg)
        detail = None
        if option is None:
            note = (
                f"no benchmark result for {' / '.join(seg.models)} on {entry.instance_type}"
                f" meets {seg.slo.describe()}: counted as no capacity"
            )
            basis = ""
        else:
            note = (
                f"{best_cap:,.0f} output tok/s per unit at {seg.slo.describe()}"
                f" ({option.model}, {option.precision}, {option.runtime})"
            )
            found = self.engine.capacity_basis(int(t.group[best]), shape)
            basis, detail = found.sentence, found.as_dict()
        return FleetCap(
            entry,
            index,
            rate,
            units,
            best_cap,
            option,
            note,
            hardware.backend if hardware is not None else "unknown",
            hardware.accelerator_id if hardware is not None else "",
            hardware.vendor if hardware is not None else "",
            basis,
            detail,
            min(on_demand) if on_demand else None,
        )

    def _unit_capacity(self, cap: FleetCap) -> float:
        return cap.unit_tok_s * self.policy.utilisation_cap * self.policy.availability

    def fleet_capacity(self, workload: str) -> float:
        """Peak output tok/s the fleet serving ``workload`` carries at its SLO."""
        return sum(
            c.units * self._unit_capacity(c) for c in self.fleet if c.entry.serves == workload
        )

    def fleet_shares(self, workload: str) -> dict[str, float]:
        """The share of the workload's fleet capacity each backend carries today."""
        caps = [c for c in self.fleet if c.entry.serves == workload]
        total = sum(c.units * self._unit_capacity(c) for c in caps)
        out: dict[str, float] = {}
        if total <= EPS:
            return out
        for c in caps:
            share = c.units * self._unit_capacity(c) / total
            if share > 0:
                out[c.backend] = out.get(c.backend, 0.0) + share
        return out

    # -- fleet use ----------------------------------------------------------------------------------
    def _in_term(self, c: FleetCap, month: int) -> bool:
        """A committed line is paid for every hour until its commitment ends."""
        if c.entry.pricing_model not in PAID_WHETHER_USED:
            return False
        end = c.entry.commitment_end
        return end is None or month_start(self.ws.start, month) < end

    @property
    def at_end(self) -> str:
        """What happens when a commitment ends (``commitment.at_end`` of the workspace)."""
        return self.ws.commitment.at_end

    def _lapsed(self, c: FleetCap, month: int) -> bool:
        """A committed line whose term is over in ``month`` and that is now paid at list: the
        workspace lets commitments lapse, or leaves it to the optimizer and list is cheaper."""
        if c.entry.pricing_model not in PAID_WHETHER_USED or self._in_term(c, month):
            return False
        if c.list_rate is None or self.at_end == "renew":
            return False
        return self.at_end == "lapse" or c.list_rate < c.rate

    def _paid_whether_used(self, c: FleetCap, month: int) -> bool:
        """Committed in ``month``: in term, or renewed after it (a lapsed line is on demand)."""
        return c.entry.pricing_model in PAID_WHETHER_USED and not self._lapsed(c, month)

    def _billed_in(self, c: FleetCap, month: int) -> float:
        """$ per hour of one purchasable unit in ``month``: the effective rate, or the list
        on-demand rate once a commitment has lapsed."""
        if self._lapsed(c, month) and c.list_rate is not None:
            return self._billed(replace(c, rate=c.list_rate))
        return self._billed(c)

    def _releases(self, workload: str, release: Mapping[str, float]) -> dict[int, float]:
        """Whole units of the fleet a plan gives back: for each backend, the share of the
        workload's traffic it moves off that backend's lines, released from the lines that cost
        least to give back (no commitment, dearest per tok/s) first. Only what the moved traffic
        frees is released, so a plan is compared with Stay like with like."""
        current = self.fleet_shares(workload)
        out: dict[int, float] = {}
        for backend, share in release.items():
            caps = [c for c in self.fleet if c.entry.serves == workload and c.backend == backend]
            held = current.get(backend, 0.0)
            if share <= EPS or held <= EPS:
                continue
            if share >= held - EPS:
                out |= {c.index: c.units for c in caps}
                continue
            target = share / held * sum(c.units * self._unit_capacity(c) for c in caps)

            def order(c: FleetCap):
                cap = self._unit_capacity(c)
                committed = c.entry.pricing_model in PAID_WHETHER_USED
                end = c.entry.commitment_end or date.max
                return (committed, end, -(c.rate / cap) if cap > 0 else 0.0, c.index)

            for c in sorted(caps, key=order):
                cap = self._unit_capacity(c)
                if cap <= 0 or target <= EPS:
                    continue
                k = min(c.units, float(math.floor(target / cap + EPS)))
                if k > 0:
                    out[c.index] = k
                    target -= k * cap
        return out

    def _paid_fleet(
        self,
        workload: str,
        month: int,
        *,
        released: Mapping[int, float],
        terminated: Mapping[int, float],
        carry: bool = True,
        load_h: np.ndarray | None = None,
    ) -> tuple[float, float, dict[int, tuple[float, float]], dict[str, float]]:
        """(fleet $ this month, peak tok/s the held units carry, (held, paid) units per line,
        tok/s capacity per backend).

        Released units stop being held, except committed ones while their term runs (unless
        ended early, ``terminated``); ``carry=False`` prices the plan once those terms are over.
        On the ``held`` basis every held unit is paid all month (Stay pays Σ count × rate × 730);
        on ``autoscaled``, lines paid whether used carry the load first and the others are paid
        for the units the hourly load needs, cheapest per tok/s first.
        """
        held: list[tuple[FleetCap, float]] = []
        capacity = 0.0
        by_backend: dict[str, float] = {}
        for c in self.fleet:
            if c.entry.serves != workload:
                continue
            gone = released.get(c.index, 0.0)
            if carry and self._in_term(c, month):
                gone = terminated.get(c.index, 0.0)
            units = c.units - gone
            held.append((c, units))
            cap = units * self._unit_capacity(c)
            capacity += cap
            by_backend[c.backend] = by_backend.get(c.backend, 0.0) + cap
        paid: dict[int, tuple[float, float]] = {}
        cost = 0.0
        scaled = [
            (c, u)
            for c, u in held
            if self.autoscaled
            and load_h is not None
            and not self._paid_whether_used(c, month)
            and self._unit_capacity(c) > 0
        ]
        scaled_lines = {c.index for c, _ in scaled}
        fixed = [(c, u) for c, u in held if c.index not in scaled_lines]
        for c, units in fixed:
            cost += units * self._billed_in(c, month) * HOURS_PER_MONTH
            paid[c.index] = (units, units)
        if scaled and load_h is not None:
            rest = np.maximum(load_h - sum(u * self._unit_capacity(c) for c, u in fixed), 0.0)
            for c, units in sorted(
                scaled, key=lambda cu: self._billed_in(cu[0], month) / self._unit_capacity(cu[0])
            ):
                cap = self._unit_capacity(c)
                served = np.minimum(rest, units * cap)
                rest = rest - served
                hourly_units = np.minimum(np.ceil(served / cap - EPS), units)
                average = float(np.maximum(hourly_units, 0.0).mean())
                cost += average * self._billed_in(c, month) * HOURS_PER_MONTH
                paid[c.index] = (units, average)
        return cost, capacity, paid, by_backend

    def _stranded_usd(
        self, released: Mapping[int, float], terminated: Mapping[int, float]
    ) -> float:
        """$ a month the committed units a plan gives back still cost in month 1 (in term and
        not ended early)."""
        return sum(
            (units - terminated.get(i, 0.0)) * self._billed(c) * HOURS_PER_MONTH
            for c in self.fleet
            if (units := released.get(c.index, 0.0)) > 0
            and c.entry.pricing_model in PAID_WHETHER_USED
            and self._in_term(c, 1)
            for i in (c.index,)
        )

    def _billed(self, c: FleetCap) -> float:
        """$ per hour of one purchasable unit (the rate is per instance or per accelerator)."""
        if c.option is not None and c.option.price_basis == "per_accelerator":
            return c.rate * c.option.accelerators_per_unit
        return c.rate


def workload_segment(w: Workload) -> Segment:
    """The market segment a workspace workload is sized as."""
    return Segment(
        w.workload,
        w.models,
        # A segment reads 0 as "not stated" (``market.segment_mix``): the results' own mix.
        monthly_input_tokens=w.input_tokens_per_month or 0.0,
        monthly_output_tokens=w.output_tokens_per_month,
        interactive_share=1.0,
        slo=Slo(ftl_ms=w.ttft_ms, percentile=w.percentile),
        profile=HourlyProfile(peak_factor=w.peak_to_mean),
        small_model=w.small_model,
        prefix_cache_share=w.prefix_cache_share,
    )
