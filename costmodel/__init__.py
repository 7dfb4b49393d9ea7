"""Pure economics: unit cost, capacity at SLO, memory fit, fleet sizing, scenarios, risk and
timeline. Takes plain data (a cost-options DataFrame or typed Options) and does no I/O apart
from reading its own bundled tables (``bundled_tables.py``)."""

from costmodel.capacity import (
    CapacityArrays,
    CapacityAtSlo,
    capacity_arrays,
    capacity_at_slo,
)
from costmodel.demand import HOURS_PER_MONTH, Demand, HourlyProfile, Segment, Slo
from costmodel.market import (
    Allocation,
    Engine,
    FleetLine,
    MigrationInputs,
)
from costmodel.memory import (
    MemoryFit,
    ModelArchitecture,
    kv_bytes_per_sequence,
    kv_bytes_per_token,
    memory_fit,
    weight_bytes,
)
from costmodel.option_table import (
    OperatingPoint,
    Option,
    OptionTable,
    canonical_precision,
    options_from_frame,
)
from costmodel.risk import RiskFigure, RiskReport, hhi
from costmodel.sizing import (
    FleetPolicy,
    GroupPrices,
    OnDemandBasis,
    SizingInputs,
    reserve_level,
    size_line,
    units_needed,
)
from costmodel.timeline import StageGate, Timeline, plan_timeline
from costmodel.unit_cost import instance_tok_s, usd_per_1k_tokens

__all__ = [
    "HOURS_PER_MONTH",
    "Allocation",
    "CapacityArrays",
    "CapacityAtSlo",
    "Demand",
    "Engine",
    "FleetLine",
    "FleetPolicy",
    "OnDemandBasis",
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
    "Segment",
    "SizingInputs",
    "Slo",
    "StageGate",
    "Timeline",
    "canonical_precision",
    "capacity_arrays",
    "capacity_at_slo",
    "hhi",
    "instance_tok_s",
    "kv_bytes_per_token",
    "kv_bytes_per_sequence",
    "memory_fit",
    "options_from_frame",
    "plan_timeline",
    "reserve_level",
    "size_line",
    "units_needed",
    "usd_per_1k_tokens",
    "weight_bytes",
]
