"""The main job's room at work, in this process: a table of every game, reference
bots playing through the room's door (the gateway, as any player's bot does), the
room's bookkeeping as the operator.  For the main job (``make run``) and the tests
and benchmarks that need a busy room beside something else (the log scan, the
dealer flood)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

from poker.common.v1.common_pb2 import Action, LegalActions
from poker.room.v1 import room_pb2_grpc
from poker.table.v1 import table_pb2 as tpb
from poker.table.v1 import table_pb2_grpc
from poker_bots import Bot, TableView, make_bot, play
from poker_bots.many import Via
from poker_wire.channels import staff_lobby

from .guest_bots import Guest
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


@dataclass
class Playing:
    """A room at work: its bookkeeping and the bots' tasks."""

    room: Room
    bots: list[asyncio.Task[Any]]
    stop: asyncio.Event
    errors: list[BaseException] = field(default_factory=list)
    _finished: bool = False

    def failed(self) -> bool:
        """Whether a bot has stopped on an error."""
        return any(b.done() and not b.cancelled() and b.exception() for b in self.bots)

    async def finish(self) -> list[BaseException]:
        """Every bot stands up and stops; the errors they stopped on."""
        if not self._finished:
            self._finished = True
            await self.room.stand_everyone()
            self.stop.set()
            results = await asyncio.gather(*self.bots, return_exceptions=True)
            self.errors = [r for r in results if isinstance(r, BaseException)]
        return self.errors


async def wait_for_tables(room: Room) -> None:
    """Until the table service runs every table the lobby has (discovery)."""
    wanted = {t.table_id for t in room.tables}
    for _ in range(100):
        listed: tpb.ListTablesResponse = await room.table.ListTables(tpb.ListTablesRequest())
        if wanted <= {s.table_id for s in listed.tables}:
            return
        await asyncio.sleep(0.1)
    raise RuntimeError("the table service did not pick up the lobby's tables")


@asynccontextmanager
async def busy_room(
    stack: Stack,
    clock_ms: int = 2_000,
    *,
    think_ms: float = 0.0,
    seed: int = 0,
    via: Via | None = None,
    keep_free: int = 0,
    guests: Sequence[Guest] = (),
) -> AsyncIterator[Playing]:
    """Tables created, bots seated and playing until the block ends (or
    ``Playing.finish``); then every bot stands up and stops.  ``think_ms``: each
    bot's thinking time a decision; ``seed``: the first bot's seed;
    ``keep_free`` seats stay free at every table and ``guests`` are your bots
    (``Room``: the main job's ``--serve`` and ``--bot``).

    The bots play through the gateway (``via="room"``, their credential the
    bearer), the room's one public door, as any player's bot does; at the
    table's public port with ``via="table"`` (a measure of the table without
    the door's hop), the default when the stack was started without a gateway.
    The bookkeeping (is every table running, the hands played) asks the table
    service itself, which counts its hands as they finish."""
    if via is None:
        via = "room" if "gateway" in stack.processes else "table"
    async with (
        stack["lobby"].aio_channel("operator") as lobby_channel,
        stack["table"].player_channel() as table_channel,
        stack["gateway" if via == "room" else "table"].player_channel() as play_channel,
    ):
        lobby = staff_lobby(lobby_channel)
        door = room_pb2_grpc.RoomStub(play_channel) if via == "room" else None
        room = Room(
            lobby,
            table_pb2_grpc.TableServiceStub(table_channel),
            keep_free=keep_free,
            guests=guests,
            door=door,
        )
        await room.create(table_specs(), clock_ms)
        await wait_for_tables(room)
        stop = asyncio.Event()

        def bot(kind: str, seed: int) -> Bot | Thinking:
            made = make_bot(kind, seed=seed)
            return Thinking(made, think_ms / 1000) if think_ms else made

        bots = [
            asyncio.create_task(
                play(
                    play_channel,
                    t.table_id,
                    s.player_id,
                    s.token,
                    s.bot if s.bot is not None else bot(s.kind, seed + i),
                    stop=stop,
                    via=via,
                    # The room rebuys broke seats itself (rebuy_broke): a busted
                    # bot keeps its stream for the seat bought again.
                    when_busted="wait",
                )
            )
            for t in room.tables
            for i, s in enumerate(t.seats)
        ]
        await asyncio.sleep(0.3)  # the streams join before the first hand
        await room.seat_everyone()
        playing = Playing(room, bots, stop)
        try:
            yield playing
        finally:
            await playing.finish()


async def play_until(playing: Playing, hands: int, *, timeout_s: float = 120.0) -> None:
    """Until every table has played ``hands`` hands (rebuying the broke)."""
    room = playing.room
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s
    while loop.time() < deadline:
        await room.progress()
        if all(t.hands >= hands for t in room.tables):
            return
        await room.rebuy_broke()
        await asyncio.sleep(0.1)
    raise AssertionError(f"the tables did not reach {hands} hands in {timeout_s} s")
