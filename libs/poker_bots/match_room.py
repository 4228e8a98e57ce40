"""A duplicate match's hands played through the room's services, on preset decks.

:class:`RoomBackend` is the :class:`~poker_bots.match_types.HandsBackend` that plays
each planned hand at a room table: the bots connect through the room's door with
:func:`~poker_bots.play` as any bot does, the table deals the deal's deck (the
table service's certification mode, ``TableCertification.PresetNextDeck``, as the
room's operator), and the lobby, the dealer, betting and showdown services run
the hand.  What comes back is what :class:`~poker_bots.local.LocalBackend` gives
for the same plan: per hand, the chips each bot won or lost, and the hand in PHH.

How each hand gets its deck, its seating and fresh stacks, with no race:

- **Two players per bot.**  Each bot plays through two registered players
  ("a" and "b"), hands alternating between them, and the table has two groups of
  seats, one per alternate (so a match table seats at most half the game's most
  players: four in stud, two in the 7-A draw).
- **The gate.**  A hand cannot end before one of its players answers a turn (the
  stack must cover the forced bets, so every hand has a decision).  The first
  turn of every hand waits, before the bot is asked, until the next hand is set
  up: this hand's players stand up (pending: they leave when it is reported),
  the next hand's players sit down in the other group with ``stack`` chips
  each, and the next hand's deck is preset.  The table took this hand's preset
  when the hand started, so the new one is the next hand's; and when this hand is
  reported, the lobby's answer (``FinishHand`` plans the next hand) has exactly
  the next hand's players, all seated, each with ``stack``.  The table does not
  wait between hands (unless the room pauses there, ``TABLE_HAND_PAUSE_MS``), and
  a hand can never start with the wrong deck, players or stacks.
- **The dealing order.**  The lobby decides it (stud from the lowest seat, G5;
  draw from the left of a button that moves, B1), so the seats of the next hand
  are chosen by running the lobby's own seating library one step ahead
  (:class:`~poker_bots.match_room_seating.SeatPlanner`); each hand's
  ``HandStarted`` is checked against the prediction, and a difference stops the
  match (:class:`MatchRoomError`) instead of giving it a wrong hand.
- **The first hand** is set up at the gate of a warm-up hand, played by two of
  the "b" players on a shuffled deck, the bot never asked (the SDK's
  :func:`~poker_bots.safest` answers): on an idle table players who sit down one
  after the other could otherwise be dealt in before the last of them sits.

The table's own deck order is the deal's ``order`` unchanged: the table deals it
as the rules library does (stud: two down and one up round the table from
position 0, then a burn and one card per player still in; draw: five each one at
a time, the burn, the replacements in the order the players draw), so position k
of the room's hand gets exactly what position k of the library's hand gets.
A mid-hand reshuffle (S11 with seven or more stud players; a draw whose stub runs
out, which four or more players can cause) uses the dealer's secret seed, so
those hands could not repeat the library's cards; a match table never seats that
many.

The bots' streams go through the room's door (the gateway, ``RoomAccess.door``).
The backend's own calls go to the internal ports as the operator: the table
(``CreateTable``), the players (``RegisterPlayer`` with their play money), the
preset decks, and, with each player's token as the player plane takes it there,
their ``SitDown``, ``StandUp`` and ``GetHandHistory`` (one hop less than through
the door, on the gate's path).  The PHH of each hand is written from those
histories: each player's own, merged so that every player's cards are in it
(:mod:`poker_bots.match_room_phh`).  The bots' optional ``on_hand_start`` and
``on_hand_end`` are called for the match's hands (not the warm-up).

Pace (heads-up Stud Hi-Lo, random bots, a local room on a busy 2-core machine):
about 20 hands a second, the gate about 8 ms of each hand's 40 to 50.
"""

from __future__ import annotations

import asyncio
import inspect
import time
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from grpc import aio

from poker.common.v1 import common_pb2
from poker.lobby.v1 import lobby_pb2
from poker.table.v1 import table_pb2, table_pb2_grpc
from poker_rules.cards import card_str, short_deck, standard_deck
from poker_rules.config import DrawConfig
from poker_wire.channels import player_channel, service_channel, staff_lobby
from poker_wire.config import game_config

