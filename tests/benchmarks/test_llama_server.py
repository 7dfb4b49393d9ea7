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
import json
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

from benchmarks.cli import bench_app
from benchmarks.prompts import load_prompts
from benchmarks.runner import HarnessConfig, OperatingPoint, run_point
from tests.benchmarks.tiny_gguf import write_tiny_llama
from warehouse import Warehouse

MODEL = "tiny-random-llama"
KEY = "test-key"


class LlamaServer:
    def __init__(self, model_path: Path, *args: str):
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
            stderr=subprocess.PIPE,
            text=True,
        )
        deadline = time.monotonic() + 120
        headers = {"Authorization": f"Bearer {KEY}"}
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"llama.cpp server exited: {self.proc.stderr.read()[-2000:]}")
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
