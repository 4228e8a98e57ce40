"""One fix to hypercorn 0.18.0's HTTP/2 (the newest release on PyPI), applied at
start.

A client's DATA frame for a stream hypercorn has already closed (a call to a
method the gateway does not serve, answered 404 before its body arrived) raises
a KeyError in ``H2Protocol._handle_events`` that kills the connection's reader:
every later call on that connection hangs until its deadline.  hypercorn
guards the same case for END_STREAM (upstream pgjones/hypercorn PRs 334 and
365 do it for DATA too).  Here: such a frame is acknowledged, so the
connection's flow-control window is not lost, and skipped; every other event
goes to hypercorn's own handler unchanged.
"""

from __future__ import annotations

from typing import Any

import h2.events
from hypercorn.protocol.h2 import H2Protocol

_original = H2Protocol._handle_events


async def _handle_events(self: Any, events: list[h2.events.Event]) -> None:
    # In order, one run of hypercorn's handler per stretch of events: a DATA frame
    # is judged after the events before it (its stream's headers may be in the
    # same read) have been handled.
    stretch: list[h2.events.Event] = []
    for event in events:
        if isinstance(event, h2.events.DataReceived):
            if stretch:
                await _original(self, stretch)
                stretch = []
            if event.stream_id not in self.streams:
                self.connection.acknowledge_received_data(
                    event.flow_controlled_length, event.stream_id
                )
                continue
        stretch.append(event)
    await _original(self, stretch)


def apply() -> None:
    """Install the fix (applying it again changes nothing)."""
    H2Protocol._handle_events = _handle_events  # type: ignore[method-assign]
