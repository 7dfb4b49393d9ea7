"""How every command stops on an error: one message on stderr, then the exit code.

The message is escaped for the terminal (``tokendesk.textsafety.terminal_text``): a file name, a
server's answer or a workspace field quoted in it can carry rich ``[markup]``, escape sequences or
a secret, and none of them reaches the screen as such.
"""

from __future__ import annotations

import typer

from tokendesk.terminal import make_console
from tokendesk.textsafety import terminal_text

err = make_console(stderr=True)


def fail(message: str, code: int = 2, *, label: str = "error") -> typer.Exit:
    """Print ``label: message`` (the label in red; no label: the message alone) on stderr and
    return the exit to raise: ``raise fail("--format is table or json")``.

    Exit codes as everywhere in ``tokendesk``: 2 bad input or usage, 1 failed or partial.
    ``message`` is the plain text (never pre-escaped: it is escaped here, once)."""
    prefix = f"[red]{label}:[/red] " if label else ""
    err.print(prefix + terminal_text(message), highlight=False)
    return typer.Exit(code)
