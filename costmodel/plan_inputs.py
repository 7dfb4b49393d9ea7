"""What every workspace plan starts from: the horizon, the load model, the scenarios a plan can
be asked for (Stay, a move to another backend, a custom mix) and the context they share.

The load model is stated in ``costmodel.plan``'s docstring; the functions here compute it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date

import numpy as np

from costmodel.demand import HOURS_PER_MONTH, HourlyProfile
from costmodel.market import DEFAULT_POLICY, MigrationInputs
from costmodel.option_table import BLOCK_OR_CONTRACT, COMMITTED, OWNED
from costmodel.sizing import FleetPolicy
from costmodel.timeline import StageGate
from costmodel.workspace_model import Workload, Workspace

MONTHS = 36
DAYS_PER_MONTH = 365.25 / 12
#: Below this a share, a load or a unit count is float noise.
EPS = 1e-9
#: Paid for every hour of the term, used or not.
PAID_WHETHER_USED = COMMITTED | BLOCK_OR_CONTRACT | {OWNED}

VENDOR_OF_BACKEND = {
    "cuda": "NVIDIA",
    "rocm": "AMD",
    "hpu": "Intel Gaudi",
    "cpu": "CPU",
    "xla": "Google TPU",
    "neuron": "AWS",
    "qaic": "Qualcomm",
}


def month_start(start: date, month: int) -> date:
    """The first day of month ``month`` (1-based) of a curve that starts on ``start``."""
    index = start.month - 1 + month - 1
    return date(start.year + index // 12, index % 12 + 1, 1)


def growth_factor(workload: Workload, month: int) -> float:
    """Demand grows in steps, once a quarter: month 1-3 = 1, month 4-6 = 1 + g, …"""
    return (1.0 + workload.growth_per_quarter) ** ((month - 1) // 3)


def hourly_load(workload: Workload, factor: float = 1.0) -> np.ndarray:
    """24 hourly output tok/s: interactive follows the day's curve, batch runs flat."""
    curve = HourlyProfile(peak_factor=workload.peak_to_mean).normalised()
    mean = workload.output_tokens_per_month / (HOURS_PER_MONTH * 3600.0) * factor
    return mean * (workload.interactive_share * curve + (1.0 - workload.interactive_share))


def tokens_per_month(load_h: np.ndarray) -> float:
    """Output tokens per month of an hourly tok/s profile (the average day, 730 h)."""
    return float(load_h.mean() * HOURS_PER_MONTH * 3600.0)


#: Traffic with nothing to serve it (a plan that leaves demand unserved carries this share).
UNSERVED_KEY = "unserved"


def vendor_of(backend: str) -> str:
    return VENDOR_OF_BACKEND.get(backend, backend)


def by_vendor(shares: Mapping[str, float]) -> dict[str, float]:
    """Backend shares summed per vendor (``rocm`` -> AMD, ``cuda`` -> NVIDIA, …)."""
    out: dict[str, float] = {}
    for backend, share in shares.items():
        key = backend if backend == UNSERVED_KEY else vendor_of(backend)
        out[key] = out.get(key, 0.0) + share
    return out


# ---- scenario definitions -------------------------------------------------------------------------
@dataclass(frozen=True)
class Move:
    """A share of each workload's traffic moved from the fleet's other backends onto ``key``,
    on top of what the fleet's own ``key`` lines already carry."""

    key: str  # backend, e.g. "rocm"
    label: str
    share: float
    small_models_only: bool = False
    standby_share: float = 0.0


@dataclass(frozen=True)
class PlanScenario:
    name: str
    moves: tuple[Move, ...] = ()
    description: str = ""
    #: A custom mix: the share of traffic each backend should carry (adds up to 1). Backends the
    #: fleet runs but the mix leaves out are released (as their commitments allow).
    mix: tuple[tuple[str, float], ...] = ()

    @property
    def is_stay(self) -> bool:
        return not self.moves and not self.mix


#: The fleet as it runs today: the plan every other one is measured against.
STAY = PlanScenario("Stay", (), "Keep the fleet as it runs today, at its own rates.")


def builtin_plans(amd_share: float, cpu_share: float) -> tuple[PlanScenario, ...]:
    """Stay, Shift ``amd_share`` to AMD and Add CPU fallback (``cpu_share`` of small-model
    traffic); the shares' defaults live in ``planning.what_ifs``."""
    return (
        STAY,
        PlanScenario(
            f"Shift {amd_share:.0%} to AMD",
            (Move("rocm", "AMD Instinct", amd_share),),
            f"Move {amd_share:.0%} of every workload's traffic from the fleet's other vendors to"
            " AMD Instinct GPUs on ROCm, on top of what the fleet's own AMD lines carry; the"
            " fleet keeps what the rest needs.",
        ),
        PlanScenario(
            "Add CPU fallback",
            (Move("cpu", "CPU fallback", cpu_share, small_models_only=True, standby_share=0.25),),
            f"Serve {cpu_share:.0%} of small-model traffic on CPUs and hold CPU emergency capacity"
            " for 25% of the small-model peak for days without GPUs.",
        ),
    )


def custom_plan(pairs: Sequence[tuple[str, float]]) -> PlanScenario:
    """``(("cuda", 0.5), ("rocm", 0.5))``: each backend carries that share of every workload's
    traffic; the fleet's lines of a backend keep what its share needs."""
    total = sum(s for _, s in pairs) or 1.0
    mix = tuple((b, s / total) for b, s in pairs if s > 0)
    label = " / ".join(f"{vendor_of(b)} {s:.0%}" for b, s in mix)
    return PlanScenario(
        f"Custom: {label}",
        (),
        "User-defined traffic shares by backend.",
        mix=mix,
    )


@dataclass
class PlanContext:
    """What every scenario of one comparison shares."""

    workspace: Workspace
    policy: FleetPolicy = DEFAULT_POLICY
    migration: MigrationInputs = field(default_factory=MigrationInputs)
    gates: Mapping[str, Sequence[StageGate]] | None = None
    maturity: Sequence | None = None
    #: One-time cost per new backend, overriding the engineering estimate (e.g. a portability
    #: audit's figure); merged over the workspace's own ``one_time_usd``.
    one_time_usd_by_backend: Mapping[str, float] | None = None
