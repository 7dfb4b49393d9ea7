"""`tokendesk --help` start-up time against a bare Python start, measured in the same run.

    .venv/bin/python perf/bench_cli_startup.py [--runs 15]

Runs each command in a fresh process (the way a person or CI does), ``--runs`` times after one
warm-up, and prints the median wall time of: ``python -c pass`` (the floor), ``tokendesk --help``
and ``tokendesk db --help`` (one command's libraries imported), with the ratio of each to the
floor. Target: ``tokendesk --help`` within 0.5 s.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET_S = 0.5
COMMANDS = {
    "python -c pass": [sys.executable, "-c", "pass"],
    "tokendesk --help": [sys.executable, "-m", "tokendesk.cli", "--help"],
    "tokendesk db --help": [sys.executable, "-m", "tokendesk.cli", "db", "--help"],
}


def wall_seconds(command: list[str]) -> float:
    env = {**os.environ, "COLUMNS": "100"}
    start = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed: {done.stderr.decode(errors='replace')}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    runs = parser.parse_args().runs
    medians = {}
    for name, command in COMMANDS.items():
        wall_seconds(command)  # warm the file cache and the bytecode
        # Interleaving would spread the noise evenly; one command's runs back to back keep a
        # cold cache from landing on one side only, after the warm-up above.
        medians[name] = statistics.median(wall_seconds(command) for _ in range(runs))
    floor = medians["python -c pass"]
    print(f"{runs} runs each, median wall time (fresh process):")
    for name, seconds in medians.items():
        print(f"  {name:<22} {seconds * 1000:7.0f} ms   {seconds / floor:5.1f}× python -c pass")
    helped = medians["tokendesk --help"]
    verdict = "met" if helped <= TARGET_S else "NOT met"
    print(f"tokendesk --help: {helped:.3f} s (target ≤ {TARGET_S} s: {verdict})")


if __name__ == "__main__":
    main()
