"""A command's standard output, read from a real process through a pipe, is exactly its JSON:
nothing a native library prints (the MILP solver's diagnostics) gets in front of it. CliRunner
only sees Python's sys.stdout, so this runs the command as a user's pipe would."""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_scenarios_json_through_a_pipe_is_valid_json(tmp_path):
    env = {**os.environ, "TOKENDESK_DB": str(tmp_path / "w.duckdb"), "HOME": str(tmp_path)}
    env.pop("COLUMNS", None)
    done = subprocess.run(
        [sys.executable, "-m", "cli.main", "scenarios", "--format", "json"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    plans = json.loads(done.stdout)  # fails on any line printed before the JSON
    assert {p["name"] for p in plans} >= {"Stay", "Optimal"}
