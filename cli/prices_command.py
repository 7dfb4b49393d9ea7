"""``tokendesk prices ...``: refresh live prices, print integrity reports, list providers."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)

from cli.exits import fail
from cli.shared_options import DbOption, FormatOption, OutputFormat
from pricing.integrity import IntegrityReport, check_price_file, check_snapshot
from pricing.provider import ProgressEvent
from pricing.refresh import refresh
from pricing.registry import PROVIDERS, provider_names
from pricing.sheets import SheetValidationError, load_sheet
from tokendesk.labels import sku_label
from tokendesk.records import PriceQuote, SnapshotStatus
from tokendesk.terminal import Grid, make_console, print_table
from tokendesk.textsafety import terminal_text
from warehouse import Warehouse
from warehouse.queries import count_current_prices, current_price_list

prices_app = typer.Typer(
    help="Refresh live cloud prices, check their integrity, list price providers.",
    no_args_is_help=True,
)
console = make_console()
err = make_console(stderr=True)


class _Bars:
    """Rich progress: one bar per provider, advanced per region."""

    def __init__(self, progress: Progress) -> None:
        self.progress = progress
        self.tasks: dict[str, TaskID] = {}

    def __call__(self, event: ProgressEvent) -> None:
        if event.provider not in self.tasks:
            self.tasks[event.provider] = self.progress.add_task(
                event.provider, total=None, status=""
            )
        task = self.tasks[event.provider]
        if event.stage == "region":
            self.progress.update(
                task,
                total=event.total or None,
                completed=event.completed,
                status=f"{event.region}: {event.message}",
            )
        elif event.stage in ("done", "failed", "skipped"):
            total = self.progress.tasks[task].total or 1
            self.progress.update(
                task, total=total, completed=total, status=f"{event.stage}: {event.message}"[:90]
            )
        else:
            self.progress.update(task, status=event.message[:60])


@prices_app.command("refresh")
def refresh_command(
    provider: Annotated[
        list[str] | None,
        typer.Option(
            "--provider", "-p", help=f"Provider to refresh (repeatable): {', '.join(PROVIDERS)}."
        ),
    ] = None,
    region: Annotated[
        list[str] | None,
        typer.Option(
            "--region",
            "-r",
            help="Region to refresh (repeatable; provider naming, e.g. us-east-1, eastus).",
        ),
    ] = None,
    db: DbOption = None,
) -> None:
    """Fetch prices, check integrity and write one snapshot per provider."""

    unknown = [p for p in provider or [] if p not in PROVIDERS]
    if unknown:
        raise fail(
            f"Unknown provider {', '.join(unknown)}; known: {', '.join(PROVIDERS)}", label=""
        )
    with (
        Warehouse.open(db, seed_check=check_price_file) as warehouse,
        Progress(
            TextColumn("{task.description:<9}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("{task.fields[status]}"),
            console=console,
            transient=False,
        ) as bar,
    ):
        report = refresh(provider, region, warehouse, _Bars(bar))
    table = Grid()
    table.add_column("provider", priority=0)
    table.add_column("snapshot source", priority=2)
    table.add_column("status", priority=0)
    table.add_column("rows", priority=1, justify="right")
    table.add_column("quarantined", priority=3, justify="right")
    table.add_column("review", priority=3, justify="right")
    table.add_column("snapshot / error", priority=0, prose=True)
    for o in report.outcomes:
        colour = {"ok": "green", "partial": "yellow", "failed": "red"}[o.status.value]
        detail = o.snapshot_id if not o.error else f"{o.snapshot_id}\n{o.error}"
        table.add_row(
            terminal_text(o.provider),
            terminal_text(o.source),
            f"[{colour}]{o.status.value}[/]",
            str(o.rows),
            str(o.quarantined),
            str(o.review_flagged),
            terminal_text(detail),
        )
    print_table(console, table)
    for name in report.not_applicable:
        console.print(
            f"{name}: nothing to refresh (no requested region applies, or no price sheet exists)"
        )
    if any(o.status is not SnapshotStatus.OK for o in report.outcomes):
        console.print(
            "Failed or partial refreshes keep the last good prices current (the errors above say"
            " what was skipped). `tokendesk prices providers` lists what each provider needs."
        )
        raise typer.Exit(1)


def _rules_grid(title: str) -> Grid:
    table = Grid(title=title)
    table.add_column("rule", priority=0)
    table.add_column("checked", priority=0, justify="right")
    table.add_column("failed", priority=0, justify="right")
    table.add_column("detail", priority=1, prose=True)
    return table


def print_integrity(report: IntegrityReport, quotes: list[PriceQuote], title: str) -> None:
    table = _rules_grid(title)
    for rule in report.rules:
        colour = (
            "red"
            if rule.failed and rule.rule not in ("moved_over_50pct", "negotiated_quote_expired")
            else ("yellow" if rule.failed else "green")
        )
        table.add_row(
            rule.rule, str(rule.checked), f"[{colour}]{rule.failed}[/]", terminal_text(rule.detail)
        )
    print_table(console, table)
    for label, flags in (("quarantined", report.quarantine), ("review", report.review_flags)):
        for index, reason in sorted(flags.items())[:50]:
            q = quotes[index]
            console.print(
                terminal_text(
                    f"{label}: {sku_label(q.provider, q.region, q.instance_type, q.pricing_model)} "
                    f"${q.usd_per_hour:g} - {reason}"
                ),
                highlight=False,
            )


#: Most current prices ``prices integrity`` reads and checks at once (each is a validated record
#: of about 2 KiB in memory: 200,000 stay under half a gigabyte). More are refused with a pointer
#: to the reports stored with every snapshot.
MAX_CHECKED_NOW = 200_000


@prices_app.command("integrity")
def integrity_command(
    snapshot: Annotated[
        str | None, typer.Option("--snapshot", help="Show the stored report of this snapshot id.")
    ] = None,
    provider: Annotated[
        str | None,
        typer.Option("--provider", "-p", help="Check current prices of one provider only."),
    ] = None,
    sheet: Annotated[
        Path | None, typer.Option("--sheet", help="Validate and check a price sheet file instead.")
    ] = None,
    db: DbOption = None,
) -> None:
    """Print the integrity report: of a stored snapshot, of the current prices (after a fresh
    start these are the bundled seed), or of a price sheet before it is loaded."""
    if sheet is not None:
        try:
            quotes = load_sheet(sheet)
        except SheetValidationError as exc:
            raise fail(str(exc), label="") from None
        print_integrity(check_snapshot(quotes, []), quotes, f"integrity of {sheet}")
        return

    with Warehouse.open(db, read_only=True, seed_check=check_price_file) as warehouse:
        if snapshot:
            frame = warehouse.integrity_report(snapshot)
            if frame.empty:
                raise fail(
                    f"No integrity report stored for snapshot {snapshot!r}; `tokendesk db "
                    "info` lists snapshots.",
                    1,
                    label="",
                )
            table = _rules_grid(f"integrity of {snapshot}")
            for row in frame.itertuples(index=False):
                table.add_row(
                    str(row.rule), str(row.checked), str(row.failed), terminal_text(str(row.detail))
                )
            print_table(console, table)
            return
        with warehouse.reading():
            count = count_current_prices(warehouse, provider)
        if count > MAX_CHECKED_NOW:
            raise fail(
                f"{count:,} current prices"
                + (f" of {provider}" if provider else "")
                + f": more than the {MAX_CHECKED_NOW:,} this command checks at once. Every"
                " snapshot was checked when it was written: `tokendesk prices integrity"
                " --snapshot ID` shows its report (`tokendesk db info` lists the ids);"
                " or check one provider with --provider"
            )
        quotes = warehouse.current_price_quotes(provider)
    if not quotes:
        raise fail(
            "No current prices" + (f" for {provider}" if provider else "") + ".", 1, label=""
        )
    print_integrity(check_snapshot(quotes, []), quotes, "integrity of the current prices")


@prices_app.command("providers")
def providers_command() -> None:
    """List the price providers and what each needs configured."""
    defaults = set(provider_names(defaults_only=True))
    table = Grid()
    table.add_column("provider", priority=0)
    table.add_column("default", priority=1)
    table.add_column("origin", priority=2)
    table.add_column("what it reads", priority=0, prose=True)
    table.add_column("needs", priority=1, prose=True)
    for spec in PROVIDERS.values():
        table.add_row(
            spec.name,
            "yes" if spec.name in defaults else "no",
            spec.origin,
            spec.description,
            spec.needs,
        )
    print_table(console, table)


@prices_app.command("list")
def list_command(
    provider: Annotated[
        list[str] | None,
        typer.Option("--provider", "-p", help="Only this provider (repeatable): aws, gcp, …"),
    ] = None,
    pricing_model: Annotated[
        list[str] | None,
        typer.Option(
            "--pricing-model", help="Only this pricing model (repeatable): on_demand, spot, …"
        ),
    ] = None,
    output: FormatOption = OutputFormat.TABLE,
    db: DbOption = None,
) -> None:
    """Every current price quote: provider, region, instance type, accelerator, pricing model,
    $/hour, its basis, the date its source states and the source itself."""
    from tokendesk import formatting
    from tokendesk.exports import safe_csv
    from tokendesk.labels import label
    from tokendesk.records import PricingModel

    unknown = sorted(set(pricing_model or ()) - {m.value for m in PricingModel})
    if unknown:
        raise fail(
            f"--pricing-model {unknown[0]!r} is not a pricing"
            f" model; use one of {', '.join(m.value for m in PricingModel)}"
        )
    with Warehouse.open(db, read_only=True, seed_check=check_price_file) as warehouse:
        frame = current_price_list(warehouse, provider, pricing_model)
    if output is OutputFormat.CSV:
        sys.stdout.write(safe_csv(frame).decode("utf-8"))
        return
    if output is OutputFormat.JSON:
        sys.stdout.write(frame.to_json(orient="records", date_format="iso", indent=1) + "\n")
        return
    if frame.empty:
        console.print(
            "No current price matches these filters; `tokendesk db info` lists snapshots."
        )
        return
    table = Grid(title=f"{len(frame):,} current price quotes")
    table.add_column("Provider · region · instance", priority=0, prose=True)
    table.add_column("Accelerators", priority=1)
    table.add_column("Pricing", priority=0)
    table.add_column("$/hour", priority=0, justify="right")
    table.add_column("Basis", priority=3)
    table.add_column("Price date", priority=1)
    table.add_column("Source", priority=4, prose=True)
    for row in frame.itertuples(index=False):
        zone = row.zone if isinstance(row.zone, str) else None
        table.add_row(
            terminal_text(sku_label(row.provider, row.region, row.instance_type, zone=zone)),
            terminal_text(f"{row.accelerator_count} × {row.accelerator_id}"),
            label(row.pricing_model),
            formatting.usd(row.usd_per_hour, 4),
            terminal_text(row.price_basis),
            formatting.day(row.observed_at),
            terminal_text(row.source),
        )
    print_table(console, table, more="--format csv")


def register(app: typer.Typer) -> None:
    """Mount ``prices`` on ``app`` (once)."""
    if not any(group.typer_instance is prices_app for group in app.registered_groups):
        app.add_typer(prices_app, name="prices")
