"""The harness against a real OpenAI-compatible server it was not written with: llama.cpp's, as
served by ``llama-cpp-python[server]``, loading a tiny random-weight GGUF the test writes.

The server's quirks, each checked here so a change in the server shows up as a failing test:

* the first streamed chat chunk carries the role and no text;
* no ``usage`` is streamed (``stream_options.include_usage`` is ignored), so token counts come
  from the stream; tokens that decode to no text (control tokens) still get an event each;
* it serves one request at a time, and by default a new request *interrupts* the one streaming
  (``--interrupt_requests False`` queues them instead): at concurrency > 1 the default server
  drops streams, and such a point must not be recorded.
"""

from __future__ import annotations

import asyncio
import csv
import json
import re
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from benchmarks.datasets import load_dataset
from benchmarks.prompts import approx_tokens, load_prompts
from benchmarks.runner import HarnessConfig, OperatingPoint, run_point
from cli.bench_command import bench_app
from tests.benchmarks.tiny_gguf import write_tiny_llama
from warehouse import Warehouse

MODEL = "tiny-random-llama"
AZURE_CODE = (
    Path(__file__).resolve().parents[1]
    / "fixtures"
    / "real"
    / "traces"
    / "AzureLLMInferenceTrace_code_first2000.csv"
)
KEY = "test-key"


class LlamaServer:
    def __init__(self, model_path: Path, *args: str, log: Path | None = None):
        """``log``: write the server's stderr there (its verbose log: prefix-cache hits)."""
        self.log = log
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "llama_cpp.server",
                "--model",
                str(model_path),
                "--model_alias",
                MODEL,
                "--host",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--n_ctx",
                "1024",
                "--n_threads",
                "1",
                "--verbose",
                "False",
                *args,
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE if log is None else log.open("w"),
            text=True,
        )
        deadline = time.monotonic() + 120
        headers = {"Authorization": f"Bearer {KEY}"}
        while True:
            if self.proc.poll() is not None:
                text = self.proc.stderr.read() if log is None else log.read_text()
                raise RuntimeError(f"llama.cpp server exited: {text[-2000:]}")
            try:
                if httpx.get(self.url + "/v1/models", headers=headers).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("llama.cpp server did not start in 120 s")
            time.sleep(0.3)

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


@pytest.fixture(scope="module")
def gguf_model(tmp_path_factory) -> Path:
    return write_tiny_llama(tmp_path_factory.mktemp("gguf") / "tiny.gguf", name=MODEL)


@pytest.fixture(scope="module")
def queued_server(gguf_model) -> Iterator[LlamaServer]:
    """Requests queue (one at a time) and an API key is required."""
    server = LlamaServer(gguf_model, "--interrupt_requests", "False", "--api_key", KEY)
    yield server
    server.stop()


def _args(url: str, tmp_path: Path, *extra: str) -> list[str]:
    return [
        "run",
        "--endpoint",
        url,
        "--model",
        MODEL,
        "--accelerator",
        "cpu-intel-spr-amx",
        "--accelerators-per-replica",
        "1",
        "--runtime",
        "llama.cpp",
        "--precision",
        "f32",
        "--db",
        str(tmp_path / "w.duckdb"),
        "--no-progress",
        "--telemetry",
        "off",
        "--max-tokens",
        "48",
        *extra,
    ]


def _rows(tmp_path: Path) -> list[dict]:
    db = tmp_path / "w.duckdb"
    if not db.exists():
        return []
    with Warehouse.open(db) as wh:
        frame = wh.query(
            "SELECT concurrency, output_tok_s, output_tokens, source_title FROM benchmark_results "
            "WHERE source_tool = 'tokendesk-harness'"
        )
    return frame.to_dict("records")


