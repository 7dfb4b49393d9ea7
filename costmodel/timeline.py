"""Migration timeline: stage gates audit → harness → certify → canary → contract per new backend.

Audit and harness are done once for the programme; each new backend then certifies, canaries and
contracts (contract negotiation runs in parallel with the canary). Durations are editable inputs;
defaults live in ``data/stage_gates.csv`` (the 30-day plan in the seed playbook for weeks 1-3,
modeling.md §5.4 for the gate sequence). Weeks to full cutover = the longest (critical) path.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

GATES: tuple[str, ...] = ("audit", "harness", "certify", "canary", "contract")
#: Gates done once for the whole programme rather than per backend.
SHARED_GATES = frozenset({"audit", "harness"})


@dataclass(frozen=True)
class StageGate:
    gate: str
    weeks: float
    depends_on: tuple[str, ...] = ()
    basis: str = ""


@dataclass(frozen=True)
class ScheduledGate:
    backend: str  # "*" for a shared gate
    gate: str
    start_week: float
    end_week: float
    critical: bool
    basis: str


@dataclass(frozen=True)
class Timeline:
    backends: tuple[str, ...]
    gates: tuple[ScheduledGate, ...]
    critical_path: tuple[str, ...]
    weeks_to_cutover: float
    sentence: str


def plan_timeline(
    backends: Sequence[str], durations: Mapping[str, Sequence[StageGate]]
) -> Timeline:
    """Schedule every gate as early as its dependencies allow and trace the critical path."""
    backends = tuple(sorted(set(backends)))
    if not backends:
        return Timeline((), (), (), 0.0, "No new backend: nothing to migrate, no stage gates.")
    nodes: dict[tuple[str, str], StageGate] = {}
    deps: dict[tuple[str, str], tuple[tuple[str, str], ...]] = {}
    for b in backends:
        if b not in durations:
            raise ValueError(
                f"no stage-gate durations for backend {b!r}; add rows to data/stage_gates.csv or pass them"
            )
        for g in durations[b]:
            node = ("*", g.gate) if g.gate in SHARED_GATES else (b, g.gate)
            if node in nodes and node[0] == "*":
                if g.weeks > nodes[node].weeks:  # the slowest backend sets a shared gate's length
                    nodes[node] = g
                continue
            nodes[node] = g
            deps[node] = tuple(("*", d) if d in SHARED_GATES else (b, d) for d in g.depends_on)
    for node, ds in deps.items():
        for d in ds:
            if d not in nodes:
                raise ValueError(f"gate {node[1]} of {node[0]} depends on unknown gate {d[1]}")
    start: dict[tuple[str, str], float] = {}
    end: dict[tuple[str, str], float] = {}
    prev: dict[tuple[str, str], tuple[str, str] | None] = {}

    def visit(node, stack=()):
        if node in end:
            return end[node]
        if node in stack:
            raise ValueError(f"stage gates form a cycle through {node[1]}")
        best, via = 0.0, None
        for d in deps.get(node, ()):
            e = visit(d, (*stack, node))
            if via is None or e > best:
                best, via = e, d
        start[node], prev[node] = best, via
        end[node] = best + nodes[node].weeks
        return end[node]

    for node in nodes:
        visit(node)
    last = max(end, key=lambda k: (end[k], GATES.index(k[1]) if k[1] in GATES else 0))
    path: list[tuple[str, str]] = []
    cur: tuple[str, str] | None = last
    while cur is not None:
        path.append(cur)
        cur = prev[cur]
    path.reverse()
    critical = set(path)
    order = sorted(
        nodes, key=lambda k: (start[k], GATES.index(k[1]) if k[1] in GATES else 99, k[0])
    )
    scheduled = tuple(
        ScheduledGate(k[0], k[1], start[k], end[k], k in critical, nodes[k].basis) for k in order
    )
    names = tuple(f"{g}" if b == "*" else f"{g} ({b})" for b, g in path)
    total = end[last]
    sentence = (
        f"Full cutover to {', '.join(backends)} in {total:g} weeks; the critical path is "
        + " → ".join(f"{n} {nodes[k].weeks:g} w" for n, k in zip(names, path, strict=True))
        + "."
    )
    return Timeline(backends, scheduled, names, total, sentence)
