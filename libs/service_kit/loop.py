"""Which asyncio event loop runs a process: uvloop by default, the stdlib's on request.

Why: grpc.aio hands every completed operation to the event loop as a callback, so
the loop's own cost is paid several times per message.  uvloop (libuv, in Cython)
runs those callbacks and the selector for a fraction of the stdlib loop's CPU;
``make bench`` measured the whole room at about 43 hands/s on the stdlib loop and
about 49 on uvloop, the same code otherwise.  ``EVENT_LOOP=asyncio`` runs the
stdlib loop (to rule uvloop out when chasing a bug); nothing else changes.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine, Mapping
from typing import Any, TypeVar

from .settings import EVENT_LOOP, EVENT_LOOPS

T = TypeVar("T")

__all__ = ["EVENT_LOOPS", "event_loop_name", "run"]


def event_loop_name(environ: Mapping[str, str] | None = None) -> str:
    """``EVENT_LOOP``: uvloop (default) or asyncio."""
    return EVENT_LOOP.read(environ)


def run(main: Coroutine[Any, Any, T], *, loop: str | None = None) -> T:
    """``asyncio.run(main)`` on ``loop`` (default: the one ``EVENT_LOOP`` names)."""
    if (loop or event_loop_name()) == "uvloop":
        import uvloop

        return uvloop.run(main)
    return asyncio.run(main)