def test_quirks_first_chunk_without_text_and_no_streamed_usage(queued_server):
    body = {
        "model": MODEL,
        "messages": [{"role": "user", "content": "hello there"}],
        "max_tokens": 8,
        "temperature": 0,
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    events = []
    with httpx.stream(
        "POST",
        queued_server.url + "/v1/chat/completions",
        json=body,
        headers={"Authorization": f"Bearer {KEY}"},
        timeout=60,
    ) as resp:
        assert resp.status_code == 200
        for line in resp.iter_lines():
            if line.startswith("data: ") and line != "data: [DONE]":
                events.append(json.loads(line[6:]))
    first = events[0]["choices"][0]["delta"]
    assert "role" in first and not first.get("content")
    assert not any(e.get("usage") for e in events)


def test_token_counts_match_the_servers_own_count(queued_server):
    """Streamed count (1 per event, text or not) against the server's non-streamed usage."""
    prompts = load_prompts("chat-short")[:6]
    cfg = HarnessConfig(
        endpoint=queued_server.url,
        model=MODEL,
        prompts=prompts,
        workload="chat-short",
        num_prompts=len(prompts),
        warmup=0,
        max_tokens=48,
        headers={"Authorization": f"Bearer {KEY}"},
    )
    block, records = asyncio.run(run_point(cfg, OperatingPoint(concurrency=1), return_records=True))
    assert block["requests"]["failed"] == 0, block["failures"]
    assert block["tokens"]["count_basis"] == "chunks"
    own = {}
    for p in prompts:
        resp = httpx.post(
            queued_server.url + "/v1/chat/completions",
            json={
                "model": MODEL,
                "messages": p.messages(),
                "max_tokens": 48,
                "temperature": 0,
            },
            headers={"Authorization": f"Bearer {KEY}"},
            timeout=60,
        )
        own[p.prompt_id] = resp.json()["usage"]["completion_tokens"]
    server_mean = statistics.fmean(own.values())
    harness_mean = block["tokens"]["output_mean"]
    text_events_mean = statistics.fmean(len(r.chunk_times) for r in records)
    print(
        f"llama.cpp tokens/request: server {server_mean:.2f}, harness {harness_mean:.2f}, "
        f"events with text only {text_events_mean:.2f}"
    )
    assert abs(harness_mean - server_mean) <= 0.02 * server_mean
    assert block["throughput"]["output_tok_s"] > 0


def test_api_key_and_a_queued_run_is_recorded(queued_server, tmp_path, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    args = _args(queued_server.url, tmp_path, "--concurrency", "1,2", "--num-prompts", "4")
    refused = CliRunner().invoke(bench_app, args)
    assert refused.exit_code == 2 and "API key" in refused.output
    res = CliRunner().invoke(bench_app, [*args, "--api-key", KEY])
    assert res.exit_code == 0, res.output
    assert "1 per streamed event" in res.output
    rows = _rows(tmp_path)
    assert sorted(r["concurrency"] for r in rows) == [1, 2]
    assert all(r["output_tok_s"] > 0 for r in rows)
    assert all(r["source_title"].endswith("tokens: 1 per streamed event") for r in rows)


def test_interrupting_server_at_concurrency_4_is_not_recorded(gguf_model, tmp_path):
    server = LlamaServer(gguf_model, "--api_key", KEY)  # interrupt_requests defaults to True
    try:
        res = CliRunner().invoke(
            bench_app,
            [
                *_args(server.url, tmp_path, "--concurrency", "4", "--num-prompts", "12"),
                "--api-key",
                KEY,
            ],
        )
    finally:
        server.stop()
    assert res.exit_code == 1, res.output
    assert "not recorded" in res.output
    assert _rows(tmp_path) == []


# ------------------------------------------------------------------ workload shapes
# llama.cpp keeps the KV cache of the last sequence it evaluated and, with --verbose, says for
# each request how many prompt tokens it took from there ("N prefix-match hit, remaining M
# prompt tokens to eval"): the server's own count of the prefix reuse each data set offers.
HIT = re.compile(r"(\d+) prefix-match hit, remaining (\d+) prompt tokens")


@pytest.fixture(scope="module")
def verbose_server(gguf_model, tmp_path_factory) -> Iterator[LlamaServer]:
    log = tmp_path_factory.mktemp("llama-log") / "server.log"
    server = LlamaServer(gguf_model, "--interrupt_requests", "False", "--verbose", "True", log=log)
    yield server
    server.stop()


def _hits(server: LlamaServer, since: int) -> tuple[list[tuple[int, int]], int]:
    """(hit, remaining) per request logged after byte ``since``, and the log's length now."""
    assert server.log is not None
    text = server.log.read_text()
    return [(int(a), int(b)) for a, b in HIT.findall(text[since:])], len(text)


def _shape_run(server: LlamaServer, tmp_path: Path, dataset: str, *extra: str) -> dict:
    out = tmp_path / f"{len(list(tmp_path.iterdir()))}.json"
    args = [*_args(server.url, tmp_path, "--concurrency", "1"), "--dataset", dataset]
    res = CliRunner().invoke(bench_app, [*args, "--warmup", "0", "-o", str(out), *extra])
    assert res.exit_code == 0, res.output
    return json.loads(out.read_text())


def test_shared_prefix_share_shows_in_the_servers_prompt_cache(verbose_server, tmp_path):
    _, start = _hits(verbose_server, 0)
    doc = _shape_run(verbose_server, tmp_path, "prefix:60:4:0.8", "--num-prompts", "5")
    shared, after_shared = _hits(verbose_server, start)
    _shape_run(verbose_server, tmp_path, "prefix:60:4:0", "--num-prompts", "5")
    unique, _ = _hits(verbose_server, after_shared)
    # Every request after the first reuses the shared system prompt: ~80% of its prompt.
    shares = [hit / (hit + rest) for hit, rest in shared[-4:]]
    print(f"llama.cpp prefix reuse at a designed 0.8: {[f'{x:.2f}' for x in shares]}")
    assert len(shared) >= 4 and all(0.7 <= x <= 0.95 for x in shares)
    # Without a shared prefix only the chat template's opening tokens match.
    assert all(hit / (hit + rest) < 0.2 for hit, rest in unique[-4:])
    shape = doc["config"]["workload_shape"]
    # over the data set's 64 prompts, each once: 63 of 64 reuse 48 of 60 tokens (0.79), plus
    # leading words a unique part happens to share with an earlier one
    assert 0.78 <= shape["prefix_cache_share"] <= 0.83
    assert shape["input_tokens_mean"] == 60
    with Warehouse.open(tmp_path / "w.duckdb") as wh:
        stored = wh.query(
            "SELECT prefix_cache_share, workload FROM benchmark_results "
            "WHERE source_tool = 'tokendesk-harness' ORDER BY prefix_cache_share"
        ).to_dict("records")
    assert [r["workload"] for r in stored] == ["prefix-60-4-0", "prefix-60-4-0.8"]
    assert stored[1]["prefix_cache_share"] == pytest.approx(shape["prefix_cache_share"])


def test_multi_turn_context_grows_and_the_cache_keeps_up(verbose_server, tmp_path):
    _, start = _hits(verbose_server, 0)
    doc = _shape_run(verbose_server, tmp_path, "sessions:2:3:12:4", "--num-prompts", "6")
    hits, _ = _hits(verbose_server, start)
    assert doc["operating_points"][0]["requests"]["ok"] == 6
    # Turns 2 and 3 of each session find the earlier turns in the cache, more each turn.
    per_turn = [hit for hit, _ in hits[-6:]]
    print(f"llama.cpp prefix-match per turn (2 sessions x 3 turns): {per_turn}")
    for session in (per_turn[0:3], per_turn[3:6]):
        assert session[1] > 40 and session[2] > session[1]
    assert doc["config"]["workload_shape"]["prefix_cache_share"] > 0.3


def test_trace_replay_sends_at_the_recorded_times_scaled(queued_server, tmp_path):
    """Real Azure code-trace rows (the short-prompt ones of the excerpt, so they fit the tiny
    model's 1,024-token context), replayed 20x faster with their recorded lengths."""
    with AZURE_CODE.open(newline="") as f:
        rows = list(csv.reader(f))
    short = [r for r in rows[1:] if int(r[1]) <= 90][:6]
    trace = tmp_path / "short.csv"
    trace.write_text("\r\n".join(",".join(r) for r in [rows[0], *short]) + "\r\n")
    prompts, name = load_dataset(f"trace:{trace}", "chat-short")
    cfg = HarnessConfig(
        endpoint=queued_server.url,
        model=MODEL,
        prompts=prompts,
        workload="trace",
        num_prompts=len(prompts),
        max_tokens=4,
        headers={"Authorization": f"Bearer {KEY}"},
    )
    speed = 20.0
    block, records = asyncio.run(
        run_point(cfg, OperatingPoint(replay_speed=speed), return_records=True)
    )
    assert block["requests"] == {
        "sent": 6,
        "warmup": 0,
        "ok": 6,
        "failed": 0,
        "failure_reasons": {},
    }
    sent = sorted(r.sent_at for r in records)
    planned = [p.meta["arrival_s"] / speed for p in prompts]
    late = [(s - sent[0]) - p for s, p in zip(sent, planned, strict=True)]
    print(f"replay lateness (s): {[f'{x:.3f}' for x in late]}")
    # Never sent before its scaled time (the first request's own connection set-up can make the
    # others look a little early). How late a busy machine makes a send is not this test's
    # business: the scaling is shown by the whole replay taking less than the trace's own span,
    # twenty times longer than the scaled one.
    assert all(x >= -0.05 for x in late)
    assert sent[-1] - sent[0] < prompts[-1].meta["arrival_s"]
    assert block["replay"]["speed"] == speed
    assert block["request_rate_rps"] == pytest.approx(5 / planned[-1])
    # The lengths sent are the recorded ones (by the harness's token estimate).
    assert [approx_tokens(p.text) for p in prompts] == [int(r[1]) for r in short]
