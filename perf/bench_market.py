"""The whole market against the curated seed, measured in the same run.

Run: .venv/bin/python perf/bench_market.py [--repeat 3]

Builds two warehouses from the bundled data: the **seed** (``data/`` without the market files:
the curated quotes and results alone) and the **market** (``data/`` as shipped: the cloud
catalog with its dated history and every public LLM result), then times on each, median of
``--repeat`` runs:

* **build**: ``tokendesk db init`` on a new path, what a first start pays (target ≤ 60 s);
* **scenarios**: ``tokendesk scenarios --format json`` on the example workspace, the whole
  command as a user runs it (target ≤ 5 s);
* **optimizer**: ``planning.optimal_plan.optimize`` over every priced option of the warehouse for the
  example workspace, in-process, after the options are read (target ≤ 2 s).

It prints each figure, the market ÷ seed ratio, the row counts, and the size of ``data/`` (target
≤ 50 MB). Figures from one run only mean something beside each other: this machine's speed moves
over minutes, so the seed is measured in the same run as the reference.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from planning.solution_store import SOLUTION_STORE_ENV  # noqa: E402
from tokendesk.paths import DATA_DIR_ENV  # noqa: E402
from warehouse.bundled import MARKET_PRICES, MARKET_RESULTS, PRICE_HISTORY  # noqa: E402

# Every plan here is solved in the run that times it, never read from an earlier run's kept
# answers (planning.solution_store).
os.environ[SOLUTION_STORE_ENV] = "off"

DATA = ROOT / "data"
TOKENDESK = [sys.executable, "-m", "cli.main"]
TARGETS = {"build": 60.0, "scenarios": 5.0, "optimizer": 2.0}
MARKET_FILES = (MARKET_PRICES, MARKET_RESULTS, PRICE_HISTORY)


def seed_only_copy(into: Path) -> Path:
    """``data/`` without the market files: the curated seed as it was before the market."""
    folder = into / "seed-data"
    shutil.copytree(DATA, folder, ignore=shutil.ignore_patterns(*MARKET_FILES))
    return folder


def timed(command: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if done.returncode not in (0, 1):  # scenarios exits 1 when a plan is infeasible
        raise SystemExit(f"{' '.join(command)} failed:\n{done.stderr[-2000:]}")
    return elapsed


def optimizer_seconds(db: Path, data: Path, repeat: int) -> tuple[float, int]:
    """Median seconds of one optimizer run over the warehouse's options, and how many options
    it chose among (measured in a child process that reads ``data`` as its bundled data)."""
    code = f"""
import os, statistics, time
from planning import workspaces as pw
from planning.optimal_plan import optimize
from pricing.integrity import check_price_file
ws, engine = pw.workspace_and_engine({str(db)!r}, None, check_price_file)
times = []
for _ in range({repeat}):
    start = time.perf_counter()
    optimize(engine, ws)
    times.append(time.perf_counter() - start)
print(statistics.median(times), len(engine.table.options))
"""
    env = {**os.environ, DATA_DIR_ENV: str(data)}
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True
    )
    if out.returncode:
        raise SystemExit(f"optimizer run failed:\n{out.stderr[-2000:]}")
    seconds, options = out.stdout.split()
    return float(seconds), int(options)


def measure(name: str, data: Path, scratch: Path, repeat: int) -> dict[str, float]:
    env = {**os.environ, DATA_DIR_ENV: str(data)}
    builds = []
    for run in range(repeat):
        db = scratch / f"{name}-{run}.duckdb"
        builds.append(timed([*TOKENDESK, "db", "init", "--db", str(db)], env))
    db = scratch / f"{name}-0.duckdb"
    scenarios = [
        timed([*TOKENDESK, "scenarios", "--format", "json", "--db", str(db)], env)
        for _ in range(repeat)
    ]
    optimizer, options = optimizer_seconds(db, data, repeat)
    init = [*TOKENDESK, "db", "init", "--db", str(db)]
    counts = subprocess.run(init, cwd=ROOT, env=env, capture_output=True, text=True).stdout
    print(f"{name}: {counts.strip()} ({options:,} priced options)")
    return {
        "build": statistics.median(builds),
        "scenarios": statistics.median(scenarios),
        "optimizer": optimizer,
    }


def folder_megabytes(folder: Path) -> float:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) / 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    present = [name for name in MARKET_FILES if (DATA / name).exists()]
    if not present:
        raise SystemExit(f"data/ has none of {', '.join(MARKET_FILES)}: nothing to compare")
    print(f"market files in data/: {', '.join(present)}")
    with tempfile.TemporaryDirectory(prefix="tokendesk-market-") as tmp:
        scratch = Path(tmp)
        seed = measure("seed", seed_only_copy(scratch), scratch, args.repeat)
        market = measure("market", DATA, scratch, args.repeat)
    print(f"\n{'':12}{'seed':>10}{'market':>10}{'ratio':>8}{'target':>9}")
    for key, target in TARGETS.items():
        verdict = "met" if market[key] <= target else "MISSED"
        print(
            f"{key:12}{seed[key]:>9.2f}s{market[key]:>9.2f}s{market[key] / seed[key]:>7.1f}x"
            f"{target:>7.0f} s  {verdict}"
        )
    size = folder_megabytes(DATA)
    print(f"data/ {size:.1f} MB (target ≤ 50 MB: {'met' if size <= 50 else 'MISSED'})")


if __name__ == "__main__":
    main()
