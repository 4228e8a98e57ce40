"""Reference bots playing at a table of every game of the containerised room, in a
background thread (its own asyncio loop), while the test thread watches the lobby,
restarts containers and checks the outcome.

The tables and bots are the main job's (:func:`devroom.room.table_specs`: Seven
Card Stud, Stud Hi-Lo and 7-A draw in fixed, pot and no limit; random, calling
station and hand-strength bots), played as the main job plays them: through the
room's door, the gateway container (``Room.Play`` on its public port, TLS, the
player's credential as the bearer), with the bot SDK (:func:`poker_bots.play`,
``via="room"``).  When the table container restarts, the gateway ends the streams
it carried for it (UNAVAILABLE) and the SDK reconnects through the gateway.  A bot
that goes broke rebuys between hands.  :meth:`PlayingRoom.finish` stands everyone
up and stops the bots; what they hold then, and their errors, are kept for the
tests.
"""

from __future__ import annotations

import asyncio
import threading
from dataclasses import dataclass, field

import grpc

from devroom.room import Room, table_specs
from poker.common.v1 import common_pb2 as common
from poker.table.v1 import table_pb2 as tpb
from poker.table.v1 import table_pb2_grpc
from poker_bots import make_bot, play
from poker_wire.channels import player_channel, service_channel, staff_lobby

from .stack import ContainerStack

CLOCK_MS = 5_000
START_TIMEOUT_S = 60.0


@dataclass
class Outcome:
    """What the bots' side saw once everyone stood up."""

    errors: list[BaseException] = field(default_factory=list)
    reconnects: int = 0
    held: int = 0  # the bots' balances + chips at tables
    granted: int = 0  # what RegisterPlayer gave them
    bought_in: int = 0


class PlayingRoom:
    """Tables of every game with bots playing until :meth:`finish`."""

    def __init__(self, stack: ContainerStack) -> None:
        self.stack = stack
        self.labels: dict[str, str] = {}  # table_id -> label ("Seven Card Stud", ...)
        self.games: dict[str, common.Game.ValueType] = {}  # table_id -> its game
        self.outcome = Outcome()
        self._ready = threading.Event()
        self._finish = threading.Event()
        self._failure: list[BaseException] = []
        self._bots: dict[tuple[str, str], asyncio.Task[object]] = {}  # (table, player) -> task
        self._thread = threading.Thread(target=self._run, name="container bots", daemon=True)

    def start(self) -> PlayingRoom:
        self._thread.start()
        if not self._ready.wait(START_TIMEOUT_S):
            raise RuntimeError(f"the bots were not seated within {START_TIMEOUT_S} s")
        if self._failure:
            raise RuntimeError("the bots failed to start") from self._failure[0]
        return self

    def check(self) -> None:
        """Raise the bots' error, if their thread failed."""
        if self._failure:
            raise RuntimeError("the bots failed") from self._failure[0]

    def stopped_bots(self, table_id: str) -> list[str]:
        """The bots of ``table_id`` whose play ended before :meth:`finish`, and why
        (for a failure's message: a table whose bots are gone stops dealing)."""
        out = []
        for (table, player), task in list(self._bots.items()):
            if table != table_id or not task.done():
                continue
            error = None if task.cancelled() else task.exception()
            out.append(f"{player}: {'cancelled' if task.cancelled() else repr(error)}")
        return out

    def finish(self, timeout: float = 90.0) -> Outcome:
        """Everyone stands up (after their hand), the bots stop; the outcome."""
        self._finish.set()
        self._thread.join(timeout)
        if self._thread.is_alive():
            raise RuntimeError("the bots did not stop")
        if self._failure:
            raise RuntimeError("the bots failed") from self._failure[0]
        return self.outcome

    def _run(self) -> None:
        try:
            asyncio.run(self._play())
        except BaseException as error:
            self._failure.append(error)
            self._ready.set()

    async def _play(self) -> None:
        # As the main job does: the lobby as the operator (tables, play money,
        # over mutual TLS), the bots at the room's door (the gateway); the table's
        # public port only to see that it runs the lobby's tables.
        pki = self.stack.pki
        async with (
            service_channel(self.stack.target("lobby"), pki.dir("operator")) as lobby_channel,
            player_channel(self.stack.public_target("table"), pki.ca_file) as table_channel,
            player_channel(self.stack.door, pki.ca_file) as door_channel,
        ):
            table_stub = table_pb2_grpc.TableServiceStub(table_channel)
            lobby = staff_lobby(lobby_channel)
            room = Room(lobby, table_stub)
            await room.create(table_specs(), CLOCK_MS)
            self.labels = {t.table_id: t.spec.label for t in room.tables}
            self.games = {t.table_id: t.spec.config.game for t in room.tables}
            await _wait_for_tables(table_stub, set(self.labels))
            done = asyncio.Event()
            self._bots = {
                (t.table_id, seat.player_id): asyncio.create_task(
                    play(
                        door_channel,
                        t.table_id,
                        seat.player_id,
                        seat.token,
                        make_bot(seat.kind, seed=i),
                        stop=done,
                        max_reconnects=30,  # a restart takes seconds: keep trying
                        max_backoff=2.0,
                        via="room",
                        when_busted="wait",  # _rebuy(room) buys the broke in again
                    )
                )
                for t in room.tables
                for i, seat in enumerate(t.seats)
            }
            bots = list(self._bots.values())
            await asyncio.sleep(0.3)  # the streams join before the first hand is dealt
            await room.seat_everyone()
            self._ready.set()
            while not self._finish.is_set():
                await _rebuy(room)
                await asyncio.sleep(0.3)
            await room.stand_everyone()
            done.set()
            results = await asyncio.gather(*bots, return_exceptions=True)
            self.outcome.errors = [r for r in results if isinstance(r, BaseException)]
            self.outcome.reconnects = sum(r.reconnects for r in results if hasattr(r, "reconnects"))
            self.outcome.held = await room.holdings()
            self.outcome.granted = sum(len(t.seats) for t in room.tables) * room.balance
            self.outcome.bought_in = room.tally.bought_in


async def _rebuy(room: Room) -> None:
    """``room.rebuy_broke()``, tolerating its race with a pending stand-up: a broke
    player whose earlier StandUp was pending (in a hand) may be gone by the time it
    stands up again (FAILED_PRECONDITION "not seated"); the next round sits it down."""
    try:
        await room.rebuy_broke()
    except grpc.aio.AioRpcError as error:
        if error.code() != grpc.StatusCode.FAILED_PRECONDITION:
            raise


async def _wait_for_tables(stub: table_pb2_grpc.TableServiceAsyncStub, wanted: set[str]) -> None:
    """Until the table service runs every table the lobby has (its discovery)."""
    for _ in range(200):
        listed: tpb.ListTablesResponse = await stub.ListTables(tpb.ListTablesRequest())
        if wanted <= {s.table_id for s in listed.tables}:
            return
        await asyncio.sleep(0.1)
    raise RuntimeError("the table service did not pick up the lobby's tables")
