"""``tokendesk estimate``: output tok/s per accelerator, TTFT and TPOT for any model ×
accelerator × shape × load, with an 80% interval; ``tokendesk estimate validate``: the model's
leave-one-out validation over the measured results."""

from __future__ import annotations

import sys
from enum import StrEnum
from typing import Annotated, Any

import typer

from benchmarks.importers.serving import TORCH_DTYPES
from cli.exits import fail
from cli.shared_options import DbOption
from pricing.integrity import check_price_file
from tokendesk import jsontext
from tokendesk.terminal import Grid, make_console, print_table
from tokendesk.textsafety import terminal_text
from warehouse import Warehouse

console = make_console()


class Scenario(StrEnum):
    OFFLINE = "offline"
    SERVER = "server"
    INTERACTIVE = "interactive"


class Format(StrEnum):
    TABLE = "table"
    JSON = "json"


FormatOpt = Annotated[Format, typer.Option("--format", help="table or json")]
AcceleratorOpt = Annotated[
    str | None,
    typer.Option(
        "--accelerator",
        help="An accelerator id of the catalog, or a part's name that names one (B200).",
    ),
]
ReplicaSizeOpt = Annotated[
    int | None,
    typer.Option(
        "--accelerators-per-replica",
        min=1,
        help="Accelerators serving the model. With --concurrency or --one-replica, one replica of"
        " this size; otherwise a system of this size (as an MLPerf system's count), split into"
        " the replicas that serve best (the output names their size). Default: up to 64.",
    ),
]
OneReplicaOpt = Annotated[
    bool,
    typer.Option(
        "--one-replica",
        help="Read --accelerators-per-replica as one replica of that size (a deployment's"
        " tensor-parallel size) at any load, not as a system to split.",
    ),
]

estimate_app = typer.Typer(
    rich_markup_mode=None,
    invoke_without_command=True,
    help="Output tok/s per accelerator, TTFT and TPOT for any model × accelerator × shape, with"
    " an 80% interval (`tokendesk estimate validate`: how far to trust it).",
)


@estimate_app.callback()
def estimate(
    ctx: typer.Context,
    model: Annotated[
        str | None, typer.Option("--model", help="A model of the model table.")
    ] = None,
    accelerator: AcceleratorOpt = None,
    accelerators_per_replica: ReplicaSizeOpt = None,
    one_replica: OneReplicaOpt = False,
    precision: Annotated[str | None, typer.Option("--precision", help="bf16, fp8, fp4 …")] = None,
    runtime: Annotated[str | None, typer.Option("--runtime", help="vllm, trt-llm, …")] = None,
    input_tokens: Annotated[
        float | None, typer.Option("--input-tokens", min=1, help="Mean input tokens.")
    ] = None,
    output_tokens: Annotated[
        float | None, typer.Option("--output-tokens", min=1, help="Mean output tokens.")
    ] = None,
    scenario: Annotated[
        Scenario | None, typer.Option("--scenario", help="offline, server or interactive.")
    ] = None,
    concurrency: Annotated[
        float | None, typer.Option("--concurrency", min=1, help="Sequences in flight.")
    ] = None,
    ttft_slo_ms: Annotated[
        float | None, typer.Option("--ttft-slo-ms", min=1, help="p99 TTFT target (ms).")
    ] = None,
    leave_out: Annotated[
        bool,
        typer.Option("--leave-out", help="Fit without this model × accelerator's own results."),
    ] = False,
    output: FormatOpt = Format.TABLE,
    db: DbOption = None,
) -> None:
    """Estimate one model × accelerator × shape × load."""
    if ctx.invoked_subcommand is not None:
        return
    missing = [
        flag
        for flag, value in (
            ("--model", model),
            ("--accelerator", accelerator),
            ("--precision", precision),
        )
        if value is None
    ]
    if missing:
        raise fail(f"{', '.join(missing)} must be given (see `tokendesk estimate --help`)")
    loads = [x for x in (scenario, concurrency, ttft_slo_ms) if x is not None]
    if len(loads) > 1:
        raise fail("give one of --scenario, --concurrency and --ttft-slo-ms, not several")
    if one_replica and accelerators_per_replica is None:
        raise fail("--one-replica reads --accelerators-per-replica: give its size too")
    if (input_tokens is None) != (output_tokens is None):
        raise fail("give --input-tokens and --output-tokens together, or neither")
    from planning.estimates import EstimateError, EstimateQuery, estimator

    accelerator_id, read_part = _catalog_id(str(accelerator))
    precision_name, read_precision = _precision_name(str(precision))
    read_as = "; ".join(note for note in (read_part, read_precision) if note)
    query = EstimateQuery(
        model=str(model),
        accelerator_id=accelerator_id,
        precision=precision_name,
        accelerators_per_replica=accelerators_per_replica,
        runtime=runtime,
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        scenario=scenario.value if scenario is not None else None,
        concurrency=concurrency,
        ttft_slo_ms=ttft_slo_ms,
        leave_out=leave_out,
        one_replica=one_replica,
    )
    with Warehouse.open(db, read_only=True, seed_check=check_price_file) as warehouse:
        model_ = estimator(warehouse)
    try:
        result = model_.estimate(query)
    except EstimateError as exc:
        raise fail(str(exc)) from exc
    data = result.as_dict()
    if output is Format.JSON:
        sys.stdout.write(jsontext.dumps(data, indent=1, default=str) + "\n")
        return
    _print_estimate(data, read_as)


