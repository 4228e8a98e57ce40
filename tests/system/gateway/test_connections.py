"""Connections per client address at the door (GATEWAY_CONNECTIONS_PER_ADDRESS):
one address cannot hold the gateway's file descriptors; the connection past the
cap is reset as it is accepted, before any TLS, and the ones open keep working.
A connection counts from accept, so ones that never finish their TLS handshake
count too, and GATEWAY_TLS_HANDSHAKE_S closes them."""

from __future__ import annotations

import socket
import ssl
import time
import urllib.request
from collections.abc import Iterator

import pytest

from devroom.stack import Stack

CAP = 3
HANDSHAKE_S = 4.0  # long enough that the silent connections outlive a loaded test's steps


@pytest.fixture(scope="module")
def stack() -> Iterator[Stack]:
    env = {
        "GATEWAY_CONNECTIONS_PER_ADDRESS": str(CAP),
        "GATEWAY_TLS_HANDSHAKE_S": str(HANDSHAKE_S),
    }
    with Stack(ports="free", env={"gateway": env}) as s:
        yield s


def _raw(stack: Stack) -> socket.socket:
    host, port = stack.gateway_target.rsplit(":", 1)
    return socket.create_connection((host, int(port)), timeout=5)


def _try_connect(stack: Stack) -> ssl.SSLSocket | None:
    """A TLS connection to the door, or None when the door reset it."""
    assert stack.pki is not None
    host = stack.gateway_target.rsplit(":", 1)[0]
    context = ssl.create_default_context(cafile=str(stack.pki.ca_file))
    context.set_alpn_protocols(["http/1.1"])
    try:
        raw = _raw(stack)  # the reset can come before connect() returns
    except ConnectionError:
        return None
    try:
        return context.wrap_socket(raw, server_hostname=host)
    except (ConnectionError, ssl.SSLError):
        raw.close()
        return None


def _connect(stack: Stack) -> ssl.SSLSocket:
    conn = _try_connect(stack)
    assert conn is not None, "the door reset a connection within the cap"
    return conn


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
    assert _counted(stack, 0), "an earlier test's connections are still open"
    held = [_connect(stack) for _ in range(CAP)]
    try:
        for conn in held:
            assert _healthz(conn).startswith(b"HTTP/1.1 "), "a connection within the cap"
        assert _try_connect(stack) is None  # reset at accept: no TLS work for it
        assert all(_healthz(conn).startswith(b"HTTP/1.1 ") for conn in held)
        held.pop().close()  # one fewer open: a new connection gets in again
        deadline = time.monotonic() + 10
        while True:
            again = _try_connect(stack)
            line = b""
            if again is not None:
                line = _healthz(again)
                again.close()
            if line or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        assert line.startswith(b"HTTP/1.1 ")
    finally:
        for conn in held:
            conn.close()


def _metric(stack: Stack, name: str) -> float:
    port = stack.processes["gateway"].metrics_port
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as reply:
        text = reply.read().decode()
    found = [line for line in text.splitlines() if line.split(" ")[0] == name]
    return float(found[0].split()[-1])


def _refused(stack: Stack) -> float:
    return _metric(stack, "gateway_connections_refused_total")


def _counted(stack: Stack, value: int, seconds: float = 10) -> bool:
    """Whether the door's count of open connections reaches ``value`` in time
    (it notices a client's close a moment after the close)."""
    deadline = time.monotonic() + seconds
    while _metric(stack, "gateway_connections") != value:
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def test_refusals_are_counted_in_the_metrics(stack: Stack) -> None:
    assert _counted(stack, 0), "an earlier test's connections are still open"
    before = _refused(stack)
    held = [_connect(stack) for _ in range(CAP)]
    try:
        assert all(_healthz(conn) for conn in held)
        assert _try_connect(stack) is None
        assert _refused(stack) == before + 1
    finally:
        for conn in held:
            conn.close()


def _within_cap_again(stack: Stack, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        conn = _try_connect(stack)
        if conn is not None:
            ok = _healthz(conn).startswith(b"HTTP/1.1 ")
            conn.close()
            if ok:
                return True
        time.sleep(0.1)
    return False


def test_connections_still_in_their_handshake_count(stack: Stack) -> None:
    """An outside probe held 1,000 connections that never sent a ClientHello,
    uncounted, for hypercorn's 60 s handshake timeout."""
    assert _counted(stack, 0), "an earlier test's connections are still open"
    silent = [_raw(stack) for _ in range(CAP)]
    try:
        assert _counted(stack, CAP)  # accepted, and counted before any TLS
        assert _try_connect(stack) is None
    finally:
        for conn in silent:
            conn.close()
    assert _within_cap_again(stack, 10), "closed silent connections still counted"


def test_a_handshake_that_never_ends_is_closed_after_its_time(stack: Stack) -> None:
    silent = _raw(stack)
    began = time.monotonic()
    silent.settimeout(HANDSHAKE_S + 10)
    try:
        assert silent.recv(1) == b""  # the door closed it
    except ConnectionResetError:
        pass
    finally:
        silent.close()
    took = time.monotonic() - began
    assert HANDSHAKE_S - 0.2 <= took < HANDSHAKE_S + 5, took
    assert _within_cap_again(stack, 10)
