"""A client's connection and streams through the room's door, as on a table's port.

What the security suite's clients met through the door (issue 16, point 5), each
checked on the table service's own port (``direct``) and at the door (``door``,
the gateway) with the same client:

* a Play stream its client closes (its side done) ends OK, not INTERNAL;
* one connection carries a long session: a seat's stream outlives a thousand
  calls made on the same connection (a bot lab's seats, an app's Acts);
* a call of a method the server does not have (a typo, an older server, a
  tool's health check) is UNIMPLEMENTED for that call only: the connection and
  its other streams go on.
"""

from __future__ import annotations

import asyncio
from typing import Any

import grpc
import pytest
from grpc import aio

from poker.room.v1 import room_pb2 as rpb
from poker.room.v1.room_pb2_grpc import RoomStub
from poker.table.v1 import table_pb2 as pb
from poker.table.v1.table_pb2_grpc import TableServiceStub

from .room import STUD, VIAS, Player, Room, Stream, Via, bearer

CALLS = 1_001  # hypercorn's keep_alive_max_requests is 1,000 by default
BURST = 50
PINGS = 50
# HTTP/2 keepalive pings (as a bot keeps a long connection alive) and small flow
# windows: the client goes on sending frames on the connection after the calls,
# which a server that has closed it answers with a connection error.
KEEPALIVE = (
    ("grpc.keepalive_time_ms", 200),
    ("grpc.keepalive_permit_without_calls", 1),
    ("grpc.http2.bdp_probe", 0),
    ("grpc.http2.lookahead_bytes", 1024),
)


@pytest.fixture(scope="module")
def table_id(room: Room) -> str:
    return room.create_table("sec door connections", STUD, 2, min_buy_in=1_000, clock_ms=60_000)


def channel_of(room: Room, via: Via, options: Any = ()) -> aio.Channel:
    if via == "door":
        return room.door_channel(options)
    return room.stack["table"].player_channel(options=options)


async def pong(stream: Stream, nonce: int) -> None:
    """A ping on the stream is answered."""
    stream.send(pb.PlayerMessage(ping=pb.Ping(nonce=nonce)))
    while True:
        event = await stream.wait_for("pong")
        if event.pong.nonce == nonce:
            return


async def a_call(
    channel: aio.Channel, via: Via, player: Player, table_id: str, timeout: float = 5
) -> Any:
    """An ordinary unary call of the player's: GetState."""
    if via == "door":
        return await RoomStub(channel).GetState(
            rpb.GetStateRequest(table_id=table_id),
            metadata=bearer(player.credential),
            timeout=timeout,
        )
    return await TableServiceStub(channel).GetState(
        pb.GetStateRequest(table_id=table_id, player_id=player.player_id, token=player.token),
        timeout=timeout,
    )


@pytest.mark.parametrize("via", VIAS)
def test_a_play_stream_its_client_closes_ends_ok(room: Room, table_id: str, via: Via) -> None:
    player = room.register(f"connections close {via}")

    async def run() -> Any:
        async with channel_of(room, via) as channel:
            stream = Stream(channel, player, table_id, pb.DELIVERY_EVERY_EVENT, via=via)
            await stream.wait_for("snapshot")
            await pong(stream, 1)
            await stream.close()  # the client's side is done: the server ends the stream
            return stream.error

    assert asyncio.run(run()) is None


@pytest.mark.parametrize("via", VIAS)
def test_a_stream_outlives_a_thousand_calls_on_its_connection(
    room: Room, table_id: str, via: Via
) -> None:
    """A seat's Play stream, then a thousand and one calls on the same
    connection (refused at once: a malformed credential, an unknown player); the
    stream still answers pings a while later (the connection kept alive by
    HTTP/2 pings) and the connection still takes calls."""
    player = room.register(f"connections many {via}")

    async def refused(channel: aio.Channel) -> grpc.StatusCode:
        try:
            if via == "door":
                await RoomStub(channel).GetMe(rpb.GetMeRequest(), metadata=bearer("x"), timeout=5)
            else:
                await TableServiceStub(channel).GetState(  # past the burst: RESOURCE_EXHAUSTED
                    pb.GetStateRequest(table_id=table_id, player_id="p-nobody", token="x"),
                    timeout=5,
                )
        except aio.AioRpcError as error:
            return error.code()
        return grpc.StatusCode.OK

    async def run() -> None:
        async with channel_of(room, via, KEEPALIVE) as channel:
            stream = Stream(channel, player, table_id, pb.DELIVERY_EVERY_EVENT, via=via)
            await stream.wait_for("snapshot")
            codes: list[grpc.StatusCode] = []
            for first in range(0, CALLS, BURST):
                burst = min(BURST, CALLS - first)
                codes += await asyncio.gather(*(refused(channel) for _ in range(burst)))
            assert grpc.StatusCode.OK not in codes
            assert grpc.StatusCode.UNAVAILABLE not in codes, "the connection broke"
            await asyncio.sleep(1)
            for nonce in range(2, 2 + PINGS):  # the stream carries on: data both ways
                await asyncio.wait_for(pong(stream, nonce), 5)
            assert stream.error is None, stream.error
            await a_call(channel, via, player, table_id)
            stream.call.cancel()

    asyncio.run(run())


@pytest.mark.parametrize("via", VIAS)
def test_an_unknown_method_leaves_the_connection_working(
    room: Room, table_id: str, via: Via
) -> None:
    player = room.register(f"connections unknown {via}")

    async def run() -> None:
        async with channel_of(room, via) as channel:
            await a_call(channel, via, player, table_id)
            unknown: Any = channel.unary_unary("/poker.room.v1.Room/NoSuchMethod")
            with pytest.raises(aio.AioRpcError) as error:
                await unknown(b"", timeout=5)
            assert error.value.code() == grpc.StatusCode.UNIMPLEMENTED
            await a_call(channel, via, player, table_id, timeout=2)
            stream = Stream(channel, player, table_id, pb.DELIVERY_EVERY_EVENT, via=via)
            await asyncio.wait_for(stream.wait_for("snapshot"), 5)
            await asyncio.wait_for(pong(stream, 3), 5)
            stream.call.cancel()

    asyncio.run(run())
