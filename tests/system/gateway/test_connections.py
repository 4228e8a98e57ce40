"""Connections per client address at the door (GATEWAY_CONNECTIONS_PER_ADDRESS):
one address cannot hold the gateway's file descriptors; the connection past the
cap is closed at once, and the ones open keep working."""

from __future__ import annotations

import socket
import ssl
import time
import urllib.request
from collections.abc import Iterator

import pytest

from devroom.stack import Stack

CAP = 3


@pytest.fixture(scope="module")
def stack() -> Iterator[Stack]:
    with Stack(ports="free", env={"gateway": {"GATEWAY_CONNECTIONS_PER_ADDRESS": str(CAP)}}) as s:
        yield s


def _connect(stack: Stack) -> ssl.SSLSocket:
    assert stack.pki is not None
    host, port = stack.gateway_target.rsplit(":", 1)
    context = ssl.create_default_context(cafile=str(stack.pki.ca_file))
    context.set_alpn_protocols(["http/1.1"])
    raw = socket.create_connection((host, int(port)), timeout=5)
    return context.wrap_socket(raw, server_hostname=host)


def _healthz(conn: ssl.SSLSocket) -> bytes:
    """One keep-alive request on ``conn``: its status line, or b"" when the door
    closed the connection."""
    try:
        conn.sendall(b"GET /healthz HTTP/1.1\r\nhost: door\r\n\r\n")
        reply = conn.recv(4096)
    except (ConnectionError, ssl.SSLError):
        return b""
    return reply.split(b"\r\n", 1)[0]


def test_the_connection_past_the_cap_is_closed_and_the_others_play_on(stack: Stack) -> None:
    held = [_connect(stack) for _ in range(CAP)]
    try:
        for conn in held:
            assert _healthz(conn).startswith(b"HTTP/1.1 "), "a connection within the cap"
        extra = _connect(stack)  # the TLS handshake completes; then the door closes it
        assert _healthz(extra) == b""
        extra.close()
        assert all(_healthz(conn).startswith(b"HTTP/1.1 ") for conn in held)
        held.pop().close()  # one fewer open: a new connection gets in again
        deadline = time.monotonic() + 10
        while True:
            again = _connect(stack)
            line = _healthz(again)
            again.close()
            if line or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        assert line.startswith(b"HTTP/1.1 ")
    finally:
        for conn in held:
            conn.close()


def _refused(stack: Stack) -> float:
    port = stack.processes["gateway"].metrics_port
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as reply:
        text = reply.read().decode()
    found = [line for line in text.splitlines() if line.startswith("gateway_connections_refused")]
    return float(found[0].split()[-1])


def test_refusals_are_counted_in_the_metrics(stack: Stack) -> None:
    before = _refused(stack)
    held = [_connect(stack) for _ in range(CAP)]
    try:
        assert all(_healthz(conn) for conn in held)
        extra = _connect(stack)
        assert _healthz(extra) == b""
        extra.close()
        assert _refused(stack) == before + 1
    finally:
        for conn in held:
            conn.close()
