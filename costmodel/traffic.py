"""A workload's demand derived from a request trace (pure: sequences in, figures out).

Every figure is a plain count over the trace, so it can be checked by hand on a small one:

* ``trace_hours`` = (last arrival − first arrival) / 3600. A month's tokens are the trace's
  tokens × ``hours_per_month`` / ``trace_hours`` (730 h, the billing convention): a steady
  repetition of the trace, which the notes say when the trace is short.
* ``peak_to_mean``: input + output tokens per time bucket (the *grain*: 1 hour for a trace of a
  day or more, the daily peak ÷ mean the workspace's demand uses; 1 minute for a trace of 10
  minutes or more; else 1 second; never finer than the step of grouped time stamps), highest
  bucket ÷ mean bucket, over whole buckets only (the trailing partial one is dropped).
* ``burstiness``: the coefficient of variation of the gaps between arrivals (1 for Poisson
  arrivals; above 1 burstier), the gamma shape 1/CV² the harness's ``--burstiness`` takes, and
  the variance ÷ mean of requests per bucket at the grain (1 for Poisson).
* ``hour_of_day``: for each hour of the clock, the tokens that arrived in it ÷ the seconds the
  trace covered it, relative to the trace's mean rate (1 = average). Hours the trace never
  covered are null; a trace without a wall clock has no curve.
* ``prefix_cache_share``: of all prompt blocks, the share whose block id appeared in an earlier
  request: what a prefix cache that never evicts could have served. Null when the trace carries
  no block ids.
* length percentiles: linear interpolation between ranks (numpy's default, as the harness's).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

import numpy as np

from costmodel.demand import HOURS_PER_MONTH
from costmodel.domain import PEAK_TO_MEAN

PERCENTILES = (50, 90, 95, 99)
SECONDS_PER_HOUR = 3600.0
#: The grain peak ÷ mean is read at, by the trace's length: (shortest span in s, grain in s, name).
#: Shortest span a month is extrapolated from: below a second, the month's totals are the
#: trace's times a factor beyond 2.6 million, and a span of 1e-300 s would make them infinite.
MIN_SPAN_S = 1.0
GRAINS = ((86_400.0, 3600.0, "1 hour"), (600.0, 60.0, "1 minute"), (0.0, 1.0, "1 second"))
#: Above this share of zero gaps the arrival times are grouped (coarse stamps or batches).
GROUPED_ARRIVALS_SHARE = 0.2


class TrafficError(ValueError):
    """The trace cannot support a demand (too few requests, no time span)."""


@dataclass(frozen=True)
class LengthStats:
    mean: float
    minimum: int
    maximum: int
    percentiles: dict[str, float]
    #: (from, to exclusive, requests) per doubling of length: 0, 1, 2-3, 4-7, … tokens.
    histogram: tuple[tuple[int, int, int], ...] = ()

    def to_json(self) -> dict:
        return {
            "mean": self.mean,
            "min": self.minimum,
            "max": self.maximum,
            **self.percentiles,
            "histogram": [
                {"from_tokens": lo, "below_tokens": hi, "requests": n}
                for lo, hi, n in self.histogram
            ],
        }


@dataclass(frozen=True)
class Burstiness:
    interarrival_cv: float | None
    gamma_shape: float | None
    count_dispersion: float | None
    grouped_arrival_share: float

    def to_json(self) -> dict:
        return {
            "interarrival_cv": self.interarrival_cv,
            "gamma_shape": self.gamma_shape,
            "count_dispersion": self.count_dispersion,
            "grouped_arrival_share": self.grouped_arrival_share,
        }


@dataclass(frozen=True)
class TrafficDemand:
    """What a trace says a workload asks of a fleet (see the module docstring)."""

    requests: int
    trace_hours: float
    hours_per_month: float
    input_tokens: int
    output_tokens: int
    input_tokens_per_month: float
    output_tokens_per_month: float
    peak_to_mean: float | None
    peak_to_mean_grain: str
    prefix_cache_share: float | None
    burstiness: Burstiness
    hour_of_day: tuple[float | None, ...] | None
    clock: str
    input_length: LengthStats
    output_length: LengthStats
    notes: tuple[str, ...] = field(default=())
    #: Tokens per whole bucket at the peak ÷ mean grain, ÷ their mean: the curve peak ÷ mean
    #: is read from (its highest value).
    buckets: tuple[float, ...] = ()

    @property
    def input_tokens_mean(self) -> float:
        return self.input_tokens / self.requests

    @property
    def output_tokens_mean(self) -> float:
        return self.output_tokens / self.requests

    @property
    def input_output_ratio(self) -> float | None:
        return self.input_tokens / self.output_tokens if self.output_tokens else None

    def workload_fields(self, source: str) -> dict:
        """The workspace demand fields this trace supplies (paste them into a workload): its
        monthly tokens, mean request lengths, prefix-cache share (where the trace can tell) and
        peak ÷ mean where it was read per hour within the workspace's 1-2 (a day's peak hour;
        a minute's or second's peak is a burst, not the daily curve the workspace means)."""
        fields: dict = {
            "output_tokens_per_month": round(self.output_tokens_per_month),
            "input_tokens_per_month": round(self.input_tokens_per_month),
            "input_tokens_mean": round(self.input_tokens_mean, 3),
            "output_tokens_mean": round(self.output_tokens_mean, 3),
            "shape_source": f"from the trace {source} ({self.requests:,} requests)",
        }
        if self.prefix_cache_share is not None:
            fields["prefix_cache_share"] = round(self.prefix_cache_share, 6)
        peak = self.peak_to_mean
        if peak is not None and self.peak_to_mean_grain == "1 hour":
            fields["peak_to_mean"] = round(min(max(peak, PEAK_TO_MEAN.low), PEAK_TO_MEAN.high), 6)
        return fields

    def to_json(self) -> dict:
        return {
            "requests": self.requests,
            "trace_hours": self.trace_hours,
            "hours_per_month": self.hours_per_month,
            "input_tokens_per_month": round(self.input_tokens_per_month),
            "output_tokens_per_month": round(self.output_tokens_per_month),
            "input_tokens_mean": self.input_tokens_mean,
            "output_tokens_mean": self.output_tokens_mean,
            "input_output_ratio": self.input_output_ratio,
            "peak_to_mean": self.peak_to_mean,
            "peak_to_mean_grain": self.peak_to_mean_grain,
            "peak_to_mean_basis": "input + output tokens arriving per bucket",
            "prefix_cache_share": self.prefix_cache_share,
            "burstiness": self.burstiness.to_json(),
            "hour_of_day": (
                None
                if self.hour_of_day is None
                else {
                    "clock": self.clock,
                    "basis": "input + output tokens per second in each hour ÷ the trace's mean",
                    "values": list(self.hour_of_day),
                }
            ),
            "over_time": {
                "grain": self.peak_to_mean_grain,
                "basis": "input + output tokens per whole bucket from the first request ÷ "
                "their mean",
                "values": list(self.buckets),
            },
            "input_length": self.input_length.to_json(),
            "output_length": self.output_length.to_json(),
            "notes": list(self.notes),
        }


def length_histogram(values: np.ndarray) -> tuple[tuple[int, int, int], ...]:
    """Requests per doubling of length, from the shortest bin to the longest: lengths span
    orders of magnitude (3 to 7,437 tokens in Azure's code trace), so equal-width bins would
    hide the short ones."""
    # bin 0 holds length 0; bin k ≥ 1 holds [2^(k-1), 2^k)
    bins = np.where(values > 0, np.floor(np.log2(np.maximum(values, 1))).astype(np.int64) + 1, 0)
    counts = np.bincount(bins)
    first = int(bins.min())
    return tuple(
        (0 if k == 0 else 2 ** (k - 1), 1 if k == 0 else 2**k, int(counts[k]))
        for k in range(first, len(counts))
    )


def length_stats(values: np.ndarray) -> LengthStats:
    return LengthStats(
        mean=float(values.mean()),
        minimum=int(values.min()),
        maximum=int(values.max()),
        percentiles={f"p{q}": float(np.percentile(values, q)) for q in PERCENTILES},
        histogram=length_histogram(values),
    )


def grain_for(span_s: float, step_s: float = 0.0) -> tuple[float, str]:
    """The grain for a trace of ``span_s``; never finer than the time stamps' step ``step_s``
    (Mooncake writes arrivals in steps of about 3 s: per-second buckets would be mostly empty)."""
    grain, name = next((g, n) for shortest, g, n in GRAINS if span_s >= shortest)
    if grain < step_s:
        coarser = [(g, n) for _, g, n in reversed(GRAINS) if g >= step_s]
        grain, name = coarser[0] if coarser else (GRAINS[0][1], GRAINS[0][2])
    return grain, name


def time_stamp_step(arrival_s: np.ndarray) -> float:
    """The typical step between distinct time stamps when arrivals are grouped, else 0."""
    gaps = np.diff(arrival_s)
    if not gaps.size or (gaps == 0).mean() <= GROUPED_ARRIVALS_SHARE:
        return 0.0
    positive = gaps[gaps > 0]
    return float(np.median(positive)) if positive.size else 0.0


def bucket_totals(arrival_s: np.ndarray, weights: np.ndarray, grain_s: float) -> np.ndarray:
    """Weights summed per whole bucket of ``grain_s`` from the first arrival (partial tail dropped)."""
    span = float(arrival_s[-1] - arrival_s[0])
    whole = int(span // grain_s)
    if whole < 1:
        return np.zeros(0)
    index = ((arrival_s - arrival_s[0]) // grain_s).astype(np.int64)
    keep = index < whole
    return np.bincount(index[keep], weights=weights[keep], minlength=whole)


def prefix_reuse(blocks: Iterable[Sequence[int]]) -> float | None:
    """Share of blocks whose id appeared in an earlier request (None when there are no blocks)."""
    seen: set[int] = set()
    hits = total = 0
    for request in blocks:
        for block in request:
            total += 1
            hits += block in seen
        seen.update(request)
    return hits / total if total else None


def _burstiness(arrival_s: np.ndarray, counts: np.ndarray) -> Burstiness:
    gaps = np.diff(arrival_s)
    cv = None
    if gaps.size >= 2 and gaps.mean() > 0:
        cv = float(gaps.std() / gaps.mean())
    dispersion = None
    if counts.size >= 2 and counts.mean() > 0:
        dispersion = float(counts.var() / counts.mean())
    return Burstiness(
        interarrival_cv=cv,
        gamma_shape=(1.0 / cv**2) if cv else None,
        count_dispersion=dispersion,
        grouped_arrival_share=float((gaps == 0).mean()) if gaps.size else 0.0,
    )


def _hour_of_day(
    arrival_s: np.ndarray, tokens: np.ndarray, start: datetime
) -> tuple[tuple[float | None, ...], int]:
    """(24 relative rates, hours of the clock the trace covered) — see the module docstring."""
    midnight = start.replace(hour=0, minute=0, second=0, microsecond=0)
    offset = (start - midnight).total_seconds()
    clock_s = arrival_s - arrival_s[0] + offset  # seconds after the first day's midnight
    hours = (clock_s // SECONDS_PER_HOUR).astype(np.int64) % 24
    tokens_by_hour = np.bincount(hours, weights=tokens, minlength=24)
    covered = np.zeros(24)
    t, end = float(clock_s[0]), float(clock_s[-1])
    while t < end:
        boundary = (math.floor(t / SECONDS_PER_HOUR) + 1) * SECONDS_PER_HOUR
        covered[int(t // SECONDS_PER_HOUR) % 24] += min(boundary, end) - t
        t = boundary
    mean_rate = tokens.sum() / (end - float(clock_s[0]))
    values = tuple(
        float(tokens_by_hour[h] / covered[h] / mean_rate) if covered[h] > 0 else None
        for h in range(24)
    )
    return values, int((covered > 0).sum())


def derive_demand(
    arrival_s: Sequence[float],
    input_tokens: Sequence[int],
    output_tokens: Sequence[int],
    *,
    start: datetime | None = None,
    clock: str = "",
    prefix_blocks: Sequence[Sequence[int]] | None = None,
    block_tokens: int | None = None,
    hours_per_month: float = HOURS_PER_MONTH,
) -> TrafficDemand:
    """The demand a trace implies (see the module docstring for every rule)."""
    n = len(arrival_s)
    if not n == len(input_tokens) == len(output_tokens):
        raise TrafficError("arrival times and token counts differ in length")
    if n < 2:
        raise TrafficError(
            f"a trace of {n} request(s) has no time span: a month cannot be extrapolated"
        )
    order = np.argsort(np.asarray(arrival_s, dtype=float), kind="stable")
    times = np.asarray(arrival_s, dtype=float)[order]
    ins = np.asarray(input_tokens, dtype=np.int64)[order]
    outs = np.asarray(output_tokens, dtype=np.int64)[order]
    span_s = float(times[-1] - times[0])
    if span_s <= 0:
        raise TrafficError(
            f"all {n} requests arrive at the same time: a month cannot be extrapolated"
        )
    if span_s < MIN_SPAN_S:
        raise TrafficError(
            f"the {n} requests arrive within {span_s:.3g} s: a month cannot be extrapolated"
            f" from less than {MIN_SPAN_S:g} s of traffic"
        )
    notes: list[str] = []
    trace_hours = span_s / SECONDS_PER_HOUR
    scale = hours_per_month / trace_hours
    tokens = (ins + outs).astype(float)

    step_s = time_stamp_step(times)
    grain_s, grain = grain_for(span_s, step_s)
    if step_s:
        notes.append(
            f"time stamps come in steps of about {step_s:g} s: peak ÷ mean is read per {grain} "
            "or coarser"
        )
    per_bucket = bucket_totals(times, tokens, grain_s)
    counts = bucket_totals(times, np.ones(n), grain_s)
    peak = None
    if per_bucket.size >= 2 and per_bucket.mean() > 0:
        peak = float(per_bucket.max() / per_bucket.mean())
    else:
        notes.append(f"fewer than two whole {grain} buckets: no peak ÷ mean")
    if grain_s < SECONDS_PER_HOUR:
        notes.append(
            f"peak ÷ mean is read per {grain} over {trace_hours:.2f} h, not per hour over a day: "
            "it is not the daily peak ÷ mean a workspace's demand takes"
        )
    if trace_hours < 24 * 7:
        notes.append(
            f"the month repeats {trace_hours:.2f} h of traffic: weekly and longer cycles, growth "
            "and one-off events outside the trace are not in it"
        )

    bursts = _burstiness(times, counts)
    if bursts.grouped_arrival_share > GROUPED_ARRIVALS_SHARE:
        notes.append(
            f"{bursts.grouped_arrival_share:.0%} of arrivals share a time stamp with the one "
            "before (coarse or batched time stamps): the gap CV overstates burstiness; the "
            "variance ÷ mean of requests per bucket does not depend on it"
        )

    curve = _daily_curve(times, tokens, start, clock, notes)
    share = _prefix_share(prefix_blocks, n, block_tokens, notes)

    return TrafficDemand(
        requests=n,
        trace_hours=trace_hours,
        hours_per_month=hours_per_month,
        input_tokens=int(ins.sum()),
        output_tokens=int(outs.sum()),
        input_tokens_per_month=float(ins.sum()) * scale,
        output_tokens_per_month=float(outs.sum()) * scale,
        peak_to_mean=peak,
        peak_to_mean_grain=grain,
        prefix_cache_share=share,
        burstiness=bursts,
        hour_of_day=curve,
        clock=clock,
        input_length=length_stats(ins),
        output_length=length_stats(outs),
        notes=tuple(notes),
        buckets=tuple(float(v) for v in per_bucket / per_bucket.mean()) if peak else (),
    )


def _daily_curve(
    times: np.ndarray, tokens: np.ndarray, start: datetime | None, clock: str, notes: list[str]
) -> tuple[float | None, ...] | None:
    """Tokens by hour of the day where the trace has a start time, with notes on what it
    covers."""
    curve = None
    if start is None:
        notes.append("time stamps count from the trace start (no time of day): no daily curve")
    else:
        curve, covered = _hour_of_day(times, tokens, start)
        if covered < 24:
            notes.append(
                f"the trace covers {covered} of the 24 hours of the day: the daily curve has "
                "no value for the others, and the month assumes every hour looks like these"
            )
        if clock and clock != "UTC":
            notes.append(f"hours of the day are the trace's own clock, {clock}")
    return curve


def _prefix_share(
    prefix_blocks: Sequence[Sequence[int]] | None,
    n: int,
    block_tokens: int | None,
    notes: list[str],
) -> float | None:
    """The share of input tokens a prefix cache serves, where the trace has prefix ids."""
    share = None
    if prefix_blocks is None:
        notes.append(
            "the trace has no prompt prefix ids: the share of input tokens a prefix cache serves "
            "cannot be told"
        )
    else:
        if len(prefix_blocks) != n:
            raise TrafficError("prefix blocks and requests differ in number")
        share = prefix_reuse(prefix_blocks)
        size = f"{block_tokens}-token " if block_tokens else ""
        notes.append(
            f"prefix cache share counts {size}blocks whose id appeared in an earlier request: a "
            "cache that never evicts (an upper bound); a prompt's last block may be partial"
        )
    return share
