"""A caller that opens 10,000 decks and never closes them hits its own limit, and
the room's tables keep dealing.

The flooder holds the table's own certificate (the only identity the dealer
deals for: a runaway or compromised table-service process), on a connection of
its own.  The dealer's limit of open decks is per caller connection
(DEALER_MAX_OPEN_DECKS_PER_CALLER, 4,000 by default): the flood gets exactly
that many decks and RESOURCE_EXHAUSTED for every one past it, saying the limit,
while the table service's own connection keeps its room and every table goes on
dealing, no hand voided.  How fast they deal during the flood, as a ratio to
before, is a benchmark figure (``make bench``, the ``dealer_flood`` keys), not a
timed test.
"""

from __future__ import annotations

import asyncio

import grpc
import pytest

from devroom.busy_room import busy_room, play_until
from devroom.stack import Stack
from poker.common.v1 import common_pb2 as common
from poker.common.v1.batch_pb2 import CallBatch, ReplyBatch
from poker.dealer.v1 import dealer_pb2 as dpb
from poker.dealer.v1 import dealer_pb2_grpc
from poker.lobby.v1 import lobby_pb2 as lpb
from poker.lobby.v1 import lobby_pb2_grpc

pytestmark = [pytest.mark.xdist_group("deck_flood"), pytest.mark.slow]

FLOOD = 10_000
PER_CALLER = 4_000  # the dealer's default DEALER_MAX_OPEN_DECKS_PER_CALLER
BATCH = 500


async def flood(stack: Stack) -> tuple[int, list[str]]:
    """Open FLOOD decks on one connection as ``table``; (opened, refusals)."""
    opened = 0
    refusals: list[str] = []
    request = dpb.OpenDeckRequest(
        game=common.GAME_STUD, players=6, hand_id="flood", table_id="flood"
    ).SerializeToString()
    async with stack["dealer"].aio_channel("table") as channel:
        stream = dealer_pb2_grpc.DealerStub(channel).Batch()
        for start in range(0, FLOOD, BATCH):
            batch = CallBatch()
            for i in range(start, start + BATCH):
                batch.calls.add(id=i, method="OpenDeck", request=request)
            await stream.write(batch)
            reply = await stream.read()
            assert isinstance(reply, ReplyBatch), reply
            for answer in reply.replies:
                if answer.WhichOneof("result") == "error":
                    refusals.append(f"{_name(answer.error.code)}: {answer.error.message}")
                else:
                    opened += 1
            await asyncio.sleep(0)  # the room's own calls get their turns
        await stream.done_writing()
    return opened, refusals


def _name(value: int) -> str:
    return next(code.name for code in grpc.StatusCode if code.value[0] == value)


def test_a_caller_flooding_the_dealer_hits_its_own_limit_while_the_tables_deal() -> None:
    async def run(stack: Stack) -> None:
        async with busy_room(stack) as playing:
            room = playing.room
            await play_until(playing, 3)
            before = {t.table_id: t.hands for t in room.tables}
            opened, refusals = await flood(stack)
            await play_until(playing, max(before.values()) + 5)
            after = {t.table_id: t.hands for t in room.tables}
        assert opened == PER_CALLER
        assert len(refusals) == FLOOD - PER_CALLER
        assert all(r.startswith("RESOURCE_EXHAUSTED") for r in refusals), refusals[:3]
        assert str(PER_CALLER) in refusals[0] and "limit" in refusals[0], refusals[0]
        assert all(after[t] >= before[t] + 5 for t in before), (before, after)
        async with stack["lobby"].aio_channel("operator") as channel:
            staff = lobby_pb2_grpc.LobbyOperatorStub(channel)
            for table in room.tables:
                listed = await staff.ListHands(
                    lpb.ListHandsRequest(table_id=table.table_id, limit=500)
                )
                voided = [h.void_reason for h in listed.hands if h.status == lpb.HAND_STATUS_VOIDED]
                assert voided == [], voided

    with Stack(ports="free") as stack:
        asyncio.run(run(stack))
