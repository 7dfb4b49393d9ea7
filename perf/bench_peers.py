"""tokendesk's harness client side by side with GuideLLM and AIPerf, against the same fake server.

    .venv/bin/python perf/bench_peers.py            # concurrency 16, 64, 256 (~10 min here)
    .venv/bin/python perf/bench_peers.py --quick    # concurrency 16 and 64, fewer requests

Every tool runs as its own process against a fresh in-repo fake server (``benchmarks.fake_server``:
first token 5 ms after the request arrives, then one token every 10 ms, 32 output tokens, usage
in the stream) with the same prompts (the chat-short golden set), the same output length and the
same closed-loop concurrency. Per tool and concurrency it reports:

* TTFT p50/p95, TPOT p50 and output throughput, computed here the same way from each tool's own
  per-request records (TPOT = (E2E - TTFT) / (output tokens - 1); throughput = output tokens /
  (last end - first start));
* the TTFT error: the tool's TTFT minus the first-token delay the server actually executed for
  that response (``/fake/stats``, joined on the response id), p50 and p95 of the signed error and
  p95 of its absolute value;
* the client's marginal CPU per streamed event: (CPU of a long run - CPU of a short run) / (extra
  content events the server wrote). CPU is the tool process's user+system time including the
  child processes it reaped (``wait4``), so AIPerf's and GuideLLM's worker processes count and
  start-up does not.

The peers live in their own virtual environment, perf/.peers-venv (gitignored; never in the
project's requirements). It is created when missing with ``python3 -m venv perf/.peers-venv`` and
``perf/.peers-venv/bin/pip install guidellm aiperf``. A peer that cannot be installed or run is
reported with the reason and the others still run.

Offline notes (this machine has no access to model hubs): AIPerf needs a tokenizer; its
``builtin`` one downloads a tiktoken file at start, so the script builds a small word-level
tokenizer from the prompts and the fake model's vocabulary (``tokenizers``, installed with the
peers) and passes its directory. AIPerf loads a local directory only with HF_HUB_OFFLINE unset
(its offline path treats the path as a hub id). AIPerf reports no response id per request, so it
runs with ``--export-level raw`` and the id is read from the first streamed packet; writing that
raw file is part of its measured CPU. Results also go to perf/out/bench_peers.json.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import ctypes
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.fake_server import _VOCAB  # noqa: E402
from benchmarks.prompts import load_prompts  # noqa: E402
from benchmarks.stats import percentile  # noqa: E402

PEERS_VENV = ROOT / "perf" / ".peers-venv"
OUT_DIR = ROOT / "perf" / "out"
WORK_DIR = OUT_DIR / "peers"
MODEL = "fake/echo-1"
TTFT_MS = 5.0
ITL_MS = 10.0
OUTPUT_TOKENS = 32
TOOLS = ("tokendesk", "guidellm", "aiperf")
#: Rounds (requests per stream) of the long run per concurrency; the short run is one round.
FULL_ROUNDS = {16: 24, 64: 8, 256: 3}
QUICK_ROUNDS = {16: 8, 64: 4}
TOOL_TIMEOUT_S = 300
_PR_SET_CHILD_SUBREAPER = 36

_TOKENIZER_SCRIPT = r"""
import json, sys
from pathlib import Path
from tokenizers import Tokenizer, models, pre_tokenizers, trainers
out, prompts, vocab = Path(sys.argv[1]), sys.argv[2], json.loads(sys.argv[3])
texts = [json.loads(line)["prompt"] for line in open(prompts)] + [" ".join(vocab)]
tok = Tokenizer(models.WordLevel(unk_token="[UNK]"))
tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
tok.train_from_iterator(texts, trainers.WordLevelTrainer(special_tokens=["[UNK]", "[EOS]"]))
out.mkdir(parents=True, exist_ok=True)
tok.save(str(out / "tokenizer.json"))
(out / "tokenizer_config.json").write_text(json.dumps({
    "tokenizer_class": "PreTrainedTokenizerFast", "unk_token": "[UNK]", "eos_token": "[EOS]",
    "model_max_length": 1000000}))
