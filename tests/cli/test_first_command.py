"""Any command may be the first one a new install runs: each that reads the warehouse finds it
whole or builds it from the bundled data, and never leaves a new file empty for the commands
after it."""

import json

import pytest
from typer.testing import CliRunner

from cli.main import app

runner = CliRunner()

#: Commands that read the warehouse, as a new user might type them first (the --db goes last).
FIRST_COMMANDS = [
    ["optimize", "--format", "json"],
    ["scenarios", "--format", "json"],
    ["commit", "--format", "json"],
    ["costs", "--format", "json", "--limit", "1"],
    ["prices", "list", "--format", "json"],
    ["bench", "results", "--format", "json"],
    ["db", "info", "--format", "json"],
]


@pytest.mark.parametrize("command", FIRST_COMMANDS, ids=lambda c: " ".join(c[:2]))
def test_a_first_command_builds_the_warehouse_from_the_bundled_data(tmp_path, command):
    db = tmp_path / "new" / "tokendesk.duckdb"
    first = runner.invoke(app, [*command, "--db", str(db)])
    assert "Traceback" not in first.output
    info = runner.invoke(app, ["db", "info", "--db", str(db), "--format", "json"])
    assert info.exit_code == 0, info.output
    snapshots = json.loads(info.stdout)
    kinds = {s["kind"] for s in snapshots if s["row_count"] > 0}
    assert {"prices", "benchmarks"} <= kinds, f"{command[0]} left the warehouse without data"
    prices = runner.invoke(app, ["prices", "list", "--db", str(db), "--format", "json"])
    assert json.loads(prices.stdout), "no current price after the first command"
