"""What a plan reads as, line by line: its fleet lines (``PlanLine``), the traffic shape each
workload's capacity was read at, the constraints it breaks and its risk (``PlanReading``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime

from costmodel.demand import HOURS_PER_MONTH
from costmodel.estimated_options import banded
from costmodel.market import _naive, segment_mix, segment_shape
from costmodel.option_table import canonical_precision
from costmodel.plan_fleet import FleetLines
from costmodel.plan_inputs import UNSERVED_KEY, by_vendor, vendor_of
from costmodel.plan_result import PlanLine
from costmodel.risk import RiskReport, SpendLine, assess_risk
from costmodel.shape import cache_rule, mean_basis
from costmodel.workspace_model import Workload


class PlanReading(FleetLines):
    """The reading half of the plan engine (see ``costmodel.plan``)."""

    def _shape(self, w: Workload, lines: Sequence[PlanLine]) -> dict:
        """The traffic shape a workload's capacity was read at, and the basis of each figure:
        per fleet line and configuration, ``measured`` at which shape or ``estimated`` with the
        rule and the gap (``costmodel.shape``)."""
        seg = self.segments[w.workload]
        mix = segment_mix(seg)
        bases = sorted({c.mix_basis for c in self.fleet if c.entry.serves == w.workload})
        per_line: dict[tuple, dict] = {}
        for ln in lines:
            if ln.workload != w.workload or ln.capacity_basis_detail is None:
                continue
            key = (ln.role, ln.provider, ln.region, ln.instance_type, ln.option_id)
            per_line.setdefault(
                key,
                {
                    "role": ln.role,
                    "provider": ln.provider,
                    "region": ln.region,
                    "instance_type": ln.instance_type,
                    "model": ln.model,
                    "precision": ln.precision,
                    **ln.capacity_basis_detail,
                },
            )
        for c in self.fleet:
            if c.entry.serves != w.workload or c.option is None or c.unit_tok_s <= 0:
                continue
            split = self.engine.cost_split(
                self._option_index[c.option.option_id], segment_shape(seg), c.rate, c.unit_tok_s
            )
            for key, entry in per_line.items():
                if (
                    key[0] == "fleet"
                    and key[3] == c.entry.instance_type
                    and key[4] == (c.option.option_id)
                ):
                    entry.setdefault("unit_cost_at_slo", split)
        return {
            "workload": w.workload,
            "input_tokens_per_month": w.input_tokens_per_month,
            "output_tokens_per_month": w.output_tokens_per_month,
            "input_per_output_token": None if mix is None else round(mix, 6),
            "input_tokens_mean": w.input_tokens_mean,
            "output_tokens_mean": w.output_tokens_mean,
            "mean_basis": mean_basis(w.input_tokens_mean, w.output_tokens_mean, w.shape_source),
            "prefix_cache_share": w.prefix_cache_share,
            "prefix_cache_rule": cache_rule(w.prefix_cache_share),
            "capacity_basis": list(per_line.values()),
            "fleet_capacity_basis": [b for b in bases if b],
        }

    def _plan_lines(self, w: Workload, parts: list) -> list[PlanLine]:
        out: list[PlanLine] = []
        for part in parts:
            if part[0] == "fleet":
                paid = part[1]
                for c in self.fleet:
                    if c.entry.serves != w.workload:
                        continue
                    e = c.entry
                    held, used = paid.get(c.index, (0.0, 0.0))
                    o = c.option
                    per = o.accelerators_per_unit if o and o.price_basis == "per_accelerator" else 1
                    count = int(round(held * per))
                    note = c.note
                    if count != e.count:
                        note += f"; {e.count - count} of {e.count} released"
                    if abs(used - held) > 1e-9:
                        note += (
                            f"; autoscaled: {used * HOURS_PER_MONTH:,.0f} unit-hours a month"
                            f" of {held * HOURS_PER_MONTH:,.0f} held"
                        )
                    out.append(
                        PlanLine(
                            w.workload,
                            "fleet",
                            "The fleet as it runs",
                            e.provider,
                            e.region,
                            e.instance_type,
                            e.pricing_model,
                            count,
                            c.rate,
                            e.commitment_end,
                            used * self._billed(c) * HOURS_PER_MONTH,
                            c.accelerator_id,
                            c.vendor or vendor_of(c.backend),
                            c.backend,
                            c.unit_tok_s,
                            note,
                            o.model if o else "",
                            o.precision if o else "",
                            o.bench_measured_at if o else None,
                            o.option_id if o else "",
                            capacity_basis=c.mix_basis,
                            capacity_basis_detail=c.mix_basis_detail,
                        )
                    )
                    out[-1] = banded(out[-1], o)
                continue
            role, line = part[0], part[1]
            label = part[2].label if len(part) > 2 else "Top-up"
            if role == "top-up":
                label = "Top-up: the fleet falls short at the SLO (cheapest approved option)"
            if role == "standby":
                label += " (standby)"
            option = self._options.get(line.option_id)
            per_acc = option is not None and option.price_basis == "per_accelerator"
            per = option.accelerators_per_unit if option is not None and per_acc else 1
            prices = line.sizing.prices
            list_rate = prices.on_demand if prices.on_demand is not None else prices.committed
            index = self._option_index.get(line.option_id)
            found = (
                self.engine.capacity_basis(
                    int(self.engine.table.group[index]), segment_shape(self.segments[w.workload])
                )
                if index is not None
                else None
            )
            out.append(
                PlanLine(
                    w.workload,
                    role,
                    label,
                    line.provider,
                    line.region,
                    line.instance_type,
                    line.pricing,
                    int(line.units_peak) * per,
                    (list_rate or 0.0) / per,
                    None,
                    line.monthly_usd,
                    line.accelerator_id,
                    line.vendor,
                    line.backend,
                    line.unit_output_tok_s,
                    f"{line.units_peak} units at peak; {line.capacity_note}",
                    line.model,
                    line.precision,
                    line.bench_measured_at,
                    line.option_id,
                    capacity_basis=found.sentence if found is not None else "",
                    capacity_basis_detail=found.as_dict() if found is not None else None,
                    monthly_usd_low=line.monthly_usd_low,
                    monthly_usd_high=line.monthly_usd_high,
                )
            )
            out[-1] = banded(out[-1], option)
        return out

    def _violations(self, served: Mapping[str, float], lines) -> list[str]:
        """Constraints the plan breaks: a vendor above the share cap (from the traffic each
        vendor actually carries), capacity on a provider that is not approved."""
        c = self.ws.constraints
        out = []
        for vendor, share in by_vendor(served).items():
            if vendor == UNSERVED_KEY:
                continue
            if share > c.max_vendor_share + 1e-9:
                out.append(
                    f"{vendor} carries {share:.0%} of traffic, above the {c.max_vendor_share:.0%} cap"
                )
        for ln in lines:
            if ln.role != "fleet" and c.providers and ln.provider not in c.providers:
                out.append(f"{ln.instance_type} on {ln.provider} is not an approved provider")
        return list(dict.fromkeys(out))

    def _risk(self, lines: Sequence[PlanLine]) -> RiskReport:
        maturity = self.ctx.maturity
        if maturity is None:
            from costmodel.bundled_tables import software_maturity

            maturity = software_maturity()
        spend = [
            SpendLine(
                ln.monthly_usd,
                ln.vendor or "unknown",
                ln.provider,
                ln.region,
                ln.accelerator_id or ln.instance_type,
                ln.backend or "unknown",
                self.engine.family(ln.model) if ln.model else "*",
                canonical_precision(ln.precision),
                ln.pricing_model,
                "spot" in ln.pricing_model,
                False,
                _naive(ln.bench_measured_at)
                if isinstance(ln.bench_measured_at, datetime)
                else None,
            )
            for ln in lines
            if ln.monthly_usd > 0
        ]
        return assess_risk(spend, maturity, self.engine.as_of)
