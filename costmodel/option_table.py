"""Options: one price quote x one benchmark configuration with its operating points, and the
columnar table the engine computes on (numpy over all options at once).

It stays one module (a little over 600 lines): the frame reader builds ``Option`` records and the
records' table is built by it, so moving the reader to a module of its own would make the two
modules import each other."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from functools import cached_property

import numpy as np
import pandas as pd

from costmodel.demand import model_key
from tokendesk.metrics import PERCENTILES
from tokendesk.records import BLOCK_OR_CONTRACT_MODELS, COMMITTED_MODELS, PricingModel

#: Pricing models that are committed (paid for every hour of the term), as the option table
#: spells them.
COMMITTED = frozenset(m.value for m in COMMITTED_MODELS)
#: Capacity sold only as fixed blocks or under a negotiated contract: also paid for every hour.
BLOCK_OR_CONTRACT = frozenset(m.value for m in BLOCK_OR_CONTRACT_MODELS)
#: Owned servers priced by their total cost of ownership (costmodel.owned).
OWNED = PricingModel.OWNED.value
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
    #: Share of the input a prefix cache served in the load the result was measured at.
    prefix_cache_share: float | None = None
    ttft_basis: str = "measured"
    price_source_url: str = ""
    price_observed_at: datetime | None = None
    #: Who published the price and how sure it is (the price quote's source and confidence).
    price_source: str = ""
    price_confidence: str = ""
    bench_source_url: str = ""
    bench_source_title: str = ""
    bench_measured_at: datetime | None = None
    #: "measured" (read from results) or "estimated" (the calibrated performance model's
    #: operating point, ``costmodel.estimated_options``).
    basis: str = "measured"
    #: The capacity's 80% interval as multiples of its figure (1, 1 for a measured result).
    capacity_low: float = 1.0
    capacity_high: float = 1.0
    #: Points held only as columns of an OptionTable built by ``OptionTable.from_frame`` (a large
    #: frame would otherwise cost one Python object per operating point).
    n_table_points: int = 0

    def __post_init__(self) -> None:
        if not self.usd_per_unit_hour > 0:
            raise ValueError(
                f"option {self.option_id}: usd_per_unit_hour must be > 0 (a $0 row is never valid)"
            )
        if not self.points and not self.n_table_points:
            raise ValueError(f"option {self.option_id}: needs at least one operating point")

    @property
    def group_key(self) -> tuple:
        """Sibling quotes (same hardware, region and configuration, different pricing model)."""
        return (
            self.provider,
            self.region,
            self.zone or "",
            self.instance_type,
            self.price_basis,
            self.config_key,
        )


def _ts(value) -> datetime | None:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    try:
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

    The rules live once, in ``_frame_columns``; this wraps its point columns into
    ``OperatingPoint`` objects, for callers that want one Option at a time.
    """

    options, columns = _frame_columns(df)
    if not options:
        return []
    frame = df.reset_index(drop=True)
    rows = columns["row"]
    result_ids = (
        frame["result_id"].iloc[rows].astype(object).to_numpy()
        if "result_id" in frame
        else np.full(len(rows), None)
    )
    request_rate = columns["request_rate"]
    # Within an option, points in load order (concurrency, then request rate, unknown last).
    order = np.lexsort(
        (
            np.nan_to_num(request_rate, nan=np.inf),
            np.nan_to_num(columns["raw_concurrency"], nan=np.inf),
            columns["option"],
        )
    )

    def value(array: np.ndarray, i: int) -> float | None:
        v = float(array[i])
        return None if math.isnan(v) else v

    points: list[list[OperatingPoint]] = [[] for _ in options]
    for i in order.tolist():
        points[columns["option"][i]].append(
            OperatingPoint(
                unit_output_tok_s=float(columns["tok_s"][i]),
                unit_total_tok_s=value(columns["total_tok_s"], i),
                concurrency=value(columns["raw_concurrency"], i),
                request_rate_rps=value(request_rate, i),
                ttft_ms_p50=value(columns["ttft"]["p50"], i),
                ttft_ms_p90=value(columns["ttft"]["p90"], i),
                ttft_ms_p95=value(columns["ttft"]["p95"], i),
                ttft_ms_p99=value(columns["ttft"]["p99"], i),
                tpot_ms_p50=value(columns["tpot"]["p50"], i),
                tpot_ms_p95=value(columns["tpot"]["p95"], i),
                tpot_ms_p99=value(columns["tpot"]["p99"], i),
                offline=bool(columns["offline"][i]),
                result_id=_text(result_ids[i]),
            )
        )
    return [
        replace(o, points=tuple(p), n_table_points=0) for o, p in zip(options, points, strict=True)
    ]


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

    #: Set by ``from_frame``: the point columns, already built (skips reading ``Option.points``).
    _columns: dict | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        opts = self.options
        if self._columns is not None:
            columns, self._columns = self._columns, None
            self._set_points(columns)
        else:
            self._set_points(_point_columns(opts))
        self._set_labels()

    @classmethod
    def from_frame(cls, df) -> OptionTable:
        """The same table as ``OptionTable(tuple(options_from_frame(df)))``, built column-wise."""
        options, columns = _frame_columns(df)
        return cls(options, _columns=columns)

    def with_options(self, extra: Sequence[Option]) -> OptionTable:
        """This table with more options appended (each carrying its own ``points``); the existing
        options keep their indices and their point columns."""
        if not extra:
            return self
        added = _point_columns(extra, first=len(self.options))
        columns = {
            "option": np.concatenate([self.pt_option, added["option"]]),
            "tok_s": np.concatenate([self.pt_tok_s, added["tok_s"]]),
            "concurrency": np.concatenate([self.pt_concurrency, added["concurrency"]]),
            "offline": np.concatenate([self.pt_offline, added["offline"]]),
            "ttft": {q: np.concatenate([self.pt_ttft[q], added["ttft"][q]]) for q in self.pt_ttft},
            "tpot": {q: np.concatenate([self.pt_tpot[q], added["tpot"][q]]) for q in self.pt_tpot},
        }
        return OptionTable((*self.options, *extra), _columns=columns)

    def _set_points(self, columns: dict) -> None:
        opts = self.options
        n = len(opts)
        self.price = np.array([o.usd_per_unit_hour for o in opts], dtype=float)
        self.accelerators_per_unit = np.array([o.accelerators_per_unit for o in opts], dtype=float)
        self.pt_option = columns["option"]
        counts = np.bincount(self.pt_option, minlength=n).astype(np.int64)
        self.offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        self.pt_tok_s = columns["tok_s"]
        conc = columns["concurrency"]
        self.pt_offline = columns["offline"]
        self.pt_ttft = columns["ttft"]
        self.pt_tpot = columns["tpot"]
        # Sort within each option by concurrency (then throughput) so a sweep reads in load order.
        order = np.lexsort((self.pt_tok_s, np.nan_to_num(conc, nan=np.inf), self.pt_option))
        self.pt_option = self.pt_option[order]
        self.pt_tok_s = self.pt_tok_s[order]
        self.pt_concurrency = conc[order]
        self.pt_offline = self.pt_offline[order]
        self.pt_ttft = {q: a[order] for q, a in self.pt_ttft.items()}
        self.pt_tpot = {q: a[order] for q, a in self.pt_tpot.items()}

    def _set_labels(self) -> None:
        opts = self.options
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
            [
                any(label == k or label.startswith(k) for k in model_keys)
                for label in self.model.labels
            ]
            + [False],
            dtype=bool,
        )
        return lookup[self.model.codes]


