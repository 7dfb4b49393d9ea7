"""One warehouse file, several processes: dashboard-like readers and concurrent writers.

Run: .venv/bin/python perf/bench_shared_warehouse.py                 (3 readers, 2 writers, 30 s)
     .venv/bin/python perf/bench_shared_warehouse.py --readers 3 --writers 2 --seconds 60

Each reader process opens the warehouse read-only once (as a dashboard process does) and, in a
loop, runs what a Costs page does uncached: ``count_options`` and ``cost_options`` inside one
``reading()`` block. Each writer process writes a price snapshot of 30 quotes, one transaction,
then pauses ``--pause`` seconds. Reported: reads and writes done, errors (any exception is one),
read-block time and write time (from the call to the commit, waiting included) as p50/p95/max,
the longest wait a writer reported, and lost snapshots (written ids missing afterwards).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pricing.integrity import check_price_file  # noqa: E402
from warehouse import Warehouse  # noqa: E402

READER = """
import json, sys, time
from warehouse import Warehouse, queries
path, seconds, out = sys.argv[1], float(sys.argv[2]), sys.argv[3]
times, errors = [], []
with Warehouse.open(path, read_only=True) as wh:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        start = time.perf_counter()
        try:
            with wh.reading():
                queries.count_options(wh)
                queries.cost_options(wh, limit=50)
            times.append(time.perf_counter() - start)
        except Exception as exc:
            errors.append(f"{type(exc).__name__}: {exc}")
json.dump({"times": times, "errors": errors}, open(out, "w"))
"""

WRITER = """
import json, sys, time
from datetime import UTC, datetime
from tests.test_records import quote
from warehouse import Warehouse
path, seconds, pause, name, out = sys.argv[1:6]
seconds, pause = float(seconds), float(pause)
times, waits, ids, errors = [], [], [], []
with Warehouse.open(path, on_wait=lambda w: waits.append(w.waited_s)) as wh:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        now = datetime.now(UTC)
        quotes = [quote(usd_per_hour=50.0 + i, region=f"r{i}", observed_at=now) for i in range(30)]
        start = time.perf_counter()
        try:
            ids.append(wh.ingest_prices(f"load:{name}", quotes, origin="test"))
            times.append(time.perf_counter() - start)
        except Exception as exc:
            errors.append(f"{type(exc).__name__}: {exc}")
        time.sleep(pause)
json.dump({"times": times, "waits": waits, "ids": ids, "errors": errors}, open(out, "w"))
"""


def percentiles(values: list[float]) -> str:
    if not values:
        return "n/a"
    ordered = sorted(values)

    def at(share: float) -> float:
        return ordered[min(len(ordered) - 1, int(share * len(ordered)))] * 1000

    return f"p50 {at(0.5):.0f} ms, p95 {at(0.95):.0f} ms, max {ordered[-1] * 1000:.0f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--readers", type=int, default=3)
    parser.add_argument("--writers", type=int, default=2)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument(
        "--pause", type=float, default=1.0, help="seconds between a writer's writes"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "shared.duckdb"
        Warehouse.open(path, seed_check=check_price_file).close()
        procs = []
        for i in range(args.readers):
            out = Path(tmp) / f"reader{i}.json"
            procs.append(("reader", out, _start(READER, path, args.seconds, out)))
        for i in range(args.writers):
            out = Path(tmp) / f"writer{i}.json"
            procs.append(
                ("writer", out, _start(WRITER, path, args.seconds, args.pause, f"w{i}", out))
            )
        for _, _, proc in procs:
            proc.wait()
        reads, writes, waits, ids, errors = [], [], [], [], []
        for role, out, proc in procs:
            if proc.returncode != 0 or not out.exists():
                errors.append(f"{role} exited {proc.returncode}")
                continue
            record = json.loads(out.read_text())
            errors += record["errors"]
            (reads if role == "reader" else writes).extend(record["times"])
            waits += record.get("waits", [])
            ids += record.get("ids", [])
        with Warehouse.open(path, read_only=True) as wh:
            stored = set(wh.snapshots()["snapshot_id"])
    lost = [snapshot for snapshot in ids if snapshot not in stored]
    print(f"{args.readers} reader processes, {args.writers} writer processes, {args.seconds:.0f} s")
    print(f"reads (count + cost options, one block): {len(reads)}; {percentiles(reads)}")
    print(f"writes (30-quote snapshot, wait included): {len(writes)}; {percentiles(writes)}")
    print(f"longest wait a writer reported: {max(waits, default=0.0):.2f} s")
    print(f"errors: {len(errors)}; lost snapshots: {len(lost)}")
    for error in errors[:5]:
        print("  ", error)


def _start(script: str, *args: object) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", script, *map(str, args)], cwd=ROOT)


if __name__ == "__main__":
    main()
