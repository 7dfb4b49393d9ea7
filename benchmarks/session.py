"""One run of the portability harness, from its parsed settings to its results document.

``tokendesk bench run`` parses its options into :class:`SessionSettings`, and a
:class:`HarnessSession` does the rest: it loads the model bundle, the token counter and the
prompts, waits for the endpoint to answer, runs every operating point (and the parity pass),
judges each point, picks the goodput point of an SLO and builds the results document. The
command only prints what it returns and writes the results; nothing here prints.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urlparse

from benchmarks.bundle import Bundle, verify_bundle
from benchmarks.client import tls_context
from benchmarks.datasets import DatasetError, load_dataset, workload_shape
from benchmarks.errors import BundleError
from benchmarks.prompts import PromptBundleError, prompt_set_digest
from benchmarks.readiness import ReadinessError, check_ready
from benchmarks.results import RunContext, build_document, document_to_results, judge_point
from benchmarks.runner import (
    HarnessConfig,
    OperatingPoint,
    check_bundle_matches,
    run_harness,
    run_parity,
)
from benchmarks.slo import pick_goodput_point
from benchmarks.tokens import (
    TokenCounter,
    TokenizerError,
    bundle_token_counter,
    load_token_counter,
)
from tokendesk.records import BenchmarkResult

#: A time-bounded run (``duration_s``) has no request cap; this stands for "no cap" in the
#: harness and is written as null in the results file.
UNCAPPED_PROMPTS = 10**9
#: Measured requests per point when neither a count nor a duration is given.
DEFAULT_PROMPTS = 100
#: Hosts whose telemetry (GPU power, memory) the harness can read: the endpoint runs here.
_LOCAL_HOSTS = ("localhost", "127.0.0.1", "::1", "0.0.0.0")


class SessionError(ValueError):
    """A setting the run cannot use (a bundle, tokenizer, data set or CA file, or an endpoint
    that does not answer); the message names it and says why."""


@dataclass(frozen=True)
class SessionSettings:
    """Everything a harness run needs, parsed: where, what to send, at which loads, and what
    makes a point count."""

    endpoint: str
    model: str
    context: RunContext
    points: list[OperatingPoint]
    headers: dict[str, str] = field(default_factory=dict)
    #: Latency bounds in ms ({"ttft_p95": 500}); only the goodput point is then recorded.
    slo: dict[str, float] | None = None
    dataset: str = "golden"
    workload: str = "chat-short"
    #: Measured requests per point; None: DEFAULT_PROMPTS, or no cap with ``duration_s``.
    num_prompts: int | None = None
    duration_s: float | None = None
    ramp_up_s: float = 0.0
    burstiness: float = 1.0
    repeats: int = 1
    warmup: int | None = None
    max_tokens: int | None = None
    api: str = "chat"
    timeout_s: float = 600.0
    ignore_eos: bool = False
    #: "auto" (local endpoints only), "on" or "off".
    telemetry: str = "auto"
    insecure: bool = False
    ca_bundle: Path | None = None
    #: tokenizer.json for counting output tokens; wins over the bundle's own tokenizer.
    tokenizer: Path | None = None
    bundle: Path | None = None
    parity_concurrency: int = 1
    ready_timeout_s: float = 0.0
    max_failure_rate: float = 0.0
    sweep: bool = False
    #: A sweep stops once a doubling adds less than this share of throughput (``--sweep``).
    sweep_min_gain: float = 0.05


@dataclass
class SessionRun:
    """What a run measured, judged: the points, the parity score, the goodput point and the
    results document (the ``-o`` file)."""

    document: dict
    blocks: list[dict]
    parity: dict | None
    #: Ctrl-C cut the run short; ``blocks`` holds the points that had finished.
    interrupted: bool
    #: The highest load that meets the SLO (None without an SLO, or when none meets it).
    goodput: dict | None
    slo: dict[str, float] | None

    @property
    def slo_unmet(self) -> bool:
        """An SLO was set and no valid point meets it: nothing is recorded."""
        return bool(self.slo) and self.goodput is None

    @property
    def any_failed(self) -> bool:
        """A point was not recorded or a parity request failed: the run exits 1."""
        invalid = [b for b in self.blocks if not b["validity"]["valid"]]
        return bool(invalid or (self.parity and self.parity.get("failed")))

    def results(self, source_file: str = "") -> list[BenchmarkResult]:
        """The recordable results (valid points only), citing ``source_file``."""
        return document_to_results(self.document, source_file=source_file)


class HarnessSession:
    """One harness run: :meth:`prepare` loads and checks its inputs (raising
    :class:`SessionError`), :meth:`run` measures and judges."""

    def __init__(self, settings: SessionSettings) -> None:
        self.settings = settings
        self.config: HarnessConfig | None = None
        self.bundle: Bundle | None = None
        self.prompt_set_name = ""

    def prepare(self, warn: Callable[[str], None] = lambda _message: None) -> HarnessConfig:
        """Load the bundle, token counter and prompts, wait for the endpoint, and build the
        harness configuration; ``warn`` hears what does not stop the run."""
        s = self.settings
        self.bundle, counter = _bundle_and_counter(s.bundle, s.tokenizer, s.model, s.context)
        prompts, self.prompt_set_name, workload = _prompts(
            s.dataset, s.workload, counter, s.num_prompts or DEFAULT_PROMPTS
        )
        ssl_context = _ssl_context(s.endpoint, s.insecure, s.ca_bundle)
        _wait_until_ready(s, ssl_context, warn)
        num_prompts = s.num_prompts
        if num_prompts is None:
            num_prompts = UNCAPPED_PROMPTS if s.duration_s is not None else DEFAULT_PROMPTS
        self.config = HarnessConfig(
            endpoint=s.endpoint,
            model=s.model,
            prompts=prompts,
            workload=workload,
            api=s.api,
            num_prompts=num_prompts,
            warmup=s.warmup,
            max_tokens=s.max_tokens,
            timeout_s=s.timeout_s,
            ignore_eos=s.ignore_eos,
            telemetry=s.telemetry == "on" or (s.telemetry == "auto" and _local(s.endpoint)),
            keep_text=False,
            headers=s.headers,
            ssl_context=ssl_context,
            tokenizer=counter,
            duration_s=s.duration_s,
            ramp_up_s=s.ramp_up_s,
            burstiness=s.burstiness,
            slo=s.slo,
            repeats=s.repeats,
        )
        return self.config

    def run(self, show_progress: bool = False) -> SessionRun:
        """Run every operating point, then the parity pass (after Ctrl-C: keep the points that
        finished); judge each point, pick the goodput point and build the document."""
        if self.config is None:
            raise RuntimeError("HarnessSession.run before prepare")
        s, cfg = self.settings, self.config
        measured = _measure(
            cfg,
            s.points,
            self.bundle,
            s.parity_concurrency,
            show_progress,
            s.sweep_min_gain if s.sweep else None,
        )
        for block in measured.blocks:
            block["validity"] = judge_point(block, s.max_failure_rate)
        # Before the document: the pick marks its point, and the document records the mark.
        goodput = pick_goodput_point(measured.blocks) if s.slo else None
        config = run_config(cfg, self.prompt_set_name, s.max_failure_rate, s.sweep)
        document = build_document(
            config=config,
            context=s.context,
            points=measured.blocks,
            parity=measured.parity,
            started_at=measured.started,
            finished_at=measured.finished,
        )
        if measured.interrupted:
            document["interrupted"] = True
        return SessionRun(
            document, measured.blocks, measured.parity, measured.interrupted, goodput, s.slo
        )


def _local(endpoint: str) -> bool:
    return (urlparse(endpoint).hostname or "") in _LOCAL_HOSTS


def _bundle_and_counter(
    bundle: Path | None, tokenizer: Path | None, model: str, context: RunContext
) -> tuple[Bundle | None, TokenCounter | None]:
    """The verified model bundle (if any) and the token counter: a tokenizer file wins over the
    bundle's own tokenizer."""
    bundle_obj = None
    counter = None
    try:
        if bundle is not None:
            bundle_obj = verify_bundle(bundle)
            check_bundle_matches(bundle_obj, model, context.precision)
            counter = bundle_token_counter(bundle_obj)
        if tokenizer is not None:
            counter = load_token_counter(tokenizer)
    except (BundleError, TokenizerError) as exc:
        raise SessionError(str(exc)) from exc
    return bundle_obj, counter


