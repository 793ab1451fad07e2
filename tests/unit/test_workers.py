"""Each worker listens on a socket of its own on one port, so the kernel spreads connections over the workers."""

from __future__ import annotations

import select
import socket

import pytest

from service.runtime.workers import listening_sockets


def _accepted_by_each(sockets: list[socket.socket], connections: int) -> list[int]:
    port = sockets[0].getsockname()[1]
    clients = [socket.create_connection(("127.0.0.1", port)) for _ in range(connections)]
    counts = [0] * len(sockets)
    try:
        while sum(counts) < connections:
            ready, _, _ = select.select(sockets, [], [], 5)
            assert ready, f"only {sum(counts)} of {connections} connections arrived"
            for sock in ready:
                conn, _ = sock.accept()
                conn.close()
                counts[sockets.index(sock)] += 1
    finally:
        for client in clients:
            client.close()
    return counts


def test_connections_opened_in_a_burst_reach_every_workers_socket() -> None:
    sockets = listening_sockets("127.0.0.1", 0, 2)
    try:
        assert sockets[0].getsockname() == sockets[1].getsockname()
        counts = _accepted_by_each(sockets, 64)  # all 64 on one socket by chance: 1 in 2**63
    finally:
        for sock in sockets:
            sock.close()
    assert min(counts) > 0, counts


def test_a_port_another_server_holds_is_refused_even_when_it_shares_its_port() -> None:
    sockets = listening_sockets("127.0.0.1", 0, 2)
    try:
        with pytest.raises(OSError, match="in use"):
            listening_sockets("127.0.0.1", sockets[0].getsockname()[1], 2)
    finally:
        for sock in sockets:
            sock.close()
