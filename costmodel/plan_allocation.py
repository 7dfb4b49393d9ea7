"""What a plan asks of each workload: the backend shares it targets, the slices of traffic served
on the fleet and on new capacity, the fleet units given back, and the cheapest approved market
line for a slice (``PlanAllocation``)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace

import numpy as np

from costmodel.demand import HourlyProfile
from costmodel.market import Allocation
from costmodel.plan_fleet import FleetLines
from costmodel.plan_inputs import EPS, Move, PlanScenario, vendor_of
from costmodel.workspace_model import Workload
from tokendesk.labels import label

#: The slice of a workload's traffic the fleet's own lines carry (topped up where they fall short).
FLEET_KEY = "fleet"


@dataclass
class Slice:
    """One workload × one allocation inside a scenario."""

    workload: Workload
    key: str  # FLEET_KEY, or the backend new capacity is bought on
    label: str
    share: float
    move: Move | None


@dataclass
class WorkloadPlan:
    """What a scenario does to one workload: the slices it serves on, the fleet units it gives
    back, the backend shares it asked for, and why anything asked for could not be had."""

    slices: list[Slice]
    released: dict[int, float]
    requested: dict[str, float]
    requested_new: float
    notes: list[str]
    unserved: str = ""
    #: A custom mix's share no approved option can carry: refused, so left unserved.
    refused_share: float = 0.0

    @property
    def fleet_share(self) -> float:
        return sum(s.share for s in self.slices if s.move is None)

    @property
    def new_share(self) -> float:
        return sum(s.share for s in self.slices if s.move is not None)


class PlanAllocation(FleetLines):
    """The allocation half of the plan engine (see ``costmodel.plan``)."""

    def _allocation(self, key: str, label: str, move: Move | None) -> Allocation:
        c = self.ws.constraints
        backends = (key,) if move is not None else self.incumbent_backends
        return Allocation(
            label,
            1.0,
            backends=backends,
            providers=c.providers,
            regions=c.regions,
        )

    # -- market sizing ---------------------------------------------------------------------------
    def _market(
        self, w: Workload, alloc: Allocation, load_h: np.ndarray, mode: str = "interactive"
    ):
        """(cost, PlanLine | None, reason) to carry ``load_h`` on the cheapest approved option."""
        mean = float(load_h.mean())
        if mean <= EPS:
            return 0.0, None, ""
        curve = tuple(float(v) for v in np.round(load_h / mean, 9))
        key = (w.workload, alloc.filter_key, alloc.label, curve, round(mean, 6), mode)
        hit = self._market_cache.get(key)
        if hit is not None:
            return hit
        seg = replace(
            self.segments[w.workload], profile=HourlyProfile(peak_factor=None, curve=curve)
        )
        line, reason = self.engine.size_slice("plan", seg, alloc, mode, 1.0, mean, self.policy)
        hit = (math.inf, None, reason) if line is None else (line.monthly_usd, line, "")
        self._market_cache[key] = hit
        return hit

    # -- what a scenario asks of each workload ------------------------------------------------------
    def _targets(self, scenario: PlanScenario, w: Workload, current: Mapping[str, float]):
        """The backend shares the scenario asks of ``w``, and notes on what it set aside."""
        notes: list[str] = []
        if scenario.mix:
            targets = dict(scenario.mix)
            if not w.small_model and targets.get("cpu", 0.0) > 0:
                notes.append(
                    f"{w.workload}: the CPU share applies to small models only; {w.model} keeps"
                    " it on the other backends of the mix"
                )
                targets.pop("cpu")
            total = sum(targets.values())
            if total <= EPS:
                return dict(current), notes
            return {b: v / total for b, v in targets.items()}, notes
        targets = dict(current)
        for m in scenario.moves:
            if m.small_models_only and not w.small_model:
                continue
            mine = targets.get(m.key, 0.0)
            others = 1.0 - mine
            add = min(m.share, others)
            if others > EPS:
                targets = {
                    b: (v * (others - add) / others if b != m.key else v)
                    for b, v in targets.items()
                }
            targets[m.key] = mine + add
        return targets, notes

    def _plan(self, scenario: PlanScenario, w: Workload) -> WorkloadPlan:
        """The fleet keeps, per backend, the smaller of what it carries and what the plan asks;
        a backend asked for more than the fleet carries is bought on the market for the
        difference; what cannot be bought stays on the fleet, with the reason."""
        current = self.fleet_shares(w.workload) or {self.incumbent_backends[0]: 1.0}
        targets, notes = self._targets(scenario, w, current)
        new = {b: t - current.get(b, 0.0) for b, t in targets.items()}
        new = {b: v for b, v in new.items() if v > 1e-9}
        release = {b: current[b] - min(current[b], targets.get(b, 0.0)) for b in current}
        requested_new = sum(new.values())
        slices: list[Slice] = []
        for b, share in new.items():
            move = next((m for m in scenario.moves if m.key == b), None) or Move(
                b, f"{label(b)} share", share, small_models_only=b == "cpu"
            )
            s = Slice(w, b, move.label, share, move)
            if self._can_buy(w, s):
                slices.append(s)
            else:
                notes.append(
                    f"no {vendor_of(b)} result for {w.model} ({w.workload}) — {self._why(w, s)}"
                )
        achieved_new = sum(s.share for s in slices)
        refused = 0.0
        if scenario.mix:
            # A mix is honoured or refused: what no approved option carries is left unserved
            # (the plan is infeasible, with the reason), never quietly put back on the fleet.
            refused = requested_new - achieved_new
        else:
            scale = achieved_new / requested_new if requested_new > EPS else 0.0
            release = {b: v * scale for b, v in release.items()}
        fleet_share = max(0.0, 1.0 - achieved_new - refused)
        unserved = ""
        if fleet_share > EPS:
            fleet = Slice(w, FLEET_KEY, "The fleet as it runs", fleet_share, None)
            if self.fleet_capacity(w.workload) > 0 or self._can_buy(w, fleet):
                slices.insert(0, fleet)
            else:
                notes.append(
                    f"no capacity of the fleet or option for {w.model} ({w.workload}) meets its SLO"
                )
                unserved = f"{w.workload}: nothing approved can serve {w.model}"
        return WorkloadPlan(
            slices,
            self._releases(w.workload, release),
            targets,
            requested_new,
            notes,
            unserved,
            refused,
        )

    def _can_buy(self, w: Workload, s: Slice) -> bool:
        alloc = self._allocation(s.key, s.label, s.move)
        ranked, _ = self.engine.ranking(
            self.segments[w.workload], alloc, "interactive", self.policy
        )
        return ranked.size > 0

    def _why(self, w: Workload, s: Slice) -> str:
        alloc = self._allocation(s.key, s.label, s.move)
        _, reason = self.engine.ranking(
            self.segments[w.workload], alloc, "interactive", self.policy
        )
        return reason
