"""Requests the Room API cannot read, at the real door: a header value that is
not UTF-8 is INVALID_ARGUMENT in the caller's own protocol (gRPC over HTTP/2,
gRPC-Web and Connect over HTTP/1.1), with no ERROR logged.  It was HTTP 500 or
UNKNOWN and an "Error in ASGI Framework" traceback per request (an outside
hostile probe sent ``x-user-agent: caf\\xe9``).  And malformed Connect JSON
bodies the same probe sent: a misspelt enum name changes nothing, and Act's
refusals name the Room API's fields."""

from __future__ import annotations

import http.client
import json
import socket
import ssl
import time
from collections.abc import Iterator
from urllib.parse import unquote

import h2.config
import h2.connection
import h2.events
import pytest

from devroom.stack import Stack

ACT = "/poker.room.v1.Room/Act"
BAD_VALUE = "caf\xe9"  # http.client sends a str header as Latin-1: the byte 0xE9


@pytest.fixture(scope="module")
def stack() -> Iterator[Stack]:
    with Stack(ports="free") as s:
        yield s


def _context(stack: Stack, alpn: str) -> ssl.SSLContext:
    assert stack.pki is not None
    context = ssl.create_default_context(cafile=str(stack.pki.ca_file))
    context.set_alpn_protocols([alpn])
    return context


def _http1(stack: Stack, content_type: str) -> tuple[int, dict[str, str], bytes]:
    host, port = stack.gateway_target.rsplit(":", 1)
    conn = http.client.HTTPSConnection(
        host, int(port), context=_context(stack, "http/1.1"), timeout=10
    )
    try:
        conn.putrequest("POST", ACT)
        conn.putheader("content-type", content_type)
        conn.putheader("x-user-agent", BAD_VALUE)
        conn.putheader("content-length", "0")
        conn.endheaders()
        reply = conn.getresponse()
        return reply.status, {k.lower(): v for k, v in reply.getheaders()}, reply.read()
    finally:
        conn.close()


def _grpc_over_h2(stack: Stack) -> dict[bytes, bytes]:
    """One gRPC call over HTTP/2 with the bad header: its headers and trailers."""
    host, port = stack.gateway_target.rsplit(":", 1)
    raw = socket.create_connection((host, int(port)), timeout=10)
    tls = _context(stack, "h2").wrap_socket(raw, server_hostname=host)
    peer = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
    peer.initiate_connection()
    stream = peer.get_next_available_stream_id()
    peer.send_headers(
        stream,
        [
            (b":method", b"POST"),
            (b":scheme", b"https"),
            (b":authority", host.encode()),
            (b":path", ACT.encode()),
            (b"content-type", b"application/grpc"),
            (b"te", b"trailers"),
            (b"x-user-agent", BAD_VALUE.encode("latin-1")),
        ],
    )
    peer.send_data(stream, b"\x00\x00\x00\x00\x00", end_stream=True)  # an empty message
    tls.sendall(peer.data_to_send())
    seen: dict[bytes, bytes] = {}
    deadline = time.monotonic() + 10
    try:
        while time.monotonic() < deadline:
            data = tls.recv(65536)
            if not data:
                break
            for event in peer.receive_data(data):
                if isinstance(event, h2.events.ResponseReceived | h2.events.TrailersReceived):
                    seen.update((bytes(k), bytes(v)) for k, v in event.headers)
                if isinstance(event, h2.events.StreamEnded | h2.events.StreamReset):
                    return seen
            tls.sendall(peer.data_to_send())
    finally:
        tls.close()
    return seen


def _no_error_logged(stack: Stack) -> None:
    errors = [r for r in stack.processes["gateway"].records() if r.get("level") == "error"]
    assert errors == []


def test_grpc_gets_invalid_argument_naming_the_header(stack: Stack) -> None:
    seen = _grpc_over_h2(stack)
    assert seen[b":status"] == b"200"
    assert seen[b"grpc-status"] == b"3"  # INVALID_ARGUMENT
    assert "'x-user-agent' is not UTF-8" in unquote(seen[b"grpc-message"].decode())
    _no_error_logged(stack)


def test_grpc_web_gets_invalid_argument_in_its_headers(stack: Stack) -> None:
    status, headers, body = _http1(stack, "application/grpc-web+proto")
    assert status == 200
    assert headers["grpc-status"] == "3"
    assert "x-user-agent" in unquote(headers["grpc-message"])
    assert body == b""
    _no_error_logged(stack)


def test_connect_gets_400_invalid_argument(stack: Stack) -> None:
    status, _, body = _http1(stack, "application/json")
    assert status == 400
    error = json.loads(body)
    assert error["code"] == "invalid_argument"
    assert "'x-user-agent' is not UTF-8" in error["message"]
    _no_error_logged(stack)


def _connect_json(
    stack: Stack, method: str, body: dict[str, object], credential: str = ""
) -> tuple[int, dict[str, object]]:
    host, port = stack.gateway_target.rsplit(":", 1)
    conn = http.client.HTTPSConnection(
        host, int(port), context=_context(stack, "http/1.1"), timeout=10
    )
    headers = {"content-type": "application/json"}
    if credential:
        headers["authorization"] = f"Bearer {credential}"
    try:
        conn.request("POST", f"/poker.room.v1.Room/{method}", json.dumps(body), headers)
        reply = conn.getresponse()
        return reply.status, json.loads(reply.read() or b"{}")
    finally:
        conn.close()


def _registered(stack: Stack) -> str:
    status, answer = _connect_json(stack, "Register", {"name": "probe"})
    assert status == 200, answer
    return str(answer["credential"])


def test_a_misspelt_entry_choice_is_refused_and_seats_nobody__B2(stack: Stack) -> None:  # noqa: N802
    credential = _registered(stack)
    status, me = _connect_json(stack, "GetMe", {}, credential)
    assert status == 200
    status, error = _connect_json(
        stack,
        "SitDown",
        {"tableId": "t-any", "buyIn": "200", "entry": "ENTRY_NOPE"},
        credential,
    )
    assert status == 400 and error["code"] == "invalid_argument"
    assert str(error["message"]).startswith("entry must be one of ENTRY_UNSPECIFIED")
    assert _connect_json(stack, "GetMe", {}, credential) == (200, me)  # nothing changed


def test_act_names_the_room_apis_fields(stack: Stack) -> None:
    credential = _registered(stack)
    status, error = _connect_json(
        stack, "Act", {"tableId": "t-any", "actionSeq": "1", "action": {}}, credential
    )
    assert (status, error["code"]) == (400, "invalid_argument")
    assert error["message"] == "hand_id is required"
    status, error = _connect_json(
        stack, "Act", {"tableId": "t-any", "handId": "h-1", "actionSeq": "1"}, credential
    )
    assert (status, error["code"]) == (400, "invalid_argument")
    assert str(error["message"]).startswith("action is required")
