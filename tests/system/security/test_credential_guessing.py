"""A client guessing credentials at the door is limited like one without any.

A hostile-client probe sent 4,000 calls with wrong credentials in 7 s: each was
UNAUTHENTICATED, and each made the gateway ask the lobby.  Now each refusal
counts against the caller's address (PLAYER_CALLS_PER_S, bursts of
PLAYER_BURST, a bucket of refusals apart from calls without a credential),
and past it a credential the door has not accepted lately is RESOURCE_EXHAUSTED
before the lobby is asked, while a player whose credential
was accepted plays on from the same address.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import grpc
import pytest

from devroom.stack import Stack
from poker.room.v1 import room_pb2 as rpb
from poker.room.v1 import room_pb2_grpc as rpb_grpc

BURST = 5


@pytest.fixture(scope="module")
def stack() -> Iterator[Stack]:
    env = {"gateway": {"PLAYER_CALLS_PER_S": "0.2", "PLAYER_BURST": str(BURST)}}
    with Stack(ports="free", env=env) as room:
        yield room


def _bearer(credential: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {credential}"),)


def test_wrong_credentials_past_the_address_burst_are_limited(stack: Stack) -> None:
    async def run() -> None:
        own = (("grpc.use_local_subchannel_pool", 1),)
        async with stack["gateway"].player_channel(options=own) as channel:
            room = rpb_grpc.RoomStub(channel)
            made = await room.Register(rpb.RegisterRequest(name="guessed"))
            player_id = made.credential.rpartition(".")[0]
            me = await room.GetMe(rpb.GetMeRequest(), metadata=_bearer(made.credential))
            assert me.player_id == player_id  # accepted, and remembered
            codes = []
            for guess in range(BURST + 3):
                with pytest.raises(grpc.aio.AioRpcError) as refused:
                    await room.GetMe(
                        rpb.GetMeRequest(), metadata=_bearer(f"{player_id}.guess{guess}")
                    )
                codes.append(refused.value.code())
                last = refused.value.details() or ""
            assert codes[:BURST] == [grpc.StatusCode.UNAUTHENTICATED] * BURST
            assert codes[BURST:] == [grpc.StatusCode.RESOURCE_EXHAUSTED] * 3
            assert "refused credentials" in last and "per address" in last
            # The real player, accepted before the guessing, plays on.
            me = await room.GetMe(rpb.GetMeRequest(), metadata=_bearer(made.credential))
            assert me.player_id == player_id

    asyncio.run(run())
