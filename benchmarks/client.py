"""The harness's streaming client: one OpenAI-compatible request, timed chunk by chunk.

Time stamps are taken with ``time.perf_counter()`` the moment a network read returns, *before*
the bytes are parsed, so parsing cost never inflates a latency. Definitions (vLLM's, with one
deliberate difference):

* **TTFT** is stamped at the first event that carries output text (``delta.content`` or
  ``delta.reasoning_content`` for chat, ``text`` for completions). vLLM's client stamps the first
  event with ``choices``, which for chat is the role-only chunk and makes TTFT optimistic; that
  time is kept separately as ``ttfc`` (time to first chunk).
* **Inter-chunk latency** = gaps between successive content events (vLLM ``itl``, AIPerf
  ``inter_chunk_latency``).
* **TPOT** = (E2EL − TTFT) / (output_tokens − 1).
* **E2EL** = send → last data event (not ``[DONE]``).
* Token counts come from the final ``usage`` chunk (``stream_options.include_usage``). If the
  server sends none, the output count falls back to one token per streamed event (every event
  with a choice, the role-only first chunk and a text-less finish chunk excepted) and the record
  says ``token_count_basis = "chunks"``; the runner replaces that with a tokenizer's count of the
  text when it has a tokenizer (``"tokenizer"``).
* A stream that ends with ``data: [DONE]`` but carries no text is a valid *empty completion*
  (0 output tokens, no TTFT), not a failure, when a choice gave its finish reason; ``[DONE]``
  before any finish reason is a stream the server cut short (``cut_short``), a failure.

Any failure (HTTP status, dropped connection, malformed SSE, a 200 answer that is not an event
stream, server error event, timeout) is returned as a record with ``error`` set; nothing here
raises for a bad server.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import ssl
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpcore
import httpx

from benchmarks.netio import LeanAsyncioBackend

# httpcore runs ``import sniffio`` on every pool and lock operation and falls back to asyncio when
# the import fails. A failed import is not cached, so without sniffio installed every request paid
# for a filesystem search of sys.path (measured: ~0.2 ms per request, most of the client's CPU at
# 64 streams). A ``None`` entry makes that import fail at dictionary speed with the same fallback.
if "sniffio" not in sys.modules and importlib.util.find_spec("sniffio") is None:
    sys.modules["sniffio"] = None  # type: ignore[assignment]

TOKEN_BASIS_USAGE = "usage"
TOKEN_BASIS_TOKENIZER = "tokenizer"
TOKEN_BASIS_CHUNKS = "chunks"
#: What each basis means, in words for the console, the costs table and the pages.
TOKEN_BASIS_WORDS = {
    TOKEN_BASIS_USAGE: "server usage",
    TOKEN_BASIS_TOKENIZER: "tokenizer",
    TOKEN_BASIS_CHUNKS: "1 per streamed event",
}


class MalformedSSE(ValueError):
    pass


class SSEParser:
    """Incremental Server-Sent-Events splitter returning the ``data:`` payloads as bytes."""

    __slots__ = ("_buf",)

    def __init__(self) -> None:
        self._buf = b""

    def feed(self, data: bytes) -> list[bytes]:
        buf = self._buf + data if self._buf else data
        if b"\r" in buf:
            buf = buf.replace(b"\r\n", b"\n")
        out: list[bytes] = []
        start = 0
        while True:
            end = buf.find(b"\n\n", start)
            if end < 0:
                break
            block = buf[start:end]
            start = end + 2
            if block.startswith(b"data:") and b"\n" not in block:  # the common case: one line
                out.append(block[5:].lstrip(b" "))
                continue
            payload = [
                line[5:].lstrip(b" ") for line in block.split(b"\n") if line.startswith(b"data:")
            ]
            if payload:
                out.append(b"\n".join(payload))
            # comment lines (":" pings), "event:", "id:", "retry:" carry nothing we time
        self._buf = buf[start:]
        return out

    @property
    def pending(self) -> bytes:
        return self._buf


@dataclass
class RequestRecord:
    index: int
    prompt_id: str
    warmup: bool
    sent_at: float = 0.0  # perf_counter seconds
    ttft_s: float | None = None
    ttfc_s: float | None = None
    e2el_s: float | None = None
    #: perf_counter stamps of each content event (for the steady-state window and ITL).
    chunk_times: list[float] = field(default_factory=list)
    #: Events that carried a choice, the role-only first chunk and text-less finish excepted;
    #: servers that stream one event per token but send some with empty text (a control token
    #: that decodes to no text) are counted right by this, not by ``chunk_times``.
    token_events: int = 0
    prompt_tokens: int | None = None
    output_tokens: int | None = None
    token_count_basis: str = TOKEN_BASIS_USAGE
    text: str = ""
    finish_reason: str | None = None
    response_id: str | None = None
    error: str | None = None
    error_detail: str = ""

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def tpot_s(self) -> float | None:
        if (
            self.ttft_s is None
            or self.e2el_s is None
            or not self.output_tokens
            or self.output_tokens < 2
        ):
            return None
        return (self.e2el_s - self.ttft_s) / (self.output_tokens - 1)

    def inter_chunk_s(self) -> list[float]:
        t = self.chunk_times
        return [b - a for a, b in zip(t, t[1:], strict=False)]

    def done_at(self) -> float:
        return self.sent_at + (self.e2el_s or 0.0)


def _no_extra_info(_key: str) -> None:
    """Transports that keep no kernel stamps answer every key with None."""
    return None


def chat_payload(
    model: str,
    messages: list[dict],
    max_tokens: int,
    temperature: float = 0.0,
    extra: dict | None = None,
) -> dict:
    body = {
        "model": model,
        "messages": messages,
        "max_completion_tokens": max_tokens,
        "max_tokens": max_tokens,
        "temperature": temperature,
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    if extra:
        body.update(extra)
    return body


def completions_payload(
    model: str, prompt: str, max_tokens: int, temperature: float = 0.0, extra: dict | None = None
) -> dict:
    body = {
        "model": model,
        "prompt": prompt,
        "max_tokens": max_tokens,
        "temperature": temperature,
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    if extra:
        body.update(extra)
    return body


def _content_of(choice: dict, chat: bool) -> str | None:
    if chat:
        delta = choice.get("delta")
        if not isinstance(delta, dict):
            return None
        return delta.get("content") or delta.get("reasoning_content") or None
    return choice.get("text") or None


async def stream_request(
    client: httpx.AsyncClient,
    url: str,
    body: bytes,
    *,
    chat: bool,
    record: RequestRecord,
    keep_text: bool = True,
) -> RequestRecord:
    """Send one streaming request and fill ``record``; never raises for server misbehaviour.

    The clock starts when the last byte of the request has been written to the socket (the
    transport's ``tx_time``, else httpcore's ``http11.send_request_body.complete`` trace event),
    so the client's own request-building overhead is not counted as server latency; if neither
    happened (the request failed before it was sent) it starts at the call. Chunk times are the
    kernel's arrival stamps when the transport provides them (``rx_time``), else the moment the
    read returned.
    """
    perf = time.perf_counter
    sent = [0.0]

    async def trace(name: str, info: dict) -> None:
        if name == "http11.send_request_body.complete":
            sent[0] = perf()

    t_call = perf()
    reading = _EventReader(record, chat, keep_text)
    try:
        async with client.stream(
            "POST",
            url,
            content=body,
            headers={"content-type": "application/json", "accept": "text/event-stream"},
            extensions={"trace": trace},
        ) as resp:
            if await _refused(resp, record):
                reading.last_data = perf()
            else:
                await reading.read(resp, sent)
    except (MalformedSSE, httpx.HTTPError) as exc:
        record.error, record.error_detail = _failure(exc)
    _fill_record(record, reading, sent[0] or t_call)
    return record


async def _refused(resp: httpx.Response, record: RequestRecord) -> bool:
    """Whether the answer is not a stream to read (an HTTP error status, or a 200 that is not an
    event stream); if so the record says why."""
    ctype = resp.headers.get("content-type", "")
    if resp.status_code != 200:
        detail = (await resp.aread())[:300].decode("utf-8", "replace")
        record.error = f"http_{resp.status_code}"
        record.error_detail = detail
        return True
    if ctype and "event-stream" not in ctype.lower():
        body_start = (await resp.aread())[:200].decode("utf-8", "replace")
        record.error = "not_event_stream"
        record.error_detail = (
            f"HTTP 200 with content-type {ctype!r}, not text/event-stream: the server "
            f"did not stream (does it support stream=true on this route?) {body_start}"
        )
        return True
    return False


class _EventReader:
    """Reads one response's server-sent events into its record: the time stamps, the text, the
    token events and the usage, as they arrive."""

    __slots__ = (
        "record",
        "chat",
        "keep_text",
        "parts",
        "t_first_chunk",
        "t_first_content",
        "last_data",
        "done",
        "usage",
        "events",
    )

    def __init__(self, record: RequestRecord, chat: bool, keep_text: bool) -> None:
        self.record = record
        self.chat = chat
        self.keep_text = keep_text
        self.parts: list[str] = []
        self.t_first_chunk: float | None = None
        self.t_first_content: float | None = None
        self.last_data: float | None = None
        #: ``[DONE]`` or a server error event came: the rest of the body is not parsed.
        self.done = False
        self.usage: Any = None
        self.events = 0

    async def read(self, resp: httpx.Response, sent: list[float]) -> None:
        """Read the body to its end, stamping each network read; an unterminated stream is an
        error on the record (``MalformedSSE`` when it stops inside an event)."""
        perf = time.perf_counter
        parser = SSEParser()
        # Kernel arrival stamps when the transport keeps them (see netio.py).
        stream = resp.extensions.get("network_stream")
        info: Callable[[str], Any] = getattr(stream, "get_extra_info", _no_extra_info)
        stamped = info("rx_time") is not None
        if info("tx_time") is not None:
            sent[0] = info("tx_time")
        async for raw in resp.aiter_raw():
            now = info("rx_time") if stamped else perf()
            if self.done:
                # Keep reading to the end of the chunked body: a response closed early
                # cannot go back to the keep-alive pool, and the next request would pay
                # for a new TCP connection inside its TTFT.
                continue
            for data in parser.feed(raw):
                self._take(data, now)
                if self.done:
                    break
        if self.record.error is None and not self.done:
            if parser.pending.strip():
                raise MalformedSSE(f"stream ended inside an event: {parser.pending[:120]!r}")
            self.record.error = "incomplete_stream"
            self.record.error_detail = "the response ended without data: [DONE]"
        elif self.record.error is None and self.record.finish_reason is None:
            # A finished completion says why it stopped (stop, length, …) before [DONE]. Without
            # that the server cut the stream short: llama-cpp-python, for one, sends [DONE] to a
            # streaming request as soon as the next one arrives. Counted as an empty or short
            # completion it would make the point look fast.
            self.record.error = "cut_short"
            self.record.error_detail = "data: [DONE] came before any finish_reason"

    def _take(self, data: bytes, now: float) -> None:
        """One ``data:`` payload, read at ``now``."""
        if data == b"[DONE]":
            self.done = True
            return
        try:
            obj = json.loads(data)
        except ValueError as exc:
            raise MalformedSSE(f"data is not JSON: {data[:120]!r}") from exc
        if not isinstance(obj, dict):
            raise MalformedSSE(f"data is not a JSON object: {data[:120]!r}")
        self.last_data = now
        choices = obj.get("choices")
        if choices:
            self._take_choice(obj, choices[0], now)
        elif "error" in obj:
            err = obj["error"]
            msg = err.get("message") if isinstance(err, dict) else err
            self.record.error = "server_error_event"
            self.record.error_detail = str(msg)[:300]
            self.done = True
            return
        u = obj.get("usage")
        if u:
            self.usage = u

    def _take_choice(self, obj: dict, choice: dict, now: float) -> None:
        """An event's first choice: its text, whether it stands for a token, its finish reason."""
        record = self.record
        if self.t_first_chunk is None:
            self.t_first_chunk = now
        content = _content_of(choice, self.chat)
        if content or _is_token_event(choice, self.chat):
            self.events += 1
        if content:
            if self.t_first_content is None:
                self.t_first_content = now
                record.response_id = obj.get("id")
            record.chunk_times.append(now)
            if self.keep_text:
                self.parts.append(content)
        fr = choice.get("finish_reason")
        if fr:
            record.finish_reason = fr


