"""``tokendesk bench``: run the portability harness, import other tools' results, verify model
bundles, and serve the in-repo fake endpoint.

``bench run`` parses its options and hands them to ``benchmarks.session`` (the harness run
itself); ``bench import``/``import-tree`` live in ``cli.bench_imports``, ``bench results`` and
``retract`` in ``cli.bench_results``, the points table in ``cli.bench_points``.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import sys
from pathlib import Path
from typing import Annotated

import typer
from typer.core import TyperCommand

from benchmarks.bundle import verify_bundle
from benchmarks.client import TOKEN_BASIS_WORDS
from benchmarks.errors import BundleError
from benchmarks.fake_server import FakeServerConfig, serve
from benchmarks.plausibility import gate
from benchmarks.prompts import PromptBundleError
from benchmarks.results import RunContext
from benchmarks.runner import OperatingPoint, operating_points, sweep_concurrencies
from benchmarks.session import HarnessSession, SessionError, SessionRun, SessionSettings
from benchmarks.slo import SLOError, parse_slo
from cli import bench_imports, bench_results
from cli import bench_options as o
from cli.bench_points import print_points
from cli.exits import fail
from cli.retract_command import retract_cmd
from cli.shared_options import DbOption
from pricing.integrity import check_price_file
from tokendesk import jsontext
from tokendesk.catalog import UnknownAcceleratorError, check_accelerator_id
from tokendesk.terminal import make_console
from tokendesk.textsafety import terminal_text
from warehouse import Warehouse

bench_app = typer.Typer(
    help="Portability harness: run golden prompts against an endpoint, import results "
    "from other tools, verify model bundles.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)

console = make_console()
err = make_console(stderr=True)


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
    disagreeing duplicates); a refused point is reported and nothing is written. The points were
    measured here, so a model of no stated size is kept unchecked rather than refused."""
    _, _, rejected = gate(source, results, measured_here=True)
    if rejected:
        for failure in rejected:
            err.print(f"[red]rejected[/red] {terminal_text(str(failure))}", highlight=False)
        raise fail("nothing recorded: a measured point failed the result gate above")
    with Warehouse.open(db, seed_check=check_price_file) as wh:
        return wh.ingest_results(source, results, origin=origin)


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


