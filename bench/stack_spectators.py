"""Spectators for the benchmark: many Watch streams through the gateway, in a
process of their own (``python -m bench.stack_spectators``, started by
``bench.door``).

It reads a JSON spec as the first line of stdin::

    {"target": "127.0.0.1:PORT", "ca_file": ".../ca.crt", "channels": 4,
     "watchers": [{"table_id": "...", "credential": "..."}, ...],
     "probe": {"table_id": "...", "credential": "...", "streams": 25}}

opens every watcher's ``Room.Watch`` (gRPC over HTTP/2, the messages kept as
bytes: a spectator client that only counts), spread over ``channels`` channels,
and speaks in lines like the bots' process: ``{"event": "connected"}`` once every
stream has its snapshot; stdin ``measure`` starts counting; ``stop`` ends the
streams and prints ``{"event": "results", ...}``: events and bytes received in
the window, streams that ended early by status, and the ``probe``: one player
opening ``streams`` Watch streams at once, past the per-player limit, and the
statuses they got (the limit must answer RESOURCE_EXHAUSTED).
"""

from __future__ import annotations

import asyncio
import collections
import json
import sys
import time
from typing import Any

import grpc

from poker.room.v1 import room_pb2 as rpb
from poker.table.v1 import table_pb2 as tpb
from poker_wire.channels import player_channel
from service_kit import loop as event_loop

from .stack_bots import _stdin

WATCH = "/poker.room.v1.Room/Watch"
CONNECT_TIMEOUT_S = 60.0
# A channel of its own per connection (grpc shares one connection among channels to
# the same target otherwise): spectators are many people, each on their own.
CHANNEL_OPTIONS = (("grpc.use_local_subchannel_pool", 1),)


_BATCH = b"\xb2\x01"  # TableEvent.batch's tag: a message of several events


def _events_in(data: bytes) -> int:
    """How many table events one message carries (a batch is parsed to count)."""
    if data[:2] == _BATCH:
        return len(tpb.TableEvent.FromString(data).batch.events)
    return 1


class Counts:
    def __init__(self) -> None:
        self.open = False
        self.messages = 0
        self.events = 0
        self.bytes = 0
        self.started = 0.0
        self.ended = 0.0
        self.early: collections.Counter[str] = collections.Counter()
        self.why: list[str] = []  # the first few early ends' messages
        self.when: list[float] = []  # seconds into the window of each early end


async def _watch(
    channel: grpc.aio.Channel,
    watcher: dict[str, Any],
    counts: Counts,
    first: asyncio.Event,
    stop: asyncio.Event,
) -> None:
    call: Any = channel.unary_stream(WATCH, request_serializer=rpb.WatchRequest.SerializeToString)(
        rpb.WatchRequest(table_id=watcher["table_id"]),
        metadata=(("authorization", f"Bearer {watcher['credential']}"),),
    )
    try:
        async for data in call:
            first.set()
            if counts.open:
                counts.messages += 1
                counts.events += _events_in(data)
                counts.bytes += len(data)
            if stop.is_set():
                break
    except grpc.aio.AioRpcError as error:
        if not stop.is_set():
            counts.early[error.code().name] += 1
            if len(counts.why) < 5:
                counts.why.append(f"{error.code().name}: {error.details()}")
            counts.when.append(round(time.perf_counter() - (counts.started or 0.0), 2))
    finally:
        call.cancel()
        first.set()


async def _probe(channel: grpc.aio.Channel, probe: dict[str, Any]) -> dict[str, int]:
    """One player opening more Watch streams than allowed: the statuses."""
    statuses: collections.Counter[str] = collections.Counter()
    calls: list[Any] = [
        channel.unary_stream(WATCH, request_serializer=rpb.WatchRequest.SerializeToString)(
            rpb.WatchRequest(table_id=probe["table_id"]),
            metadata=(("authorization", f"Bearer {probe['credential']}"),),
        )
        for _ in range(int(probe["streams"]))
    ]

    async def first(call: Any) -> str:
        try:
            await asyncio.wait_for(call.read(), 10)
            return "OK"
        except grpc.aio.AioRpcError as error:
            return str(error.code().name)
        except TimeoutError:
            return "TIMEOUT"

    for status in await asyncio.gather(*(first(c) for c in calls)):
        statuses[status] += 1
    for call in calls:
        call.cancel()
    return dict(statuses)


async def run() -> dict[str, Any]:
    stdin = await _stdin()
    spec: dict[str, Any] = json.loads(await stdin.readline())
    channels = [
        player_channel(spec["target"], spec["ca_file"], options=CHANNEL_OPTIONS)
        for _ in range(max(1, int(spec.get("channels", 4))))
    ]
    counts = Counts()
    stop = asyncio.Event()
    watchers: list[dict[str, Any]] = spec["watchers"]
    firsts = [asyncio.Event() for _ in watchers]
    tasks = [
        asyncio.create_task(_watch(channels[i % len(channels)], w, counts, firsts[i], stop))
        for i, w in enumerate(watchers)
    ]
    await asyncio.wait_for(asyncio.gather(*(f.wait() for f in firsts)), CONNECT_TIMEOUT_S)
    print(json.dumps({"event": "connected", "watchers": len(watchers)}), flush=True)
    while True:
        line = (await stdin.readline()).decode().strip()
        if line == "measure":
            counts.events = counts.messages = counts.bytes = 0
            counts.started = time.perf_counter()
            counts.open = True
        elif line == "stop" or not line:
            counts.ended = time.perf_counter()
            counts.open = False
            break
    probe = await _probe(channels[0], spec["probe"]) if spec.get("probe") else {}
    stop.set()
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    for channel in channels:
        await channel.close()
    span = counts.ended - counts.started if counts.started else 0.0
    return {
        "event": "results",
        "watchers": len(watchers),
        "window_s": span,
        "events": counts.events,
        "messages": counts.messages,
        "bytes": counts.bytes,
        "events_per_s": counts.events / span if span else 0.0,
        "ended_early": dict(counts.early),
        "ended_early_why": counts.why,
        "ended_early_at_s": sorted(counts.when)[:50],
        "stopped_at_s": round(counts.ended - counts.started, 2) if counts.started else 0.0,
        "probe": probe,
    }


def main() -> int:
    results = event_loop.run(run())
    print(json.dumps(results), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
