"""Start the Streamlit server, and import the pages' libraries beside it.

``tokendesk app`` runs ``python -m app.serve --warehouse TARGET run app/asgi.py …``: ``streamlit run``
(``app/asgi.py`` serves ``app/streamlit_app.py`` behind ``app.download_guard``) preceded by
building or migrating the warehouse (``tokendesk db init``, in a process of its own). Streamlit
runs each page as a script, so without warming the first visitor of every server process pays the
imports of pandas, Plotly, DuckDB, the cost model and the brief renderer (several CPU seconds).
Here a thread imports them while the server starts and the visitor's browser loads the
dashboard's own scripts: first what the entry point and the Overview (the page a visitor lands on)
import — a page run that begins before those are done waits for them (``app.warming``) — then,
while that first page runs, the other pages' libraries.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import logging
import subprocess
import sys
import threading
import time
from collections.abc import Iterable
from pathlib import Path

from app import warming

APP = Path(__file__).resolve().parent
#: The scripts Streamlit runs: the entry point and every page.
SCRIPTS = (APP / "streamlit_app.py", *sorted((APP / "views").glob("*.py")))
#: How long the other pages' imports wait for a first visitor's page to have run.
FIRST_VISIT_WAIT_S = 30.0
#: What the first page run of a visit needs: the entry point and the default page.
FIRST_RUN = (APP / "streamlit_app.py", APP / "views" / "overview.py")


def imported_modules(scripts: Iterable[Path]) -> list[str]:
    """Every module the scripts import at their top level, in order, each once.

    ``from package import name`` counts ``package.name`` too when that is a module of its own
    (``from app import charts``), since importing the package alone would not load it.
    """
    names: list[str] = []
    for script in scripts:
        for node in ast.parse(script.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.Import):
                names.extend(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names.append(node.module)
                names.extend(
                    f"{node.module}.{alias.name}"
                    for alias in node.names
                    if _is_module(f"{node.module}.{alias.name}")
                )
    return list(dict.fromkeys(name for name in names if name != "__future__"))


def _is_module(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):  # the parent is a module, not a package
        return False


def warm(scripts: Iterable[Path] = SCRIPTS) -> None:
    # Before the server exists, each ``st.cache_data`` declaration logs that it found no runtime
    # to check its settings against; its cache is made at its first call, inside the runtime.
    importlib.import_module("streamlit")  # which sets its loggers' levels
    checks = logging.getLogger("streamlit.runtime.caching.cache_data_api")
    level = checks.level
    checks.setLevel(logging.ERROR)
    try:
        for name in imported_modules(scripts):
            importlib.import_module(name)
    finally:
        checks.setLevel(level)


def build_command(argv: list[str]) -> tuple[list[str] | None, list[str]]:
    """``--warehouse TARGET`` at the front of ``argv``: the ``tokendesk db init`` that builds or
    migrates it (None when it has nothing to do: its process costs the start about 1.3
    CPU-seconds to find so), and the rest of ``argv`` (Streamlit's own arguments)."""
    if argv[:1] != ["--warehouse"] or len(argv) < 2:
        return None, argv
    from warehouse.files import is_up_to_date

    if is_up_to_date(argv[1]):
        print(f"Warehouse up to date at {argv[1]}.", flush=True)
        return None, argv[2:]
    # The server's own first page solves the plans while the browser loads, so the build does
    # not solve them ahead (that would hold the server back until it had).
    init = [sys.executable, "-m", "cli.main", "db", "init", "--db", argv[1], "--no-solve-ahead"]
    return init, argv[2:]


def skip_component_scan() -> None:
    """Streamlit looks through every installed distribution's files for custom components when
    its server starts (0.5–0.8 s here, 145 distributions). The dashboard uses none, so the
    server is told there are none to find."""
    from streamlit.components.v2 import manifest_scanner

    manifest_scanner.scan_component_manifests = _no_component_manifests


def skip_repl_check() -> None:
    """Before the first element it draws in a process, Streamlit checks whether it runs in a
    Python prompt, by reading the source of every frame on the stack (0.2–0.3 s of the first
    visitor's page). A server started here never does, so the check is marked as made."""
    from streamlit import delta_generator

    delta_generator._use_warning_has_been_displayed = True


def _no_component_manifests(max_workers: int | None = None) -> list:
    return []


def _warm_in_background() -> None:
    warming.begin()

    def run() -> None:
        # A failed import or read is met again, with its own error, by the page that needs it.
        try:
            warm(FIRST_RUN)
            _prepare_first_page()
        finally:
            warming.finish()
        warming.wait_for_a_page(timeout=FIRST_VISIT_WAIT_S)
        warm()  # the other pages' libraries, once the first page has run

    threading.Thread(target=run, name="tokendesk-warm", daemon=True).start()


def _prepare_first_page() -> None:
    """The first page's reads (``app.plan_reads.prepare``), made while the browser loads the
    dashboard, once the server's runtime exists to keep them in its caches."""
    from streamlit.runtime import Runtime

    from app import data, plan_reads

    while not Runtime.exists():
        time.sleep(0.02)
    # Streamlit warns of each cached call made outside a page run; this one is meant to be.
    checks = logging.getLogger("streamlit.runtime.scriptrunner_utils.script_run_context")
    level = checks.level
    checks.setLevel(logging.ERROR)
    try:
        plan_reads.prepare(data.db_path())
    except Exception:  # the first page reads again, and says what went wrong
        pass
    finally:
        checks.setLevel(level)


def _import_the_server() -> None:
    """The server's own modules, imported here before the warming thread starts, so the two
    threads never import one package's modules at once."""
    for name in (
        "streamlit",
        "streamlit.web.cli",
        "streamlit.web.bootstrap",
        "streamlit.web.server.starlette.starlette_server",
    ):
        importlib.import_module(name)


def main() -> None:
    """``python -m app.serve [--warehouse TARGET] run app/asgi.py …``.

    With ``--warehouse``, ``tokendesk db init`` builds or migrates the warehouse in a process of
    its own while this one imports. A refused seed or a path that is not a warehouse stops the
    start with that command's own message and exit status before the server listens."""
    init, streamlit_args = build_command(sys.argv[1:])
    building = subprocess.Popen(init, stdin=subprocess.DEVNULL) if init else None
    _import_the_server()
    skip_component_scan()
    skip_repl_check()
    _warm_in_background()
    if building is not None and building.wait() != 0:
        raise SystemExit(building.returncode)
    from streamlit.web import cli

    sys.argv = [sys.argv[0], *streamlit_args]
    cli.main(prog_name="streamlit")


if __name__ == "__main__":
    main()
