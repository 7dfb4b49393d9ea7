"""The core records every part of tokendesk speaks: Accelerator, PriceQuote and BenchmarkResult.
Each is a frozen pydantic model whose field names carry their unit, validated at construction
against its own fields, so that a bad row is rejected where it enters with a message that names
the fix. Whether an id is in the accelerator catalog is checked where data comes in
(``tokendesk.catalog.check_in_catalog``), not here: a record does not read files.
"""

from __future__ import annotations

import math
from datetime import UTC, date, datetime, timedelta
from enum import StrEnum
from typing import Annotated, Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationInfo,
    field_validator,
    model_validator,
)

from tokendesk.metrics import PERCENTILES
from tokendesk.textsafety import MAX_FIELD_CHARS, clean_text


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
    #: Servers the company buys and runs (colocated): priced by their total cost of ownership
    #: (costmodel.owned) and paid for every hour of the depreciation horizon.
    OWNED = "owned"


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
#: Capacity sold only as fixed blocks or under a negotiated contract: also paid for every hour.
BLOCK_OR_CONTRACT_MODELS = frozenset({PricingModel.CAPACITY_BLOCK, PricingModel.NEGOTIATED})
#: Owned hardware: committed capacity for its depreciation horizon, with no cloud term behind it.
OWNED_MODELS = frozenset({PricingModel.OWNED})
#: Like compared with like: the pricing-model families a cost view shows one at a time (spot is
#: interruptible, so it is never set against capacity that is there when needed).
PRICING_FAMILIES: dict[str, tuple[str, ...]] = {
    "on-demand": (PricingModel.ON_DEMAND.value,),
    "committed": tuple(
        m.value
        for m in PricingModel
        if m in COMMITTED_MODELS | BLOCK_OR_CONTRACT_MODELS | OWNED_MODELS
    ),
    "spot": (PricingModel.SPOT.value,),
}


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


_FROZEN = ConfigDict(frozen=True, extra="forbid", str_strip_whitespace=True, allow_inf_nan=False)

#: Ceilings that no real measurement reaches; a value beyond one is a unit slip or an attack
#: (1e308 tokens/s made an option cost $0.00). Physical roofline bounds live with the results'
#: plausibility checks; these only keep absurd magnitudes and integer overflow out.
MAX_MAGNITUDE = 1e9
MAX_COUNT = 1_000_000
PositiveFloat = Annotated[float, Field(gt=0, le=MAX_MAGNITUDE)]
NonNegativeFloat = Annotated[float, Field(ge=0, le=MAX_MAGNITUDE)]

#: Commercial bounds of one accelerator-hour (or one CPU-instance hour). The dearest list price
#: in the seed is about $15 per H100-hour; $0.01 is below any spot price of a real accelerator.
MIN_USD_PER_ACCELERATOR_HOUR = 0.01
MAX_USD_PER_ACCELERATOR_HOUR = 200.0
#: A timestamp may lead our clock by this much (provider clocks, time zones written as local).
CLOCK_SKEW = timedelta(days=1)
#: Nothing tokendesk prices or measures existed before this (the oldest catalog parts are 2020).
EARLIEST_OBSERVATION = datetime(2015, 1, 1)


def _clean_strings(data: Any) -> Any:
    """Strip control characters (ANSI escapes included) from every string field of a raw record
    and reject one longer than ``MAX_FIELD_CHARS``, naming the field."""
    if not isinstance(data, dict):
        return data
    cleaned = {}
    for key, value in data.items():
        if isinstance(value, str):
            value = clean_text(value)
            if len(value) > MAX_FIELD_CHARS:
                raise ValueError(
                    f"field {key!r} is {len(value):,} characters long (the limit is"
                    f" {MAX_FIELD_CHARS:,}); shorten it"
                )
        elif isinstance(value, float) and not math.isfinite(value):
            raise ValueError(f"field {key!r} is {value}; give a finite number")
        cleaned[key] = value
    return cleaned


def check_url(value: str) -> str:
    """A source link is shown as a clickable link: only http(s), never javascript: or data:."""
    if value and not value.lower().startswith(("https://", "http://")):
        raise ValueError(
            f"source_url {value[:60]!r} is not an http(s) address; give the page's https:// link"
            " or leave it empty"
        )
    return value


