"""A table dealing in this process with players who see its events as they come.

Why: the tests of what a player may do between hands (stand up, sit again) and
of players who left (the clock plays for them) need the table's hand loop as it
runs (``TableManager``/``TableRuntime`` over the real lobby, dealer, betting and
showdown servicers, ``tests.support.phh_room.InProcessDownstream``) and players
who react to each event the moment the table emits it, with their own lobby
calls.  Every downstream call waits a little first, as one over a network would:
the table's (``table_latency_s``) and the players' (``player_latency_s``), so the
table and its players interleave as they would in a room, never in one go.

A player joins the table's runtime as a subscriber (the ``PlayMany`` sink path),
records every event, answers its turns with the cheapest action (``Policy``) or
not at all (the clock runs out, S10), and may call back on each HandFinished.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from poker.common.v1 import common_pb2 as common
from poker.lobby.v1 import lobby_pb2 as lpb
from poker.table.v1 import table_pb2 as tpb
from service_kit.logs import quieted
from services.table.runtime import Subscriber, TableRuntime
from services.table.servicer import TableManager
from tests.support.phh_room import InProcessDownstream

WAIT_S = 45.0  # a guard against hangs, never an assertion on speed
K = common.ActionKind
# The cheapest answer to a turn, in order of preference: free, then forced, then
# out (a fold only when nothing is free, so hands end fast and cost nothing).
Kinds = tuple[common.ActionKind.ValueType, ...]
CHEAPEST: Kinds = (
    K.ACTION_KIND_CHECK,
    K.ACTION_KIND_BRING_IN,
    K.ACTION_KIND_FOLD,
    K.ACTION_KIND_CALL,
)
# Or staying in: check or call, so every player still in gets a turn.
PASSIVE: Kinds = (
    K.ACTION_KIND_CHECK,
    K.ACTION_KIND_BRING_IN,
    K.ACTION_KIND_CALL,
    K.ACTION_KIND_FOLD,
)


def cheapest(legal: common.LegalActions, order: Kinds = CHEAPEST) -> common.Action:
    """The first kind of ``order`` on the menu (check if free, post a forced
    bring-in, else fold; or call, ``PASSIVE``); stand pat in the draw."""
    if K.ACTION_KIND_DISCARD in legal.kinds:
        return common.Action(kind=K.ACTION_KIND_DISCARD)
    for kind in order:
        if kind in legal.kinds:
            return common.Action(kind=kind)
    return common.Action(kind=legal.kinds[0])


# Whether a player answers the turn of its n-th hand (1-based): False lets the clock run.
Policy = Callable[[int], bool]
OnFinished = Callable[["Seated", tpb.TableEvent], Awaitable[None]]


def always(hand: int) -> bool:
    return True


@dataclass
class Seated:
    """A player at the table: their credentials, seat and what they saw."""

    player_id: str
    token: str
    seat: int
    answers: Policy = always
    order: Kinds = CHEAPEST  # which answer (``cheapest``)
    on_finished: OnFinished | None = None
    events: list[tpb.TableEvent] = field(default_factory=list)
    hands: list[str] = field(default_factory=list)  # the hands they were dealt into
    sub: Subscriber | None = None

    def finished(self) -> list[tpb.TableEvent]:
        return [e for e in self.events if e.HasField("hand_finished")]


class LiveTable:
    """One lobby table run by a ``TableManager`` in this process."""

    def __init__(
        self,
        *,
        hand_pause_s: float = 0.0,
        sit_out_after: int = 0,
        table_latency_s: float = 0.001,
        player_latency_s: float = 0.001,
    ) -> None:
        self.ds = InProcessDownstream()
        self._direct = self.ds.call
        self.table_latency_s = table_latency_s
        self.player_latency_s = player_latency_s
        self.ds.call = self._table_call  # type: ignore[method-assign]
        self.manager = TableManager(
            self.ds,  # type: ignore[arg-type]
            discovery_s=3600,
            idle_poll_s=0.01,
            hand_pause_s=hand_pause_s,
            history_hands=1_000,
            sit_out_after_clock_hands=sit_out_after,
        )
        self.table_id = ""
        self.players: list[Seated] = []
        self.problems: list[str] = []  # a player's callback that failed
        self._tasks: set[asyncio.Task[None]] = set()

    async def _table_call(self, service: str, method: str, request: Any) -> Any:
        await asyncio.sleep(self.table_latency_s)
        return await self._direct(service, method, request)

    async def lobby(self, method: str, request: Any) -> Any:
        """A player's lobby call (over the player's own wire)."""
        await asyncio.sleep(self.player_latency_s)
        return await self._direct("lobby", method, request)

    @property
    def runtime(self) -> TableRuntime:
        return self.manager.tables[self.table_id]

    async def create(self, config: common.GameConfig, seats: int, **fields: int) -> str:
        table = await self._direct(
            "lobby",
            "CreateTable",
            lpb.CreateTableRequest(name="live", config=config, seats=seats, **fields),
        )
        self.table_id = table.table_id
        return self.table_id

    async def sit(self, seat: int, buy_in: int, **how: Any) -> Seated:
        """A new player registered and seated in ``seat`` (not yet connected)."""
        reply = await self._direct(
            "lobby", "RegisterPlayer", lpb.RegisterPlayerRequest(name=f"p{seat}")
        )
        player = Seated(reply.player.player_id, reply.token, seat, **how)
        await self.sit_down(player, buy_in)
        self.players.append(player)
        return player

    async def sit_down(self, player: Seated, buy_in: int) -> lpb.SitDownResponse:
        reply: lpb.SitDownResponse = await self.lobby(
            "SitDown",
            lpb.SitDownRequest(
                player_id=player.player_id,
                token=player.token,
                table_id=self.table_id,
                seat=player.seat,
                buy_in=buy_in,
                entry=lpb.ENTRY_POST_NOW,
            ),
        )
        return reply

    async def stand_up(self, player: Seated) -> lpb.StandUpResponse:
        reply: lpb.StandUpResponse = await self.lobby(
            "StandUp",
            lpb.StandUpRequest(
                player_id=player.player_id, token=player.token, table_id=self.table_id
            ),
        )
        return reply

    async def seat_info(self, seat: int) -> lpb.SeatInfo | None:
        table = await self._direct("lobby", "GetTable", lpb.GetTableRequest(table_id=self.table_id))
        return next((s for s in table.occupied if s.seat == seat), None)

    async def start(self) -> None:
        """Run the table (the manager's discovery from the lobby)."""
        await self.manager.refresh()

    def connect(self, player: Seated) -> None:
        """The player's stream: a new connection (it replaces an older one)."""
        player.sub = self.runtime.join(
            player.player_id, tpb.DELIVERY_EVERY_EVENT, self._sink(player)
        )

    def disconnect(self, player: Seated) -> None:
        """The player's client is gone: its stream closes."""
        if player.sub is not None:
            self.runtime.leave(player.sub)
            player.sub = None

    def _sink(
        self, player: Seated
    ) -> Callable[[Subscriber, tpb.TableEvent | list[tpb.TableEvent] | bytes | None], None]:
        def sink(
            sub: Subscriber, event: tpb.TableEvent | list[tpb.TableEvent] | bytes | None
        ) -> None:
            assert not isinstance(event, bytes)  # joined without ``wire``
            for e in event if isinstance(event, list) else [] if event is None else [event]:
                self._on_event(player, sub, e)

        return sink

    def _on_event(self, player: Seated, sub: Subscriber, e: tpb.TableEvent) -> None:
        player.events.append(e)
        kind = e.WhichOneof("event")
        if kind == "hand_started":
            if any(s.player_id == player.player_id for s in e.hand_started.seats):
                player.hands.append(e.hand_id)
        elif kind == "your_turn":
            if player.answers(len(player.hands)):
                action = cheapest(e.your_turn.legal, player.order)
                self.runtime.submit(
                    sub,
                    tpb.PlayerAction(
                        hand_id=e.hand_id, action_seq=e.your_turn.action_seq, action=action
                    ),
                )
        elif kind == "hand_finished" and player.on_finished is not None:
            task = asyncio.get_running_loop().create_task(self._call_back(player, e))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _call_back(self, player: Seated, e: tpb.TableEvent) -> None:
        assert player.on_finished is not None
        try:
            await player.on_finished(player, e)
        except Exception as error:  # the test reads it: a failed callback fails it
            self.problems.append(f"{player.seat}: {type(error).__name__}: {error}")

    async def until(self, done: Callable[[], bool], what: str) -> None:
        """Wait (bounded) until ``done()``; a player's failed callback fails at once."""
        for _ in range(int(WAIT_S / 0.005)):
            if self.problems:
                raise AssertionError("; ".join(self.problems))
            if done():
                return
            await asyncio.sleep(0.005)
        raise TimeoutError(f"table {self.table_id}: {what}")

    async def stop(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        await self.manager.stop()


@contextlib.asynccontextmanager
async def live_table(**settings: Any) -> AsyncIterator[LiveTable]:
    """A ``LiveTable`` (``settings``: its constructor's), stopped at the end;
    the services' info logs off meanwhile (a few lines a hand)."""
    with quieted("error"):
        table = LiveTable(**settings)
        try:
            yield table
        finally:
            await table.stop()
