"""The ASGI shapes the door's layers pass along (hypercorn in front, connectrpc
behind), and reading one request header."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]


def header(scope: Scope, name: bytes) -> bytes | None:
    """The first value of the request header ``name`` (lower case), or None.

    >>> header({"headers": [(b"Content-Type", b"application/json")]}, b"content-type")
    b'application/json'
    """
    for key, value in scope.get("headers", ()):
        if key.lower() == name:
            return bytes(value)
    return None
