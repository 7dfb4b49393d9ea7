"""Bulk import of a results tree: files per minute through `benchmarks.bulk.import_tree` (the path
`tokendesk bench import-tree --dry-run` takes: find, parse, check each file on its own).

Run: .venv/bin/python perf/bench_import_tree.py            (3,000 runs + 3,000 context files)
     .venv/bin/python perf/bench_import_tree.py --runs 600

Builds an MLPerf-round-shaped tree in /tmp from the real files in tests/fixtures/real/: each
copy of a real run (`mlperf_log_summary.txt` with its `systems/<system>.json` and measurements
JSON, under a system name of its own) plus an InferenceX aggregate and a llama-bench log per
hundred runs, and the accuracy/compliance folders an MLPerf round carries (skipped by name, as
in a real round). Every result file must import: a refusal fails the benchmark. Target: at least
5,000 result files a minute on this machine.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.bulk import IMPORTED, import_tree, result_files  # noqa: E402

REAL = ROOT / "tests" / "fixtures" / "real"
TREE = Path("/tmp/tokendesk-bench/import-tree")
TARGET_FILES_PER_MINUTE = 5_000

#: (round folder, submitter, system, benchmark, scenario) of real runs with every companion.
RUNS = (
    ("mlperf_v4.1", "NVIDIA", "H200-SXM-141GBx8_TRT", "llama2-70b-99", "Server"),
    ("mlperf_v4.1", "NVIDIA", "H200-SXM-141GBx8_TRT", "llama2-70b-99", "Offline"),
    ("mlperf_v4.1", "AMD", "8xMI300X_2xEPYC-9374F", "llama2-70b-99", "Server"),
    ("mlperf_v5.1", "RedHat", "XE8640_4xH100_vLLM", "llama3.1-8b", "Server"),
    ("mlperf_v5.1", "NVIDIA", "B200-SXM-180GBx8_TRT", "llama2-70b-99", "Interactive"),
    ("mlperf_v5.1", "Cisco", "HGX-H100_H100-SXM-80GBx16_TRT", "llama2-70b-99", "Server"),
)
INFX = next((REAL / "inferencex").glob("agg_*.json"))
LLAMA_BENCH = REAL / "llama-bench" / "b1_0c1e570_new_schema.json"


def build(runs: int) -> int:
    """Write the tree; the number of result files in it."""
    shutil.rmtree(TREE, ignore_errors=True)
    files = 0
    for i in range(runs):
        round_, submitter, system, bench, scenario = RUNS[i % len(RUNS)]
        src = REAL / round_ / "closed" / submitter
        name = f"{system}-copy{i:05d}"
        dst = TREE / "closed" / submitter
        run = dst / "results" / name / bench / scenario
        (run / "performance" / "run_1").mkdir(parents=True)
        (run / "accuracy").mkdir()
        shutil.copyfile(
            src
            / "results"
            / system
            / bench
            / scenario
            / "performance/run_1/mlperf_log_summary.txt",
            run / "performance" / "run_1" / "mlperf_log_summary.txt",
        )
        # The accuracy log of a run is in every real round; import-tree must not read it.
        (run / "accuracy" / "mlperf_log_accuracy.json").write_text("[]", encoding="utf-8")
        (dst / "systems").mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src / "systems" / f"{system}.json", dst / "systems" / f"{name}.json")
        measured = src / "measurements" / system / bench / scenario
        target = dst / "measurements" / name / bench / scenario
        target.mkdir(parents=True)
        for json_file in measured.glob("*.json"):
            shutil.copyfile(json_file, target / json_file.name.replace(system, name))
        files += 1
        if i % 100 == 0:
            other = TREE / "others" / f"{i:05d}"
            other.mkdir(parents=True)
            shutil.copyfile(INFX, other / INFX.name)
            shutil.copyfile(LLAMA_BENCH, other / "llama-bench-cpu.json")
            files += 2
    return files


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3_000)
    parser.add_argument("--keep", action="store_true", help="keep the tree in /tmp")
    args = parser.parse_args()
    expected = build(args.runs)
    found = sum(1 for _ in result_files(TREE))
    assert found == expected, (found, expected)
    # llama-bench on a CPU needs the file's accelerator, which the tree-wide flag cannot give
    # (it would apply to every MLPerf run too); it is reported as needing a flag and counted.
    start = time.perf_counter()
    outcomes = import_tree(TREE)
    seconds = time.perf_counter() - start
    imported = sum(o.status == IMPORTED for o in outcomes)
    not_imported = [o for o in outcomes if o.status != IMPORTED]
    unexpected = [o for o in not_imported if "llama-bench" not in o.path.name]
    assert not unexpected, unexpected[:3]
    per_minute = len(outcomes) / seconds * 60
    print(
        f"{len(outcomes):,} result files ({imported:,} imported, {len(not_imported):,} asking "
        f"for a flag) in {seconds:.1f} s: {per_minute:,.0f} files/min; target "
        f"{TARGET_FILES_PER_MINUTE:,}: ratio {per_minute / TARGET_FILES_PER_MINUTE:.2f}"
    )
    if not args.keep:
        shutil.rmtree(TREE, ignore_errors=True)


if __name__ == "__main__":
    main()
