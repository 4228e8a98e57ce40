"""gRPC-Web's text mode at the door: ``application/grpc-web-text``, base64 both ways.

The official grpc-web JavaScript client (``grpc-web`` on npm) uses text mode by
default, and so do proxies built for it (Envoy's ``grpc_web`` filter).  connectrpc
serves only binary gRPC-Web (it answered text mode 415), so this layer turns a
text-mode call into a binary one and its answer back:

* The request body is read whole first (a browser cannot stream a request, so a
  text-mode body is always finished; the door's body wait bounds the read), and
  decoded as base64, allowing separately padded pieces one after another (the
  protocol lets a client send them).  A body that is not base64 is answered
  INVALID_ARGUMENT and one longer than a message may be RESOURCE_EXHAUSTED, in
  trailers-only form, before the Room API sees anything.
* Each piece of the answer is encoded as it goes out, padded on its own, so a
  streamed event (``Watch``, ``Follow``) is never held back waiting for the bytes
  of the next one; the grpc-web client decodes concatenated padded pieces.
* The content types are swapped: ``application/grpc-web-text[+proto]`` in,
  ``application/grpc-web[+proto]`` to connectrpc, and the reverse on the answer.

See https://github.com/grpc/grpc/blob/master/doc/PROTOCOL-WEB.md.
"""

from __future__ import annotations

import binascii
import re

from connectrpc.code import Code

from .asgi import App, Message, Receive, Scope, Send, header
from .refusals import refuse_call

TEXT = b"application/grpc-web-text"
BINARY = b"application/grpc-web"
ENVELOPE = 5  # gRPC's frame header: a flags byte and a 4-byte length

# One padded base64 piece: whole 4-character groups, the last may end in "=" or "==".
_PIECE = re.compile(rb"(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?")


def is_text_mode(scope: Scope) -> bool:
    """Whether the request is gRPC-Web in text mode."""
    return (header(scope, b"content-type") or b"").lower().startswith(TEXT)


def decode(body: bytes) -> bytes:
    """The bytes of a text-mode body: base64, in one or more padded pieces.

    >>> decode(b"AAAAAAA=")
    b'\\x00\\x00\\x00\\x00\\x00'
    >>> decode(b"QQ==QkM=")  # two pieces, each padded
    b'ABC'
    >>> decode(b"QUJD!!!!")
    Traceback (most recent call last):
    ...
    ValueError: the body is not base64 (at byte 4)
    """
    out = bytearray()
    at = 0
    while at < len(body):
        piece = _PIECE.match(body, at)
        end = piece.end() if piece is not None else at
        if end == at:
            raise ValueError(f"the body is not base64 (at byte {at})")
        out += binascii.a2b_base64(body[at:end], strict_mode=True)
        at = end
    return bytes(out)


def _swap(kind: bytes, old: bytes, new: bytes) -> bytes:
    return new + kind[len(old) :] if kind.lower().startswith(old) else kind


class GrpcWebText:
    """ASGI wrapper: text-mode gRPC-Web in front of ``app``; anything else passes."""

    def __init__(self, app: App, max_message_bytes: int) -> None:
        self._app = app
        # A whole message in base64, with its frame header and a little slack for
        # padded pieces: past it the body cannot be one message the Room API takes.
        self._max_text = 4 * ((max_message_bytes + ENVELOPE + 2) // 3) + 64

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope.get("type") != "http" or not is_text_mode(scope):
            await self._app(scope, receive, send)
            return
        body = bytearray()
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client went away (or the body wait ended)
            body += message.get("body", b"")
            if len(body) > self._max_text:
                await refuse_call(
                    scope,
                    send,
                    Code.RESOURCE_EXHAUSTED,
                    f"the request is over {self._max_text} bytes of base64",
                )
                return
            if not message.get("more_body", False):
                break
        try:
            decoded = decode(bytes(body))
        except ValueError as exc:
            await refuse_call(scope, send, Code.INVALID_ARGUMENT, f"gRPC-Web text mode: {exc}")
            return
        headers = [
            (key, _swap(bytes(value), TEXT, BINARY) if key.lower() == b"content-type" else value)
            for key, value in scope.get("headers", ())
            if key.lower() not in (b"content-length", b"accept")
        ]
        headers.append((b"content-length", str(len(decoded)).encode()))
        binary_scope = {**scope, "headers": headers}
        given = False

        async def decoded_receive() -> Message:
            nonlocal given
            if not given:
                given = True
                return {"type": "http.request", "body": decoded, "more_body": False}
            return await receive()

        async def text_send(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [
                    (k, _swap(bytes(v), BINARY, TEXT) if k.lower() == b"content-type" else v)
                    for k, v in message.get("headers", ())
                    if k.lower() != b"content-length"  # the base64 is longer
                ]
            elif message["type"] == "http.response.body" and message.get("body"):
                message["body"] = binascii.b2a_base64(message["body"], newline=False)
            await send(message)

        await self._app(binary_scope, decoded_receive, text_send)
