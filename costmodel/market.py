"""The market: a slice of traffic sized at its SLO on the cheapest option allowed to carry it.

The workspace plans (``costmodel.plan``) and the optimizer buy from it. The engine is vectorised
over all options: capacity at SLO is computed once per SLO and cached, and the per-slice ranking
of SKUs (cheapest feasible first) is cached per filter × SLO × daily profile × policy, so a change
in demand volume only re-sizes the few chosen lines.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime

import numpy as np
import pandas as pd

from costmodel.bundled_tables import resolve_architecture
from costmodel.capacity import CapacityArrays, capacity_arrays, explain
from costmodel.demand import Segment
from costmodel.option_table import BLOCK_OR_CONTRACT, Option, OptionTable
from costmodel.shape import (
    RULE_CACHED,
    CapacityBasis,
    basis_for,
    effective_ratio,
    prefill_time_share,
    shape_distance,
)
from costmodel.shape_physics import RULE_ASSUMED, RULE_MODEL, model_factors
from costmodel.sizing import (
    FleetPolicy,
    GroupPrices,
    Sizing,
    SizingInputs,
    commitment_factor,
    commitment_factor_table,
    size_line,
)
from costmodel.unit_cost import (
    MIX_MEASURED,
    MIX_STATED,
    input_token_weight,
    mix_capacity_factor,
    prefill_share_by_time,
    usd_per_1k_tokens,
)

#: Exact sizing is run on this many cheapest-by-proxy SKUs per slice (integer units and the
#: reserve rule can reorder close candidates).
TOP_K = 4
DEFAULT_POLICY = FleetPolicy()


@dataclass(frozen=True)
class Allocation:
    """A share of each segment's traffic and the options allowed to carry it."""

    label: str
    share: float
    vendors: tuple[str, ...] | None = None
    backends: tuple[str, ...] | None = None
    accelerator_ids: tuple[str, ...] | None = None
    providers: tuple[str, ...] | None = None
    regions: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        if self.share < 0:
            raise ValueError(f"allocation {self.label!r}: shares must be >= 0")

    @property
    def filter_key(self) -> tuple:
        return (self.vendors, self.backends, self.accelerator_ids, self.providers, self.regions)


@dataclass(frozen=True)
class MigrationInputs:
    """One-time cost of adding a backend: engineering weeks × loaded rate + certification runs."""

    loaded_usd_per_engineer_week: float = 5000.0
    engineer_weeks: tuple[tuple[str, float], ...] = (
        ("rocm", 12.0),
        ("cpu", 4.0),
        ("hpu", 16.0),
        ("neuron", 16.0),
        ("xla", 16.0),
        ("qaic", 20.0),
        ("cuda", 2.0),
    )
    certification_runs_per_backend: int = 2  # "certify two runtimes"
    usd_per_certification_run: float = 2500.0
    #: Engineers porting in parallel: turns an audit's engineer-weeks into calendar weeks on the
    #: certify gate (an assumption; the audit estimates effort, not staffing).
    engineers_porting: int = 2


@dataclass(frozen=True)
class FleetLine:
    scenario: str
    segment: str
    allocation: str
    mode: str  # interactive | batch | standby
    option_id: str
    provider: str
    region: str
    instance_type: str
    accelerator_id: str
    vendor: str
    backend: str
    model: str
    precision: str
    runtime: str
    share: float
    mean_output_tok_s: float
    unit_output_tok_s: float
    units_peak: int
    units_reserved: int
    on_demand_unit_hours: float
    units_spot: int
    accelerators_peak: int
    pricing: str
    monthly_usd: float
    ftl_ms: float | None
    slo_met: bool | None
    capacity_note: str
    no_on_demand: bool
    sizing: SizingInputs
    price_observed_at: datetime | None = None
    bench_measured_at: datetime | None = None
    #: "measured" or "estimated" (the option's basis) and the monthly cost at the capacity
    #: interval's high and low ends (more capacity per unit: fewer units, the low cost).
    basis: str = "measured"
    monthly_usd_low: float | None = None
    monthly_usd_high: float | None = None
    #: The capacity interval as multiples of ``unit_output_tok_s``.
    capacity_low: float = 1.0
    capacity_high: float = 1.0


