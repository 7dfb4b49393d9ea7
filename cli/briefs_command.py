"""``tokendesk brief``, ``tokendesk gate`` and ``tokendesk futures compare | decide | close | log``.

Mount at top level from ``cli.main._register_subcommands``::

    from cli.briefs_command import register
    register(app)
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from datetime import date
from pathlib import Path
from typing import Annotated
from urllib.parse import parse_qsl, urlparse

import typer
from rich.console import Console

from briefs import gate as g
from briefs.document import Document, scenarios_address
from briefs.document import table as doc_table
from briefs.render import FORMATS, _md_table, render_document
from briefs.review_doc import futures_document
from briefs.terminal_doc import print_document
from briefs.workspace_plans import workspace_document
from cli.exits import fail
from cli.shared_options import DbOption
from planning import evaluation as pe
from planning import fleet as pf
from planning import gate_inputs as gi
from planning import regression_gate as rg
from planning import what_ifs as si
from planning import workspaces as pw
from planning.review import (
    FuturesRules,
    company_review,
    compare_warehouse,
    default_window,
    report_json,
)
from pricing.integrity import check_price_file
from tokendesk import formatting, jsontext
from tokendesk.exports import safe_csv
from tokendesk.paths import default_db_path
from tokendesk.terminal import Grid, make_console, print_table
from tokendesk.units import parse_fraction
from warehouse import Warehouse
from warehouse.as_of import (
    accelerator_hour_prices,
    price_snapshots_as_of,
    results_as_of,
    snapshot_results,
)
from warehouse.decisions import (
    Decision,
    DecisionError,
    ReviewClosing,
    close_review,
    decisions,
    last_review,
    record_decision,
)
from warehouse.queries import TooManyPlanningOptions

console = make_console()
err = make_console(stderr=True)

futures_app = typer.Typer(
    help="Quarterly futures day: what changed between two dates, and the decision log.",
    no_args_is_help=True,
)


BaseUrlOption = Annotated[
    str | None,
    typer.Option(
        "--base-url",
        help="The dashboard's Scenarios page address for the brief's link back to its view"
        " (default: $TOKENDESK_BASE_URL, else $TOKENDESK_PUBLIC_URL/scenarios, else the --link's"
        " own address; with none, the brief says how to open the view instead).",
    ),
]


def page_address(base_url: str | None, link: str | None) -> str | None:
    """Where the brief's link back points: --base-url, else the settings
    (``briefs.document.scenarios_address``), else the address of the --link the view came
    from (the dashboard it was copied from); None: the brief says how to open the view."""
    address = scenarios_address(base_url)
    if address is None and link:
        parts = urlparse(link.strip())
        if parts.scheme in ("http", "https") and parts.netloc:
            address = f"{parts.scheme}://{parts.netloc}{parts.path}"
    return address


UnitOption = Annotated[
    str | None,
    typer.Option(
        "--unit",
        help="Quote every cost per token per 1K (1k) or per 1M (1m) tokens, as the dashboard's "
        "switch does (default: the --link's unit, else 1k).",
    ),
]


def token_unit(option: str | None, params: Mapping[str, str]) -> str:
    """The token unit a document quotes: --unit, else the dashboard link's, else the default."""
    unit = option or params.get(formatting.TOKEN_UNIT_KEY) or formatting.DEFAULT_TOKEN_UNIT
    unit = unit.strip().lower()
    if unit not in formatting.TOKEN_UNITS:
        where = "--unit" if option else f"the link's {formatting.TOKEN_UNIT_KEY}="
        raise fail(f"{where} {unit!r}: choose one of {', '.join(formatting.TOKEN_UNITS)}")
    return unit


def output_path(output: Path | None, file_name: str, fmt: str) -> Path | None:
    """Where a document goes: ``-`` is stdout; a folder gets the document's own file name; with
    no ``-o`` a binary format (pdf, xlsx) is written to that name here, text goes to stdout."""
    if output is not None and str(output) == "-":
        return None
    if output is None:
        return Path(file_name) if fmt in ("pdf", "xlsx") else None
    if output.is_dir():
        return output / file_name
    return output


