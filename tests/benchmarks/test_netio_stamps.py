"""A received packet's kernel time stamp, moved onto the client's clock: a preemption between
reading the two clocks can make an arrival look later than it was, never earlier."""

from __future__ import annotations

import socket
import time

import pytest

from benchmarks.netio import enable_rx_timestamps, recv_stamped

PREEMPTED_S = 0.005


def test_a_preemption_between_the_clock_reads_never_moves_an_arrival_earlier(monkeypatch):
    with socket.create_server(("127.0.0.1", 0)) as server:
        sender = socket.create_connection(server.getsockname())
        receiver, _ = server.accept()
    with sender, receiver:
        if not enable_rx_timestamps(receiver):
            pytest.skip("this system does not stamp received packets")
        real_wall, real_clock = time.time_ns, time.perf_counter
        reads: list[str] = []

        def later_if_second(name: str, value: float, late: float) -> float:
            """Whichever clock is read second is read after a 5 ms preemption."""
            reads.append(name)
            return value + (late if len(reads) > 1 else 0)

        sent_at = real_clock()
        sender.sendall(b"first token")
        time.sleep(0.05)  # the packet has arrived and been stamped
        monkeypatch.setattr(
            time, "time_ns", lambda: int(later_if_second("wall", real_wall(), PREEMPTED_S * 1e9))
        )
        data, arrived = recv_stamped(
            receiver, 64, clock=lambda: later_if_second("clock", real_clock(), PREEMPTED_S)
        )
        monkeypatch.undo()
        assert data == b"first token"
        assert sorted(reads) == ["clock", "wall"]
        # The packet cannot have arrived before it was sent.
        assert arrived >= sent_at
