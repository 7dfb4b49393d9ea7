"""The performance model's cost: building the estimator (calibration fit plus leave-one-out by
model × accelerator pair over every bundled result), the validation report, and one estimate.

Run: .venv/bin/python perf/bench_estimates.py [--repeat 3]

Builds a warehouse from data/ in a temporary directory, then times each step (median of
``--repeat`` runs) and prints the validation's headline figures beside the times, so a change
that makes the model slower or worse shows in one run.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from costmodel.estimate_validation import validate  # noqa: E402
from planning.estimates import EstimateQuery, estimator_from_rows, result_rows  # noqa: E402
from pricing.integrity import check_price_file  # noqa: E402
from warehouse import Warehouse  # noqa: E402


def _timed(fn, repeat: int):
    times, out = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "w.duckdb"
        Warehouse.open(path, seed_check=check_price_file).close()
        with Warehouse.open(path, read_only=True, seed_check=check_price_file) as warehouse:
            rows = result_rows(warehouse)
    build_s, model = _timed(lambda: estimator_from_rows(rows), args.repeat)
    assert model is not None
    report_s, report = _timed(lambda: validate(model.corpus, model.loo), args.repeat)
    query = EstimateQuery(
        "llama-3.3-70b-instruct", "nvidia-h100-sxm-80gb", "fp8", scenario="server"
    )
    one_s, _ = _timed(lambda: model.estimate(query), args.repeat)
    print(f"results in the fit: {len(model.corpus):,} of {len(rows):,}")
    print(
        f"estimator (fit + leave-one-out): {build_s:.2f} s; validation report: {report_s:.3f} s;"
        f" one estimate: {one_s * 1000:.1f} ms"
    )
    for name, metric in report["metrics"].items():
        overall = metric["overall"]
        print(
            f"{name}: median |error| {overall['median_abs_pct_error']:.1%}, 80% interval"
            f" coverage {overall['interval_coverage']:.1%} over {overall['cases']:,} cases"
        )


if __name__ == "__main__":
    main()
