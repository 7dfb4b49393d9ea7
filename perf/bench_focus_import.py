"""Bill import: 1M FOCUS charge rows -> fleet lines + unplaced charges, against raw DuckDB SQL.

Run: .venv/bin/python perf/bench_focus_import.py                 (1,000,000 rows, ~330 MB in /tmp)
     .venv/bin/python perf/bench_focus_import.py --rows 200000 --keep

Writes a synthetic FOCUS 1.2 CSV with AWS's ``x_UsageType`` column: one month of hourly rows, a
tenth of them GPU instances the price data knows (p5.48xlarge reserved and on demand, g6e.xlarge
spot), the rest the long tail a real bill has (other EC2 types, storage, network, requests, each
with its own SKU description), plus tax and credit rows. Measured in the same run, median of
three:

* **import**: what ``tokendesk workspace from-bill`` does with the file (``planning.bill
  .read_bill``: read the header, resolve FOCUS columns, one grouped DuckDB scan with every value
  checked, then the fleet derivation in Python);
* **raw SQL**: the query a FinOps analyst writes by hand over the same file (billed cost by
  provider and service category, DuckDB's own type detection, no checks).

Also runs the whole command once (``from-bill --format json`` against a fresh warehouse: the
import plus Stay from the plan engine) and checks lines + unplaced = the file's total billed cost.
Target: the import of 1M rows under 30 s.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from planning import bill as bill_import  # noqa: E402
from pricing import focus  # noqa: E402
from tokendesk.paths import data_dir  # noqa: E402
from warehouse.focus_files import run_raw  # noqa: E402

DEFAULT_PATH = Path("/tmp/tokendesk-bench/focus_1m.csv")
TARGET_SECONDS = 30.0
HEADER = [
    "BillingAccountId",
    "BillingCurrency",
    "BillingPeriodStart",
    "BillingPeriodEnd",
    "ChargePeriodStart",
    "ChargePeriodEnd",
    "ChargeCategory",
    "ChargeClass",
    "ChargeFrequency",
    "ChargeDescription",
    "PricingCategory",
    "ProviderName",
    "PublisherName",
    "InvoiceId",
    "RegionId",
    "ServiceCategory",
    "ServiceName",
    "ResourceId",
    "SkuId",
    "SkuPriceDetails",
    "CommitmentDiscountId",
    "CommitmentDiscountType",
    "CommitmentDiscountCategory",
    "CommitmentDiscountStatus",
    "ConsumedQuantity",
    "ConsumedUnit",
    "BilledCost",
    "EffectiveCost",
    "ListCost",
    "x_UsageType",
]
RI = "arn:aws:ec2:us-east-1:111122223333:reserved-instances/ri-bench"
REGIONS = ("us-east-1", "us-west-2", "eu-west-1", "ap-south-1")
OTHER_TYPES = [
    f"{fam}.{size}"
    for fam in ("m5", "c5", "r5", "m6i", "c6i", "t3", "m6g", "i4i")
    for size in ("large", "xlarge", "2xlarge", "4xlarge")
]
SERVICES = [
    ("Storage", "Amazon Simple Storage Service", "GB-Mo", "per GB-Month of storage {i}"),
    ("Networking", "Amazon Virtual Private Cloud", "GB", "per GB data transfer {i}"),
    ("Databases", "Amazon Relational Database Service", "Hours", "per RDS db.r6g.{i} hour"),
    ("Integration", "Amazon Simple Queue Service", "Requests", "per million requests tier {i}"),
]


def _row(hour: int, rng: random.Random) -> list[str]:
    start = f"2026-10-{1 + hour // 24:02d}T{hour % 24:02d}:00:00Z"
    end_hour = hour + 1
    end = (
        "2026-11-01T00:00:00Z"
        if end_hour == 744
        else f"2026-10-{1 + end_hour // 24:02d}T{end_hour % 24:02d}:00:00Z"
    )
    base = ["111122223333", "USD", "2026-10-01T00:00:00Z", "2026-11-01T00:00:00Z", start, end]
    pick = rng.random()
    region = rng.choice(REGIONS)
    if pick < 0.04:  # reserved p5
        return [
            *base,
            "Usage",
            "",
            "Usage-Based",
            "p5.48xlarge reserved instance applied",
            "Committed",
            "AWS",
            "AWS",
            "INV-1",
            "us-east-1",
            "Compute",
            "Amazon Elastic Compute Cloud",
            f"i-p5r{rng.randrange(40)}",
            "SKU-P5",
            "",
            RI,
            "Reserved Instance",
            "Usage",
            "Used",
            "1",
            "Hours",
            "0",
            "31.46",
            "55.04",
            "USE1-BoxUsage:p5.48xlarge",
        ]
    if pick < 0.06:  # on-demand p5
        return [
            *base,
            "Usage",
            "",
            "Usage-Based",
            "$55.04 per On Demand Linux p5.48xlarge Instance Hour",
            "Standard",
            "AWS",
            "AWS",
            "INV-1",
            "us-east-1",
            "Compute",
            "Amazon Elastic Compute Cloud",
            f"i-p5o{rng.randrange(20)}",
            "SKU-P5",
            "",
            "",
            "",
            "",
            "",
            "1",
            "Hours",
            "55.04",
            "55.04",
            "55.04",
            "USE1-BoxUsage:p5.48xlarge",
        ]
    if pick < 0.10:  # spot g6e
        price = f"{rng.uniform(0.7, 1.1):.4f}"
        return [
            *base,
            "Usage",
            "",
            "Usage-Based",
            "Spot instance hours",
            "Dynamic",
            "AWS",
            "AWS",
            "INV-1",
            "us-east-1",
            "Compute",
            "Amazon Elastic Compute Cloud",
            f"i-g6e{rng.randrange(60)}",
            "SKU-G6E",
            '{"InstanceType": "g6e.xlarge"}',
            "",
            "",
            "",
            "",
            "1",
            "Hours",
            price,
            price,
            "1.861",
            "USE1-SpotUsage:g6e.xlarge",
        ]
    if pick < 0.45:  # other EC2
        itype = rng.choice(OTHER_TYPES)
        price = f"{rng.choice((0.085, 0.17, 0.34, 0.68)):.3f}"
        return [
            *base,
            "Usage",
            "",
            "Usage-Based",
            f"${price} per On Demand Linux {itype} Instance Hour",
            "Standard",
            "AWS",
            "AWS",
            "INV-1",
            region,
            "Compute",
            "Amazon Elastic Compute Cloud",
            f"i-{rng.randrange(10**6):06d}",
            f"SKU-{itype}",
            "",
            "",
            "",
            "",
            "",
            "1",
            "Hours",
            price,
            price,
            price,
            f"BoxUsage:{itype}",
        ]
    if pick < 0.9995:
        category, service, unit, text = rng.choice(SERVICES)
        qty = rng.uniform(0.001, 50)
        cost = f"{qty * 0.02:.8f}"
        return [
            *base,
            "Usage",
            "",
            "Usage-Based",
            "$0.02 " + text.format(i=rng.randrange(40)),
            "Standard",
            "AWS",
            "AWS",
            "INV-1",
            region,
            category,
            service,
            f"res-{rng.randrange(10**5)}",
            f"SKU-{service[:6]}",
            "",
            "",
            "",
            "",
            "",
            f"{qty:.6f}",
            unit,
            cost,
            cost,
            cost,
            f"{unit}-usage",
        ]
    kind = rng.choice(("Tax", "Credit"))
    row = [*base, kind, "", "One-Time", kind.lower(), "", "AWS", "AWS", "INV-1"]
    row += [""] * (len(HEADER) - len(row))  # no service, SKU or quantity, as real exports
    row[HEADER.index("BilledCost")] = row[HEADER.index("EffectiveCost")] = (
        "12.50" if kind == "Tax" else "-3.00"
    )
    return row


def write_bill(path: Path, rows: int) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    rng = random.Random(7)
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(HEADER)
        for i in range(rows):
            writer.writerow(_row(i * 744 // rows, rng))


def shapes() -> dict[tuple[str, str], focus.InstanceShape]:
    """The bundled price data's instance types (what a fresh warehouse's quotes hold)."""
    with (data_dir() / "seed_prices.csv").open(newline="", encoding="utf-8") as handle:
        return {
            (r["provider"], r["instance_type"]): focus.InstanceShape(
                r["accelerator_id"], int(r["accelerator_count"])
            )
            for r in csv.DictReader(handle)
        }


def median_seconds(fn, repeats: int = 3) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def whole_command(path: Path) -> tuple[float, dict]:
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "bench.duckdb"
        cli = [sys.executable, "-c", "from cli.main import main; main()"]
        subprocess.run([*cli, "db", "init", "--db", str(db)], check=True, capture_output=True)
        start = time.perf_counter()
        out = subprocess.run(
            [*cli, "workspace", "from-bill", str(path), "--db", str(db), "--format", "json"],
            check=True,
            capture_output=True,
            cwd=ROOT,
        )
        return time.perf_counter() - start, json.loads(out.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--path", type=Path, default=DEFAULT_PATH)
    parser.add_argument("--keep", action="store_true", help="keep the file for another run")
    args = parser.parse_args()
    if not (args.keep and args.path.exists()):
        start = time.perf_counter()
        write_bill(args.path, args.rows)
        print(
            f"wrote {args.rows:,} rows, {args.path.stat().st_size / 1e6:,.0f} MB"
            f" in {time.perf_counter() - start:.1f} s"
        )
    known = shapes()
    raw_s, raw = median_seconds(lambda: run_raw(args.path))
    import_s, bill = median_seconds(lambda: bill_import.read_bill([args.path], known))
    assert isinstance(bill, focus.BillFleet) and isinstance(raw, list)
    raw_total = sum(float(r[2] or 0) for r in raw)
    accounted = sum(ln.billed_usd for ln in bill.fleet_lines()) + sum(
        u.cost_usd for u in bill.unplaced
    )
    command_s, report = whole_command(args.path)
    print(f"cpu cores: {os.cpu_count()}; rows: {bill.files[0].rows:,}")
    print(f"raw DuckDB SQL (billed cost by provider and service): {raw_s:6.2f} s  (median of 3)")
    print(f"import (read_bill: columns, checks, grouping, fleet): {import_s:6.2f} s  (median of 3)")
    print(f"whole command (from-bill --format json, with Stay):  {command_s:6.2f} s  (one run)")
    print(f"ratio import / raw SQL: {import_s / raw_s:.2f}")
    print(
        f"fleet lines: {len(bill.fleet_lines())}; unplaced reasons: {len(bill.unplaced)};"
        f" lines + unplaced ${accounted:,.2f} vs raw total ${raw_total:,.2f}"
    )
    print(
        f"reconciliation: bill ${report['reconciliation']['bill_usd']:,.2f},"
        f" Stay month 1 ${report['reconciliation']['stay_month1_usd']:,.2f}"
    )
    ok = abs(accounted - raw_total) < 0.01 and import_s < TARGET_SECONDS
    print(
        f"target: import < {TARGET_SECONDS:.0f} s and every dollar accounted for:"
        f" {'met' if ok else 'NOT met'}"
    )
    if not args.keep:
        args.path.unlink()


if __name__ == "__main__":
    main()