def _failure(exc: MalformedSSE | httpx.HTTPError) -> tuple[str, str]:
    """(error code, detail) of a request that failed on the wire or in the stream's format."""
    if isinstance(exc, MalformedSSE):
        return "malformed_sse", str(exc)
    if isinstance(exc, httpx.TimeoutException):
        code = "timeout"
    elif isinstance(exc, httpx.RemoteProtocolError):
        code = "connection_dropped"
    elif isinstance(exc, httpx.ConnectError | httpx.ReadError | httpx.WriteError):
        code = "connection_error"
    else:
        code = "http_error"
    return code, f"{type(exc).__name__}: {exc}"


def _fill_record(record: RequestRecord, reading: _EventReader, t0: float) -> None:
    """The latencies from the stamps (from ``t0``, when the request was sent), the text and the
    token counts: the server's usage, else one per token event."""
    record.sent_at = t0
    record.ttfc_s = None if reading.t_first_chunk is None else reading.t_first_chunk - t0
    record.ttft_s = None if reading.t_first_content is None else reading.t_first_content - t0
    last_data = reading.last_data
    record.e2el_s = (last_data if last_data is not None else time.perf_counter()) - t0
    record.text = "".join(reading.parts)
    record.token_events = max(reading.events, len(record.chunk_times))
    if record.error is None:
        # No text but a clean [DONE]: a valid empty completion (0 tokens), not a failure.
        usage = reading.usage
        if usage and isinstance(usage, dict):
            record.prompt_tokens = usage.get("prompt_tokens")
            record.output_tokens = usage.get("completion_tokens")
        if record.output_tokens is None:
            record.output_tokens = record.token_events
            record.token_count_basis = TOKEN_BASIS_CHUNKS


