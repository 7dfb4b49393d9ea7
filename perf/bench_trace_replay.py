"""One request trace replayed by tokendesk's harness and by AIPerf, against the same server.

    .venv/bin/python perf/bench_trace_replay.py                     # 200 Azure code rows at 5x
    .venv/bin/python perf/bench_trace_replay.py --rows 100 --speed 10

The trace (default: the corpus's Azure LLM inference code-trace excerpt) is cut to its first
``--rows`` rows; row *i* is due ``arrival_s[i] / speed`` seconds after the first, with the row's
input length and asking for its output length. tokendesk replays it as ``tokendesk bench run
--dataset trace:FILE --trace-speed SPEED`` does (the runner in a worker process, warehouse
aside); AIPerf replays the same rows converted here to its ``mooncake_trace`` JSONL
(``timestamp`` in ms, already divided by the speed, ``input_length``, ``output_length``), which it
runs on a fixed schedule.

Each tool gets a fresh in-repo fake server (``benchmarks.fake_server``: first token ``TTFT_MS``
after arrival, then one every ``ITL_MS``, exactly ``max_tokens`` tokens) and is judged by it:
``/fake/stats`` lists each completion request's arrival time, prompt tokens (the server's
tokenizer-free count, ``benchmarks.prompts.approx_tokens``) and ``max_tokens``. From that:

* send-time error: the k-th arrival's time minus the k-th scheduled time (arrivals and schedule
  each sorted, as rows due at nearly the same moment may swap; the schedule's zero is the
  median offset, so one late first request does not shift the rest), p50/p95/max of its
  absolute value, and the first request's own lateness against that schedule;
* lengths: total input tokens the server counted and ``max_tokens`` it was asked for against the
  trace's totals, and the share of requests whose (input, output) pair matches a trace row's
  (as multisets: which row a request came from is not on the wire);
* from each tool's own per-request records: TTFT and E2E p50/p95, output tokens received, and
  goodput at the SLO (requests meeting TTFT and TPOT limits, per second of the replay);
* the request rate the server saw against the rate the schedule offered.

AIPerf needs a tokenizer to write prompts of ``input_length`` tokens and the machine has no model
hub, so the script builds a word-level one whose pieces are what ``approx_tokens`` counts as one
token (runs of at most five word characters, or one punctuation mark), trained on the prompts'
words and AIPerf's own prompt corpus: a prompt AIPerf writes at N of its tokens is then N tokens
by the server's count too. AIPerf loads a local directory only with HF_HUB_OFFLINE unset.
Results go to perf/out/bench_trace_replay.json, with the peer's version and each command line.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench_peers import start_server as peers_server  # noqa: E402

from benchmarks.stats import percentile  # noqa: E402
from benchmarks.traces import read_trace  # noqa: E402

PEERS_VENV = ROOT / "perf" / ".peers-venv"
OUT_DIR = ROOT / "perf" / "out"
WORK_DIR = OUT_DIR / "trace_replay"
DEFAULT_TRACE = ROOT / "tests/fixtures/real/traces/AzureLLMInferenceTrace_code_first2000.csv"
MODEL = "fake/echo-1"
TTFT_MS = 20.0
ITL_MS = 2.0
TOOL_TIMEOUT_S = 240

_TOKENIZER_SCRIPT = r"""
import sys
from pathlib import Path
from tokenizers import Regex, Tokenizer, models, pre_tokenizers, trainers
out = Path(sys.argv[1])
texts = [Path(p).read_text(errors="replace") for p in sys.argv[2:]]
tok = Tokenizer(models.WordLevel(unk_token="[UNK]"))
# The server's approx_tokens counts a run of word characters as ceil(len / 5) tokens and each
# punctuation mark as one: pieces of at most five word characters, or one mark, match it.
tok.pre_tokenizer = pre_tokenizers.Sequence([
    pre_tokenizers.WhitespaceSplit(),
    pre_tokenizers.Split(Regex(r"\w{1,5}|[^\w\s]"), behavior="isolated"),
])
tok.train_from_iterator(texts, trainers.WordLevelTrainer(special_tokens=["[UNK]", "[EOS]"]))
out.mkdir(parents=True, exist_ok=True)
tok.save(str(out / "tokenizer.json"))
(out / "tokenizer_config.json").write_text(
    '{"tokenizer_class": "PreTrainedTokenizerFast", "unk_token": "[UNK]", "eos_token": "[EOS]",'
    ' "model_max_length": 1000000}')
