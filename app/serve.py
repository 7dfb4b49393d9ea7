"""Start the Streamlit server with everything the pages import already imported.

``tokendesk app`` runs ``python -m app.serve run app/main.py …``, which is ``streamlit run``
preceded by one step: importing the libraries the dashboard's pages import (pandas, Plotly,
DuckDB, the cost model, the brief renderer …). Streamlit runs each page as a script, so without
this the first visitor of every server process pays those imports (several CPU seconds), and
every visitor arriving meanwhile waits behind Python's import lock. Here they are paid once,
before the server listens, so the health check answers only when a page can be served at once.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import logging
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


def main() -> None:
    warm()
    from streamlit.web import cli

    cli.main(prog_name="streamlit")


if __name__ == "__main__":
    main()
