"""Price file ingest at 100k, 300k and 1M rows: time and peak memory of ``tokendesk db ingest``,
against a raw DuckDB ``read_csv`` + ``INSERT`` of the same file measured in the same run.

Run: .venv/bin/python perf/bench_price_ingest.py                 (100k, 300k, 1M rows; ~10 min)
     .venv/bin/python perf/bench_price_ingest.py --rows 20000 --rows 60000   (a smoke run)
     .venv/bin/python perf/bench_price_ingest.py --rows 100000 --rows 1000000 --ingest-only
                                       (the ingest and its reference only, not the commands after)

For each size it writes a deterministic file of valid quotes (a price-sheet-shaped CSV, every
row a distinct item: on-demand and spot prices of made-up instance types on accelerators the
bundled results cover, so the cost join after it is real), builds a fresh warehouse with
``tokendesk db init``, and then runs, each in its own process (peak RSS from that process's
``wait4`` rusage; wall time of the whole command, interpreter start-up included):

* ``tokendesk db ingest FILE`` (the real command path);
* the reference: a plain DuckDB process that reads the file with ``read_csv`` (explicit column
  types) and inserts it into a table of the same shape in a new database file.

After the largest size it also times the commands a user runs next on that warehouse:
``costs --format json`` (unfiltered, then narrowed), ``costs`` as a table, ``db info``,
``prices integrity``, ``scenarios``, ``optimize``, the options the scenario engine is built
from (with how many the pruning leaves), and what the Costs and Prices pages read. Results go to
``perf/out/bench_price_ingest.json`` too.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from planning.solution_store import SOLUTION_STORE_ENV

# Every plan here is solved in the run that times it, never read from an earlier run's kept
# answers (planning.solution_store).
os.environ[SOLUTION_STORE_ENV] = "off"

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "perf" / "out" / "bench_price_ingest.json"
DEFAULT_ROWS = (100_000, 300_000, 1_000_000)
#: Peak RSS of the ingest may differ by at most this much between the smallest and largest file.
FLAT_WITHIN = 0.20

HEADER = (
    "provider,region,instance_type,accelerator_id,accelerator_count,pricing_model,"
    "usd_per_hour,source,observed_at"
)
#: Accelerators the bundled results measure, with an on-demand price per accelerator-hour.
ACCELERATORS = (
    ("nvidia-h200-141gb", 4.6),
    ("amd-mi300x-192gb", 3.4),
    ("intel-gaudi2-96gb", 1.6),
)
REGIONS = 40


def write_quotes(path: Path, rows: int) -> int:
    """``rows`` valid quotes (deterministic): pairs of on-demand and spot prices (spot at 40%),
    one pair per made-up 8-accelerator instance type and region. Returns the file's bytes."""
    with path.open("w", encoding="utf-8", newline="") as handle:
        handle.write(HEADER + "\n")
        for n in range(rows):
            item, spot = divmod(n, 2)
            accelerator, per_hour = ACCELERATORS[item % len(ACCELERATORS)]
            region = f"r{item % REGIONS}"
            instance = f"i{item // REGIONS}.8x"
            usd = round(per_hour * 8 * (0.4 if spot else 1.0) * (1 + (item % 97) / 400), 4)
            model = "spot" if spot else "on_demand"
            handle.write(f"b,{region},{instance},{accelerator},8,{model},{usd},s,2026-11-01\n")
    return path.stat().st_size


