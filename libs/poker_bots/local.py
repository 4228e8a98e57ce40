"""The in-process table: bots play the rules library directly, with no services.

Why: developing a bot against the room costs five processes and a few dozen
hands a second; here a hand is a few hundred microseconds, so a change can be
measured over thousands of hands at once, and the same bot class then plays the
room unchanged.  That only holds if the bot cannot tell the two apart, so this
module's one job is to show each seat exactly what the table service would:

- the hand is played by the rules library (``StudHand`` / ``DrawHand``), which
  the betting, dealer and showdown services also run on (the equivalence tests of
  ``tests/unit/test_betting_equivalence.py`` and
  ``tests/system/e2e/test_show_order_equivalence.py`` hold them together);
- every seat gets the ``TableEvent`` protos the table service would send it,
  built field by field as ``services/table/facts.py`` builds them, in the order
  ``services/table/runner.py`` emits them, with the menus the betting service
  gives (``poker_wire.betting.legal_to_pb`` and ``closes_round``): its own down
  cards, everyone's upcards, a count of the others' hidden cards, never a hidden
  card of another seat, a burned card or the deck;
- the answer goes through what the SDK's :func:`~poker_bots.play` does with it
  (the bot's errors and illegal actions fall back to :func:`~poker_bots.safest`,
  counted in :class:`~poker_bots.PlayStats`), then through the table's checks.

A seat's view is kept from hand to hand, as a seated bot's is; a ``Snapshot``
(a join) comes first and again whenever the bot changes seat.  The optional
``on_hand_start(view)`` / ``on_hand_end(view, result)`` of a bot (the SDK's
``Bot`` protocol, ``result`` a :class:`~poker_bots.sdk.HandResult`) are called
after its ``HandStarted`` and ``HandFinished``, awaited when async.

Differences from the room, none of which a bot sees in a hand's play: there is no
action clock (``deadline_unix_ms`` is set as the room would, but never runs out),
the ``deck_commitment`` commits to the order with secrets derived from it (there
is nothing to hide from a bot in the same process) and ``card_commitment`` is
empty; a mid-hand reshuffle (S11, D6) follows a seed derived from the deck order,
so a deal replayed in another seat reshuffles the same way, where the room's
dealer draws a secret seed per hand.

A hand takes a deck order (first dealt first) and the stacks it starts from, so
it is replayable.  :class:`LocalBackend` is the in-process
:class:`~poker_bots.match_types.HandsBackend` of :mod:`poker_bots.match`.
"""

from __future__ import annotations

import asyncio
import hashlib
import inspect
import logging
import time
from collections.abc import Awaitable, Callable, Generator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from poker.common.v1 import common_pb2
from poker.table.v1 import table_pb2 as pb
from poker_rules.actions import Action as RulesAction
from poker_rules.betting import round_closers, snapshot
from poker_rules.cards import card_str, short_deck, standard_deck
from poker_rules.commitment import commit, committed_deck
from poker_rules.config import DrawConfig, StudConfig
from poker_rules.deck import Deck
from poker_rules.draw import DrawHand, Post, default_blinds
from poker_rules.engine import Phase
from poker_rules.errors import RulesError
from poker_rules.evaluate import evaluate_high, evaluate_low, evaluate_short_deck
from poker_rules.events import Community, Deal, Draw, NewStreet
from poker_rules.phh import to_phh
from poker_rules.pots import Pot, side_pots, uncalled_bet
from poker_rules.stud import SEVENTH, StudHand
from poker_wire.betting import (
    ACTION_KIND_VALUES,
    action_from_pb,
    action_to_pb,
    awards_to_pb,
    legal_to_pb,
)
from poker_wire.config import game_config
from poker_wire.errors import WireError

from .match_types import Deal as MatchDeal
from .match_types import HandPlayed
from .sdk import AsyncBot, Bot, HandResult, PlayStats, check_action, describe, safest
from .view import TableView, card_int

__all__ = ["EventHook", "LocalBackend", "LocalHand", "LocalPlayer", "LocalTable", "deck_secret"]

log = logging.getLogger("poker_bots.local")

STUD_STREETS = ("third", "fourth", "fifth", "sixth", "seventh")
DRAW_STREETS = ("pre_draw", "draw", "post_draw")
CLOCK_MS = 10_000  # the room's default action clock (shown, never run out here)
_CARD_STR = tuple(card_str(c) for c in range(52))
_DISCARD = common_pb2.ACTION_KIND_DISCARD
_PRECONDITION = 9  # grpc.StatusCode.FAILED_PRECONDITION's number, as ActionRejected carries it
_INVALID = 3  # INVALID_ARGUMENT
_WARNINGS_PER_PLAYER = 5  # a broken bot's first failures are logged, the rest counted