"""


# --- the trace, in each tool's input ---------------------------------------------------------


def load_rows(path: Path, rows: int) -> list[dict]:
    trace = read_trace(path)
    n = min(rows, len(trace))
    return [
        {
            "arrival_s": trace.arrival_s[i],
            "input": max(1, trace.input_tokens[i]),
            "output": max(1, trace.output_tokens[i]),
        }
        for i in range(n)
    ]


def write_aiperf_trace(rows: list[dict], speed: float, path: Path) -> None:
    """AIPerf's mooncake_trace rows: ``timestamp`` (ms after the start, already scaled by the
    speed-up), ``input_length`` and ``output_length`` in tokens."""
    with path.open("w") as f:
        for r in rows:
            row = {
                "timestamp": round(r["arrival_s"] / speed * 1000, 3),
                "input_length": r["input"],
                "output_length": r["output"],
            }
            f.write(json.dumps(row) + "\n")


def aiperf_corpus_files() -> list[str]:
    """The text files AIPerf draws synthetic prompts from (found in its installed package)."""
    site = next((PEERS_VENV / "lib").glob("python3*/site-packages/aiperf"), None)
    if site is None:
        return []
    return [str(p) for p in site.rglob("*.txt") if p.stat().st_size > 10_000]


def build_tokenizer(tok_dir: Path) -> str | None:
    """Build the local tokenizer AIPerf uses; return why not, or None."""
    corpus = aiperf_corpus_files()
    if not corpus:
        return "AIPerf's prompt corpus (a .txt file in its package) was not found"
    words = WORK_DIR / "fake_vocab.txt"
    from benchmarks.fake_server import _VOCAB

    words.write_text(" ".join(_VOCAB))
    res = subprocess.run(
        [str(PEERS_VENV / "bin" / "python"), "-c", _TOKENIZER_SCRIPT, str(tok_dir), str(words)]
        + corpus,
        capture_output=True,
        text=True,
    )
    return None if res.returncode == 0 else "tokenizer build failed: " + res.stderr[-500:]


# --- the two tools --------------------------------------------------------------------------


def tokendesk_cmd(url: str, trace: Path, rows: int, speed: float, run_dir: Path) -> list[str]:
    spec = {"url": url, "trace": str(trace), "rows": rows, "speed": speed}
    return [
        sys.executable,
        str(Path(__file__).resolve()),
        "--tokendesk-worker",
        json.dumps(spec),
        str(run_dir / "records.json"),
    ]


def tokendesk_equivalent(trace: Path, rows: int, speed: float) -> str:
    """The CLI command the worker stands for."""
    return (
        f"tokendesk bench run --endpoint URL --model {MODEL} --dataset trace:{trace.name} "
        f"--num-prompts {rows} --trace-speed {speed:g} --no-ingest (plus the hardware options)"
    )


def tokendesk_worker(spec_json: str, out: str) -> None:
    """The harness's trace replay as ``tokendesk bench run --dataset trace:`` drives it."""
    from benchmarks.datasets import trace_prompts
    from benchmarks.runner import HarnessConfig, OperatingPoint, run_point

    spec = json.loads(spec_json)
    prompts = trace_prompts(Path(spec["trace"]), limit=spec["rows"])
    cfg = HarnessConfig(
        endpoint=spec["url"],
        model=MODEL,
        prompts=prompts,
        workload="trace-replay",
        num_prompts=len(prompts),
        warmup=0,
        keep_text=False,
    )
    _block, records = asyncio.run(
        run_point(cfg, OperatingPoint(replay_speed=spec["speed"]), return_records=True)
    )
    rows = [
        {
            "ttft_ms": r.ttft_s * 1000,
            "e2e_ms": (r.e2el_s or 0.0) * 1000,
            "out": r.output_tokens,
        }
        for r in records
        if r.ok and r.ttft_s is not None
    ]
    Path(out).write_text(json.dumps(rows))