RAW_INGEST = """
import sys, duckdb
csv_path, db_path = sys.argv[1], sys.argv[2]
con = duckdb.connect(db_path)
con.execute('''CREATE TABLE price_quotes (
    price_id BIGINT PRIMARY KEY, snapshot_id VARCHAR NOT NULL, provider VARCHAR NOT NULL,
    region VARCHAR NOT NULL, zone VARCHAR, instance_type VARCHAR NOT NULL,
    accelerator_id VARCHAR NOT NULL, accelerator_count INTEGER NOT NULL, vcpus INTEGER,
    memory_gib DOUBLE, pricing_model VARCHAR NOT NULL, usd_per_hour DOUBLE NOT NULL,
    price_basis VARCHAR NOT NULL, source VARCHAR NOT NULL, source_url VARCHAR NOT NULL,
    observed_at TIMESTAMP, confidence VARCHAR NOT NULL, notes VARCHAR NOT NULL)''')
con.execute('''INSERT INTO price_quotes
    SELECT row_number() OVER (), 'raw', provider, region, NULL, instance_type, accelerator_id,
           accelerator_count, NULL, NULL, pricing_model, usd_per_hour, 'instance', source, '',
           observed_at, '', ''
    FROM read_csv(?, header = true, columns = {
        'provider': 'VARCHAR', 'region': 'VARCHAR', 'instance_type': 'VARCHAR',
        'accelerator_id': 'VARCHAR', 'accelerator_count': 'INTEGER',
        'pricing_model': 'VARCHAR', 'usd_per_hour': 'DOUBLE', 'source': 'VARCHAR',
        'observed_at': 'TIMESTAMP'})''', [csv_path])
con.close()
"""


def measure(
    command: list[str], stdout=subprocess.DEVNULL, limit_s: float = 600, limit_mib: int = 4096
) -> dict:
    """Run ``command``; its wall time, peak RSS (its own process) and exit status. A command
    still running after ``limit_s``, or holding more than ``limit_mib`` (the machine is shared),
    is stopped: exit -9, and ``stopped`` says why."""
    start = time.perf_counter()
    proc = subprocess.Popen(command, cwd=ROOT, stdout=stdout, stderr=subprocess.PIPE)
    stopped = ""
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if not stopped and time.perf_counter() - start > limit_s:
            stopped = f"still running after {limit_s:.0f} s"
        elif not stopped and _rss_mib(proc.pid) > limit_mib:
            stopped = f"held more than {limit_mib:,} MiB"
        if stopped:
            proc.kill()
        time.sleep(0.1)
    seconds = time.perf_counter() - start
    stderr = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    return {
        "seconds": round(seconds, 2),
        "peak_rss_mib": round(usage.ru_maxrss / 1024),  # KiB on Linux
        "exit": os.waitstatus_to_exitcode(status),
        "stopped": stopped,
        "stderr_tail": stderr[-400:],
    }


