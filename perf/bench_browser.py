"""What a user waits for, in a real browser: the dashboard served by ``tokendesk app`` and driven
by Debian's headless Chromium through Playwright.

    .venv/bin/python perf/bench_browser.py [--repeat 10]

Measured, each from the user's side (the page counts as done when Streamlit's "running" status
has gone and the page's own marker text is on screen):

1. **First usable page, cold**: from starting ``tokendesk app`` on a new warehouse file (built
   from data/ on that first start) to the Overview rendered; and again on a warehouse already
   built (as ``scripts/setup.sh`` leaves it), which is what ``scripts/run.sh`` gives after setup.
2. **Warm page switch**: clicking another page in the sidebar until it is rendered, over every
   page, ``--repeat`` rounds; p50 and p95.
3. **Interaction**: changing an input (the Scenarios SLO, the Costs percentile) until the page
   has re-run; p50 and p95.

Reference measured in the same run: the server's own health answer (``/_stcore/health``) as the
floor for (1), and a plain navigation to the same page's URL (full reload) for (2).
Targets: (1) <= 10 s, (2) <= 1 s p95, (3) <= 1 s p95.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from functools import partial
from pathlib import Path

import httpx
from playwright.sync_api import Page, sync_playwright

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = os.environ.get("TOKENDESK_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
#: Each page's link text in the sidebar and a text that is on screen once it has rendered.
PAGES = {
    "Costs": "Cheapest $/1K output tokens",
    "Workspace": "Save as a new version",
    "Scenarios": "Side by side",
    "Prices": "Current quotes",
    "Benchmarks": "Benchmark results",
    "Memory fit": "Memory fit",
    "Overview": "Incumbent against the best alternative",
}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def serve(db: Path) -> tuple[subprocess.Popen, str, float, float]:
    """Start ``tokendesk app``; (process, url, start time, seconds until /_stcore/health)."""
    port = free_port()
    started = time.perf_counter()
    process = subprocess.Popen(
        [ROOT / ".venv/bin/tokendesk", "app", "--port", str(port), "--db", str(db)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd=ROOT,
    )
    url = f"http://127.0.0.1:{port}"
    while True:
        try:
            if httpx.get(f"{url}/_stcore/health", timeout=1).text == "ok":
                return process, url, started, time.perf_counter() - started
        except httpx.HTTPError:
            if process.poll() is not None:
                raise SystemExit("tokendesk app exited before it answered") from None
            time.sleep(0.05)


def settled(page: Page, marker: str, timeout_ms: float = 120_000) -> None:
    """Wait until ``marker`` is visible and the script run has finished."""
    page.get_by_text(marker).first.wait_for(timeout=timeout_ms)
    page.wait_for_function(
        "() => !document.querySelector('[data-testid=\"stStatusWidget\"]')"
        " || !document.querySelector('[data-testid=\"stStatusWidget\"]').innerText.trim()",
        timeout=timeout_ms,
    )


def first_page(browser, db: Path) -> dict:
    process, url, started, health = serve(db)
    try:
        page = browser.new_page(viewport={"width": 1500, "height": 1100})
        page.goto(url)
        settled(page, PAGES["Overview"])
        usable = time.perf_counter() - started
        page.close()
    finally:
        process.terminate()
        process.wait(timeout=30)
    return {"health_s": round(health, 2), "first_usable_s": round(usable, 2)}


def timed(action, page: Page, marker: str) -> float:
    start = time.perf_counter()
    action()
    page.wait_for_timeout(50)  # let the rerun start before waiting for it to end
    settled(page, marker)
    return time.perf_counter() - start


def quantiles(values: list[float]) -> dict:
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return {
        "n": len(values),
        "p50_s": round(statistics.median(values), 3),
        "p95_s": round(p95, 3),
    }


def warm(browser, db: Path, repeat: int) -> dict:
    process, url, _, _ = serve(db)
    try:
        page = browser.new_page(viewport={"width": 1500, "height": 1100})
        page.goto(url)
        settled(page, PAGES["Overview"])
        for name, marker in PAGES.items():  # every page once, so caches are warm
            page.get_by_role("link", name=name).first.click()
            settled(page, marker)
        switches, reloads, inputs = [], [], []
        for _ in range(repeat):
            for name, marker in PAGES.items():
                link = page.get_by_role("link", name=name).first
                switches.append(timed(link.click, page, marker))
            reloads.append(timed(partial(page.goto, f"{url}/scenarios"), page, PAGES["Scenarios"]))
        page.goto(f"{url}/scenarios")
        settled(page, PAGES["Scenarios"])
        slo = page.get_by_label("FTL SLO (ms)").first
        for i in range(repeat):
            value = str(1500 + 100 * (i % 5))

            def change(value: str = value) -> None:
                slo.fill(value)
                slo.press("Enter")

            inputs.append(timed(change, page, PAGES["Scenarios"]))
        page.close()
    finally:
        process.terminate()
        process.wait(timeout=30)
    return {
        "page_switch": quantiles(switches),
        "full_reload_reference": quantiles(reloads),
        "interaction_scenarios_slo": quantiles(inputs),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        new_db = Path(tmp) / "new.duckdb"
        cold_new = first_page(browser, new_db)  # builds the warehouse on this first start
        cold_built = first_page(browser, new_db)  # the file now exists, as after setup
        results = {
            "first_page_new_warehouse": cold_new,
            "first_page_built_warehouse": cold_built,
            **warm(browser, new_db, args.repeat),
        }
        browser.close()
    print(json.dumps(results, indent=1))
    out = ROOT / "perf" / "out"
    out.mkdir(exist_ok=True)
    (out / "bench_browser.json").write_text(json.dumps(results, indent=1) + "\n")
    targets = (
        ("first usable page (built warehouse)", cold_built["first_usable_s"], 10.0),
        ("warm page switch p95", results["page_switch"]["p95_s"], 1.0),
        ("interaction p95", results["interaction_scenarios_slo"]["p95_s"], 1.0),
    )
    for label, value, target in targets:
        verdict = "meets" if value <= target else "MISSES"
        print(f"{label}: {value:.2f} s against {target:g} s — {verdict}", file=sys.stderr)


if __name__ == "__main__":
    main()