"""


# --- set-up ----------------------------------------------------------------------------------


def ensure_peers_venv() -> dict[str, str]:
    """Create perf/.peers-venv if missing; return {tool: reason} for peers that are unusable."""
    py = PEERS_VENV / "bin" / "python"
    if not py.exists():
        print(
            "creating perf/.peers-venv (python3 -m venv perf/.peers-venv && "
            "perf/.peers-venv/bin/pip install guidellm aiperf); this takes a few minutes"
        )
        subprocess.run(["python3", "-m", "venv", str(PEERS_VENV)], check=True)
        res = subprocess.run(
            [str(PEERS_VENV / "bin" / "pip"), "install", "-q", "guidellm", "aiperf"],
            capture_output=True,
            text=True,
        )
        if res.returncode != 0:
            print("pip install failed:\n" + res.stderr[-2000:])
    broken = {}
    for tool in ("guidellm", "aiperf"):
        exe = PEERS_VENV / "bin" / tool
        if not exe.exists():
            broken[tool] = f"not installed: {exe} missing after pip install guidellm aiperf"
            continue
        res = subprocess.run([str(exe), "--help"], capture_output=True, text=True, timeout=120)
        if res.returncode != 0:
            broken[tool] = f"'{tool} --help' exits {res.returncode}: {res.stderr.strip()[-300:]}"
    return broken


def peer_versions() -> dict[str, str]:
    out = {}
    for tool in ("guidellm", "aiperf"):
        res = subprocess.run(
            [str(PEERS_VENV / "bin" / "pip"), "show", tool], capture_output=True, text=True
        )
        for line in res.stdout.splitlines():
            if line.startswith("Version:"):
                out[tool] = line.split(":", 1)[1].strip()
    return out


def write_inputs(max_requests: int) -> tuple[Path, Path, Path | None]:
    """The same prompts in each tool's format, and the local tokenizer AIPerf needs.

    The golden set is repeated to ``max_requests`` rows: GuideLLM stops when its data file runs
    out (it does not cycle), so a shorter file would silently cap its request count."""
    WORK_DIR.mkdir(parents=True, exist_ok=True)
    golden = load_prompts("chat-short")
    prompts = [golden[i % len(golden)] for i in range(max_requests)]
    common = WORK_DIR / "prompts.jsonl"  # tokendesk (prompt, max_tokens), GuideLLM (prompt, ...)
    with common.open("w") as f:
        for p in prompts:
            row = {"prompt": p.text, "max_tokens": OUTPUT_TOKENS}
            row["output_tokens_count"] = OUTPUT_TOKENS
            f.write(json.dumps(row) + "\n")
    aiperf_in = WORK_DIR / "prompts_aiperf.jsonl"
    with aiperf_in.open("w") as f:
        for p in prompts:
            f.write(json.dumps({"text": p.text}) + "\n")
    tok_dir = WORK_DIR / "tokenizer"
    py = PEERS_VENV / "bin" / "python"
    if py.exists():
        res = subprocess.run(
            [str(py), "-c", _TOKENIZER_SCRIPT, str(tok_dir), str(common), json.dumps(_VOCAB)],
            capture_output=True,
            text=True,
        )
        if res.returncode != 0:
            print("could not build the local tokenizer:\n" + res.stderr[-1000:])
            return common, aiperf_in, None
    return common, aiperf_in, tok_dir


# --- the server and one measured run -----------------------------------------------------------


def start_server(
    ttft_ms: float = TTFT_MS, itl_ms: float = ITL_MS, output_tokens: int = OUTPUT_TOKENS
) -> tuple[subprocess.Popen, str]:
    """The in-repo fake server on a free port (also ``bench_trace_replay``'s), and its URL."""
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "benchmarks.fake_server",
            "--port",
            "0",
            "--ttft-ms",
            str(ttft_ms),
            "--itl-ms",
            str(itl_ms),
            "--output-tokens",
            str(output_tokens),
        ],
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    assert proc.stdout is not None
    port = int(proc.stdout.readline().split()[1])
    return proc, f"http://127.0.0.1:{port}"