def _catalog_id(name: str) -> tuple[str, str]:
    """The catalog id ``name`` stands for and, where it is a part's name ("B200") rather than
    an id, how it was read; a name that places no part, or several, is refused in words."""
    from benchmarks.importers.hardware import identify
    from tokendesk.catalog import accelerator_ids

    ids = accelerator_ids()
    if name in ids:
        return name, ""
    found = identify(name)
    if found.accelerator_id is None or found.accelerator_id not in ids:
        raise fail(f"{found.reason}; give one of the catalog's ids: {', '.join(sorted(ids))}")
    return found.accelerator_id, f"accelerator {name} read as {found.accelerator_id}"


def _band(band: dict[str, float], digits: int = 0) -> str:
    return f"{band['estimate']:,.{digits}f} ({band['low']:,.{digits}f}–{band['high']:,.{digits}f})"


#: Framework dtype names -> the precision names the model table and the results use: torch's
#: (the table the result importers read) and the FP8 spellings of vLLM's --kv-cache-dtype and
#: torch's float8 types.
_PRECISION_ALIASES = {
    **TORCH_DTYPES,
    "e4m3": "fp8",
    "fp8-e4m3": "fp8",
    "fp8-e4m3fn": "fp8",
    "float8-e4m3fn": "fp8",
}


def _precision_name(name: str) -> tuple[str, str]:
    """The precision name ``name`` stands for (lower case; a framework's dtype name, with "_" or
    "-", as the model's; a name of the model's own with "_" for its "-", as int4_awq) and, where
    it differs from what was typed, how it was read. Names with an underscore of their own
    (q4_0) are kept as typed."""
    from costmodel.perf_model import WEIGHT_BYTES  # numpy: only once a question is asked

    typed = name.strip().lower()
    dashed = typed.replace("_", "-")
    if typed in WEIGHT_BYTES:
        found = typed
    else:
        found = _PRECISION_ALIASES.get(dashed, dashed if dashed in WEIGHT_BYTES else typed)
    return found, (f"precision {name} read as {found}" if found != typed else "")


