"""A spectator that stops reading, over gRPC: dropped, never waited for.

Random bots deal hand after hand (``bots``) on a table served over real gRPC
(``inroom.serving``).  One spectator reads its Snapshot and then nothing; its
connection has small HTTP/2 windows, so the transport soon holds all it can and
the table's events wait in the watcher's buffer (TABLE_WATCH_BUFFER, default
256).  When that is full the watcher is dropped: its buffer freed and its place
at the table given up at once, while the table deals on and the spectator that
reads (its own connection) gets every hand.  The dropped client, reading again,
gets what its transport held and then RESOURCE_EXHAUSTED "too slow".
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import grpc
from prometheus_client import REGISTRY

from devroom.launcher import shared_pki
from poker.table.v1 import table_pb2 as tpb
from poker.table.v1 import table_pb2_grpc
from poker_wire.channels import player_channel
from services.table.viewers import WatchLimits

from .bots import quiet, table_with_bots
from .inroom import serving
from .streams import watch

OWN_CONNECTION = ("grpc.use_local_subchannel_pool", 1)  # not shared with other channels
# A client that reads nothing soon stops the server's writes: no window growth
# (BDP probing) and a small stream window.
SMALL_WINDOWS = [("grpc.http2.bdp_probe", 0), ("grpc.http2.lookahead_bytes", 4096)]
LIMIT_S = 120.0  # a guard against hangs, never an assertion on speed


def dropped(reason: str) -> float:
    value = REGISTRY.get_sample_value("table_watchers_dropped_total", {"reason": reason})
    return value or 0.0


async def until(condition: Callable[[], bool], what: str) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + LIMIT_S
    while not condition():
        if loop.time() > deadline:
            raise TimeoutError(what)
        await asyncio.sleep(0.02)


def test_a_spectator_that_stops_reading_is_dropped_and_the_others_go_on() -> None:
    async def main() -> None:
        room, run = await table_with_bots(WatchLimits(), hands=1_000_000, seed=11)
        runtime = room.manager.tables[run.table_id]
        ca = shared_pki().ca_file
        request = tpb.WatchRequest(table_id=run.table_id)
        async with (
            serving(room.servicer) as (_, public),
            player_channel(public, ca, options=[OWN_CONNECTION, *SMALL_WINDOWS]) as stuck,
            player_channel(public, ca, options=[OWN_CONNECTION]) as fine,
        ):
            slow = table_pb2_grpc.TableServiceStub(stuck).Watch(request)
            first = await slow.read()
            assert isinstance(first, tpb.TableEvent) and first.HasField("snapshot")
            reader = watch(table_pb2_grpc.TableServiceStub(fine), run.table_id)
            await reader.wait_for(lambda e: e.HasField("snapshot"), "the Snapshot")
            too_slow = dropped("too_slow")

            playing = asyncio.create_task(room.play(LIMIT_S * 2))
            await until(lambda: dropped("too_slow") > too_slow, "the stuck spectator dropped")
            assert len(runtime.viewers.spectators) == 1, "its place is free at once"
            at_drop = len(run.hands)
            await until(lambda: len(run.hands) >= at_drop + 3, "three more hands")
            run.done.set()
            await playing
            assert dropped("too_slow") == too_slow + 1, "only the stuck one"

            # The reading spectator: every hand finished after it came, whole.
            error = await reader.ended()
            assert error is not None and error.code() == grpc.StatusCode.UNAVAILABLE, error
            hands: dict[str, list[int]] = {}
            for event in reader.events[1:]:
                hands.setdefault(event.hand_id, []).append(event.event_seq)
            for hand_id in run.hands[1:]:
                assert hands[hand_id] == list(range(1, len(hands[hand_id]) + 1)), hand_id
            finished = [e.hand_id for e in reader.events if e.HasField("hand_finished")]
            assert set(run.hands[1:]) <= set(finished)

            # The stuck one, reading again: what its transport held, then the status.
            held = 0
            try:
                while (await slow.read()) is not grpc.aio.EOF:
                    held += 1
                raise AssertionError("the stuck stream ended OK")
            except grpc.aio.AioRpcError as ended:
                assert ended.code() == grpc.StatusCode.RESOURCE_EXHAUSTED, ended
                details = ended.details() or ""
            assert details.startswith("too slow: 256 events"), details
            assert "TABLE_WATCH_BUFFER" in details
            assert held < len(reader.events), "it was dropped long before the end"

    with quiet():
        asyncio.run(main())
