"""Options: one price quote x one benchmark configuration with its operating points, and the
columnar table the engine computes on (numpy over all options at once)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property

import numpy as np

from tokendesk.costmodel.demand import PERCENTILES, model_key

#: Pricing models that are committed (paid for every hour of the term).
COMMITTED = frozenset(
    {
        "reserved_1y",
        "reserved_3y",
        "savings_plan_1y",
        "savings_plan_3y",
        "committed_use_1y",
        "committed_use_3y",
    }
)
#: Capacity sold only as fixed blocks or under a negotiated contract: also paid for every hour.
BLOCK_OR_CONTRACT = frozenset({"capacity_block", "negotiated"})
#: Benchmark scenarios that carry no latency bound and so cannot prove a latency SLO.
OFFLINE_SCENARIOS = frozenset({"offline"})


@dataclass(frozen=True)
class OperatingPoint:
    """One measured point of a concurrency sweep, already scaled to one purchasable unit."""

    unit_output_tok_s: float
    concurrency: float | None = None
    request_rate_rps: float | None = None
    unit_total_tok_s: float | None = None
    ttft_ms_p50: float | None = None
    ttft_ms_p90: float | None = None
    ttft_ms_p95: float | None = None
    ttft_ms_p99: float | None = None
    tpot_ms_p50: float | None = None
    tpot_ms_p95: float | None = None
    tpot_ms_p99: float | None = None
    offline: bool = False
    result_id: str = ""

    def ttft(self, percentile: str) -> float | None:
        return getattr(self, f"ttft_ms_{percentile}")

    def tpot(self, percentile: str) -> float | None:
        return getattr(self, f"tpot_ms_{percentile}", None)


@dataclass(frozen=True)
class Option:
    """One price quote x one configuration (model, precision, runtime, accelerators per replica).

    The purchasable *unit* is the instance for instance-priced quotes, and one replica's worth of
    accelerators for per-accelerator quotes; every throughput figure is per unit.
    """

    option_id: str
    provider: str
    region: str
    instance_type: str
    pricing_model: str
    accelerator_id: str
    vendor: str
    backend: str
    usd_per_unit_hour: float
    accelerators_per_unit: int
    accelerators_per_replica: int
    replicas_per_unit: int
    config_key: str
    model: str
    precision: str
    runtime: str
    points: tuple[OperatingPoint, ...]
    zone: str | None = None
    price_basis: str = "instance"
    accelerator_name: str = ""
    runtime_version: str = ""
    workload: str = ""
    input_tokens: int | None = None
    output_tokens: int | None = None
    ttft_basis: str = "measured"
    price_source_url: str = ""
    price_observed_at: datetime | None = None
    bench_source_url: str = ""
    bench_source_title: str = ""
    bench_measured_at: datetime | None = None

    def __post_init__(self) -> None:
        if not self.usd_per_unit_hour > 0:
            raise ValueError(f"option {self.option_id}: usd_per_unit_hour must be > 0 (a $0 row is never valid)")
        if not self.points:
            raise ValueError(f"option {self.option_id}: needs at least one operating point")

    @property
    def group_key(self) -> tuple:
        """Sibling quotes (same hardware, region and configuration, different pricing model)."""
        return (self.provider, self.region, self.zone or "", self.instance_type, self.price_basis, self.config_key)

    @property
    def sku_label(self) -> str:
        return f"{self.provider} {self.instance_type} ({self.region})"


def _num(value) -> float | None:
    if value is None:
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(number) else number


def _ts(value) -> datetime | None:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    try:
        import pandas as pd

        if pd.isna(value):
            return None
        return pd.Timestamp(value).to_pydatetime()
    except (TypeError, ValueError):
        return None


def _text(value) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return str(value)


def options_from_frame(df) -> list[Option]:
    """Turn the warehouse's cost-options frame (one row per quote x operating point) into Options.

    Rows group by the quote's identity and ``config_key``. Per-unit throughput: an instance quote
    uses ``instance_output_tok_s`` (replicas x result tok/s); a per-accelerator quote buys one
    replica's worth of accelerators at ``accelerators_per_replica x usd_per_accelerator_hour``,
    with the replica's tok/s recovered as ``instance_output_tok_s / replicas_per_instance`` (or,
    when the frame pro-rated a fraction of a replica, scaled back by the accelerator ratio).
    Rows without a positive price or throughput are skipped, never zero-filled.
    """
    if df is None or len(df) == 0:
        return []
    keys = ["provider", "region", "zone", "instance_type", "pricing_model", "price_basis", "usd_per_hour", "config_key"]
    import pandas as pd

    frame = df.copy()
    for col in frame.columns:  # the warehouse hands back categoricals; group and fill on plain objects
        if isinstance(frame[col].dtype, pd.CategoricalDtype):
            frame[col] = frame[col].astype(object)
    for col in ("zone", "price_basis"):
        if col not in frame.columns:
            frame[col] = None
    frame["zone"] = frame["zone"].fillna("")
    frame["price_basis"] = frame["price_basis"].fillna("instance")
    options: list[Option] = []
    sort_cols = [c for c in ("concurrency", "request_rate_rps") if c in frame.columns]
    for key, rows in frame.groupby(keys, sort=True, dropna=False):
        provider, region, zone, instance_type, pricing_model, basis, usd_per_hour, config_key = key
        if sort_cols:
            rows = rows.sort_values(sort_cols, na_position="last")
        first = rows.iloc[0]
        apr = int(_num(first.get("accelerators_per_replica")) or 1)
        count = int(_num(first.get("accelerator_count")) or 0)
        if basis == "per_accelerator":
            per_acc = _num(first.get("usd_per_accelerator_hour")) or _num(usd_per_hour)
            unit_price = (per_acc or 0.0) * apr
            accelerators_per_unit, replicas_per_unit = apr, 1
        else:
            unit_price = _num(usd_per_hour) or 0.0
            accelerators_per_unit = count
            replicas_per_unit = int(_num(first.get("replicas_per_instance")) or (count // apr if apr else 0))
        if unit_price <= 0 or (basis != "per_accelerator" and replicas_per_unit < 1):
            continue
        points: list[OperatingPoint] = []
        for _, row in rows.iterrows():
            inst_out = _num(row.get("instance_output_tok_s"))
            inst_tot = _num(row.get("instance_total_tok_s"))
            if basis == "per_accelerator":
                rpi = _num(row.get("replicas_per_instance")) or 0.0
                scale = (1.0 / rpi) if rpi >= 1 else (apr / max(count, 1))
                inst_out = inst_out * scale if inst_out else None
                inst_tot = inst_tot * scale if inst_tot else None
            if not inst_out or inst_out <= 0:
                continue
            scenario = _text(row.get("scenario")).lower()
            points.append(
                OperatingPoint(
                    unit_output_tok_s=inst_out,
                    unit_total_tok_s=inst_tot,
                    concurrency=_num(row.get("concurrency")),
                    request_rate_rps=_num(row.get("request_rate_rps")),
                    ttft_ms_p50=_num(row.get("ttft_ms_p50")),
                    ttft_ms_p90=_num(row.get("ttft_ms_p90")),
                    ttft_ms_p95=_num(row.get("ttft_ms_p95")),
                    ttft_ms_p99=_num(row.get("ttft_ms_p99")),
                    tpot_ms_p50=_num(row.get("tpot_ms_p50")),
                    tpot_ms_p95=_num(row.get("tpot_ms_p95")),
                    tpot_ms_p99=_num(row.get("tpot_ms_p99")),
                    offline=scenario in OFFLINE_SCENARIOS,
                    result_id=_text(row.get("result_id")),
                )
            )
        if not points:
            continue
        zone_part = f"/{zone}" if zone else ""
        options.append(
            Option(
                option_id=f"{provider}:{region}{zone_part}:{instance_type}:{pricing_model}:{config_key}",
                provider=str(provider),
                region=str(region),
                zone=str(zone) or None,
                instance_type=str(instance_type),
                pricing_model=str(pricing_model),
                price_basis=str(basis),
                accelerator_id=_text(first.get("accelerator_id")),
                accelerator_name=_text(first.get("accelerator_name")),
                vendor=_text(first.get("vendor")),
                backend=_text(first.get("backend")),
                usd_per_unit_hour=unit_price,
                accelerators_per_unit=accelerators_per_unit,
                accelerators_per_replica=apr,
                replicas_per_unit=replicas_per_unit,
                config_key=str(config_key),
                model=_text(first.get("model")),
                precision=_text(first.get("precision")),
                runtime=_text(first.get("runtime")),
                runtime_version=_text(first.get("runtime_version")),
                workload=_text(first.get("workload")),
                input_tokens=int(v) if (v := _num(first.get("input_tokens"))) else None,
                output_tokens=int(v) if (v := _num(first.get("output_tokens"))) else None,
                ttft_basis=_text(first.get("ttft_basis")) or "measured",
                price_source_url=_text(first.get("price_source_url")),
                price_observed_at=_ts(first.get("price_observed_at")),
                bench_source_url=_text(first.get("bench_source_url")),
                bench_source_title=_text(first.get("bench_source_title")),
                bench_measured_at=_ts(rows["bench_measured_at"].min()) if "bench_measured_at" in rows else None,
                points=tuple(points),
            )
        )
    return options


class _Codes:
    """A categorical column: labels plus an int code per row."""

    def __init__(self, values: Sequence[str]):
        labels, codes = np.unique(np.asarray(values, dtype=object).astype(str), return_inverse=True)
        self.labels: tuple[str, ...] = tuple(labels.tolist())
        self.codes: np.ndarray = codes.astype(np.int64)
        self._index = {label: i for i, label in enumerate(self.labels)}

    def mask(self, allowed: Iterable[str] | None) -> np.ndarray:
        if allowed is None:
            return np.ones(len(self.codes), dtype=bool)
        wanted = [self._index[a] for a in allowed if a in self._index]
        lookup = np.zeros(len(self.labels) + 1, dtype=bool)
        lookup[wanted] = True
        return lookup[self.codes]


@dataclass
class OptionTable:
    """All options as numpy columns; points flattened and sorted by (option, concurrency)."""

    options: tuple[Option, ...]
    price: np.ndarray = field(init=False)
    accelerators_per_unit: np.ndarray = field(init=False)
    pt_option: np.ndarray = field(init=False)
    pt_tok_s: np.ndarray = field(init=False)
    pt_concurrency: np.ndarray = field(init=False)
    pt_offline: np.ndarray = field(init=False)
    pt_ttft: dict[str, np.ndarray] = field(init=False)
    pt_tpot: dict[str, np.ndarray] = field(init=False)
    offsets: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        opts = self.options
        n = len(opts)
        self.price = np.array([o.usd_per_unit_hour for o in opts], dtype=float)
        self.accelerators_per_unit = np.array([o.accelerators_per_unit for o in opts], dtype=float)
        counts = np.array([len(o.points) for o in opts], dtype=np.int64)
        self.offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        pts = [p for o in opts for p in o.points]
        self.pt_option = np.repeat(np.arange(n, dtype=np.int64), counts)
        nan = float("nan")

        def col(getter) -> np.ndarray:
            return np.array([nan if (v := getter(p)) is None else v for p in pts], dtype=float)

        self.pt_tok_s = col(lambda p: p.unit_output_tok_s)
        conc = col(lambda p: p.concurrency if p.concurrency is not None else p.request_rate_rps)
        self.pt_offline = np.array([p.offline for p in pts], dtype=bool)
        self.pt_ttft = {q: col(lambda p, q=q: p.ttft(q)) for q in PERCENTILES}
        self.pt_tpot = {q: col(lambda p, q=q: p.tpot(q)) for q in ("p50", "p95", "p99")}
        # Sort within each option by concurrency (then throughput) so a sweep reads in load order.
        order = np.lexsort((self.pt_tok_s, np.nan_to_num(conc, nan=np.inf), self.pt_option))
        self.pt_option = self.pt_option[order]
        self.pt_tok_s = self.pt_tok_s[order]
        self.pt_concurrency = conc[order]
        self.pt_offline = self.pt_offline[order]
        self.pt_ttft = {q: a[order] for q, a in self.pt_ttft.items()}
        self.pt_tpot = {q: a[order] for q, a in self.pt_tpot.items()}
        self.provider = _Codes([o.provider for o in opts])
        self.region = _Codes([o.region for o in opts])
        self.vendor = _Codes([o.vendor for o in opts])
        self.backend = _Codes([o.backend for o in opts])
        self.accelerator = _Codes([o.accelerator_id for o in opts])
        self.pricing_model = _Codes([o.pricing_model for o in opts])
        self.precision = _Codes([canonical_precision(o.precision) for o in opts])
        self.model = _Codes([model_key(o.model) for o in opts])
        groups = _Codes(["\x1f".join(map(str, o.group_key)) for o in opts])
        self.group = groups.codes
        self.n_groups = len(groups.labels)

    def __len__(self) -> int:
        return len(self.options)

    @cached_property
    def n_points(self) -> int:
        return int(len(self.pt_tok_s))

    def model_mask(self, model_keys: Sequence[str]) -> np.ndarray:
        """Options whose model matches one of the keys (equal, or the key is a prefix)."""
        lookup = np.array(
            [any(label == k or label.startswith(k) for k in model_keys) for label in self.model.labels] + [False],
            dtype=bool,
        )
        return lookup[self.model.codes]


def canonical_precision(text: str) -> str:
    """Map the many spellings of a precision to bf16 | fp8 | int8 | int4 | fp4 | unknown."""
    t = (text or "").lower()
    if "fp4" in t or "mxfp4" in t or "nvfp4" in t:
        return "fp4"
    if "fp8" in t or "e4m3" in t or "w8a8-fp8" in t:
        return "fp8"
    if "int4" in t or "q4" in t or "awq" in t or "gptq" in t or "4bit" in t or "4-bit" in t:
        return "int4"
    if "int8" in t or "w8a8" in t or "q8" in t or "s8" in t:
        return "int8"
    if "bf16" in t or "fp16" in t or "bfloat16" in t or "float16" in t or "half" in t:
        return "bf16"
    return "unknown"
