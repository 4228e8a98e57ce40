"""PlayMany's per-stream bound (services/table/many.py, TABLE_PLAYMANY_SESSIONS):
a stream holds that many seats at once; one more session ends RESOURCE_EXHAUSTED
with a message naming the bound, and the sessions already open go on."""

from __future__ import annotations

import asyncio

import grpc

from poker.table.v1 import table_pb2 as pb
from services.table.many import Many
from services.table.runtime import TableRuntime
from services.table.settings import PLAYMANY_SESSIONS, TableSettings


def _join(number: int) -> pb.SessionMessage:
    return pb.SessionMessage(
        session=number,
        message=pb.PlayerMessage(join=pb.Join(table_id="t1", player_id=f"p{number}", token="x")),
    )


def test_a_session_past_the_bound_ends_resource_exhausted() -> None:
    async def scenario() -> tuple[list[tuple[int, pb.SessionEvent]], int]:
        checking = asyncio.Event()  # the Joins' token checks never finish here

        async def opener(join: pb.Join) -> TableRuntime:
            await checking.wait()
            raise AssertionError("not reached")

        many = Many(opener, max_sessions=3)
        for number in range(1, 6):
            many._handle(_join(number))
        ended = []
        while not many.out.empty():
            item = many.out.get_nowait()
            assert item is not None
            ended.append((item[0], pb.SessionEvent.FromString(item[1])))
        still_open = len(many.sessions)
        await many.close()
        return ended, still_open

    ended, still_open = asyncio.run(scenario())
    assert still_open == 3
    assert [number for number, _ in ended] == [4, 5]
    for number, event in ended:
        assert event.session == number
        assert event.ended.code == grpc.StatusCode.RESOURCE_EXHAUSTED.value[0]
        assert "TABLE_PLAYMANY_SESSIONS=3" in event.ended.message


def test_the_default_bound_holds_a_thousand_six_handed_tables() -> None:
    """Issue 19: a bot lab's 1,000 six-handed tables over one stream."""
    assert PLAYMANY_SESSIONS >= 6_000
    assert TableSettings.from_env({}).play_many_sessions == PLAYMANY_SESSIONS
