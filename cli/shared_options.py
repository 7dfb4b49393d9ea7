"""Options several commands share, declared once."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

#: The warehouse a command reads or writes.
DbOption = Annotated[
    Path | None,
    typer.Option(
        "--db", help="Warehouse file (default: $TOKENDESK_DB or the per-user data directory)."
    ),
]


class OutputFormat(StrEnum):
    """How a listing command prints: a table for people, CSV or JSON for programs."""

    TABLE = "table"
    CSV = "csv"
    JSON = "json"


#: The ``--format`` option of a listing command.
FormatOption = Annotated[OutputFormat, typer.Option("--format", help="table, csv or json")]