def check_moment(name: str, moment: datetime, now: datetime | None = None) -> None:
    """Reject a timestamp in the future (beyond ``CLOCK_SKEW``) or before ``EARLIEST_OBSERVATION``."""
    naive = moment.astimezone(UTC).replace(tzinfo=None) if moment.tzinfo else moment
    now = now or datetime.now(UTC).replace(tzinfo=None)
    if naive > now + CLOCK_SKEW:
        raise ValueError(
            f"{name} {moment:%Y-%m-%d %H:%M} is in the future; give the date the figure was"
            " observed (UTC)"
        )
    if naive < EARLIEST_OBSERVATION:
        raise ValueError(
            f"{name} {moment:%Y-%m-%d} is before {EARLIEST_OBSERVATION:%Y}; check the date"
        )


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


class _SourcedRecord(BaseModel):
    """What every sourced row checks on the way in: text cleaned, a web link, and a date that is
    neither in the future nor before the product existed (or no date at all: "date unknown")."""

    model_config = _FROZEN

    @model_validator(mode="before")
    @classmethod
    def _clean(cls, data: Any) -> Any:
        return _clean_strings(data)

    @field_validator("source_url", check_fields=False)
    @classmethod
    def _web_link(cls, value: str) -> str:
        return check_url(value)

    @field_validator("observed_at", "measured_at", check_fields=False)
    @classmethod
    def _plausible_moment(cls, value: datetime | None, info: ValidationInfo) -> datetime | None:
        stored = (info.context or {}).get("stored")  # rows read back were checked on the way in
        if value is not None and not stored:  # None: the source states no date
            check_moment(info.field_name or "date", value)
        return value


class PriceQuote(_SourcedRecord):
    """The price of one instance type (or one accelerator-hour) in one region, under one pricing model."""

    model_config = _FROZEN

    provider: str = Field(min_length=1)
    region: str = Field(min_length=1)
    zone: str | None = None
    instance_type: str = Field(min_length=1)
    accelerator_id: str
    #: Accelerators on the instance (sockets for CPU instances; 0 = less than one socket).
    accelerator_count: int = Field(ge=0, le=1024)
    vcpus: int | None = Field(default=None, gt=0, le=MAX_COUNT)
    memory_gib: PositiveFloat | None = None
    pricing_model: PricingModel
    #: A capacity-block-only or reservation-only SKU never gets an on-demand row, so 0 is invalid.
    usd_per_hour: PositiveFloat
    price_basis: PriceBasis = PriceBasis.INSTANCE
    source: str = Field(min_length=1)
    source_url: str = ""
    #: When the source saw this price. None = the source states no date ("date unknown"): an
    #: undated price is shown as such, never given a made-up date.
    observed_at: datetime | None
    #: The source's own words for its date, kept verbatim (e.g. "snapshot date unknown").
    source_date_text: str = ""
    confidence: str = ""
    notes: str = ""
    #: Negotiated quotes: the quote's id, the vendor contact and when it lapses.
    quote_id: str | None = None
    vendor_contact: str | None = None
    #: First day the price applies (e.g. the effective date of a price cut), where stated.
    valid_from: date | None = None
    #: Last day the price applies (valid_until in the source; a negotiated quote's expiry).
    #: A price past this day is never current and never a cost option.
    expires_on: date | None = None

    @model_validator(mode="after")
    def _consistent(self) -> PriceQuote:
        if self.price_basis is PriceBasis.PER_ACCELERATOR and self.accelerator_count != 1:
            raise ValueError(
                f"{self.instance_type}: a per-accelerator-hour quote covers exactly one accelerator"
            )
        if self.pricing_model is PricingModel.NEGOTIATED and not self.quote_id:
            raise ValueError(f"{self.instance_type}: a negotiated quote needs a quote_id")
        if self.valid_from and self.expires_on and self.valid_from > self.expires_on:
            raise ValueError(
                f"{self.instance_type}: valid_from {self.valid_from} is after the last valid day "
                f"{self.expires_on}"
            )
        per_unit = self.usd_per_hour / max(self.accelerator_count, 1)
        if not MIN_USD_PER_ACCELERATOR_HOUR <= per_unit <= MAX_USD_PER_ACCELERATOR_HOUR:
            raise ValueError(
                f"{self.instance_type}: usd_per_hour {self.usd_per_hour:g} is"
                f" ${per_unit:,.4g} per accelerator-hour, outside the plausible"
                f" ${MIN_USD_PER_ACCELERATOR_HOUR}–${MAX_USD_PER_ACCELERATOR_HOUR:g}; check the"
                " unit (per hour, US dollars) and accelerator_count"
            )
        return self

    @property
    def usd_per_accelerator_hour(self) -> float | None:
        return self.usd_per_hour / self.accelerator_count if self.accelerator_count else None


