"""`tokendesk --help` start-up time against a bare Python start, measured in the same run.

    .venv/bin/python perf/bench_cli_startup.py [--runs 15]

Runs each command in a fresh process (the way a person or CI does), ``--runs`` times after one
warm-up, interleaved, and prints the median wall and CPU time of: ``python -c pass`` (the floor),
``tokendesk --help`` and ``tokendesk db --help`` (one command's module imported), with the ratio of
each to the floor. Target: ``tokendesk --help`` within 0.5 s.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET_S = 0.5
COMMANDS = {
    "python -c pass": [sys.executable, "-c", "pass"],
    "tokendesk --help": [sys.executable, "-m", "cli.main", "--help"],
    "tokendesk db --help": [sys.executable, "-m", "cli.main", "db", "--help"],
}


def timed(command: list[str]) -> tuple[float, float]:
    """Wall seconds and CPU seconds (user + system) of one run in a fresh process. CPU time is
    what the command itself costs; wall time also counts waiting for a busy machine's cores."""
    env = {**os.environ, "COLUMNS": "100"}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, check=False)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed: {done.stderr.decode(errors='replace')}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return elapsed, cpu


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    runs = parser.parse_args().runs
    for command in COMMANDS.values():
        timed(command)  # warm the file cache and the bytecode
    samples: dict[str, list[tuple[float, float]]] = {name: [] for name in COMMANDS}
    for _ in range(runs):  # interleaved: a burst of load elsewhere hits every command alike
        for name, command in COMMANDS.items():
            samples[name].append(timed(command))
    wall = {n: statistics.median(w for w, _ in s) for n, s in samples.items()}
    cpu = {n: statistics.median(c for _, c in s) for n, s in samples.items()}
    print(
        f"{runs} runs each, interleaved, medians (fresh process; load average {os.getloadavg()[0]:.1f}):"
    )
    print(f"  {'command':<22} {'wall':>8} {'CPU':>8}   wall ÷ python -c pass")
    for name in COMMANDS:
        ratio = wall[name] / wall["python -c pass"]
        print(
            f"  {name:<22} {wall[name] * 1000:6.0f} ms {cpu[name] * 1000:6.0f} ms   {ratio:5.1f}×"
        )
    helped = wall["tokendesk --help"]
    verdict = "met" if helped <= TARGET_S else "NOT met (see the CPU column on a busy machine)"
    print(f"tokendesk --help: {helped:.3f} s wall (target ≤ {TARGET_S} s: {verdict})")


if __name__ == "__main__":
    main()