EventHook = Callable[["LocalPlayer", pb.TableEvent], None]
"""Called with every event a player receives, after its view applied it (tests,
recorders)."""


class LocalPlayer:
    """A bot at the in-process table: its view of the table and what it did.

    One per bot for as long as it plays: the view is kept from hand to hand, as a
    seated bot's is in the room, and ``stats`` counts like :func:`~poker_bots.play`'s.
    """

    __slots__ = (
        "_on_hand_end",
        "_on_hand_start",
        "_seated",
        "bot",
        "is_async",
        "name",
        "player_id",
        "stats",
        "view",
    )

    def __init__(self, bot: Bot | AsyncBot, name: str, player_id: str = "") -> None:
        self.bot = bot
        self.name = name
        self.player_id = player_id or f"local-{name}"
        self.view = TableView()
        self.stats = PlayStats()
        self._seated: tuple[str, int] | None = None  # (table, seat) of the last Snapshot
        # Optional callbacks (the SDK's Bot protocol lists them): looked up once.
        self._on_hand_start: Callable[[TableView], Any] | None = getattr(bot, "on_hand_start", None)
        self._on_hand_end: Callable[[TableView, HandResult], Any] | None = getattr(
            bot, "on_hand_end", None
        )
        # Anything to await: the hand needs LocalTable.play_hand_async.
        self.is_async = any(
            inspect.iscoroutinefunction(method)
            for method in (bot.act, self._on_hand_start, self._on_hand_end)
        )

    def __repr__(self) -> str:
        return f"LocalPlayer({self.name!r}, {self.bot!r})"

    def _warn(self, message: str, *args: object, exc_info: bool = False) -> None:
        if self.stats.bot_errors <= _WARNINGS_PER_PLAYER:
            log.warning("%s: " + message, self.name, *args, exc_info=exc_info)

    # ------------------------------------------------------------ decisions

    def _checked(self, legal: common_pb2.LegalActions, action: object, validate: bool) -> Any:
        """What the SDK sends for ``action`` (``_Session.take_turn``): the bot's
        action, or the safest one when it is not an Action or not on the menu."""
        stats = self.stats
        if not isinstance(action, common_pb2.Action):
            stats.bot_errors += 1
            stats.fallbacks += 1
            self._warn("act returned a %s, not a poker.common.v1.Action", type(action).__name__)
            return safest(legal)
        if validate:
            problem = check_action(legal, action, self.view.my_down_cards or None)
            if problem is not None:
                stats.bot_errors += 1
                stats.fallbacks += 1
                self._warn("illegal action (%s): %s", action, problem)
                return safest(legal)
        return action

    def decide(self, legal: common_pb2.LegalActions, validate: bool) -> common_pb2.Action:
        """The action a synchronous bot answers its turn with."""
        stats = self.stats
        start = time.perf_counter()
        try:
            action: object = self.bot.act(self.view, legal)
        except Exception:
            stats.bot_errors += 1
            stats.fallbacks += 1
            self._warn("act failed on %s", describe(legal), exc_info=True)
            action = safest(legal)
        stats.decision_seconds += time.perf_counter() - start
        stats.actions += 1
        checked: common_pb2.Action = self._checked(legal, action, validate)
        return checked

    async def decide_async(
        self, legal: common_pb2.LegalActions, validate: bool
    ) -> common_pb2.Action:
        """``decide`` for a bot whose ``act`` is a coroutine."""
        if not inspect.iscoroutinefunction(self.bot.act):
            return self.decide(legal, validate)
        stats = self.stats
        start = time.perf_counter()
        try:
            action: object = await self.bot.act(self.view, legal)
        except Exception:
            stats.bot_errors += 1
            stats.fallbacks += 1
            self._warn("act failed on %s", describe(legal), exc_info=True)
            action = safest(legal)
        stats.decision_seconds += time.perf_counter() - start
        stats.actions += 1
        checked: common_pb2.Action = self._checked(legal, action, validate)
        return checked


@dataclass(frozen=True, slots=True)
class LocalHand:
    """One hand played in process."""

    hand_id: str
    seats: tuple[int, ...]  # by dealing position (seat = position + 1)
    names: tuple[str, ...]  # the players' names, by dealing position
    start_stacks: tuple[int, ...]
    final_stacks: tuple[int, ...]
    showdown: bool  # False: won uncontested
    phh: str  # the house record (every card; ``poker_rules.phh``), "" when not kept

    @property
    def net(self) -> tuple[int, ...]:
        """Chips won (+) or lost (-) by each dealing position; sums to 0."""
        return tuple(f - s for f, s in zip(self.final_stacks, self.start_stacks, strict=True))


class _Ask:
    """A hand in progress asks its driver for a decision: the player to act and the
    menu, answered with the Action the player sends."""

    __slots__ = ("legal", "player")

    def __init__(self, player: LocalPlayer, legal: common_pb2.LegalActions) -> None:
        self.player = player
        self.legal = legal


