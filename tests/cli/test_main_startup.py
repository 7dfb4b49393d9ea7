"""`tokendesk --help` loads no command's libraries: each command imports them when it runs."""

from __future__ import annotations

import json
import subprocess
import sys

from tokendesk.paths import REPO_ROOT

#: Libraries only some commands need; importing the CLI or printing its help loads none of them.
HEAVY = ("scipy", "reportlab", "pandas", "numpy", "duckdb", "streamlit", "openpyxl", "plotly")

PROBE = """
import json, sys
from cli.main import main
try:
    main(["--help"])
except SystemExit:
    pass
heavy = sorted({m.split(".")[0] for m in sys.modules} & set(sys.argv[1:]))
print(json.dumps(heavy))
"""


def test_importing_the_cli_and_printing_its_help_loads_no_heavy_library():
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *HEAVY],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO_ROOT,
    )
    assert done.returncode == 0, done.stderr
    *help_lines, loaded = done.stdout.strip().splitlines()
    assert json.loads(loaded) == []
    help_text = "\n".join(help_lines)
    for command in ("costs", "db", "prices", "bench", "brief", "futures", "workspace", "optimize"):
        assert command in help_text


def test_each_listed_line_fits_80_columns_and_names_a_real_command():
    from cli.main import COMMANDS, load_command

    for name, (_, line) in COMMANDS.items():
        assert len(line) <= 60, line
        assert load_command(name).name == name


def test_every_listed_command_loads_and_runs_its_own_help():
    from typer.testing import CliRunner

    from cli.main import COMMANDS, app

    runner = CliRunner()
    for name in COMMANDS:
        done = runner.invoke(app, [name, "--help"])
        assert done.exit_code == 0, (name, done.output)
        assert "Usage" in done.output


def test_a_commands_own_help_loads_none_of_its_libraries_either():
    probe = PROBE.replace('main(["--help"])', 'main(["db", "migrate", "--help"])')
    done = subprocess.run(
        [sys.executable, "-c", probe, *HEAVY],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO_ROOT,
    )
    assert done.returncode == 0, done.stderr
    *help_lines, loaded = done.stdout.strip().splitlines()
    assert json.loads(loaded) == []
    from warehouse.lake import DATA_PATH_ENV

    assert f"${DATA_PATH_ENV}" in "".join(help_lines).replace(" ", "")


EXEC_PROBE = """
import json, os, sys
from cli.main import main

def become(path, argv):  # where `tokendesk app` would become the server: what it loaded so far
    heavy = sorted({m.split(".")[0] for m in sys.modules} & set(sys.argv[2:]))
    print(json.dumps({"heavy": heavy, "argv": argv[1:4]}))
    raise SystemExit(0)

os.execv = become
main(["app", "--port", "8599", "--db", sys.argv[1]])
"""


def test_tokendesk_app_becomes_the_server_without_loading_a_library_first(tmp_path):
    done = subprocess.run(
        [sys.executable, "-c", EXEC_PROBE, str(tmp_path / "w.duckdb"), *HEAVY],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO_ROOT,
    )
    assert done.returncode == 0, done.stderr
    loaded = json.loads(done.stdout.strip().splitlines()[-1])
    assert loaded == {"heavy": [], "argv": ["-m", "app.serve", "--warehouse"]}
