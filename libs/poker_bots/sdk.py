"""Play at a table: the :class:`Bot` protocol, :func:`play`, and legal-action helpers.

A bot is any object with ``act(view, legal) -> Action``; :func:`play` does the rest
of the connection: it opens ``TableService.Play``, sends ``Join``, keeps a
:class:`~poker_bots.view.TableView` up to date, asks the bot at every ``YourTurn`` and
answers with that turn's ``action_seq``, logs ``ActionRejected`` (and falls back once
to the safest action when the current turn's action was refused), pings when idle,
and reconnects with jittered backoff when the service is UNAVAILABLE, refuses a Join
in a burst (RESOURCE_EXHAUSTED, DEADLINE_EXCEEDED) or the connection broke under a
write (a restart; the new ``Snapshot`` carries ``your_turn`` when the bot must act).

Amounts are *to* amounts (the player's total on the street after the action).  In
fixed limit the legal ones are ``legal.to_choices``; in pot and no limit every integer
in ``[legal.min_to, legal.max_to]``.  A DISCARD lists 0..``legal.max_discards`` of the
bot's own cards in ``Action.cards`` (none = stand pat).  :func:`choose` builds a legal
action of a kind, snapping the amount onto the menu.

A seat with no chips after a hand cannot be dealt in again (it stays seated, B5,
until its player stands up): :func:`play` then returns (``stopped_by == "busted"``,
``reason`` says why), or, given a ``rebuy`` policy (:class:`Rebuy`, or any callable
``(view, stats) -> buy-in | None``), stands up and sits down again with a fresh
buy-in through the lobby (:class:`poker_bots.lobby.Lobby`) and plays on.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import random
import time
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, TypeAlias, runtime_checkable

import grpc
from grpc import aio

from poker.common.v1 import common_pb2
from poker.room.v1 import room_pb2_grpc
from poker.table.v1 import table_pb2, table_pb2_grpc
from poker_wire.broken import is_broken_write
from poker_wire.channels import player_channel

from .lobby import Credential, Lobby, LobbyError
from .many import Multiplexer, SeatCall, Via
from .view import TableView, kind_name, unpack

__all__ = [
    "AGGRESSIVE",
    "BET",
    "BRING_IN",
    "CALL",
    "CHECK",
    "COMPLETE",
    "DISCARD",
    "FOLD",
    "RAISE",
    "AsyncBot",
    "Bot",
    "HandResult",
    "PlayStats",
    "Rebuy",
    "RebuyPolicy",
    "WhenBusted",
    "check_action",
    "choose",
    "clamp_to",
    "is_legal",
    "kind_name",
    "legal_amounts",
    "legal_kinds",
    "passive",
    "play",
    "safest",
]

log = logging.getLogger("poker_bots")

Action = common_pb2.Action
LegalActions = common_pb2.LegalActions
Kind: TypeAlias = common_pb2.ActionKind.ValueType

FOLD: Kind = common_pb2.ACTION_KIND_FOLD
CHECK: Kind = common_pb2.ACTION_KIND_CHECK
CALL: Kind = common_pb2.ACTION_KIND_CALL
BRING_IN: Kind = common_pb2.ACTION_KIND_BRING_IN
COMPLETE: Kind = common_pb2.ACTION_KIND_COMPLETE
BET: Kind = common_pb2.ACTION_KIND_BET
RAISE: Kind = common_pb2.ACTION_KIND_RAISE
DISCARD: Kind = common_pb2.ACTION_KIND_DISCARD
AGGRESSIVE: frozenset[Kind] = frozenset((COMPLETE, BET, RAISE))


@runtime_checkable
class Bot(Protocol):
    """Decides one action per turn.  ``legal`` is ``view.legal``, passed for convenience.

    Called on the event loop: keep it quick (no I/O, no sleeping).

    Two more methods are optional (:func:`play` looks for them with ``getattr``; each
    may be a plain or an ``async`` method, and an exception in one is logged and
    counted in ``PlayStats.bot_errors``, never ends play):

    - ``on_hand_start(view)``: a hand the bot is dealt into has started (the view has
      its ``HandStarted``: seats, stacks before the forced bets, the posts);
    - ``on_hand_end(view, result)``: that hand has finished; ``result`` is a
      :class:`HandResult` (the hand id, the net chips won or lost, the final stacks,
      whether the bot showed down and won).  A hand the lobby voids after its end
      comes again with ``result.voided`` (the stacks as at its start).

    Neither is called for the hands of others that a seat not dealt in sees.
    """

    def act(self, view: TableView, legal: LegalActions) -> Action: ...


class AsyncBot(Protocol):
    """A bot whose decision awaits something (a person at a terminal, a remote model).
    ``on_hand_start`` and ``on_hand_end`` as for :class:`Bot`."""

    async def act(self, view: TableView, legal: LegalActions) -> Action: ...


@dataclass(frozen=True, slots=True)
class HandResult:
    """How a hand the bot was dealt into ended for it (``Bot.on_hand_end``)."""

    hand_id: str
    seat: int
    final_stack: int
    start_stack: int | None  # before the forced bets; None: joined after the hand began
    awarded: int  # chips of the pots awarded to the bot (uncalled bets not counted)
    showed_down: bool  # the bot's hand was at the showdown (shown or mucked there)
    shown: tuple[str, ...]  # the bot's cards as shown at the showdown
    stacks: dict[int, int]  # every dealt-in seat's final stack
    voided: bool = False  # a service failed: every stack is as at the hand's start

    @property
    def net(self) -> int | None:
        """Chips won (positive) or lost (negative) this hand; None when the start is
        not known (the bot joined mid-hand)."""
        return None if self.start_stack is None else self.final_stack - self.start_stack

    @property
    def won(self) -> bool:
        """The bot was awarded a pot or a share of one."""
        return self.awarded > 0


# ---------------------------------------------------------------------- helpers


def legal_kinds(legal: LegalActions) -> list[Kind]:
    """The kinds on the menu, in menu order (derived from the flags if ``kinds`` is empty)."""
    if legal.kinds:
        return list(legal.kinds)
    kinds: list[Kind] = []
    if legal.HasField("max_discards"):
        kinds.append(DISCARD)
    if legal.can_fold:
        kinds.append(FOLD)
    if legal.can_check:
        kinds.append(CHECK)
    if legal.HasField("call_amount"):
        kinds.append(CALL)
    if legal.HasField("bring_in_amount"):
        kinds.append(BRING_IN)
    if legal.raise_kind in AGGRESSIVE:
        kinds.append(legal.raise_kind)
    return kinds


def legal_amounts(legal: LegalActions) -> Sequence[int]:
    """Every legal to-amount of the aggressive option (a range in pot and no limit)."""
    if legal.to_choices:
        return list(legal.to_choices)
    if legal.HasField("min_to") and legal.HasField("max_to"):
        return range(legal.min_to, legal.max_to + 1)
    return []


def clamp_to(legal: LegalActions, to: int | None) -> int:
    """A legal to-amount near ``to``: the closest fixed-limit choice, else clamped to
    ``[min_to, max_to]``.  ``None`` means the minimum."""
    if legal.to_choices:
        if to is None:
            return min(legal.to_choices)
        return min(legal.to_choices, key=lambda c: (abs(c - to), c))
    low, high = legal.min_to, legal.max_to
    if to is None:
        return low
    return max(low, min(high, to))


def choose(
    legal: LegalActions,
    kind: Kind,
    to: int | None = None,
    cards: Iterable[str] = (),
) -> Action:
    """A legal action of ``kind``: amounts snapped with :func:`clamp_to` for COMPLETE,
    BET and RAISE (``kind`` may be any of the three: the menu's ``raise_kind`` is
    used); ``cards`` are the discards of a DISCARD (cut to ``max_discards``).

    Raises ``ValueError`` when the kind is not on the menu.
    """
    kinds = legal_kinds(legal)
    if kind in AGGRESSIVE:
        if legal.raise_kind not in AGGRESSIVE or legal.raise_kind not in kinds:
            raise ValueError(f"no bet, raise or complete on the menu: {describe(legal)}")
        return Action(kind=legal.raise_kind, amount=clamp_to(legal, to))
    if kind not in kinds:
        name = kind_name(kind)
        raise ValueError(f"{name} is not on the menu: {describe(legal)}")
    if kind == DISCARD:
        unique = list(dict.fromkeys(cards))
        return Action(kind=DISCARD, cards=unique[: legal.max_discards])
    return Action(kind=kind)


def safest(legal: LegalActions) -> Action:
    """The action that risks nothing: stand pat in a draw, check, else fold (else the
    forced minimum: call, bring in, or the smallest aggressive amount)."""
    kinds = legal_kinds(legal)
    if DISCARD in kinds:
        return Action(kind=DISCARD)
    for kind in (CHECK, FOLD, CALL, BRING_IN):
        if kind in kinds:
            return Action(kind=kind)
    if legal.raise_kind in kinds:
        return Action(kind=legal.raise_kind, amount=clamp_to(legal, None))
    return Action(kind=FOLD)


def passive(legal: LegalActions) -> Action:
    """Stay in as cheaply as possible: stand pat, check, call, bring in; fold if none."""
    kinds = legal_kinds(legal)
    for kind in (DISCARD, CHECK, CALL, BRING_IN):
        if kind in kinds:
            return Action(kind=kind)
    return safest(legal)


def describe(legal: LegalActions) -> str:
    if legal.description:
        return legal.description
    return ", ".join(kind_name(k) for k in legal_kinds(legal)) or "nothing"


def check_action(
    legal: LegalActions, action: Action, my_cards: Sequence[str] | None = None
) -> str | None:
    """Why ``action`` is not legal on ``legal`` (``None`` when it is).

    Mirrors the table's check: the kind is on the menu; an aggressive amount is one of
    ``to_choices`` (fixed limit) or within ``[min_to, max_to]``; CALL/CHECK/FOLD/
    BRING_IN carry no amount and no cards; a DISCARD lists at most ``max_discards``
    distinct cards, all in ``my_cards`` when given.
    """
    kinds = legal_kinds(legal)
    kind = action.kind
    if kind not in kinds:
        return f"{kind_name(kind)} is not allowed; allowed: {describe(legal)}"
    if kind in AGGRESSIVE:
        if kind != legal.raise_kind:
            return f"the aggressive option is {kind_name(legal.raise_kind)}"
        if legal.to_choices:
            if action.amount not in legal.to_choices:
                return f"amount must be one of {list(legal.to_choices)}, got {action.amount}"
        elif not legal.min_to <= action.amount <= legal.max_to:
            return f"amount must be in {legal.min_to}..{legal.max_to}, got {action.amount}"
    elif action.amount:
        return "only bet, raise and complete carry an amount"
    if kind == DISCARD:
        cards = list(action.cards)
        if len(cards) > legal.max_discards:
            return f"at most {legal.max_discards} cards may be discarded"
        if len(set(cards)) != len(cards):
            return "the same card cannot be discarded twice"
        if my_cards is not None and any(c not in my_cards for c in cards):
            return f"discards must be your own cards {list(my_cards)}"
    elif action.cards:
        return "only a discard lists cards"
    return None


def is_legal(legal: LegalActions, action: Action, my_cards: Sequence[str] | None = None) -> bool:
    return check_action(legal, action, my_cards) is None


# ---------------------------------------------------------------------- play


@dataclass(slots=True)
class PlayStats:
    """What one :func:`play` did."""

    hands: int = 0  # hands finished (HandFinished; a hand voided after its end counts once)
    actions: int = 0  # PlayerActions sent (fallbacks included)
    rejected: int = 0  # ActionRejected received
    fallbacks: int = 0  # safest actions sent after a rejection or a bot error
    bot_errors: int = 0  # act() raised or returned an illegal action
    reconnects: int = 0
    messages: int = 0  # stream messages received (a batch counts once)
    events: int = 0  # events received (a batch's events count each)
    pings: int = 0
    decision_seconds: float = 0.0  # time spent inside act()
    final_stack: int | None = None
    seat: int = 0
    stopped_by: str = ""  # "hands", "stop", "eof", "busted", "unseated"
    reason: str = ""  # why play stopped, in words (a refused rebuy: the refusal)
    rejections: list[str] = field(default_factory=list)  # the last few messages
    hands_dealt: int = 0  # hands finished that the bot was dealt into (not voided)
    busts: int = 0  # times the seat was left with no chips
    rebuys: int = 0  # rebuys made (stand up, sit down again) after busting
    rebuy_chips: int = 0  # chips bought in by those rebuys
    # Rebuys whose stand-up the lobby answered pending (it still had the player in a
    # hand) and that waited for it: 0 when every rebuy went through at the first try.
    rebuys_waited: int = 0
    sit_ins: int = 0  # times the seat, sat out by the table, was sat in again


WhenBusted: TypeAlias = Literal["return", "wait"]

COME_BACK_EVERY_S = 1.0  # at most one look at a seat dealt out, sit_in_when_away
"""What ``play`` does when the seat has no chips and no rebuy was made: return, or
keep the stream open for a rebuy someone else makes (a room manager that stands
broke seats up and sits them down again)."""

RebuyPolicy: TypeAlias = Callable[[TableView, PlayStats], "int | Awaitable[int | None] | None"]
"""Asked when the bot's seat has no chips after a hand: the buy-in of a rebuy, or
None to stop playing.  May be ``async``."""


@dataclass(slots=True)
class Rebuy:
    """A rebuy policy: buy in again for ``buy_in`` chips each time the seat busts, at
    most ``max_times`` times (None: every time)."""

    buy_in: int
    max_times: int | None = None

    def __call__(self, view: TableView, stats: PlayStats) -> int | None:
        if self.max_times is not None and stats.rebuys >= self.max_times:
            return None
        return self.buy_in


class _RetryError(Exception):
    """The session ended in a way a reconnect may fix."""


EventHook = Callable[[table_pb2.TableEvent, TableView], None]

# What a reconnect may fix: the service restarting or unreachable (UNAVAILABLE), a
# burst it queued past its limit or past the call's deadline (RESOURCE_EXHAUSTED,
# DEADLINE_EXCEEDED: every seat joining at once after a restart).  A Join is safe
# to send again: the new connection takes the seat's stream over, and nothing
# else changes (docs/bots.md#reconnects-and-retries).
RETRY_CODES = frozenset(
    (
        grpc.StatusCode.UNAVAILABLE,
        grpc.StatusCode.RESOURCE_EXHAUSTED,
        grpc.StatusCode.DEADLINE_EXCEEDED,
    )
)
# A write that races the stream's end (the table service restarting) fails in grpc
# core, and grpc.aio then ends the whole call INTERNAL "Internal error from Core"
# instead of the transport's UNAVAILABLE: after such a write, INTERNAL is a broken
# connection too, and is retried like UNAVAILABLE.
BROKEN_WRITE_CODES = frozenset((grpc.StatusCode.INTERNAL,))


class _Session:
    """One bot's play: the loop over stream messages, reused across reconnects."""

    def __init__(
        self,
        stub: table_pb2_grpc.TableServiceAsyncStub | room_pb2_grpc.RoomAsyncStub | Multiplexer,
        join: table_pb2.Join,
        bearer: str,
        bot: Bot | AsyncBot,
        hands: int | None,
        stop: asyncio.Event | None,
        ping_interval: float,
        on_event: EventHook | None,
        validate: bool,
        rebuy: RebuyPolicy | None = None,
        lobby: Lobby | None = None,
        when_busted: WhenBusted = "return",
        sit_in_when_away: bool = False,
    ) -> None:
        self.stub = stub
        self.join = join
        self.bearer = bearer
        self.bot = bot
        self.is_async = inspect.iscoroutinefunction(bot.act)
        self.hands = hands
        self.stop = stop
        self.ping_interval = ping_interval
        self.on_event = on_event
        self.validate = validate
        self.view = TableView(join.table_id, my_player_id=join.player_id)
        self.stats = PlayStats()
        # (hand_id, action_seq) answered / fallen back for: action_seq restarts at 0
        # every hand, so the hand id is part of what identifies a turn.
        self.answered: tuple[str, int] | None = None
        self.fell_back: tuple[str, int] | None = None
        # A Play call, or a Multiplexer's SeatCall (the same four methods).
        self.call: (
            aio.StreamStreamCall[table_pb2.PlayerMessage, table_pb2.TableEvent] | SeatCall | None
        ) = None
        self.write_lock = asyncio.Lock()
        self.last_io = 0.0
        self.timer: asyncio.TimerHandle | None = None
        self.nonce = 0
        self.done = False
        self.write_failed = False  # a write on this connection failed (BROKEN_WRITE_CODES)
        self.rebuy = rebuy
        self.lobby = lobby
        self.when_busted = when_busted
        self.sit_in_when_away = sit_in_when_away and lobby is not None
        self.coming_back: asyncio.Task[None] | None = None  # a look at the seat, SitIn
        self.looked_at_seat = -COME_BACK_EVERY_S  # monotonic time of the last look
        self.was_dealt_in = True  # the last hand dealt (HandStarted) had this seat
        self.is_busted = False  # this bust was handled (counted, rebought or reported)
        self.had_seat = False  # a Snapshot showed the player seated (see handle)
        # The bot's optional callbacks (the Bot protocol's docstring).
        self.on_hand_start: Callable[..., Any] | None = getattr(bot, "on_hand_start", None)
        self.on_hand_end: Callable[..., Any] | None = getattr(bot, "on_hand_end", None)
        self.start_stack: int | None = None  # the bot's stack at its hand's start
        self.counted_hand = ""  # the hand last counted in stats.hands ...
        self.started_since = True  # ... and whether a HandStarted came since

    async def write(self, msg: table_pb2.PlayerMessage) -> None:
        call = self.call
        if call is None:
            return
        async with self.write_lock:
            try:
                await call.write(msg)
            except aio.AioRpcError as exc:
                if exc.code() in BROKEN_WRITE_CODES:
                    self.write_failed = True
                raise
        self.last_io = time.monotonic()

    def _retryable(self, exc: aio.AioRpcError) -> bool:
        code = exc.code()
        return (
            code in RETRY_CODES
            or (self.write_failed and code in BROKEN_WRITE_CODES)
            # This call's reading half can see a failed write's INTERNAL before the
            # writing half's write() has returned and set write_failed.
            or is_broken_write(code, exc.details())
        )

    def _tick(self) -> None:
        """Timer: ping when nothing was sent or received for ``ping_interval``."""
        if self.done or self.call is None:
            return
        loop = asyncio.get_running_loop()
        idle = time.monotonic() - self.last_io
        if idle >= self.ping_interval * 0.95:
            self.nonce += 1
            self.stats.pings += 1
            ping = table_pb2.PlayerMessage(ping=table_pb2.Ping(nonce=self.nonce))
            task = loop.create_task(self._safe_write(ping))
            task.add_done_callback(_ignore_result)
            idle = 0.0
        self.timer = loop.call_later(max(0.05, self.ping_interval - idle), self._tick)

    async def _safe_write(self, msg: table_pb2.PlayerMessage) -> None:
        try:
            await self.write(msg)
        except Exception as exc:  # the read loop sees the broken stream
            log.debug("ping failed: %s", exc)

    async def connect_once(self) -> None:
        """One stream: join, then handle messages until it ends (raises _RetryError)."""
        # The credential rides the call's metadata (the room's door reads it there;
        # a table's own port takes the token); the Join carries them as well.
        call = self.stub.Play(metadata=(("authorization", f"Bearer {self.bearer}"),))
        self.call = call
        self.write_failed = False
        self.last_io = time.monotonic()
        loop = asyncio.get_running_loop()
        self.timer = loop.call_later(self.ping_interval, self._tick)
        got_message = False
        try:
            await self.write(table_pb2.PlayerMessage(join=self.join))
            while not self.done:
                msg = await call.read()
                if msg is aio.EOF:
                    if not self.stats.stopped_by:
                        self.stats.stopped_by, self.stats.reason = "eof", _REASONS["eof"]
                    self.done = True
                    break
                assert isinstance(msg, table_pb2.TableEvent)  # type narrowing: the stub's type
                got_message = True
                self.last_io = time.monotonic()
                await self.handle(msg)
        except aio.AioRpcError as exc:
            if self.done:
                return
            if self._retryable(exc):
                raise _RetryError(got_message) from exc
            raise
        except asyncio.CancelledError:
            if self.done and self.stats.stopped_by == "stop":
                return  # our own cancel after stop was set
            raise
        finally:
            if self.timer is not None:
                self.timer.cancel()
            self.call = None
            if not call.done():
                call.cancel()

    def finish(self, why: str, reason: str = "") -> None:
        if not self.done:
            self.done = True
            self.stats.stopped_by = why
            self.stats.reason = reason or _REASONS.get(why, why)
        call = self.call
        if call is not None and not call.done():
            call.cancel()

    async def handle(self, msg: table_pb2.TableEvent) -> None:
        stats = self.stats
        stats.messages += 1
        view = self.view
        hook = self.on_event
        events = unpack(msg)
        stats.events += len(events)
        check_bust = False
        for event in events:
            kind = event.WhichOneof("event")
            view.apply_event(event, kind)
            if kind == "snapshot":
                self.answered = None  # a reconnect: the turn, if any, is pending again
                self.fell_back = None
                stats.seat = view.my_seat
                self.start_stack = None  # joined mid-hand: its start is not known
                check_bust = True
                if view.my_seat:
                    self.had_seat = True
                elif self.had_seat and self.when_busted != "wait":
                    # A reconnect found the seat gone (stood up by another client or
                    # the room): the table would never deal this stream a card again.
                    self.finish("unseated", self.unseated_reason())
                    return
            elif kind == "hand_started":
                self.started_since = True
                self.start_stack = None
                if view.my_seat and any(s.seat == view.my_seat for s in event.hand_started.seats):
                    self.start_stack = _seat_stack(event.hand_started.seats, view.my_seat)
                    self.was_dealt_in = True
                    if self.on_hand_start is not None:
                        await self.callback(self.on_hand_start, view)
                elif view.my_seat and view.my_stack > 0:
                    self.come_back()
            elif kind == "hand_finished":
                finished = event.hand_finished
                # a hand the lobby voided after its end comes twice: counted once
                if self.started_since or event.hand_id != self.counted_hand:
                    stats.hands += 1
                    self.counted_hand, self.started_since = event.hand_id, False
                mine = view.my_seat and any(s.seat == view.my_seat for s in finished.seats)
                if mine and not finished.voided:
                    stats.hands_dealt += 1
                if mine and self.on_hand_end is not None:
                    result = self.hand_result(event)
                    await self.callback(self.on_hand_end, view, result)
                check_bust = True
            elif kind == "action_rejected":
                await self.rejected(event.action_rejected)
            if hook is not None:
                hook(event, view)
        me = view.me
        if me is not None:
            stats.final_stack = me.stack
        if self.hands is not None and stats.hands >= self.hands:
            self.finish("hands", f"{stats.hands} hands finished, as asked")
            return
        # Busted: no chips and in no hand (all in at the end of a hand counts as out).
        if check_bust and me is not None:
            if me.stack > 0:
                self.is_busted = False
            elif not self.is_busted and (view.hand_over or not me.in_hand):
                self.is_busted = True
                stats.busts += 1
                await self.busted()
                if self.done:
                    return
        turn = view.turn
        if turn is not None and (view.hand_id, turn.action_seq) != self.answered:
            await self.take_turn(turn)

    def unseated_reason(self) -> str:
        join = self.join
        return (
            f"player {join.player_id} has no seat at table {join.table_id} any more "
            "(stood up by another client or by the room while the stream reconnected); "
            "sit down again and call play() again"
        )

    def come_back(self) -> None:
        """A hand was dealt without this seat, which has chips: if the table sat the
        player out (their every decision taken by the clock for a few hands, see
        docs/rule-decisions.md#departed-players), sit in again, in the background (the
        stream goes on).  The first hand dealt without the seat is looked at at once
        (the table sits a player out with the report of the hand before, B5 takes the
        seat after a few orbits); then a look at most every ``COME_BACK_EVERY_S``: a
        seat waiting for the big blind or for its "I'm in" is not away, and stays."""
        now = time.monotonic()
        first = self.was_dealt_in  # the first hand without the seat: look at once
        self.was_dealt_in = False
        if (
            not self.sit_in_when_away
            or self.coming_back is not None
            or (not first and now - self.looked_at_seat < COME_BACK_EVERY_S)
        ):
            return
        self.looked_at_seat = now
        self.coming_back = asyncio.get_running_loop().create_task(self._sit_in_if_away())

    async def _sit_in_if_away(self) -> None:
        lobby, table_id = self.lobby, self.join.table_id
        assert lobby is not None  # sit_in_when_away needs one
        try:
            seat = await lobby.seat_at(table_id)
            if seat is not None and seat.away and seat.stack > 0 and not self.done:
                await lobby.sit_in(table_id)
                self.stats.sit_ins += 1
                log.info("table %s: the seat was sat out; sat in again", table_id)
        except LobbyError as error:
            log.info("table %s: could not sit in again: %s", table_id, error)
        finally:
            self.coming_back = None

    async def callback(self, method: Callable[..., Any], *args: Any) -> None:
        """One of the bot's optional callbacks: awaited if async; a failure logged."""
        try:
            result = method(*args)
            if inspect.isawaitable(result):
                await result
        except Exception:
            log.exception("bot %r failed in %s", self.bot, getattr(method, "__name__", method))
            self.stats.bot_errors += 1

    def hand_result(self, event: table_pb2.TableEvent) -> HandResult:
        """The bot's HandResult of a HandFinished it was dealt into."""
        view = self.view
        finished = event.hand_finished
        seat = view.my_seat
        stacks = {s.seat: s.stack for s in finished.seats}
        shown = next((h for h in view.showdown if h.seat == seat), None)
        return HandResult(
            hand_id=event.hand_id or view.hand_id,
            seat=seat,
            final_stack=stacks.get(seat, view.my_stack),
            start_stack=self.start_stack,
            awarded=sum(a.amount for a in finished.awards if a.seat == seat),
            showed_down=shown is not None,
            shown=tuple(shown.cards) if shown is not None else (),
            stacks=stacks,
            voided=finished.voided,
        )

    async def busted(self) -> None:
        """The seat has no chips and cannot be dealt in: rebuy by the policy, else
        stop (or, ``when_busted="wait"``, wait for someone else to rebuy the seat)."""
        why = await self.rebuy_or_why()
        if why is None:
            return
        if self.when_busted == "wait":
            log.info("%s; waiting for a rebuy", why)
            return
        self.finish("busted", why)

    async def rebuy_or_why(self) -> str | None:
        """Rebuy by the policy: None when done, else why not."""
        view, stats = self.view, self.stats
        table_id, seat = self.join.table_id, view.my_seat
        where = f"seat {seat} at table {table_id}"
        if self.rebuy is None:
            return (
                f"{where} has no chips left and cannot be dealt in again "
                "(no rebuy policy: play(rebuy=Rebuy(buy_in=...)) buys in again)"
            )
        try:
            buy_in = self.rebuy(view, stats)
            if inspect.isawaitable(buy_in):
                buy_in = await buy_in
        except Exception as error:
            log.exception("rebuy policy %r failed", self.rebuy)
            return f"{where} has no chips left; the rebuy policy raised {error!r}"
        if buy_in is None:
            return (
                f"{where} has no chips left and the rebuy policy declined "
                f"(after {stats.rebuys} rebuys)"
            )
        lobby = self.lobby
        if lobby is None:  # play() checks this first; kept for type narrowing
            return f"{where} has no chips left; no lobby to rebuy through"
        try:
            rebought = await lobby.rebuy(table_id, buy_in)
        except LobbyError as error:
            return f"{where} has no chips left; the rebuy of {buy_in} was refused: {error}"
        stats.rebuys += 1
        stats.rebuy_chips += rebought.sat.stack
        if rebought.pending:
            stats.rebuys_waited += 1
        view.sat_down(rebought.sat.seat, rebought.sat.stack, self.join.player_id)
        stats.seat = view.my_seat
        stats.final_stack = rebought.sat.stack
        self.is_busted = False
        log.info("table %s: rebought %d at seat %d", table_id, buy_in, rebought.sat.seat)
        return None

    async def rejected(self, rej: table_pb2.ActionRejected) -> None:
        stats = self.stats
        stats.rejected += 1
        stats.rejections = [*stats.rejections[-9:], rej.message]
        log.warning(
            "table %s seat %s: action_seq %s rejected (code %s): %s",
            self.join.table_id,
            self.view.my_seat,
            rej.action_seq,
            rej.code,
            rej.message,
        )
        turn = self.view.turn
        key = (self.view.hand_id, rej.action_seq)
        if turn is None or rej.action_seq != turn.action_seq or self.fell_back == key:
            return
        self.fell_back = key
        stats.fallbacks += 1
        await self.send(turn, safest(turn.legal))

    async def take_turn(self, turn: table_pb2.YourTurn) -> None:
        legal = turn.legal
        stats = self.stats
        start = time.perf_counter()
        try:
            if self.is_async:
                action = await self.bot.act(self.view, legal)  # type: ignore[misc]
            else:
                action = self.bot.act(self.view, legal)
            if not isinstance(action, common_pb2.Action):
                got = type(action).__name__
                raise TypeError(f"act must return a poker.common.v1.Action, not a {got}")
        except Exception:
            log.exception("bot %r failed on %s", self.bot, describe(legal))
            stats.bot_errors += 1
            stats.fallbacks += 1
            action = safest(legal)
        stats.decision_seconds += time.perf_counter() - start
        if self.done:
            return
        if self.validate:
            problem = check_action(legal, action, self.view.my_down_cards or None)
            if problem is not None:
                log.warning("bot %r chose an illegal action (%s): %s", self.bot, action, problem)
                stats.bot_errors += 1
                stats.fallbacks += 1
                action = safest(legal)
        await self.send(turn, action)

    async def send(self, turn: table_pb2.YourTurn, action: Action) -> None:
        self.answered = (self.view.hand_id, turn.action_seq)
        self.stats.actions += 1
        await self.write(
            table_pb2.PlayerMessage(
                action=table_pb2.PlayerAction(
                    hand_id=self.view.hand_id, action_seq=turn.action_seq, action=action
                )
            )
        )