def _print_estimate(data: dict[str, Any], read_as: str = "") -> None:
    q = data["query"]
    table = Grid(
        title=terminal_text(f"{data['model_id']} on {q['accelerator_id']} · {q['precision']}")
    )
    table.add_column("Figure", priority=0, prose=True)
    table.add_column("Estimate (80% interval)", priority=0, justify="right")
    table.add_row("Output tok/s per accelerator", _band(data["output_tok_s_per_accelerator"]))
    table.add_row("TTFT p50 (ms)", _band(data["ttft_ms_p50"]))
    table.add_row("TTFT p99 (ms)", _band(data["ttft_ms_p99"]))
    table.add_row("TPOT p50 (ms)", _band(data["tpot_ms_p50"], 1))
    print_table(console, table, more="--format json")
    console.print(
        terminal_text(
            f"basis: {data['basis']} ({data['evidence']}); shape {data['input_tokens']:,.0f} in /"
            f" {data['output_tokens']:,.0f} out: {data['shape_note']}; {_replicas(data)};"
            f" calibrated on {data['calibration_results']:,} results,"
            f" {len(data['calibrated_on']):,} of them of this model or this part"
            + (
                ""
                if data["meets_ttft_slo"] is None
                else f"; p99 TTFT {'meets' if data['meets_ttft_slo'] else 'misses'} the target"
            )
            + (f"; {read_as}" if read_as else "")
            + (f"; {data['runtime_note']}" if data["runtime_note"] else "")
            + (f"; {data['load_note']}" if data["load_note"] else "")
            + (f"; {data['interval_note']}" if data["interval_note"] else "")
        ),
        highlight=False,
    )


@estimate_app.command("validate")
def validate_cmd(output: FormatOpt = Format.TABLE, db: DbOption = None) -> None:
    """Leave-one-out by (model, accelerator) pair: predicted, interval and measured per case;
    median |error| and interval coverage overall, per vendor and per regime."""
    from planning.estimates import validation_report

    with Warehouse.open(db, read_only=True, seed_check=check_price_file) as warehouse:
        report = validation_report(warehouse)
    if output is Format.JSON:
        sys.stdout.write(jsontext.dumps(report, indent=1, default=str) + "\n")
        return
    for name, metric in report["metrics"].items():
        table = Grid(title=f"{name}: leave-one-out, {metric['overall']['cases']:,} cases")
        table.add_column("Group", priority=0, prose=True)
        table.add_column("Cases", priority=0, justify="right")
        table.add_column("Median |error|", priority=0, justify="right")
        table.add_column("80% interval coverage", priority=0, justify="right")
        groups = [("overall", metric["overall"])]
        groups += [(f"vendor {k}", v) for k, v in metric["per_vendor"].items()]
        groups += [(f"regime {k}", v) for k, v in metric["per_regime"].items()]
        for label, s in groups:
            table.add_row(
                terminal_text(label),
                f"{s['cases']:,}",
                f"{s['median_abs_pct_error']:.1%}",
                f"{s['interval_coverage']:.1%}",
            )
        print_table(console, table, more="--format json")
        console.print(terminal_text(_targets_line(metric["targets"])), highlight=False)
        console.print(terminal_text(_reference_line(metric["naive_reference"])), highlight=False)


def _targets_line(t: dict[str, Any]) -> str:
    def word(met: bool | None) -> str:
        return "met" if met else "MISSED"

    parts = []
    if t["median_abs_pct_error_at_most"] is not None:
        parts.append(
            f"median |error| ≤ {t['median_abs_pct_error_at_most']:.0%} {word(t['error_met'])}"
        )
    low, high = t["coverage_between"]
    parts.append(f"coverage {low:.0%}–{high:.0%} {word(t['coverage_met'])}")
    parts.append(
        f"every vendor ≥ {t['vendor_coverage_at_least']:.0%} {word(t['vendor_coverage_met'])}"
    )
    return "targets: " + "; ".join(parts)


def _reference_line(ref: dict[str, Any]) -> str:
    """The naive reference beside the model, on the cases both answer."""
    if not ref["cases"]:
        return f"naive reference ({ref['rule']}): no case has one"
    return (
        f"naive reference ({ref['rule']}): median |error| {ref['median_abs_pct_error']:.1%}"
        f" over {ref['cases']:,} cases; the model's on the same cases"
        f" {ref['model_median_abs_pct_error']:.1%}"
    )


def register(app: typer.Typer) -> None:
    """Mount ``estimate`` (with ``validate``) on ``app`` (once)."""
    if "estimate" not in {group.name for group in app.registered_groups}:
        app.add_typer(estimate_app, name="estimate")


def _replicas(data: dict) -> str:
    """The replica size the estimate is read at, and on how many accelerators where asked."""
    size, asked = data["replica_size"], data["query"].get("accelerators_per_replica")
    if asked is None or asked == size:
        return f"replica of {size}"
    return f"replicas of {size} on {asked} accelerators"
