"""The main job's room at work, in this process: a table of every game, reference
bots at the table's public port, the room's bookkeeping as the operator.  For the
tests and benchmarks that need a busy room beside something else (the log scan,
the dealer flood)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from poker.common.v1.common_pb2 import Action, LegalActions
from poker.lobby.v1 import lobby_pb2_grpc
from poker.table.v1 import table_pb2_grpc
from poker_bots import Bot, TableView, make_bot, play
from poker_wire.channels import Stubs

from .room import Room, table_specs
from .stack import Stack


class Thinking:
    """A bot that thinks ``think_s`` before each decision: a room at a pace below
    what the machine can do flat out, as a room of people is."""

    def __init__(self, bot: Bot, think_s: float) -> None:
        self.bot = bot
        self.think_s = think_s

    async def act(self, view: TableView, legal: LegalActions) -> Action:
        await asyncio.sleep(self.think_s)
        return self.bot.act(view, legal)


@asynccontextmanager
async def busy_room(
    stack: Stack, clock_ms: int = 2_000, *, think_ms: float = 0.0
) -> AsyncIterator[Room]:
    """Tables created, bots seated and playing until the block ends; then every
    bot stands up and stops.  ``think_ms``: each bot's thinking time a decision."""
    async with (
        stack["lobby"].aio_channel("operator") as lobby_channel,
        stack["table"].player_channel() as table_channel,
    ):
        lobby = Stubs(
            lobby_pb2_grpc.LobbyStub(lobby_channel),
            lobby_pb2_grpc.LobbyOperatorStub(lobby_channel),
        )
        room = Room(lobby, table_pb2_grpc.TableServiceStub(table_channel))
        await room.create(table_specs(), clock_ms)
        stop = asyncio.Event()
        bots = [
            asyncio.create_task(
                play(
                    table_channel,
                    t.table_id,
                    seat.player_id,
                    seat.token,
                    Thinking(make_bot(seat.kind, seed=i), think_ms / 1000)
                    if think_ms
                    else make_bot(seat.kind, seed=i),
                    stop=stop,
                )
            )
            for t in room.tables
            for i, seat in enumerate(t.seats)
        ]
        await asyncio.sleep(0.3)  # the streams join before the first hand
        await room.seat_everyone()
        try:
            yield room
        finally:
            await room.stand_everyone()
            stop.set()
            await asyncio.gather(*bots, return_exceptions=True)


async def play_until(room: Room, hands: int, *, timeout_s: float = 120.0) -> None:
    """Until every table has played ``hands`` hands (rebuying the broke)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s
    while loop.time() < deadline:
        await room.progress()
        if all(t.hands >= hands for t in room.tables):
            return
        await room.rebuy_broke()
        await asyncio.sleep(0.1)
    raise AssertionError(f"the tables did not reach {hands} hands in {timeout_s} s")
