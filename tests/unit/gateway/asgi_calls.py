"""Driving the door's ASGI layers in-process: one request through an app, and
hypercorn (patched as the gateway patches it) serving an app on a free port."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator, MutableMapping
from typing import Any

from hypercorn.asyncio import serve
from hypercorn.config import Config

from services.gateway.asgi import App


async def call_app(
    app: App,
    method: str,
    path: str,
    headers: list[tuple[bytes, bytes]],
    http_version: str = "2",
    query: bytes = b"",
) -> list[Any]:
    """The messages ``app`` sends for one request with an empty body."""
    sent: list[Any] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: MutableMapping[str, Any]) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "method": method,
        "path": path,
        "query_string": query,
        "headers": headers,
        "http_version": http_version,
    }
    await app(scope, receive, send)
    return sent


@contextlib.asynccontextmanager
async def served(http: App) -> AsyncIterator[tuple[asyncio.StreamReader, asyncio.StreamWriter]]:
    """hypercorn serving ``http`` (lifespan answered here) on a free port, and a
    plain TCP connection to it; the server stops when the block ends."""

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            while (await receive())["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            await send({"type": "lifespan.shutdown.complete"})
            return
        await http(scope, receive, send)

    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    config = Config()
    config.bind = [f"fd://{listener.detach()}"]  # hypercorn's alone to close
    config.accesslog = config.errorlog = None
    config.graceful_timeout = 0.1
    stop = asyncio.Event()
    server = asyncio.create_task(serve(app, config, shutdown_trigger=stop.wait))  # type: ignore[arg-type]
    for _ in range(250):
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            break
        except OSError:
            await asyncio.sleep(0.02)
    try:
        yield reader, writer
    finally:
        writer.close()
        with contextlib.suppress(OSError):
            await writer.wait_closed()
        await asyncio.sleep(0.05)
        stop.set()
        await server