def _prompts(
    dataset: str, workload: str, counter: TokenCounter | None, limit: int
) -> tuple[list, str, str]:
    """(prompts, prompt set name, workload to record); ``limit``: rows of a trace."""
    try:
        prompts, prompt_set_name = load_dataset(dataset, workload, tokenizer=counter, limit=limit)
    except (DatasetError, PromptBundleError) as exc:
        raise SessionError(str(exc)) from exc
    if dataset != "golden":
        # the recorded workload names the data set, so results of other prompts never mix
        workload = prompt_set_name.split(" ")[0].replace(":", "-")
    return prompts, prompt_set_name, workload


def _ssl_context(endpoint: str, insecure: bool, ca_bundle: Path | None) -> object | None:
    """The TLS settings for an https endpoint; None for plain http."""
    if ca_bundle is not None and not ca_bundle.is_file():
        raise SessionError(f"--ca-bundle {ca_bundle}: no such file")
    return (
        tls_context(verify=not insecure, ca_bundle=str(ca_bundle) if ca_bundle else None)
        if urlparse(endpoint).scheme == "https"
        else None
    )


def _wait_until_ready(
    s: SessionSettings, ssl_context: object | None, warn: Callable[[str], None]
) -> None:
    """Wait for the server to answer; warn when it does not list the model asked for."""
    try:
        served = check_ready(
            s.endpoint, headers=s.headers, ssl_context=ssl_context, wait_s=s.ready_timeout_s
        )
    except ReadinessError as exc:
        raise SessionError(str(exc)) from exc
    if served and s.model not in served:
        warn(f"the server lists {', '.join(served[:5])}, not {s.model!r}; requests may fail")


