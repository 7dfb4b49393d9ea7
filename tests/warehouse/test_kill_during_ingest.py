"""kill -9 during ``db ingest`` of several files and providers, 20 times at random moments: each
time the warehouse holds either exactly its previous content (same digest) or the whole
command's content, never part of it."""

from __future__ import annotations

import hashlib
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.factories import kill_results_csv, seeded_warehouse
from tokendesk.paths import REPO_ROOT
from warehouse import Warehouse

PROVIDERS = ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf")
REGIONS = ("eu-1", "eu-2", "us-1", "us-2")
ROUNDS = 20


def _write_inputs(folder: Path) -> list[Path]:
    """Seven providers x four regions x 12 instance types in one price file, and a results file:
    one command writes eight snapshots."""
    header = (
        "provider,region,instance_type,accelerator_id,accelerator_count,pricing_model,"
        "usd_per_hour,source,observed_at\n"
    )
    rows = [
        f"{provider},{region},gpu{size}x8,nvidia-h100-sxm-80gb,8,on_demand,"
        f"{16 + size + index * 0.5:.2f},kill test sheet,2026-10-0{1 + index % 9}\n"
        for index, provider in enumerate(PROVIDERS)
        for region in REGIONS
        for size in range(12)
    ]
    prices = folder / "prices.csv"
    prices.write_text(header + "".join(rows), encoding="utf-8")
    results = kill_results_csv(folder / "results.csv", (1, 2, 4, 8, 16, 32, 64))
    return [prices, results]


def _state(path: Path) -> tuple[str, int, int, int]:
    """(content digest, good snapshots, price rows, result rows) after DuckDB's recovery."""
    with Warehouse.open(path) as warehouse:  # a writer open replays the write-ahead log
        digest = hashlib.sha256()
        for table in ("snapshots", "price_quotes", "benchmark_results", "integrity_checks"):
            frame = warehouse.query(f"SELECT * FROM {table} ORDER BY ALL")
            digest.update(frame.to_csv(index=False).encode())
        counts = warehouse.query(
            "SELECT (SELECT count(*) FROM snapshots WHERE status <> 'failed') AS snaps,"
            " (SELECT count(*) FROM price_quotes) AS prices,"
            " (SELECT count(*) FROM benchmark_results) AS results"
        ).iloc[0]
    return digest.hexdigest(), int(counts.snaps), int(counts.prices), int(counts.results)


def _ingest(db: Path, files: list[Path]) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "cli.main", "db", "ingest", *map(str, files), "--db", str(db)],
        cwd=REPO_ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "PYTHONHASHSEED": "0"},
    )


def test_kill_9_at_random_points_leaves_all_or_nothing(tmp_path):
    db = tmp_path / "w.duckdb"
    seeded_warehouse(db).close()
    files = _write_inputs(tmp_path)
    # One complete run on a copy measures the command's duration and what it adds.
    reference = tmp_path / "reference.duckdb"
    reference.write_bytes(db.read_bytes())
    _, snaps0, prices0, results0 = _state(reference)
    started = time.monotonic()
    assert _ingest(reference, files).wait(timeout=120) == 0
    duration = time.monotonic() - started
    _, snaps1, prices1, results1 = _state(reference)
    added = (snaps1 - snaps0, prices1 - prices0, results1 - results0)
    assert added == (len(PROVIDERS) + 1, len(PROVIDERS) * len(REGIONS) * 12, 7)

    rng = random.Random(20261201)
    outcomes = {"rolled back": 0, "committed": 0}
    killed = 0
    before = _state(db)
    for _ in range(ROUNDS):
        process = _ingest(db, files)
        time.sleep(rng.uniform(0.3, 1.1) * duration)
        if process.poll() is None:
            process.send_signal(signal.SIGKILL)
            killed += 1
        process.wait(timeout=60)
        after = _state(db)
        delta = (after[1] - before[1], after[2] - before[2], after[3] - before[3])
        if delta == (0, 0, 0):
            assert after[0] == before[0], "content changed although nothing was committed"
            outcomes["rolled back"] += 1
        else:
            assert delta == added, f"a partial ingest survived kill -9: {delta} of {added}"
            outcomes["committed"] += 1
        before = after
    assert sum(outcomes.values()) == ROUNDS
    assert killed >= 1, "no round was killed mid-run; the test proved nothing"
    print(f"kill -9 rounds: {ROUNDS}, killed mid-run: {killed}, outcomes: {outcomes}")