def _write(data: bytes, output: Path | None) -> None:
    if output is None or str(output) == "-":
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
    else:
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_bytes(data)
        err.print(f"wrote {output} ({len(data):,} bytes)")


def brief(
    fmt: Annotated[str, typer.Option("--format", help="md, html, pdf, xlsx or csv")] = "md",
    output: Annotated[
        Path | None, typer.Option("-o", "--output", help="Output file (default: stdout).")
    ] = None,
    link: Annotated[
        str | None,
        typer.Option(help="A dashboard link whose inputs the brief uses (its URL keys)."),
    ] = None,
    setting: Annotated[
        list[str] | None,
        typer.Option(
            "--set",
            help="An input as key=value, the dashboard's URL keys "
            "(out_b, in_b, small_b, inter, peak, slo, pct, amd, cpu, util, "
            "rate, model, custom); repeatable, wins over --link.",
        ),
    ] = None,
    unit: UnitOption = None,
    base_url: BaseUrlOption = None,
    db: DbOption = None,
) -> None:
    """A market-wide buy/no-buy brief: the same evaluation and document as a company's
    (``tokendesk scenarios``), for a company with no fleet yet and the demand of the inputs
    (model class, tokens per month, SLO …) — what buying every token at market prices costs,
    against moving shares of it to other vendors."""

    fmt = fmt.lower()
    if fmt not in FORMATS:
        raise fail(f"--format {fmt!r}: choose one of {', '.join(FORMATS)}")
    params: dict[str, str] = dict(parse_qsl(urlparse(link).query)) if link else {}
    for item in setting or ():
        key, sep, value = item.partition("=")
        if not sep or key.strip() not in si.TABLE:
            raise fail(
                f"--set {item!r}: expected key=value with a key among the dashboard's inputs"
            )
        params[key.strip()] = value.strip()
    if "spot" in params:
        raise fail(
            "spot: the brief serves every token at the SLO on the capacity it sizes (batch"
            " traffic included), so spot capacity is not an input of it; leave spot out"
        )
    unit = token_unit(unit, params)
    inputs, rejected = si.from_params(params)
    if rejected:
        raise fail(" ".join(r.notice for r in rejected))
    ws, knobs = pw.market_workspace(inputs), pw.market_knobs(inputs)
    try:
        with Warehouse.open(db, read_only=True, seed_check=check_price_file) as warehouse:
            options, engine = pw.planned_on(warehouse, ws)
            snapshots = warehouse.snapshots()
    except TooManyPlanningOptions as exc:
        raise fail(str(exc)) from None
    # The same engine as ``scenarios``: the optimal fleet is ranked with the other plans.
    results = pe.evaluate(engine, ws, knobs)
    doc = workspace_document(
        results,
        ws,
        knobs,
        page_address(base_url, link),
        unit=unit,
        options=options,
        snapshots=snapshots,
    )
    _write(render_document(doc, fmt), output_path(output, doc.file_name(fmt), fmt))


