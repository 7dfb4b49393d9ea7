"""The dashboard's server start: what it imports before listening, and its server settings."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

from app.serve import SCRIPTS, imported_modules

ROOT = Path(__file__).resolve().parents[2]


def test_the_modules_of_a_script_are_its_top_level_imports_and_their_submodules(tmp_path):
    script = tmp_path / "page.py"
    script.write_text(
        textwrap.dedent(
            """
            from __future__ import annotations
            import json
            from datetime import UTC
            from app import charts, data
            from app.models.tables import readable
            from . import sibling

            def later():
                import csv
            """
        ),
        encoding="utf-8",
    )
    assert imported_modules([script]) == [
        "json",
        "datetime",
        "app",
        "app.charts",
        "app.data",
        "app.models.tables",
    ]


def test_every_page_library_is_among_the_modules_imported_before_the_server_starts():
    names = imported_modules(SCRIPTS)
    assert {"pandas", "plotly.graph_objects", "app.data", "app.charts", "costmodel.optimizer"} <= (
        set(names)
    )
    assert len(names) == len(set(names))


def test_warming_imports_them_in_a_fresh_interpreter_without_a_warning():
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from app.serve import warm; warm();"
            " print('plotly.graph_objects' in sys.modules, 'app.charts' in sys.modules)",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    )
    assert done.stdout.split() == ["True", "True"]
    assert "WARNING" not in done.stderr, done.stderr


def test_the_server_neither_watches_sources_nor_collects_garbage_after_every_page_run():
    settings = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    assert settings["server"]["fileWatcherType"] == "none"
    assert settings["runner"]["postScriptGC"] is False