def segment_mix(segment: Segment) -> float | None:
    """Input tokens per output token of a segment's demand; None where either volume is not
    stated (zero): capacity is then read at the benchmark's own mix, never at "no prompts"."""
    if segment.monthly_output_tokens <= 0 or segment.monthly_input_tokens <= 0:
        return None
    return round(segment.monthly_input_tokens / segment.monthly_output_tokens, 9)


#: A workload's shape: (input tokens per output token, prefix-cache share or None).
Shape = tuple[float, float | None]


def segment_shape(segment: Segment) -> Shape | None:
    """The segment's (input:output, prefix-cache share); None where its input:output is not
    stated (capacity is then read at each result's own shape)."""
    mix = segment_mix(segment)
    return None if mix is None else (mix, segment.prefix_cache_share)


def _shape_key(shape: Shape) -> tuple:
    mix, cached = shape
    return (round(float(mix), 9), None if cached is None else round(float(cached), 9))


def _family(o: Option) -> tuple:
    """One configuration on one quote, whatever shape its results were measured at."""
    return (
        *o.group_key[:5],
        o.accelerator_id,
        o.accelerators_per_replica,
        o.model,
        o.precision,
        o.runtime,
        o.runtime_version,
    )


def _naive(ts: datetime | None) -> datetime | None:
    if ts is None:
        return None
    if ts.tzinfo is not None:
        ts = ts.astimezone(UTC).replace(tzinfo=None)
    return ts


