"""Limits on the player plane: a player's calls a second, and the size of a
request, each RESOURCE_EXHAUSTED past its limit with a message that says it, and
nothing done.  The room's own identities are not rate-limited."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import grpc
import pytest

from devroom.launcher import ServiceProcess
from poker.lobby.v1 import lobby_pb2 as lpb
from poker.lobby.v1 import lobby_pb2_grpc


@pytest.fixture(scope="module")
def lobby() -> Iterator[ServiceProcess]:
    env = {"PLAYER_CALLS_PER_S": "0.5", "PLAYER_BURST": "3"}
    with ServiceProcess("lobby", env) as process:
        yield process


def test_a_players_calls_past_the_rate_are_resource_exhausted(lobby: ServiceProcess) -> None:
    async def run() -> None:
        async with lobby.aio_channel("operator") as staff_channel:
            staff = lobby_pb2_grpc.LobbyStub(staff_channel)
            reply = await staff.RegisterPlayer(lpb.RegisterPlayerRequest(name="ann"))
            me = lpb.GetPlayerRequest(player_id=reply.player.player_id, token=reply.token)
            async with lobby.player_channel() as channel:
                stub = lobby_pb2_grpc.LobbyStub(channel)
                for _ in range(3):  # the burst
                    await stub.GetPlayer(me)
                with pytest.raises(grpc.aio.AioRpcError) as limited:
                    await stub.GetPlayer(me)
                assert limited.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
                assert "calls a second per player" in (limited.value.details() or "")
                other = await staff.RegisterPlayer(lpb.RegisterPlayerRequest(name="bob"))
                await stub.GetPlayer(  # another player has a bucket of their own
                    lpb.GetPlayerRequest(player_id=other.player.player_id, token=other.token)
                )
            for _ in range(10):  # the operator is the room's own: never limited
                await staff.GetPlayer(me)

    asyncio.run(run())


def test_a_request_larger_than_the_service_needs_is_refused_unread(lobby: ServiceProcess) -> None:
    async def totals() -> lpb.LedgerTotals:
        async with lobby.aio_channel("operator") as staff_channel:
            staff = lobby_pb2_grpc.LobbyOperatorStub(staff_channel)
            return await staff.GetLedgerTotals(lpb.GetLedgerTotalsRequest())

    async def run() -> None:
        before = await totals()
        async with lobby.player_channel(
            options=[("grpc.max_send_message_length", 8 * 1024 * 1024)]
        ) as channel:
            stub = lobby_pb2_grpc.LobbyStub(channel)
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await stub.RegisterPlayer(lpb.RegisterPlayerRequest(name="x" * (4 * 1024 * 1024)))
            assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert "larger than max" in (refused.value.details() or "")
        assert await totals() == before  # nobody registered, and the lobby answers

    asyncio.run(run())
