# Long by design: the harness's one measurement loop: its configuration, the request schedule of
# a point, the point's summary and the sweep over points, which read one another's fields line by
# line; the client, statistics, SLO and parity checks it uses already live in their own modules.
"""The portability harness runner: operating points over one OpenAI-compatible endpoint.

An *operating point* is a closed loop at a fixed concurrency (``--concurrency``; every worker
sends its next request as soon as the previous one finishes) or an open loop at a request rate
(``--request-rate``; gamma-distributed gaps from a seeded generator, shape ``burstiness``: 1 is
Poisson, below 1 burstier, above 1 more even; ``inf`` = all at once, optionally capped by
``max_concurrency``). ``duration_s`` bounds a point in time (no new request after it);
``ramp_up_s`` starts a closed loop's streams one by one over that time, and raises an open
loop's rate linearly from a twentieth to the full rate over it. The first ``warmup`` requests
of every point are sent like the rest but excluded from every statistic (default: one per
concurrent stream, which also opens the keep-alive pool, so connection set-up is not in the
measured TTFT).

**Steady-state window.** Throughput counts tokens whose chunk arrived inside a window during
which the offered load is fully in force:

* closed loop: from the moment the last warm-up request finished (every stream is now on a
  measured request) to the moment the first stream found no work left (the ramp-down begins);
* open loop: from the first measured send to the last send.

A request's ``completion_tokens`` are spread evenly over its content chunks; its prompt tokens
count at its first token. When the window is shorter than one median request (too few requests)
the whole measured span is used and ``steady_state.basis`` says ``"full"``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import random
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from benchmarks.client import (
    TOKEN_BASIS_CHUNKS,
    TOKEN_BASIS_TOKENIZER,
    TOKEN_BASIS_USAGE,
    ClientPool,
    RequestRecord,
    chat_payload,
    completions_payload,
    stream_request,
)
from benchmarks.errors import BundleError
from benchmarks.parity import compare_outputs
from benchmarks.prompts import GoldenPrompt, load_prompts
from benchmarks.slo import evaluate_point, merge_repeats
from benchmarks.stats import summary
from benchmarks.telemetry import TelemetrySampler
from benchmarks.tokens import TokenCounter

MAX_FAILURES_KEPT = 50


def endpoint_url(endpoint: str, api: str) -> str:
    """Accept a base URL (``http://host:8000``), a ``/v1`` URL, or the full route."""
    base = endpoint.rstrip("/")
    route = "/chat/completions" if api == "chat" else "/completions"
    if base.endswith(("/chat/completions", "/completions")):
        return base
    if base.endswith("/v1"):
        return base + route
    return base + "/v1" + route


@dataclass(frozen=True)
class OperatingPoint:
    concurrency: int | None = None
    request_rate_rps: float | None = None  # math.inf = burst
    #: Trace replay: each prompt goes out at its recorded arrival time divided by this speed.
    replay_speed: float | None = None

    def label(self) -> str:
        if self.replay_speed is not None:
            cap = f", max concurrency {self.concurrency}" if self.concurrency else ""
            return f"trace replay at {self.replay_speed:g}x{cap}"
        if self.request_rate_rps is None:
            return f"concurrency {self.concurrency}"
        rate = "inf" if math.isinf(self.request_rate_rps) else f"{self.request_rate_rps:g}"
        cap = f", max concurrency {self.concurrency}" if self.concurrency else ""
        return f"rate {rate} req/s{cap}"


@dataclass
class HarnessConfig:
    endpoint: str
    model: str
    prompts: list[GoldenPrompt]
    workload: str
    api: str = "chat"
    num_prompts: int = 100
    warmup: int | None = None
    max_tokens: int | None = None
    temperature: float = 0.0
    timeout_s: float = 600.0
    seed: int = 0
    ignore_eos: bool = False
    keep_text: bool = True
    telemetry: bool = False
    extra_body: dict = field(default_factory=dict)
    #: Sent on every request: ``Authorization: Bearer …`` and any ``--header``.
    headers: dict[str, str] = field(default_factory=dict)
    ssl_context: object | None = None
    #: Counts output tokens from the text when the server sends no ``usage``.
    tokenizer: TokenCounter | None = None
    #: No new request after this many seconds of a point (``num_prompts`` still caps it).
    duration_s: float | None = None
    ramp_up_s: float = 0.0
    #: Gamma shape of the open loop's gaps (1 = Poisson).
    burstiness: float = 1.0
    #: Latency bounds in ms, e.g. {"ttft_p95": 500}; each point gets an ``slo`` verdict.
    slo: dict[str, float] | None = None
    #: Runs of every point; the block records the median run and the spread of all.
    repeats: int = 1

    def __post_init__(self) -> None:
        if self.api not in ("chat", "completions"):
            raise ValueError(f"api must be 'chat' or 'completions', not {self.api!r}")
        if not self.prompts:
            raise ValueError("no prompts to send")

    @property
    def needs_text(self) -> bool:
        return self.keep_text or self.tokenizer is not None

    def pool(self, size: int) -> ClientPool:
        return ClientPool(
            size, self.timeout_s, headers=self.headers or None, ssl_context=self.ssl_context
        )

    def body_for(self, prompt: GoldenPrompt) -> bytes:
        max_tokens = self.max_tokens or prompt.max_tokens
        extra = dict(self.extra_body)
        if self.ignore_eos:
            extra["ignore_eos"] = True
        if self.api == "chat":
            body = chat_payload(self.model, prompt.messages(), max_tokens, self.temperature, extra)
        else:
            body = completions_payload(
                self.model, prompt.completion_prompt(), max_tokens, self.temperature, extra
            )
        return json.dumps(body).encode()


ProgressCallback = Callable[[RequestRecord], None]


def work_units(prompts: list[GoldenPrompt], total: int) -> Iterator[list[int]]:
    """Request indices as a stream takes them: one at a time, or a multi-turn session's turns
    together (a stream sends a session's turns in order, each after the reply to the one
    before). Prompts are listed session by session, so index ``i`` is prompt ``i % len``."""
    idx = 0
    while idx < total:
        unit = [idx]
        session = prompts[idx % len(prompts)].meta.get("session")
        idx += 1
        while (
            session is not None
            and idx < total
            and idx % len(prompts)
            and prompts[idx % len(prompts)].meta.get("session") == session
        ):
            unit.append(idx)
            idx += 1
        yield unit


async def _closed_loop(
    cfg: HarnessConfig,
    url: str,
    bodies: list[bytes],
    concurrency: int,
    total: int,
    warmup: int,
    on_done: ProgressCallback | None,
) -> tuple[list[RequestRecord], dict]:
    records: list[RequestRecord] = []
    marks: dict[str, float] = {}
    units = work_units(cfg.prompts, total)
    chat = cfg.api == "chat"
    keep_text = cfg.needs_text
    async with cfg.pool(concurrency) as clients:

        async def worker(stream: int, client) -> None:
            if cfg.ramp_up_s > 0 and stream:
                await asyncio.sleep(cfg.ramp_up_s * stream / concurrency)
            for idx in (idx for unit in units for idx in unit):
                if _past(cfg, marks, idx, warmup):
                    break
                rec = RequestRecord(
                    index=idx,
                    prompt_id=cfg.prompts[idx % len(cfg.prompts)].prompt_id,
                    warmup=idx < warmup,
                )
                await stream_request(
                    client,
                    url,
                    bodies[idx % len(bodies)],
                    chat=chat,
                    record=rec,
                    keep_text=keep_text,
                )
                records.append(rec)
                if on_done is not None:
                    on_done(rec)
            marks.setdefault("exhausted", time.perf_counter())

        marks["start"] = time.perf_counter()
        await asyncio.gather(*(worker(i, clients[i]) for i in range(concurrency)))
        marks["end"] = time.perf_counter()
    warm = [r for r in records if r.warmup]
    measured = [r for r in records if not r.warmup]
    window_start = max(
        (r.done_at() for r in warm),
        default=min((r.sent_at for r in measured), default=marks["start"]),
    )
    return records, {
        **marks,
        "start": window_start,
        "end": marks.get("exhausted", marks["end"]),
        "run_start": marks["start"],
        "run_end": marks["end"],
    }


async def _open_loop(
    cfg: HarnessConfig,
    url: str,
    bodies: list[bytes],
    rate: float,
    max_concurrency: int | None,
    total: int,
    warmup: int,
    on_done: ProgressCallback | None,
    replay_speed: float | None = None,
) -> tuple[list[RequestRecord], dict]:
    records: list[RequestRecord] = []
    rng = random.Random(cfg.seed)
    chat = cfg.api == "chat"
    pool = max_concurrency or min(total, 1024)
    marks: dict[str, float] = {}
    keep_text = cfg.needs_text
    # The pool's size is the concurrency cap: a request waits for a free connection, like
    # vLLM's --max-concurrency semaphore, and its clock starts when it is actually sent.
    async with cfg.pool(pool) as clients:

        async def one(idx: int) -> None:
            rec = RequestRecord(
                index=idx,
                prompt_id=cfg.prompts[idx % len(cfg.prompts)].prompt_id,
                warmup=idx < warmup,
            )
            client = await clients.acquire()
            try:
                await stream_request(
                    client,
                    url,
                    bodies[idx % len(bodies)],
                    chat=chat,
                    record=rec,
                    keep_text=keep_text,
                )
            finally:
                clients.release(client)
            records.append(rec)
            if on_done is not None:
                on_done(rec)

        tasks = []
        marks["start"] = t_next = time.perf_counter()
        shape = cfg.burstiness
        for idx in range(total):
            if idx == warmup:
                marks["first_measured_send"] = time.perf_counter()
            if replay_speed is not None:
                # As recorded: the prompt's arrival time after the first, on a faster clock.
                t_next = marks["start"] + cfg.prompts[idx].meta["arrival_s"] / replay_speed
                delay = t_next - time.perf_counter()
                if delay > 0:
                    await asyncio.sleep(delay)
            elif not math.isinf(rate) and idx > 0:
                now_rate = rate
                if cfg.ramp_up_s > 0:
                    elapsed = t_next - marks["start"]
                    now_rate = rate * max(0.05, min(1.0, elapsed / cfg.ramp_up_s))
                # Gamma gaps with mean 1/rate; shape 1 is the exponential (Poisson arrivals).
                t_next += rng.gammavariate(shape, 1.0 / (now_rate * shape))
                delay = t_next - time.perf_counter()
                if delay > 0:
                    await asyncio.sleep(delay)
            if _past(cfg, marks, idx, warmup):
                break
            tasks.append(asyncio.create_task(one(idx)))
        marks["last_send"] = time.perf_counter()
        await asyncio.gather(*tasks)
        marks["end"] = time.perf_counter()
    return records, {
        **marks,
        "start": marks.get("first_measured_send", marks["start"]),
        "end": marks["last_send"],
        "run_start": marks["start"],
        "run_end": marks["end"],
    }


def _past(cfg: HarnessConfig, marks: dict, idx: int, warmup: int) -> bool:
    """True once a time-bounded point has run its course (warm-up requests always go out)."""
    if cfg.duration_s is None or idx < warmup:
        return False
    return time.perf_counter() - marks["start"] >= cfg.duration_s


def count_with_tokenizer(records: list[RequestRecord], tokenizer: TokenCounter | None) -> None:
    """Replace one-token-per-event counts with the tokenizer's count of the streamed text."""
    if tokenizer is None:
        return
    for r in records:
        if r.ok and r.token_count_basis == TOKEN_BASIS_CHUNKS:
            r.output_tokens = tokenizer.count(r.text)
            r.token_count_basis = TOKEN_BASIS_TOKENIZER


def point_token_basis(records: list[RequestRecord]) -> str:
    """The weakest basis any request of the point used (one guessed count taints the mean)."""
    bases = {r.token_count_basis for r in records if r.ok}
    for basis in (TOKEN_BASIS_CHUNKS, TOKEN_BASIS_TOKENIZER):
        if basis in bases:
            return basis
    return TOKEN_BASIS_USAGE


def _tokens_in_window(
    records: list[RequestRecord], start: float, end: float
) -> tuple[float, float]:
    out_tokens = 0.0
    in_tokens = 0.0
    for r in records:
        if not r.chunk_times or not r.output_tokens:
            continue
        per_chunk = r.output_tokens / len(r.chunk_times)
        out_tokens += per_chunk * sum(1 for t in r.chunk_times if start <= t <= end)
        if r.prompt_tokens and start <= r.chunk_times[0] <= end:
            in_tokens += r.prompt_tokens
    return out_tokens, in_tokens


def summarise_point(
    point: OperatingPoint, records: list[RequestRecord], marks: dict, started_at: datetime
) -> dict:
    """The JSON block of one operating point (see README.md for the schema)."""
    measured = [r for r in records if not r.warmup]
    ok = [r for r in measured if r.ok]
    failed = [r for r in measured if not r.ok]
    e2el = sorted(r.e2el_s for r in ok if r.e2el_s is not None)
    median_e2el = e2el[len(e2el) // 2] if e2el else 0.0
    start, end = marks["start"], marks["end"]
    basis = "steady"
    if not ok or end - start <= 0 or (end - start) < median_e2el:
        basis = "full"
        start = min((r.sent_at for r in measured), default=marks["run_start"])
        end = max((r.done_at() for r in measured), default=marks["run_end"])
    out_tok, in_tok = _tokens_in_window(ok, start, end)
    if basis == "steady" and out_tok == 0:
        # A busy host can stretch the ramp so far that no token lands in the steady window:
        # measure over the full span rather than report no throughput at all.
        basis = "full"
        start = min((r.sent_at for r in measured), default=marks["run_start"])
        end = max((r.done_at() for r in measured), default=marks["run_end"])
        out_tok, in_tok = _tokens_in_window(ok, start, end)
    window = max(end - start, 1e-9)
    span_start = min((r.sent_at for r in measured), default=marks["run_start"])
    span_end = max((r.done_at() for r in measured), default=marks["run_end"])
    span = max(span_end - span_start, 1e-9)
    total_out = sum(r.output_tokens or 0 for r in ok)
    prompt_counts = [r.prompt_tokens for r in ok if r.prompt_tokens]
    # Empty completions are valid and count as 0 tokens in the mean.
    out_counts = [r.output_tokens or 0 for r in ok]
    tpot_ms = summary([r.tpot_s for r in ok if r.tpot_s is not None], 1000.0)
    itl: list[float] = []
    for r in ok:
        itl.extend(r.inter_chunk_s())
    reasons = Counter(r.error for r in failed)
    return {
        "concurrency": point.concurrency,
        "request_rate_rps": (
            None
            if point.request_rate_rps is None
            else ("inf" if math.isinf(point.request_rate_rps) else point.request_rate_rps)
        ),
        "started_at": started_at.isoformat(),
        "duration_s": marks["run_end"] - marks["run_start"],
        "steady_state": {
            "basis": basis,
            "start_s": start - marks["run_start"],
            "end_s": end - marks["run_start"],
            "window_s": window,
        },
        "requests": {
            "sent": len(records),
            "warmup": len(records) - len(measured),
            "ok": len(ok),
            "failed": len(failed),
            "failure_reasons": dict(sorted(reasons.items())),
        },
        "throughput": {
            "output_tok_s": out_tok / window if ok else None,
            "total_tok_s": (out_tok + in_tok) / window if ok and prompt_counts else None,
            "output_tok_s_full_span": total_out / span if ok else None,
            "request_s": len(ok) / span if ok else None,
        },
        "latency_ms": {
            "ttft": summary([r.ttft_s for r in ok if r.ttft_s is not None], 1000.0),
            "ttfc": summary([r.ttfc_s for r in ok if r.ttfc_s is not None], 1000.0),
            "tpot": tpot_ms,
            "itl": summary(itl, 1000.0),
            "e2el": summary(e2el, 1000.0),
        },
        "tokens": {
            "input_mean": (sum(prompt_counts) / len(prompt_counts)) if prompt_counts else None,
            "output_mean": (sum(out_counts) / len(out_counts)) if out_counts else None,
            "count_basis": point_token_basis(ok),
            "empty_completions": sum(1 for r in ok if not r.output_tokens),
        },
        # What one user sees: tokens per second of their own stream (1000 / TPOT in ms).
        "interactivity_tok_s_user": {
            q: (1000.0 / value if (value := tpot_ms.get(q)) else None) for q in ("p50", "p90")
        },
        "failures": [
            {
                "index": r.index,
                "prompt_id": r.prompt_id,
                "reason": r.error,
                "detail": r.error_detail,
            }
            for r in sorted(failed, key=lambda r: r.index)[:MAX_FAILURES_KEPT]
        ],
        "telemetry": None,
    }


async def run_point(
    cfg: HarnessConfig,
    point: OperatingPoint,
    *,
    on_done: ProgressCallback | None = None,
    return_records: bool = False,
):
    url = endpoint_url(cfg.endpoint, cfg.api)
    bodies = [cfg.body_for(p) for p in cfg.prompts]
    streams = point.concurrency or 1
    warmup = cfg.warmup if cfg.warmup is not None else streams
    if point.request_rate_rps is not None and cfg.warmup is None:
        warmup = (
            0
            if math.isinf(point.request_rate_rps)
            else min(point.concurrency or 4, cfg.num_prompts)
        )
    if cfg.warmup is None and cfg.prompts[0].meta.get("session") is not None:
        # Warm-up requests would be turns taken out of their sessions: none by default.
        warmup = 0
    total = warmup + cfg.num_prompts
    if point.replay_speed is not None:
        # A trace is sent once, as recorded: no warm-up, no wrapping round to its start.
        warmup = cfg.warmup or 0
        total = min(total, len(cfg.prompts))
    sampler = TelemetrySampler().start() if cfg.telemetry else None
    started_at = datetime.now(UTC)
    try:
        if point.replay_speed is not None:
            records, marks = await _open_loop(
                cfg,
                url,
                bodies,
                math.inf,
                point.concurrency,
                total,
                warmup,
                on_done,
                replay_speed=point.replay_speed,
            )
        elif point.request_rate_rps is None:
            records, marks = await _closed_loop(cfg, url, bodies, streams, total, warmup, on_done)
        else:
            records, marks = await _open_loop(
                cfg, url, bodies, point.request_rate_rps, point.concurrency, total, warmup, on_done
            )
    finally:
        telemetry = sampler.stop() if sampler is not None else None
    count_with_tokenizer(records, cfg.tokenizer)
    block = summarise_point(point, records, marks, started_at)
    if point.replay_speed is not None:
        block["replay"] = replay_summary(cfg.prompts[:total], point.replay_speed)
        # The rate the replay offered, so the result reads as an open loop at that rate.
        block["request_rate_rps"] = block["replay"]["offered_rate_rps"]
    if telemetry is not None:
        block["telemetry"] = telemetry.to_json()
    return (block, records) if return_records else block


def replay_summary(prompts: list[GoldenPrompt], speed: float) -> dict:
    """What a trace replay offered: its speed, the trace time it covered and the mean rate."""
    span_s = prompts[-1].meta["arrival_s"] - prompts[0].meta["arrival_s"]
    sent_span_s = span_s / speed
    return {
        "speed": speed,
        "requests": len(prompts),
        "trace_span_s": span_s,
        "offered_rate_rps": (len(prompts) - 1) / sent_span_s if sent_span_s > 0 else None,
    }


def operating_points(
    concurrencies: list[int] | None, rates: list[float] | None, max_concurrency: int | None = None
) -> list[OperatingPoint]:
    if concurrencies and rates:
        raise ValueError(
            "give --concurrency or --request-rate, not both (use --max-concurrency to cap a rate)"
        )
    if rates:
        return [OperatingPoint(concurrency=max_concurrency, request_rate_rps=r) for r in rates]
    if not concurrencies:
        raise ValueError("give --concurrency (e.g. 1,4,16,64) or --request-rate")
    return [OperatingPoint(concurrency=c) for c in concurrencies]


async def measure_point(
    cfg: HarnessConfig, point: OperatingPoint, on_done: ProgressCallback | None = None
) -> dict:
    """One point, ``cfg.repeats`` times, with its SLO verdict (see :mod:`benchmarks.slo`)."""
    runs = []
    for _ in range(max(1, cfg.repeats)):
        block, records = await run_point(cfg, point, on_done=on_done, return_records=True)
        if cfg.slo:
            per_request = [
                (
                    None if r.ttft_s is None else r.ttft_s * 1000.0,
                    None if r.tpot_s is None else r.tpot_s * 1000.0,
                )
                for r in records
                if r.ok and not r.warmup
            ]
            block["slo"] = evaluate_point(block, cfg.slo, per_request)
        runs.append(block)
    return merge_repeats(runs)


def sweep_concurrencies(start: int = 1, limit: int = 256) -> list[int]:
    out, c = [], max(1, start)
    while c <= limit:
        out.append(c)
        c *= 2
    return out


def saturated(blocks: list[dict], min_gain: float) -> str:
    """Why a doubling sweep should stop after its latest point ('' = go on)."""
    last = blocks[-1]
    if last["requests"]["failed"] or not last["requests"]["ok"]:
        return "the last point had failed requests"
    if last.get("slo") and not last["slo"]["met"]:
        return "the last point missed the SLO"
    if len(blocks) >= 2:
        best = max((b["throughput"]["output_tok_s"] or 0.0) for b in blocks[:-1])
        now = last["throughput"]["output_tok_s"] or 0.0
        if best > 0 and now < best * (1.0 + min_gain):
            return f"output tok/s rose less than {min_gain:.0%} on doubling the load (saturated)"
    return ""


async def run_harness(
    cfg: HarnessConfig,
    points: list[OperatingPoint],
    *,
    show_progress: bool = True,
    into: list[dict] | None = None,
    sweep_min_gain: float | None = None,
) -> list[dict]:
    """Run every operating point in order; returns their JSON blocks.

    Each block is appended to ``into`` as soon as its point finishes, so a caller interrupted
    mid-run (Ctrl-C) still holds every finished point. With ``sweep_min_gain`` the points are a
    rising sweep that stops at saturation (see :func:`saturated`); the stopping reason is kept
    on the last block as ``sweep_stop``.
    """
    blocks = into if into is not None else []
    progress_cm = _progress(show_progress)
    with progress_cm as progress:
        for point in points:
            warm = cfg.warmup if cfg.warmup is not None else (point.concurrency or 1)
            task = None
            if progress is not None:
                total = (
                    None
                    if cfg.duration_s is not None
                    else (cfg.num_prompts + warm) * max(1, cfg.repeats)
                )
                task = progress.add_task(f"{cfg.workload} · {point.label()}", total=total)

            def tick(rec: RequestRecord, _task=task) -> None:
                if progress is not None:
                    progress.advance(_task)

            blocks.append(await measure_point(cfg, point, on_done=tick))
            if sweep_min_gain is not None:
                reason = saturated(blocks, sweep_min_gain)
                if reason:
                    blocks[-1]["sweep_stop"] = reason
                    break
    return blocks


def _progress(enabled: bool):
    if not enabled:
        return contextlib.nullcontext(None)

    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        transient=False,
    )


async def golden_outputs(
    endpoint: str,
    model: str,
    prompts: list[GoldenPrompt],
    *,
    max_tokens: int,
    api: str = "chat",
    concurrency: int = 1,
    timeout_s: float = 600.0,
    headers: dict[str, str] | None = None,
    ssl_context=None,
) -> tuple[dict[str, str | None], dict]:
    """Greedy outputs per prompt id (None where the request failed), and the point's block."""
    cfg = HarnessConfig(
        endpoint=endpoint,
        model=model,
        prompts=prompts,
        workload="golden",
        api=api,
        num_prompts=len(prompts),
        warmup=0,
        max_tokens=max_tokens,
        temperature=0.0,
        timeout_s=timeout_s,
        keep_text=True,
        headers=dict(headers or {}),
        ssl_context=ssl_context,
    )
    block, records = await run_point(
        cfg, OperatingPoint(concurrency=min(concurrency, len(prompts))), return_records=True
    )
    return {r.prompt_id: (r.text if r.ok else None) for r in records}, block


def check_bundle_matches(bundle, model: str, precision: str) -> None:
    """Refuse a parity run whose bundle was made for another model or precision.

    Its expected outputs say nothing about this deployment, and a score against them would
    read as a quality loss that never happened.
    """
    problems = []
    if bundle.model and bundle.model != model:
        problems.append(f"it is for model {bundle.model!r}, this run serves {model!r}")
    if bundle.precision and bundle.precision.lower() != precision.lower():
        problems.append(
            f"it is for precision {bundle.precision!r}, this run declares {precision!r}"
        )
    if problems:
        raise BundleError(
            f"bundle {bundle.name!r} does not match this run: "
            + "; ".join(problems)
            + ". Use the bundle made for this model and precision (tokendesk bench verify-bundle "
            "shows a bundle's model and precision)."
        )


async def run_parity(
    endpoint: str,
    model: str,
    bundle,
    *,
    timeout_s: float = 600.0,
    concurrency: int = 1,
    headers: dict[str, str] | None = None,
    ssl_context=None,
) -> dict:
    """Run a bundle's golden prompts at temperature 0 and compare with its expected outputs.

    ``concurrency`` defaults to 1: batched greedy decoding is not bit-stable on every backend,
    so a parity figure is comparable only at the concurrency it names.
    """
    by_id = {p.prompt_id: p for p in load_prompts()}
    prompts = [by_id[pid] for pid in sorted(bundle.expected)]
    golden = bundle.golden
    outputs, block = await golden_outputs(
        endpoint,
        model,
        prompts,
        max_tokens=int(golden["max_tokens"]),
        api=golden.get("api", "chat"),
        concurrency=concurrency,
        timeout_s=timeout_s,
        headers=headers,
        ssl_context=ssl_context,
    )
    report = compare_outputs(bundle.expected, outputs)
    return {
        "bundle": bundle.name,
        "bundle_model": bundle.model,
        "bundle_precision": bundle.precision,
        "concurrency": min(concurrency, len(prompts)),
        "failed": block["requests"]["failed"],
        "failure_reasons": block["requests"]["failure_reasons"],
        "failures": block["failures"][:5],
        **report.to_json(),
    }