def aiperf_cmd(url: str, trace_file: Path, tok_dir: Path, run_dir: Path) -> list[str]:
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
        "--input-file",
        str(trace_file),
        "--custom-dataset-type",
        "mooncake_trace",
        "--fixed-schedule",
        "--tokenizer",
        str(tok_dir),
        "--use-server-token-count",
        "--artifact-dir",
        str(run_dir / "aiperf"),
        "--ui",
        "none",
    ]


def aiperf_records(run_dir: Path) -> list[dict]:
    rows = []
    path = next((run_dir / "aiperf").rglob("profile_export.jsonl"))
    with path.open() as f:
        for line in f:
            m = json.loads(line)["metrics"]
            if "time_to_first_token" not in m or "request_latency" not in m:
                continue
            rows.append(
                {
                    "ttft_ms": m["time_to_first_token"]["value"],
                    "e2e_ms": m["request_latency"]["value"],
                    "out": m.get("output_sequence_length", {}).get("value"),
                }
            )
    return rows


def tool_env() -> dict:
    env = dict(os.environ)
    env.pop("VIRTUAL_ENV", None)
    env.pop("HF_HUB_OFFLINE", None)  # AIPerf's offline path cannot load a local directory
    env["PYTHONPATH"] = str(ROOT)
    return env


def start_server() -> tuple[subprocess.Popen, str]:
    # Far above any trace row: every reply is exactly the max_tokens asked for.
    return peers_server(ttft_ms=TTFT_MS, itl_ms=ITL_MS, output_tokens=1_000_000)


def one_run(tool: str, cmd_for, reader, run_dir: Path) -> dict:
    """A fresh server, one tool run, what the server saw."""
    server, url = start_server()
    cmd = cmd_for(url)
    log = run_dir / f"{tool}.log"
    t0 = time.perf_counter()
    try:
        with log.open("w") as out:
            proc = subprocess.run(
                cmd,
                env=tool_env(),
                cwd=run_dir,
                stdout=out,
                stderr=subprocess.STDOUT,
                timeout=TOOL_TIMEOUT_S,
            )
        stats = httpx.get(url + "/fake/stats", timeout=30).json()
    finally:
        server.terminate()
        server.wait()
    run = {"tool": tool, "rc": proc.returncode, "wall_s": time.perf_counter() - t0}
    run["command"] = shlex.join(cmd).replace(url, "URL").replace(str(ROOT) + "/", "")
    if proc.returncode != 0:
        lines = [ln for ln in log.read_text(errors="replace").splitlines() if ln.strip()]
        run["error"] = f"exit {proc.returncode}: " + " | ".join(lines[-6:])[-800:]
        return run
    try:
        run["records"] = reader(run_dir)
    except (OSError, ValueError, KeyError, StopIteration) as exc:
        run["error"] = f"could not read its per-request records: {exc!r}"
        return run
    run["arrivals"] = stats["arrivals"]
    return run


# --- figures ---------------------------------------------------------------------------------


def multiset_share(got: list[tuple], want: list[tuple]) -> float:
    """Share of the trace's rows matched by a request with the same value (order ignored)."""
    matched = sum((Counter(got) & Counter(want)).values())
    return matched / len(want) if want else 0.0


