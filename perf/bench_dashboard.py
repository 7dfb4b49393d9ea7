"""Server-side time per dashboard interaction, on the warehouse built from data/ and on one
``scale`` times larger.

    .venv/bin/python perf/bench_dashboard.py [--scale 20] [--repeat 5]

For each page, a Streamlit AppTest session (the same script run the server does, without the
browser) is timed for: the first load (cold caches, the warehouse connection opened) and then
one widget interaction (a filter or an input changed, caches warm, as a user clicking around).
The large warehouse is data/'s with the curated seed's current price quotes repeated in ``scale``
extra regions and every seed benchmark configuration given ``scale`` extra operating points (a
denser concurrency sweep). From ``--scale 40`` on, the pages that plan (Overview, Scenarios,
Futures day) refuse, in words, to plan on that many options (the scenario engine's cap); the
benchmark prints what they say.

Reference measured in the same run: the raw DuckDB count of the cost join on the same file,
i.e. the floor any page that reads the join must pay. Targets: <= 300 ms per interaction on
data/, <= 1 s on the large warehouse.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from planning.solution_store import SOLUTION_STORE_ENV

# Every plan here is solved in the run that times it, never read from an earlier run's kept
# answers (planning.solution_store).
os.environ[SOLUTION_STORE_ENV] = "off"

VIEWS = Path(__file__).resolve().parents[1] / "app" / "views"

#: page file -> (widget kind, key, value) for the timed interaction.
INTERACTIONS = {
    "overview.py": ("number_input", "slo", 1500.0),
    "costs.py": ("multiselect", "vendor", ["AMD"]),
    "scenarios.py": ("number_input", "slo", 1500.0),
    "prices.py": None,
    "benchmarks.py": None,
    "memory_fit.py": None,
    "futures.py": None,
    "workspace.py": None,
}


def build_large(path: Path, scale: int) -> None:
    from datetime import timedelta

    from pricing.integrity import check_price_file
    from tokendesk.paths import data_dir
    from warehouse import Warehouse
    from warehouse.bundled import SEED_RESULTS
    from warehouse.seed import read_price_file, read_result_file

    quotes = [q for name, q in read_price_file(data_dir() / "seed_prices.csv") if name == "current"]
    results = read_result_file(data_dir() / SEED_RESULTS)
    with Warehouse.open(
        path, seed_check=check_price_file
    ) as wh:  # the seed itself, then the synthetic growth
        by_provider: dict[str, list] = {}
        for i in range(scale):
            for q in quotes:
                by_provider.setdefault(q.provider, []).append(
                    q.model_copy(
                        update={
                            "region": f"{q.region}-x{i:03d}",
                            "usd_per_hour": q.usd_per_hour * (0.9 + 0.002 * i),
                        }
                    )
                )
        for provider, rows in by_provider.items():
            # Dated one day after the newest dated row (a catalog row may carry no date).
            dated = [r.observed_at for r in rows if r.observed_at is not None]
            wh.ingest_prices(
                provider,
                rows,
                origin="synthetic",
                as_of=max(dated) + timedelta(days=1) if dated else None,
                scope=sorted({r.region for r in rows}),
            )
        grown = []
        for i in range(scale):
            factor = 0.5 + i / scale  # a denser sweep around each published point
            for r in results:
                grown.append(
                    r.model_copy(
                        update={
                            "concurrency": float(i + 1),
                            "output_tok_s": r.output_tok_s * factor,
                            "ttft_ms_p99": r.ttft_ms_p99 * factor if r.ttft_ms_p99 else None,
                            "ttft_ms_p50": r.ttft_ms_p50 * factor if r.ttft_ms_p50 else None,
                            "tpot_ms_p50": r.tpot_ms_p50 * factor if r.tpot_ms_p50 else None,
                            "tpot_ms_p99": r.tpot_ms_p99 * factor if r.tpot_ms_p99 else None,
                        }
                    )
                )
        wh.ingest_results("synthetic-sweep", grown, origin="synthetic")


class Refused(Exception):
    """The page showed an error instead of its content (e.g. a warehouse too large to plan on)."""


def time_page(db: Path, page: str, repeat: int) -> tuple[float, float | None]:
    from streamlit import config, logger
    from streamlit.testing.v1 import AppTest

    # A page's error reaches this benchmark in words (its message, not Streamlit's redacted
    # notice), and without the traceback Streamlit would print for it.
    config.set_option("client.showErrorDetails", "full")
    config.set_option("logger.enableRich", False)
    logger.set_log_level("CRITICAL")

    # AppTest puts the page's folder first on the import path, and that folder holds the
    # Benchmarks page (benchmarks.py): the package of that name is imported before, as the
    # server's entry point has it imported.
    import benchmarks.traces  # noqa: F401

    os.environ["TOKENDESK_DB"] = str(db)
    at = AppTest.from_file(str(VIEWS / page), default_timeout=600)
    start = time.perf_counter()
    at.run()
    first = time.perf_counter() - start
    if at.exception:
        raise Refused(at.exception[0].message)
    interaction = INTERACTIONS.get(page)
    if interaction is None:
        samples = []
        for _ in range(repeat):
            start = time.perf_counter()
            at.run()
            samples.append(time.perf_counter() - start)
        return first, statistics.median(samples)
    kind, key, value = interaction
    samples = []
    for n in range(repeat):
        widget = getattr(at, kind)(key=key)
        # alternate between two values so that every run is a real change
        if kind == "multiselect":
            widget.set_value(value if n % 2 == 0 else [])
        else:
            widget.set_value(value + (n % 2))
        start = time.perf_counter()
        at.run()
        samples.append(time.perf_counter() - start)
        if at.exception:
            raise Refused(at.exception[0].message)
    return first, statistics.median(samples)


def join_floor(db: Path) -> tuple[int, float]:
    from warehouse import Warehouse
    from warehouse.queries import _COST_CORE

    with Warehouse.open(db, read_only=True) as wh:
        start = time.perf_counter()
        rows = wh.cursor().execute(f"SELECT count(*) FROM ({_COST_CORE})").fetchone()[0]  # noqa: S608 - fixed text
        return rows, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--scale", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    pages = [p for p in INTERACTIONS if (VIEWS / p).exists()]
    with tempfile.TemporaryDirectory() as folder:
        seed, large = Path(folder) / "seed.duckdb", Path(folder) / "large.duckdb"
        from pricing.integrity import check_price_file
        from warehouse import Warehouse

        Warehouse.open(seed, seed_check=check_price_file).close()
        start = time.perf_counter()
        build_large(large, args.scale)
        print(f"built the {args.scale}x warehouse in {time.perf_counter() - start:.1f} s")
        for label, db in (("data/", seed), (f"{args.scale}x", large)):
            rows, floor = join_floor(db)
            print(
                f"\n{label} warehouse: cost join {rows:,} rows; raw DuckDB count of the "
                f"join {floor * 1000:.0f} ms"
            )
            print(f"{'page':<14}{'first load':>12}{'interaction':>14}{'vs join count':>15}")
            for page in pages:
                try:
                    first, interaction = time_page(db, page, args.repeat)
                except Refused as refusal:
                    # What the page says in the dashboard (the entry point shows it in words).
                    print(f"{page:<14}refused: {' '.join(str(refusal).split())[:200]}")
                    continue
                ratio = f"{interaction / floor:.1f}x" if interaction and floor else "-"
                print(
                    f"{page:<14}{first * 1000:>10.0f} ms{(interaction or 0) * 1000:>11.0f} ms{ratio:>15}"
                )
                sys.stdout.flush()


if __name__ == "__main__":
    main()
