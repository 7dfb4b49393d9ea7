"""``tokendesk costs``: $/1K tokens and first-token latency of every priced option."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated, Any

import typer

from cli.exits import fail
from cli.shared_options import DbOption, FormatOption, OutputFormat
from tokendesk import formatting
from tokendesk.columns import OPTION_FIGURES
from tokendesk.labels import sku_label
from tokendesk.terminal import Grid, make_console, print_table
from tokendesk.textsafety import terminal_text

if TYPE_CHECKING:
    import pandas as pd

# The warehouse, pandas, the cost model and the price checks are imported inside the command:
# `tokendesk costs --help` does not load them.

console = make_console()


#: Most cost-option rows one ``costs`` command materialises (each row is ~1 KiB in pandas with
#: its derived columns: 200,000 rows stay well under half a gigabyte).
MAX_COST_ROWS = 200_000
#: Largest --limit DuckDB's LIMIT takes (a signed 64-bit count); more rows than any market has.
MAX_LIMIT = 2**63 - 1

COSTS_COLUMNS = [
    *OPTION_FIGURES,
    "ttft_ms_p50",
    "ttft_ms_p95",
    "ttft_ms_p99",
    "tpot_ms_p50",
    "tpot_ms_p95",
    "tpot_ms_p99",
    # The hour split between input and output tokens, and the rule that split it.
    "usd_per_1k_input_tokens",
    "usd_per_1k_output_tokens_apportioned",
    "apportioning_rule",
    # Energy and carbon per output token, with the basis and the grid figure used.
    "joules_per_output_token",
    "energy_basis",
    "kwh_per_1m_output_tokens",
    "g_co2e_per_1m_output_tokens",
    "grid_g_co2e_per_kwh",
    "grid_year",
    "grid_source",
    "grid_source_url",
    "price_source",
    "price_observed_at",
    "bench_source_title",
    "bench_measured_at",
    "price_confidence",
    "bench_confidence",
    "roofline_pct",
]


def costs(
    accelerator: Annotated[
        list[str] | None, typer.Option(help="Accelerator id (repeatable).")
    ] = None,
    vendor: Annotated[
        list[str] | None, typer.Option(help="NVIDIA, AMD, Intel, Google, AWS, …")
    ] = None,
    provider: Annotated[list[str] | None, typer.Option(help="aws, gcp, azure, lambda, …")] = None,
    region: Annotated[list[str] | None, typer.Option()] = None,
    pricing_model: Annotated[
        list[str] | None, typer.Option("--pricing-model", help="on_demand, spot, reserved_1y, …")
    ] = None,
    model: Annotated[list[str] | None, typer.Option()] = None,
    precision: Annotated[list[str] | None, typer.Option()] = None,
    workload: Annotated[list[str] | None, typer.Option()] = None,
    sort: Annotated[
        str,
        typer.Option(
            help="Column to sort by, e.g. usd_per_1k_output_tokens (the default), ttft_ms_p95,"
            " usd_per_hour (a name it does not know lists every one)."
        ),
    ] = "usd_per_1k_output_tokens",
    limit: Annotated[
        int | None,
        typer.Option(min=1, max=MAX_LIMIT, help="Show at most this many rows."),
    ] = None,
    output: FormatOption = OutputFormat.TABLE,
    db: DbOption = None,
) -> None:
    """$/1K tokens and first-token latency per accelerator × cloud × region × pricing model."""
    from costmodel.option_figures import with_hour_split, with_roofline
    from tokendesk.exports import safe_csv

    filters: dict[str, Any] = dict(
        accelerator=accelerator,
        vendor=vendor,
        provider=provider,
        region=region,
        pricing_model=pricing_model,
        model=model,
        precision=precision,
        workload=workload,
    )
    frame = _priced_options(db, filters, sort, limit)
    # How close each result sits to the physical bound of its accelerator ("% of roofline"), the
    # input / output split of each hour, and energy and carbon per token.
    frame = with_hour_split(with_roofline(frame), energy=True)[COSTS_COLUMNS]
    if output is OutputFormat.CSV:
        sys.stdout.write(safe_csv(frame).decode("utf-8"))
        return
    if output is OutputFormat.JSON:
        sys.stdout.write(frame.to_json(orient="records", date_format="iso", indent=1) + "\n")
        return
    if frame.empty:
        console.print("No option matches these filters. Try fewer filters, or `tokendesk db info`.")
        return
    print_table(console, _costs_table(frame, sort), more="--format csv")
    console.print(
        "Sources of every price and result: --format csv or json (price_source, bench_source_title)."
    )


def _priced_options(db: Any, filters: dict[str, Any], sort: str, limit: int | None) -> pd.DataFrame:
    """The cost join's rows matching ``filters``, sorted; refused (exit 2) when more match than
    one command writes at once, or when ``sort`` names no column."""
    from pricing.integrity import check_price_file
    from warehouse import Warehouse
    from warehouse.queries import cost_options, count_options

    with Warehouse.open(db, read_only=True, seed_check=check_price_file) as warehouse:
        try:
            # At most MAX_COST_ROWS rows are read at once: a larger join (a price file of a
            # million rows meets every result on its accelerators) is counted, not materialised,
            # unless filters or --limit narrow it.
            if limit is None or limit > MAX_COST_ROWS:
                matching = count_options(warehouse, **filters)
                if matching > MAX_COST_ROWS:
                    raise fail(
                        f"{matching:,} options match, more than the"
                        f" {MAX_COST_ROWS:,} one command writes at once; narrow them with"
                        " filters (--provider, --accelerator, --model, …) or pass --limit"
                        f" (at most {MAX_COST_ROWS:,})"
                    )
            return cost_options(warehouse, sort=sort, limit=limit, **filters)
        except ValueError as exc:
            raise fail(str(exc)) from None


def _costs_table(frame: pd.DataFrame, sort: str) -> Grid:
    """One row per option: where and how it is priced, what it serves, $/1K, FTL and dates."""
    from benchmarks.plausibility import roofline_label

    table = Grid(title=f"{len(frame)} options, sorted by {sort}")
    # Priority 0: what an option is and what it costs, which lead each record when a narrow
    # terminal stacks them (every column is shown at any width).
    table.add_column("Provider · region · instance · pricing", priority=0, prose=True)
    table.add_column("Accelerator", priority=1)
    table.add_column("Model · precision · scenario", priority=0, prose=True)
    table.add_column("Load", priority=4, justify="right")
    table.add_column("Instance tok/s", priority=4, justify="right")
    table.add_column("$/h", priority=3, justify="right")
    table.add_column("$/1K out", priority=0, justify="right")
    table.add_column("FTL p95", priority=0, justify="right")
    table.add_column("FTL p99", priority=5, justify="right")
    table.add_column("Price date", priority=1)
    table.add_column("Result date", priority=2)
    table.add_column("% of roofline", priority=5, justify="right")
    table.add_column("Result source", priority=6, prose=True)
    for row in frame.itertuples():
        table.add_row(
            sku_label(row.provider, row.region, row.instance_type, row.pricing_model),
            row.accelerator_id,
            f"{row.model} · {row.precision} · {row.scenario}",
            _load(row.concurrency),
            formatting.tok_s(row.instance_output_tok_s),
            formatting.usd(row.usd_per_hour, 3),
            formatting.usd_per_1k(row.usd_per_1k_output_tokens),
            formatting.ms(row.ttft_ms_p95),
            formatting.ms(row.ttft_ms_p99),
            formatting.day(row.price_observed_at),
            formatting.day(row.bench_measured_at),
            roofline_label(row.roofline_pct),
            terminal_text(row.bench_source_title or "—"),
        )
    return table


def _load(concurrency) -> str:
    """Concurrency of the operating point, '-' when the result did not say (offline runs)."""
    if concurrency is None or concurrency != concurrency:  # None or NaN
        return "-"
    return f"c={concurrency:g}"


def register(app: typer.Typer) -> None:
    """Mount ``costs`` on ``app`` (once)."""
    if "costs" not in {command.name for command in app.registered_commands}:
        app.command("costs")(costs)