from .many import Multiplexer
from .match_room_phh import merge_views, merged_phh
from .match_room_seating import MAX_ORBITS_AWAY, SeatPlanner
from .match_types import Deal, HandPlayed
from .sdk import AsyncBot, Bot, PlayStats, play, safest
from .view import SeatView, TableView

__all__ = ["MatchRoomError", "RoomAccess", "RoomBackend", "RoomHand", "RoomRun"]

CLOCK_MS = 60_000  # S10: the bots' clock (the gate's few calls run on a turn's clock)
MOST_GRANT = 1_000_000_000  # LobbyOperator.GrantChips' largest amount
HISTORY_CALLS = 8  # GetHandHistory calls in flight at once
_GROUPS = "ab"


class MatchRoomError(RuntimeError):
    """The room did not play a hand as planned (a voided hand, an unexpected
    seating or stack, a stream that ended): the match stops."""


@dataclass(frozen=True, slots=True)
class RoomAccess:
    """How to reach a room: its door for the players' streams (the gateway and the
    CA it is trusted with), and the internal ports with the operator's
    certificate directory (``ca.crt``, ``tls.crt``, ``tls.key``) for the
    backend's own calls: tables, players, seats and grants at the lobby, preset
    decks and histories at the table service (its shards in order: a table's
    shard is ``crc32(table_id) % shards``, the table service's own rule)."""

    door: str
    ca_file: str | Path
    lobby: str
    tables: tuple[str, ...]
    operator_dir: str | Path

    def table_for(self, table_id: str) -> str:
        """The internal address of the table service shard that runs ``table_id``."""
        if not self.tables:
            raise ValueError("RoomAccess.tables lists no table service address")
        return self.tables[zlib.crc32(table_id.encode()) % len(self.tables)]


@dataclass(frozen=True, slots=True)
class RoomHand:
    """One planned hand as the room played it."""

    hand_id: str
    seats: Mapping[str, int]  # bot name -> seat at the table
    events: tuple[table_pb2.TableEvent, ...]  # every player's cards (``merge_views``)
    phh: str  # the same hand in PHH


@dataclass(slots=True)
class RoomRun:
    """What one :meth:`RoomBackend.play` did: the table, the time it took, each
    planned hand (``hands``, in plan order, when histories were kept), and each
    registered player's :class:`~poker_bots.PlayStats` (key: bot name and
    ``"a"``/``"b"``)."""

    table_id: str = ""
    warm_up_hand: str = ""
    hand_ids: list[str] = field(default_factory=list)  # the planned hands', in order
    seconds: float = 0.0  # from the first hand's setup (the warm-up's gate) to the last's end
    hands: list[RoomHand] = field(default_factory=list)
    stats: dict[tuple[str, str], PlayStats] = field(default_factory=dict)

    @property
    def hands_per_second(self) -> float:
        return len(self.hand_ids) / self.seconds if self.seconds > 0 else 0.0


class RoomBackend:
    """Plays a match's hands at a new table of ``room`` (see the module).

    ``clock_ms`` is the table's action clock (S10); ``keep_phh`` fetches each
    hand's histories for its PHH and :class:`RoomHand` (a call per player a hand,
    off the hands' path); ``stall_s``: the match stops (:class:`MatchRoomError`)
    when no hand starts or ends for that long; ``multiplex`` puts the players'
    streams on one ``PlayMany`` (:class:`~poker_bots.Multiplexer`; no faster
    heads-up, where one turn at a time leaves nothing to batch).  ``last`` is the
    last run's :class:`RoomRun`.  Each ``play`` uses a new table and new players.
    """

    def __init__(
        self,
        room: RoomAccess,
        *,
        clock_ms: int = CLOCK_MS,
        keep_phh: bool = True,
        stall_s: float = 60.0,
        multiplex: bool = False,
        name: str = "match",
    ) -> None:
        self.room = room
        self.multiplex = multiplex
        self.clock_ms = clock_ms
        self.keep_phh = keep_phh
        self.stall_s = stall_s
        self.name = name
        self.last: RoomRun | None = None

    async def play(
        self,
        config: common_pb2.GameConfig,
        bots: Mapping[str, Bot],
        plan: Sequence[tuple[Deal, tuple[str, ...]]],
        *,
        stack: int,
    ) -> list[HandPlayed]:
        """The plan's hands, in order (``HandsBackend.play``)."""
        if not plan:
            return []
        match = _Match(self, config, bots, list(plan), stack)
        self.last = match.run_record
        return await match.run()


