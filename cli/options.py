"""Options several commands share, declared once."""

from __future__ import annotations

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
