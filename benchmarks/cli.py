"""``tokendesk bench``: run the portability harness, import other tools' results, verify model
bundles, and serve the in-repo fake endpoint."""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated
from urllib.parse import urlparse

import typer
from rich.console import Console
from rich.table import Table

from benchmarks.bundle import verify_bundle
from benchmarks.errors import BundleError, ResultFileError
from benchmarks.fake_server import FakeServerConfig, serve
from benchmarks.importers import MAX_IMPORT_BYTES, ImportOverrides, import_sources
from benchmarks.prompts import PromptBundleError, load_prompts, prompt_set_digest
from benchmarks.results import RunContext, build_document, document_to_results
from benchmarks.runner import HarnessConfig, operating_points, run_harness, run_parity
from tokendesk.catalog import UnknownAcceleratorError, check_accelerator_id
from tokendesk.records import SnapshotKind
from tokendesk.textsafety import InputFileError, clean_text, read_limited, terminal_text
from warehouse import Warehouse

bench_app = typer.Typer(
    help="Portability harness: run golden prompts against an endpoint, import results "
    "from other tools, verify model bundles.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)

console = Console()
err = Console(stderr=True, soft_wrap=True)

DbOption = Annotated[
    Path | None,
    typer.Option(
        "--db", help="Warehouse file (default: $TOKENDESK_DB or the per-user data directory)."
    ),
]


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

    with Warehouse.open(db) as wh:
        return wh.ingest_results(source, results, origin=origin)


def _fail(message: str, code: int = 2) -> typer.Exit:
    err.print(f"[red]error:[/red] {terminal_text(message)}", highlight=False)
    return typer.Exit(code)


def _local(endpoint: str) -> bool:
    host = urlparse(endpoint).hostname or ""
    return host in ("localhost", "127.0.0.1", "::1", "0.0.0.0")


@bench_app.command("run")
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
        int, typer.Option(min=1, help="Accelerators one replica occupies.")
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
        int, typer.Option(min=1, help="Measured requests per operating point.")
    ] = 100,
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
    bundle: Annotated[
        Path | None,
        typer.Option(help="Model bundle dir: run its golden prompts and record parity."),
    ] = None,
    telemetry: Annotated[str, typer.Option(help="auto (local endpoints), on or off.")] = "auto",
    output: Annotated[
        Path | None, typer.Option("-o", "--output", help="Write the results JSON here.")
    ] = None,
    no_ingest: Annotated[
        bool, typer.Option("--no-ingest", help="Do not write to the warehouse.")
    ] = False,
    progress: Annotated[bool, typer.Option(help="Show a progress bar.")] = True,
    db: DbOption = None,
) -> None:
    """Run golden prompts at each operating point and record tokens/s, TTFT, TPOT and failures."""

    try:
        check_accelerator_id(accelerator)
    except UnknownAcceleratorError as exc:
        raise _fail(f"--accelerator: {exc}") from exc
    if api not in ("chat", "completions"):
        raise _fail("--api must be chat or completions")
    try:
        points = operating_points(
            _csv_ints(concurrency, "--concurrency"), _csv_rates(request_rate), max_concurrency
        )
        prompts = load_prompts(workload)
    except (ValueError, PromptBundleError) as exc:
        raise _fail(str(exc)) from exc
    bundle_obj = None
    if bundle is not None:
        try:
            bundle_obj = verify_bundle(bundle)
        except BundleError as exc:
            raise _fail(str(exc)) from exc
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
    started = datetime.now(UTC)
    blocks = asyncio.run(run_harness(cfg, points, show_progress=progress and sys.stderr.isatty()))
    parity = None
    if bundle_obj is not None:
        parity = asyncio.run(run_parity(endpoint, model, bundle_obj, timeout_s=timeout_s))
    finished = datetime.now(UTC)
    config = {
        "endpoint": endpoint,
        "api": api,
        "model": model,
        "workload": workload,
        "num_prompts": num_prompts,
        "warmup": warmup,
        "max_tokens": max_tokens,
        "temperature": 0.0,
        "ignore_eos": ignore_eos,
        "prompt_set": {
            "name": "golden_prompts",
            "prompts": len(prompts),
            "sha256": prompt_set_digest(prompts),
        },
        "timeout_s": timeout_s,
        "telemetry": use_telemetry,
    }
    doc = build_document(
        config=config,
        context=context,
        points=blocks,
        parity=parity,
        started_at=started,
        finished_at=finished,
    )
    if output is not None:
        output.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    _print_points(blocks, parity)
    results = document_to_results(doc, source_file=str(output) if output else "")
    if output is not None:
        console.print(f"results written to {output}")
    if not results:
        raise _fail(
            "no operating point completed a request; nothing to record (see failures above)", 1
        )
    if not no_ingest:
        snap = _ingest(db, f"harness:{model}@{accelerator}/{runtime}", results, "harness")
        console.print(f"ingested {len(results)} result(s) as snapshot {snap}")
    if any(b["requests"]["failed"] for b in blocks):
        raise typer.Exit(1)


def _fmt(value, digits: int = 1) -> str:
    return "-" if value is None else f"{value:,.{digits}f}"


