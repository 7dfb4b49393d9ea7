"""The core records every part of tokendesk speaks: Accelerator, PriceQuote and BenchmarkResult.
Each is a frozen pydantic model whose field names carry their unit, validated at construction
against its own fields, so that a bad row is rejected where it enters with a message that names
the fix. Whether an id is in the accelerator catalog is checked where data comes in
(``tokendesk.catalog.check_in_catalog``), not here: a record does not read files.
"""

from __future__ import annotations

from datetime import date, datetime
from enum import StrEnum
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, model_validator

from tokendesk.metrics import PERCENTILES


class Backend(StrEnum):
    """Software backend family an accelerator is programmed through."""

    CUDA = "cuda"
    ROCM = "rocm"
    HPU = "hpu"  # Intel Gaudi (SynapseAI)
    XLA = "xla"  # Google TPU
    NEURON = "neuron"  # AWS Inferentia / Trainium
    QAIC = "qaic"  # Qualcomm Cloud AI 100
    CPU = "cpu"


class PricingModel(StrEnum):
    ON_DEMAND = "on_demand"
    SPOT = "spot"
    RESERVED_1Y = "reserved_1y"
    RESERVED_3Y = "reserved_3y"
    SAVINGS_PLAN_1Y = "savings_plan_1y"
    SAVINGS_PLAN_3Y = "savings_plan_3y"
    COMMITTED_USE_1Y = "committed_use_1y"
    COMMITTED_USE_3Y = "committed_use_3y"
    CAPACITY_BLOCK = "capacity_block"
    NEGOTIATED = "negotiated"


#: Pricing models that are a commitment or a reservation rather than pay-as-you-go capacity.
COMMITTED_MODELS = frozenset(
    {
        PricingModel.RESERVED_1Y,
        PricingModel.RESERVED_3Y,
        PricingModel.SAVINGS_PLAN_1Y,
        PricingModel.SAVINGS_PLAN_3Y,
        PricingModel.COMMITTED_USE_1Y,
        PricingModel.COMMITTED_USE_3Y,
    }
)


class PriceBasis(StrEnum):
    """What one ``usd_per_hour`` buys."""

    INSTANCE = "instance"  # a whole instance with a known shape
    PER_ACCELERATOR = "per_accelerator"  # one accelerator-hour; the instance shape is not known


class SnapshotStatus(StrEnum):
    OK = "ok"
    PARTIAL = "partial"
    FAILED = "failed"


class SnapshotKind(StrEnum):
    PRICES = "prices"
    BENCHMARKS = "benchmarks"


_FROZEN = ConfigDict(frozen=True, extra="forbid", str_strip_whitespace=True)

PositiveFloat = Annotated[float, Field(gt=0)]
NonNegativeFloat = Annotated[float, Field(ge=0)]


class Accelerator(BaseModel):
    """One accelerator model (or CPU socket family) with its datasheet figures."""

    model_config = _FROZEN

    accelerator_id: str = Field(pattern=r"^[a-z0-9][a-z0-9.-]*$")
    name: str
    vendor: str
    backend: Backend
    #: Vendor-quoted accelerator memory. None for CPUs, whose memory is the host's DRAM.
    memory_gib: PositiveFloat | None
    memory_bandwidth_tb_s: PositiveFloat | None
    #: Dense (non-sparse) BF16 peak; None where the vendor does not publish one.
    peak_dense_bf16_tflops: PositiveFloat | None
    source_title: str
    source_url: str
    source_date: date
    notes: str = ""

    @model_validator(mode="after")
    def _memory_known_for_accelerators(self) -> Accelerator:
        if self.backend is not Backend.CPU and self.memory_gib is None:
            raise ValueError(
                f"{self.accelerator_id}: memory_gib is required for a non-CPU accelerator"
            )
        return self