def figures(run: dict, rows: list[dict], speed: float, slo: dict) -> dict:
    arrivals, recs = run["arrivals"], run["records"]
    sched = sorted(r["arrival_s"] / speed for r in rows)
    sched = [s - sched[0] for s in sched]
    at = [a["at_s"] for a in arrivals]
    raw = [a - s for a, s in zip(at, sched, strict=False)]
    # The schedule's zero is put where it fits best (the median offset), not at the first
    # arrival: a first request slowed by connecting would otherwise shift every other one.
    zero = percentile(raw, 50) if raw else 0.0
    errs = [(e - zero) * 1000 for e in raw]
    abs_errs = [abs(e) for e in errs]
    got_in = [a["prompt_tokens"] for a in arrivals]
    got_pairs = [(a["prompt_tokens"], a["max_tokens"]) for a in arrivals]
    want_pairs = [(r["input"], r["output"]) for r in rows]
    ttfts = [r["ttft_ms"] for r in recs]
    e2es = [r["e2e_ms"] for r in recs]
    good = [
        r
        for r in recs
        if r["ttft_ms"] <= slo["ttft_ms"]
        and (
            not r["out"]
            or r["out"] <= 1
            or (r["e2e_ms"] - r["ttft_ms"]) / (r["out"] - 1) <= slo["tpot_ms"]
        )
    ]
    span = at[-1] if len(at) > 1 else 0.0
    sched_span = sched[-1]
    return {
        "requests_due": len(rows),
        "requests_arrived": len(arrivals),
        "requests_measured": len(recs),
        "send_err_abs_p50_ms": percentile(abs_errs, 50),
        "send_err_abs_p95_ms": percentile(abs_errs, 95),
        "send_err_abs_max_ms": max(abs_errs) if abs_errs else None,
        "first_send_late_ms": errs[0] if errs else None,
        "input_tokens_sent": sum(got_in),
        "input_tokens_recorded": sum(r["input"] for r in rows),
        "output_tokens_asked": sum(a["max_tokens"] for a in arrivals),
        "output_tokens_received": sum(r["out"] or 0 for r in recs),
        "output_tokens_recorded": sum(r["output"] for r in rows),
        "pairs_matching_share": multiset_share(got_pairs, want_pairs),
        "ttft_p50_ms": percentile(ttfts, 50),
        "ttft_p95_ms": percentile(ttfts, 95),
        "e2e_p50_ms": percentile(e2es, 50),
        "e2e_p95_ms": percentile(e2es, 95),
        "rate_seen_rps": (len(at) - 1) / span if span > 0 else None,
        "rate_offered_rps": (len(rows) - 1) / sched_span if sched_span > 0 else None,
        "goodput_rps": len(good) / span if span > 0 else None,
        "goodput_share": len(good) / len(rows) if rows else None,
        # Per request, in arrival order: its send-time error against the schedule (ms).
        "send_err_ms": [round(e, 3) for e in errs],
    }


def fmt(v, digits: int = 2) -> str:
    return "–" if v is None else f"{v:,.{digits}f}"