class _Await:
    """A bot's async callback (``on_hand_start``, ``on_hand_end``) for the driver to
    await; its failure is the bot's (counted), never the hand's."""

    __slots__ = ("awaitable", "name", "player")

    def __init__(self, player: LocalPlayer, awaitable: Awaitable[Any], name: str) -> None:
        self.player = player
        self.awaitable = awaitable
        self.name = name

    async def run(self) -> None:
        try:
            await self.awaitable
        except Exception:
            self.player.stats.bot_errors += 1
            self.player._warn("%s failed", self.name, exc_info=True)

    def refuse(self) -> None:
        """In a synchronous hand there is nothing to await with: the bot's error."""
        close = getattr(self.awaitable, "close", None)
        if close is not None:
            close()
        self.player.stats.bot_errors += 1
        self.player._warn("%s is async: play the hand with play_hand_async", self.name)


_HandSteps = Generator[_Ask | _Await, common_pb2.Action | None, LocalHand]


class LocalTable:
    """Hands of one game, in process (see the module docstring).

    ``config`` is the table's ``GameConfig``, as the lobby keeps it.  ``validate``
    checks each action against the menu before it goes to the table, as
    :func:`~poker_bots.play` does by default.  ``keep_phh`` writes each hand's PHH
    (``LocalHand.phh``; a few hundred microseconds a hand).  ``on_event`` sees every
    event each player receives.
    """

    def __init__(
        self,
        config: common_pb2.GameConfig,
        *,
        table_id: str = "local",
        clock_ms: int = CLOCK_MS,
        validate: bool = True,
        keep_phh: bool = True,
        on_event: EventHook | None = None,
    ) -> None:
        self.config = config
        self.rules: StudConfig | DrawConfig = game_config(config)
        self.table_id = table_id
        self.clock_ms = clock_ms
        self.validate = validate
        self.keep_phh = keep_phh
        self.on_event = on_event
        self.hands_played = 0

    def _hand_id(self, hand_id: str) -> str:
        self.hands_played += 1
        return hand_id or f"{self.table_id}-{self.hands_played}"

    def play_hand(
        self,
        players: Sequence[LocalPlayer],
        order: Sequence[str],
        stacks: Sequence[int],
        *,
        hand_id: str = "",
    ) -> LocalHand:
        """One hand: ``players`` by dealing position (seat = position + 1), the deck
        dealt in ``order`` (first dealt first), each starting with ``stacks[i]``.

        Every bot must be synchronous here (``play_hand_async`` takes both)."""
        asynchronous = [p.name for p in players if p.is_async]
        if asynchronous:
            raise TypeError(f"async bots need play_hand_async: {', '.join(asynchronous)}")
        validate = self.validate
        steps = _HandRun(self, players, order, stacks, self._hand_id(hand_id)).steps()
        try:
            request = next(steps)
            while True:
                if type(request) is _Ask:
                    request = steps.send(request.player.decide(request.legal, validate))
                else:
                    assert isinstance(request, _Await)  # type narrowing: the other request
                    request.refuse()
                    request = steps.send(None)
        except StopIteration as done:
            played: LocalHand = done.value
            return played

    async def play_hand_async(
        self,
        players: Sequence[LocalPlayer],
        order: Sequence[str],
        stacks: Sequence[int],
        *,
        hand_id: str = "",
    ) -> LocalHand:
        """``play_hand`` where bots may be asynchronous (``AsyncBot``)."""
        validate = self.validate
        steps = _HandRun(self, players, order, stacks, self._hand_id(hand_id)).steps()
        try:
            request = next(steps)
            while True:
                if type(request) is _Ask:
                    player = request.player
                    action = (
                        await player.decide_async(request.legal, validate)
                        if player.is_async
                        else player.decide(request.legal, validate)
                    )
                    request = steps.send(action)
                else:
                    assert isinstance(request, _Await)  # type narrowing: the other request
                    await request.run()
                    request = steps.send(None)
        except StopIteration as done:
            played: LocalHand = done.value
            return played


def _pots_pb(pots: Sequence[Pot], seats: Sequence[int]) -> list[common_pb2.Pot]:
    return [
        common_pb2.Pot(amount=p.amount, eligible_seats=[seats[i] for i in p.eligible]) for p in pots
    ]


def deck_secret(label: str, order: Sequence[str]) -> bytes:
    """32 bytes derived from the deck order (``label``: ``salt`` or ``reshuffle``):
    the same deal gets the same secrets in every seat, so a mid-hand reshuffle
    replays identically (see the module docstring)."""
    return hashlib.sha256(f"local-{label}:{' '.join(order)}".encode()).digest()


