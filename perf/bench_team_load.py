"""A team on one machine: several dashboard processes, concurrent writers and many browser
sessions on one warehouse, then writers killed mid-write.

    .venv/bin/python perf/bench_team_load.py [--apps 3] [--writers 2] [--sessions 20]
                                             [--seconds 120] [--kills 5]
                                             [--team [--restart-postgres]]

The warehouse is one embedded DuckDB file, or with ``--team`` team mode: a DuckLake catalog in a
real PostgreSQL server started for the run (as the tests start it, ``tests/lake_servers.py``)
with its Parquet files in a local folder. ``--restart-postgres`` (team mode) stops PostgreSQL
halfway through the load (``pg_ctl stop -m fast``: every connection cut), keeps it down for
``--outage`` seconds and starts it again; a visit that shows the dashboard's plain "does not
answer" notice is counted apart from errors, and the time from the restart to the first page
drawn from fresh reads is reported.

1. **Load**: ``--apps`` ``tokendesk app`` processes serve the same warehouse; ``--sessions``
   Chromium tabs (one headless browser; each tab its own Streamlit session, spread over the app
   processes) arrive ``--arrival`` seconds apart and open the Overview. Once all have arrived, the
   measured window of ``--seconds`` opens: each tab switches to another page at random after
   reading the current one for 0.5x-1.5x ``--think`` seconds, while ``--writers`` processes run
   ``tokendesk db ingest`` of a 28-quote price sheet in a loop (each command one snapshot).
   Counted: page visits, errors (a first page or switch that takes over its limit, or a page
   that shows an exception, a traceback or "None"), websocket reconnections, writes that
   succeeded, and lost snapshots (a write that said it succeeded and whose snapshot is not in
   the warehouse afterwards). Timed: the first page, each page switch from the click until the
   new page has rendered (p50 / p95 / max), and each write, from the start of the command to
   its exit; and the CPU seconds the browser, the dashboard processes and the writers used in
   the window. By default (``--browser-priority idle``) the browser runs under SCHED_IDLE: it
   stands in for the users' own machines, so it gets only the CPU the servers leave.
2. **Faults**: ``--kills`` times, while the apps still serve, a writer is started and killed with
   SIGKILL at a random moment in its write; afterwards the warehouse holds either its previous
   content or the whole snapshot (never part of one), the last good snapshot is still current,
   and a page still renders without an error.

Reference measured in the same run: the same page switches with one session and no writers, so
the load's cost shows as a ratio.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import re
import resource
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from playwright.async_api import BrowserContext, Page, async_playwright

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.lake_servers import PostgresServer, postgres_server  # noqa: E402
from warehouse import Warehouse  # noqa: E402

#: ``tokendesk`` as this checkout's code under this interpreter (``python -m cli.main`` is what
#: the installed ``tokendesk`` script runs; a worktree without its own virtual environment
#: would otherwise run another checkout's code).
TOKENDESK = [sys.executable, "-m", "cli.main"]
CHROMIUM = "/usr/bin/chromium"
#: The browser as launched: Chromium itself, or (``--browser-priority idle``) a wrapper that
#: starts it under Linux's SCHED_IDLE policy, which every process it forks inherits.
BROWSER = {"executable": CHROMIUM}
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    # Every tab is a user looking at it: none is slowed down as a background tab.
    "--disable-background-timer-throttling",
    "--disable-renderer-backgrounding",
    "--disable-backgrounding-occluded-windows",
]
#: Each page's link text in the sidebar and a text on screen once it has rendered.
PAGES = {
    "Overview": "Incumbent against the best alternative",
    "Costs": "Cheapest $/1K output tokens",
    "Scenarios": "Side by side",
    "Prices": "Current quotes",
    "Benchmarks": "Benchmark results",
}
#: How long a first page may take before it counts as an error.
FIRST_PAGE_LIMIT_MS = 180_000
#: The dashboard processes of this run, whose CPU time is reported apart from the browser's.
APP_PIDS: list[int] = []
#: Each page's address.
PATHS = {name: "/" if name == "Overview" else f"/{name.lower()}" for name in PAGES}
#: What a page must never show a user.
BAD = re.compile(r"Traceback|\bNone\b|Exception|Could not set lock")
#: The dashboard's notice while team mode's catalog server does not answer.
OUTAGE = "does not answer"
SNAPSHOT_ID = re.compile(r"ingested as (\S+)")


@dataclass(frozen=True)
class Target:
    """The warehouse under test: a file, or a lake (``ducklake:postgres:…`` and its data folder)."""

    db: str
    data_path: str = ""

    @property
    def env(self) -> dict[str, str]:
        extra = {"TOKENDESK_DATA_PATH": self.data_path} if self.data_path else {}
        return {**os.environ, **extra}

    def open(self) -> Warehouse:
        return Warehouse.open(self.db, data_path=self.data_path or None, read_only=True)


def idle_browser(folder: Path) -> Path:
    """A launcher that runs Chromium under SCHED_IDLE: the browser, which stands in for the
    users' own machines, then runs only on CPU time the dashboards and writers leave over, and
    cannot starve the servers it measures. (``nice`` would not hold: Chromium sets its own
    processes' nice values; it does not change their scheduling policy.)"""
    launcher = folder / "chromium-idle"
    launcher.write_text(f'#!/bin/sh\nexec chrt --idle 0 {CHROMIUM} "$@"\n', encoding="utf-8")
    launcher.chmod(0o755)
    return launcher


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def serve(target: Target) -> tuple[subprocess.Popen, str]:
    port = free_port()
    process = subprocess.Popen(
        [*TOKENDESK, "app", "--port", str(port), "--db", target.db],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd=ROOT,
        env=target.env,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{url}/_stcore/health", timeout=1).text == "ok":
                return process, url
        except httpx.HTTPError:
            time.sleep(0.1)
    raise SystemExit("a dashboard process did not start within 120 s")


def price_sheet(folder: Path, writer: int, round_: int) -> Path:
    """28 quotes from one provider of this writer: a new snapshot each round."""
    rows = [
        f"loadtest-{writer},region-{r},gpu{size}x8,nvidia-h100-sxm-80gb,8,on_demand,"
        f"{20 + size + round_ * 0.01:.2f},load test sheet,2026-11-0{1 + r}\n"
        for r in range(4)
        for size in range(7)
    ]
    sheet = folder / f"writer{writer}-round{round_}.csv"
    sheet.write_text(
        "provider,region,instance_type,accelerator_id,accelerator_count,pricing_model,"
        "usd_per_hour,source,observed_at\n" + "".join(rows),
        encoding="utf-8",
    )
    return sheet


def good_snapshot_ids(target: Target) -> set[str]:
    with target.open() as wh:
        frame = wh.query("SELECT snapshot_id FROM snapshots WHERE status <> 'failed'")
    return set(frame["snapshot_id"])


async def settled(page: Page, marker: str, timeout_ms: float) -> None:
    """The page has drawn (its marker shows, or the catalog-outage notice) and is idle."""
    drawn = page.get_by_text(marker).or_(page.get_by_text(OUTAGE))
    await drawn.first.wait_for(timeout=timeout_ms)
    # Idle, and nothing left over from the page before: until its run ends, Streamlit keeps the
    # previous page's elements on screen marked stale (an outage notice among them).
    await page.wait_for_function(
        '() => !document.querySelector(\'[data-testid="stElementContainer"][data-stale="true"]\')'
        " && (!document.querySelector('[data-testid=\"stStatusWidget\"]')"
        " || !document.querySelector('[data-testid=\"stStatusWidget\"]').innerText.trim())",
        timeout=timeout_ms,
        # Checked ten times a second, not on every animation frame: polling per frame keeps each
        # waiting tab drawing frames, and 20 tabs drawing in software would burn the CPU the
        # dashboards need.
        polling=100,
    )


@dataclass
class Window:
    """The measured load: it opens once every session has its first page (or gave up on it),
    and lasts ``seconds``; the writers and a PostgreSQL restart wait for it too."""

    sessions: int
    seconds: float
    arrived: int = 0
    start: float = 0.0
    opened: threading.Event = field(default_factory=threading.Event)

    def arrive(self) -> None:
        self.arrived += 1
        if self.arrived == self.sessions:
            self.start = time.monotonic()
            self.opened.set()

    @property
    def until(self) -> float:
        return self.start + self.seconds

    async def wait(self) -> None:
        while not self.opened.is_set():
            await asyncio.sleep(0.1)


async def session(
    browser: BrowserContext,
    url: str,
    window: Window,
    seed: int,
    think_s: float,
    arrival_s: float,
    out: dict,
) -> None:
    """One user: open the dashboard; once everyone has, switch pages at random until the window
    closes, reading each page for a random 0.5x to 1.5x ``think_s`` seconds first (0: clicking
    without pause)."""
    rng = random.Random(seed)
    # The tab stays open until the browser closes, after the CPU it used has been counted.
    page = await browser.new_page()
    # A tab opens one websocket to its dashboard; any further one is a reconnection.
    page.on("websocket", lambda _: out.__setitem__("websockets", out["websockets"] + 1))
    await asyncio.sleep(seed * arrival_s)  # people arrive one after another, not all at once
    started = time.perf_counter()
    try:
        await page.goto(url, timeout=FIRST_PAGE_LIMIT_MS)
        await settled(page, PAGES["Overview"], FIRST_PAGE_LIMIT_MS)
    except Exception as exc:  # a first page that never came is an error the user would see
        out["errors"].append(f"first page: {type(exc).__name__}")
        window.arrive()
        return
    out["first_page_s"].append(time.perf_counter() - started)
    window.arrive()
    await window.wait()
    await asyncio.sleep(think_s * rng.uniform(0, 1))  # not everyone clicks at the same moment
    current = "Overview"
    while time.monotonic() < window.until:
        name = rng.choice([other for other in PAGES if other != current])
        current = name
        started = time.perf_counter()
        try:
            await page.get_by_role("link", name=name).first.click()
            await page.wait_for_url(re.compile(rf"^[^?#]*//[^/]+{PATHS[name]}(?:[?#].*)?$"))
            await settled(page, PAGES[name], 60_000)
            elapsed = time.perf_counter() - started
            main = await page.locator("section.main, [data-testid='stMain']").first.inner_text()
            bad = BAD.search(main)
            if bad or await page.locator("[data-testid='stException']").count():
                seen = main[max(0, bad.start() - 150) : bad.end() + 150] if bad else "a box"
                out["errors"].append(f"{name}: {' '.join(seen.split())}")
            elif OUTAGE in main:
                out["outage_notices"].append(time.monotonic())
                notice = next(line for line in main.splitlines() if OUTAGE in line)
                out["outage_samples"].add(f"{name}: {notice[:300]}")
                if await page.get_by_text(PAGES[name]).count():
                    out["served_from_cache"] += 1
            else:
                out["switch_s"].append(elapsed)
                out["fresh_at"].append(time.monotonic())
        except Exception as exc:  # a timeout is an error the user would see
            out["errors"].append(f"{name}: {type(exc).__name__}")
        out["visits"] += 1
        await asyncio.sleep(think_s * rng.uniform(0.5, 1.5))


def writer_loop(
    target: Target, folder: Path, writer: int, window: Window, out: dict, pause_s: float = 0.0
) -> None:
    """``tokendesk db ingest`` of a new sheet, again and again until the window closes, with
    ``pause_s`` seconds between two writes (0: back to back)."""
    round_ = 0
    window.opened.wait()
    while time.monotonic() < window.until:
        if round_ and pause_s:
            time.sleep(max(0.0, min(pause_s, window.until - time.monotonic())))
            if time.monotonic() >= window.until:
                break
        sheet = price_sheet(folder, writer, round_)
        started = time.perf_counter()
        done = subprocess.run(
            [*TOKENDESK, "db", "ingest", str(sheet), "--db", target.db],
            capture_output=True,
            text=True,
            cwd=ROOT,
            env=target.env,
        )
        out["write_s"].append(time.perf_counter() - started)
        if done.returncode == 0:
            out["written"].extend(SNAPSHOT_ID.findall(done.stdout))
            out["writes_ok"] += 1
        else:
            out["write_errors"].append(" ".join(done.stderr.split())[-300:])
        if "did not answer for" in done.stderr:
            out["waited_for_catalog"] += 1
        round_ += 1


def cpu_seconds(app_pids: list[int]) -> dict[str, float]:
    """CPU seconds used so far by the browser's processes and by the dashboard processes."""
    tick = os.sysconf("SC_CLK_TCK")
    used = {"browser": 0.0, "dashboards": 0.0}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)
        except OSError:
            continue  # ended meanwhile
        name = fields[0].split("(", 1)[1]
        utime, stime = (int(v) for v in fields[1].split()[11:13])
        if int(entry.name) in app_pids:
            used["dashboards"] += (utime + stime) / tick
        elif name.startswith(("chrom", "headless_shell")):
            used["browser"] += (utime + stime) / tick
    return used


def quantiles(values: list[float]) -> dict:
    if not values:
        return {"n": 0}
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return {
        "n": len(values),
        "p50_s": round(statistics.median(values), 3),
        "p95_s": round(p95, 3),
        "max_s": round(ordered[-1], 3),
    }


async def browse(
    urls: list[str],
    window: Window,
    think_s: float = 0.0,
    browsers: int = 1,
    arrival_s: float = 0.0,
) -> dict:
    out: dict = {
        "visits": 0,
        "errors": [],
        "switch_s": [],
        "outage_notices": [],
        "served_from_cache": 0,
        "fresh_at": [],
        "outage_samples": set(),
        "first_page_s": [],
        "websockets": 0,
    }
    async with async_playwright() as playwright:
        launched = [
            await playwright.chromium.launch(executable_path=BROWSER["executable"], args=ARGS)
            for _ in range(max(1, min(browsers, window.sessions)))
        ]
        # One context per browser, one tab per session: the dashboard's JavaScript is fetched
        # and compiled once per browser, as each user's own browser would have it cached; every
        # tab is still its own Streamlit session with its own websocket.
        contexts = [
            await browser.new_context(viewport={"width": 1400, "height": 1000})
            for browser in launched
        ]
        arriving = time.monotonic()
        sessions = [
            asyncio.create_task(
                session(
                    contexts[i % len(contexts)],
                    urls[i % len(urls)],
                    window,
                    i,
                    think_s,
                    arrival_s,
                    out,
                )
            )
            for i in range(window.sessions)
        ]
        await window.wait()
        out["arrival_s"] = round(window.start - arriving, 1)
        before = cpu_seconds(APP_PIDS)
        await asyncio.gather(*sessions)
        after = cpu_seconds(APP_PIDS)
        out["cpu_s"] = {family: round(after[family] - before[family]) for family in after}
        for browser in launched:
            await browser.close()
    return out


def restart_postgres(server: PostgresServer, window: Window, outage_s: float, out: dict) -> None:
    """Stop PostgreSQL halfway through the window, keep it down ``outage_s``, start it again."""
    window.opened.wait()
    time.sleep(max(0.0, window.start + window.seconds / 2 - time.monotonic()))
    out["stopped_at"] = time.monotonic()
    server.stop("fast")
    time.sleep(outage_s)
    server.start()
    out["started_at"] = time.monotonic()


def load(
    target: Target,
    folder: Path,
    urls: list[str],
    args: argparse.Namespace,
    server: PostgresServer | None,
) -> dict:
    writes: dict = {
        "writes_ok": 0,
        "written": [],
        "write_errors": [],
        "write_s": [],
        "waited_for_catalog": 0,
    }
    window = Window(args.sessions, args.seconds)
    threads = [
        threading.Thread(target=writer_loop, args=(target, folder, w, window, writes))
        for w in range(args.writers)
    ]
    outage: dict = {}
    if server is not None and args.restart_postgres:
        threads.append(
            threading.Thread(target=restart_postgres, args=(server, window, args.outage, outage))
        )
    for thread in threads:
        thread.start()
    # The writer commands are this process's children, reaped when each ends: their CPU time.
    children_before = resource.getrusage(resource.RUSAGE_CHILDREN)
    browsing = asyncio.run(browse(urls, window, args.think, args.browsers, args.arrival))
    for thread in threads:
        thread.join()
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    browsing["cpu_s"]["writers"] = round(
        children.ru_utime + children.ru_stime - children_before.ru_utime - children_before.ru_stime
    )
    present = good_snapshot_ids(target)
    lost = sorted(set(writes["written"]) - present)
    result = {
        "page_visits": browsing["visits"],
        "errors": len(browsing["errors"]),
        "error_samples": browsing["errors"][:10],
        "cpu_seconds_during_load": browsing["cpu_s"],
        "websocket_reconnections": browsing["websockets"] - args.sessions,
        "first_page": quantiles(browsing["first_page_s"]),
        "all_arrived_after_s": browsing["arrival_s"],
        "page_switch": quantiles(browsing["switch_s"]),
        "writes_ok": writes["writes_ok"],
        "writes_failed": len(writes["write_errors"]),
        "write_error_samples": writes["write_errors"][:5],
        "writes_that_waited_for_the_catalog": writes["waited_for_catalog"],
        "write": quantiles(writes["write_s"]),
        "lost_snapshots": lost,
    }
    if outage:
        notices = browsing["outage_notices"]
        fresh_after = [t for t in browsing["fresh_at"] if t > outage["started_at"]]
        result["postgres_restart"] = {
            "down_s": round(outage["started_at"] - outage["stopped_at"], 1),
            "visits_showing_the_outage_notice": len(notices),
            "of_which_the_page_drawn_from_what_was_read_before": browsing["served_from_cache"],
            "notices_seen": sorted(browsing["outage_samples"])[:10],
            "last_notice_after_restart_s": (
                round(max(notices) - outage["started_at"], 1) if notices else None
            ),
            "first_fresh_page_after_restart_s": (
                round(min(fresh_after) - outage["started_at"], 1) if fresh_after else None
            ),
        }
    return result


def kills(target: Target, folder: Path, url: str, times: int) -> list[dict]:
    # One whole write, timed, so the kills land across the command's life (start-up included).
    started = time.perf_counter()
    timed = subprocess.run(
        [*TOKENDESK, "db", "ingest", str(price_sheet(folder, 99, 999)), "--db", target.db],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=target.env,
    )
    whole = time.perf_counter() - started
    if timed.returncode != 0:
        return [{"timed_write_failed": " ".join(timed.stderr.split())[-400:]}]
    outcomes = []
    for round_ in range(times):
        before = good_snapshot_ids(target)
        sheet = price_sheet(folder, 99, 1000 + round_)
        process = subprocess.Popen(
            [*TOKENDESK, "db", "ingest", str(sheet), "--db", target.db],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            cwd=ROOT,
            env=target.env,
        )
        time.sleep(random.uniform(0.3, 1.0) * whole)
        killed_running = process.poll() is None
        process.send_signal(signal.SIGKILL)
        process.wait()
        after = good_snapshot_ids(target)
        new = after - before
        with target.open() as wh:
            partial = wh.query(
                "SELECT count(*) AS n FROM price_quotes WHERE snapshot_id NOT IN "
                "(SELECT snapshot_id FROM snapshots WHERE status <> 'failed')"
            ).iloc[0]["n"]
            rows_new = (
                int(
                    wh.query(
                        "SELECT count(*) AS n FROM price_quotes WHERE snapshot_id = ?",
                        [sorted(new)[-1]],
                    ).iloc[0]["n"]
                )
                if new
                else 0
            )
        page_ok = asyncio.run(one_page(url))
        outcomes.append(
            {
                "killed_while_running": killed_running,
                "new_snapshots": len(new),
                "rows_in_new_snapshot": rows_new,
                "rows_outside_good_snapshots": int(partial),
                "page_renders_without_error": page_ok,
            }
        )
    return outcomes


async def one_page(url: str) -> bool:
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=BROWSER["executable"], args=ARGS)
        page = await browser.new_page()
        try:
            await page.goto(f"{url}/prices")
            await settled(page, PAGES["Prices"], 60_000)
            main = await page.locator("[data-testid='stMain']").first.inner_text()
            return not BAD.search(main) and OUTAGE not in main
        except Exception:
            return False
        finally:
            await browser.close()