def _print_points(blocks: list[dict], parity: dict | None) -> None:
    table = Table(title="operating points")
    for col in (
        "load",
        "ok",
        "failed",
        "out tok/s",
        "total tok/s",
        "TTFT p50",
        "TTFT p95",
        "TTFT p99",
        "TPOT p50",
        "ITL p99",
        "E2EL p95",
    ):
        table.add_column(col, justify="right")
    for b in blocks:
        lat = b["latency_ms"]
        load = (
            f"c={b['concurrency']}"
            if b.get("request_rate_rps") is None
            else f"rate={b['request_rate_rps']}"
        )
        table.add_row(
            load,
            str(b["requests"]["ok"]),
            str(b["requests"]["failed"]),
            _fmt(b["throughput"]["output_tok_s"]),
            _fmt(b["throughput"]["total_tok_s"]),
            _fmt(lat["ttft"]["p50"], 2),
            _fmt(lat["ttft"]["p95"], 2),
            _fmt(lat["ttft"]["p99"], 2),
            _fmt(lat["tpot"]["p50"], 2),
            _fmt(lat["itl"]["p99"], 2),
            _fmt(lat["e2el"]["p95"], 1),
        )
    console.print(table)
    for b in blocks:
        if b["requests"]["failure_reasons"]:
            console.print(
                f"failures at {b.get('concurrency') or b.get('request_rate_rps')}: "
                f"{b['requests']['failure_reasons']}"
            )
    if parity:
        console.print(
            f"parity vs {parity['bundle']}: exact match {parity['exact_match']:.3f}, "
            f"token similarity {parity['similarity']:.3f} on {parity['prompts']} prompts"
        )


def roofline_text(check) -> str:
    """ "23% of 10,435 tok/s" or why no bound applies."""
    if check.roofline_pct is None:
        return "unchecked"
    return f"{check.roofline_pct:.0f}% of {check.decode_tok_s_max:,.0f} tok/s"


def _rejection(exc: ResultFileError) -> dict:
    return {"file": exc.file, "key": exc.key, "reason": exc.reason}


def _plausibility(parsed, accept: bool):
    """Check every result; (results with their checks, one rejection per implausible result)."""
    from benchmarks.plausibility import gate

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
    """Import result files from vLLM, SGLang, llama-bench, genai-perf/AIPerf, GuideLLM, LLMPerf, MLPerf.

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
    parsed = []
    failures: list[ResultFileError] = []
    blobs = []
    for path in files:
        try:
            blobs.append((str(path), read_limited(path, MAX_IMPORT_BYTES)))
        except InputFileError as exc:
            failures.append(ResultFileError(str(path), "", exc.message))
    # Context files (MLPerf system JSON) must travel with their summaries, so files are parsed
    # together; a failure is then attributed by re-parsing each with the same companions.
    if not failures:
        try:
            parsed = import_sources(blobs, overrides)
        except ResultFileError as exc:
            failures.append(exc)
    checked: list[tuple[str, str, list, list]] = []
    if not failures:
        checked, implausible = _plausibility(parsed, accept_implausible)
        failures.extend(implausible)
    if failures:
        if output_format == "json":
            print(json.dumps({"records": [], "rejected": [_rejection(e) for e in failures]}))
        for exc in failures:
            err.print(
                f"[red]rejected[/red] {terminal_text(str(exc))}",
                highlight=False,
            )
        if not dry_run:
            _record_failures(db, failures)
        err.print("nothing was imported: fix or drop the rejected file(s) and run again")
        raise typer.Exit(2)
    parsed = [(name, fmt, results) for name, fmt, results, _ in checked]
    if output_format == "json":
        records = [
            {
                **r.model_dump(mode="json"),
                "file": name,
                "format": fmt,
                "plausibility": check.as_dict(),
            }
            for name, fmt, results, checks in checked
            for r, check in zip(results, checks, strict=True)
        ]
        print(json.dumps({"records": records, "rejected": [], "dry_run": dry_run}))
    table = Table(title="results")
    for col in (
        "file",
        "format",
        "accelerator",
        "x",
        "runtime",
        "model",
        "precision",
        "load",
        "out tok/s",
        "TTFT p50",
        "TTFT basis",
        "% of roofline",
    ):
        table.add_column(col)
    for name, fmt, results, checks in checked:
        for r, check in zip(results, checks, strict=True):
            load = (
                f"c={r.concurrency:g}"
                if r.concurrency
                else (f"rate={r.request_rate_rps:g}" if r.request_rate_rps else r.scenario)
            )
            table.add_row(
                *(
                    terminal_text(cell)
                    for cell in (
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
                        roofline_text(check)
                        + (" IMPLAUSIBLE (kept)" if r.plausibility_flag else ""),
                    )
                )
            )
    if output_format == "table":
        console.print(table)
    if dry_run:
        if output_format == "table":
            console.print("dry run: nothing written")
        return

    written = []
    # One transaction for the whole command: every file's snapshot is written, or none.
    with Warehouse.open(db) as wh, wh.atomic():
        for name, fmt, results in parsed:
            source = f"{fmt}:{clean_text(Path(name).name)}"
            written.append(
                (name, len(results), wh.ingest_results(source, results, origin="import"))
            )
    for name, count, snap in written:
        (console if output_format == "table" else err).print(
            f"{terminal_text(Path(name).name)}: {count} result(s) -> snapshot {snap}",
            highlight=False,
        )


def _record_failures(db: Path | None, failures: list[ResultFileError]) -> None:
    """Each rejected file is recorded as a failed snapshot (its error text redacted)."""

    with Warehouse.open(db) as wh:
        for exc in failures:
            wh.record_failed_snapshot(
                SnapshotKind.BENCHMARKS,
                f"import:{clean_text(Path(exc.file).name)}",
                str(exc),
                origin="import",
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
