"""What a user waits for, in a real browser: the dashboard served by ``tokendesk app`` and driven
by Debian's headless Chromium through Playwright; and ``tokendesk --help`` in a terminal.

    .venv/bin/python perf/bench_browser.py [--repeat 10] [--help-runs 10]

Measured, each from the user's side (the page counts as done when Streamlit's "running" status
has gone and the page's own marker text is on screen):

1. **First usable page, cold**: from starting ``tokendesk app`` on a new warehouse file (built
   from data/ on that first start) to the Overview rendered; and again on a warehouse already
   built, which is what ``scripts/run.sh`` gives after setup and a first start — the optimizer's
   answer that first start proved is kept (``planning.solution_store``, a folder of this run's
   own, empty at first) —, and once more with nothing kept (the store off: what a start costs
   when the workspace or the market changed since). The project's bytecode is compiled first, as
   ``scripts/setup.sh`` leaves it (``scripts/bytecode.sh``).
2. **Warm page switch**: clicking another page in the sidebar until it is rendered, over every
   page, ``--repeat`` rounds; p50 and p95.
3. **What-if**: changing an input until the page has re-run: the Scenarios FTL SLO, and the
   Futures page's "Compare since" (another review window); p50 and p95 of each and of both.
4. **``tokendesk --help``**: wall time of a fresh process, median of ``--help-runs``.

Each timed action starts when the person's last gesture lands: a mouse click dispatched at the
link's (or option's) place, Enter in a field already typed in. Playwright's own checks before a
click (visible, stable for two frames, scrolled into view) and the typing come before the clock
starts, and each action waits until the browser is idle first, so no figure includes drawing
left over from the action before it.

Reference measured in the same run: the server's own health answer (``/_stcore/health``) as the
floor for (1), a plain navigation to the same page's URL (full reload) for (2), and
``python -c pass`` for (4). The load average is printed with the figures: they mean something
only on a quiet machine.
Targets: (1) <= 5 s, (2) <= 0.5 s p95, (3) <= 0.5 s p95, (4) <= 0.5 s.
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
from collections.abc import Callable
from functools import partial
from pathlib import Path

import httpx
from google.protobuf.message import DecodeError
from playwright.sync_api import Page, ViewportSize, sync_playwright
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from planning.solution_store import SOLUTION_STORE_ENV

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = os.environ.get("TOKENDESK_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
#: Each page's link text in the sidebar and a text that is on screen once it has rendered (the
#: last heading the page draws, where it has one).
PAGES = {
    "Costs": "All options",
    "Workspace": "Save as a new version",
    "Scenarios": "Side by side",
    "Futures day": "Decision log",
    "Prices": "Cloud prices",
    "Benchmarks": "Benchmark results",
    "Memory fit": "Which accelerators fit",
    "Overview": "Data freshness",
}
VIEWPORT: ViewportSize = {"width": 1500, "height": 1100}
TARGETS = {"first_page_s": 5.0, "switch_p95_s": 0.5, "what_if_p95_s": 0.5, "help_s": 0.5}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def serve(db: Path, store: str) -> tuple[subprocess.Popen, str, float, float]:
    """Start ``tokendesk app`` keeping the optimizer's answers in ``store`` (a folder, or "off");
    (process, url, start time, seconds until /_stcore/health)."""
    port = free_port()
    started = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", "cli.main", "app", "--port", str(port), "--db", str(db)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd=ROOT,
        env={**os.environ, SOLUTION_STORE_ENV: store},
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


def settled(
    page: Page,
    marker: str,
    runs: ScriptRuns | None = None,
    since: float = 0.0,
    timeout_ms: float = 120_000,
) -> None:
    """Wait until ``marker`` is visible and the script run has finished: with ``runs`` watching
    the page, until Streamlit's own message that a run finished (one that began after ``since``)
    has arrived too — a page may draw its marker before its last section — then until its running
    status has gone."""
    page.get_by_text(marker).first.wait_for(timeout=timeout_ms)
    if runs is not None:
        deadline = time.perf_counter() + timeout_ms / 1000
        while runs.since(since) != runs.since(since):  # NaN: no run has finished since
            if time.perf_counter() > deadline:
                raise TimeoutError(f"no script run finished after {timeout_ms / 1000:g} s")
            page.wait_for_timeout(10)
    page.wait_for_function(
        "() => !document.querySelector('[data-testid=\"stStatusWidget\"]')"
        " || !document.querySelector('[data-testid=\"stStatusWidget\"]').innerText.trim()",
        timeout=timeout_ms,
    )


def first_page(context, db: Path, store: str) -> dict:
    """Start ``tokendesk app`` and open the dashboard in a new tab of ``context``."""
    process, url, started, health = serve(db, store)
    try:
        page = context.new_page()
        runs = ScriptRuns(page)
        page.goto(url)
        settled(page, PAGES["Overview"], runs, started)
        usable = time.perf_counter() - started
        page.close()
    finally:
        process.terminate()
        process.wait(timeout=30)
    return {"health_s": round(health, 2), "first_usable_s": round(usable, 2)}


def first_pages(browser, db: Path, runs: int, store: str) -> dict:
    """``runs`` cold starts of the server on the built warehouse, each opened twice over:

    * by a **new visitor** (a fresh browser context: nothing cached, the frontend's scripts
      downloaded and compiled on the spot);
    * by a **returning visitor** (one context kept across the starts, primed by one visit
      before: Streamlit's scripts are immutable and cached for a year, so a person who has
      opened the dashboard before gets them from the browser's cache).

    Each figure is from its own server start, so neither finds the other's warm caches."""
    returning = browser.new_context(viewport=VIEWPORT)
    first_page(returning, db, store)  # the earlier visit that filled the browser's cache
    new_runs, returning_runs = [], []
    for _ in range(runs):
        fresh = browser.new_context(viewport=VIEWPORT)
        new_runs.append(first_page(fresh, db, store))
        fresh.close()
        returning_runs.append(first_page(returning, db, store))
    returning.close()
    return {"new_visitor": _medians(new_runs), "returning_visitor": _medians(returning_runs)}


def _medians(runs: list[dict]) -> dict:
    return {
        "runs": runs,
        "health_s": round(statistics.median(r["health_s"] for r in runs), 2),
        "first_usable_s": round(statistics.median(r["first_usable_s"] for r in runs), 2),
    }


class ScriptRuns:
    """When the page took in Streamlit's ``script_finished`` message (read off its websocket).

    The time from an action to it is an upper bound on the server's share, not the share
    itself: Chromium reports a websocket message when the page's main thread takes it in, after
    whatever drawing it is busy with (pages whose scripts end 0.05–0.1 s after the click, in the
    server's own log, showed it 0.1–0.6 s after). A figure near the settled time says the browser
    is the bottleneck as much as the server."""

    def __init__(self, page: Page) -> None:
        self.finished: list[float] = []
        #: Until the page took in the last timed action's run-finished message (``timed``).
        self.last_server_s = float("nan")
        page.on("websocket", self._watch)

    def _watch(self, socket) -> None:
        socket.on("framereceived", self._frame)

    def _frame(self, payload) -> None:
        if not isinstance(payload, bytes | bytearray):
            return
        message = ForwardMsg()
        try:
            message.ParseFromString(bytes(payload))
        except DecodeError:
            return
        if message.WhichOneof("type") == "script_finished":
            self.finished.append(time.perf_counter())

    def since(self, start: float) -> float:
        """Seconds from ``start`` to the last run finished after it (NaN if none)."""
        after = [t for t in self.finished if t >= start]
        return after[-1] - start if after else float("nan")


def idle(page: Page) -> None:
    """Until the browser has nothing left to do (drawing, scripts) or 5 s have passed."""
    page.evaluate("() => new Promise(done => requestIdleCallback(() => done(), {timeout: 5000}))")


def click_at(page: Page, locator) -> Callable[[], None]:
    """A click at ``locator``'s centre, as a person's lands: found and checked now, dispatched
    when called."""
    locator.wait_for(state="visible")
    locator.scroll_into_view_if_needed()
    box = locator.bounding_box()
    if box is None:
        raise SystemExit("a control to click is not on screen")
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    return partial(page.mouse.click, x, y)


def timed(action, page: Page, marker: str, runs: ScriptRuns | None = None) -> float:
    idle(page)
    start = time.perf_counter()
    action()
    page.wait_for_timeout(50)  # let the rerun start before waiting for it to end
    settled(page, marker, runs, start)
    if runs is not None:
        runs.last_server_s = runs.since(start)
    return time.perf_counter() - start


def quantiles(values: list[float]) -> dict:
    values = [v for v in values if v == v]  # a run whose end was not seen (NaN) is left out
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return {
        "n": len(values),
        "p50_s": round(statistics.median(values), 3),
        "p95_s": round(p95, 3),
    }


def warm(browser, db: Path, repeat: int) -> dict:
    process, url, _, _ = serve(db, os.environ[SOLUTION_STORE_ENV])
    try:
        page = browser.new_page(viewport=VIEWPORT)
        runs = ScriptRuns(page)
        page.goto(url)
        settled(page, PAGES["Overview"])
        for name, marker in PAGES.items():  # every page once, so caches are warm
            page.get_by_role("link", name=name).first.click()
            settled(page, marker)
        switches, reloads, inputs, server = [], [], [], []
        by_page: dict[str, list[float]] = {name: [] for name in PAGES}
        server_by_page: dict[str, list[float]] = {name: [] for name in PAGES}
        for _ in range(repeat):
            for name, marker in PAGES.items():
                link = page.get_by_role("link", name=name).first
                switches.append(timed(click_at(page, link), page, marker, runs))
                by_page[name].append(switches[-1])
                server.append(runs.last_server_s)
                server_by_page[name].append(runs.last_server_s)
        # The reloads after the switches, not between their rounds: a reload starts a new
        # session, and the switch right after it paid for that (it was always the Costs page).
        for _ in range(repeat):
            reloads.append(timed(partial(page.goto, f"{url}/scenarios"), page, PAGES["Scenarios"]))
        page.goto(f"{url}/scenarios")
        marker = PAGES["Scenarios"]
        settled(page, marker)
        slo = page.get_by_label("FTL SLO (ms)").first
        server_what_if: list[float] = []
        for i in range(repeat):
            slo.fill(str(1500 + 100 * (i % 5)))  # typed; the page reruns on Enter
            inputs.append(timed(partial(page.keyboard.press, "Enter"), page, marker, runs))
            server_what_if.append(runs.last_server_s)
        futures = futures_what_ifs(page, url, repeat, runs, server_what_if)
        page.close()
    finally:
        process.terminate()
        process.wait(timeout=30)
    return {
        "page_switch": quantiles(switches),
        # Which page a slow switch lands on: the median switch to each.
        "page_switch_p50_by_page": {
            name: round(statistics.median(times), 3) for name, times in by_page.items()
        },
        # Until the page took in each run's end (see ScriptRuns: an upper bound on the server's).
        "page_switch_server": quantiles(server),
        "page_switch_server_p50_by_page": {
            name: round(statistics.median(times), 3) for name, times in server_by_page.items()
        },
        "what_if_server": quantiles(server_what_if),
        "full_reload_reference": quantiles(reloads),
        "what_if_scenarios_slo": quantiles(inputs),
        "what_if_futures_since": quantiles(futures),
        "what_if_all": quantiles(inputs + futures),
    }


def futures_what_ifs(
    page: Page, url: str, repeat: int, runs: ScriptRuns, server: list[float]
) -> list[float]:
    """Pick another review window on the Futures page ("Compare since"), ``repeat`` times,
    alternating between the last review and the two newest snapshots' dates before today."""
    page.goto(f"{url}/futures")
    settled(page, PAGES["Futures day"])
    select = page.locator('[data-testid="stSelectbox"]').filter(has_text="Compare since").first
    select.click()
    options = page.locator('[role="option"]')
    options.first.wait_for()
    names = [options.nth(n).inner_text() for n in range(min(options.count(), 3))]
    page.keyboard.press("Escape")
    times = []
    for i in range(repeat):
        name = names[(i + 1) % len(names)]

        select.click()  # the list opens; the page reruns when an option is picked
        option = page.locator('[role="option"]').filter(has_text=name).first
        times.append(timed(click_at(page, option), page, PAGES["Futures day"], runs))
        server.append(runs.last_server_s)
    return times


def help_wall(runs: int) -> dict:
    """``tokendesk --help`` and ``python -c pass`` (the floor), fresh processes, interleaved."""
    sys.path.insert(0, str(ROOT / "perf"))
    from bench_cli_startup import COMMANDS
    from bench_cli_startup import timed as run_once

    names = ("python -c pass", "tokendesk --help")
    for name in names:
        run_once(COMMANDS[name])  # warm the file cache and the bytecode
    walls: dict[str, list[float]] = {name: [] for name in names}
    for _ in range(runs):
        for name in names:
            walls[name].append(run_once(COMMANDS[name])[0])
    return {name: round(statistics.median(w), 3) for name, w in walls.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--help-runs", type=int, default=10)
    parser.add_argument("--first-runs", type=int, default=3, help="server starts per visitor")
    args = parser.parse_args()
    subprocess.run([ROOT / "scripts" / "bytecode.sh"], check=True)  # as setup leaves it
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        new_db = Path(tmp) / "new.duckdb"
        # A store of the optimizer's answers of this run's own, empty at first, as a new user's.
        store = os.environ[SOLUTION_STORE_ENV] = str(Path(tmp) / "answers")
        context = browser.new_context(viewport=VIEWPORT)
        cold_new = first_page(context, new_db, store)  # builds the warehouse on this first start
        context.close()
        # As after setup and a first start: the answer that start proved is kept.
        cold_built = first_pages(browser, new_db, args.first_runs, store)
        # With nothing kept (another workspace, or the store turned off): the page solves.
        cold_solving = first_pages(browser, new_db, args.first_runs, "off")
        results = {
            "first_page_new_warehouse": cold_new,
            "first_page_built_warehouse": cold_built,
            "first_page_built_warehouse_solving": cold_solving,
            **warm(browser, new_db, args.repeat),
        }
        browser.close()
    results["cli_help_wall_s"] = help_wall(args.help_runs)
    results["load_average"] = {
        "before": [round(v, 2) for v in load_before],
        "after": [round(v, 2) for v in os.getloadavg()],
    }
    print(json.dumps(results, indent=1))
    out = ROOT / "perf" / "out"
    out.mkdir(exist_ok=True)
    (out / "bench_browser.json").write_text(json.dumps(results, indent=1) + "\n")
    targets = (
        (
            "first usable page, new visitor (median)",
            cold_built["new_visitor"]["first_usable_s"],
            "first_page_s",
        ),
        (
            "first usable page, returning visitor (median)",
            cold_built["returning_visitor"]["first_usable_s"],
            "first_page_s",
        ),
        ("warm page switch p95", results["page_switch"]["p95_s"], "switch_p95_s"),
        ("what-if p95 (Scenarios and Futures)", results["what_if_all"]["p95_s"], "what_if_p95_s"),
        ("tokendesk --help", results["cli_help_wall_s"]["tokendesk --help"], "help_s"),
    )
    print(
        f"load average {load_before[0]:.2f} before, {os.getloadavg()[0]:.2f} after",
        file=sys.stderr,
    )
    for label, value, key in targets:
        target = TARGETS[key]
        verdict = "meets" if value <= target else "MISSES"
        print(f"{label}: {value:.2f} s against {target:g} s — {verdict}", file=sys.stderr)
    solving = cold_solving["new_visitor"]["first_usable_s"]
    print(f"first usable page with nothing kept, new visitor: {solving:.2f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
