"""Harness client overhead and TTFT measurement error, against the in-repo fake server.

    .venv/bin/python perf/bench_harness_client.py            # full run (~1-2 min)
    .venv/bin/python perf/bench_harness_client.py --quick    # smaller, for a smoke check

1. Parsing throughput: SSE chunks parsed per CPU-second of the client process at 256 concurrent
   streams, for the harness client (httpx + lean transport + timing + JSON parsing of every
   event) and for a minimal raw httpx streaming loop (``aiter_lines`` and a ``data:`` count, no
   JSON, no timing) in the same run against the same server. Both use one single-connection
   AsyncClient per stream, so the comparison is about the per-chunk path (a shared
   256-connection httpx pool is quadratic in httpcore and would flatter the ratio). The ratio
   printed is harness / raw (target >= 0.8).
2. TTFT measurement error at 1, 64 and 256 streams: measured TTFT minus the first-token delay
   the server actually executed (from /fake/stats), and minus the nominal schedule.

The fake server runs in its own process. Results also go to perf/out/bench_harness_client.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.prompts import load_prompts  # noqa: E402
from benchmarks.runner import HarnessConfig, OperatingPoint, run_point  # noqa: E402
from benchmarks.stats import summary  # noqa: E402


def start_server(*args: str) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "benchmarks.fake_server", "--port", "0", *args],
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    port = int(proc.stdout.readline().split()[1])
    return proc, f"http://127.0.0.1:{port}"


async def raw_httpx(url: str, streams: int, requests_per_stream: int, bodies: list[bytes]) -> int:
    """The minimal baseline: stream lines, count data lines."""
    chunks = 0

    async def worker(i: int) -> None:
        nonlocal chunks
        async with httpx.AsyncClient(limits=httpx.Limits(max_connections=1), timeout=60) as client:
            for k in range(requests_per_stream):
                body = bodies[(i * requests_per_stream + k) % len(bodies)]
                async with client.stream(
                    "POST",
                    url + "/v1/chat/completions",
                    content=body,
                    headers={"content-type": "application/json"},
                ) as resp:
                    async for line in resp.aiter_lines():
                        if line.startswith("data:"):
                            chunks += 1

    await asyncio.gather(*(worker(i) for i in range(streams)))
    return chunks


def parse_throughput(streams: int, rounds: int, tokens: int) -> dict:
    proc, url = start_server("--ttft-ms", "5", "--itl-ms", "5", "--output-tokens", str(tokens))
    try:
        prompts = load_prompts("chat-short")
        cfg = HarnessConfig(
            endpoint=url,
            model="fake/echo-1",
            prompts=prompts,
            workload="perf",
            num_prompts=streams * rounds,
            warmup=0,
            max_tokens=tokens,
            keep_text=False,
        )
        bodies = [cfg.body_for(p) for p in prompts]
        c0, t0 = time.process_time(), time.perf_counter()
        block, records = asyncio.run(
            run_point(cfg, OperatingPoint(concurrency=streams), return_records=True)
        )
        ours_cpu, ours_wall = time.process_time() - c0, time.perf_counter() - t0
        # events parsed: role chunk + content chunks + usage chunk (+[DONE]) per request
        ours_chunks = sum(len(r.chunk_times) + 3 for r in records if r.ok)
        c0, t0 = time.process_time(), time.perf_counter()
        raw_chunks = asyncio.run(raw_httpx(url, streams, rounds, bodies))
        raw_cpu, raw_wall = time.process_time() - c0, time.perf_counter() - t0
    finally:
        proc.terminate()
    ours = ours_chunks / ours_cpu
    raw = raw_chunks / raw_cpu
    return {
        "streams": streams,
        "harness_chunks": ours_chunks,
        "harness_cpu_s": round(ours_cpu, 3),
        "harness_wall_s": round(ours_wall, 3),
        "harness_chunks_per_cpu_s": round(ours),
        "raw_chunks": raw_chunks,
        "raw_cpu_s": round(raw_cpu, 3),
        "raw_wall_s": round(raw_wall, 3),
        "raw_chunks_per_cpu_s": round(raw),
        "ratio": round(ours / raw, 3),
        "failed": block["requests"]["failed"],
    }


def ttft_error(streams_list: list[int], ttft_ms: float, itl_ms: float, rounds: int) -> list[dict]:
    proc, url = start_server("--ttft-ms", str(ttft_ms), "--itl-ms", str(itl_ms))
    out = []
    try:
        prompts = load_prompts("chat-short")
        for streams in streams_list:
            n = max(40, streams * rounds)
            cfg = HarnessConfig(
                endpoint=url,
                model="fake/echo-1",
                prompts=prompts,
                workload="perf",
                num_prompts=n,
                max_tokens=40,
                keep_text=False,
            )
            block, records = asyncio.run(
                run_point(cfg, OperatingPoint(concurrency=streams), return_records=True)
            )
            actual = httpx.get(url + "/fake/stats").json()["first_token_delay_ms"]
            ok = [r for r in records if not r.warmup and r.ok]
            err = summary([r.ttft_s * 1000 - actual[r.response_id] for r in ok])
            nominal = summary([r.ttft_s * 1000 - ttft_ms for r in ok])
            out.append(
                {
                    "streams": streams,
                    "requests": len(ok),
                    "error_vs_actual_ms": {k: round(err[k], 3) for k in ("p50", "p99")},
                    "error_vs_schedule_ms": {k: round(nominal[k], 3) for k in ("p50", "p99")},
                }
            )
    finally:
        proc.terminate()
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    rounds = 2 if args.quick else 4
    print(f"host: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}")
    tp = parse_throughput(256, rounds, 64)
    print(
        f"parse @256 streams: harness {tp['harness_chunks_per_cpu_s']:,} chunks/CPU-s, "
        f"raw httpx {tp['raw_chunks_per_cpu_s']:,} chunks/CPU-s  ->  ratio {tp['ratio']:.2f} (target >= 0.8)"
    )
    errs = ttft_error([1, 64, 256], 50.0, 20.0, 2 if args.quick else 4)
    for e in errs:
        print(
            f"TTFT error @{e['streams']:>3} streams ({e['requests']} req): vs actual p50 "
            f"{e['error_vs_actual_ms']['p50']:.3f} ms p99 {e['error_vs_actual_ms']['p99']:.3f} ms; "
            f"vs schedule p50 {e['error_vs_schedule_ms']['p50']:.3f} ms p99 "
            f"{e['error_vs_schedule_ms']['p99']:.3f} ms (target: p99 vs actual <= 2 ms)"
        )
    out_dir = ROOT / "perf" / "out"
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "bench_harness_client.json").write_text(
        json.dumps({"cpus": os.cpu_count(), "parse": tp, "ttft_error": errs}, indent=2) + "\n"
    )
    print(f"RATIO {tp['ratio']:.2f}")


if __name__ == "__main__":
    main()
