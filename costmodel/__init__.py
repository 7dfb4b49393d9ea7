"""Pure economics: unit cost, capacity at SLO, memory fit, fleet sizing, scenarios, risk,
timeline and uncertainty. Takes plain data (a cost-options DataFrame or typed Options) and does
no I/O apart from reading its own bundled tables (``tables.py``)."""

from costmodel.capacity import (
    CapacityArrays,
    CapacityAtSlo,
    capacity_arrays,
    capacity_at_slo,
)
from costmodel.demand import HOURS_PER_MONTH, Demand, HourlyProfile, Segment, Slo
from costmodel.fleet import (
    FleetPolicy,
    GroupPrices,
    SizingInputs,
    reserve_level,
    size_line,
    units_needed,
)
from costmodel.memory import (
    MemoryFit,
    ModelArchitecture,
    kv_bytes_per_token,
    memory_fit,
    weight_bytes,
)
from costmodel.options import (
    OperatingPoint,
    Option,
    OptionTable,
    canonical_precision,
    options_from_frame,
)
from costmodel.risk import RiskFigure, RiskReport, hhi
from costmodel.scenarios import (
    INCUMBENT,
    Allocation,
    Engine,
    FleetLine,
    MigrationInputs,
    Scenario,
    ScenarioResult,
    add_cpu_fallback,
    builtin_scenarios,
    evaluate_scenarios,
    segment_shares,
    shift_to_amd,
    stay,
)
from costmodel.timeline import StageGate, Timeline, plan_timeline
from costmodel.uncertainty import (
    Band,
    CostRange,
    TornadoBar,
    UncertaintyInputs,
    cost_range,
    tornado,
)
from costmodel.unit_cost import instance_tok_s, usd_per_1k_tokens

__all__ = [
    "HOURS_PER_MONTH",
    "INCUMBENT",
    "Allocation",
    "Band",
    "CapacityArrays",
    "CapacityAtSlo",
    "CostRange",
    "Demand",
    "Engine",
    "FleetLine",
    "FleetPolicy",
    "GroupPrices",
    "HourlyProfile",
    "MemoryFit",
    "MigrationInputs",
    "ModelArchitecture",
    "OperatingPoint",
    "Option",
    "OptionTable",
    "RiskFigure",
    "RiskReport",
    "Scenario",
    "ScenarioResult",
    "Segment",
    "SizingInputs",
    "Slo",
    "StageGate",
    "Timeline",
    "TornadoBar",
    "UncertaintyInputs",
    "add_cpu_fallback",
    "builtin_scenarios",
    "canonical_precision",
    "capacity_arrays",
    "capacity_at_slo",
    "cost_range",
    "evaluate_scenarios",
    "hhi",
    "instance_tok_s",
    "kv_bytes_per_token",
    "memory_fit",
    "options_from_frame",
    "plan_timeline",
    "reserve_level",
    "segment_shares",
    "shift_to_amd",
    "size_line",
    "stay",
    "tornado",
    "units_needed",
    "usd_per_1k_tokens",
    "weight_bytes",
]