class _HandRun:
    """One hand: the library hand, and each fact of it to each player as the table
    service would build it (``facts.view``), in the runner's order."""

    def __init__(
        self,
        table: LocalTable,
        players: Sequence[LocalPlayer],
        order: Sequence[str],
        stacks: Sequence[int],
        hand_id: str,
    ) -> None:
        n = len(players)
        if len(stacks) != n:
            raise ValueError(f"{n} players need {n} stacks, got {len(stacks)}")
        if len({id(p) for p in players}) != n:
            raise ValueError("a player can sit in one seat of a hand only")
        self.table = table
        self.players = list(players)
        self.order = tuple(order)
        self.stacks = [int(s) for s in stacks]
        self.hand_id = hand_id
        self.seats = list(range(1, n + 1))
        self.seq = 0
        # Each player's cards as the table holds them (``facts.PlayerCards``): down
        # cards, then upcards, in the order dealt (a draw replaces in place).
        self.down: list[list[str]] = [[] for _ in range(n)]
        self.up: list[list[str]] = [[] for _ in range(n)]
        self.community = ""
        self.cursor = 0  # library events translated so far
        self.awaiting: list[_Await] = []  # the bots' async callbacks, for the driver
        self.on_event = table.on_event
        self.order_ints = [card_int(c) for c in self.order]
        deck = (
            short_deck(n == 5) if isinstance(table.rules, DrawConfig) else standard_deck()
        )  # G1: the 7-A deck has the sixes with five players
        if sorted(self.order_ints) != deck:
            raise ValueError(
                f"the order must be the game's whole deck ({len(deck)} cards, each once), "
                f"got {len(self.order)} cards"
            )
        self.reshuffle_seed = deck_secret("reshuffle", self.order)  # S11, D6 (see the module)
        self.hand: StudHand | DrawHand

    # ------------------------------------------------------------ delivery

    def _event(self, seq: bool = True) -> pb.TableEvent:
        if seq:
            self.seq += 1
        return pb.TableEvent(
            event_seq=self.seq if seq else 0, table_id=self.table.table_id, hand_id=self.hand_id
        )

    def _give(self, player: LocalPlayer, event: pb.TableEvent, kind: str) -> None:
        """One event to one player (outside the hand's facts: a Snapshot, a refusal)."""
        player.view.apply_event(event, kind)
        player.stats.events += 1
        hook = self.on_event
        if hook is not None:
            hook(player, event)

    # Every player gets an event for every fact of the hand (``facts.view``): these
    # two deliver them, and ``_finished`` counts them in each player's stats.

    def _everyone(self, event: pb.TableEvent, kind: str) -> None:
        hook = self.on_event
        for player in self.players:
            player.view.apply_event(event, kind)
            if hook is not None:
                hook(player, event)

    def _private(
        self, owner: int, own: pb.TableEvent, others: pb.TableEvent, kind: str, other_kind: str
    ) -> None:
        hook = self.on_event
        for i, player in enumerate(self.players):
            event = own if i == owner else others
            player.view.apply_event(event, kind if i == owner else other_kind)
            if hook is not None:
                hook(player, event)

    # ------------------------------------------------------------ the facts

    def _join(self) -> None:
        """A ``Snapshot`` to each player whose seat (or table) is not the one its
        view holds: a seated bot's join, between hands (``snapshot._seats_between_hands``)."""
        table = self.table
        seats = [
            pb.SeatView(seat=s, player_id=p.player_id, name=p.name, stack=c)
            for s, p, c in zip(self.seats, self.players, self.stacks, strict=True)
        ]
        for seat, player in zip(self.seats, self.players, strict=True):
            if player._seated == (table.table_id, seat):
                continue
            player._seated = (table.table_id, seat)
            player.stats.seat = seat
            event = pb.TableEvent(table_id=table.table_id)
            event.snapshot.table_id = table.table_id
            event.snapshot.config.CopyFrom(table.config)
            event.snapshot.your_seat = seat
            event.snapshot.seats.extend(seats)
            self._give(player, event, "snapshot")

    def _started(self, button_seat: int, posts: Sequence[tuple[int, int, str]]) -> None:
        event = self._event()
        started = event.hand_started
        for s, p, c in zip(self.seats, self.players, self.stacks, strict=True):
            started.seats.add(seat=s, player_id=p.player_id, name=p.name, stack=c, in_hand=True)
        started.button_seat = button_seat
        for seat, amount, kind in posts:
            started.posts.add(seat=seat, amount=amount, kind=kind)
        started.deck_commitment = commit(
            self.order_ints, deck_secret("salt", self.order), self.reshuffle_seed
        )
        self._everyone(event, "hand_started")
        for player in self.players:
            if player._on_hand_start is not None:
                self._hook(player, player._on_hand_start, player.view)

    def _hook(self, player: LocalPlayer, hook: Callable[..., Any], *args: Any) -> None:
        """A bot's optional callback, as the SDK calls it: its failure is the bot's
        (counted), never the hand's; an async one is awaited by the driver."""
        name = getattr(hook, "__name__", "callback")
        try:
            result = hook(*args)
        except Exception:
            player.stats.bot_errors += 1
            player._warn("%s failed", name, exc_info=True)
            return
        if inspect.isawaitable(result):
            self.awaiting.append(_Await(player, result, name))

    def _drain(self) -> Generator[_Await, Any, None]:
        """The callbacks' awaitables, for the driver, in the order called."""
        while self.awaiting:
            yield self.awaiting.pop(0)

    def _street(self, street: int, name: str) -> None:
        event = self._event()
        event.street_started.street = street
        event.street_started.name = name
        self._everyone(event, "street_started")

    def _dealt(self, i: int, cards: Sequence[str], up: bool) -> None:
        """``facts.Dealt``: an upcard to everyone, a down card to its owner only
        (the others get how many)."""
        (self.up if up else self.down)[i].extend(cards)
        seat = self.seats[i]
        own = self._event()
        dealt = own.cards_dealt
        dealt.seat = seat
        dealt.cards.extend(cards)
        dealt.up = up
        if up:
            self._everyone(own, "cards_dealt")
            return
        others = pb.TableEvent(event_seq=self.seq, table_id=own.table_id, hand_id=own.hand_id)
        hidden = others.cards_dealt
        hidden.seat = seat
        hidden.up = False
        hidden.hidden_count = len(cards)
        self._private(i, own, others, "cards_dealt", "cards_dealt")

    def _community(self, card: str) -> None:
        self.community = card
        event = self._event()
        event.cards_dealt.community_card = card
        event.cards_dealt.up = True
        self._everyone(event, "cards_dealt")

    def _turn(self, i: int, legal: common_pb2.LegalActions) -> int:
        """``facts.Turn``: the seat's YourTurn, everyone else's ToAct.  Returns the
        turn's action_seq (the betting state's version)."""
        version = len(self.hand.actions)
        deadline = int(time.time() * 1000) + self.table.clock_ms
        mine = self._event()
        mine.your_turn.action_seq = version
        mine.your_turn.legal.CopyFrom(legal)
        mine.your_turn.deadline_unix_ms = deadline
        others = pb.TableEvent(event_seq=self.seq, table_id=mine.table_id, hand_id=mine.hand_id)
        others.to_act.seat = self.seats[i]
        others.to_act.action_seq = version
        others.to_act.deadline_unix_ms = deadline
        self._private(i, mine, others, "your_turn", "to_act")
        return version

    def _reject(self, i: int, action_seq: int, code: int, message: str) -> None:
        """``ActionRejected`` to the seat alone (outside the hand's sequence)."""
        event = self._event(seq=False)
        event.action_rejected.action_seq = action_seq
        event.action_rejected.code = code
        event.action_rejected.message = message
        player = self.players[i]
        player.stats.rejected += 1
        player.stats.rejections = [*player.stats.rejections[-9:], message]
        self._give(player, event, "action_rejected")

    def _action_taken(
        self, i: int, action: common_pb2.Action, timeout: bool, stack: int, pots: Sequence[Pot]
    ) -> None:
        event = self._event()
        taken = event.action_taken
        taken.seat = self.seats[i]
        taken.action.CopyFrom(action)
        taken.timeout = timeout
        taken.stack = stack
        if pots:
            taken.pots.extend(_pots_pb(pots, self.seats))
        self._everyone(event, "action_taken")

    def _draw_taken(self, i: int, discarded: Sequence[str], received: Sequence[str]) -> None:
        held = self.down[i]
        for old, new in zip(discarded, received, strict=True):
            held[held.index(old)] = new  # the table replaces each card in its place
        seat = self.seats[i]
        own = self._event()
        own.draw_taken.seat = seat
        own.draw_taken.count = len(discarded)
        own.draw_taken.discarded.extend(discarded)
        own.draw_taken.received.extend(received)
        others = pb.TableEvent(event_seq=self.seq, table_id=own.table_id, hand_id=own.hand_id)
        others.draw_taken.seat = seat
        others.draw_taken.count = len(discarded)
        self._private(i, own, others, "draw_taken", "draw_taken")

    def _showdown(self, shown: Sequence[int], mucked: Sequence[int]) -> None:
        """``facts.Showdown``: every contender in show order (S12); a mucked hand's
        cards to its owner only."""
        order = shown[0]
        n = len(self.players)
        contenders = set(shown) | set(mucked)
        in_order = [(order + k) % n for k in range(n) if (order + k) % n in contenders]
        hands: list[tuple[int, list[str], str, str, bool]] = []
        stud = isinstance(self.hand, StudHand)
        rules = self.table.rules
        hilo = isinstance(rules, StudConfig) and rules.hi_lo
        muck = set(mucked)
        for i in in_order:
            cards = [*self.down[i], *self.up[i]]
            if self.community:
                cards.append(self.community)
            ints = [card_int(c) for c in cards]
            if stud:
                high = evaluate_high(ints).describe()
            else:
                high = evaluate_short_deck(ints, len(self.players) == 5).describe()
            low = ""
            if hilo:
                best_low = evaluate_low(ints)
                low = best_low.describe() if best_low is not None else ""
            hands.append((self.seats[i], cards, high, low, i in muck))
        public = self._event()
        for seat, cards, high, low, is_mucked in hands:
            if is_mucked:
                public.showdown.hands.add(seat=seat, mucked=True)
            else:
                public.showdown.hands.add(seat=seat, cards=cards, high=high, low=low)
        if not muck:
            self._everyone(public, "showdown")
            return
        for i, player in enumerate(self.players):
            if i not in muck:
                self._give(player, public, "showdown")
                continue
            own = pb.TableEvent(event_seq=self.seq, table_id=public.table_id, hand_id=self.hand_id)
            for seat, cards, high, low, is_mucked in hands:
                if is_mucked and seat != self.seats[i]:
                    own.showdown.hands.add(seat=seat, mucked=True)
                else:
                    own.showdown.hands.add(
                        seat=seat, cards=cards, high=high, low=low, mucked=is_mucked
                    )
            self._give(player, own, "showdown")

    def _finished(self) -> LocalHand:
        hand = self.hand
        result = hand.result
        assert result is not None  # type narrowing: called once the hand is complete
        showdown = bool(result.shown or result.mucked)
        if showdown:
            self._showdown(result.shown, result.mucked)
        event = self._event()
        finished = event.hand_finished
        finished.awards.extend(awards_to_pb(result.awards, self.seats))
        for s, p, c in zip(self.seats, self.players, result.final_stacks, strict=True):
            finished.seats.add(seat=s, player_id=p.player_id, stack=c)
        if result.uncalled is not None:
            finished.uncalled_seat = self.seats[result.uncalled[0]]
            finished.uncalled_amount = result.uncalled[1]
        self._everyone(event, "hand_finished")
        stacks = dict(zip(self.seats, result.final_stacks, strict=True))
        for i, player in enumerate(self.players):
            stats = player.stats
            stats.events += self.seq
            stats.hands += 1
            stats.hands_dealt += 1
            stats.final_stack = result.final_stacks[i]
            if player._on_hand_end is not None:
                self._hook(player, player._on_hand_end, player.view, self._result(i, stacks))
        phh = ""
        if self.table.keep_phh:
            phh = to_phh(
                hand,
                hand_id=self.hand_id,
                seats=self.seats,
                players=[p.name for p in self.players],
                extra={"_table_id": self.table.table_id},
            )
        return LocalHand(
            hand_id=self.hand_id,
            seats=tuple(self.seats),
            names=tuple(p.name for p in self.players),
            start_stacks=tuple(self.stacks),
            final_stacks=tuple(result.final_stacks),
            showdown=showdown,
            phh=phh,
        )

    def _result(self, i: int, stacks: dict[int, int]) -> HandResult:
        """The seat's ``HandResult`` for ``on_hand_end``, as the SDK makes it."""
        seat = self.seats[i]
        view = self.players[i].view
        finished = view.last_finish
        assert finished is not None  # type narrowing: the view applied the HandFinished
        shown = next((h for h in view.showdown if h.seat == seat), None)
        return HandResult(
            hand_id=self.hand_id,
            seat=seat,
            final_stack=stacks[seat],
            start_stack=self.stacks[i],
            awarded=sum(a.amount for a in finished.awards if a.seat == seat),
            showed_down=shown is not None,
            shown=tuple(shown.cards) if shown is not None else (),
            stacks=dict(stacks),
        )

    def _translate(self) -> None:
        """The library's new events as the table's facts: streets, cards dealt
        (burns, reshuffles, chips and the showdown are told otherwise or never)."""
        events = self.hand.events
        stud = isinstance(self.hand, StudHand)
        for k in range(self.cursor, len(events)):
            e = events[k]
            if isinstance(e, Deal):
                self._dealt(e.player, [_CARD_STR[c] for c in e.cards], e.up)
            elif isinstance(e, NewStreet):
                if stud:
                    self._street(e.street, STUD_STREETS[e.street])
            elif isinstance(e, Community):
                self._community(_CARD_STR[e.cards[0]])
        self.cursor = len(events)

    # ------------------------------------------------------------ the menu

    def _legal(self) -> tuple[int, common_pb2.LegalActions]:
        """The player to act and the menu the betting service would give: its
        description and, stud third to sixth street, the kinds that close the round
        (``closes_round``: the table deals the next street ahead on them)."""
        hand = self.hand
        i = hand.to_act
        assert i is not None  # type narrowing: asked only when someone is to act
        legal = hand.legal_actions()
        menu = legal_to_pb(legal, self.seats)
        if isinstance(hand, StudHand) and hand.street < SEVENTH:
            pending, folded, all_in = hand.pending, hand.folded, hand.all_in
            last = not any(
                pending[j] and not folded[j] and not all_in[j] for j in range(hand.n) if j != i
            )
            if last:  # only the last player to act can close a round (round_closers)
                closers = round_closers(snapshot(hand), legal)
                menu.closes_round.extend(ACTION_KIND_VALUES[k] for k in closers)  # type: ignore[misc]
        return i, menu

    # ------------------------------------------------------------ one decision

    def _apply(self, i: int, answer: common_pb2.Action, version: int) -> bool:
        """The answer through the table's checks (``Hand.offer``) and the rules;
        False (and an ActionRejected to the seat) when refused: nothing changed."""
        hand = self.hand
        try:
            action = action_from_pb(answer)
        except WireError as error:
            self._reject(i, version, _INVALID, str(error))
            return False
        if answer.kind == _DISCARD:
            held = {*self.down[i], *self.up[i]}
            cards = list(answer.cards)
            if any(c not in held for c in cards) or len(set(cards)) != len(cards):
                mine = " ".join(sorted(held))
                self._reject(
                    i, version, _PRECONDITION, f"discard only cards you hold, each once: {mine}"
                )
                return False
        stack, total = hand.stacks[i], hand.totals[i]
        street, phase = hand.street, hand.phase
        try:
            hand.act(action, i)
        except RulesError as error:
            self._reject(i, version, _PRECONDITION, str(error))
            return False
        self._applied(i, action, False, stack, total, street, phase)
        return True

    def _timeout(self, i: int) -> None:
        """The clock's action (S10), as the table applies it when no answer came."""
        hand = self.hand
        stack, total = hand.stacks[i], hand.totals[i]
        street, phase = hand.street, hand.phase
        applied = hand.timeout()
        self._applied(i, applied, True, stack, total, street, phase)

    def _applied(
        self,
        i: int,
        action: RulesAction | None,
        timeout: bool,
        stack: int,
        total: int,
        street: int,
        phase: Phase,
    ) -> None:
        """``runner._applied``: a draw's DrawTaken, else ActionTaken with the stack
        after the action and, when the round ended, the pots (the betting
        service's ``pots``: after the uncalled bet, G6); then what followed."""
        hand = self.hand
        if action is not None and action.kind.value == "discard":
            drawn = next(e for e in reversed(hand.events) if isinstance(e, Draw) and e.player == i)
            self._draw_taken(
                i, [_CARD_STR[c] for c in drawn.discarded], [_CARD_STR[c] for c in drawn.received]
            )
            self.cursor = len(hand.events)
            if phase is Phase.DRAWING and hand.phase is not Phase.DRAWING:
                self._street(2, DRAW_STREETS[2])  # D7: the draw is over
            return
        result = hand.result
        if result is not None:  # over: the stack before the awards, the hand's pots
            put_in = result.contributed[i] - total
            pots: Sequence[Pot] = result.pots
        else:
            put_in = hand.totals[i] - total
            pots = ()
            if hand.street != street or hand.phase is not phase or hand.to_act is None:
                totals = list(hand.totals)
                uncalled = uncalled_bet(totals)
                if uncalled is not None:
                    totals[uncalled[0]] -= uncalled[1]
                pots = side_pots(totals, hand.folded, hand.dead)
        pb_action = action_to_pb(action) if action is not None else common_pb2.Action()
        self._action_taken(i, pb_action, timeout, stack - put_in, pots)
        self._translate()

    # ------------------------------------------------------------ the hand

    def _deck(self) -> Deck:
        return committed_deck(self.order_ints, self.reshuffle_seed)

    def steps(self) -> _HandSteps:
        """The hand, asking its driver for each decision."""
        self._join()
        rules = self.table.rules
        n = len(self.players)
        if isinstance(rules, StudConfig):
            self.hand = StudHand(rules, self.stacks, deck=self._deck())
            posts = (
                [
                    (s, min(rules.ante, c), "ante")
                    for s, c in zip(self.seats, self.stacks, strict=True)
                ]
                if rules.ante
                else []
            )
            self._started(0, posts)
            yield from self._drain()
            self._street(0, STUD_STREETS[0])
            cards = self.hand.cards
            for i in range(n):
                self._dealt(i, [_CARD_STR[cards[i][0]], _CARD_STR[cards[i][1]]], up=False)
            for i in range(n):
                self._dealt(i, [_CARD_STR[cards[i][2]]], up=True)
            dealt = 0
            events = self.hand.events
            while dealt < 3 * n:  # third street is told above, as the table tells it
                if isinstance(events[self.cursor], Deal):
                    dealt += 1
                self.cursor += 1
        else:
            blinds, big_blind = default_blinds(rules, n)
            # The lobby's order (``SeatingPlan.draw_posts``): dealing order.
            blinds = sorted(blinds, key=lambda p: (p.player, not p.live))
            self.hand = DrawHand(
                rules, self.stacks, deck=self._deck(), posts=blinds, big_blind_player=big_blind
            )
            self._started(self.seats[-1], self._draw_posts(rules, blinds))
            yield from self._drain()
            self._street(0, DRAW_STREETS[0])
            for i in range(n):
                self._dealt(i, [_CARD_STR[c] for c in self.hand.hands[i]], up=False)
            self.cursor = len(self.hand.events)
        self._translate()
        hand = self.hand
        drawn = False
        while not hand.is_over:
            if hand.phase is Phase.DRAWING and not drawn:
                drawn = True
                self._street(1, DRAW_STREETS[1])
            i, legal = self._legal()
            version = self._turn(i, legal)
            answer = yield _Ask(self.players[i], legal)
            assert answer is not None  # type narrowing: a decision is answered with an Action
            if self._apply(i, answer, version):
                continue
            # Refused: the SDK falls back once to the safest action; if even that is
            # refused, the turn waits for the clock.
            stats = self.players[i].stats
            stats.fallbacks += 1
            stats.actions += 1
            if not self._apply(i, safest(legal), version):
                self._timeout(i)
        played = self._finished()
        yield from self._drain()
        return played

    def _draw_posts(self, rules: DrawConfig, blinds: Sequence[Post]) -> list[tuple[int, int, str]]:
        """``Hand.antes`` and ``Hand.blinds``: each at most what the seat has left."""
        left = list(self.stacks)
        posts: list[tuple[int, int, str]] = []
        if rules.ante:
            for i, seat in enumerate(self.seats):
                amount = min(rules.ante, left[i])
                left[i] -= amount
                posts.append((seat, amount, "ante"))
        for post in blinds:
            amount = min(post.amount, left[post.player])
            left[post.player] -= amount
            posts.append((self.seats[post.player], amount, "blind" if post.live else "dead"))
        return posts