def gate(
    baseline: Annotated[
        str,
        typer.Option(
            help="Baseline results: harness .json, results .csv, importer file or snapshot:<id>."
        ),
    ],
    candidate: Annotated[str, typer.Option(help="Candidate results, same forms as --baseline.")],
    max_cost_regression: Annotated[
        str, typer.Option(help="Fail above this cost regression.")
    ] = "10%",
    max_ftl_regression: Annotated[
        str, typer.Option(help="Fail above this FTL regression.")
    ] = "10%",
    exceptions: Annotated[
        Path | None, typer.Option(help="YAML exceptions: match, metric, reason, expires_on.")
    ] = None,
    markdown: Annotated[
        Path | None, typer.Option("--markdown", help="Write the PR-comment summary here.")
    ] = None,
    junit: Annotated[Path | None, typer.Option("--junit", help="Write JUnit XML here.")] = None,
    today: Annotated[
        str | None, typer.Option(help="Date exceptions are checked against (default: today).")
    ] = None,
    no_prices: Annotated[
        bool, typer.Option("--no-prices", help="Skip the warehouse; cost = inverse throughput.")
    ] = False,
    db: DbOption = None,
) -> None:
    """Fail (exit 1) if any backend regresses more than the limits in cost or FTL without an
    exception; exit 2 on bad input."""

    try:
        limits = (parse_fraction(max_cost_regression), parse_fraction(max_ftl_regression))
        check_day = date.fromisoformat(today) if today else date.today()
    except ValueError as exc:
        raise fail(str(exc)) from None
    warehouse = None
    prices: dict[str, float] = {}
    fleet_prices: dict[str, float] = {}
    needs_db = baseline.startswith("snapshot:") or candidate.startswith("snapshot:")
    try:
        if needs_db or not no_prices:
            # Prices are read from a whole warehouse, built first when there is none (or its
            # build stopped part way): never from an empty one, which would price nothing.
            warehouse = Warehouse.open(
                db or default_db_path(), read_only=True, seed_check=check_price_file
            )
        if warehouse is not None and not no_prices:
            table = accelerator_hour_prices(warehouse)
            prices = dict(
                zip(table["accelerator_id"], table["usd_per_accelerator_hour"], strict=True)
            )
            # Accelerators the company runs are priced at what it pays (the workspace's fleet).
            _, ws = pw.stored_workspace(warehouse)
            fleet_prices = pf.fleet_accelerator_hour_prices(pw.engine_for(warehouse, ws), ws)
            prices.update(fleet_prices)
        loader = None
        if warehouse is not None:
            loader = lambda sid: snapshot_results(warehouse, sid)  # noqa: E731
        base_frame = gi.load_result_set(baseline, loader)
        cand_frame = gi.load_result_set(candidate, loader)
        rules = gi.load_exceptions(exceptions) if exceptions else []
    except gi.GateInputError as exc:
        raise fail(f"{exc.path}: key {exc.key}: {exc.reason}", label="bad input") from None
    except TooManyPlanningOptions as exc:
        raise fail(str(exc)) from None
    finally:
        if warehouse is not None:
            warehouse.close()
    report = rg.compare_results(
        base_frame,
        cand_frame,
        max_cost_regression=limits[0],
        max_ftl_regression=limits[1],
        prices=prices,
        exceptions=rules,
        today=check_day,
        baseline_label=baseline,
        candidate_label=candidate,
        price_note=(
            "Accelerators your fleet runs are priced at the rate you pay: "
            + ", ".join(f"{acc} ${usd:,.4f}/accelerator-hour" for acc, usd in fleet_prices.items())
            + " (the workspace)."
            if fleet_prices
            else ""
        ),
    )
    text = g.markdown(report)
    if markdown is not None:
        markdown.parent.mkdir(parents=True, exist_ok=True)
        markdown.write_text(text, encoding="utf-8")
    if junit is not None:
        junit.parent.mkdir(parents=True, exist_ok=True)
        junit.write_bytes(g.junit_xml(report))
    sys.stdout.write(text)
    raise typer.Exit(report.exit_code)


