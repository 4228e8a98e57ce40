"""The room as the real-scrape test runs it: the five services and the gateway
(``devroom.stack``, free ports) with reference bots playing at two tables, in a
background thread.

- a Seven Card Stud table of 8 calling stations: all 8 reach seventh street every
  hand, so the S11 river shortage deals a community card
  (``table_river_outcomes_total{outcome="community"}``);
- a 7-A draw table (no limit) of 5 bots with a 300 ms action clock, one of them
  slow every third decision: its clock runs out (``table_timeouts_total``) and its
  late action is refused (``table_actions_rejected_total``).

The stud table's bots play at the table's own public port, the draw table's through
the gateway (Room.Play, forwarded to the table's shard), and a unary Room call goes
through the gateway now and then: so both the table's and the gateway's gRPC
families have series.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from devroom.room import Room, TableSpec
from devroom.stack import Stack
from poker.common.v1 import common_pb2 as common
from poker.room.v1 import room_pb2, room_pb2_grpc
from poker.table.v1 import table_pb2_grpc
from poker_bots import TableView, make_bot, play
from poker_bots.sdk import LegalActions
from poker_wire.channels import staff_lobby

DRAW_CLOCK_MS = 300


class SlowBot:
    """A calling station that thinks too long every third decision."""

    def __init__(self, delay_s: float) -> None:
        self.inner = make_bot("station")
        self.delay_s = delay_s
        self.turns = 0

    async def act(self, view: TableView, legal: LegalActions) -> common.Action:
        self.turns += 1
        if self.turns % 3 == 0:
            await asyncio.sleep(self.delay_s)
        return self.inner.act(view, legal)


def specs() -> tuple[TableSpec, TableSpec]:
    stud = common.GameConfig(game=common.GAME_STUD, ante=5, bring_in=10, small_bet=20, big_bet=40)
    draw = common.GameConfig(
        game=common.GAME_DRAW_7A,
        structure=common.STRUCTURE_NO_LIMIT,
        small_bet=20,
        big_bet=40,
    )
    return TableSpec("Stud eight-handed", stud, 8), TableSpec("7-A draw", draw, 5)


async def _play(stack: Stack, stop: threading.Event, ready: threading.Event) -> None:
    stud, draw = specs()
    # As the main job does: the lobby as the operator (tables, play money); the
    # stud bots at the table's public port, the draw bots at the room's door.
    async with (
        stack["lobby"].aio_channel("operator") as lobby_channel,
        stack["table"].player_channel() as table_channel,
        stack["gateway"].player_channel() as door_channel,
    ):
        door = room_pb2_grpc.RoomStub(door_channel)
        room = Room(
            staff_lobby(lobby_channel),
            table_pb2_grpc.TableServiceStub(table_channel),
        )
        await room.create([stud], 5_000)
        await room.create([draw], DRAW_CLOCK_MS)
        for seat in room.tables[0].seats:
            seat.kind = "station"  # nobody folds: eight players on seventh street
        done = asyncio.Event()
        bots = []
        for t in room.tables:
            for i, seat in enumerate(t.seats):
                bot = (
                    SlowBot(DRAW_CLOCK_MS * 1.5 / 1000)
                    if t is room.tables[1] and i == 0
                    else make_bot(seat.kind, seed=i)
                )
                through_door = t is room.tables[1]
                bots.append(
                    asyncio.create_task(
                        play(
                            door_channel if through_door else table_channel,
                            t.table_id,
                            seat.player_id,
                            seat.token,
                            bot,
                            stop=done,
                            via="room" if through_door else "table",
                            when_busted="wait",  # room.rebuy_broke() buys the broke in again
                        )
                    )
                )
        await asyncio.sleep(0.3)  # the streams join before the first hand is dealt
        await room.seat_everyone()
        ready.set()
        while not stop.is_set():
            await room.progress()  # a unary call on the table service now and then
            await room.rebuy_broke()
            # ... and on the gateway (no credential needed).
            await door.GetTable(room_pb2.GetTableRequest(table_id=room.tables[1].table_id))
            await asyncio.sleep(0.5)
        done.set()
        await asyncio.gather(*bots, return_exceptions=True)


@contextmanager
def playing_room() -> Iterator[Stack]:
    """The stack with bots playing, until the block ends."""
    stack = Stack(
        env={"table": {"CALL_DEADLINE_S": "10", "TABLE_IDLE_POLL_S": "0.3"}},
    ).start()
    stop, ready = threading.Event(), threading.Event()
    errors: list[BaseException] = []

    def run() -> None:
        try:
            asyncio.run(_play(stack, stop, ready))
        except BaseException as error:
            errors.append(error)
            ready.set()

    thread = threading.Thread(target=run, name="room bots", daemon=True)
    thread.start()
    try:
        if not ready.wait(60):
            raise RuntimeError("the bots were not seated within 60 s")
        if errors:
            raise RuntimeError("the room failed to start") from errors[0]
        yield stack
    finally:
        stop.set()
        thread.join(timeout=20)
        stack.stop()