def print_table(results: dict, failures: dict, slo: dict) -> None:
    print()
    print(
        "| tool | due / arrived / measured | send err abs p50 / p95 / max ms | first request late ms "
        "| input tok sent / recorded | output tok asked / received / recorded "
        "| (in, out) pairs as recorded | TTFT p50 / p95 ms | E2E p50 / p95 ms "
        "| rate seen / offered req/s | goodput req/s (share) |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for tool in ("tokendesk", "aiperf"):
        f = results.get(tool)
        if f is None:
            why = failures.get(tool, "not run (--tools)")
            print(f"| {tool} | not measured: {why} |||||||||| |")
            continue
        print(
            f"| {tool} | {f['requests_due']} / {f['requests_arrived']} / {f['requests_measured']} "
            f"| {fmt(f['send_err_abs_p50_ms'])} / {fmt(f['send_err_abs_p95_ms'])} / "
            f"{fmt(f['send_err_abs_max_ms'])} | {fmt(f['first_send_late_ms'])} "
            f"| {f['input_tokens_sent']:,} / {f['input_tokens_recorded']:,} "
            f"| {f['output_tokens_asked']:,} / {f['output_tokens_received']:,} / "
            f"{f['output_tokens_recorded']:,} | {fmt(100 * f['pairs_matching_share'], 1)}% "
            f"| {fmt(f['ttft_p50_ms'])} / {fmt(f['ttft_p95_ms'])} "
            f"| {fmt(f['e2e_p50_ms'])} / {fmt(f['e2e_p95_ms'])} "
            f"| {fmt(f['rate_seen_rps'], 3)} / {fmt(f['rate_offered_rps'], 3)} "
            f"| {fmt(f['goodput_rps'], 3)} ({fmt(100 * (f['goodput_share'] or 0), 1)}%) |"
        )
    ours, peer = results.get("tokendesk"), results.get("aiperf")
    if ours and peer:
        print()
        for key in ("send_err_abs_p50_ms", "send_err_abs_p95_ms", "send_err_abs_max_ms"):
            a, b = ours[key], peer[key]
            ratio = fmt(a / b) if a is not None and b else "–"
            print(f"schedule error {key[9:-3]}: tokendesk/AIPerf = {ratio}")
    print(f"\nSLO for goodput: TTFT <= {slo['ttft_ms']:g} ms and TPOT <= {slo['tpot_ms']:g} ms.")


def peer_version() -> str | None:
    res = subprocess.run(
        [str(PEERS_VENV / "bin" / "pip"), "show", "aiperf"], capture_output=True, text=True
    )
    for line in res.stdout.splitlines():
        if line.startswith("Version:"):
            return line.split(":", 1)[1].strip()
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trace", type=Path, default=DEFAULT_TRACE)
    parser.add_argument("--rows", type=int, default=200, help="the trace's first N rows")
    parser.add_argument("--speed", type=float, default=5.0, help="speed-up of the trace's clock")
    parser.add_argument("--slo-ttft-ms", type=float, default=2 * TTFT_MS)
    parser.add_argument("--slo-tpot-ms", type=float, default=1.5 * ITL_MS)
    parser.add_argument("--tools", default="tokendesk,aiperf")
    parser.add_argument(
        "--tokendesk-worker", nargs=2, metavar=("SPEC", "OUT"), help=argparse.SUPPRESS
    )
    args = parser.parse_args()
    if args.tokendesk_worker:
        tokendesk_worker(*args.tokendesk_worker)
        return
    started = time.perf_counter()
    slo = {"ttft_ms": args.slo_ttft_ms, "tpot_ms": args.slo_tpot_ms}
    args.trace = args.trace.resolve()  # the tools run in their own working directory
    rows = load_rows(args.trace, args.rows)
    WORK_DIR.mkdir(parents=True, exist_ok=True)
    run_dir = Path(tempfile.mkdtemp(prefix="run-", dir=WORK_DIR))
    load = os.getloadavg()
    print(
        f"host: {os.cpu_count()} CPUs, load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; "
        f"trace {args.trace.name}, first {len(rows)} rows at {args.speed:g}x; server: TTFT "
        f"{TTFT_MS:g} ms, ITL {ITL_MS:g} ms, output = max_tokens"
    )
    tools = args.tools.split(",")
    failures: dict[str, str] = {}
    runs: dict[str, dict] = {}
    if "tokendesk" in tools:
        runs["tokendesk"] = one_run(
            "tokendesk",
            lambda url: tokendesk_cmd(url, args.trace, len(rows), args.speed, run_dir),
            lambda d: json.loads((d / "records.json").read_text()),
            run_dir,
        )
        runs["tokendesk"]["equivalent"] = tokendesk_equivalent(args.trace, len(rows), args.speed)
    if "aiperf" in tools:
        exe = PEERS_VENV / "bin" / "aiperf"
        tok_dir = run_dir / "tokenizer"
        why = (
            f"not installed ({exe} missing; python3 -m venv perf/.peers-venv && "
            "perf/.peers-venv/bin/pip install guidellm aiperf)"
            if not exe.exists()
            else build_tokenizer(tok_dir)
        )
        if why:
            failures["aiperf"] = why
        else:
            trace_file = run_dir / "trace_aiperf.jsonl"
            write_aiperf_trace(rows, args.speed, trace_file)
            runs["aiperf"] = one_run(
                "aiperf",
                lambda url: aiperf_cmd(url, trace_file, tok_dir, run_dir),
                aiperf_records,
                run_dir,
            )
    results = {}
    for tool, run in runs.items():
        if "error" in run:
            failures[tool] = run["error"]
            print(f"{tool}: FAILED {run['error']}")
            continue
        results[tool] = figures(run, rows, args.speed, slo)
        print(f"{tool}: {run['wall_s']:.0f} s, load {os.getloadavg()[0]:.2f}; {run['command']}")
    print_table(results, failures, slo)
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    doc = {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "cpus": os.cpu_count(),
        "load_average_at_start": load,
        "trace": args.trace.name,
        "rows": len(rows),
        "speed": args.speed,
        "server": {"ttft_ms": TTFT_MS, "itl_ms": ITL_MS, "output": "max_tokens"},
        "slo": slo,
        "aiperf_version": peer_version(),
        "commands": {t: {k: r.get(k) for k in ("command", "equivalent")} for t, r in runs.items()},
        "results": results,
        "failures": failures,
    }
    (OUT_DIR / "bench_trace_replay.json").write_text(json.dumps(doc, indent=2) + "\n")
    print(
        f"\ntotal {time.perf_counter() - started:.0f} s; perf/out/bench_trace_replay.json written"
    )


if __name__ == "__main__":
    main()