def _become_subreaper() -> None:
    """Orphaned grandchildren (a tool's worker processes outliving it) are re-parented to us, so
    their CPU can be collected instead of silently going to init."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


def _orphans(exclude: set[int]) -> list[int]:
    me, out = os.getpid(), []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, ValueError, IndexError):
            pid = int(stat.parent.name)
            ppid = int(stat.read_text().rsplit(")", 1)[1].split()[1])
            if ppid == me and pid not in exclude:
                out.append(pid)
    return out


def run_measured(
    cmd: list[str], env: dict, cwd: Path, log: Path, exclude: set[int]
) -> tuple[int, float, float]:
    """Run ``cmd``; return (exit code, CPU seconds of it and all its descendants, wall seconds).

    ``wait4`` gives the tool's own CPU plus that of the children it reaped; children it left
    behind come back to us (subreaper) and are ended after a grace period and counted too."""
    t0 = time.perf_counter()
    with log.open("w") as out:
        # Own session, so a tool that hangs is ended with all the processes it started.
        proc = subprocess.Popen(
            cmd, env=env, cwd=cwd, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
        deadline = t0 + TOOL_TIMEOUT_S
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() > deadline:
                os.killpg(proc.pid, signal.SIGKILL)
            time.sleep(0.05)
    proc.returncode = os.waitstatus_to_exitcode(status)
    cpu = usage.ru_utime + usage.ru_stime
    grace = time.perf_counter() + 10
    while left := _orphans(exclude | {proc.pid}):
        for pid in left:
            if time.perf_counter() > grace:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
            with contextlib.suppress(ChildProcessError):
                done, _status, ru = os.wait4(pid, os.WNOHANG)
                if done:
                    cpu += ru.ru_utime + ru.ru_stime
        time.sleep(0.05)
    return proc.returncode, cpu, time.perf_counter() - t0


def tail(path: Path, n: int = 6) -> str:
    lines = [ln for ln in path.read_text(errors="replace").splitlines() if ln.strip()]
    return " | ".join(lines[-n:])[-600:]


# --- per tool: command line and per-request records ------------------------------------------
# Each reader returns records: {"rid", "ttft_ms", "e2e_ms", "out", "start_s", "end_s"}.


def tokendesk_cmd(url: str, conc: int, n: int, inputs: dict, run_dir: Path) -> list[str]:
    return [
        sys.executable,
        str(Path(__file__).resolve()),
        "--tokendesk-worker",
        json.dumps({"url": url, "conc": conc, "n": n, "prompts": str(inputs["common"])}),
        str(run_dir / "records.json"),
    ]


def tokendesk_worker(spec: str, out: str) -> None:
    """The harness client as ``tokendesk bench run`` drives it (the runner, warehouse aside)."""
    from benchmarks.datasets import jsonl_prompts
    from benchmarks.runner import HarnessConfig, OperatingPoint, run_point

    s = json.loads(spec)
    cfg = HarnessConfig(
        endpoint=s["url"],
        model=MODEL,
        prompts=jsonl_prompts(Path(s["prompts"])),
        workload="peers",
        num_prompts=s["n"],
        warmup=0,
        max_tokens=OUTPUT_TOKENS,
        keep_text=False,
    )
    _block, records = asyncio.run(
        run_point(cfg, OperatingPoint(concurrency=s["conc"]), return_records=True)
    )
    rows = [
        {
            "rid": r.response_id,
            "ttft_ms": r.ttft_s * 1000,
            "e2e_ms": r.e2el_s * 1000,
            "out": r.output_tokens,
            "start_s": r.sent_at,
            "end_s": r.sent_at + r.e2el_s,
        }
        for r in records
        if r.ok and r.ttft_s is not None
    ]
    Path(out).write_text(json.dumps(rows))


def tokendesk_records(run_dir: Path) -> list[dict]:
    return json.loads((run_dir / "records.json").read_text())


def guidellm_cmd(url: str, conc: int, n: int, inputs: dict, run_dir: Path) -> list[str]:
    return [
        str(PEERS_VENV / "bin" / "guidellm"),
        "run",
        "--backend",
        f"kind=openai_http,target={url},model={MODEL}",
        "--profile",
        f"kind=concurrent,streams={conc}",
        "--constraint",
        f"kind=max_requests,count={n}",
        "--data",
        f"kind=json_file,path={inputs['common']}",
        "--output",
        f"kind=json,path={run_dir / 'guidellm.json'}",
        "--disable-console",
    ]


def guidellm_records(run_dir: Path) -> list[dict]:
    doc = json.loads((run_dir / "guidellm.json").read_text())
    rows = []
    for bench in doc["benchmarks"]:
        for r in bench["requests"]["successful"]:
            if r.get("time_to_first_token_ms") is None:
                continue
            rows.append(
                {
                    "rid": r.get("response_id"),
                    "ttft_ms": r["time_to_first_token_ms"],
                    "e2e_ms": r["request_latency"] * 1000,
                    "out": r["output_tokens"],
                    "start_s": r["request_start_time"],
                    "end_s": r["request_end_time"],
                }
            )
    return rows


def aiperf_cmd(url: str, conc: int, n: int, inputs: dict, run_dir: Path) -> list[str]:
    return [
        str(PEERS_VENV / "bin" / "aiperf"),
        "profile",
        "--model",
        MODEL,
        "--url",
        url,
        "--endpoint-type",
        "chat",
        "--streaming",
        "--concurrency",
        str(conc),
        "--request-count",
        str(n),
        "--input-file",
        str(inputs["aiperf"]),
        "--custom-dataset-type",
        "single_turn",
        "--tokenizer",
        str(inputs["tokenizer"]),
        "--osl",
        str(OUTPUT_TOKENS),
        "--use-server-token-count",
        "--export-level",
        "raw",
        "--artifact-dir",
        str(run_dir / "aiperf"),
        "--ui",
        "none",
    ]


def _first_response_id(raw: dict) -> str | None:
    for resp in raw.get("responses") or []:
        for packet in resp.get("packets") or []:
            if packet.get("name") == "data" and packet.get("value", "").startswith("{"):
                return json.loads(packet["value"]).get("id")
    return None


def aiperf_records(run_dir: Path) -> list[dict]:
    base = run_dir / "aiperf"
    ids = {}
    with (base / "profile_export_raw.jsonl").open() as f:
        for line in f:
            raw = json.loads(line)
            ids[raw["metadata"]["x_request_id"]] = _first_response_id(raw)
    rows = []
    with (base / "profile_export.jsonl").open() as f:
        for line in f:
            rec = json.loads(line)
            m, meta = rec["metrics"], rec["metadata"]
            if "time_to_first_token" not in m or "request_latency" not in m:
                continue
            rows.append(
                {
                    "rid": ids.get(meta["x_request_id"]),
                    "ttft_ms": m["time_to_first_token"]["value"],
                    "e2e_ms": m["request_latency"]["value"],
                    "out": m.get("output_sequence_length", {}).get("value"),
                    "start_s": meta["request_start_ns"] / 1e9,
                    "end_s": meta["request_end_ns"] / 1e9,
                }
            )
    return rows


COMMANDS = {"tokendesk": tokendesk_cmd, "guidellm": guidellm_cmd, "aiperf": aiperf_cmd}
READERS = {"tokendesk": tokendesk_records, "guidellm": guidellm_records, "aiperf": aiperf_records}


def tool_env(tool: str) -> dict:
    env = dict(os.environ)
    env.pop("VIRTUAL_ENV", None)
    env["PYTHONPATH"] = str(ROOT)
    if tool == "guidellm":
        env["HF_HUB_OFFLINE"] = "1"
    else:  # AIPerf's offline mode cannot load a local tokenizer directory (see the docstring)
        env.pop("HF_HUB_OFFLINE", None)
    return env


def one_run(tool: str, conc: int, n: int, inputs: dict) -> dict:
    """A fresh server, one tool run, the server's record of what it did."""
    run_dir = Path(tempfile.mkdtemp(prefix=f"{tool}-{conc}-{n}-", dir=WORK_DIR))
    server, url = start_server()
    try:
        cmd = COMMANDS[tool](url, conc, n, inputs, run_dir)
        rc, cpu, wall = run_measured(
            cmd, tool_env(tool), run_dir, run_dir / "log.txt", {server.pid}
        )
        stats = httpx.get(url + "/fake/stats", timeout=30).json()
    finally:
        server.terminate()
        server.wait()
    run = {"tool": tool, "conc": conc, "requests": n, "rc": rc, "cpu_s": cpu, "wall_s": wall}
    run["events"] = stats["tokens"]  # content events the server wrote, all requests
    if rc != 0:
        run["error"] = f"exit {rc}: {tail(run_dir / 'log.txt')}"
        return run
    if run["events"] < 0.95 * n * OUTPUT_TOKENS:  # the comparison needs the same load
        run["error"] = (
            f"asked for {n} requests, the server streamed {run['events']} tokens "
            f"(expected {n * OUTPUT_TOKENS}): {tail(run_dir / 'log.txt', 3)}"
        )
        return run
    try:
        records = READERS[tool](run_dir)
    except (OSError, ValueError, KeyError) as exc:
        run["error"] = f"could not read its per-request records: {exc!r}"
        return run
    run["records"] = records
    run["server_first_token_ms"] = stats["first_token_delay_ms"]
    shutil.rmtree(run_dir, ignore_errors=True)
    return run


