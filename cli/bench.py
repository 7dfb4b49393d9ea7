"""``tokendesk bench``: run the portability harness, import other tools' results, verify model
bundles, and serve the in-repo fake endpoint."""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import sys
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, NoReturn
from urllib.parse import urlparse

import typer
from typer.core import TyperCommand

from benchmarks.bulk import IMPORTED, NEEDS_FLAG, REFUSED, import_tree, summary
from benchmarks.bundle import Bundle, verify_bundle
from benchmarks.client import TOKEN_BASIS_WORDS, tls_context
from benchmarks.datasets import DatasetError, load_dataset, workload_shape
from benchmarks.errors import BundleError, ResultFileError
from benchmarks.fake_server import FakeServerConfig, serve
from benchmarks.importers import MAX_IMPORT_BYTES, ImportOverrides, import_sources
from benchmarks.plausibility import gate
from benchmarks.prompts import PromptBundleError, prompt_set_digest
from benchmarks.readiness import ReadinessError, check_ready
from benchmarks.results import RunContext, build_document, document_to_results, judge_point
from benchmarks.runner import (
    HarnessConfig,
    OperatingPoint,
    check_bundle_matches,
    operating_points,
    run_harness,
    run_parity,
    sweep_concurrencies,
)
from benchmarks.slo import SLOError, parse_slo, pick_goodput_point
from benchmarks.tokens import (
    TokenCounter,
    TokenizerError,
    bundle_token_counter,
    load_token_counter,
)
from cli.options import DbOption, FormatOption, OutputFormat
from pricing.integrity import check_price_file
from tokendesk.access import local_user_name
from tokendesk.catalog import UnknownAcceleratorError, check_accelerator_id
from tokendesk.records import SnapshotKind
from tokendesk.terminal import Grid, grid_from_rows, make_console, print_table
from tokendesk.textsafety import InputFileError, clean_text, read_limited, terminal_text
from warehouse import RetractionError, Warehouse

