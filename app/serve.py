"""Start the Streamlit server with everything the pages import already imported.

``tokendesk app`` runs ``python -m app.serve --warehouse TARGET run app/main.py …``, which is
``streamlit run`` preceded by building or migrating the warehouse (``tokendesk db init``, in a
process of its own) and, meanwhile, importing the libraries the dashboard's pages import
(pandas, Plotly, DuckDB, the cost model, the brief renderer …). Streamlit runs each page as a
script, so without this the first visitor of every server process pays those imports (several
CPU seconds), and every visitor arriving meanwhile waits behind Python's import lock. Here they are paid once,
before the server listens, so the health check answers only when a page can be served at once.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import logging
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

APP = Path(__file__).resolve().parent
#: The scripts Streamlit runs: the entry point and every page.
SCRIPTS = (APP / "main.py", *sorted((APP / "views").glob("*.py")))


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
    migrates it, and the rest of ``argv`` (Streamlit's own arguments)."""
    if argv[:1] != ["--warehouse"] or len(argv) < 2:
        return None, argv
    init = [sys.executable, "-m", "cli.main", "db", "init", "--db", argv[1]]
    return init, argv[2:]


def main() -> None:
    """``python -m app.serve [--warehouse TARGET] run app/main.py …``.

    With ``--warehouse``, ``tokendesk db init`` builds or migrates the warehouse in a process of
    its own while this one imports the page libraries (the two overlap on a machine with two
    cores; building here would load the warehouse libraries twice, about 0.7 s, in series).
    A refused seed or a path that is not a warehouse stops the start with that command's own
    message and exit status: nothing listens."""
    init, streamlit_args = build_command(sys.argv[1:])
    building = subprocess.Popen(init, stdin=subprocess.DEVNULL) if init else None
    warm()
    if building is not None and building.wait() != 0:
        raise SystemExit(building.returncode)
    from streamlit.web import cli

    sys.argv = [sys.argv[0], *streamlit_args]
    cli.main(prog_name="streamlit")


if __name__ == "__main__":
    main()