# --- figures ---------------------------------------------------------------------------------


def figures(short: dict, long: dict) -> dict:
    recs = long["records"]
    actual = long["server_first_token_ms"]
    errs = [r["ttft_ms"] - actual[r["rid"]] for r in recs if r["rid"] in actual]
    tpots = [
        (r["e2e_ms"] - r["ttft_ms"]) / (r["out"] - 1) for r in recs if r["out"] and r["out"] > 1
    ]
    span = max(r["end_s"] for r in recs) - min(r["start_s"] for r in recs)
    ttfts = [r["ttft_ms"] for r in recs]
    extra_events = long["events"] - short["events"]
    extra_cpu = long["cpu_s"] - short["cpu_s"]
    return {
        "requests_measured": len(recs),
        "requests_matched_to_server": len(errs),
        "ttft_p50_ms": percentile(ttfts, 50),
        "ttft_p95_ms": percentile(ttfts, 95),
        "tpot_p50_ms": percentile(tpots, 50),
        "output_tok_per_s": sum(r["out"] or 0 for r in recs) / span if span > 0 else None,
        "ttft_err_p50_ms": percentile(errs, 50),
        "ttft_err_p95_ms": percentile(errs, 95),
        "ttft_abs_err_p95_ms": percentile([abs(e) for e in errs], 95),
        "short": {k: short[k] for k in ("requests", "events", "cpu_s", "wall_s")},
        "long": {k: long[k] for k in ("requests", "events", "cpu_s", "wall_s")},
        "cpu_ms_per_event": extra_cpu / extra_events * 1000 if extra_events > 0 else None,
    }


