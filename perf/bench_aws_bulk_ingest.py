"""AWS bulk price file ingest: DuckDB-streamed parse vs a plain csv.DictReader filter loop.

Run: .venv/bin/python perf/bench_aws_bulk_ingest.py            (about 2.2M rows, ~1.3 GB in /tmp)
     .venv/bin/python perf/bench_aws_bulk_ingest.py --rows 200000 --keep

Writes a synthetic ``index.csv`` with the real header (AmazonEC2, 2025-09) and the five
disclaimer lines, every non-empty field quoted like the real file, where well under 1% of rows
are Linux/shared/used compute rows of the families we price (the real ratio). Each method runs
in its own subprocess so its peak RSS is its own (os.wait4 rusage). Both must produce the same
quotes. Target: DuckDB >= 5x faster and peak RSS <= 1.5 GiB.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import random
import subprocess
import sys
import time
from collections import defaultdict
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pricing.aws import ALL_FAMILIES  # noqa: E402
from pricing.aws_bulk import (  # noqa: E402
    BULK_HEADER,
    DISCLAIMER_LINES,
    parse_bulk_csv,
    parse_bulk_rows,
)

DEFAULT_PATH = Path("/tmp/tokendesk-bench/index.csv")
MIN_BYTES = 1 << 30
TARGET_SPEEDUP = 5.0
TARGET_RSS_GIB = 1.5
NOW = datetime(2026, 9, 1, tzinfo=UTC)

PRICED = [
    "p5en.48xlarge",
    "p5.48xlarge",
    "p4d.24xlarge",
    "g6e.12xlarge",
    "g6e.xlarge",
    "inf2.48xlarge",
    "trn1.32xlarge",
    "c7i.48xlarge",
    "c7i.24xlarge",
    "m7i.16xlarge",
    "c8g.48xlarge",
]
OTHER = [
    f"{fam}.{size}"
    for fam in ("m5", "c5", "r5", "m6i", "c6i", "r6i", "t3", "m6g", "c6g", "x2idn", "i4i", "z1d")
    for size in ("large", "xlarge", "2xlarge", "4xlarge", "8xlarge", "16xlarge")
]
OS = ["Linux", "Windows", "RHEL", "SUSE", "Red Hat Enterprise Linux with HA", "Ubuntu Pro"]
VCPU = {
    "48xlarge": "192",
    "24xlarge": "96",
    "16xlarge": "64",
    "12xlarge": "48",
    "32xlarge": "128",
    "xlarge": "4",
}


def _line(values: dict[str, str]) -> str:
    return ",".join(f'"{values[c]}"' if values.get(c) else "" for c in BULK_HEADER)


def _row(rng: random.Random, n: int, priced: bool) -> str:
    instance = rng.choice(PRICED if priced else OTHER)
    size = instance.split(".", 1)[1]
    term_type = rng.choice(["OnDemand", "Reserved", "Reserved"])
    os_ = "Linux" if priced else rng.choice(OS)
    sku = f"SKU{n:013d}"
    values = {
        "SKU": sku,
        "OfferTermCode": "JRTCKXETXF" if term_type == "OnDemand" else "6QCMYABX3D",
        "RateCode": f"{sku}.JRTCKXETXF.6YS6EN2CT7",
        "TermType": term_type,
        "PriceDescription": f"${rng.random() * 90:.4f} per {os_} {instance} Instance Hour",
        "EffectiveDate": "2026-08-01",
        "StartingRange": "0",
        "EndingRange": "Inf",
        "Unit": "Hrs",
        "PricePerUnit": f"{rng.random() * 90 + 0.01:.10f}",
        "Currency": "USD",
        "LeaseContractLength": "" if term_type == "OnDemand" else rng.choice(["1yr", "3yr"]),
        "PurchaseOption": ""
        if term_type == "OnDemand"
        else rng.choice(["No Upfront", "Partial Upfront", "All Upfront"]),
        "OfferingClass": "" if term_type == "OnDemand" else rng.choice(["standard", "convertible"]),
        "Product Family": "Compute Instance",
        "serviceCode": "AmazonEC2",
        "Location": "US East (N. Virginia)",
        "Location Type": "AWS Region",
        "Instance Type": instance,
        "Current Generation": "Yes",
        "Instance Family": "General purpose",
        "vCPU": VCPU.get(size, "8"),
        "Physical Processor": "Intel Xeon Platinum 8488C",
        "Clock Speed": "3.2 GHz",
        "Memory": "384 GiB",
        "Storage": "EBS only",
        "Network Performance": "Up to 12500 Megabit",
        "Processor Architecture": "64-bit",
        "Tenancy": "Shared" if priced else rng.choice(["Shared", "Dedicated", "Host"]),
        "EBS Optimized": "Yes",
        "Operating System": os_,
        "License Model": "No License required",
        "usageType": f"BoxUsage:{instance}",
        "operation": "RunInstances",
        "AvailabilityZone": "NA",
        "CapacityStatus": "Used"
        if priced
        else rng.choice(["Used", "UnusedCapacityReservation", "AllocatedCapacityReservation"]),
        "ClassicNetworkingSupport": "false",
        "Dedicated EBS Throughput": "Up to 10000 Mbps",
        "ECU": "NA",
        "Enhanced Networking Supported": "Yes",
        "GPU": "8" if instance.startswith("p") else "",
        "Intel AVX2 Available": "Yes",
        "Intel AVX Available": "Yes",
        "Intel Turbo Available": "Yes",
        "MarketOption": "OnDemand",
        "Normalization Size Factor": "64",
        "Physical Cores": "48",
        "Pre Installed S/W": "NA"
        if priced
        else rng.choice(["NA", "SQL Web", "SQL Std", "SQL Ent"]),
        "Processor Features": "Intel AMX; Intel AVX; Intel AVX2; Intel AVX512; Intel Turbo",
        "Region Code": "us-east-1",
        "serviceName": "Amazon Elastic Compute Cloud",
        "VPCNetworkingSupport": "true",
    }
    return _line(values)


def generate(path: Path, rows: int, seed: int = 7) -> tuple[int, int]:
    """Write the synthetic file; returns (rows, bytes). Priced rows are ~0.3% like the real file."""
    rng = random.Random(seed)
    path.parent.mkdir(parents=True, exist_ok=True)
    # A pool of distinct unpriced rows, re-emitted with fresh SKUs: generation stays fast.
    pool = [_row(rng, i, priced=False) for i in range(4000)]
    with path.open("w", encoding="utf-8", newline="") as handle:
        handle.write(
            '"FormatVersion","v1.0"\n"Disclaimer","This pricing list is for informational purposes only."\n'
        )
        handle.write(
            '"Publication Date","2026-08-28T19:07:23Z"\n"Version","20260828190723"\n"OfferCode","AmazonEC2"\n'
        )
        handle.write(",".join(f'"{c}"' for c in BULK_HEADER) + "\n")
        batch: list[str] = []
        for n in range(rows):
            if n % 331 == 0:
                batch.append(_row(rng, n, priced=True))
            else:
                line = pool[n % len(pool)]
                batch.append(f'"SKU{n:013d}"' + line[line.index(",") :])
            if len(batch) >= 20000:
                handle.write("\n".join(batch) + "\n")
                batch.clear()
        if batch:
            handle.write("\n".join(batch) + "\n")
    return rows, path.stat().st_size


def run_duckdb(path: Path) -> dict:
    result = parse_bulk_csv(path, NOW, families=ALL_FAMILIES)
    return {
        "quotes": sorted(
            (q.instance_type, q.region, q.pricing_model.value, q.usd_per_hour)
            for q in result.quotes
        )
    }


def run_dictreader(path: Path) -> dict:
    """The straightforward Python baseline: DictReader over every row, same filters, same reduce."""
    families = tuple(f"{f}." for f in ALL_FAMILIES)
    groups: dict[tuple, dict] = defaultdict(lambda: {"hourly": None, "upfront": None})
    with path.open(newline="", encoding="utf-8") as handle:
        for _ in range(DISCLAIMER_LINES):
            handle.readline()
        for row in csv.DictReader(handle):
            if not (
                row["Product Family"] == "Compute Instance"
                and row["Operating System"] == "Linux"
                and row["Tenancy"] == "Shared"
                and row["Pre Installed S/W"] in ("NA", "")
                and (row["CapacityStatus"] or "Used") == "Used"
                and row["Currency"] == "USD"
                and "BoxUsage" in row["usageType"]
                and row["Instance Type"].startswith(families)
            ):
                continue
            key = (
                row["Instance Type"],
                row["Region Code"],
                row["TermType"],
                row["MarketOption"] or "OnDemand",
                row["LeaseContractLength"],
                row["PurchaseOption"],
                row["OfferingClass"] or "standard",
                row["SKU"],
                row["OfferTermCode"],
            )
            agg = groups[key]
            price = float(row["PricePerUnit"])
            slot = (
                "hourly"
                if row["Unit"] == "Hrs"
                else "upfront"
                if row["Unit"] == "Quantity"
                else None
            )
            if slot:
                agg[slot] = (agg[slot] or 0.0) + price
            agg.update(vcpu=row["vCPU"], memory=row["Memory"], gpu=row["GPU"])
    names = (
        "instance_type",
        "region",
        "term_type",
        "market_option",
        "lease",
        "purchase_option",
        "offering_class",
    )
    rows = [{**dict(zip(names, key[:7], strict=True)), **agg} for key, agg in groups.items()]
    result = parse_bulk_rows(rows, NOW, str(path))
    return {
        "quotes": sorted(
            (q.instance_type, q.region, q.pricing_model.value, q.usd_per_hour)
            for q in result.quotes
        )
    }


def measure(method: str, path: Path) -> dict:
    """Run one method in a fresh interpreter; wall time and that child's own peak RSS."""
    out = path.with_suffix(f".{method}.json")
    start = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, __file__, "--worker", method, "--path", str(path), "--out", str(out)]
    )
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{method} worker failed with status {status}")
    payload = json.loads(out.read_text())
    out.unlink()
    payload.update(
        wall_seconds=seconds, peak_rss_gib=usage.ru_maxrss * 1024 / 2**30
    )  # ru_maxrss is KiB on Linux
    return payload


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rows", type=int, default=2_200_000)
    parser.add_argument("--path", type=Path, default=DEFAULT_PATH)
    parser.add_argument("--keep", action="store_true", help="keep the generated file")
    parser.add_argument("--worker", choices=["duckdb", "dictreader"], help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        runner = run_duckdb if args.worker == "duckdb" else run_dictreader
        start = time.perf_counter()
        payload = runner(args.path)
        payload["work_seconds"] = (
            time.perf_counter() - start
        )  # excludes interpreter start and imports
        args.out.write_text(json.dumps(payload))
        return

    t0 = time.perf_counter()
    rows, size = generate(args.path, args.rows)
    print(
        f"generated {rows:,} rows, {size / 1e6:,.0f} MB in {time.perf_counter() - t0:.1f} s -> {args.path}"
    )
    if size < MIN_BYTES and args.rows >= 2_000_000:
        print(f"warning: file is under 1 GiB ({size / 2**30:.2f} GiB)")
    # Flush the freshly written file and read it once, so both methods read from the page cache
    # rather than the first one paying for write-back of dirty pages.
    os.sync()
    with args.path.open("rb") as handle:
        while handle.read(1 << 24):
            pass
    try:
        duck = measure("duckdb", args.path)
        base = measure("dictreader", args.path)
    finally:
        if not args.keep:
            args.path.unlink(missing_ok=True)
    if duck["quotes"] != base["quotes"]:
        raise SystemExit(
            "the two methods disagree: DuckDB and DictReader produced different quotes"
        )
    mb = size / 1e6
    for name, r in (("duckdb (streamed, SQL filter)", duck), ("csv.DictReader loop", base)):
        print(
            f"{name:<30} {r['work_seconds']:7.2f} s  {mb / r['work_seconds']:8.1f} MB/s"
            f"  peak RSS {r['peak_rss_gib']:.2f} GiB  (process wall {r['wall_seconds']:.2f} s)"
        )
    ratio = base["work_seconds"] / duck["work_seconds"]
    print(f"quotes: {len(duck['quotes'])} (identical)")
    print(
        f"speedup: {ratio:.1f}x (target >= {TARGET_SPEEDUP:g}x); DuckDB peak "
        f"RSS {duck['peak_rss_gib']:.2f} GiB"
        f" (target <= {TARGET_RSS_GIB} GiB)"
    )
    ok = ratio >= TARGET_SPEEDUP and duck["peak_rss_gib"] <= TARGET_RSS_GIB
    print("PASS" if ok else "FAIL")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
