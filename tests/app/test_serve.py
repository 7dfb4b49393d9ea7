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
    assert {"pandas", "app.data", "app.charts", "costmodel.optimizer"} <= set(names)
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


def test_no_installed_package_has_a_component_for_the_skipped_scan_to_find(monkeypatch):
    """The server is told there are no custom components to find: the real scan, run here on
    the same environment, finds none, and once app.serve has said so the server's discovery
    lists no installed distribution at all."""
    import importlib.metadata

    from streamlit.components.v2 import manifest_scanner
    from streamlit.components.v2.component_manager import BidiComponentManager

    from app import serve

    assert manifest_scanner.scan_component_manifests() == []
    listed = []
    real = importlib.metadata.distributions
    monkeypatch.setattr(importlib.metadata, "distributions", lambda: listed.append(1) or real())
    monkeypatch.setattr(
        manifest_scanner, "scan_component_manifests", manifest_scanner.scan_component_manifests
    )
    BidiComponentManager().discover_and_register_components(start_file_watching=False)
    assert listed  # the stock discovery lists them
    listed.clear()
    serve.skip_component_scan()
    BidiComponentManager().discover_and_register_components(start_file_watching=False)
    assert listed == []


def test_a_page_run_waits_for_the_start_up_imports_and_only_for_them():
    import threading

    from app import warming

    warming.wait()  # nothing under way: returns at once
    warming.begin()
    ran = threading.Event()
    page = threading.Thread(target=lambda: (warming.wait(), ran.set()))
    page.start()
    assert not ran.wait(0.2)  # still importing: the page waits
    warming.finish()
    assert ran.wait(30)
    page.join()


def test_a_served_process_skips_the_prompt_check_that_reads_every_frames_source():
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "from streamlit import delta_generator as d; from app.serve import skip_repl_check;"
            " before = d._use_warning_has_been_displayed; skip_repl_check();"
            " print(before, d._use_warning_has_been_displayed)",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    )
    assert done.stdout.split() == ["False", "True"]


def test_the_first_page_run_waits_for_its_own_libraries_not_for_the_documents_ones():
    """The Overview's imports (what a visitor's first page run waits for) leave the PDF and
    workbook libraries to the pages that make documents."""
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from app.serve import FIRST_RUN, warm; warm(FIRST_RUN);"
            " print(*(m in sys.modules for m in ('plotly.graph_objects', 'briefs.workspace_plans',"
            " 'reportlab', 'openpyxl', 'briefs.render')))",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    )
    assert done.stdout.split() == ["True", "True", "False", "False", "False"]
