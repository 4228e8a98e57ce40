"""The door's HTTP layer around the Connect app: health, CORS.

* ``GET /healthz``: 200 once this replica has heard from every shard since it
  started and from one of them within its last three refreshes
  (``ShardMap.ready``: one shard down closes only its tables), else 503: the
  readiness probe and a load balancer's health check (liveness is TCP, so an
  outage behind the door never restarts it).
* CORS, for browsers on another origin (``GATEWAY_CORS_ORIGINS``): a preflight
  (``OPTIONS`` with ``Origin``) from an allowed origin is answered here with the
  methods and headers gRPC-Web and Connect use; an allowed origin's calls get
  ``Access-Control-Allow-Origin`` and the response headers a browser client must
  read (``grpc-status``, ``grpc-message``, ...) exposed.  Any other origin gets
  no CORS headers, so a browser keeps its page from the answer.
* ``GET /`` and ``GET /web/...``: the web client's page and files (``web.py``),
  when the gateway has a built client to serve.
* HTTP/1.1 requests the Room API must not take: one with both
  ``Transfer-Encoding`` and ``Content-Length`` is 400 and its connection closed
  (RFC 9112 6.3: what a proxy in front framed by the length could hide a second
  request in the body; hypercorn served both and kept the connection); gRPC over
  HTTP/1.1 (``application/grpc``, which needs HTTP/2's trailers) is 505 with
  ``grpc-status`` 12 saying to use gRPC-Web or Connect there (connectrpc raised
  inside, logged an ERROR per request and answered UNKNOWN).
* A request body that has not arrived whole ``BODY_WAIT_S`` after the call began
  ends the call (the app reads ``http.disconnect``), except Play's and
  PlayMany's, whose bodies are the game: hypercorn waits for a body for ever
  once a request has begun, so one byte a connection (or a stream, 900 a
  connection) held a file descriptor and a task as long as a client liked (an
  outside slow-body probe kept 200 connections and 800 streams for 14 minutes).
* A request header value or query string that is not UTF-8 is INVALID_ARGUMENT
  in the caller's protocol (``refusals.py``): connectrpc raised reading it, and
  every protocol got HTTP 500 and an ERROR traceback.
* Everything else is the Room API (connectrpc: gRPC, gRPC-Web, Connect).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from connectrpc.code import Code

from .asgi import App, Message, Receive, Scope, Send, header
from .refusals import refuse_call, undecodable
from .web import WebRoot

__all__ = ["App", "Door", "Message", "Receive", "Scope", "Send"]

ALLOW_METHODS = b"POST, GET, OPTIONS"
ALLOW_HEADERS = (
    b"authorization, content-type, connect-protocol-version, connect-timeout-ms, "
    b"connect-accept-encoding, connect-content-encoding, grpc-timeout, x-grpc-web, "
    b"x-user-agent"
)
EXPOSE_HEADERS = (
    b"grpc-status, grpc-message, grpc-status-details-bin, connect-content-encoding, "
    b"connect-accept-encoding"
)
MAX_AGE = b"7200"
BODY_WAIT_S = 30.0  # longest wait for a whole request body (not Play's, PlayMany's)
# The calls whose request body is a stream of the player's moves, open for the game.
STREAMING_UP = frozenset({"/poker.room.v1.Room/Play", "/poker.room.v1.Room/PlayMany"})


class Door:
    """The ASGI app hypercorn serves (see the module)."""

    def __init__(
        self,
        room: App,
        origins: tuple[str, ...],
        ready: Callable[[], bool],
        web: WebRoot | None = None,
        body_wait_s: float = BODY_WAIT_S,
    ) -> None:
        self._room = room
        self._body_wait_s = body_wait_s
        self._web = web
        self._any = "*" in origins
        self._origins = frozenset(o.encode() for o in origins if o != "*")
        self._ready = ready

    def _allowed(self, origin: bytes | None) -> bool:
        return origin is not None and (self._any or origin in self._origins)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await _lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        if scope.get("http_version") in ("1.0", "1.1") and await _refused_http1(scope, send):
            return
        if scope["path"] == "/healthz" and scope["method"] in ("GET", "HEAD"):
            ok = self._ready()
            await _respond(send, 200 if ok else 503, b"ok\n" if ok else b"not ready\n")
            return
        web = self._web
        if web is not None and scope["method"] in ("GET", "HEAD") and web.serves(scope["path"]):
            await _serve_file(web, scope, send)
            return
        origin = header(scope, b"origin")
        if scope["method"] == "OPTIONS" and origin is not None:
            if not self._allowed(origin):
                await _respond(send, 403, b"origin not allowed\n")
                return
            await send(
                {
                    "type": "http.response.start",
                    "status": 204,
                    "headers": [
                        (b"access-control-allow-origin", origin),
                        (b"access-control-allow-methods", ALLOW_METHODS),
                        (b"access-control-allow-headers", ALLOW_HEADERS),
                        (b"access-control-max-age", MAX_AGE),
                        (b"vary", b"origin"),
                    ],
                }
            )
            await send({"type": "http.response.body", "body": b""})
            return
        if self._allowed(origin):
            assert origin is not None
            send = _with_cors(send, origin)
        bad = undecodable(scope)
        if bad is not None:
            await refuse_call(
                scope,
                send,
                Code.INVALID_ARGUMENT,
                f"{bad} is not UTF-8 text; send UTF-8 (binary metadata goes in a "
                "'-bin' header, base64-encoded)",
            )
            return
        if scope["path"] not in STREAMING_UP:
            receive = _bounded(receive, self._body_wait_s)
        await self._room(scope, receive, send)


def _bounded(receive: Receive, seconds: float) -> Receive:
    """``receive`` that answers ``http.disconnect`` once the body has taken
    ``seconds`` without arriving whole (see the module)."""
    deadline = asyncio.get_running_loop().time() + seconds
    whole = False

    async def bounded_receive() -> Message:
        nonlocal whole
        if whole:
            return await receive()
        try:
            # A timer on this task, not wait_for's extra task per receive.
            async with asyncio.timeout_at(deadline):
                message = await receive()
        except TimeoutError:
            whole = True
            return {"type": "http.disconnect"}
        if message["type"] != "http.request" or not message.get("more_body", False):
            whole = True
        return message

    return bounded_receive


def _with_cors(send: Send, origin: bytes) -> Send:
    async def cors_send(message: Message) -> None:
        if message["type"] == "http.response.start":
            message["headers"] = [
                *message.get("headers", ()),
                (b"access-control-allow-origin", origin),
                (b"access-control-expose-headers", EXPOSE_HEADERS),
                (b"vary", b"origin"),
            ]
        await send(message)

    return cors_send


GRPC_NEEDS_HTTP2 = (
    b"gRPC needs HTTP/2; over HTTP/1.1 use gRPC-Web (application/grpc-web+proto) "
    b"or Connect (application/json, application/proto)"
)


async def _refused_http1(scope: Scope, send: Send) -> bool:
    """Answer (and True) an HTTP/1.x request the Room API must not take."""
    if header(scope, b"transfer-encoding") is not None and (
        header(scope, b"content-length") is not None
    ):
        await _respond(
            send,
            400,
            b"a request with both Transfer-Encoding and Content-Length is refused "
            b"(RFC 9112 6.3); send one of them\n",
            (b"connection", b"close"),
        )
        return True
    kind = (header(scope, b"content-type") or b"").lower()
    if kind.startswith(b"application/grpc") and not kind.startswith(b"application/grpc-web"):
        await _respond(
            send,
            505,
            GRPC_NEEDS_HTTP2 + b"\n",
            (b"grpc-status", b"12"),
            (b"grpc-message", GRPC_NEEDS_HTTP2),  # printable ASCII, no "%": as it is
        )
        return True
    return False


async def _respond(send: Send, status: int, body: bytes, *headers: tuple[bytes, bytes]) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"text/plain"),
                (b"content-length", str(len(body)).encode()),
                *headers,
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


async def _lifespan(receive: Receive, send: Send) -> None:
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return


async def _serve_file(web: WebRoot, scope: Scope, send: Send) -> None:
    found = web.lookup(scope["path"])
    if found is None:
        await _respond(send, 404, b"not found\n")
        return
    body, kind = found
    await send(
        {
            "type": "http.response.start",
            "status": 200,
            "headers": web.headers(kind, len(body), scope["path"]),
        }
    )
    await send({"type": "http.response.body", "body": b"" if scope["method"] == "HEAD" else body})