#: Relative slack when comparing latencies a file printed rounded (TTFT against end-to-end).
CONSISTENCY_SLACK = 0.005


class BenchmarkResult(_SourcedRecord):
    """One measured operating point of one configuration (model x runtime x hardware x load)."""

    model_config = _FROZEN

    accelerator_id: str
    #: Accelerators one model replica occupies (tensor x pipeline parallel); sockets for CPU.
    accelerators_per_replica: int = Field(ge=1, le=4096)
    instance_type: str | None = None
    system: str = ""
    runtime: str = Field(min_length=1)
    runtime_version: str = ""
    model: str = Field(min_length=1)
    precision: str = Field(min_length=1)
    workload: str = Field(min_length=1)
    input_tokens: int | None = Field(default=None, gt=0, le=100_000_000)
    output_tokens: int | None = Field(default=None, gt=0, le=100_000_000)
    #: Share of the input a prefix cache could serve in the load it was measured at (the
    #: harness's data set: shared system prompts, growing multi-turn context); None = not known.
    prefix_cache_share: float | None = Field(default=None, ge=0, le=1)
    #: "offline" has no latency bound; "server"/"interactive"/"online" do.
    scenario: str = "online"
    concurrency: float | None = Field(default=None, gt=0, le=MAX_COUNT)
    #: Requests per second offered; None with ``concurrency`` set means a closed loop, "inf" is a burst.
    request_rate_rps: float | None = Field(default=None, gt=0, le=MAX_MAGNITUDE)
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
    #: Mean power (W) over the run of the accelerators one replica occupies, from telemetry;
    #: None = not measured (energy per token is then estimated from the datasheet TDP).
    measured_power_w: PositiveFloat | None = None
    requests_ok: int | None = Field(default=None, ge=0, le=2**31 - 1)
    requests_failed: int | None = Field(default=None, ge=0, le=2**31 - 1)
    parity_exact_match: float | None = Field(default=None, ge=0, le=1)
    parity_similarity: float | None = Field(default=None, ge=0, le=1)
    #: When it was measured; None = the source states no date ("date unknown").
    measured_at: datetime | None
    #: The source's own words for its date, kept verbatim.
    source_date_text: str = ""
    #: Hosts one replica spans (an MLPerf multi-node system); priced as that many instances.
    nodes: int = Field(default=1, ge=1)
    #: Set only when a result beyond the physical bounds was kept on purpose
    #: (``--accept-implausible``): the bound it breaks, shown wherever the result is.
    plausibility_flag: str = ""
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
        self._consistent()
        return self

    def _consistent(self) -> None:
        """Figures that cannot all be true of one run: each request's first token arrives after
        it was sent and before its last one, so TTFT > 0 and, percentile by percentile,
        TTFT <= end-to-end latency and time per output token <= end-to-end latency (every
        request's own figures obey it, so their percentiles do); a closed loop runs at least one
        request at a time; and a run with no successful request measured no throughput."""
        for name in PERCENTILES:
            ttft = getattr(self, f"ttft_ms_{name}", None)
            if ttft is not None and ttft <= 0:
                raise ValueError(
                    f"ttft_ms_{name} is {ttft:g}: a first token cannot arrive in 0 ms; a missing"
                    " figure is left empty, not 0"
                )
            e2el = getattr(self, f"e2el_ms_{name}", None)
            if e2el is None:
                continue
            for family in ("ttft_ms", "tpot_ms"):
                value = getattr(self, f"{family}_{name}", None)
                # Rounding slack: files print latencies to 0.01 ms or to 3 significant digits.
                if value is not None and value > e2el * (1 + CONSISTENCY_SLACK) + 0.01:
                    raise ValueError(
                        f"{family}_{name} ({value:g} ms) is above e2el_ms_{name} ({e2el:g} ms):"
                        f" no request's {'first token' if family == 'ttft_ms' else 'token gap'}"
                        " takes longer than the whole request; check the columns"
                    )
        if self.concurrency is not None and self.request_rate_rps is None and self.concurrency < 1:
            raise ValueError(
                f"concurrency is {self.concurrency:g}: a closed loop (no request rate) runs at"
                " least 1 request at a time"
            )
        if self.requests_ok == 0:
            failed = self.requests_failed or 0
            raise ValueError(
                f"no request succeeded ({failed} failed): a run without a successful request"
                " measured no throughput; fix the server or drop the run"
            )
