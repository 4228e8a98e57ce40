"""The Watch limits over gRPC (TABLE_WATCHERS_PER_TABLE, TABLE_WATCHERS_PER_CLIENT).

A table takes at most ``per_table`` spectators, whoever they are (the gateway's
streams included); a client without a service identity (a player's connection
on the public port) at most ``per_client`` across the replica's tables, counted
by its address whatever the port, so new connections do not get around it.  The
gateway (a service identity: it carries many spectators on one stream) is not
limited per client.  Past either limit the new Watch is RESOURCE_EXHAUSTED,
naming the limit, and the spectators already there keep receiving.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import grpc
from prometheus_client import REGISTRY

from poker.table.v1 import table_pb2_grpc
from services.table.viewers import WatchClients, WatchLimits, client_address

from .inroom import WAIT_S, InRoom, in_room
from .streams import Reader, watch

RESOURCE_EXHAUSTED = grpc.StatusCode.RESOURCE_EXHAUSTED


def spectators_connected() -> float:
    return REGISTRY.get_sample_value("table_connected_streams", {"kind": "spectator"}) or 0.0


def dropped(reason: str) -> float:
    value = REGISTRY.get_sample_value("table_watchers_dropped_total", {"reason": reason})
    return value or 0.0


async def watching(reader: Reader) -> Reader:
    """``reader`` once it has its first message, the table as a spectator sees it."""
    await reader.wait_for(lambda e: e.HasField("snapshot"), "the Watch's Snapshot")
    return reader


async def refused(reader: Reader) -> str:
    """The details of a Watch refused RESOURCE_EXHAUSTED (before any message)."""
    error = await reader.ended()
    assert error is not None, "the Watch was not refused"
    assert error.code() == RESOURCE_EXHAUSTED, error
    assert reader.events == []
    return error.details() or ""


async def until(condition: Callable[[], bool], what: str) -> None:
    for _ in range(int(WAIT_S / 0.01)):
        if condition():
            return
        await asyncio.sleep(0.01)
    raise TimeoutError(what)


async def hand_starts_for(readers: list[Reader], room: InRoom, table_id: str) -> None:
    """Two players sit down; every reader sees the hand start."""
    await room.seat(table_id, 2)
    for reader in readers:
        await reader.wait_for(lambda e: e.HasField("hand_started"), "the hand's start")


def run(limits: WatchLimits, body: Callable[[InRoom], Awaitable[None]]) -> None:
    async def main() -> None:
        connected = spectators_connected()
        async with in_room(limits) as room:
            await body(room)
            await until(lambda: spectators_connected() == connected, "every stream off the gauge")
            assert room.servicer.watch_clients.open == {}

    asyncio.run(main())


def test_a_client_past_its_watchers_is_refused_and_the_others_go_on() -> None:
    async def body(room: InRoom) -> None:
        first, second = await room.create_table(), await room.create_table()
        before = dropped("client_limit")
        async with room.player_channel() as channel, room.player_channel() as again:
            stub = table_pb2_grpc.TableServiceStub(channel)
            mine = [await watching(watch(stub, first)), await watching(watch(stub, first))]
            assert room.servicer.watch_clients.open == {"ipv4:127.0.0.1": 2}
            # A third, at another table or over another connection: the same client.
            for target in (stub, table_pb2_grpc.TableServiceStub(again)):
                details = await refused(watch(target, second))
                assert "TABLE_WATCHERS_PER_CLIENT=2" in details, details
            assert dropped("client_limit") == before + 2
            # The gateway, a service identity, is not limited per client.
            async with room.service_channel("gateway") as gateway:
                relayed = table_pb2_grpc.TableServiceStub(gateway)
                feeds = [await watching(watch(relayed, second)) for _ in range(3)]
                # The watchers already there are untouched: they see the next hand.
                await hand_starts_for(mine, room, first)
                await hand_starts_for(feeds, room, second)
                for reader in feeds:
                    await reader.close()
            # A closed stream gives its place back.
            await mine[0].close()
            await until(lambda: room.servicer.watch_clients.open == {"ipv4:127.0.0.1": 1}, "1")
            back = await watching(watch(stub, second))
            for reader in (mine[1], back):
                await reader.close()

    run(WatchLimits(per_client=2, per_table=50), body)


def test_a_table_past_its_watchers_refuses_the_next_and_the_others_go_on() -> None:
    async def body(room: InRoom) -> None:
        full, other = await room.create_table(), await room.create_table()
        before = dropped("table_limit")
        async with (
            room.service_channel("gateway") as gateway,
            room.player_channel() as channel,
        ):
            relayed = table_pb2_grpc.TableServiceStub(gateway)
            player = table_pb2_grpc.TableServiceStub(channel)
            there = [await watching(watch(relayed, full)) for _ in range(2)]
            there.append(await watching(watch(player, full)))
            # The table is full for everyone: the gateway and a player alike.
            for stub in (relayed, player):
                details = await refused(watch(stub, full))
                assert "TABLE_WATCHERS_PER_TABLE=3" in details, details
                assert full in details
            assert dropped("table_limit") == before + 2
            runtime = await room.runtime(full)
            assert len(runtime.viewers.spectators) == 3
            # Another table is not full; the refused ones took no place anywhere.
            elsewhere = await watching(watch(player, other))
            assert room.servicer.watch_clients.open == {"ipv4:127.0.0.1": 2}
            await hand_starts_for(there, room, full)
            await there[0].close()
            await until(lambda: len(runtime.viewers.spectators) == 2, "a place freed")
            there[0] = await watching(watch(relayed, full))
            for reader in (*there, elsewhere):
                await reader.close()

    run(WatchLimits(per_table=3, per_client=20), body)


def test_a_client_is_its_address_whatever_the_port() -> None:
    assert client_address("ipv4:10.0.0.7:51234") == "ipv4:10.0.0.7"
    assert client_address("ipv6:[::1]:51234") == "ipv6:[::1]"
    assert client_address("ipv6:%5B::1%5D:443") == "ipv6:%5B::1%5D"
    assert client_address("unix:/run/table.sock") == "unix:/run/table.sock"


def test_without_identities_nobody_is_limited_per_client() -> None:
    """GRPC_PLAINTEXT (benchmarks only): the gateway cannot be told from a client,
    so the per-client limit is off (the per-table one still holds)."""
    clients = WatchClients(None)
    for _ in range(WatchLimits().per_client + 5):
        clients.admit("ipv4:127.0.0.1")
    assert clients.open == {}
    limited = WatchClients(1)
    limited.admit("ipv4:127.0.0.1")
    limited.admit("ipv4:127.0.0.2")
    assert limited.open == {"ipv4:127.0.0.1": 1, "ipv4:127.0.0.2": 1}
