"""A lean asyncio network backend for httpcore (the transport under httpx).

httpcore's default backend goes through anyio and opens a cancel scope for every socket read;
at hundreds of concurrent streams that bookkeeping is most of the client's per-chunk cost and
delays the time stamps the harness takes. This backend serves the same ``AsyncNetworkBackend``
interface with a plain ``asyncio.Protocol``: a read returns buffered bytes at once or waits on one
future, with a timer only when a timeout is set. HTTP parsing (h11), pooling and the httpx API are
unchanged. TLS goes through ``loop.start_tls``.

Plain TCP connections also record *when* bytes arrived, from the kernel's receive time stamp
(``SO_TIMESTAMPNS``), and when the request left; the harness reads them through the response's
``network_stream`` so that a busy client (hundreds of streams, or a loaded machine) does not add
its own scheduling delay to a measured latency.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import ssl
import struct
import sys
import time
import typing

import httpcore


class _Protocol(asyncio.Protocol):
    __slots__ = ("buf", "eof", "exc", "transport", "waiter")

    def __init__(self) -> None:
        self.buf = bytearray()
        self.eof = False
        self.exc: BaseException | None = None
        self.transport: asyncio.Transport | None = None
        self.waiter: asyncio.Future | None = None

    def connection_made(self, transport) -> None:
        self.transport = transport

    def _wake(self) -> None:
        waiter = self.waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def data_received(self, data: bytes) -> None:
        self.buf += data
        self._wake()

    def eof_received(self) -> bool:
        self.eof = True
        self._wake()
        return False

    def connection_lost(self, exc) -> None:
        self.eof = True
        self.exc = exc
        self._wake()


def _timeout(fut: asyncio.Future) -> None:
    if not fut.done():
        fut.set_exception(TimeoutError())


class LeanStream(httpcore.AsyncNetworkStream):
    def __init__(self, protocol: _Protocol, loop: asyncio.AbstractEventLoop):
        self._p = protocol
        self._loop = loop

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        p = self._p
        if not p.buf and not p.eof:
            fut = p.waiter = self._loop.create_future()
            handle = self._loop.call_later(timeout, _timeout, fut) if timeout is not None else None
            try:
                await fut
            except TimeoutError as exc:
                raise httpcore.ReadTimeout("timed out waiting for the server") from exc
            finally:
                p.waiter = None
                if handle is not None:
                    handle.cancel()
        if p.buf:
            if len(p.buf) <= max_bytes:
                data = bytes(p.buf)
                p.buf.clear()
            else:
                data = bytes(p.buf[:max_bytes])
                del p.buf[:max_bytes]
            return data
        if p.exc is not None:
            raise httpcore.ReadError(str(p.exc) or type(p.exc).__name__)
        return b""

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        if not buffer:
            return
        transport = self._p.transport
        if transport is None or transport.is_closing():
            raise httpcore.WriteError("the connection is closed")
        transport.write(buffer)

    async def aclose(self) -> None:
        transport = self._p.transport
        if transport is not None:
            transport.close()

    async def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> httpcore.AsyncNetworkStream:
        if self._p.transport is None:
            raise httpcore.ConnectError("the connection closed before TLS could start")
        try:
            new_transport = await asyncio.wait_for(
                self._loop.start_tls(
                    self._p.transport, self._p, ssl_context, server_hostname=server_hostname
                ),
                timeout,
            )
        except TimeoutError as exc:
            raise httpcore.ConnectTimeout("TLS handshake timed out") from exc
        except (OSError, ssl.SSLError) as exc:
            raise httpcore.ConnectError(str(exc)) from exc
        self._p.transport = new_transport
        return self

    def get_extra_info(self, info: str) -> typing.Any:
        transport = self._p.transport
        if info == "is_readable":
            # An idle keep-alive socket that became readable means the server hung up.
            return self._p.eof or bool(self._p.buf)
        if transport is None:
            return None
        if info == "ssl_object":
            return transport.get_extra_info("ssl_object")
        if info == "client_addr":
            return transport.get_extra_info("sockname")
        if info == "server_addr":
            return transport.get_extra_info("peername")
        if info == "socket":
            return transport.get_extra_info("socket")
        return None


class LeanAsyncioBackend(httpcore.AsyncNetworkBackend):
    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: typing.Iterable | None = None,
    ) -> httpcore.AsyncNetworkStream:
        loop = asyncio.get_running_loop()
        try:
            infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except OSError as exc:
            raise httpcore.ConnectError(str(exc)) from exc
        last: Exception | None = None
        for family, kind, proto, _name, addr in infos:
            sock = socket.socket(family, kind, proto)
            sock.setblocking(False)
            try:
                if local_address:
                    sock.bind((local_address, 0))
                await asyncio.wait_for(loop.sock_connect(sock, addr), timeout)
            except TimeoutError as exc:
                sock.close()
                raise httpcore.ConnectTimeout(f"connecting to {host}:{port} timed out") from exc
            except OSError as exc:
                sock.close()
                last = exc
                continue
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                for option in socket_options or ():
                    sock.setsockopt(*option)
            enable_rx_timestamps(sock)
            return TimestampedStream(sock, loop)
        raise httpcore.ConnectError(str(last) if last else f"cannot resolve {host}:{port}")

    async def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: typing.Iterable | None = None
    ) -> httpcore.AsyncNetworkStream:
        loop = asyncio.get_running_loop()
        try:
            _, protocol = await asyncio.wait_for(
                loop.create_unix_connection(_Protocol, path), timeout
            )
        except TimeoutError as exc:
            raise httpcore.ConnectTimeout(f"connecting to {path} timed out") from exc
        except OSError as exc:
            raise httpcore.ConnectError(str(exc)) from exc
        return LeanStream(protocol, loop)

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


# ---------------------------------------------------------------- kernel receive time stamps
#: Linux: ask the kernel to stamp every received packet (CLOCK_REALTIME, ns). Python's socket
#: module does not name the constant; 35 is SO_TIMESTAMPNS(_OLD) on every Linux architecture.
SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35 if sys.platform.startswith("linux") else None)
_ANC = socket.CMSG_SPACE(16) if hasattr(socket, "CMSG_SPACE") else 0


def enable_rx_timestamps(sock: socket.socket) -> bool:
    if SO_TIMESTAMPNS is None or not _ANC:
        return False
    try:
        sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
    except OSError:
        return False
    return True


def recv_stamped(sock: socket.socket, size: int, clock=time.perf_counter) -> tuple[bytes, float]:
    """``recv`` plus the moment the data reached the socket, on ``clock``'s time line.

    The kernel's stamp is taken when the packet arrives, before this process is scheduled, so a
    busy or descheduled reader does not inflate a latency. Without a stamp, ``clock()`` is used.
    Raises BlockingIOError like ``recv`` on a non-blocking socket.
    """
    data, ancdata, _flags, _addr = sock.recvmsg(size, _ANC)
    # The wall clock (the stamp's) is read before ``clock``: were this process preempted between
    # the two reads, the arrival comes out later than it was, never earlier (read the other way
    # round, a preemption shortened the latency by its length).
    wall_ns = time.time_ns()
    now = clock()
    for level, kind, payload in ancdata:
        if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS and len(payload) >= 16:
            sec, nsec = struct.unpack("qq", payload[:16])
            age = (wall_ns - (sec * 1_000_000_000 + nsec)) / 1e9
            if 0 <= age < 60:  # a clock step would make it meaningless
                return data, now - age
    return data, now


#: End of one SSE event inside an HTTP chunk: the event's blank line, then the chunk's CRLF.
_EVENT_END = b"\n\n\r\n"


class TimestampedStream(httpcore.AsyncNetworkStream):
    """A plain TCP stream that records when each read's bytes arrived (kernel time stamp) and when
    the last write left, as ``get_extra_info("rx_time")`` / ``("tx_time")`` on the perf_counter
    time line. TLS is handed over to :class:`LeanStream` (its reads are stamped on arrival in
    user space)."""

    def __init__(self, sock: socket.socket, loop: asyncio.AbstractEventLoop):
        self._sock = sock
        self._loop = loop
        self._fd = sock.fileno()
        self.rx_time: float | None = None
        self.tx_time: float | None = None
        self._closed = False

    async def _wait(self, add, remove, timeout: float | None, exc_type) -> None:
        fut = self._loop.create_future()
        add(self._fd, _set_none, fut)
        handle = self._loop.call_later(timeout, _timeout, fut) if timeout is not None else None
        try:
            await fut
        except TimeoutError as exc:
            raise exc_type("timed out") from exc
        finally:
            remove(self._fd)
            if handle is not None:
                handle.cancel()

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        while True:
            if self._closed:
                raise httpcore.ReadError("the connection is closed")
            try:
                # A stamp belongs to the newest packet a read consumed. When several SSE events
                # are queued (the reader was busy or descheduled), reading them in one go would
                # give the first event the last one's arrival time, so the read stops at the end
                # of the first complete event: peek, cut, then consume exactly that much.
                peek = self._sock.recv(max_bytes, socket.MSG_PEEK)
                cut = peek.find(_EVENT_END)
                size = (
                    cut + len(_EVENT_END) if 0 <= cut < len(peek) - len(_EVENT_END) else max_bytes
                )
                data, self.rx_time = recv_stamped(self._sock, size)
                return data
            except (BlockingIOError, InterruptedError):
                await self._wait(
                    self._loop.add_reader, self._loop.remove_reader, timeout, httpcore.ReadTimeout
                )
            except OSError as exc:
                raise httpcore.ReadError(str(exc)) from exc

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        view = memoryview(buffer)
        while view:
            if self._closed:
                raise httpcore.WriteError("the connection is closed")
            try:
                # Stamped just before the send: the send wakes the server, which may preempt
                # this process on return, and a stamp taken after that would shorten latencies.
                stamp = time.perf_counter()
                sent = self._sock.send(view)
                view = view[sent:]
                if not view:
                    self.tx_time = stamp
            except (BlockingIOError, InterruptedError):
                await self._wait(
                    self._loop.add_writer, self._loop.remove_writer, timeout, httpcore.WriteTimeout
                )
            except OSError as exc:
                raise httpcore.WriteError(str(exc)) from exc

    async def aclose(self) -> None:
        if not self._closed:
            self._closed = True
            self._sock.close()

    async def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> httpcore.AsyncNetworkStream:
        _, protocol = await self._loop.create_connection(_Protocol, sock=self._sock)
        return await LeanStream(protocol, self._loop).start_tls(
            ssl_context, server_hostname, timeout
        )

    def get_extra_info(self, info: str) -> typing.Any:
        if info == "rx_time":
            return self.rx_time
        if info == "tx_time":
            return self.tx_time
        if info == "socket":
            return self._sock
        if info == "is_readable":
            # An idle keep-alive socket that became readable means the server hung up.
            if self._closed:
                return True
            try:
                self._sock.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT)  # data or b"" (EOF)
                return True
            except (BlockingIOError, InterruptedError):
                return False
            except OSError:
                return True
        if info == "client_addr":
            return self._sock.getsockname()
        if info == "server_addr":
            return self._sock.getpeername()
        return None


def _set_none(fut: asyncio.Future) -> None:
    if not fut.done():
        fut.set_result(None)