def _point_columns(opts: Sequence[Option], first: int = 0) -> dict:
    """The operating points of options that carry them, as the table's columns (option indices
    counted from ``first``)."""
    pts = [p for o in opts for p in o.points]
    nan = float("nan")

    def col(getter) -> np.ndarray:
        return np.array([nan if (v := getter(p)) is None else v for p in pts], dtype=float)

    counts = np.array([len(o.points) for o in opts], dtype=np.int64)
    return {
        "option": first + np.repeat(np.arange(len(opts), dtype=np.int64), counts),
        "tok_s": col(lambda p: p.unit_output_tok_s),
        "concurrency": col(
            lambda p: p.concurrency if p.concurrency is not None else p.request_rate_rps
        ),
        "offline": np.array([p.offline for p in pts], dtype=bool),
        "ttft": {q: col(lambda p, q=q: p.ttft(q)) for q in PERCENTILES},
        "tpot": {q: col(lambda p, q=q: p.tpot(q)) for q in ("p50", "p95", "p99")},
    }


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


class _FrameReader:
    """A cost frame's columns read as numpy arrays: numbers as floats, text as sorted codes."""

    def __init__(self, df) -> None:
        self.frame = df.reset_index(drop=True) if df is not None else pd.DataFrame()
        self.n = len(self.frame)

    def num(self, column: str) -> np.ndarray:
        frame = self.frame
        return (
            pd.to_numeric(frame[column], errors="coerce").to_numpy(dtype=float)
            if column in frame
            else np.full(self.n, np.nan)
        )

    def coded(self, column: str, default: str = "") -> tuple[np.ndarray, np.ndarray]:
        """(per-row codes, sorted labels): codes order like the strings they stand for."""
        if column not in self.frame:
            return np.zeros(self.n, dtype=np.int64), np.array([default], dtype=object)
        values = self.frame[column]
        if isinstance(values.dtype, pd.CategoricalDtype):
            labels = np.append(np.asarray(values.cat.categories.astype(str), dtype=object), default)
            codes = values.cat.codes.to_numpy().astype(np.int64)
            codes[codes < 0] = len(labels) - 1
        else:
            codes, uniques = pd.factorize(
                values.astype(object).where(values.notna(), default).astype(str)
            )
            labels = np.asarray(uniques, dtype=object)
        unique_labels, inverse = np.unique(labels.astype(str), return_inverse=True)
        return inverse[codes], unique_labels.astype(object)

    def text_at(self, column: str, rows: np.ndarray) -> np.ndarray:
        if column not in self.frame:
            return np.full(len(rows), "", dtype=object)
        values = self.frame[column].iloc[rows].astype(object)
        return values.where(values.notna(), "").astype(str).to_numpy(dtype=object)


