"""``tokendesk app``: start the dashboard (it becomes the Streamlit server)."""

from __future__ import annotations

import os
import socket
import sys
from pathlib import Path
from typing import Annotated

import typer

from cli.shared_options import DbOption
from tokendesk.paths import PUBLIC_URL_ENV, REPO_ROOT, default_db_path
from tokendesk.terminal import make_console

console = make_console()

#: Bind addresses that serve every interface: a link needs the machine's own name instead.
_ANY_ADDRESS = ("0.0.0.0", "::", "")


def served_address(host: str, port: int) -> str:
    """The address the dashboard is served on, as a browser reaches it."""
    if host in ("127.0.0.1", "localhost", "::1"):
        shown = "localhost"
    elif host in _ANY_ADDRESS:
        shown = socket.getfqdn()
    else:
        shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}"


def run_app(
    port: Annotated[int, typer.Option(min=1, max=65_535, help="Port to serve on.")] = 8501,
    host: Annotated[
        str,
        typer.Option(
            help="Address to bind. The default serves this machine only; the warehouse can hold "
            "negotiated quotes, so bind a wider address only with team sign-in configured (see "
            "--secrets) or behind your own access control."
        ),
    ] = "127.0.0.1",
    headless: Annotated[bool, typer.Option(help="Do not open a browser.")] = True,
    db: DbOption = None,
    secrets: Annotated[
        Path | None,
        typer.Option(
            exists=True,
            dir_okay=False,
            help="secrets.toml with the [auth] sign-in and [tokendesk] role settings (default:"
            " .streamlit/secrets.toml in the repository, then ~/.streamlit/secrets.toml).",
        ),
    ] = None,
    public_url: Annotated[
        str | None,
        typer.Option(
            "--public-url",
            envvar=PUBLIC_URL_ENV,
            help="The address people open the dashboard at (e.g. https://dash.example.com behind"
            " a proxy), which the briefs' links back to their view are built on (default: the"
            " address it is served on).",
        ),
    ] = None,
) -> None:
    """Start the dashboard (builds the warehouse from data/ on first start)."""
    target = db or default_db_path()
    # The pages (app/streamlit_app.py) behind the middleware that serves each download only to
    # the signed-in session that made it.
    entry = REPO_ROOT / "app" / "asgi.py"
    command = [
        sys.executable,
        "-m",
        # `streamlit run`, after building or migrating the warehouse (before the read-only app
        # opens it) and importing what the pages import, side by side.
        "app.serve",
        "--warehouse",
        str(target),
        "run",
        str(entry),
        "--server.address",
        host,
        "--server.port",
        str(port),
        "--server.headless",
        str(headless).lower(),
        "--browser.gatherUsageStats",
        "false",
        *(["--secrets.files", str(secrets.resolve())] if secrets is not None else []),
        "--",
        "--db",
        str(target),
    ]
    served = served_address(host, port)
    public = (public_url or "").strip().rstrip("/") or served
    # The server's briefs link back to this address (the server inherits the environment).
    os.environ[PUBLIC_URL_ENV] = public
    where = "" if public == served else f" (briefs link to {public})"
    console.print(f"Serving tokendesk on {served}{where}")
    sys.stdout.flush()
    sys.stderr.flush()
    # Become the Streamlit server rather than its parent: a SIGTERM to `tokendesk app` then
    # stops the server itself, and nothing is left listening behind a stopped parent.
    os.chdir(REPO_ROOT)
    os.execv(sys.executable, command)


def register(app: typer.Typer) -> None:
    """Mount ``app`` on ``app`` (once)."""
    if "app" not in {command.name for command in app.registered_commands}:
        app.command("app")(run_app)