# ---------------------------------------------------------------------- checks


def check_plan(
    config: common_pb2.GameConfig,
    bots: Mapping[str, object],
    plan: Sequence[tuple[Deal, tuple[str, ...]]],
    stack: int,
) -> None:
    """ValueError, saying what is wrong, for a plan the room cannot play as asked."""
    rules = game_config(config)
    draw = isinstance(rules, DrawConfig)
    forced = config.ante + (config.small_bet if draw else config.bring_in)
    if stack <= forced:
        raise ValueError(
            f"stack {stack} must be more than the forced bets ({forced}): every hand "
            "needs a decision, at which the backend sets up the next hand"
        )
    for deal, seating in plan:
        unknown = [name for name in seating if name not in bots]
        if unknown:
            raise ValueError(f"deal {deal.number}: no bot named {unknown}")
        if len(set(seating)) != len(seating) or len(seating) < 2:
            raise ValueError(f"deal {deal.number}: a seating of 2 or more bots, once each")
        cards = short_deck(len(seating) == 5) if draw else standard_deck()
        if sorted(deal.order) != sorted(card_str(c) for c in cards):
            raise ValueError(
                f"deal {deal.number}: the order must be the {len(cards)}-card deck of "
                f"this game for {len(seating)} players, each card once"
            )


# ---------------------------------------------------------------------- one run


@dataclass(slots=True, eq=False)
class _Player:
    """One of a bot's two registered players."""

    bot: str
    group: int  # 0: "a", the even hands; 1: "b", the odd hands and the warm-up
    player_id: str
    token: str
    view: TableView | None = None
    joined: asyncio.Event = field(default_factory=asyncio.Event)
    # Set while the player's view holds no hand of its own: between the end of
    # the last hand it was dealt into (its stream has seen that HandFinished) and
    # its next SitDown.  Its view is told of a new seat only then (``_sit``).
    free: asyncio.Event = field(default_factory=asyncio.Event)

    def __post_init__(self) -> None:
        self.free.set()

    @property
    def key(self) -> tuple[str, str]:
        return self.bot, _GROUPS[self.group]


class _SeatBot:
    """What :func:`~poker_bots.play` runs in a player's seat: the gate at a hand's
    first turn, then the bot (or the safest action in the warm-up hand)."""

    def __init__(self, match: _Match, player: _Player, bot: Bot | AsyncBot) -> None:
        self.match = match
        self.player = player
        self.bot = bot
        self.is_async = inspect.iscoroutinefunction(bot.act)

    def __repr__(self) -> str:
        return f"{self.player.bot}/{_GROUPS[self.player.group]}: {self.bot!r}"

    async def act(self, view: TableView, legal: common_pb2.LegalActions) -> common_pb2.Action:
        try:
            index = await self.match.gate(view.hand_id)
        except Exception:
            # The match has failed with this (the gate keeps it, and the match
            # reports it in one line); the seat plays safe until the match stops,
            # rather than having the SDK log it as the bot's own failure.
            return safest(legal)
        if index < 0:
            return safest(legal)
        if self.is_async:
            action: common_pb2.Action = await self.bot.act(view, legal)  # type: ignore[misc]
            return action
        return self.bot.act(view, legal)  # type: ignore[return-value]

    async def on_hand_start(self, view: TableView) -> None:
        if not self.match.warm_up(view.hand_id):
            await _call(getattr(self.bot, "on_hand_start", None), view)

    async def on_hand_end(self, view: TableView, *result: Any) -> None:
        if self.match.index_of.get(view.hand_id, -1) >= 0:
            await _call(getattr(self.bot, "on_hand_end", None), view, *result)


