"""A backlog on a Batch stream leaves in messages the receiver takes.

Why: a FinishHand carries its hand's history (~2 KB), and the table's calls to
the lobby share one ``Batch`` stream whose every waiting call goes into the next
message.  A thousand tables' reports waiting at once (a lobby back after a pause)
made one message of ~2 MB, over the receivers' 1 MiB limit: the stream broke and
every call on it failed.  ``clients.BATCH_BYTES`` caps a message's requests.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from poker.common.v1.batch_pb2 import CallBatch, ReplyBatch
from poker.lobby.v1 import lobby_pb2 as lpb
from services.table.clients import _BATCHED, BATCH_BYTES, CallStream

RECEIVER_LIMIT = 1024 * 1024  # the lobby's MAX_MESSAGE_BYTES default


class _Lobby:
    """A Batch stream's far end: answers every call, keeps every message's size."""

    def __init__(self, requests: AsyncIterator[CallBatch]) -> None:
        self.requests = requests
        self.sizes: list[int] = []

    def __aiter__(self) -> AsyncIterator[ReplyBatch]:
        return self._replies()

    async def _replies(self) -> AsyncIterator[ReplyBatch]:
        async for batch in self.requests:
            self.sizes.append(batch.ByteSize())
            reply = ReplyBatch()
            for call in batch.calls:
                reply.replies.add(
                    id=call.id, response=lpb.FinishHandResponse(hands_played=1).SerializeToString()
                )
            yield reply


def test_a_backlog_of_reports_leaves_in_messages_under_the_receivers_limit() -> None:
    async def scenario() -> tuple[list[int], int]:
        lobbies: list[_Lobby] = []

        def open_stream(requests: AsyncIterator[CallBatch]) -> _Lobby:
            lobbies.append(_Lobby(requests))
            return lobbies[-1]

        stream = CallStream("lobby", open_stream, _BATCHED["lobby"], deadline=30.0)
        history = bytes(range(256)) * 8  # a 2 KB history, as a six-handed hand's
        reports = [
            lpb.FinishHandRequest(table_id=f"t{i}", hand_id=f"h{i}", history=history)
            for i in range(1_000)
        ]
        # All queued before the stream's first message is written: one backlog.
        answers = await asyncio.gather(*(stream.call("FinishHand", r) for r in reports))
        await stream.close()
        return lobbies[0].sizes, len(answers)

    sizes, answered = asyncio.run(scenario())
    assert answered == 1_000
    assert len(sizes) >= 2_000 * 1_000 // (BATCH_BYTES + 4_096)  # split, not one message
    assert max(sizes) < RECEIVER_LIMIT
