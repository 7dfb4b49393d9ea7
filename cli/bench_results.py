"""``tokendesk bench results`` and ``tokendesk bench retract``: the stored benchmark results,
listed, and an import taken back (``cli.bench_command`` mounts them)."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from cli.shared_options import DbOption, FormatOption, OutputFormat
from pricing.integrity import check_price_file
from tokendesk.terminal import Grid, make_console, print_table
from tokendesk.textsafety import terminal_text
from warehouse import Warehouse

console = make_console()


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
    from costmodel.bundled_tables import stored_spellings
    from tokendesk import formatting
    from tokendesk.exports import safe_csv
    from warehouse.queries import benchmark_result_list, stored_model_names

    with Warehouse.open(db, read_only=True, seed_check=check_price_file) as warehouse:
        names = stored_spellings(model, stored_model_names(warehouse)) if model else None
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