class PriceQuote(BaseModel):
    """The price of one instance type (or one accelerator-hour) in one region, under one pricing model."""

    model_config = _FROZEN

    provider: str = Field(min_length=1)
    region: str = Field(min_length=1)
    zone: str | None = None
    instance_type: str = Field(min_length=1)
    accelerator_id: str
    #: Accelerators on the instance (sockets for CPU instances; 0 = less than one socket).
    accelerator_count: int = Field(ge=0)
    vcpus: int | None = Field(default=None, gt=0)
    memory_gib: PositiveFloat | None = None
    pricing_model: PricingModel
    #: A capacity-block-only or reservation-only SKU never gets an on-demand row, so 0 is invalid.
    usd_per_hour: PositiveFloat
    price_basis: PriceBasis = PriceBasis.INSTANCE
    source: str = Field(min_length=1)
    source_url: str = ""
    observed_at: datetime
    confidence: str = ""
    notes: str = ""
    #: Negotiated quotes: the quote's id, the vendor contact and when it lapses.
    quote_id: str | None = None
    vendor_contact: str | None = None
    expires_on: date | None = None

    @model_validator(mode="after")
    def _consistent(self) -> PriceQuote:
        if self.price_basis is PriceBasis.PER_ACCELERATOR and self.accelerator_count != 1:
            raise ValueError(
                f"{self.instance_type}: a per-accelerator-hour quote covers exactly one accelerator"
            )
        if self.pricing_model is PricingModel.NEGOTIATED and not self.quote_id:
            raise ValueError(f"{self.instance_type}: a negotiated quote needs a quote_id")
        return self

    @property
    def usd_per_accelerator_hour(self) -> float | None:
        return self.usd_per_hour / self.accelerator_count if self.accelerator_count else None


class BenchmarkResult(BaseModel):
    """One measured operating point of one configuration (model x runtime x hardware x load)."""

    model_config = _FROZEN

    accelerator_id: str
    #: Accelerators one model replica occupies (tensor x pipeline parallel); sockets for CPU.
    accelerators_per_replica: int = Field(ge=1)
    instance_type: str | None = None
    system: str = ""
    runtime: str = Field(min_length=1)
    runtime_version: str = ""
    model: str = Field(min_length=1)
    precision: str = Field(min_length=1)
    workload: str = Field(min_length=1)
    input_tokens: int | None = Field(default=None, gt=0)
    output_tokens: int | None = Field(default=None, gt=0)
    #: "offline" has no latency bound; "server"/"interactive"/"online" do.
    scenario: str = "online"
    concurrency: float | None = Field(default=None, gt=0)
    #: Requests per second offered; None with ``concurrency`` set means a closed loop, "inf" is a burst.
    request_rate_rps: float | None = Field(default=None, gt=0)
    output_tok_s: PositiveFloat
    total_tok_s: PositiveFloat | None = None
    ttft_ms_p50: NonNegativeFloat | None = None
    ttft_ms_p90: NonNegativeFloat | None = None
    ttft_ms_p95: NonNegativeFloat | None = None
    ttft_ms_p99: NonNegativeFloat | None = None
    #: How TTFT was obtained when it was not measured directly (e.g. derived from prefill speed).
    ttft_basis: str = "measured"
    tpot_ms_p50: NonNegativeFloat | None = None
    tpot_ms_p95: NonNegativeFloat | None = None
    tpot_ms_p99: NonNegativeFloat | None = None
    e2el_ms_p50: NonNegativeFloat | None = None
    e2el_ms_p95: NonNegativeFloat | None = None
    peak_memory_gib: NonNegativeFloat | None = None
    requests_ok: int | None = Field(default=None, ge=0)
    requests_failed: int | None = Field(default=None, ge=0)
    parity_exact_match: float | None = Field(default=None, ge=0, le=1)
    parity_similarity: float | None = Field(default=None, ge=0, le=1)
    measured_at: datetime
    source_tool: str = Field(min_length=1)
    source_file: str = ""
    source_title: str = ""
    source_url: str = ""
    confidence: str = ""
    notes: str = ""

    @model_validator(mode="after")
    def _ordered_percentiles(self) -> BenchmarkResult:
        for family in ("ttft_ms", "tpot_ms", "e2el_ms"):
            present = [
                (name, getattr(self, f"{family}_{name}"))
                for name in PERCENTILES
                if hasattr(self, f"{family}_{name}")
                and getattr(self, f"{family}_{name}") is not None
            ]
            for (lo_name, lo), (hi_name, hi) in zip(present, present[1:], strict=False):
                if lo > hi:
                    raise ValueError(
                        f"{family} percentiles are not ordered: {lo_name}={lo} > {hi_name}={hi}"
                        " (a percentile set must satisfy p50 <= p90 <= p95 <= p99)"
                    )
        if self.total_tok_s is not None and self.total_tok_s < self.output_tok_s:
            raise ValueError(
                f"total_tok_s ({self.total_tok_s}) is below output_tok_s ({self.output_tok_s});"
                " total throughput counts input and output tokens"
            )
        return self
