"""Play at a table: the :class:`Bot` protocol, :func:`play`, and legal-action helpers.

A bot is any object with ``act(view, legal) -> Action``; :func:`play` does the rest
of the connection: it opens ``TableService.Play``, sends ``Join``, keeps a
:class:`~poker_bots.view.TableView` up to date, asks the bot at every ``YourTurn`` and
answers with that turn's ``action_seq``, logs ``ActionRejected`` (and falls back once
to the safest action when the current turn's action was refused), pings when idle,
and reconnects with backoff when the service is UNAVAILABLE or the connection broke
under a write (a restart; the new ``Snapshot`` carries ``your_turn`` when the bot
must act).

Amounts are *to* amounts (the player's total on the street after the action).  In
fixed limit the legal ones are ``legal.to_choices``; in pot and no limit every integer
in ``[legal.min_to, legal.max_to]``.  A DISCARD lists 0..``legal.max_discards`` of the
bot's own cards in ``Action.cards`` (none = stand pat).  :func:`choose` builds a legal
action of a kind, snapping the amount onto the menu.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import random
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Protocol, TypeAlias, runtime_checkable

import grpc
from grpc import aio

from poker.common.v1 import common_pb2
from poker.room.v1 import room_pb2_grpc
from poker.table.v1 import table_pb2, table_pb2_grpc
from poker_wire.broken import is_broken_write
from poker_wire.channels import player_channel

from .many import Multiplexer, SeatCall, Via
from .view import TableView, unpack

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
    "PlayStats",
    "check_action",
    "choose",
    "clamp_to",
    "is_legal",
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
    """

    def act(self, view: TableView, legal: LegalActions) -> Action: ...


class AsyncBot(Protocol):
    """A bot whose decision awaits something (a person at a terminal, a remote model)."""

    async def act(self, view: TableView, legal: LegalActions) -> Action: ...


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
        name = common_pb2.ActionKind.Name(kind)
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
    return ", ".join(common_pb2.ActionKind.Name(k) for k in legal_kinds(legal)) or "nothing"


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
        return f"{common_pb2.ActionKind.Name(kind)} is not allowed; allowed: {describe(legal)}"
    if kind in AGGRESSIVE:
        if kind != legal.raise_kind:
            return f"the aggressive option is {common_pb2.ActionKind.Name(legal.raise_kind)}"
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

    hands: int = 0  # HandFinished events seen
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
    stopped_by: str = ""  # "hands", "stop", "eof"
    rejections: list[str] = field(default_factory=list)  # the last few messages


class _RetryError(Exception):
    """The session ended in a way a reconnect may fix."""


EventHook = Callable[[table_pb2.TableEvent, TableView], None]

RETRY_CODES = frozenset((grpc.StatusCode.UNAVAILABLE,))
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
        self.view = TableView(join.table_id)
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
                    self.stats.stopped_by = self.stats.stopped_by or "eof"
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

    def finish(self, why: str) -> None:
        if not self.done:
            self.done = True
            self.stats.stopped_by = why
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
        for event in events:
            kind = event.WhichOneof("event")
            view.apply_event(event, kind)
            if kind == "snapshot":
                self.answered = None  # a reconnect: the turn, if any, is pending again
                self.fell_back = None
                stats.seat = view.my_seat
            elif kind == "hand_finished":
                stats.hands += 1
            elif kind == "action_rejected":
                await self.rejected(event.action_rejected)
            if hook is not None:
                hook(event, view)
        me = view.me
        if me is not None:
            stats.final_stack = me.stack
        if self.hands is not None and stats.hands >= self.hands:
            self.finish("hands")
            return
        turn = view.turn
        if turn is not None and (view.hand_id, turn.action_seq) != self.answered:
            await self.take_turn(turn)

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
    max_reconnects: int = 5,
    backoff: float = 0.5,
    max_backoff: float = 10.0,
    on_event: EventHook | None = None,
    validate: bool = True,
    seed: int | None = None,
    via: Via = "room",
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
    UNAVAILABLE (and on the INTERNAL grpc.aio gives a stream whose write failed as
    the service went away): at most ``max_reconnects`` in a row, waiting ``backoff`` seconds
    doubled each time up to ``max_backoff`` (with jitter); any other error (e.g.
    PERMISSION_DENIED for a wrong token) is raised.
    """
    own_channel = isinstance(target, str)
    channel: aio.Channel | None = None
    stub: table_pb2_grpc.TableServiceAsyncStub | room_pb2_grpc.RoomAsyncStub | Multiplexer
    if isinstance(target, Multiplexer):
        stub = target
        via = target.via
    else:
        channel = player_channel(target) if isinstance(target, str) else target
        stub = (
            room_pb2_grpc.RoomStub(channel)
            if via == "room"
            else table_pb2_grpc.TableServiceStub(channel)
        )
    join = table_pb2.Join(table_id=table_id, player_id=player_id, token=token, delivery=delivery)
    # The door's bearer is the credential (player id and token); a table's own
    # port takes the token alone.
    bearer = f"{player_id}.{token}" if via == "room" else token
    session = _Session(stub, join, bearer, bot, hands, stop, ping_interval, on_event, validate)
    rng = random.Random(seed)
    stop_waiter: asyncio.Task[bool] | None = None
    if stop is not None:
        if stop.is_set():
            session.stats.stopped_by = "stop"
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
        if own_channel and channel is not None:
            await channel.close()


async def _sleep_unless(delay: float, stop: asyncio.Event | None) -> None:
    if stop is None:
        await asyncio.sleep(delay)
        return
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(stop.wait(), delay)
