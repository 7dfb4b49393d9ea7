"""`retract`: take back a benchmark import or a price file ingested by hand. One command, registered
as both `tokendesk bench retract` and `tokendesk db retract`; its libraries load when it runs, so
either group's help stays light."""

from __future__ import annotations

from typing import Annotated

import typer

from cli.exits import fail
from cli.shared_options import DbOption
from tokendesk.terminal import make_console
from tokendesk.textsafety import terminal_text

console = make_console()


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
    """Retract a benchmark import or a price file ingested by hand: its results (or prices)
    leave the current ones and every cost; a retracted price's previous price is current again.

    Nothing is deleted: a retraction marker (reason, who, when) is appended, and the snapshot
    stays in the history with it. Retracting an unknown or already retracted snapshot is
    refused (exit 2) and changes nothing."""

    from pricing.integrity import check_price_file
    from tokendesk.access import local_user_name
    from warehouse import RetractionError, Warehouse

    who = by if by is not None else local_user_name()
    try:
        with Warehouse.open(db, seed_check=check_price_file) as wh:
            when = wh.retract_snapshot(snapshot_id, reason, who)
            counts = wh.query(
                "SELECT (SELECT count(*) FROM benchmark_results WHERE snapshot_id = $1) AS results,"
                " (SELECT count(*) FROM price_quotes WHERE snapshot_id = $1) AS prices",
                [snapshot_id.strip()],
            ).iloc[0]
    except RetractionError as exc:
        raise fail(str(exc)) from exc
    rows = (
        f"{int(counts['prices'])} price(s)"
        if int(counts["prices"])
        else f"{int(counts['results'])} result(s)"
    )
    console.print(
        f"retracted snapshot {terminal_text(snapshot_id.strip())} ({rows}) on "
        f"{when:%Y-%m-%d %H:%M} UTC by {terminal_text(who)}: {terminal_text(reason.strip())}",
        highlight=False,
    )