class Engine:
    """Holds the option table and the caches; sizes one slice with :meth:`size_slice`."""

    def __init__(self, options: OptionTable | Sequence[Option]):
        self.table = options if isinstance(options, OptionTable) else OptionTable(tuple(options))
        t = self.table
        _, self.rep = np.unique(t.group, return_index=True)
        self.n_groups = t.n_groups
        self._cap: dict[tuple, tuple[CapacityArrays, np.ndarray, np.ndarray]] = {}
        self._mix: tuple[np.ndarray, ...] | None = None
        self._prices: dict[tuple, tuple] = {}
        self._masks: dict[tuple, np.ndarray] = {}
        self._ranks: dict[tuple, tuple[np.ndarray, str, np.ndarray, np.ndarray]] = {}
        self._curves: dict[tuple, tuple] = {}
        self._families: dict[str, str] = {}
        self._group_prices: dict[tuple, GroupPrices] = {}
        self._notes: dict[tuple, str] = {}
        self._model_factors: dict[tuple, np.ndarray] = {}
        # Staleness is measured from today, not from the newest price (which may itself be old).
        self.as_of: datetime | None = datetime.now(UTC).replace(tzinfo=None)

    @classmethod
    def from_frame(cls, df) -> Engine:
        return cls(OptionTable.from_frame(df))

    # ---- cached vector pieces -------------------------------------------------------------
    def capacity(
        self, slo, shape: Shape | float | None = None
    ) -> tuple[CapacityArrays, np.ndarray, np.ndarray]:
        """(per-option arrays, per-group interactive tok/s (NaN infeasible), per-group batch tok/s).

        ``shape`` is the workload's (input tokens per output token, prefix-cache share), or a bare
        ratio: each configuration's interactive capacity is read from its result at the nearest
        measured shape (``costmodel.shape``; the configuration's other results are set aside)
        and scaled to the workload's shape (``unit_cost.mix_capacity_factor`` over the uncached
        input); ``None`` reads every result as measured."""
        if shape is not None and not isinstance(shape, tuple):
            shape = (float(shape), None)
        key = (slo.key, None if shape is None else _shape_key(shape))
        hit = self._cap.get(key)
        if hit is None:
            if shape is None:
                arrays = capacity_arrays(self.table, slo)
                hit = (arrays, arrays.tok_s[self.rep], arrays.batch_tok_s[self.rep])
            else:
                arrays, cap_i, cap_b = self.capacity(slo)
                factor = self.shape_factors(shape)
                keep = self._nearest(cap_i, shape)
                hit = (arrays, np.where(keep, cap_i * factor, np.nan), cap_b * factor)
            self._cap[key] = hit
        return hit

    def segment_capacity(self, segment: Segment) -> tuple[CapacityArrays, np.ndarray, np.ndarray]:
        """Capacity at the segment's SLO and at its own shape."""
        return self.capacity(segment.slo, segment_shape(segment))

    def _mix_inputs(self) -> tuple[np.ndarray, ...]:
        """Per group: the benchmark's input tokens per output token (NaN unknown), the time an
        input token takes relative to an output token, whether that weight was measured, the
        result's prefix-cache share (NaN unknown) and its configuration (``_family``)."""
        if self._mix is None:
            t = self.table
            reps = [t.options[int(i)] for i in self.rep]
            ratio = np.array(
                [
                    o.input_tokens / o.output_tokens
                    if o.input_tokens and o.output_tokens
                    else np.nan
                    for o in reps
                ]
            )
            cache = np.array(
                [np.nan if o.prefix_cache_share is None else o.prefix_cache_share for o in reps]
            )
            out_len = np.array([float(o.output_tokens or np.nan) for o in reps])
            # The median prefill share over each group's points that publish p50 TTFT and TPOT.
            shares = np.full(len(self.rep), np.nan)
            group_of_option = t.group
            per_point_group = group_of_option[t.pt_option]
            ttft, tpot = t.pt_ttft.get("p50"), t.pt_tpot.get("p50")
            if ttft is not None and tpot is not None:
                p = np.atleast_1d(prefill_share_by_time(ttft, tpot, out_len[per_point_group]))
                ok = np.isfinite(p)
                medians = pd.Series(p[ok]).groupby(per_point_group[ok]).median()
                shares[medians.index.to_numpy(dtype=np.int64)] = medians.to_numpy()
            # The prefill time was spent on the uncached input only.
            uncached = np.atleast_1d(effective_ratio(ratio, cache))
            weight = np.atleast_1d(input_token_weight(shares, uncached))
            measured = np.isfinite(shares) & np.isfinite(ratio) & (shares < 1)
            family, _ = pd.factorize(pd.Series([_family(o) for o in reps], dtype=object))
            self._mix = (ratio, weight, measured, cache, family.astype(np.int64))
        return self._mix

    def shape_factors(self, shape: Shape) -> np.ndarray:
        """Per group: output capacity at the workload's shape ÷ capacity at the result's own:
        the result's own measured prefill/decode time split where it publishes one
        (``unit_cost.mix_capacity_factor``), else the performance model's ratio
        (``costmodel.shape_physics``) wherever it places the configuration, so input tokens
        count for every line, measured or not; else the stated prefill rule (1 where the result
        records no shape)."""
        ratio, weight, _, cache, _ = self._mix_inputs()
        mix, cached = shape
        stated = np.atleast_1d(
            mix_capacity_factor(
                effective_ratio(ratio, cache), float(effective_ratio(mix, cached)), weight
            )
        )
        return np.where(self._model_reads(shape), self._by_model_at(shape), stated)

    def _by_model_at(self, shape: Shape) -> np.ndarray:
        mix, cached = shape
        return self._by_model(float(effective_ratio(mix, cached)))

    def _model_reads(self, shape: Shape) -> np.ndarray:
        """Per group: whether the performance model carries it to the workload's shape: where
        the result publishes no prefill/decode time split of its own (that measured split stays
        the better evidence) and the model places the configuration."""
        _, _, measured, _, _ = self._mix_inputs()
        return ~measured & np.isfinite(self._by_model_at(shape))

    def _by_model(self, uncached_ratio: float) -> np.ndarray:
        key = (round(uncached_ratio, 9),)
        hit = self._model_factors.get(key)
        if hit is None:
            reps = [self.table.options[int(i)] for i in self.rep]
            hit = model_factors(reps, uncached_ratio)
            self._model_factors[key] = hit
        return hit

    def _nearest(self, cap_i: np.ndarray, shape: Shape) -> np.ndarray:
        """Per group: whether it is its configuration's result at the nearest measured shape
        among those that meet the SLO. A configuration with no result of known shape keeps
        every result (each read as measured)."""
        ratio, _, _, cache, family = self._mix_inputs()
        distance = np.atleast_1d(shape_distance(ratio, cache, shape[0], shape[1]))
        candidate = np.flatnonzero(np.isfinite(cap_i) & np.isfinite(distance))
        keep = np.ones(len(cap_i), dtype=bool)
        if candidate.size == 0:
            return keep
        order = np.lexsort((-cap_i[candidate], distance[candidate], family[candidate]))
        ordered = candidate[order]
        first = np.r_[True, family[ordered][1:] != family[ordered][:-1]]
        chosen = ordered[first]
        has_known = np.zeros(int(family.max()) + 1, dtype=bool)
        has_known[family[chosen]] = True
        keep = ~has_known[family]
        keep[chosen] = True
        return keep

    def capacity_basis(self, group: int, shape: Shape | None) -> CapacityBasis:
        """How one group's capacity was read at the workload's shape (``costmodel.shape``)."""
        _, _, measured, _, _ = self._mix_inputs()
        o = self.table.options[int(self.rep[group])]
        mix, cached = shape if shape is not None else (None, None)
        factor = 1.0 if shape is None else float(self.shape_factors(shape)[group])
        by_model = shape is not None and bool(self._model_reads(shape)[group])
        found = basis_for(
            bench_input=o.input_tokens,
            bench_output=o.output_tokens,
            bench_cache=o.prefix_cache_share,
            ratio=mix,
            cache=cached,
            factor=factor,
            mix_rule=RULE_MODEL if by_model else MIX_MEASURED if measured[group] else MIX_STATED,
            unknown_rule=f"{RULE_ASSUMED}, carried to the workload's shape by {RULE_MODEL}"
            if by_model
            else None,
        )
        if o.basis == "estimated":
            found = replace(
                found,
                kind="estimated",
                rule=f"the calibrated performance model ({o.ttft_basis}); {found.rule}",
                gap=found.gap or f"no measured result of {o.model} on {o.accelerator_id}",
            )
        return found

    def cost_split(
        self, option_index: int, shape: Shape | None, usd_per_unit_hour: float, unit_tok_s: float
    ) -> dict:
        """$/1K input and $/1K output tokens of one unit at its at-SLO capacity and the
        workload's shape, the hour split by the time prefill takes at that shape
        (``costmodel.shape.prefill_time_share``): the measured prefill/decode time share where
        the result publishes TTFT and TPOT, else the stated rule. Input $/1K is per input token,
        cached ones included."""
        _, weight, measured, _, _ = self._mix_inputs()
        group = int(self.table.group[option_index])
        rule = MIX_MEASURED if measured[group] else MIX_STATED
        if shape is None:
            return {
                "usd_per_1k_input_tokens": None,
                "usd_per_1k_output_tokens": round(
                    float(usd_per_1k_tokens(usd_per_unit_hour, unit_tok_s)), 9
                ),
                "split_rule": "the workload states no input tokens: the hour is charged to output",
            }
        mix, cached = shape
        share = prefill_time_share(mix, cached, float(weight[group]))
        output = usd_per_1k_tokens((1 - share) * usd_per_unit_hour, unit_tok_s)
        inputs = usd_per_1k_tokens(share * usd_per_unit_hour, unit_tok_s * mix)
        return {
            "usd_per_1k_input_tokens": round(float(inputs), 9),
            "usd_per_1k_output_tokens": round(float(output), 9),
            "prefill_time_share": round(share, 6),
            "split_rule": rule + (f"; {RULE_CACHED}" if cached else ""),
        }

    def prices(self, policy: FleetPolicy) -> tuple[np.ndarray, ...]:
        """Per group: on-demand, best allowed committed, its model code, spot (NaN = none)."""
        hit = self._prices.get(policy.price_key)
        if hit is None:
            t, n = self.table, self.n_groups
            labels = t.pricing_model.labels
            committed_ok = set(policy.commitments) | (
                set(BLOCK_OR_CONTRACT) if policy.allow_block_or_contract else set()
            )

            def best(allowed: set[str]) -> tuple[np.ndarray, np.ndarray]:
                mask = t.pricing_model.mask(allowed)
                idx = np.flatnonzero(mask)
                idx = idx[np.argsort(-t.price[idx], kind="stable")]  # last write = cheapest
                price = np.full(n, np.nan)
                code = np.full(n, -1, dtype=np.int64)
                price[t.group[idx]] = t.price[idx]
                code[t.group[idx]] = t.pricing_model.codes[idx]
                return price, code

            od, _ = best({"on_demand"})
            com, com_code = best(committed_ok)
            spot, _ = best({"spot"})
            hit = (od, com, com_code, spot, labels)
            self._prices[policy.price_key] = hit
        return hit

    def _curve(self, segment: Segment) -> tuple:
        key = segment.profile.key
        hit = self._curves.get(key)
        if hit is None:
            c = segment.profile.normalised()
            hit = (tuple(float(v) for v in c), c)
            self._curves[key] = hit
        return hit

    def group_mask(
        self, segment: Segment, alloc: Allocation, mode: str, policy: FleetPolicy
    ) -> np.ndarray:
        regions = segment.home_regions if mode != "batch" else policy.batch_regions
        key = (segment.model_keys, segment.precisions, alloc.filter_key, regions)
        hit = self._masks.get(key)
        if hit is None:
            t = self.table
            m = t.model_mask(segment.model_keys)
            m &= t.precision.mask(segment.precisions)
            m &= t.vendor.mask(alloc.vendors) & t.backend.mask(alloc.backends)
            m &= t.accelerator.mask(alloc.accelerator_ids) & t.provider.mask(alloc.providers)
            m &= t.region.mask(alloc.regions) & t.region.mask(regions)
            hit = np.zeros(self.n_groups, dtype=bool)
            hit[t.group[m]] = True
            self._masks[key] = hit
        return hit

    def ranking(
        self, segment: Segment, alloc: Allocation, mode: str, policy: FleetPolicy
    ) -> tuple[np.ndarray, str]:
        """Cheapest-first feasible groups for a slice (top few), or an empty array and the reason."""
        ranked, reason, _, _ = self._ranking_full(segment, alloc, mode, policy)
        return ranked[:TOP_K], reason

    def shortlist(
        self, segment: Segment, alloc: Allocation, mode: str, policy: FleetPolicy, mean_tok_s: float
    ) -> np.ndarray:
        """The groups worth sizing exactly for this slice's volume: the TOP_K cheapest per unit of
        capacity, plus the TOP_K cheapest once whole units are counted. A small slice on a big
        instance pays for the idle part of its one unit, so the per-capacity order alone would
        send 1B tokens a month to an 8-GPU node when a 1-GPU instance serves it for a tenth."""
        ranked, _, term, cap = self._ranking_full(segment, alloc, mode, policy)
        if ranked.size <= TOP_K:
            return ranked
        peak = 1.0 if mode == "batch" else float(np.max(self._curve(segment)[1]))
        need = mean_tok_s * peak / (policy.utilisation_cap * policy.availability)
        lumpy = np.ceil(need / cap - 1e-9).clip(min=1) * term
        part = np.argpartition(lumpy, TOP_K - 1)[:TOP_K]
        chosen = np.union1d(ranked[:TOP_K], ranked[part])
        return chosen

    def _ranking_full(self, segment: Segment, alloc: Allocation, mode: str, policy: FleetPolicy):
        """All feasible groups cheapest-first per unit of capacity, the reason when there are
        none, and each group's effective $/unit-hour and at-SLO capacity (for the shortlist)."""
        regions = segment.home_regions if mode != "batch" else policy.batch_regions
        key = (
            segment.model_keys,
            segment.precisions,
            alloc.filter_key,
            regions,
            mode,
            segment.slo.key,
            segment.profile.key,
            policy.key,
            segment_shape(segment),
        )
        hit = self._ranks.get(key)
        if hit is not None:
            return hit
        gm = self.group_mask(segment, alloc, mode, policy)
        arrays, cap_i, cap_b = self.segment_capacity(segment)
        od, com, _, spot, _ = self.prices(policy)
        if mode == "batch":
            cap = cap_b
            spot_eff = (
                spot * (1 + policy.spot_overprovision)
                if policy.batch_spot
                else np.full_like(spot, np.nan)
            )
            term = np.fmin(np.fmin(od, com), spot_eff)
        else:
            cap = cap_i
            _, curve = self._curve(segment)
            ordered, excess = commitment_factor_table(curve, policy.autoscaled)
            with np.errstate(invalid="ignore", divide="ignore"):
                disc = np.where(np.isnan(com) | np.isnan(od), 0.0, 1.0 - com / od)
            k = commitment_factor(disc, ordered, excess, policy.autoscaled)
            term = np.where(np.isnan(od), com * ordered[-1], od * k)
            if mode == "standby":
                term = np.fmin(od, com)
        with np.errstate(invalid="ignore", divide="ignore"):
            proxy = term / cap
        ok = gm & np.isfinite(proxy) & (cap > 0)
        cand = np.flatnonzero(ok)
        reason = ""
        if cand.size == 0:
            reason = self._why_none(segment, alloc, mode, gm, arrays, regions)
            hit = (cand, reason, np.zeros(0), np.zeros(0))
        else:
            cand = cand[np.argsort(proxy[cand], kind="stable")]
            hit = (cand, reason, term[cand], cap[cand])
        self._ranks[key] = hit
        return hit

    def _why_none(self, segment, alloc, mode, gm, arrays, regions) -> str:
        where = f" in {', '.join(regions)}" if regions else ""
        models = " / ".join(segment.models)
        if not gm.any():
            return f"no {alloc.label} option{where} has a benchmark for {models}"
        if mode == "batch":
            return f"no {alloc.label} option{where} for {models} has a usable price and throughput"
        groups = np.flatnonzero(gm)
        reps = self.rep[groups]
        best = reps[
            np.nanargmin(
                np.where(np.isnan(arrays.best_ftl_ms[reps]), np.inf, arrays.best_ftl_ms[reps])
            )
        ]
        return (
            f"no {alloc.label} option{where} for {models} meets the SLO: "
            f"{explain(arrays, int(best), self.table.options[int(best)])}"
        )

    def family(self, model: str) -> str:
        fam = self._families.get(model)
        if fam is None:
            arch = resolve_architecture(model)
            fam = arch.family if arch else "*"
            self._families[model] = fam
        return fam

    # ---- evaluation -----------------------------------------------------------------------
    def size_slice(
        self,
        scenario_name: str,
        segment: Segment,
        alloc: Allocation,
        mode: str,
        share: float,
        mean_tok_s: float,
        policy: FleetPolicy,
    ) -> tuple[FleetLine | None, str]:
        """The cheapest line that carries ``share`` of ``segment`` (``mean_tok_s`` output tok/s)
        on ``alloc``'s options under ``policy``, named after ``scenario_name``; else (None, why)."""
        _, reason = self.ranking(segment, alloc, mode, policy)
        ranked = self.shortlist(segment, alloc, mode, policy, mean_tok_s)
        if ranked.size == 0:
            return None, reason
        arrays, cap_i, cap_b = self.segment_capacity(segment)
        od, com, com_code, spot, labels = self.prices(policy)
        curve, _ = self._curve(segment)
        best: tuple[int, Sizing, SizingInputs] | None = None
        for g in ranked.tolist():
            pkey = (policy.price_key, g)
            prices = self._group_prices.get(pkey)
            if prices is None:
                prices = GroupPrices(
                    None if np.isnan(od[g]) else float(od[g]),
                    None if np.isnan(com[g]) else float(com[g]),
                    labels[com_code[g]] if com_code[g] >= 0 else None,
                    None if np.isnan(spot[g]) else float(spot[g]),
                )
                self._group_prices[pkey] = prices
            unit = float(cap_b[g] if mode == "batch" else cap_i[g])
            inputs = SizingInputs(mode, mean_tok_s, curve, unit, prices, policy)
            sized = size_line(inputs)
            if best is None or sized.monthly_usd < best[1].monthly_usd:
                best = (g, sized, inputs)
        if best is None:  # ranked is not empty, so one group was sized
            return None, reason
        g, sized, inputs = best
        i = int(self.rep[g])
        o = self.table.options[i]
        low_usd, high_usd = sized.monthly_usd, sized.monthly_usd
        if o.basis == "estimated":
            # More capacity per unit (the interval's high end) needs fewer units: the low cost.
            unit = inputs.unit_tok_s
            low_usd = size_line(replace(inputs, unit_tok_s=unit * o.capacity_high)).monthly_usd
            high_usd = size_line(replace(inputs, unit_tok_s=unit * o.capacity_low)).monthly_usd
        interactive = mode != "batch"
        ftl = float(arrays.ftl_ms[i]) if interactive else None
        nkey = (segment.slo.key, i, interactive)
        note = self._notes.get(nkey)
        if note is None:
            note = (
                explain(arrays, i, o)
                if interactive
                else f"batch at the highest measured throughput, {inputs.unit_tok_s:,.0f} "
                "output tok/s per unit"
            )
            self._notes[nkey] = note
        line = FleetLine(
            scenario=scenario_name,
            segment=segment.name,
            allocation=alloc.label,
            mode=mode,
            option_id=o.option_id,
            provider=o.provider,
            region=o.region,
            instance_type=o.instance_type,
            accelerator_id=o.accelerator_id,
            vendor=o.vendor,
            backend=o.backend,
            model=o.model,
            precision=o.precision,
            runtime=o.runtime,
            share=share,
            mean_output_tok_s=mean_tok_s,
            unit_output_tok_s=inputs.unit_tok_s,
            units_peak=sized.units_peak,
            units_reserved=sized.units_reserved,
            on_demand_unit_hours=sized.on_demand_unit_hours,
            units_spot=sized.units_spot,
            accelerators_peak=sized.units_peak * o.accelerators_per_unit,
            pricing=sized.pricing,
            monthly_usd=sized.monthly_usd,
            ftl_ms=ftl,
            slo_met=(ftl <= segment.slo.ftl_ms) if ftl is not None else None,
            capacity_note=note,
            no_on_demand=inputs.prices.on_demand is None,
            sizing=inputs,
            price_observed_at=_naive(o.price_observed_at),
            bench_measured_at=_naive(o.bench_measured_at),
            basis=o.basis,
            monthly_usd_low=min(low_usd, sized.monthly_usd),
            monthly_usd_high=max(high_usd, sized.monthly_usd),
            capacity_low=o.capacity_low,
            capacity_high=o.capacity_high,
        )
        return line, ""