@futures_app.command("compare")
def futures_compare(
    date_from: Annotated[
        str,
        typer.Option(
            "--from",
            help="Earlier date (YYYY-MM-DD); default: since the last review (the latest recorded"
            " review or decision, else the oldest snapshot).",
        ),
    ] = "",
    date_to: Annotated[
        str, typer.Option("--to", help="Later date (YYYY-MM-DD); default today.")
    ] = "",
    fmt: Annotated[
        str,
        typer.Option(
            "--format",
            help="text (fitted to the terminal; plain lines when piped), md, html, pdf, xlsx,"
            " csv or json",
        ),
    ] = "text",
    output: Annotated[
        Path | None, typer.Option("-o", "--output", help="Output file (default: stdout).")
    ] = None,
    incumbent: Annotated[
        list[str] | None, typer.Option(help="Incumbent backend (repeatable); default cuda.")
    ] = None,
    min_savings: Annotated[
        str, typer.Option(help="Suggest buy only if cheaper than the incumbent by more than this.")
    ] = "10%",
    max_ftl_regression: Annotated[
        str, typer.Option(help="…and FTL no worse than the incumbent by more than this.")
    ] = "10%",
    db: DbOption = None,
) -> None:
    """New and removed SKUs, price changes, perf/$ per accelerator, stale benchmarks and buy/no-buy
    suggestions for new SKUs between two dates, with the decision log."""

    if fmt.lower() not in ("text", *FORMATS, "json"):
        raise fail(f"--format {fmt!r}: choose one of text, {', '.join(FORMATS)}, json")
    try:
        start = date.fromisoformat(date_from) if date_from else None
        end = date.fromisoformat(date_to) if date_to else date.today()
        rules = FuturesRules(
            tuple(incumbent or ("cuda",)),
            parse_fraction(min_savings),
            parse_fraction(max_ftl_regression),
        )
        with Warehouse.open(db, read_only=True, seed_check=check_price_file) as warehouse:
            if start is None:
                start = _since_last_review(warehouse, end)
            # The incumbent is the company's own fleet at its own rates (the workspace), unless
            # incumbent backends are named.
            review = compare_warehouse if incumbent else company_review
            report = review(warehouse, start, end, rules)
    except ValueError as exc:
        raise fail(str(exc)) from None
    if fmt.lower() == "json":
        text = jsontext.dumps(report_json(report)) + "\n"
        _write(text.encode("utf-8"), output)
        return
    if fmt.lower() == "text":
        _print_text(futures_document(report), output)
        return
    _write(render_document(futures_document(report), fmt.lower()), output)


def _print_text(doc: Document, output: Path | None) -> None:
    """``doc`` for a person: fitted to the terminal, or plain lines into a pipe or a file."""
    if output is None or str(output) == "-":
        print_document(console, doc)
        return
    output.parent.mkdir(parents=True, exist_ok=True)
    with output.open("w", encoding="utf-8") as file:
        print_document(Console(file=file, color_system=None), doc)
    err.print(f"wrote {output} ({output.stat().st_size:,} bytes)")


def _since_last_review(warehouse: Warehouse, end: date) -> date:
    """The default start of a comparison, said in a sentence on stderr (stdout is the report);
    a ValueError saying why when there is nothing to compare."""
    window = default_window(last_review(warehouse), end)
    if window.start is None:
        raise ValueError(f"nothing to compare: {window.why}; give --from YYYY-MM-DD")
    err.print(
        f"Comparing since {window.start.isoformat()}, {window.why}; --from YYYY-MM-DD picks"
        " another date.",
        highlight=False,
    )
    return window.start


@futures_app.command("decide")
def futures_decide(
    subject: Annotated[str, typer.Option(help="What was decided on: a SKU, scenario or backend.")],
    decision: Annotated[str, typer.Option(help="buy, no-buy or defer")],
    rationale: Annotated[str, typer.Option(help="Why.")],
    by: Annotated[str, typer.Option("--by", help="Who decided.")],
    decided_on: Annotated[
        str, typer.Option("--on", help="Decision date (YYYY-MM-DD); default today.")
    ] = "",
    review_from: Annotated[
        str, typer.Option("--from", help="Earlier date of the review; its snapshots are linked.")
    ] = "",
    review_to: Annotated[
        str, typer.Option("--to", help="Later date of the review; its snapshots are linked.")
    ] = "",
    snapshot: Annotated[
        list[str] | None, typer.Option(help="Extra snapshot id to link (repeatable).")
    ] = None,
    supersedes: Annotated[
        int | None, typer.Option(help="Id of an earlier decision this one replaces.")
    ] = None,
    db: DbOption = None,
) -> None:
    """Append a decision to the warehouse's decision log (append-only)."""

    try:
        start = date.fromisoformat(review_from) if review_from else None
        end = date.fromisoformat(review_to) if review_to else None
        with Warehouse.open(db, seed_check=check_price_file) as warehouse:
            ids = list(snapshot or [])
            for day in (d for d in (start, end) if d is not None):
                ids += list(price_snapshots_as_of(warehouse, day)["snapshot_id"])
                ids += list(results_as_of(warehouse, day)["snapshot_id"].unique())
            record = Decision(
                subject,
                decision.lower(),
                rationale,
                by,
                date.fromisoformat(decided_on) if decided_on else date.today(),
                tuple(dict.fromkeys(ids)),
                start,
                end,
                supersedes,
            )
            decision_id = record_decision(warehouse, record)
    except (ValueError, DecisionError) as exc:
        raise fail(str(exc)) from None
    console.print(
        f"decision {decision_id} recorded: {subject} → {decision} "
        f"({len(record.snapshot_ids)} snapshots linked)"
    )