def _is_token_event(choice: dict, chat: bool) -> bool:
    """An event that stands for one generated token although its text is empty.

    llama.cpp's server (llama-cpp-python) streams one event per token and sends ``""`` for a
    token that decodes to no text (a control token); the role-only first chunk (``delta.role``)
    and a final chunk that only carries ``finish_reason`` are not tokens. (It merges the tokens of
    one multi-byte character into one event, so text of such characters counts low here.)
    """
    if choice.get("finish_reason"):
        return False
    if chat:
        delta = choice.get("delta")
        return isinstance(delta, dict) and "content" in delta and "role" not in delta
    return "text" in choice


_SSL_CONTEXT = None


def _ssl_context():
    # Building an SSL context loads the CA bundle (~20 ms); share one across all clients.
    global _SSL_CONTEXT
    if _SSL_CONTEXT is None:
        _SSL_CONTEXT = httpx.create_ssl_context()
    return _SSL_CONTEXT


def tls_context(*, verify: bool = True, ca_bundle: str | None = None):
    """The TLS context for HTTPS endpoints: system CAs, a private CA file, or no verification."""
    if verify and not ca_bundle:
        return _ssl_context()
    if not verify:
        ctx = ssl.create_default_context()
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
        return ctx
    return ssl.create_default_context(cafile=ca_bundle)