def _no_points() -> dict:
    """The point columns of an empty table."""
    return {
        "option": np.zeros(0, np.int64),
        "tok_s": np.zeros(0),
        "concurrency": np.zeros(0),
        "offline": np.zeros(0, bool),
        "ttft": {q: np.zeros(0) for q in PERCENTILES},
        "tpot": {q: np.zeros(0) for q in ("p50", "p95", "p99")},
        "row": np.zeros(0, np.int64),
        "total_tok_s": np.zeros(0),
        "raw_concurrency": np.zeros(0),
        "request_rate": np.zeros(0),
    }


#: The columns whose values make one option (quote × configuration); rows that share them are
#: its operating points.
_KEY_NAMES = (
    "provider",
    "region",
    "zone",
    "instance_type",
    "pricing_model",
    "price_basis",
    "usd_per_hour",
    "config_key",
)
#: Text an option takes from the first row of its group.
_HEAD_TEXT = (
    "accelerator_id",
    "accelerator_name",
    "vendor",
    "backend",
    "model",
    "precision",
    "runtime",
    "runtime_version",
    "workload",
    "ttft_basis",
    "price_source",
    "price_confidence",
    "price_source_url",
    "bench_source_url",
    "bench_source_title",
)


@dataclass(frozen=True)
class _GroupUnits:
    """Per group (option): what one purchasable unit is and costs."""

    per_acc: np.ndarray  # priced per accelerator
    apr: np.ndarray  # accelerators per replica
    count: np.ndarray  # accelerators per instance
    unit_price: np.ndarray  # $ per purchasable unit-hour
    replicas: np.ndarray  # replicas per purchasable unit
    valid: np.ndarray


