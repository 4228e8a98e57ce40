"""The SDK's lobby retries every call, writes included, on RESOURCE_EXHAUSTED: the
room answers it before doing anything (a rate limit, a burst past a queue's
limit), so sending the call again cannot do it twice (docs/bots.md#reconnects-
and-retries).  Bounded: ``read_retries`` more tries, then the typed error."""

from __future__ import annotations

import asyncio

import grpc
import pytest

from poker_bots import ExhaustedError, Lobby

from .fake_room import make_room, with_room


def test_a_write_refused_by_a_limit_is_sent_again_a_bounded_number_of_times() -> None:
    room = make_room(sit_refusal=(grpc.StatusCode.RESOURCE_EXHAUSTED, "too many calls"))

    async def main(address: str) -> None:
        async with Lobby(address, "p2.secret", retry_backoff=0.01, read_retries=2) as lobby:
            with pytest.raises(ExhaustedError, match="too many calls"):
                await lobby.sit("t1", 500)

    asyncio.run(with_room(room, main))
    assert [m for m, _ in room.calls] == ["SitDown"] * 3