def make_client(
    connections: int,
    timeout_s: float,
    *,
    lean: bool = True,
    headers: dict[str, str] | None = None,
    ssl_context=None,
) -> httpx.AsyncClient:
    """An HTTP/1.1 keep-alive httpx client holding up to ``connections`` sockets.

    With ``lean`` (the default) the transport's connection pool runs on
    :class:`~benchmarks.netio.LeanAsyncioBackend` instead of anyio. ``headers`` (an API key's
    ``Authorization``, a gateway's routing header) go on every request.
    """
    limits = httpx.Limits(
        max_connections=connections, max_keepalive_connections=connections, keepalive_expiry=60.0
    )
    timeout = httpx.Timeout(timeout_s, connect=min(timeout_s, 30.0), pool=None)
    ctx = ssl_context if ssl_context is not None else _ssl_context()
    transport = httpx.AsyncHTTPTransport(verify=ctx, http1=True, http2=False, limits=limits)
    if lean and hasattr(transport, "_pool"):
        transport._pool = httpcore.AsyncConnectionPool(
            ssl_context=ctx,
            max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections,
            keepalive_expiry=limits.keepalive_expiry,
            http1=True,
            http2=False,
            network_backend=LeanAsyncioBackend(),
        )
    return httpx.AsyncClient(
        transport=transport, limits=limits, timeout=timeout, headers=headers or None
    )


class ClientPool:
    """``size`` single-connection httpx clients: a keep-alive pool sized to the concurrency.

    One shared ``AsyncClient`` with N connections is avoided on purpose: httpcore re-scans every
    connection for every queued request when it assigns connections, so its cost grows with N².
    Measured on this project's fake server at 64 streams, that scan alone took ~80% of the
    client's CPU and pushed p99 TTFT from milliseconds to seconds. A client per stream keeps every
    pool operation O(1) while each stream still reuses its own keep-alive connection.
    """

    def __init__(
        self,
        size: int,
        timeout_s: float,
        *,
        headers: dict[str, str] | None = None,
        ssl_context=None,
    ):
        self.size = size
        self._clients = [
            make_client(1, timeout_s, headers=headers, ssl_context=ssl_context) for _ in range(size)
        ]
        self._free: list[httpx.AsyncClient] = list(reversed(self._clients))
        self._waiters: list = []

    def __getitem__(self, i: int) -> httpx.AsyncClient:
        return self._clients[i]

    async def acquire(self) -> httpx.AsyncClient:

        while not self._free:
            fut = asyncio.get_running_loop().create_future()
            self._waiters.append(fut)
            await fut
        return self._free.pop()

    def release(self, client: httpx.AsyncClient) -> None:
        self._free.append(client)
        while self._waiters:
            fut = self._waiters.pop(0)
            if not fut.done():
                fut.set_result(None)
                break

    async def __aenter__(self) -> ClientPool:
        return self

    async def __aexit__(self, *exc) -> None:
        for client in self._clients:
            await client.aclose()
