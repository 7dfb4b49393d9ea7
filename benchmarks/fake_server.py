# Long by design: one server on raw sockets and one event loop (see below): its configuration,
# token schedule, stream writer and connection handler are one timing path, kept together so the
# per-chunk cost that path adds can be read, and bounded, in one place.
"""A small OpenAI-compatible streaming server with a controlled token schedule.

It writes the same SSE wire format as vLLM's OpenAI server (``data: {json}\\n\\n`` events over a
chunked HTTP/1.1 response, a role-only first chunk for chat, ``finish_reason`` on the last content
chunk, a usage-only chunk with empty ``choices`` when ``stream_options.include_usage`` is set,
then ``data: [DONE]``), so the harness can be tested, demonstrated and profiled without a GPU.

Timing: a request is stamped with the kernel's arrival time of its last bytes (so a busy host does
not shift the schedule); the first content token is written at ``stamp + ttft_ms`` and token *i*
at ``stamp + ttft_ms + i * itl_ms`` (absolute deadlines, so timer lateness does not accumulate).
It runs on raw non-blocking sockets on one event loop (no framework), to keep its own per-chunk
cost far below the schedule being measured. ``GET /fake/stats`` reports what it actually did:
each response's real first-token delay, how late tokens were written, and when each request
arrived with its prompt length and ``max_tokens``.

Outputs are deterministic at every temperature: token *i* is a word picked by hashing the prompt
and *i*. ``drift`` replaces that fraction of positions with another word, which imitates a
quantised backend whose greedy outputs diverge from the reference.

Fault injection for tests: a prompt containing ``[[fault:http500]]``, ``[[fault:drop]]`` (the
connection is cut mid-stream), ``[[fault:malformed]]`` (a broken SSE line), ``[[fault:empty]]``
(a valid stream with no output text, ``finish_reason`` "stop"), ``[[fault:cutshort]]`` (two
chunks, then ``[DONE]`` with no finish reason, as llama-cpp-python cuts a stream short) or
``[[fault:notsse]]`` (a 200 answer that is plain JSON, not an event stream) triggers that fault.
With ``api_key`` set, every route but ``/health`` answers 401 unless the request carries
``Authorization: Bearer <key>``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hashlib
import itertools
import json
import socket
import time
from dataclasses import dataclass

from benchmarks.netio import enable_rx_timestamps, recv_stamped
from benchmarks.prompts import approx_tokens

_VOCAB = [
    "the",
    "of",
    "and",
    "to",
    "in",
    "is",
    "that",
    "for",
    "it",
    "as",
    "with",
    "was",
    "on",
    "be",
    "by",
    "this",
    "are",
    "or",
    "from",
    "at",
    "which",
    "an",
    "have",
    "not",
    "they",
    "but",
    "one",
    "all",
    "we",
    "can",
    "has",
    "more",
    "their",
    "will",
    "been",
    "if",
    "would",
    "there",
    "so",
    "what",
    "when",
    "up",
    "out",
    "about",
    "into",
    "than",
    "other",
    "some",
    "time",
    "could",
    "these",
    "two",
    "may",
    "then",
    "first",
    "any",
    "like",
    "now",
    "such",
    "only",
    "new",
    "over",
    "also",
    "most",
    "after",
    "use",
    "way",
    "even",
    "well",
    "many",
    "because",
    "through",
    "where",
    "each",
    "much",
    "before",
    "must",
    "back",
    "latency",
    "token",
    "cache",
    "memory",
    "batch",
    "kernel",
    "stream",
    "region",
    "price",
    "replica",
    "queue",
    "shard",
    "vendor",
]


@dataclass
class FakeServerConfig:
    ttft_ms: float = 50.0
    itl_ms: float = 10.0
    #: Fixed output length; None = a prompt-dependent natural length (8..71), capped by max_tokens.
    output_tokens: int | None = None
    drift: float = 0.0
    model: str = "fake/echo-1"
    include_role_chunk: bool = True
    #: Send usage on the final chunk when the client asks for it (set False to test the fallback).
    honour_include_usage: bool = True
    #: Require ``Authorization: Bearer <api_key>`` (None = open, like a local vLLM).
    api_key: str | None = None
    #: Inject ``fault_kind`` into every n-th completion request (0 = never), for validity tests.
    fault_every: int = 0
    fault_kind: str = "drop"


def _h(*parts: str) -> int:
    return int.from_bytes(
        hashlib.blake2b("\x1f".join(parts).encode(), digest_size=8).digest(), "big"
    )


def natural_length(prompt: str) -> int:
    return 8 + _h(prompt, "len") % 64


def fake_output_tokens(
    prompt: str, max_tokens: int, *, drift: float = 0.0, output_tokens: int | None = None
) -> list[str]:
    """The deterministic output the fake model gives for ``prompt`` (each token a spaced word)."""
    n = output_tokens if output_tokens is not None else natural_length(prompt)
    n = max(1, min(n, max_tokens))
    seed = hashlib.blake2b(prompt.encode(), digest_size=8).hexdigest()
    out = []
    for i in range(n):
        idx = _h(seed, str(i)) % len(_VOCAB)
        if drift > 0 and (_h(seed, str(i), "drift") % 10_000) < drift * 10_000:
            idx = (idx + 1 + _h(seed, str(i), "alt") % (len(_VOCAB) - 1)) % len(_VOCAB)
        out.append(" " + _VOCAB[idx])
    return out


def prompt_text_of(body: dict, chat: bool) -> str:
    """The text the fake model conditions on: message contents joined, or the prompt."""
    if not chat:
        prompt = body.get("prompt", "")
        return prompt if isinstance(prompt, str) else "\n".join(map(str, prompt))
    parts = []
    for msg in body.get("messages") or []:
        content = msg.get("content", "")
        if isinstance(content, list):
            content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
        parts.append(str(content))
    return "\n\n".join(parts)


_OK_SSE = (
    b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream; charset=utf-8\r\n"
    b"cache-control: no-cache\r\ntransfer-encoding: chunked\r\n\r\n"
)


def _chunk(payload: bytes) -> bytes:
    return b"%x\r\n%s\r\n" % (len(payload), payload)


def _event(obj: dict) -> bytes:
    return _chunk(b"data: " + json.dumps(obj, separators=(",", ":")).encode() + b"\n\n")


def _plain(status: str, obj: dict) -> bytes:
    body = json.dumps(obj).encode()
    return (
        f"HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {len(body)}\r\n\r\n".encode()
        + body
    )


_IDS = itertools.count(1)


class _Stream:
    """One streaming response, driven by timer callbacks at absolute deadlines."""

    __slots__ = (
        "base",
        "cfg",
        "chat",
        "conn",
        "fault",
        "handle",
        "i",
        "loop",
        "rid",
        "t0",
        "tokens",
        "usage",
    )

    def __init__(
        self,
        conn: _Conn,
        cfg: FakeServerConfig,
        chat: bool,
        tokens: list[str],
        t0: float,
        usage: dict | None,
        fault: str,
        model: str,
    ):
        self.conn, self.cfg, self.chat, self.tokens, self.t0 = conn, cfg, chat, tokens, t0
        self.loop = conn.loop
        self.i = 0
        self.usage = usage
        self.fault = fault
        self.rid = f"{'chatcmpl' if chat else 'cmpl'}-{next(_IDS):012d}"
        obj = "chat.completion.chunk" if chat else "text_completion"
        self.base = {"id": self.rid, "object": obj, "created": int(time.time()), "model": model}
        self.handle: asyncio.TimerHandle | None = None

    def start(self) -> None:
        out = _OK_SSE
        if self.chat and self.cfg.include_role_chunk:
            out += _event(
                {
                    **self.base,
                    "choices": [
                        {
                            "index": 0,
                            "delta": {"role": "assistant", "content": ""},
                            "logprobs": None,
                            "finish_reason": None,
                        }
                    ],
                }
            )
        self.conn.write(out)
        self.handle = self.loop.call_at(self.t0 + self.cfg.ttft_ms / 1000.0, self.tick)

    def cancel(self) -> None:
        if self.handle is not None:
            self.handle.cancel()

    def tick(self) -> None:
        conn = self.conn
        if conn.closed:
            return
        if not self.tokens:  # an empty completion: a finish chunk with no text, then [DONE]
            delta: dict[str, object] = {"delta": {}} if self.chat else {"text": ""}
            done = {**self.base, "choices": [{"index": 0, **delta, "finish_reason": "stop"}]}
            out = _event(done)
            if self.usage is not None:
                out += _event({**self.base, "choices": [], "usage": self.usage})
            conn.write(out + _chunk(b"data: [DONE]\n\n") + b"0\r\n\r\n")
            conn.stream_done()
            return
        i = self.i
        last = i == len(self.tokens) - 1
        if self.fault == "drop" and i == 2:
            conn.abort()
            return
        if self.fault == "cutshort" and i == 2:
            # llama-cpp-python's answer to a streaming request when the next one arrives: a clean
            # [DONE] after the chunk in flight, no chunk with a finish reason before it.
            conn.write(_chunk(b"data: [DONE]\n\n") + b"0\r\n\r\n")
            conn.stream_done()
            return
        if self.fault == "malformed" and i == 2:
            conn.write(_chunk(b'data: {"id": "broken", "choices": [\n\n'))
        finish = "length" if last else None
        if self.chat:
            choice = {
                "index": 0,
                "delta": {"content": self.tokens[i]},
                "logprobs": None,
                "finish_reason": finish,
            }
        else:
            choice = {
                "index": 0,
                "text": self.tokens[i],
                "logprobs": None,
                "finish_reason": finish,
                "stop_reason": None,
            }
        out = _event({**self.base, "choices": [choice]})
        if last:
            if self.usage is not None:
                out += _event({**self.base, "choices": [], "usage": self.usage})
            out += _chunk(b"data: [DONE]\n\n") + b"0\r\n\r\n"
        now = self.loop.time()
        conn.write(out)
        stats = conn.server
        stats.lateness_s.append(now - (self.t0 + (self.cfg.ttft_ms + i * self.cfg.itl_ms) / 1000.0))
        if i == 0:
            stats.first_token_delay_s[self.rid] = now - self.t0
        if last:
            conn.stream_done()
            return
        self.i = i + 1
        self.handle = self.loop.call_at(
            self.t0 + (self.cfg.ttft_ms + self.i * self.cfg.itl_ms) / 1000.0, self.tick
        )


class _Conn:
    """One client connection on a raw non-blocking socket.

    Reads go through ``recvmsg`` so each request is stamped with the kernel's arrival time, and
    the token schedule starts from when the request reached the machine, not from when this
    process got round to reading it (on a busy host that can be milliseconds later).
    """

    def __init__(self, server: FakeServer, sock: socket.socket):
        self.server = server
        self.cfg = server.config
        self.loop = asyncio.get_running_loop()
        self.sock = sock
        self.fd = sock.fileno()
        self.buf = b""
        self.buf_time = 0.0
        self.out = bytearray()
        self.closed = False
        self.active: _Stream | None = None
        enable_rx_timestamps(sock)
        self.loop.add_reader(self.fd, self._readable)

    # -- output
    def write(self, data: bytes) -> None:
        if self.closed:
            return
        if not self.out:
            try:
                sent = self.sock.send(data)
            except (BlockingIOError, InterruptedError):
                sent = 0
            except OSError:
                self.abort()
                return
            if sent == len(data):
                return
            data = data[sent:]
            self.loop.add_writer(self.fd, self._writable)
        self.out += data

    def _writable(self) -> None:
        try:
            sent = self.sock.send(self.out)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            self.abort()
            return
        del self.out[:sent]
        if not self.out:
            self.loop.remove_writer(self.fd)

    def abort(self) -> None:
        if self.closed:
            return
        self.closed = True
        self.loop.remove_reader(self.fd)
        self.loop.remove_writer(self.fd)
        self.sock.close()
        self.server.connections.discard(self)
        if self.active is not None:
            self.active.cancel()

    # -- input
    def _readable(self) -> None:
        try:
            data, stamp = recv_stamped(self.sock, 65536, clock=self.loop.time)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            self.abort()
            return
        if not data:
            self.abort()
            return
        self.buf += data
        self.buf_time = stamp  # arrival of the newest bytes: a request is complete when they are
        if self.active is None:
            self._process()

    def stream_done(self) -> None:
        self.active = None
        if self.buf:
            self._process()

    def _process(self) -> None:
        while self.active is None and not self.closed:
            head_end = self.buf.find(b"\r\n\r\n")
            if head_end < 0:
                return
            lines = self.buf[:head_end].decode("latin-1").split("\r\n")
            try:
                method, target, _ = lines[0].split(" ", 2)
            except ValueError:
                self.write(_plain("400 Bad Request", {"error": "bad request line"}))
                self.abort()
                return
            length = 0
            auth = ""
            for line in lines[1:]:
                name, _, value = line.partition(":")
                name = name.strip().lower()
                if name == "content-length":
                    length = int(value.strip())
                elif name == "authorization":
                    auth = value.strip()
            if len(self.buf) < head_end + 4 + length:
                return
            body = self.buf[head_end + 4 : head_end + 4 + length]
            self.buf = self.buf[head_end + 4 + length :]
            self._handle(method, target.split("?", 1)[0], body, self.buf_time, auth)

    def _handle(self, method: str, path: str, raw: bytes, t0: float, auth: str = "") -> None:
        self.server.requests += 1
        key = self.cfg.api_key
        if key is not None and path != "/health" and auth != f"Bearer {key}":
            self.write(
                _plain(
                    "401 Unauthorized",
                    {"error": {"message": "Invalid API key", "type": "invalid_request_error"}},
                )
            )
            return
        if method == "GET" and path == "/fake/stats":
            self.write(_plain("200 OK", self.server.stats()))
            return
        if method == "GET" and path in ("/health", "/v1/models"):
            payload = (
                {"object": "list", "data": [{"id": self.cfg.model, "object": "model"}]}
                if path == "/v1/models"
                else {"status": "ok"}
            )
            self.write(_plain("200 OK", payload))
            return
        if method != "POST" or path not in ("/v1/chat/completions", "/v1/completions"):
            self.write(_plain("404 Not Found", {"error": {"message": f"no route {method} {path}"}}))
            return
        chat = path == "/v1/chat/completions"
        try:
            body = json.loads(raw)
        except ValueError:
            self.write(_plain("400 Bad Request", {"error": {"message": "body is not JSON"}}))
            return
        prompt = prompt_text_of(body, chat)
        fault = ""
        for name in ("http500", "drop", "malformed", "empty", "notsse", "cutshort"):
            if f"[[fault:{name}]]" in prompt:
                fault = name
        self.server.completions += 1
        if self.cfg.fault_every and self.server.completions % self.cfg.fault_every == 0:
            fault = self.cfg.fault_kind
        if fault == "http500":
            self.write(
                _plain(
                    "500 Internal Server Error",
                    {
                        "object": "error",
                        "message": "injected failure",
                        "type": "InternalServerError",
                        "code": 500,
                    },
                )
            )
            return
        max_tokens = int(body.get("max_completion_tokens") or body.get("max_tokens") or 16)
        tokens = fake_output_tokens(
            prompt, max_tokens, drift=self.cfg.drift, output_tokens=self.cfg.output_tokens
        )
        if fault == "empty":
            tokens = []
        model = body.get("model") or self.cfg.model
        n_prompt = approx_tokens(prompt)
        # Arrival order and lengths as received, so a client's schedule and lengths can be judged
        # here, by one referee, whichever tool sent them.
        self.server.arrivals.append((t0, n_prompt, max_tokens))
        usage = {
            "prompt_tokens": n_prompt,
            "completion_tokens": len(tokens),
            "total_tokens": n_prompt + len(tokens),
        }
        if not body.get("stream") or fault == "notsse":
            text = "".join(tokens)
            if chat:
                choice = {
                    "index": 0,
                    "message": {"role": "assistant", "content": text},
                    "finish_reason": "length" if tokens else "stop",
                }
            else:
                choice = {"index": 0, "text": text, "finish_reason": "length" if tokens else "stop"}
            self.write(
                _plain(
                    "200 OK",
                    {
                        "id": "fake",
                        "object": "chat.completion" if chat else "text_completion",
                        "created": int(time.time()),
                        "model": model,
                        "choices": [choice],
                        "usage": usage,
                    },
                )
            )
            return
        opts = body.get("stream_options") or {}
        send_usage = bool(opts.get("include_usage")) and self.cfg.honour_include_usage
        stream = _Stream(
            self, self.cfg, chat, tokens, t0, usage if send_usage else None, fault, model
        )
        self.active = stream
        stream.start()


class FakeServer:
    def __init__(self, config: FakeServerConfig | None = None):
        self.config = config or FakeServerConfig()
        self.connections: set[_Conn] = set()
        self.requests = 0
        self.completions = 0
        self._sock: socket.socket | None = None
        #: How late each token was written against its deadline (timer and CPU lateness).
        self.lateness_s: list[float] = []
        #: Response id -> seconds from request arrival to the first content token actually written.
        self.first_token_delay_s: dict[str, float] = {}
        #: Each completion request as it arrived: (arrival stamp, prompt tokens, max_tokens).
        self.arrivals: list[tuple[float, int, int]] = []

    async def start(self, host: str = "127.0.0.1", port: int = 0) -> int:
        self._sock = socket.create_server((host, port), backlog=1024)
        # Set on the listening socket so accepted sockets inherit it: a request that arrives
        # before its connection is accepted is still stamped when it reached the machine.
        enable_rx_timestamps(self._sock)
        self._sock.setblocking(False)
        asyncio.get_running_loop().add_reader(self._sock.fileno(), self._accept)
        return self._sock.getsockname()[1]

    def _accept(self) -> None:
        if self._sock is None:  # closed while a readiness callback was queued
            return
        for _ in range(64):
            try:
                conn, _addr = self._sock.accept()
            except OSError:  # BlockingIOError included: nothing left to accept
                return
            conn.setblocking(False)
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self.connections.add(_Conn(self, conn))

    async def close(self) -> None:
        if self._sock is not None:
            asyncio.get_running_loop().remove_reader(self._sock.fileno())
            self._sock.close()
            self._sock = None
        for conn in list(self.connections):
            conn.abort()

    def stats(self) -> dict:
        """What the server actually did, for judging a client's measurement error."""
        late = sorted(self.lateness_s)

        def pct(q: float) -> float | None:
            return late[min(len(late) - 1, int(q / 100 * len(late)))] * 1000 if late else None

        return {
            "requests": self.requests,
            "tokens": len(late),
            "lateness_ms": {
                "p50": pct(50),
                "p99": pct(99),
                "max": late[-1] * 1000 if late else None,
            },
            "first_token_delay_ms": {k: v * 1000 for k, v in self.first_token_delay_s.items()},
            "arrivals": self._arrivals_json(),
        }

    def _arrivals_json(self) -> list[dict]:
        """Completion requests in arrival order, timed from the first one's arrival."""
        arrivals = sorted(self.arrivals)
        first = arrivals[0][0] if arrivals else 0.0
        return [{"at_s": t - first, "prompt_tokens": n, "max_tokens": m} for t, n, m in arrivals]