# Over 100 lines because it names each of its 45 options twice, in the signature (one line each,
# their help in cli.bench_options) and in the SessionSettings it hands them on in; the run itself
# is benchmarks.session's.
@bench_app.command("run", cls=_PlainHelp)
def run_cmd(
    endpoint: o.Endpoint,
    model: o.Model,
    accelerator: o.Accelerator,
    accelerators_per_replica: o.AcceleratorsPerReplica,
    runtime: o.Runtime,
    precision: o.Precision,
    workload: o.Workload = "chat-short",
    dataset: o.Dataset = "golden",
    trace_speed: o.TraceSpeed = 1.0,
    runtime_version: o.RuntimeVersion = "",
    instance_type: o.InstanceType = None,
    provider: o.Provider = None,
    region: o.Region = None,
    concurrency: o.Concurrency = None,
    request_rate: o.RequestRate = None,
    max_concurrency: o.MaxConcurrency = None,
    num_prompts: o.NumPrompts = None,
    duration_s: o.DurationS = None,
    ramp_up_s: o.RampUpS = 0.0,
    burstiness: o.Burstiness = 1.0,
    sweep: o.Sweep = False,
    sweep_max: o.SweepMax = 256,
    sweep_min_gain: o.SweepMinGain = 0.05,
    slo: o.Slo = None,
    repeats: o.Repeats = 1,
    warmup: o.Warmup = None,
    max_tokens: o.MaxTokens = None,
    api: o.Api = "chat",
    timeout_s: o.TimeoutS = 600.0,
    ignore_eos: o.IgnoreEos = False,
    api_key: o.ApiKey = None,
    header: o.Header = None,
    insecure: o.Insecure = False,
    ca_bundle: o.CaBundle = None,
    tokenizer: o.Tokenizer = None,
    max_failure_rate: o.MaxFailureRate = 0.0,
    bundle: o.Bundle = None,
    parity_concurrency: o.ParityConcurrency = 1,
    ready_timeout_s: o.ReadyTimeoutS = 0.0,
    telemetry: o.Telemetry = "auto",
    output: o.Output = None,
    no_ingest: o.NoIngest = False,
    ingest_partial: o.IngestPartial = False,
    progress: o.Progress = True,
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
    session = HarnessSession(
        SessionSettings(
            endpoint=endpoint,
            model=model,
            context=RunContext(
                accelerator_id=accelerator,
                accelerators_per_replica=accelerators_per_replica,
                runtime=runtime,
                precision=precision,
                runtime_version=runtime_version,
                instance_type=instance_type,
                provider=provider,
                region=region,
            ),
            points=points,
            headers=headers,
            slo=slo_bounds,
            dataset=dataset,
            workload=workload,
            num_prompts=num_prompts,
            duration_s=duration_s,
            ramp_up_s=ramp_up_s,
            burstiness=burstiness,
            repeats=repeats,
            warmup=warmup,
            max_tokens=max_tokens,
            api=api,
            timeout_s=timeout_s,
            ignore_eos=ignore_eos,
            telemetry=telemetry,
            insecure=insecure,
            ca_bundle=ca_bundle,
            tokenizer=tokenizer,
            bundle=bundle,
            parity_concurrency=parity_concurrency,
            ready_timeout_s=ready_timeout_s,
            max_failure_rate=max_failure_rate,
            sweep=sweep,
            sweep_min_gain=sweep_min_gain,
        )
    )
    try:
        session.prepare(warn=_warn)
    except SessionError as exc:
        raise fail(str(exc)) from exc
    run = session.run(show_progress=progress and sys.stderr.isatty())
    if run.interrupted:
        err.print(f"[yellow]interrupted[/yellow]: {len(run.blocks)} point(s) had finished")
    results = _write_and_show(run, output)
    if run.interrupted and not ingest_partial:
        console.print(
            "nothing ingested after an interrupt (--ingest-partial records the finished points)"
        )
        raise typer.Exit(130)
    if run.slo_unmet:
        raise fail(f"no valid point meets the SLO {slo}; nothing recorded", 1)
    if not results:
        raise fail("no operating point is valid; nothing recorded (see the failures above)", 1)
    if not no_ingest:
        snap = _ingest(db, f"harness:{model}@{accelerator}/{runtime}", results, "harness")
        console.print(f"ingested {len(results)} result(s) as snapshot {snap}")
    if run.any_failed:
        raise typer.Exit(1)


def _warn(message: str) -> None:
    err.print(f"[yellow]warning:[/yellow] {terminal_text(message)}", highlight=False)


def _check_target(accelerator: str, api: str) -> None:
    """Refuse an unknown accelerator id or API before anything is loaded."""
    try:
        check_accelerator_id(accelerator)
    except UnknownAcceleratorError as exc:
        raise fail(f"--accelerator: {exc}") from exc
    if api not in ("chat", "completions"):
        raise fail("--api must be chat or completions")


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
        raise fail(str(exc)) from exc
    return points, headers, slo_bounds


def _write_and_show(run: SessionRun, output: Path | None) -> list:
    """Write the -o file, print the points table, and return the recordable results."""
    if output is not None:
        output.write_text(jsontext.dumps(run.document, ensure_ascii=True) + "\n", encoding="utf-8")
    print_points(run.blocks, run.parity, TOKEN_BASIS_WORDS)
    results = run.results(source_file=str(output.resolve()) if output else "")
    if output is not None:
        console.print(f"results written to {output}")
    return results


def verify_bundle_cmd(
    directory: Annotated[Path, typer.Argument(help="Model bundle directory.")],
) -> None:
    """Check a model bundle's manifest, files, checksums and golden prompt ids."""

    try:
        bundle = verify_bundle(directory)
    except BundleError as exc:
        raise fail(str(exc), 1) from exc
    files = len(bundle.manifest["weights"]["files"]) + len(bundle.manifest["tokenizer"]["files"])
    console.print(
        f"bundle {bundle.name!r} OK: model {bundle.model}, precision {bundle.precision}, "
        f"{files} checksummed files, {len(bundle.expected)} expected golden outputs"
    )


def serve_fake_cmd(
    host: Annotated[str, typer.Option(help="Listen address (keep it on loopback).")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65_535)] = 8000,
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


# The subcommands of other modules, in the order `tokendesk bench --help` lists them (after run).
bench_app.command("import")(bench_imports.import_cmd)
bench_app.command("import-tree")(bench_imports.import_tree_cmd)
bench_app.command("results")(bench_results.results_cmd)
bench_app.command("retract")(retract_cmd)
bench_app.command("verify-bundle")(verify_bundle_cmd)
bench_app.command("serve-fake")(serve_fake_cmd)