bench_app = typer.Typer(
    help="Portability harness: run golden prompts against an endpoint, import results "
    "from other tools, verify model bundles.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)

console = make_console()
err = make_console(stderr=True)


# A time-bounded run (--duration-s) has no request cap; this stands for "no cap" in the
# harness and is written as null in the results file.
_UNCAPPED_PROMPTS = 10**9


def _csv_ints(text: str | None, flag: str) -> list[int] | None:
    if not text:
        return None
    try:
        values = [int(x) for x in text.split(",") if x.strip()]
    except ValueError as exc:
        raise typer.BadParameter(
            f"{flag} takes integers separated by commas, e.g. 1,4,16,64"
        ) from exc
    if any(v < 1 for v in values):
        raise typer.BadParameter(f"{flag} values must be at least 1")
    return values


def _csv_rates(text: str | None) -> list[float] | None:
    if not text:
        return None
    out = []
    for x in text.split(","):
        x = x.strip().lower()
        if not x:
            continue
        try:
            value = math.inf if x in ("inf", "infinity") else float(x)
        except ValueError as exc:
            raise typer.BadParameter(
                "--request-rate takes numbers or 'inf' separated by commas"
            ) from exc
        if value <= 0:
            raise typer.BadParameter("--request-rate values must be positive")
        out.append(value)
    return out


def _ingest(db: Path | None, source: str, results, origin: str) -> str:
    """Write measured results after the gate every imported file passes (physical bounds, no
    disagreeing duplicates); a refused point is reported and nothing is written."""
    _, _, rejected = gate(source, results)
    if rejected:
        for failure in rejected:
            err.print(f"[red]rejected[/red] {terminal_text(str(failure))}", highlight=False)
        raise _fail("nothing recorded: a measured point failed the result gate above")
    with Warehouse.open(db, seed_check=check_price_file) as wh:
        return wh.ingest_results(source, results, origin=origin)


def _fail(message: str, code: int = 2) -> typer.Exit:
    err.print(f"[red]error:[/red] {terminal_text(message)}", highlight=False)
    return typer.Exit(code)


def _local(endpoint: str) -> bool:
    host = urlparse(endpoint).hostname or ""
    return host in ("localhost", "127.0.0.1", "::1", "0.0.0.0")


def _headers(api_key: str | None, header: list[str] | None) -> dict[str, str]:
    out: dict[str, str] = {}
    if api_key:
        out["Authorization"] = f"Bearer {api_key}"
    for item in header or []:
        name, sep, value = item.partition(":")
        if not sep or not name.strip():
            raise typer.BadParameter(
                f"--header {item!r}: write it as 'Name: value', e.g. 'X-Route: pool-a'"
            )
        out[name.strip()] = value.strip()
    return out


class _PlainHelp(TyperCommand):
    """Click's plain help: it wraps long option names instead of cutting them with '…' at 80
    columns, as the boxed help does for a command with this many options."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.rich_markup_mode = None


@bench_app.command("run", cls=_PlainHelp)
def run_cmd(
    endpoint: Annotated[
        str,
        typer.Option(help="Base URL of an OpenAI-compatible server, e.g. http://127.0.0.1:8000"),
    ],
    model: Annotated[str, typer.Option(help="Model name to send in requests.")],
    accelerator: Annotated[
        str, typer.Option("--accelerator", help="Catalog id, e.g. nvidia-h100-sxm-80gb.")
    ],
    accelerators_per_replica: Annotated[
        int,
        typer.Option(min=1, help="Accelerators one replica occupies."),
    ],
    runtime: Annotated[str, typer.Option(help="Server runtime: vllm, sglang, tgi, llama.cpp, ...")],
    precision: Annotated[str, typer.Option(help="bf16, fp8, int4-awq, q4_k_m, ...")],
    workload: Annotated[
        str,
        typer.Option(
            help="Golden prompt workload: chat-short, long-8k, long-32k, rag, code, "
            "streaming, or golden (all)."
        ),
    ] = "chat-short",
    dataset: Annotated[
        str,
        typer.Option(
            help="golden (the --workload prompts), random:IN:OUT, sharegpt:PATH, jsonl:PATH, "
            "trace:PATH (replayed as recorded), sessions:SESSIONS:TURNS:IN:OUT (multi-turn, "
            "growing context) or prefix:IN:OUT:SHARE (a shared prefix of SHARE of the input)."
        ),
    ] = "golden",
    trace_speed: Annotated[
        float,
        typer.Option(
            min=0.001,
            help="trace:PATH without --concurrency/--request-rate replays the trace's arrival "
            "times divided by this (10 = ten times faster).",
        ),
    ] = 1.0,
    runtime_version: Annotated[str, typer.Option()] = "",
    instance_type: Annotated[str | None, typer.Option()] = None,
    provider: Annotated[str | None, typer.Option()] = None,
    region: Annotated[str | None, typer.Option()] = None,
    concurrency: Annotated[
        str | None, typer.Option(help="Closed-loop concurrencies, e.g. 1,4,16,64.")
    ] = None,
    request_rate: Annotated[
        str | None, typer.Option(help="Open-loop request rates (req/s), e.g. 1,4,inf.")
    ] = None,
    max_concurrency: Annotated[
        int | None, typer.Option(help="Cap on in-flight requests with --request-rate.")
    ] = None,
    num_prompts: Annotated[
        int | None,
        typer.Option(
            min=1, help="Measured requests per point (default 100; no cap with --duration-s)."
        ),
    ] = None,
    duration_s: Annotated[
        float | None,
        typer.Option(min=0.1, help="Time-bounded points: no new request after this many seconds."),
    ] = None,
    ramp_up_s: Annotated[
        float,
        typer.Option(min=0.0, help="Start streams one by one (or raise the rate) over this time."),
    ] = 0.0,
    burstiness: Annotated[
        float,
        typer.Option(
            min=0.01, help="Gamma shape of request-rate arrivals: 1 Poisson, <1 burstier."
        ),
    ] = 1.0,
    sweep: Annotated[
        bool,
        typer.Option(
            help="Double the concurrency from 1 (or the first --concurrency) until output tok/s "
            "stops rising, a point fails or misses the SLO."
        ),
    ] = False,
    sweep_max: Annotated[int, typer.Option(min=1, help="Highest concurrency of --sweep.")] = 256,
    sweep_min_gain: Annotated[
        float, typer.Option(min=0.0, help="Saturated when doubling adds less than this share.")
    ] = 0.05,
    slo: Annotated[
        str | None,
        typer.Option(
            help="Latency SLO in ms, e.g. 'ttft_p95<=500,tpot_p95<=50': only the highest load "
            "that meets it (the goodput point) is recorded."
        ),
    ] = None,
    repeats: Annotated[
        int,
        typer.Option(min=1, help="Run each point N times; records the median run and a 95% CI."),
    ] = 1,
    warmup: Annotated[
        int | None,
        typer.Option(min=0, help="Excluded requests per point (default: one per stream)."),
    ] = None,
    max_tokens: Annotated[
        int | None, typer.Option(min=1, help="Override each prompt's max_tokens.")
    ] = None,
    api: Annotated[str, typer.Option(help="chat or completions")] = "chat",
    timeout_s: Annotated[float, typer.Option(help="Per-request timeout.")] = 600.0,
    ignore_eos: Annotated[
        bool, typer.Option(help="Ask the server to ignore EOS (vLLM extension).")
    ] = False,
    api_key: Annotated[
        str | None,
        typer.Option(
            envvar="OPENAI_API_KEY",
            show_envvar=True,
            help="Sent as 'Authorization: Bearer KEY'.",
        ),
    ] = None,
    header: Annotated[
        list[str] | None,
        typer.Option(help="Extra request header 'Name: value' (repeatable)."),
    ] = None,
    insecure: Annotated[
        bool,
        typer.Option(help="HTTPS without certificate verification (self-signed test servers)."),
    ] = False,
    ca_bundle: Annotated[
        Path | None, typer.Option(help="CA certificate file for an HTTPS endpoint's private CA.")
    ] = None,
    tokenizer: Annotated[
        Path | None,
        typer.Option(
            help="tokenizer.json to count output tokens when the server sends no usage "
            "(default: the bundle's)."
        ),
    ] = None,
    max_failure_rate: Annotated[
        float,
        typer.Option(
            min=0.0,
            max=1.0,
            help="Record a point only if at most this share of its requests failed.",
        ),
    ] = 0.0,
    bundle: Annotated[
        Path | None,
        typer.Option(help="Model bundle dir: run its golden prompts and record parity."),
    ] = None,
    parity_concurrency: Annotated[
        int, typer.Option(min=1, help="Requests in flight during the parity pass.")
    ] = 1,
    ready_timeout_s: Annotated[
        float,
        typer.Option(min=0.0, help="Wait this long for /v1/models to answer before starting."),
    ] = 0.0,
    telemetry: Annotated[str, typer.Option(help="auto (local endpoints), on or off.")] = "auto",
    output: Annotated[
        Path | None, typer.Option("-o", "--output", help="Write the results JSON here.")
    ] = None,
    no_ingest: Annotated[
        bool, typer.Option("--no-ingest", help="Do not write to the warehouse.")
    ] = False,
    ingest_partial: Annotated[
        bool,
        typer.Option(
            help="After Ctrl-C, still ingest the points that finished (default: -o only)."
        ),
    ] = False,
    progress: Annotated[bool, typer.Option(help="Show a progress bar.")] = True,
    db: DbOption = None,
) -> None:
    """Run golden prompts at each operating point and record tokens/s, TTFT, TPOT and failures.

    A point is recorded only when its failure rate is within --max-failure-rate (default 0);
    the others are reported with their reasons and kept in the -o file only."""

    _check_target(accelerator, api)
    replay = dataset.startswith("trace:") and not (sweep or concurrency or request_rate)
    if replay:
        _, headers, slo_bounds = _parse_load_options(
            sweep, "1", None, max_concurrency, sweep_max, api_key, header, slo
        )
        points = [OperatingPoint(concurrency=max_concurrency, replay_speed=trace_speed)]
    else:
        points, headers, slo_bounds = _parse_load_options(
            sweep, concurrency, request_rate, max_concurrency, sweep_max, api_key, header, slo
        )
    bundle_obj, counter = _load_bundle_and_counter(bundle, tokenizer, model, precision)
    prompts, prompt_set_name, workload = _load_prompts(
        dataset, workload, counter, num_prompts or 100
    )
    ssl_context = _ssl_context(endpoint, insecure, ca_bundle)
    _wait_until_ready(endpoint, model, headers, ssl_context, ready_timeout_s)
    if num_prompts is None:
        num_prompts = _UNCAPPED_PROMPTS if duration_s is not None else 100
    use_telemetry = telemetry == "on" or (telemetry == "auto" and _local(endpoint))
    cfg = HarnessConfig(
        endpoint=endpoint,
        model=model,
        prompts=prompts,
        workload=workload,
        api=api,
        num_prompts=num_prompts,
        warmup=warmup,
        max_tokens=max_tokens,
        timeout_s=timeout_s,
        ignore_eos=ignore_eos,
        telemetry=use_telemetry,
        keep_text=False,
        headers=headers,
        ssl_context=ssl_context,
        tokenizer=counter,
        duration_s=duration_s,
        ramp_up_s=ramp_up_s,
        burstiness=burstiness,
        slo=slo_bounds,
        repeats=repeats,
    )
    context = RunContext(
        accelerator_id=accelerator,
        accelerators_per_replica=accelerators_per_replica,
        runtime=runtime,
        precision=precision,
        runtime_version=runtime_version,
        instance_type=instance_type,
        provider=provider,
        region=region,
    )
    outcome = _measure(
        cfg, points, bundle_obj, parity_concurrency, show_progress=progress and sys.stderr.isatty()
    )
    for block in outcome.blocks:
        block["validity"] = judge_point(block, max_failure_rate)
    goodput = pick_goodput_point(outcome.blocks) if slo_bounds else None
    doc = _results_document(
        _run_config(cfg, prompt_set_name, max_failure_rate, sweep), context, outcome
    )
    results = _write_and_show(doc, outcome, output)
    if outcome.interrupted and not ingest_partial:
        console.print(
            "nothing ingested after an interrupt (--ingest-partial records the finished points)"
        )
        raise typer.Exit(130)
    if slo_bounds and goodput is None:
        raise _fail(f"no valid point meets the SLO {slo}; nothing recorded", 1)
    if not results:
        raise _fail("no operating point is valid; nothing recorded (see the failures above)", 1)
    if not no_ingest:
        snap = _ingest(db, f"harness:{model}@{accelerator}/{runtime}", results, "harness")
        console.print(f"ingested {len(results)} result(s) as snapshot {snap}")
    if _any_failed(outcome):
        raise typer.Exit(1)


def _check_target(accelerator: str, api: str) -> None:
    """Refuse an unknown accelerator id or API before anything is loaded."""
    try:
        check_accelerator_id(accelerator)
    except UnknownAcceleratorError as exc:
        raise _fail(f"--accelerator: {exc}") from exc
    if api not in ("chat", "completions"):
        raise _fail("--api must be chat or completions")


def _parse_load_options(
    sweep: bool,
    concurrency: str | None,
    request_rate: str | None,
    max_concurrency: int | None,
    sweep_max: int,
    api_key: str | None,
    header: list[str] | None,
    slo: str | None,
) -> tuple[list[OperatingPoint], dict[str, str], dict | None]:
    """(operating points, request headers, SLO bounds) from the command's text options."""
    try:
        if sweep:
            if request_rate:
                raise ValueError("--sweep doubles the concurrency; leave out --request-rate")
            first = (_csv_ints(concurrency, "--concurrency") or [1])[0]
            points = [OperatingPoint(concurrency=c) for c in sweep_concurrencies(first, sweep_max)]
        else:
            points = operating_points(
                _csv_ints(concurrency, "--concurrency"), _csv_rates(request_rate), max_concurrency
            )
        headers = _headers(api_key, header)
        slo_bounds = parse_slo(slo) if slo else None
    except (ValueError, PromptBundleError, SLOError) as exc:
        raise _fail(str(exc)) from exc
    return points, headers, slo_bounds


def _load_bundle_and_counter(
    bundle: Path | None, tokenizer: Path | None, model: str, precision: str
) -> tuple[Bundle | None, TokenCounter | None]:
    """The verified model bundle (if any) and the token counter: --tokenizer wins over the
    bundle's own tokenizer."""
    bundle_obj = None
    counter = None
    try:
        if bundle is not None:
            bundle_obj = verify_bundle(bundle)
            check_bundle_matches(bundle_obj, model, precision)
            counter = bundle_token_counter(bundle_obj)
        if tokenizer is not None:
            counter = load_token_counter(tokenizer)
    except (BundleError, TokenizerError) as exc:
        raise _fail(str(exc)) from exc
    return bundle_obj, counter


def _load_prompts(
    dataset: str, workload: str, counter: TokenCounter | None, limit: int = 100
) -> tuple[list, str, str]:
    """(prompts, prompt set name, workload to record); ``limit``: rows of a trace."""
    try:
        prompts, prompt_set_name = load_dataset(dataset, workload, tokenizer=counter, limit=limit)
    except (DatasetError, PromptBundleError) as exc:
        raise _fail(str(exc)) from exc
    if dataset != "golden":
        # the recorded workload names the data set, so results of other prompts never mix
        workload = prompt_set_name.split(" ")[0].replace(":", "-")
    return prompts, prompt_set_name, workload


def _ssl_context(endpoint: str, insecure: bool, ca_bundle: Path | None) -> object | None:
    """The TLS settings for an https endpoint; None for plain http."""
    if ca_bundle is not None and not ca_bundle.is_file():
        raise _fail(f"--ca-bundle {ca_bundle}: no such file")
    return (
        tls_context(verify=not insecure, ca_bundle=str(ca_bundle) if ca_bundle else None)
        if urlparse(endpoint).scheme == "https"
        else None
    )


def _wait_until_ready(
    endpoint: str,
    model: str,
    headers: dict[str, str],
    ssl_context: object | None,
    wait_s: float,
) -> None:
    """Wait for the server to answer; warn when it does not list the model asked for."""
    try:
        served = check_ready(endpoint, headers=headers, ssl_context=ssl_context, wait_s=wait_s)
    except ReadinessError as exc:
        raise _fail(str(exc)) from exc
    if served and model not in served:
        err.print(
            f"[yellow]warning:[/yellow] the server lists {', '.join(served[:5])}, not {model!r}; "
            "requests may fail"
        )


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
) -> _Measured:
    """Run every operating point, then the parity pass; after Ctrl-C keep the points that
    finished."""
    started = datetime.now(UTC)
    blocks: list[dict] = []
    interrupted = False
    parity = None
    try:
        asyncio.run(run_harness(cfg, points, show_progress=show_progress, into=blocks))
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
        err.print(f"[yellow]interrupted[/yellow]: {len(blocks)} point(s) had finished")
    return _Measured(blocks, parity, interrupted, started, datetime.now(UTC))