async def _call(method: Any, *args: Any) -> None:
    if method is not None:
        result = method(*args)
        if inspect.isawaitable(result):
            await result


class _Match:
    """One ``RoomBackend.play``: the table, the players, the gate, the records."""

    def __init__(
        self,
        backend: RoomBackend,
        config: common_pb2.GameConfig,
        bots: Mapping[str, Bot],
        plan: list[tuple[Deal, tuple[str, ...]]],
        stack: int,
    ) -> None:
        check_plan(config, bots, plan, stack)
        self.backend = backend
        self.room = backend.room
        self.config = config
        self.bots = bots
        self.plan = plan
        self.stack = stack
        self.planner = SeatPlanner(config, max(len(seating) for _, seating in plan))
        self.players: dict[tuple[str, int], _Player] = {}
        self.table_id = ""
        # Hand k's players in dealing order (player ids), as the planner predicted.
        self.expected: dict[int, tuple[str, ...]] = {}
        self.index_of: dict[str, int] = {}  # hand id -> k (-1: the warm-up)
        self.hand_ids: dict[int, str] = {}
        self.started: dict[str, table_pb2.HandStarted] = {}
        self.finished: dict[str, table_pb2.HandFinished] = {}
        self.next_gate = -1  # the hand whose first turn comes next (-1: the warm-up)
        self.gate_lock = asyncio.Lock()
        self.done = asyncio.Event()
        self.failure: BaseException | None = None
        self.progress = time.monotonic()
        self.histories: dict[int, asyncio.Task[RoomHand]] = {}
        self.history_slots = asyncio.Semaphore(HISTORY_CALLS)
        self.run_record = RoomRun()
        self.began = 0.0
        self.staff: Any = None
        self.certification: Any = None
        self.table: Any = None

    # ------------------------------------------------------------ the run

    async def run(self) -> list[HandPlayed]:
        room = self.room
        async with (
            player_channel(room.door, room.ca_file) as door,
            service_channel(room.lobby, room.operator_dir) as lobby,
        ):
            self.staff = staff_lobby(lobby)
            table = await self.staff.CreateTable(
                lobby_pb2.CreateTableRequest(
                    name=f"{self.backend.name} {len(self.plan)} hands"[:64],
                    config=self.config,
                    seats=self.planner.seats,
                    min_buy_in=self.stack,
                    action_clock_ms=self.backend.clock_ms,
                    max_orbits_away=MAX_ORBITS_AWAY,
                )
            )
            self.table_id = self.run_record.table_id = table.table_id
            async with service_channel(
                room.table_for(self.table_id), room.operator_dir
            ) as certification:
                self.certification = table_pb2_grpc.TableCertificationStub(certification)
                self.table = table_pb2_grpc.TableServiceStub(certification)
                await self._register()
                await self._play(door)
        return self._results()

    async def _register(self) -> None:
        """Two players per bot, each with enough play money for every buy-in it
        can lose (topped up if not, ``_sit``)."""
        hands = len(self.plan) // 2 + 2
        balance = min(MOST_GRANT, self.stack * hands)
        names = sorted({name for _, seating in self.plan for name in seating})

        async def register(name: str, group: int) -> _Player:
            # Both under the bot's name (names need not be unique): the histories
            # and their PHH show the bots' names.
            shown = "".join(c if c.isprintable() else "?" for c in name)[:32]
            made = await self.staff.RegisterPlayer(
                lobby_pb2.RegisterPlayerRequest(
                    name=shown if shown.strip() else "bot", initial_balance=balance
                )
            )
            return _Player(name, group, made.player.player_id, made.token)

        made = await asyncio.gather(*(register(n, g) for n in names for g in (0, 1)))
        self.players = {(p.bot, p.group): p for p in made}

    async def _play(self, door: aio.Channel) -> None:
        if self.backend.multiplex:
            async with Multiplexer(door, via="room") as mux:
                await self._play_on(mux)
        else:
            await self._play_on(door)

    async def _play_on(self, target: aio.Channel | Multiplexer) -> None:
        stop = asyncio.Event()
        tasks = {
            p.key: asyncio.create_task(
                play(
                    target,
                    self.table_id,
                    p.player_id,
                    p.token,
                    _SeatBot(self, p, self.bots[p.bot]),
                    stop=stop,
                    on_event=self._on_event(p),
                    via="room",
                ),
                name=f"match player {p.bot}/{_GROUPS[p.group]}",
            )
            for p in self.players.values()
        }
        try:
            await self._wait(tasks, self._joined(), "the players' streams to join")
            await self._warm_up()
            await self._wait(tasks, self.done.wait(), "the match's hands")
            if self.histories:
                await asyncio.gather(*self.histories.values())
                self.run_record.hands = [self.histories[k].result() for k in sorted(self.histories)]
        finally:
            stop.set()
            results = await asyncio.gather(*tasks.values(), return_exceptions=True)
            for key, result in zip(tasks, results, strict=True):
                if isinstance(result, PlayStats):
                    self.run_record.stats[key] = result
            for task in self.histories.values():
                task.cancel()

    async def _joined(self) -> None:
        for p in self.players.values():
            await p.joined.wait()

    async def _wait(
        self, tasks: Mapping[tuple[str, str], asyncio.Task[PlayStats]], waited: Any, what: str
    ) -> None:
        """Wait for ``waited`` while every player plays on; MatchRoomError when a
        player's play ends, the match failed, or nothing happened for stall_s."""
        waiter = asyncio.ensure_future(waited)
        try:
            while not waiter.done():
                pending: set[asyncio.Future[Any]] = {waiter, *tasks.values()}
                await asyncio.wait(pending, timeout=1.0, return_when=asyncio.FIRST_COMPLETED)
                if self.failure is not None:
                    raise self.failure
                ended = [key for key, task in tasks.items() if task.done()]
                if ended and not waiter.done():
                    raise MatchRoomError(
                        f"player {'/'.join(ended[0])} stopped playing at table "
                        f"{self.table_id} while waiting for {what}: {_ended(tasks[ended[0]])}"
                    )
                idle = time.monotonic() - self.progress
                if not waiter.done() and idle > self.backend.stall_s:
                    raise MatchRoomError(
                        f"nothing happened at table {self.table_id} for {idle:.0f} s while "
                        f"waiting for {what} (hand {self.next_gate} of {len(self.plan)} next)"
                    )
        finally:
            if not waiter.done():
                waiter.cancel()
        if self.failure is not None:
            raise self.failure

    def warm_up(self, hand_id: str) -> bool:
        """Whether ``hand_id`` is the warm-up: the table's first hand, the first
        HandStarted any player saw (or none seen yet: this is it)."""
        first = next(iter(self.started), None)
        return first is None or first == hand_id

    def _fail(self, error: BaseException) -> None:
        if self.failure is None:
            self.failure = error
        self.done.set()

    # ------------------------------------------------------------ the table's events

    def _on_event(self, player: _Player) -> Any:
        def seen(event: table_pb2.TableEvent, view: TableView) -> None:
            kind = event.WhichOneof("event")
            if kind == "snapshot":
                player.view = view
                player.joined.set()
            elif kind == "hand_started":
                if event.hand_id not in self.started:
                    self.started[event.hand_id] = event.hand_started
                    self.progress = time.monotonic()
            elif kind == "hand_finished":
                finish = event.hand_finished
                if any(s.player_id == player.player_id for s in finish.seats):
                    # It stood up during the hand: seated no more (its next seat
                    # comes with its next SitDown; a stack of 0 is no bust).
                    view.my_seat = 0
                    player.free.set()
                self._finished(event.hand_id, finish)

        return seen

    def _finished(self, hand_id: str, finish: table_pb2.HandFinished) -> None:
        index = self.index_of.get(hand_id)
        if finish.voided and index is not None and index >= 0:
            self._fail(
                MatchRoomError(
                    f"hand {index} ({hand_id}) at table {self.table_id} was voided by the "
                    "room (a service failed; a dealer started without "
                    "DEALER_ALLOW_PRESET_DECKS=1 refuses the preset deck): the table "
                    "service's log says why"
                )
            )
            return
        if hand_id in self.finished:
            return
        self.finished[hand_id] = finish
        self.progress = time.monotonic()
        if index is None or index < 0:
            return
        if self.backend.keep_phh:
            self.histories[index] = asyncio.create_task(self._history(index, hand_id))
        if index == len(self.plan) - 1:
            self.run_record.seconds = time.monotonic() - self.began
            self.done.set()

    # ------------------------------------------------------------ the hands

    async def _warm_up(self) -> None:
        """Two "b" players sit down at the empty table: its first hand, the warm-up,
        whose gate sets up the match's first hand."""
        warm = [self.players[(name, 1)] for name in self.plan[0][1][:2]]
        seats = self.planner.seat_first([p.player_id for p in warm], self.stack, 1)
        assert self.planner.current is not None  # seat_first plans the warm-up
        self.expected[-1] = self.planner.current.players
        for p in warm:
            await self._sit(p, seats[p.player_id])

    async def gate(self, hand_id: str) -> int:
        """At a turn of hand ``hand_id``: its number (-1: the warm-up).  The first
        turn of each hand sets up the next hand before it is answered."""
        async with self.gate_lock:
            index = self.index_of.get(hand_id)
            if index is not None:
                return index
            index = self.next_gate
            try:
                self._check(hand_id, index)
                self.index_of[hand_id] = index
                if index < 0:
                    self.run_record.warm_up_hand = hand_id
                else:
                    self.hand_ids[index] = hand_id
                    self.run_record.hand_ids.append(hand_id)
                await self._between(index)
            except BaseException as error:
                self._fail(error)
                raise
            self.next_gate = index + 1
            if index < 0:
                self.began = time.monotonic()
            self.progress = time.monotonic()
            return index

    def _check(self, hand_id: str, index: int) -> None:
        """The hand started is the one planned: the players in the order asked,
        each with ``stack`` (the warm-up: its players)."""
        started = self.started.get(hand_id)
        if started is None:
            raise MatchRoomError(f"hand {hand_id}: a turn came before its HandStarted")
        dealt = tuple(s.player_id for s in started.seats)
        if dealt != self.expected.get(index):
            raise MatchRoomError(
                f"hand {index} ({hand_id}) dealt in {list(dealt)}, planned "
                f"{list(self.expected.get(index, ()))} (table {self.table_id})"
            )
        stacks = [s.stack for s in started.seats]
        if index >= 0 and any(s != self.stack for s in stacks):
            raise MatchRoomError(f"hand {index} ({hand_id}) started with stacks {stacks}")

    async def _between(self, index: int) -> None:
        """During hand ``index``: its players stand up (after it), the next hand's
        sit down in the other group, and its deck is preset."""
        by_id = {p.player_id: p for p in self.players.values()}
        calls = [self._stand_up(by_id[player]) for player in self.expected[index]]
        after = index + 1
        if after < len(self.plan):
            deal, seating = self.plan[after]
            group = after % 2
            sitting = [self.players[(name, group)] for name in seating]
            seats, planned = self.planner.seat_next(
                [p.player_id for p in sitting], self.stack, group
            )
            self.expected[after] = planned.players
            calls.append(self._preset(deal.order))
            calls.extend(self._sit(p, seats[p.player_id]) for p in sitting)
        else:
            self.planner.finish()
        results = await asyncio.gather(*calls, return_exceptions=True)
        for result in results:
            if isinstance(result, BaseException):
                raise result

    async def _stand_up(self, player: _Player) -> None:
        await self.staff.StandUp(
            lobby_pb2.StandUpRequest(
                player_id=player.player_id, token=player.token, table_id=self.table_id
            )
        )

    async def _sit(self, player: _Player, seat: int) -> None:
        sat = await self.staff.SitDown(
            lobby_pb2.SitDownRequest(
                player_id=player.player_id,
                token=player.token,
                table_id=self.table_id,
                seat=seat,
                buy_in=self.stack,
                entry=lobby_pb2.ENTRY_POST_NOW,
            )
        )
        if sat.seat != seat:
            raise MatchRoomError(f"player {player.player_id} sat in seat {sat.seat}, not {seat}")
        # The end of its last hand may still be on the way to the player's stream
        # (the lobby took the hand's report before it was sent): its view must
        # see that hand end before it is told of the new seat.
        await player.free.wait()
        player.free.clear()
        if player.view is not None:
            _seated(player.view, seat, self.stack, player.player_id)
        if sat.balance < self.stack:  # enough for the next buy-in, whatever this hand costs
            await self.staff.GrantChips(
                lobby_pb2.GrantChipsRequest(
                    player_id=player.player_id, amount=min(MOST_GRANT, self.stack * 64)
                )
            )

    async def _preset(self, order: Sequence[str]) -> None:
        await self.certification.PresetNextDeck(
            table_pb2.PresetNextDeckRequest(table_id=self.table_id, order=list(order))
        )

    # ------------------------------------------------------------ the records

    async def _history(self, index: int, hand_id: str) -> RoomHand:
        """Hand ``index`` as each of its players saw it, merged."""
        started = self.started[hand_id]
        by_id = {p.player_id: p for p in self.players.values()}

        async def view_of(seat: int, player: _Player) -> tuple[int, list[table_pb2.TableEvent]]:
            async with self.history_slots:
                reply = await self.table.GetHandHistory(
                    table_pb2.GetHandHistoryRequest(
                        table_id=self.table_id,
                        player_id=player.player_id,
                        token=player.token,
                        hand_id=hand_id,
                    )
                )
            if len(reply.hands) != 1:
                raise MatchRoomError(f"hand {hand_id}: {len(reply.hands)} histories")
            return seat, list(reply.hands[0].events)

        views = dict(
            await asyncio.gather(*(view_of(s.seat, by_id[s.player_id]) for s in started.seats))
        )
        return RoomHand(
            hand_id=hand_id,
            seats={by_id[s.player_id].bot: s.seat for s in started.seats},
            events=tuple(merge_views(views)),
            phh=merged_phh(self.config, views, hand_id=hand_id, table_id=self.table_id),
        )

    def _results(self) -> list[HandPlayed]:
        """One HandPlayed per planned hand: the net from the stacks the hand started
        and finished with, the PHH from its merged histories."""
        bot_of = {p.player_id: p.bot for p in self.players.values()}
        records = {h.hand_id: h for h in self.run_record.hands}
        played = []
        for k, (deal, seating) in enumerate(self.plan):
            hand_id = self.hand_ids[k]
            started, finish = self.started[hand_id], self.finished[hand_id]
            start = {bot_of[s.player_id]: s.stack for s in started.seats}
            final = {bot_of[s.player_id]: s.stack for s in finish.seats}
            net = {name: final[name] - start[name] for name in seating}
            if sum(net.values()) != 0 or tuple(bot_of[s.player_id] for s in started.seats) != (
                tuple(seating)
            ):
                raise MatchRoomError(f"hand {k} ({hand_id}): net {net}, seating {seating}")
            record = records.get(hand_id)
            phh = record.phh if record is not None else ""
            played.append(HandPlayed(deal=deal.number, seating=tuple(seating), net=net, phh=phh))
        return played


def _ended(task: asyncio.Task[PlayStats]) -> str:
    """Why a player's play ended, in words."""
    if task.cancelled():
        return "cancelled"
    error = task.exception()
    if error is not None:
        return repr(error)
    stats = task.result()
    return f"{stats.stopped_by} ({getattr(stats, 'reason', '')})"


def _seated(view: TableView, seat: int, stack: int, player_id: str) -> None:
    """Tell a player's view it sat down in ``seat`` (no event says so before the
    hand starts), so that the SDK reads the right seat as the bot's."""
    sat_down = getattr(view, "sat_down", None)
    if sat_down is not None:
        sat_down(seat, stack, player_id)
        return
    view.my_seat = seat
    view.seats[seat] = SeatView(seat, player_id=player_id, stack=stack)
