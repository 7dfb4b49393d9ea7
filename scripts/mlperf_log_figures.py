"""Read the figures MLPerf's LoadGen printed for every MLPerf run the seed cites.

The research table ``data/sources/reference_published_results.csv`` names each MLPerf run by
its ``mlperf_log_summary.txt`` path. This script reads those files (and each system's
description JSON) from local clones of the MLCommons results repositories and writes
``data/sources/mlperf_log_figures.csv``: the throughput and every first-token / time-per-output
-token percentile LoadGen printed, the system's accelerator and node counts, and the commit read.

    python scripts/mlperf_log_figures.py v4.1=/path/to/inference_results_v4.1 \
        v5.1=/path/to/inference_results_v5.1

A clone may be a bare repository (files are read with ``git show HEAD:path``). Where a whole
clone is too large, a folder holding just the cited files at their repository paths will do,
named with the commit they were read at: ``v4.0=tests/fixtures/real/mlperf_v4.0@<commit>``.
"""

from __future__ import annotations

import csv
import json
import re
import subprocess
import sys
from pathlib import Path

DATA = Path(__file__).resolve().parents[1] / "data"
SOURCES = DATA / "sources"
OUT = SOURCES / "mlperf_log_figures.csv"

PERCENTILES = ("50.00", "90.00", "95.00", "99.00")
FIELDS = [
    "version",
    "path",
    "commit",
    "result",
    "tokens_per_s",
    *[f"ttft_ms_p{p[:2]}" for p in PERCENTILES],
    *[f"tpot_ms_p{p[:2]}" for p in PERCENTILES],
    "system_name",
    "accelerators_per_node",
    "number_of_nodes",
    "hw_notes",
]


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), *args], check=True, capture_output=True, text=True
    ).stdout


def _reader(spec: str) -> tuple[str, object]:
    """(commit, read(path) -> text) for a git clone or a ``folder@commit``."""
    if "@" in spec:
        folder, commit = spec.rsplit("@", 1)
        return commit, lambda path: (Path(folder) / path).read_text(encoding="utf-8")
    repo = Path(spec)
    return _git(repo, "rev-parse", "HEAD").strip(), lambda path: _git(repo, "show", f"HEAD:{path}")


def _figures(text: str) -> dict[str, str]:
    out: dict[str, str] = {}
    valid = re.search(r"Result is\s*:\s*(\S+)", text)
    out["result"] = valid.group(1) if valid else ""
    tokens = re.search(r"Completed tokens per second\s*:\s*([\d.]+)", text) or re.search(
        r"Tokens per second\s*:\s*([\d.]+)", text
    )
    out["tokens_per_s"] = tokens.group(1) if tokens else ""
    for pct in PERCENTILES:
        for family, label in (("ttft", "first token latency"), ("tpot", "time to output token")):
            found = re.search(rf"{re.escape(pct)} percentile {label} \(ns\)\s*:\s*(\d+)", text)
            out[f"{family}_ms_p{pct[:2]}"] = f"{int(found.group(1)) / 1e6:.1f}" if found else ""
    return out


def main(argv: list[str]) -> None:
    repos = dict(arg.split("=", 1) for arg in argv)
    wanted: set[tuple[str, str]] = set()
    with (SOURCES / "reference_published_results.csv").open(encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            match = re.match(r"MLPerf Inference (v[\d.]+) results repo: (\S+)", row["source_title"])
            if match and match.group(1) in repos:
                wanted.add((match.group(1), match.group(2)))
    rows = []
    for version, path in sorted(wanted):
        commit, read = _reader(repos[version])
        figures = _figures(read(path))
        submitter, system = path.split("/")[1], path.split("/")[3]
        described = json.loads(read(f"closed/{submitter}/systems/{system}.json"))
        rows.append(
            {
                "version": version,
                "path": path,
                "commit": commit,
                **figures,
                "system_name": described.get("system_name", ""),
                "accelerators_per_node": described.get("accelerators_per_node", ""),
                "number_of_nodes": described.get("number_of_nodes", ""),
                "hw_notes": described.get("hw_notes", ""),
            }
        )
    with OUT.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=FIELDS)
        writer.writeheader()
        writer.writerows(rows)
    print(f"{len(rows)} MLPerf runs -> {OUT}")


if __name__ == "__main__":
    main(sys.argv[1:])