class LocalBackend:
    """The in-process :class:`~poker_bots.match_types.HandsBackend`: each entry of
    the plan is one hand at a :class:`LocalTable`, every bot starting it with
    ``stack`` chips.

    One :class:`LocalPlayer` per bot name for the whole ``play`` call (its view and
    stats carry over from hand to hand, as a seated bot's do); ``players`` holds
    them afterwards.  ``keep_phh`` as :class:`LocalTable`.
    """

    def __init__(
        self,
        *,
        table_id: str = "local",
        keep_phh: bool = True,
        validate: bool = True,
        on_event: EventHook | None = None,
        yield_every: int = 64,
    ) -> None:
        self.table_id = table_id
        self.keep_phh = keep_phh
        self.validate = validate
        self.on_event = on_event
        self.yield_every = yield_every
        self.players: dict[str, LocalPlayer] = {}
        self.seconds = 0.0  # time spent playing, for hands/s

    async def play(
        self,
        config: common_pb2.GameConfig,
        bots: Mapping[str, Bot],
        plan: Sequence[tuple[MatchDeal, tuple[str, ...]]],
        *,
        stack: int,
    ) -> list[HandPlayed]:
        table = LocalTable(
            config,
            table_id=self.table_id,
            validate=self.validate,
            keep_phh=self.keep_phh,
            on_event=self.on_event,
        )
        players = {name: LocalPlayer(bot, name) for name, bot in bots.items()}
        self.players = players
        synchronous = not any(p.is_async for p in players.values())
        played: list[HandPlayed] = []
        start = time.perf_counter()
        for k, (deal, seating) in enumerate(plan):
            seated = [players[name] for name in seating]
            stacks = [stack] * len(seated)
            hand_id = f"{self.table_id}-{deal.number}-{k}"
            if synchronous:
                hand = table.play_hand(seated, deal.order, stacks, hand_id=hand_id)
            else:
                hand = await table.play_hand_async(seated, deal.order, stacks, hand_id=hand_id)
            played.append(
                HandPlayed(
                    deal=deal.number,
                    seating=tuple(seating),
                    net=dict(zip(seating, hand.net, strict=True)),
                    phh=hand.phh,
                )
            )
            if self.yield_every and k % self.yield_every == self.yield_every - 1:
                await asyncio.sleep(0)  # a long match leaves the event loop breathing
        self.seconds += time.perf_counter() - start
        return played