@futures_app.command("close")
def futures_close(
    by: Annotated[str, typer.Option("--by", help="Who closes the review.")],
    review_to: Annotated[
        str, typer.Option("--to", help="The day the review ends (YYYY-MM-DD); default today.")
    ] = "",
    review_from: Annotated[
        str, typer.Option("--from", help="The day the review started (YYYY-MM-DD), if known.")
    ] = "",
    note: Annotated[str, typer.Option(help="What the review concluded, in a line.")] = "",
    db: DbOption = None,
) -> None:
    """Close the review on purpose: the next `futures compare` without --from starts where it
    ended. Recording decisions does not close a review."""

    try:
        closing = ReviewClosing(
            date.fromisoformat(review_to) if review_to else date.today(),
            by,
            date.fromisoformat(review_from) if review_from else None,
            note,
        )
        with Warehouse.open(db, seed_check=check_price_file) as warehouse:
            close_review(warehouse, closing)
    except (ValueError, DecisionError) as exc:
        raise fail(str(exc)) from None
    console.print(
        f"review closed on {closing.review_to.isoformat()}: the next `futures compare` without"
        " --from starts there"
    )


@futures_app.command("log")
def futures_log(
    fmt: Annotated[str, typer.Option("--format", help="table, md or csv")] = "table",
    db: DbOption = None,
) -> None:
    """Show the decision log, oldest first."""

    with Warehouse.open(db, read_only=True, seed_check=check_price_file) as warehouse:
        log = decisions(warehouse)
    log["snapshot_ids"] = log["snapshot_ids"].map(lambda v: ", ".join(v) if v is not None else "")
    if fmt == "csv":
        sys.stdout.write(safe_csv(log).decode("utf-8"))
        return
    if log.empty:
        console.print("No decisions recorded yet: `tokendesk futures decide` appends one.")
        return
    if fmt == "md":
        sys.stdout.write("\n".join(_md_table(doc_table("Decision log", log))) + "\n")
        return
    out = Grid(title=f"{len(log)} decisions")
    for header, priority, prose in (
        ("id", 0, False),
        ("decided", 0, False),
        ("subject", 0, False),
        ("decision", 0, False),
        ("rationale", 1, True),
        ("by", 2, False),
        ("review", 3, False),
        ("snapshots", 4, False),
        ("superseded by", 2, False),
    ):
        out.add_column(header, priority=priority, prose=prose)
    for row in log.itertuples():
        review = (
            f"{row.review_from or ''} → {row.review_to or ''}"
            if row.review_from is not None or row.review_to is not None
            else ""
        )
        out.add_row(
            str(row.decision_id),
            str(row.decided_on)[:10],
            row.subject,
            row.decision,
            row.rationale,
            row.decided_by,
            review.replace("NaT", ""),
            str(len(row.snapshot_ids.split(", ")) if row.snapshot_ids else 0),
            ""
            if row.superseded_by != row.superseded_by or row.superseded_by is None
            else str(int(row.superseded_by)),
        )
    print_table(console, out, more="--format csv")


def register(app: typer.Typer) -> None:
    """Mount ``brief``, ``gate`` and the ``futures`` group on the top-level app (once)."""
    if any(group.typer_instance is futures_app for group in app.registered_groups):
        return
    app.command("brief")(brief)
    app.command("gate")(gate)
    app.add_typer(futures_app, name="futures")