async def serve(
    config: FakeServerConfig, host: str, port: int, *, duration_s: float | None = None, ready=None
) -> None:
    """Serve until cancelled (or for ``duration_s``); ``ready(port)`` is called once listening."""
    server = FakeServer(config)
    bound = await server.start(host, port)
    if ready is not None:
        ready(bound)
    try:
        if duration_s is None:
            await asyncio.Event().wait()
        else:
            await asyncio.sleep(duration_s)
    finally:
        await server.close()


def main(argv: list[str] | None = None) -> None:
    """``python -m benchmarks.fake_server``: prints ``PORT <n>`` once listening."""

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--ttft-ms", type=float, default=50.0)
    parser.add_argument("--itl-ms", type=float, default=10.0)
    parser.add_argument("--output-tokens", type=int, default=None)
    parser.add_argument("--drift", type=float, default=0.0)
    parser.add_argument("--model", default="fake/echo-1")
    parser.add_argument("--no-usage", action="store_true")
    parser.add_argument("--duration-s", type=float, default=None)
    parser.add_argument("--api-key", default=None)
    parser.add_argument("--fault-every", type=int, default=0)
    parser.add_argument("--fault-kind", default="drop")
    args = parser.parse_args(argv)
    cfg = FakeServerConfig(
        ttft_ms=args.ttft_ms,
        itl_ms=args.itl_ms,
        output_tokens=args.output_tokens,
        drift=args.drift,
        model=args.model,
        honour_include_usage=not args.no_usage,
        api_key=args.api_key,
        fault_every=args.fault_every,
        fault_kind=args.fault_kind,
    )

    def ready(port: int) -> None:
        print(f"PORT {port}", flush=True)

    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve(cfg, args.host, args.port, duration_s=args.duration_s, ready=ready))


if __name__ == "__main__":
    main()