def _group_units(
    reader: _FrameReader, first: np.ndarray, per_acc_row: np.ndarray, usd_all: np.ndarray
) -> _GroupUnits:
    """Unit price and replicas per group, read from its first row: a per-accelerator quote is
    a unit of one replica; an instance holds ``replicas_per_instance`` (or count ÷ per replica)."""
    num = reader.num
    per_acc_group = per_acc_row[first]
    apr_raw = num("accelerators_per_replica")[first]
    apr = np.where(np.isnan(apr_raw) | (apr_raw == 0), 1, apr_raw).astype(np.int64)
    count_raw = num("accelerator_count")[first]
    count = np.where(np.isnan(count_raw), 0, count_raw).astype(np.int64)
    usd = np.nan_to_num(usd_all[first], nan=0.0)
    per_acc_price = num("usd_per_accelerator_hour")[first]
    per_acc_price = np.where(np.isnan(per_acc_price) | (per_acc_price == 0), usd, per_acc_price)
    unit_price = np.where(per_acc_group, per_acc_price * apr, usd)
    rpi_first = num("replicas_per_instance")[first]
    replicas = np.where(
        per_acc_group,
        1,
        np.where(np.isnan(rpi_first) | (rpi_first == 0), count // np.maximum(apr, 1), rpi_first),
    ).astype(np.int64)
    valid = (unit_price > 0) & (per_acc_group | (replicas >= 1))
    return _GroupUnits(per_acc_group, apr, count, unit_price, replicas, valid)


def _options_at(
    reader: _FrameReader,
    keys: dict[str, tuple[np.ndarray, np.ndarray]],
    heads: np.ndarray,
    kept_groups: np.ndarray,
    units: _GroupUnits,
    points_per_group: np.ndarray,
    measured_min: np.ndarray | None,
) -> list[Option]:
    """One ``Option`` per kept group, its text from the group's first row (``heads``)."""
    frame, num = reader.frame, reader.num
    at = {name: labels[codes[heads]] for name, (codes, labels) in keys.items()}
    text = {name: reader.text_at(name, heads) for name in _HEAD_TEXT}
    in_tokens, out_tokens = num("input_tokens")[heads], num("output_tokens")[heads]
    cache_shares = num("prefix_cache_share")[heads]
    observed = (
        frame["price_observed_at"].iloc[heads].to_numpy(dtype=object)
        if "price_observed_at" in frame
        else np.full(len(heads), None)
    )
    apr, count, per_acc_group = units.apr, units.count, units.per_acc
    options = []
    for j, g in enumerate(kept_groups):
        provider, region, zone = at["provider"][j], at["region"][j], at["zone"][j]
        instance_type, pricing_model, config_key = (
            at["instance_type"][j],
            at["pricing_model"][j],
            at["config_key"][j],
        )
        zone_part = f"/{zone}" if zone else ""
        options.append(
            Option(
                option_id=f"{provider}:{region}{zone_part}:{instance_type}:{pricing_model}:{config_key}",
                provider=provider,
                region=region,
                zone=zone or None,
                instance_type=instance_type,
                pricing_model=pricing_model,
                price_basis=at["price_basis"][j],
                accelerator_id=text["accelerator_id"][j],
                accelerator_name=text["accelerator_name"][j],
                vendor=text["vendor"][j],
                backend=text["backend"][j],
                usd_per_unit_hour=float(units.unit_price[g]),
                accelerators_per_unit=int(apr[g] if per_acc_group[g] else count[g]),
                accelerators_per_replica=int(apr[g]),
                replicas_per_unit=int(units.replicas[g]),
                config_key=config_key,
                model=text["model"][j],
                precision=text["precision"][j],
                runtime=text["runtime"][j],
                runtime_version=text["runtime_version"][j],
                workload=text["workload"][j],
                input_tokens=int(in_tokens[j])
                if in_tokens[j] == in_tokens[j] and in_tokens[j]
                else None,
                output_tokens=int(out_tokens[j])
                if out_tokens[j] == out_tokens[j] and out_tokens[j]
                else None,
                prefix_cache_share=None if math.isnan(cache_shares[j]) else float(cache_shares[j]),
                ttft_basis=text["ttft_basis"][j] or "measured",
                price_source_url=text["price_source_url"][j],
                price_observed_at=_ts(observed[j]),
                price_source=text["price_source"][j],
                price_confidence=text["price_confidence"][j],
                bench_source_url=text["bench_source_url"][j],
                bench_source_title=text["bench_source_title"][j],
                bench_measured_at=_ts(measured_min[g]) if measured_min is not None else None,
                points=(),
                n_table_points=int(points_per_group[g]),
            )
        )
    return options


def _frame_columns(df) -> tuple[tuple[Option, ...], dict]:
    """Column-wise ``options_from_frame``: the same options, rules and order, with the operating
    points returned as numpy columns instead of one Python object each. Text is only ever turned
    into Python strings once per option, never per row (a large cost frame has millions of rows
    of categorical provenance)."""
    reader = _FrameReader(df)
    frame, n, num, coded = reader.frame, reader.n, reader.num, reader.coded
    if n == 0:
        return (), _no_points()
    keys: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for name in _KEY_NAMES:
        if name != "usd_per_hour":
            keys[name] = coded(name, "instance" if name == "price_basis" else "")
    usd_all = num("usd_per_hour")
    usd_code, usd_values = np.unique(np.nan_to_num(usd_all, nan=-1.0), return_inverse=True)[::-1]
    group_frame = pd.DataFrame(
        {name: (usd_code if name == "usd_per_hour" else keys[name][0]) for name in _KEY_NAMES}
    )
    gid = group_frame.groupby(list(_KEY_NAMES), sort=True).ngroup().to_numpy()
    n_groups = int(gid.max()) + 1
    concurrency, rate = num("concurrency"), num("request_rate_rps")
    order = np.lexsort(
        (np.nan_to_num(rate, nan=np.inf), np.nan_to_num(concurrency, nan=np.inf), gid)
    )
    starts = np.r_[0, np.flatnonzero(np.diff(gid[order])) + 1]
    first = np.empty(n_groups, dtype=np.int64)
    first[gid[order][starts]] = order[starts]

    basis_codes, basis_labels = keys["price_basis"]
    per_acc_label = np.flatnonzero(basis_labels == "per_accelerator")
    per_acc_row = np.isin(basis_codes, per_acc_label)
    units = _group_units(reader, first, per_acc_row, usd_all)
    apr, count = units.apr, units.count

    inst_out, inst_tot = num("instance_output_tok_s"), num("instance_total_tok_s")
    rpi_row = np.nan_to_num(num("replicas_per_instance"), nan=0.0)
    fallback = apr[gid] / np.maximum(count[gid], 1)
    scale = np.where(rpi_row >= 1, 1.0 / np.where(rpi_row >= 1, rpi_row, 1.0), fallback)
    inst_out = np.where(per_acc_row, inst_out * scale, inst_out)
    inst_tot = np.where(per_acc_row, inst_tot * scale, inst_tot)
    valid_row = units.valid[gid] & (inst_out > 0)

    kept_groups = np.unique(gid[valid_row])
    new_index = np.full(n_groups, -1, dtype=np.int64)
    new_index[kept_groups] = np.arange(len(kept_groups))
    points_per_group = np.bincount(gid[valid_row], minlength=n_groups)
    measured_min = (
        pd.Series(pd.to_datetime(frame["bench_measured_at"]).to_numpy())
        .groupby(gid)
        .min()
        .to_numpy()
        if "bench_measured_at" in frame
        else None
    )
    options = _options_at(
        reader, keys, first[kept_groups], kept_groups, units, points_per_group, measured_min
    )
    rows = np.flatnonzero(valid_row)
    scenario_codes, scenario_labels = coded("scenario")
    offline_labels = np.flatnonzero(
        np.isin(np.char.lower(scenario_labels.astype(str)), list(OFFLINE_SCENARIOS))
    )
    point_columns = {
        "option": new_index[gid[rows]],
        "tok_s": inst_out[rows],
        "concurrency": np.where(np.isnan(concurrency), rate, concurrency)[rows],
        "offline": np.isin(scenario_codes[rows], offline_labels),
        "ttft": {q: num(f"ttft_ms_{q}")[rows] for q in PERCENTILES},
        "tpot": {q: num(f"tpot_ms_{q}")[rows] for q in ("p50", "p95", "p99")},
        # For options_from_frame's point objects; the table ignores these.
        "row": rows,
        "total_tok_s": inst_tot[rows],
        "raw_concurrency": concurrency[rows],
        "request_rate": rate[rows],
    }
    return tuple(options), point_columns
