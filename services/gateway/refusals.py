"""The door's own refusals of a call, written in the caller's protocol.

Some requests are refused before the Room API (connectrpc) sees them, because
connectrpc cannot answer them itself: a header value that is not UTF-8 made it
raise while reading the headers, so every protocol got HTTP 500 and the log an
ERROR with a traceback (an outside hostile probe, ``x-user-agent: caf\\xe9``).
The refusal must still read as a status to the client that sent it:

* gRPC and gRPC-Web (binary and text mode): HTTP 200, trailers-only, the status
  in ``grpc-status``/``grpc-message`` headers, no body, as connectrpc answers
  its own early errors;
* a Connect stream (``application/connect+...``): HTTP 200 and one end-of-stream
  envelope carrying the error, which Connect clients read for the message;
* anything else, a Connect unary call (POST or GET) or a stranger: the HTTP
  status of the code and Connect's JSON error body.
"""

from __future__ import annotations

import json
from urllib.parse import quote

from connectrpc.code import Code

from .asgi import Scope, Send, header

# The codes the door refuses with, as gRPC numbers and Connect HTTP statuses.
GRPC_NUMBER = {Code.INVALID_ARGUMENT: 3, Code.RESOURCE_EXHAUSTED: 8}
HTTP_STATUS = {Code.INVALID_ARGUMENT: 400, Code.RESOURCE_EXHAUSTED: 429}
END_STREAM = 0x02  # Connect's envelope flag of the end-of-stream message


def undecodable(scope: Scope) -> str | None:
    """What in the request is not UTF-8 (a header, named, or the query string),
    or None when all of it is; connectrpc decodes all of it as UTF-8.

    >>> undecodable({"headers": [(b"x-user-agent", b"caf\\xc3\\xa9")], "query_string": b""})
    >>> undecodable({"headers": [(b"x-user-agent", b"caf\\xe9")]})
    "the request header 'x-user-agent'"
    >>> undecodable({"headers": [], "query_string": b"message=\\xff"})
    'the query string'
    """
    for key, value in scope.get("headers", ()):
        try:
            key.decode()
            value.decode()
        except UnicodeDecodeError:
            name = bytes(key).decode("ascii", "backslashreplace")
            return f"the request header {name!r}"
    try:
        scope.get("query_string", b"").decode()
    except UnicodeDecodeError:
        return "the query string"
    return None


def _media(scope: Scope) -> bytes:
    kind = header(scope, b"content-type") or b""
    return kind.split(b";", 1)[0].strip().lower()


async def refuse_call(scope: Scope, send: Send, code: Code, message: str) -> None:
    """Answer the call with ``code`` and ``message`` in the caller's protocol
    (see the module); nothing of the request is read."""
    media = _media(scope)
    if media.startswith(b"application/grpc"):
        if media.startswith(b"application/grpc-web-text"):
            kind = b"application/grpc-web-text+proto"
        elif media.startswith(b"application/grpc-web"):
            kind = b"application/grpc-web+proto"
        else:
            kind = b"application/grpc+proto"
        headers = [
            (b"content-type", kind),
            (b"grpc-status", str(GRPC_NUMBER[code]).encode()),
            (b"grpc-message", quote(message, safe=" ").encode()),
        ]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": b""})
        return
    error = {"code": code.value, "message": message}
    if media.startswith(b"application/connect+"):
        proto = media == b"application/connect+proto"  # else JSON, Connect's other codec
        kind = b"application/connect+proto" if proto else b"application/connect+json"
        end = json.dumps({"error": error}).encode()
        body = bytes([END_STREAM]) + len(end).to_bytes(4, "big") + end
        status = 200
    else:
        kind, body, status = b"application/json", json.dumps(error).encode(), HTTP_STATUS[code]
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", kind), (b"content-length", str(len(body)).encode())],
        }
    )
    await send({"type": "http.response.body", "body": body})