def _run_config(
    cfg: HarnessConfig, prompt_set_name: str, max_failure_rate: float, sweep: bool
) -> dict:
    """The run's settings as written in the results file."""
    return {
        "endpoint": cfg.endpoint,
        "api": cfg.api,
        "model": cfg.model,
        "workload": cfg.workload,
        "num_prompts": None if cfg.num_prompts >= _UNCAPPED_PROMPTS else cfg.num_prompts,
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


def _results_document(config: dict, context: RunContext, outcome: _Measured) -> dict:
    """The results file's document; an interrupted run says so."""
    doc = build_document(
        config=config,
        context=context,
        points=outcome.blocks,
        parity=outcome.parity,
        started_at=outcome.started,
        finished_at=outcome.finished,
    )
    if outcome.interrupted:
        doc["interrupted"] = True
    return doc


def _any_failed(outcome: _Measured) -> bool:
    """A point was not recorded or a parity request failed: the run exits 1."""
    invalid = [b for b in outcome.blocks if not b["validity"]["valid"]]
    return bool(invalid or (outcome.parity and outcome.parity.get("failed")))


def _write_and_show(doc: dict, outcome: _Measured, output: Path | None) -> list:
    """Write the -o file, print the points table, and return the recordable results."""
    if output is not None:
        output.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    _print_points(outcome.blocks, outcome.parity, TOKEN_BASIS_WORDS)
    results = document_to_results(doc, source_file=str(output.resolve()) if output else "")
    if output is not None:
        console.print(f"results written to {output}")
    return results


def _fmt(value, digits: int = 1) -> str:
    if value is None:
        return "-"
    if 0 < abs(value) < 10 ** (-digits) * 5:
        return f"{value:.2g}"  # a small rate is not zero: 0.04 tok/s must not print as 0.0
    return f"{value:,.{digits}f}"


def _print_points(blocks: list[dict], parity: dict | None, basis_words: dict) -> None:
    print_table(console, _points_table(blocks))
    bases = {
        basis_words.get(b["tokens"]["count_basis"], b["tokens"]["count_basis"]) for b in blocks
    }
    if bases:
        console.print(f"output tokens counted from: {', '.join(sorted(bases))}", highlight=False)
    for b in blocks:
        _print_point_notes(b)
    if parity:
        _print_parity(parity)


def _points_table(blocks: list[dict]) -> Grid:
    """One row per operating point: load, outcome, throughput and latency percentiles."""
    table = Grid(title="operating points")
    # (header, priority): priority 0 always shows; the rest give way on a narrow terminal.
    for col, priority in (
        ("load", 0),
        ("ok", 1),
        ("failed", 0),
        ("out tok/s", 0),
        ("total tok/s", 3),
        ("tok/s/user", 3),
        ("TTFT p50", 1),
        ("TTFT p95", 0),
        ("TTFT p99", 2),
        ("TPOT p50", 1),
        ("ITL p99", 4),
        ("E2EL p95", 4),
        ("recorded", 0),
    ):
        table.add_column(col, priority=priority, justify="right")
    for b in blocks:
        lat = b["latency_ms"]
        validity = b.get("validity") or {"valid": True}
        table.add_row(
            _load_label(b),
            str(b["requests"]["ok"]),
            str(b["requests"]["failed"]),
            _fmt(b["throughput"]["output_tok_s"]),
            _fmt(b["throughput"]["total_tok_s"]),
            _fmt((b.get("interactivity_tok_s_user") or {}).get("p50")),
            _fmt(lat["ttft"]["p50"], 2),
            _fmt(lat["ttft"]["p95"], 2),
            _fmt(lat["ttft"]["p99"], 2),
            _fmt(lat["tpot"]["p50"], 2),
            _fmt(lat["itl"]["p99"], 2),
            _fmt(lat["e2el"]["p95"], 1),
            "yes" if validity["valid"] else "[red]no[/red]",
        )
    return table


def _print_point_notes(b: dict) -> None:
    """What the table cannot show for one point: why it is not recorded, its failures, its SLO
    verdict, its repeats' spread, where a sweep stopped, empty completions."""
    validity = b.get("validity") or {}
    if not validity.get("valid", True):
        console.print(
            f"[red]not recorded[/red] {_load_label(b)}: {validity['reason']}", soft_wrap=True
        )
    if b["requests"]["failure_reasons"]:
        console.print(f"failures at {_load_label(b)}: {b['requests']['failure_reasons']}")
        for f in b["failures"][:3]:
            console.print(
                f"  request {f['index']} ({f['prompt_id']}): {f['reason']}: {f['detail'][:200]}",
                highlight=False,
                soft_wrap=True,
            )
    if b.get("slo"):
        _print_slo_verdict(b)
    rep = b.get("repeats")
    if rep:
        ci = rep["output_tok_s"]["ci95"]
        cv = rep["output_tok_s"]["cv"]
        console.print(
            f"{_load_label(b)}: {rep['n']} repeats, out tok/s mean "
            f"{rep['output_tok_s']['mean']:.1f}, 95% CI {ci[0]:.1f}–{ci[1]:.1f}, "
            f"run-to-run CV {cv:.1%}",
            soft_wrap=True,
        )
    if b.get("sweep_stop"):
        console.print(f"sweep stopped at {_load_label(b)}: {b['sweep_stop']}", soft_wrap=True)
    if b["tokens"].get("empty_completions"):
        console.print(
            f"{_load_label(b)}: {b['tokens']['empty_completions']} empty completion(s), "
            "counted as valid with 0 tokens"
        )


def _print_slo_verdict(b: dict) -> None:
    verdict = b["slo"]
    text = "meets" if verdict["met"] else "misses (" + "; ".join(verdict["violations"]) + ")"
    mark = " [green]<- goodput point (recorded)[/green]" if verdict.get("goodput_point") else ""
    console.print(
        f"SLO at {_load_label(b)}: {text}, attainment {verdict['attainment']:.1%}, "
        f"goodput {verdict['goodput_req_s']:.2f} req/s{mark}",
        soft_wrap=True,
    )


def _print_parity(parity: dict) -> None:
    line = (
        f"parity vs {parity['bundle']} at concurrency {parity.get('concurrency', '?')}: "
        f"exact match {parity['exact_match']:.3f}, token similarity "
        f"{parity['similarity']:.3f} on {parity['prompts']} prompts"
    )
    if parity.get("failed"):
        line += (
            f" — [red]{parity['failed']} request(s) failed[/red] "
            f"{parity.get('failure_reasons')}; the score is not recorded"
        )
    console.print(line, soft_wrap=True)


def _load_label(b: dict) -> str:
    if b.get("replay"):
        return f"replay {b['replay']['speed']:g}x"
    if b.get("request_rate_rps") is None:
        return f"c={b['concurrency']}"
    return f"rate={b['request_rate_rps']}"


def roofline_text(check) -> str:
    """ "23% of 10,435 tok/s" or why no bound applies."""
    if check.roofline_pct is None:
        return "unchecked"
    return f"{check.roofline_pct:.0f}% of {check.decode_tok_s_max:,.0f} tok/s"


def _rejection(exc: ResultFileError) -> dict:
    return {"file": exc.file, "key": exc.key, "reason": exc.reason}


def _plausibility(parsed, accept: bool):
    """Check every result; (results with their checks, one rejection per implausible result)."""
    checked, rejected = [], []
    for name, fmt, results in parsed:
        kept, checks, errors = gate(name, results, accept=accept)
        checked.append((name, fmt, kept, checks))
        rejected.extend(errors)
    return checked, rejected


@bench_app.command("import")
def import_cmd(
    files: Annotated[list[Path], typer.Argument(help="Result files (format auto-detected).")],
    accelerator: Annotated[str | None, typer.Option("--accelerator")] = None,
    accelerators_per_replica: Annotated[int | None, typer.Option(min=1)] = None,
    instance_type: Annotated[str | None, typer.Option()] = None,
    runtime: Annotated[str | None, typer.Option()] = None,
    runtime_version: Annotated[str | None, typer.Option()] = None,
    model: Annotated[str | None, typer.Option()] = None,
    precision: Annotated[str | None, typer.Option()] = None,
    workload: Annotated[str | None, typer.Option()] = None,
    skip_unknown_hardware: Annotated[
        bool, typer.Option(help="MLPerf summaries: skip rows on unmapped accelerators.")
    ] = False,
    dry_run: Annotated[bool, typer.Option(help="Validate and show, write nothing.")] = False,
    measured_at: Annotated[
        datetime | None,
        typer.Option(
            formats=["%Y-%m-%d", "%Y-%m-%dT%H:%M:%S"],
            help="When the results were measured, for files that carry no date.",
        ),
    ] = None,
    accept_implausible: Annotated[
        bool,
        typer.Option(
            help="Keep results beyond the physical bounds, flagged (default: reject the file)."
        ),
    ] = False,
    output_format: Annotated[
        str, typer.Option("--format", help="table, or json: every record with its bounds.")
    ] = "table",
    db: DbOption = None,
) -> None:
    """Import result files from vLLM, SGLang, llama-bench, genai-perf/AIPerf, GuideLLM, LLMPerf,
    MLPerf, InferenceX, llm-d-benchmark and trtllm-bench (its printed report).

    All files are validated first; if any fails, nothing is written and each failure is recorded
    as a failed snapshot. Every result is checked against the physical bounds of its accelerator
    and model (benchmarks/plausibility.py); one beyond them rejects its file unless
    --accept-implausible keeps it, flagged."""

    if output_format not in ("table", "json"):
        raise _fail("--format is table or json")

    overrides = ImportOverrides(
        accelerator_id=accelerator,
        accelerators_per_replica=accelerators_per_replica,
        instance_type=instance_type,
        runtime=runtime,
        runtime_version=runtime_version,
        model=model,
        precision=precision,
        workload=workload,
        measured_at=measured_at.replace(tzinfo=UTC) if measured_at else None,
        skip_unknown_accelerators=skip_unknown_hardware,
    )
    checked, failures = _read_and_check(files, overrides, accept_implausible)
    if failures:
        _refuse_import(failures, output_format, dry_run, db)
    if output_format == "json":
        print(json.dumps({"records": _json_records(checked), "rejected": [], "dry_run": dry_run}))
    if output_format == "table":
        print_table(console, _results_table(checked), more="--format json")
    if dry_run:
        if output_format == "table":
            console.print("dry run: nothing written")
        return
    written = _write_imports(db, checked)
    for name, count, snap in written:
        (console if output_format == "table" else err).print(
            f"{terminal_text(Path(name).name)}: {count} result(s) -> snapshot {snap}",
            highlight=False,
        )


@bench_app.command("import-tree")
def import_tree_cmd(
    root: Annotated[Path, typer.Argument(help="A results folder (an MLPerf round, ...).")],
    accelerator: Annotated[str | None, typer.Option("--accelerator")] = None,
    accelerators_per_replica: Annotated[int | None, typer.Option(min=1)] = None,
    runtime: Annotated[str | None, typer.Option()] = None,
    model: Annotated[str | None, typer.Option()] = None,
    precision: Annotated[str | None, typer.Option()] = None,
    skip_unknown_hardware: Annotated[
        bool, typer.Option(help="MLPerf summaries: skip rows on unplaced accelerators.")
    ] = False,
    dry_run: Annotated[bool, typer.Option(help="Validate and show, write nothing.")] = False,
    accept_implausible: Annotated[
        bool, typer.Option(help="Keep results beyond the physical bounds, flagged.")
    ] = False,
    output_format: Annotated[
        str, typer.Option("--format", help="table, or json: every file's outcome.")
    ] = "table",
    db: DbOption = None,
) -> None:
    """Import every result file under a folder, each on its own, and summarise: imported,
    refused (with the reason) and needing a flag (with the flag).

    Result files are found by the names the tools give them (mlperf_log_summary.txt in a
    performance/run_N folder, summary_results.json, agg_*.json, profile_export_*.json, ...);
    accuracy, compliance and ranging runs are not read. Flags apply to every file, so pass
    --accelerator only for a tree of one system. Every imported file is its own snapshot."""
    if output_format not in ("table", "json"):
        raise _fail("--format is table or json")
    if not root.exists():
        raise _fail(f"{root}: no such file or folder")
    overrides = ImportOverrides(
        accelerator_id=accelerator,
        accelerators_per_replica=accelerators_per_replica,
        runtime=runtime,
        model=model,
        precision=precision,
        skip_unknown_accelerators=skip_unknown_hardware,
    )
    outcomes = import_tree(root, overrides, accept=accept_implausible)
    if not outcomes:
        raise _fail(f"{root}: no result files found (see `tokendesk bench import-tree --help`)")
    counts = summary(outcomes)
    written: dict[str, str] = {}
    imported = [o for o in outcomes if o.status == IMPORTED]
    if imported and not dry_run:
        checked = [(str(o.path), o.importer, o.results, o.checks) for o in imported]
        written = {name: snap for name, _count, snap in _write_imports(db, checked)}
    if output_format == "json":
        files = [
            {
                "file": str(o.path),
                "status": o.status,
                "records": len(o.results),
                "key": o.key,
                "reason": o.reason,
                "flags": list(o.flags),
                "snapshot": written.get(str(o.path)),
            }
            for o in outcomes
        ]
        print(json.dumps({"summary": counts, "files": files, "dry_run": dry_run}))
        return
    print_table(console, _tree_summary_table(counts))
    # One line per file not imported, never wrapped inside a path, a number or an id.
    for o in outcomes:
        if o.status == IMPORTED:
            continue
        shown = o.path.relative_to(root) if root.is_dir() else o.path
        where = f" ({o.key})" if o.key else ""
        console.print(
            terminal_text(f"{o.status}: {shown}{where}: {o.reason}"),
            soft_wrap=True,
            highlight=False,
        )
    console.print(
        "dry run: nothing written"
        if dry_run
        else f"{len(written)} file(s) written, each as its own snapshot"
    )


def _tree_summary_table(counts: dict) -> Grid:
    rows = [
        {"outcome": label, "files": f"{counts[label]:,}"}
        for label in (IMPORTED, REFUSED, NEEDS_FLAG)
    ]
    rows.append({"outcome": "records imported", "files": f"{counts['records']:,}"})
    rows += [
        {"outcome": f"asking for {flag}", "files": f"{n:,}"} for flag, n in counts["flags"].items()
    ]
    return grid_from_rows(rows, "results tree", ("outcome", "files"))


#: One imported file after the checks: (file name, format, its results, their plausibility checks).
_CheckedFile = tuple[str, str, list, list]


def _read_and_check(
    files: list[Path], overrides: ImportOverrides, accept_implausible: bool
) -> tuple[list[_CheckedFile], list[ResultFileError]]:
    """Read, parse and plausibility-check every file: (checked files, failures). Each stage runs
    only when the one before it failed nothing."""
    failures: list[ResultFileError] = []
    blobs = []
    for path in files:
        try:
            blobs.append((str(path), read_limited(path, MAX_IMPORT_BYTES)))
        except InputFileError as exc:
            failures.append(ResultFileError(str(path), "", exc.message))
    parsed = []
    # Context files (MLPerf system JSON) must travel with their summaries, so files are parsed
    # together; a failure is then attributed by re-parsing each with the same companions.
    if not failures:
        try:
            parsed = import_sources(blobs, overrides)
        except ResultFileError as exc:
            failures.append(exc)
    checked: list[_CheckedFile] = []
    if not failures:
        checked, implausible = _plausibility(parsed, accept_implausible)
        failures.extend(implausible)
    return checked, failures


def _refuse_import(
    failures: list[ResultFileError], output_format: str, dry_run: bool, db: Path | None
) -> NoReturn:
    """Report every rejected file, record each as a failed snapshot (unless a dry run), exit 2."""
    if output_format == "json":
        print(json.dumps({"records": [], "rejected": [_rejection(e) for e in failures]}))
    for failure in failures:
        err.print(
            f"[red]rejected[/red] {terminal_text(str(failure))}",
            highlight=False,
        )
    if not dry_run:
        _record_failures(db, failures)
    err.print("nothing was imported: fix or drop the rejected file(s) and run again")
    raise typer.Exit(2)


def _json_records(checked: list[_CheckedFile]) -> list[dict]:
    """Every result as JSON with its file, format and plausibility bounds."""
    return [
        {
            **r.model_dump(mode="json"),
            "file": name,
            "format": fmt,
            "plausibility": check.as_dict(),
        }
        for name, fmt, results, checks in checked
        for r, check in zip(results, checks, strict=True)
    ]


def _results_table(checked: list[_CheckedFile]) -> Grid:
    """One row per imported result, with its share of the roofline bound."""
    table = Grid(title="results")
    for col, priority, prose in (
        ("file", 3, False),
        ("format", 4, False),
        ("accelerator", 0, False),
        ("x", 2, False),
        ("runtime", 2, False),
        ("model", 0, False),
        ("precision", 1, False),
        ("load", 1, False),
        ("out tok/s", 0, False),
        ("TTFT p50", 0, False),
        ("TTFT basis", 5, True),
        ("% of roofline", 1, True),
    ):
        table.add_column(col, priority=priority, prose=prose)
    for name, fmt, results, checks in checked:
        for r, check in zip(results, checks, strict=True):
            table.add_row(*(terminal_text(cell) for cell in _result_row(name, fmt, r, check)))
    return table


def _result_row(name: str, fmt: str, r, check) -> tuple[str, ...]:
    load = (
        f"c={r.concurrency:g}"
        if r.concurrency
        else (f"rate={r.request_rate_rps:g}" if r.request_rate_rps else r.scenario)
    )
    return (
        Path(name).name,
        fmt,
        r.accelerator_id,
        str(r.accelerators_per_replica),
        r.runtime,
        r.model,
        r.precision,
        load,
        _fmt(r.output_tok_s),
        _fmt(r.ttft_ms_p50, 2),
        r.ttft_basis[:40],
        roofline_text(check) + (" IMPLAUSIBLE (kept)" if r.plausibility_flag else ""),
    )


def _write_imports(db: Path | None, checked: list[_CheckedFile]) -> list[tuple[str, int, str]]:
    """Ingest every file's results: (file name, result count, snapshot id) per file."""
    written = []
    # One transaction for the whole command: every file's snapshot is written, or none.
    with Warehouse.open(db, seed_check=check_price_file) as wh, wh.atomic():
        for name, fmt, results, _checks in checked:
            source = f"{fmt}:{clean_text(Path(name).name)}"
            written.append(
                (name, len(results), wh.ingest_results(source, results, origin="import"))
            )
    return written


def _record_failures(db: Path | None, failures: list[ResultFileError]) -> None:
    """Each rejected file is recorded as a failed snapshot (its error text redacted)."""

    with Warehouse.open(db, seed_check=check_price_file) as wh:
        for exc in failures:
            wh.record_failed_snapshot(
                SnapshotKind.BENCHMARKS,
                f"import:{clean_text(Path(exc.file).name)}",
                str(exc),
                origin="import",
            )


@bench_app.command("results")
def results_cmd(
    model: Annotated[
        list[str] | None,
        typer.Option(
            "--model",
            help="Only results of this model (repeatable); any name or alias of a model in the"
            " model table matches all of its spellings.",
        ),
    ] = None,
    accelerator: Annotated[
        list[str] | None, typer.Option("--accelerator", help="Accelerator id (repeatable).")
    ] = None,
    output: FormatOption = OutputFormat.TABLE,
    db: DbOption = None,
) -> None:
    """Every stored benchmark result: tool and round or version, model, accelerator, precision,
    runtime, scenario and load, output tok/s, TTFT/TPOT percentiles, the shape it was measured
    at (mean input and output tokens), its date and its source."""
    from tokendesk import formatting
    from tokendesk.exports import safe_csv
    from warehouse.queries import benchmark_result_list, stored_model_names

    with Warehouse.open(db, read_only=True, seed_check=check_price_file) as warehouse:
        names = _model_spellings(model, stored_model_names(warehouse)) if model else None
        frame = benchmark_result_list(warehouse, names, accelerator)
    if output is OutputFormat.CSV:
        sys.stdout.write(safe_csv(frame).decode("utf-8"))
        return
    if output is OutputFormat.JSON:
        sys.stdout.write(frame.to_json(orient="records", date_format="iso", indent=1) + "\n")
        return
    if frame.empty:
        console.print("No stored result matches these filters; `tokendesk db info` lists them.")
        return
    # Missing figures as None (pandas reads them as NA or NaN, neither of which is false).
    frame = frame.astype(object).where(frame.notna(), None)
    table = Grid(title=f"{len(frame):,} benchmark results")
    table.add_column("Tool · round", priority=1, prose=True)
    table.add_column("Model · precision", priority=0, prose=True)
    table.add_column("Accelerators", priority=0)
    table.add_column("Runtime", priority=3)
    table.add_column("Scenario · load", priority=2)
    table.add_column("Output tok/s", priority=0, justify="right")
    table.add_column("TTFT p99", priority=1, justify="right")
    table.add_column("TPOT p99", priority=4, justify="right")
    table.add_column("Shape in/out", priority=3, justify="right")
    table.add_column("Measured", priority=2)
    for row in frame.itertuples(index=False):
        table.add_row(
            terminal_text(f"{row.tool} {row.round_or_version or ''}".strip()),
            terminal_text(f"{row.model} · {row.precision}"),
            terminal_text(f"{row.accelerators_per_replica} × {row.accelerator_id}"),
            terminal_text(row.runtime),
            terminal_text(
                f"{row.scenario} · {_load_words(row.scenario, row.concurrency, row.request_rate_rps)}"
            ),
            formatting.tok_s(row.output_tok_s),
            formatting.ms(row.ttft_ms_p99),
            formatting.ms(row.tpot_ms_p99),
            _shape_words(row.input_tokens_mean, row.output_tokens_mean),
            formatting.day(row.measured_at),
        )
    print_table(console, table, more="--format csv")


def _model_spellings(asked: list[str], stored: list[str]) -> list[str]:
    """The stored model names that ``asked`` names: each asked name itself, and every stored
    name that resolves to the same model of the model table (``llama3.1-8b`` finds results
    stored as ``meta-llama/Llama-3.1-8B-Instruct``)."""
    from costmodel.tables import resolve_architecture

    wanted = {name.casefold() for name in asked}
    models = {arch.model_id for name in asked if (arch := resolve_architecture(name))}
    return sorted(
        name
        for name in stored
        if name.casefold() in wanted
        or ((arch := resolve_architecture(name)) is not None and arch.model_id in models)
    ) or list(asked)


def _load_words(scenario: str, concurrency: float | None, rate: float | None) -> str:
    """ "c=16", "4 req/s", "max load" (an offline run), or "load not stated"."""
    if concurrency is not None:
        return f"c={concurrency:g}"
    if rate is not None:
        return f"{rate:g} req/s"
    return "max load" if scenario == "offline" else "load not stated"


def _shape_words(input_tokens: float | None, output_tokens: float | None) -> str:
    """ "1,024/128" (mean input/output tokens), "—" where the source states no shape."""

    def tokens(value: float | None) -> str:
        return "—" if value is None else f"{value:,.0f}"

    return f"{tokens(input_tokens)}/{tokens(output_tokens)}"


@bench_app.command("retract")
def retract_cmd(
    snapshot_id: Annotated[
        str, typer.Argument(help="The import's snapshot id (`tokendesk db info` lists them).")
    ],
    reason: Annotated[str, typer.Option(help="Why its results must no longer count.")],
    by: Annotated[
        str | None,
        typer.Option(help="Who retracts it (default: --as, $TOKENDESK_USER or your user name)."),
    ] = None,
    db: DbOption = None,
) -> None:
    """Retract a benchmark import: its results leave the current results and every cost.

    Nothing is deleted: a retraction marker (reason, who, when) is appended, and the snapshot
    stays in the history with it. Retracting an unknown or already retracted snapshot is
    refused (exit 2) and changes nothing."""

    who = by if by is not None else local_user_name()
    try:
        with Warehouse.open(db, seed_check=check_price_file) as wh:
            when = wh.retract_snapshot(snapshot_id, reason, who)
            points = int(
                wh.query(
                    "SELECT count(*) AS n FROM benchmark_results WHERE snapshot_id = ?",
                    [snapshot_id.strip()],
                )["n"][0]
            )
    except RetractionError as exc:
        raise _fail(str(exc)) from exc
    console.print(
        f"retracted snapshot {terminal_text(snapshot_id.strip())} ({points} result(s)) on "
        f"{when:%Y-%m-%d %H:%M} UTC by {terminal_text(who)}: {terminal_text(reason.strip())}",
        highlight=False,
    )


@bench_app.command("verify-bundle")
def verify_bundle_cmd(
    directory: Annotated[Path, typer.Argument(help="Model bundle directory.")],
) -> None:
    """Check a model bundle's manifest, files, checksums and golden prompt ids."""

    try:
        bundle = verify_bundle(directory)
    except BundleError as exc:
        raise _fail(str(exc), 1) from exc
    files = len(bundle.manifest["weights"]["files"]) + len(bundle.manifest["tokenizer"]["files"])
    console.print(
        f"bundle {bundle.name!r} OK: model {bundle.model}, precision {bundle.precision}, "
        f"{files} checksummed files, {len(bundle.expected)} expected golden outputs"
    )


@bench_app.command("serve-fake")
def serve_fake_cmd(
    host: Annotated[str, typer.Option(help="Listen address (keep it on loopback).")] = "127.0.0.1",
    port: Annotated[int, typer.Option()] = 8000,
    ttft_ms: Annotated[float, typer.Option(help="Delay before the first token.")] = 50.0,
    itl_ms: Annotated[float, typer.Option(help="Interval between tokens.")] = 10.0,
    output_tokens: Annotated[
        int | None, typer.Option(help="Fixed output length (default: prompt-dependent).")
    ] = None,
    drift: Annotated[
        float,
        typer.Option(
            min=0.0, max=1.0, help="Share of output tokens changed (imitates a quantised backend)."
        ),
    ] = 0.0,
    model: Annotated[str, typer.Option()] = "fake/echo-1",
    duration_s: Annotated[float | None, typer.Option(help="Stop after this many seconds.")] = None,
) -> None:
    """Serve the in-repo OpenAI-compatible streaming endpoint with a controlled token schedule."""

    cfg = FakeServerConfig(
        ttft_ms=ttft_ms, itl_ms=itl_ms, output_tokens=output_tokens, drift=drift, model=model
    )

    def ready(bound: int) -> None:
        console.print(
            f"fake OpenAI endpoint on http://{host}:{bound} (TTFT {ttft_ms} ms, ITL {itl_ms} ms, "
            f"drift {drift}); Ctrl-C to stop",
            highlight=False,
        )

    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve(cfg, host, port, duration_s=duration_s, ready=ready))


def register(app: typer.Typer) -> None:
    """Mount ``bench`` on ``app`` (once)."""
    if not any(group.typer_instance is bench_app for group in app.registered_groups):
        app.add_typer(bench_app, name="bench")