def reference(url: str, seconds: float) -> dict:
    browsing = asyncio.run(browse([url], Window(1, seconds)))
    return {"page_switch": quantiles(browsing["switch_s"]), "errors": len(browsing["errors"])}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--apps", type=int, default=3)
    parser.add_argument("--writers", type=int, default=2)
    parser.add_argument("--sessions", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=120)
    parser.add_argument("--kills", type=int, default=5)
    parser.add_argument(
        "--think", type=float, default=10.0, help="mean seconds a user reads a page (0: none)"
    )
    parser.add_argument(
        "--arrival", type=float, default=0.5, help="seconds between two users' arrivals"
    )
    parser.add_argument(
        "--browsers", type=int, default=1, help="Chromium processes the tabs are spread over"
    )
    parser.add_argument(
        "--browser-priority",
        choices=("idle", "normal"),
        default="idle",
        help="idle: the browsers only get CPU the dashboards and writers leave (as if elsewhere)",
    )
    parser.add_argument("--team", action="store_true", help="DuckLake on a real PostgreSQL")
    parser.add_argument(
        "--restart-postgres", action="store_true", help="(--team) stop and start it halfway"
    )
    parser.add_argument("--outage", type=float, default=10.0, help="seconds PostgreSQL is down")
    args = parser.parse_args()
    if args.restart_postgres and not args.team:
        parser.error("--restart-postgres needs --team")
    with tempfile.TemporaryDirectory() as tmp, contextlib.ExitStack() as stack:
        folder = Path(tmp)
        if args.browser_priority == "idle":
            BROWSER["executable"] = str(idle_browser(folder))
        server = stack.enter_context(postgres_server()) if args.team else None
        if server is not None:
            target = Target(server.create_database("team_load"), str(folder / "lake-data"))
            subprocess.run(
                [*TOKENDESK, "db", "init", "--db", target.db], check=True, cwd=ROOT, env=target.env
            )
        else:
            target = Target(str(folder / "team.duckdb"))
            subprocess.run([*TOKENDESK, "db", "rebuild", "--db", target.db], check=True, cwd=ROOT)
        apps = [serve(target) for _ in range(args.apps)]
        APP_PIDS.extend(process.pid for process, _ in apps)
        urls = [url for _, url in apps]
        try:
            results: dict[str, Any] = {
                "setup": {
                    **vars(args),
                    "warehouse": "DuckLake + PostgreSQL" if args.team else "file",
                },
                "reference_one_session_no_writers": reference(urls[0], min(30, args.seconds)),
                "load": load(target, folder, urls, args, server),
                "kills": kills(target, folder, urls[0], args.kills),
            }
        finally:
            for process, _ in apps:
                process.terminate()
                process.wait(timeout=30)
    print(json.dumps(results, indent=1))
    out = ROOT / "perf" / "out"
    out.mkdir(exist_ok=True)
    name = "bench_team_load" + ("_team" if args.team else "") + ".json"
    (out / name).write_text(json.dumps(results, indent=1) + "\n")
    load_ = results["load"]
    ratio = load_["page_switch"].get("p95_s", 0) / max(
        results["reference_one_session_no_writers"]["page_switch"].get("p95_s", 1e-9), 1e-9
    )
    print(
        f"errors {load_['errors']}, lost snapshots {len(load_['lost_snapshots'])}, "
        f"page switch p95 {load_['page_switch'].get('p95_s')} s under load "
        f"({ratio:.1f}x one quiet session)",
        file=sys.stderr,
    )


if __name__ == "__main__":
    main()