def fmt(v, digits: int = 2) -> str:
    return "–" if v is None else f"{v:,.{digits}f}"


def print_tables(results: dict, failures: dict, concs: list[int]) -> None:
    print()
    print(
        "| tool | conc | TTFT p50 / p95 ms | TPOT p50 ms | output tok/s | TTFT err p50 / p95 ms "
        "| abs err p95 ms | CPU ms/event |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for conc in concs:
        for tool in TOOLS:
            f = results.get(tool, {}).get(conc)
            if f is None:
                why = failures.get(tool, {}).get(conc) or failures.get(tool, {}).get("all")
                print(f"| {tool} | {conc} | not measured: {why} |||||| |")
                continue
            print(
                f"| {tool} | {conc} | {fmt(f['ttft_p50_ms'])} / {fmt(f['ttft_p95_ms'])} "
                f"| {fmt(f['tpot_p50_ms'])} | {fmt(f['output_tok_per_s'], 0)} "
                f"| {fmt(f['ttft_err_p50_ms'], 3)} / {fmt(f['ttft_err_p95_ms'], 3)} "
                f"| {fmt(f['ttft_abs_err_p95_ms'], 3)} | {fmt(f['cpu_ms_per_event'], 3)} |"
            )
    print()
    print(
        "| conc | TTFT abs err p95: tokendesk / better peer | ratio | CPU per event: "
        "tokendesk / better peer | ratio |"
    )
    print("|---:|---|---:|---|---:|")
    for conc in concs:
        ours = results.get("tokendesk", {}).get(conc)
        peers = [results.get(t, {}).get(conc) for t in ("guidellm", "aiperf")]
        peers = [(t, p) for t, p in zip(("guidellm", "aiperf"), peers, strict=True) if p]
        if not ours or not peers:
            print(f"| {conc} | no comparison (a side was not measured) | | | |")
            continue
        cells = []
        for key in ("ttft_abs_err_p95_ms", "cpu_ms_per_event"):
            valid = [(t, p[key]) for t, p in peers if p[key] is not None]
            if not valid or ours[key] is None:
                cells += ["–", "–"]
                continue
            tool, best = min(valid, key=lambda tv: tv[1])
            ratio = ours[key] / best if best > 0 else None
            cells += [f"{fmt(ours[key], 3)} / {fmt(best, 3)} ({tool})", fmt(ratio)]
        print(f"| {conc} | " + " | ".join(cells) + " |")
    print(
        "\nTargets: TTFT abs error p95 <= 2 ms and no larger than either peer's (ratio <= 1); "
        "CPU per event <= 0.5x the better peer's."
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="concurrency 16 and 64, fewer rounds")
    parser.add_argument("--tools", default=",".join(TOOLS), help="comma-separated subset")
    parser.add_argument("--concurrency", help="comma-separated subset of the concurrencies")
    parser.add_argument(
        "--tokendesk-worker", nargs=2, metavar=("SPEC", "OUT"), help=argparse.SUPPRESS
    )
    args = parser.parse_args()
    if args.tokendesk_worker:
        tokendesk_worker(*args.tokendesk_worker)
        return
    rounds = QUICK_ROUNDS if args.quick else FULL_ROUNDS
    tools = [t for t in TOOLS if t in args.tools.split(",")]
    if args.concurrency:
        wanted = {int(c) for c in args.concurrency.split(",")}
        rounds = {c: r for c, r in {**FULL_ROUNDS, **rounds}.items() if c in wanted}
    started = time.perf_counter()
    _become_subreaper()
    print(
        f"host: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}; server: TTFT "
        f"{TTFT_MS:g} ms, ITL {ITL_MS:g} ms, {OUTPUT_TOKENS} output tokens"
    )
    failures: dict[str, dict] = {t: {} for t in tools}
    for tool, why in ensure_peers_venv().items():
        if tool in tools:
            failures[tool]["all"] = why
    common, aiperf_in, tok_dir = write_inputs(max(c * r for c, r in rounds.items()))
    if tok_dir is None and "aiperf" in tools:
        failures["aiperf"]["all"] = "no local tokenizer could be built (see above)"
    inputs = {"common": common, "aiperf": aiperf_in, "tokenizer": tok_dir}
    results: dict[str, dict] = {t: {} for t in tools}
    runs = []
    for conc, long_rounds in rounds.items():
        for tool in tools:
            if "all" in failures[tool]:
                continue
            short = one_run(tool, conc, conc, inputs)
            long = one_run(tool, conc, conc * long_rounds, inputs)
            for r in (short, long):
                runs.append(
                    {k: v for k, v in r.items() if k not in ("records", "server_first_token_ms")}
                )
            err = short.get("error") or long.get("error")
            if err:
                failures[tool][conc] = err
                print(f"{tool} @{conc}: FAILED {err}")
                continue
            f = figures(short, long)
            results[tool][conc] = f
            print(
                f"{tool:>9} @{conc:>3}: TTFT p50 {fmt(f['ttft_p50_ms'])} ms, err p95 "
                f"{fmt(f['ttft_err_p95_ms'], 3)} ms, CPU {fmt(f['cpu_ms_per_event'], 3)} ms/event "
                f"(short {short['cpu_s']:.1f} CPU-s/{short['wall_s']:.0f} s, long "
                f"{long['cpu_s']:.1f} CPU-s/{long['wall_s']:.0f} s; "
                f"load {os.getloadavg()[0]:.1f})",
                flush=True,
            )
    print_tables(results, failures, list(rounds))
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    (OUT_DIR / "bench_peers.json").write_text(
        json.dumps(
            {
                "date": datetime.now(UTC).isoformat(timespec="seconds"),
                "cpus": os.cpu_count(),
                "peer_versions": peer_versions(),
                "server": {"ttft_ms": TTFT_MS, "itl_ms": ITL_MS, "output_tokens": OUTPUT_TOKENS},
                "results": {t: {str(c): f for c, f in r.items()} for t, r in results.items()},
                "failures": {t: {str(c): w for c, w in f.items()} for t, f in failures.items()},
                "runs": runs,
            },
            indent=2,
        )
        + "\n"
    )
    print(f"\ntotal {time.perf_counter() - started:.0f} s; perf/out/bench_peers.json written")


if __name__ == "__main__":
    main()