_REASONS = {
    "stop": "the stop event was set",
    "eof": "the table ended the stream",
}


def _seat_stack(seats: Iterable[table_pb2.SeatView], seat: int) -> int | None:
    return next((s.stack for s in seats if s.seat == seat), None)


def _ignore_result(task: asyncio.Task[None]) -> None:
    if not task.cancelled():
        task.exception()


async def play(
    target: str | aio.Channel | Multiplexer,
    table_id: str,
    player_id: str,
    token: str,
    bot: Bot | AsyncBot,
    *,
    delivery: table_pb2.Delivery.ValueType = table_pb2.DELIVERY_ON_TURN,
    hands: int | None = None,
    stop: asyncio.Event | None = None,
    ping_interval: float = 20.0,
    max_reconnects: int = 8,
    backoff: float = 0.5,
    max_backoff: float = 5.0,
    on_event: EventHook | None = None,
    validate: bool = True,
    seed: int | None = None,
    via: Via = "room",
    rebuy: RebuyPolicy | None = None,
    lobby: Lobby | None = None,
    when_busted: WhenBusted = "return",
    sit_in_when_away: bool = True,
) -> PlayStats:
    """Play ``bot`` in ``player_id``'s seat at ``table_id`` until ``hands`` hands have
    finished, ``stop`` is set, or the table ends the stream.

    ``target`` is an address (the room's door, ``"127.0.0.1:50050"``; the channel is
    opened and closed here), an open ``grpc.aio.Channel`` (shared by many bots; left
    open), or a :class:`~poker_bots.many.Multiplexer` (many bots' seats over one
    PlayMany stream; left open).  ``via`` says what the address is: ``room``, the
    room's public door (the gateway: every table at one address), or ``table``, a
    table service's own public port.
    ``on_event(event, view)`` is called after every event is applied (batches
    unpacked).  ``validate`` checks the bot's action against the menu before sending
    it and sends the safest action instead of an illegal one.  Reconnects on
    UNAVAILABLE, RESOURCE_EXHAUSTED and DEADLINE_EXCEEDED (a restart, or a burst of
    joins the table queued past its limit; ``RETRY_CODES``), and on the INTERNAL
    grpc.aio gives a stream whose write failed as the service went away: at most
    ``max_reconnects`` in a row, waiting ``backoff`` seconds doubled each time up to
    ``max_backoff``, times a random 0.5..1.5 (thousands of seats coming back at once
    do not come back in step); any other error (e.g. PERMISSION_DENIED for a wrong
    token) is raised.

    When the seat has no chips after a hand (or on joining) it cannot be dealt in
    again: without ``rebuy`` play returns, ``stopped_by == "busted"`` and ``reason``
    saying so.  ``rebuy`` (:class:`Rebuy`, or any callable ``(view, stats) -> int |
    None``, possibly async) gives the buy-in of a rebuy, or None to stop: the seat
    stands up and sits down again through ``lobby`` (by default, with ``via="room"``,
    a :class:`~poker_bots.lobby.Lobby` on the same channel as this player) and play
    goes on over the same stream; a refused rebuy ends play with the refusal as the
    ``reason``.  ``when_busted="wait"`` keeps playing instead of returning when no
    rebuy was made (a room manager rebuys broke seats itself; ``stats.busts``
    counts them); the view follows the player to whatever seat the rebuy gave
    (the next HandStarted names it).  A reconnect that finds the player no longer
    seated (stood up by another client or by the room) returns, ``stopped_by ==
    "unseated"``; with ``when_busted="wait"`` the stream stays open for a manager
    to seat the player again.  ``hands`` counts the hands finished while the bot was seated or
    not (a hand the lobby voids after its end counts once); having played them wins
    over busting in the same hand (``stopped_by == "hands"``, ``final_stack == 0``).
    ``sit_in_when_away`` (with ``via="room"`` or a ``lobby``): when the table sat the
    player out because the clock took every decision for a few hands (a slow or
    stalled bot; docs/rule-decisions.md#departed-players) and hands go on without
    the seat, sit in again through the lobby (``stats.sit_ins``); False leaves the
    seat away until someone calls ``Lobby.sit_in``.
    """
    if isinstance(target, Multiplexer):
        via = target.via
    if rebuy is not None and lobby is None and via != "room":
        raise ValueError(
            "a rebuy goes through the room's lobby: with via='table' pass lobby=Lobby(...)"
        )
    own_channel = isinstance(target, str)
    channel: aio.Channel | None = None
    stub: table_pb2_grpc.TableServiceAsyncStub | room_pb2_grpc.RoomAsyncStub | Multiplexer
    if isinstance(target, Multiplexer):
        stub = target
    else:
        channel = player_channel(target) if isinstance(target, str) else target
        stub = (
            room_pb2_grpc.RoomStub(channel)
            if via == "room"
            else table_pb2_grpc.TableServiceStub(channel)
        )
    if lobby is None and (rebuy is not None or (sit_in_when_away and via == "room")):
        # The room's door serves the lobby too: the same channel, as this player.
        door = target._channel if isinstance(target, Multiplexer) else channel
        assert door is not None
        lobby = Lobby(door, Credential(player_id, token))
    join = table_pb2.Join(table_id=table_id, player_id=player_id, token=token, delivery=delivery)
    # The door's bearer is the credential (player id and token); a table's own
    # port takes the token alone.
    bearer = f"{player_id}.{token}" if via == "room" else token
    session = _Session(
        stub,
        join,
        bearer,
        bot,
        hands,
        stop,
        ping_interval,
        on_event,
        validate,
        rebuy,
        lobby,
        when_busted,
        sit_in_when_away,
    )
    rng = random.Random(seed)
    stop_waiter: asyncio.Task[bool] | None = None
    if stop is not None:
        if stop.is_set():
            session.stats.stopped_by, session.stats.reason = "stop", _REASONS["stop"]
            return session.stats
        stop_waiter = asyncio.ensure_future(stop.wait())
        stop_waiter.add_done_callback(lambda _t: session.finish("stop"))
    failures = 0
    try:
        while not session.done:
            try:
                await session.connect_once()
            except _RetryError as retry:
                if retry.args and retry.args[0]:
                    failures = 0  # the connection worked for a while: a fresh budget
                failures += 1
                if failures > max_reconnects:
                    raise retry.__cause__ or retry from None
                session.stats.reconnects += 1
                delay = min(max_backoff, backoff * 2 ** (failures - 1))
                delay *= 0.5 + rng.random()
                log.info("table %s: unavailable, reconnect %d in %.2fs", table_id, failures, delay)
                await _sleep_unless(delay, stop)
        return session.stats
    finally:
        session.done = True
        if stop_waiter is not None and not stop_waiter.done():
            stop_waiter.cancel()
        if session.coming_back is not None:
            session.coming_back.cancel()
        if own_channel and channel is not None:
            await channel.close()


async def _sleep_unless(delay: float, stop: asyncio.Event | None) -> None:
    if stop is None:
        await asyncio.sleep(delay)
        return
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(stop.wait(), delay)
