"""gRPC core's I/O path: the one setting grpc reads before any Python code runs.

Why: at human pace every message of the room travels alone (a thousand tables'
decisions arrive about a millisecond apart), so what a message costs is not
HTTP/2 framing but the hand-offs between threads that carry it: with gRPC
core's EventEngine endpoints (the default since grpc 1.6x) a message goes from
an ``event_engine`` thread to the completion queue, to grpc.aio's poller thread,
to the event loop; with the older endpoints (iomgr's epoll, the default for
years before) the poller thread reads the socket itself, one hand-off fewer.
Measured on the 2-core machine (``docs/performance.md``, the scale section):
one echo message at a time, 1,000 a second over 8 streams, both processes on
uvloop, the default took 450-620 us of CPU per round trip (both sides) with a
median round trip of 0.37-0.51 ms; with the EventEngine endpoints off, 382-385
us and 0.27-0.28 ms (TLS: 460-560 against 408-424 us).

grpc reads ``GRPC_EXPERIMENTS`` once, when its core loads (the first
``import grpc``); setting it later changes nothing (checked: the client of the
same probe kept the default cost).  So ``service_kit`` imports this module
before anything of its own imports grpc, and every service's ``__main__``
imports ``service_kit`` first.  An operator's own ``GRPC_EXPERIMENTS`` wins
(``event_engine_client,event_engine_listener,event_engine_for_all_other_endpoints``
is grpc's default I/O again).
"""

from __future__ import annotations

import os
from collections.abc import MutableMapping

# gRPC core's experiments this room turns off: the EventEngine's client,
# listener and other endpoints (grpc's older epoll I/O carries them instead).
LEGACY_ENDPOINTS = ",".join(
    ("-event_engine_client", "-event_engine_listener", "-event_engine_for_all_other_endpoints")
)
VARIABLE = "GRPC_EXPERIMENTS"


def choose_io(environ: MutableMapping[str, str] | None = None) -> str:
    """Set ``GRPC_EXPERIMENTS`` to ``LEGACY_ENDPOINTS`` unless it is set;
    returns the value grpc will read.

    >>> env = {}
    >>> choose_io(env) == LEGACY_ENDPOINTS and env[VARIABLE] == LEGACY_ENDPOINTS
    True
    >>> choose_io({VARIABLE: "event_engine_client"})  # the operator's choice
    'event_engine_client'
    """
    environ = os.environ if environ is None else environ
    return environ.setdefault(VARIABLE, LEGACY_ENDPOINTS)


choose_io()

__all__ = ["LEGACY_ENDPOINTS", "VARIABLE", "choose_io"]