def _rss_mib(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def page_data(db: Path, reads: str) -> list[str]:
    """A process that opens ``db`` as the dashboard does and runs ``reads`` (``q``: the
    warehouse's cost-join queries, ``cq``: its browsing pages' queries, ``w``: the warehouse)."""
    code = (
        "import sys; from warehouse import Warehouse; import warehouse.queries as q\n"
        "import warehouse.catalog_queries as cq\n"
        "with Warehouse.open(sys.argv[1], read_only=True) as w, w.reading():\n"
        f"    {reads}"
    )
    return [sys.executable, "-c", code, str(db)]


def cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "cli.main", *args]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, action="append", help="file size(s) in rows")
    parser.add_argument(
        "--ingest-only",
        action="store_true",
        help="time the ingest and the raw SQL reference only, not the commands after the largest",
    )
    args = parser.parse_args()
    sizes = args.rows or list(DEFAULT_ROWS)
    results: dict = {"ingest": [], "after_largest": {}}
    print(f"load average at the start: {os.getloadavg()}", flush=True)
    with tempfile.TemporaryDirectory(prefix="tokendesk-bench-ingest-") as folder:
        work = Path(folder)
        for rows in sizes:
            sheet = work / f"quotes_{rows}.csv"
            size = write_quotes(sheet, rows)
            db = work / f"w_{rows}.duckdb"
            subprocess.run(
                cli("db", "init", "--db", str(db)), cwd=ROOT, check=True, capture_output=True
            )
            sheet.read_bytes()  # page cache warm for both sides
            ours = measure(cli("db", "ingest", str(sheet), "--db", str(db)))
            raw = measure(
                [sys.executable, "-c", RAW_INGEST, str(sheet), str(work / f"raw_{rows}.duckdb")]
            )
            entry = {
                "rows": rows,
                "file_mb": round(size / 1e6, 1),
                "ours": ours,
                "raw_sql": raw,
                "time_ratio": round(ours["seconds"] / raw["seconds"], 1),
                "rss_ratio": round(ours["peak_rss_mib"] / raw["peak_rss_mib"], 2),
            }
            results["ingest"].append(entry)
            print(
                f"{rows:>9,} rows {entry['file_mb']:>6} MB | ours {ours['seconds']:>6.1f} s"
                f" {ours['peak_rss_mib']:>5} MiB (exit {ours['exit']}) | raw SQL"
                f" {raw['seconds']:>5.1f} s {raw['peak_rss_mib']:>5} MiB | ratio time"
                f" {entry['time_ratio']}x, RSS {entry['rss_ratio']}x",
                flush=True,
            )
            if ours["exit"] != 0:
                print(ours["stderr_tail"])
                return 1
        largest = db
        after = (
            {}
            if args.ingest_only
            else {
                "costs --format json": cli("costs", "--format", "json", "--db", str(largest)),
                "costs --format json --region r1 --accelerator amd-mi300x-192gb": cli(
                    "costs",
                    "--format",
                    "json",
                    "--region",
                    "r1",
                    "--accelerator",
                    "amd-mi300x-192gb",
                    "--db",
                    str(largest),
                ),
                "costs --limit 20 (table)": cli("costs", "--limit", "20", "--db", str(largest)),
                "db info": cli("db", "info", "--db", str(largest)),
                "prices integrity (current prices)": cli(
                    "prices", "integrity", "--db", str(largest)
                ),
                "scenarios (example workspace)": cli("scenarios", "--db", str(largest)),
                "optimize (example workspace)": cli("optimize", "--db", str(largest)),
                # The options the engine is built from, and how many the pruning leaves (printed).
                "planning options (counted)": page_data(
                    largest,
                    "f = q.planning_options(w, keep_instance_types=['p5.48xlarge', 'g6e.xlarge']);"
                    " print(f'{q.count_options(w)} joined, {len(f)} planned on,"
                    " {f.price_id.nunique()} quotes of {q.count_current_prices(w)}')",
                ),
                # What the dashboard's pages read (app/data.py, app/price_reads.py), no rendering.
                "Costs page data (count + the 2,000 cheapest)": page_data(
                    largest,
                    "n = q.count_options(w); f = q.cost_options(w, limit=2000, ftl_percentile='p95')",
                ),
                "Prices page data (explorer page, summary, filter values, pickers)": page_data(
                    largest,
                    "f = cq.price_explorer(w, limit=500); s = cq.price_explorer_summary(w);"
                    " v = cq.current_price_values(w); d = cq.price_sku_spread(w);"
                    " a = cq.accelerator_hour_offer(w);"
                    " c = cq.price_explorer(w, limit=200, current_only=True,"
                    " order_by_accelerator_hour=True, accelerator='nvidia-h200-141gb')",
                ),
                # The reference: every quote the explorer matches, as the page read it before it
                # paged in SQL.
                "every explorer quote (the unpaged read, reference)": page_data(
                    largest, "f = cq.price_explorer(w)"
                ),
                "Prices page data (price_skus)": page_data(largest, "f = cq.price_skus(w)"),
            }
        )
        for name, command in after.items():
            with (work / "out.txt").open("wb") as sink:
                measured = measure(command, stdout=sink)
            measured["stdout_bytes"] = (work / "out.txt").stat().st_size
            if name.endswith("(counted)"):
                measured["printed"] = (work / "out.txt").read_text(encoding="utf-8").strip()
            results["after_largest"][name] = measured
            print(
                f"after {sizes[-1]:,} rows: {name}: {measured['seconds']:.1f} s,"
                f" {measured['peak_rss_mib']} MiB, exit {measured['exit']},"
                f" {measured['stdout_bytes']:,} bytes out"
                + (f" | {measured['printed']}" if "printed" in measured else "")
                + (f" | stopped: {measured['stopped']}" if measured["stopped"] else "")
                + (f" | {measured['stderr_tail'].strip()[:200]}" if measured["exit"] else ""),
                flush=True,
            )
    peaks = [e["ours"]["peak_rss_mib"] for e in results["ingest"]]
    spread = max(peaks) / min(peaks) - 1
    results["rss_spread"] = round(spread, 3)
    print(f"load average at the end: {os.getloadavg()}")
    print(
        f"peak RSS spread across sizes: {spread:+.0%} (target within {FLAT_WITHIN:.0%}:"
        f" {'met' if spread <= FLAT_WITHIN else 'NOT met'})"
    )
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