@dataclass
class _Measured:
    """What a run measured: the finished points, the parity score, and whether Ctrl-C cut it
    short."""

    blocks: list[dict]
    parity: dict | None
    interrupted: bool
    started: datetime
    finished: datetime


def _measure(
    cfg: HarnessConfig,
    points: list[OperatingPoint],
    bundle_obj: Bundle | None,
    parity_concurrency: int,
    show_progress: bool,
    sweep_min_gain: float | None,
) -> _Measured:
    """Run every operating point, then the parity pass; after Ctrl-C keep the points that
    finished. A sweep (``sweep_min_gain`` set) stops at saturation."""
    started = datetime.now(UTC)
    blocks: list[dict] = []
    interrupted = False
    parity = None
    try:
        asyncio.run(
            run_harness(
                cfg,
                points,
                show_progress=show_progress,
                into=blocks,
                sweep_min_gain=sweep_min_gain,
            )
        )
        if bundle_obj is not None:
            parity = asyncio.run(
                run_parity(
                    cfg.endpoint,
                    cfg.model,
                    bundle_obj,
                    timeout_s=cfg.timeout_s,
                    concurrency=parity_concurrency,
                    headers=cfg.headers,
                    ssl_context=cfg.ssl_context,
                )
            )
    except KeyboardInterrupt:
        interrupted = True
    return _Measured(blocks, parity, interrupted, started, datetime.now(UTC))


def run_config(
    cfg: HarnessConfig, prompt_set_name: str, max_failure_rate: float, sweep: bool
) -> dict:
    """The run's settings as written in the results file."""
    return {
        "endpoint": cfg.endpoint,
        "api": cfg.api,
        "model": cfg.model,
        "workload": cfg.workload,
        "num_prompts": None if cfg.num_prompts >= UNCAPPED_PROMPTS else cfg.num_prompts,
        "duration_s": cfg.duration_s,
        "ramp_up_s": cfg.ramp_up_s,
        "burstiness": cfg.burstiness,
        "warmup": cfg.warmup,
        "max_tokens": cfg.max_tokens,
        "temperature": 0.0,
        "ignore_eos": cfg.ignore_eos,
        "prompt_set": {
            "name": prompt_set_name,
            "prompts": len(cfg.prompts),
            "sha256": prompt_set_digest(cfg.prompts),
        },
        "workload_shape": workload_shape(cfg.prompts),
        "timeout_s": cfg.timeout_s,
        "telemetry": cfg.telemetry,
        "max_failure_rate": max_failure_rate,
        "slo_ms": cfg.slo,
        "repeats": cfg.repeats,
        "sweep": sweep,
        "tokenizer": cfg.tokenizer.source if cfg.tokenizer else None,
        # Header names only: values can be secrets.
        "headers": sorted(cfg.headers),
    }
