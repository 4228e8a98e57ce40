"""The table as one viewer (a seat or a spectator) sees it, kept up to date from events.

:class:`TableView` starts empty, is replaced by every ``Snapshot`` and is updated in
place by the other events of the viewer's stream (``HandStarted``, ``CardsDealt``,
``ActionTaken``, ``StreetStarted``, ``YourTurn``, ``DrawTaken``, ``ShowdownEvent``,
``HandFinished``, ``SeatChanged``).  An ``EventBatch`` (``DELIVERY_ON_TURN``) is
unpacked into its events, in order.

Every update is a few attribute writes: a bot process holds one view per seat and
applies every event of every seat, so nothing here parses or copies more than the
event itself carries.  Cards are kept as the strings of the protos (``"As"``); the
``*_ints`` accessors give the ``poker_rules`` card ints (``rank * 4 + suit``) that the
evaluators take.

Chips: ``stack`` is the seat's stack as last reported; ``bet`` is what it has put in
on this street, derived from stack changes (so it does not depend on whether the
server's ``Pot`` amounts include the current street); ``pot_total`` is every chip
put in this hand (antes, blinds and bets), derived the same way.

History: ``actions`` is the hand's actions in order (:class:`HandAction`: the street,
the seat, the kind, the to-amount, the chips put in, all-in, applied by the action
clock), one small object appended per ``ActionTaken``; ``actions_this_street``,
``raises_this_street``, ``last_aggressor`` and ``actions_by`` read it.  Forced bets
(antes, blinds, dead money) are not actions: they are ``HandStarted``'s posts (a
stud bring-in is an action, ``BRING_IN``).  It starts empty at every
``HandStarted``.  A ``Snapshot`` (a join or reconnect mid-hand) carries no history:
``actions`` then starts empty at the snapshot and ``history_complete`` is False
until the next ``HandStarted`` (the stacks, bets and pots of the snapshot are
still exact).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from poker.common.v1 import common_pb2
from poker.table.v1 import table_pb2
from poker_rules.cards import Card, parse_card

__all__ = ["HandAction", "SeatView", "TableView", "card_ints", "kind_name", "unpack"]

_DISCARD = common_pb2.ACTION_KIND_DISCARD
_AGGRESSIVE = frozenset(
    (common_pb2.ACTION_KIND_BET, common_pb2.ACTION_KIND_RAISE, common_pb2.ACTION_KIND_COMPLETE)
)

_CARD_CACHE: dict[str, Card] = {}


def kind_name(kind: int) -> str:
    """The enum name of ``kind``, or ``ACTION_KIND_<n>`` for a number this build lacks.

    A bot may return any integer as an action kind (a typo, a newer enum); naming it
    must not raise, so that :func:`check_action` can call it illegal and the session
    sends the safest action instead of dying on a ``ValueError``.
    """
    try:
        return common_pb2.ActionKind.Name(kind)  # type: ignore[arg-type]
    except ValueError:
        return f"ACTION_KIND_{kind}"


def card_int(text: str) -> Card:
    """The ``poker_rules`` int of a card string (cached: there are only 52)."""
    card = _CARD_CACHE.get(text)
    if card is None:
        card = _CARD_CACHE[text] = parse_card(text)
    return card


def card_ints(cards: Iterable[str]) -> list[Card]:
    """``poker_rules`` card ints of card strings (``["As", "Td"]`` -> ``[51, 33]``)."""
    return [card_int(c) for c in cards]


def unpack(event: table_pb2.TableEvent) -> list[table_pb2.TableEvent]:
    """The events of one stream message: itself, or a batch's events in order.
    (A list, not a generator: every event of every seat goes through here.)"""
    if event.WhichOneof("event") != "batch":
        return [event]
    events: list[table_pb2.TableEvent] = []
    for inner in event.batch.events:
        if inner.WhichOneof("event") == "batch":
            events.extend(unpack(inner))
        else:
            events.append(inner)
    return events


@dataclass(slots=True)
class SeatView:
    """One seat as the viewer sees it (mirrors ``table.v1.SeatView``)."""

    seat: int
    player_id: str = ""
    name: str = ""
    stack: int = 0
    bet: int = 0  # chips in front this street
    in_hand: bool = False  # dealt in and not folded
    all_in: bool = False
    upcards: list[str] = field(default_factory=list)  # face up, dealt order
    down_cards: int = 0  # face-down cards this viewer cannot see
    own_cards: list[str] = field(default_factory=list)  # the viewer's own down cards
    draw_count: int | None = None  # D7: cards drawn, public until the next action
    shown: list[str] = field(default_factory=list)  # cards shown at the showdown

    @classmethod
    def from_pb(cls, msg: table_pb2.SeatView) -> SeatView:
        return cls(
            seat=msg.seat,
            player_id=msg.player_id,
            name=msg.name,
            stack=msg.stack,
            bet=msg.bet,
            in_hand=msg.in_hand,
            all_in=msg.all_in,
            upcards=list(msg.upcards),
            down_cards=msg.down_cards,
            own_cards=list(msg.own_cards),
            draw_count=msg.draw_count if msg.HasField("draw_count") else None,
        )

    @property
    def label(self) -> str:
        """``name`` or ``seat N`` for people."""
        return self.name or self.player_id or f"seat {self.seat}"

    @property
    def cards(self) -> list[str]:
        """Every card of this seat the viewer knows: own down cards, then upcards."""
        return [*self.own_cards, *self.upcards]

    @property
    def card_count(self) -> int:
        """Cards this seat holds, seen or not."""
        return len(self.own_cards) + len(self.upcards) + self.down_cards

    @property
    def upcard_ints(self) -> list[Card]:
        return card_ints(self.upcards)

    @property
    def card_ints(self) -> list[Card]:
        return card_ints(self.cards)


@dataclass(slots=True)
class HandAction:
    """One action of the hand, as ``ActionTaken`` told it (forced posts are not here).
    Read it, do not change it (not frozen: a frozen dataclass costs several times as
    much to make, and one is made per action of every seat's view).

    ``to`` is the seat's total on the street after the action (the to-amount of a
    bet, raise or completion; what a call or bring-in brought it to); ``put_in`` the
    chips it added; ``discards`` the cards a DISCARD drew (None for other kinds, and
    for another seat's discard before its ``DrawTaken``, which carries the count)."""

    street: int  # StreetStarted.street: stud 0 = third .. 4 = seventh; draw 0 pre, 1 draw, 2 post
    seat: int
    kind: common_pb2.ActionKind.ValueType
    to: int = 0
    put_in: int = 0
    all_in: bool = False
    timeout: bool = False  # applied by the action clock (S10), not by the player
    discards: int | None = None

    @property
    def aggressive(self) -> bool:
        """A bet, a raise or a completion."""
        return self.kind in _AGGRESSIVE

    @property
    def kind_name(self) -> str:
        """``"RAISE"``, ``"CALL"``... (the enum's name without its prefix)."""
        return kind_name(self.kind).removeprefix("ACTION_KIND_")


class TableView:
    """The state of one table for one viewer; feed it every event with :meth:`apply`."""

    __slots__ = (
        "action_seq",
        "actions",
        "button_dead",
        "button_seat",
        "community_card",
        "config",
        "dealt_in",
        "deck_commitment",
        "event_seq",
        "hand_id",
        "hand_over",
        "hands_finished",
        "history_complete",
        "last_finish",
        "last_rejection",
        "my_player_id",
        "my_seat",
        "pot_total",
        "pots",
        "seats",
        "showdown",
        "street",
        "street_name",
        "street_start",
        "table_id",
        "to_act",
        "turn",
    )

    def __init__(self, table_id: str = "", my_seat: int = 0, my_player_id: str = "") -> None:
        self.table_id = table_id
        self.my_seat = my_seat  # 0 = spectator
        # Whose view this is: the seat follows the player (a rebuy someone else made,
        # a seat taken after joining) by HandStarted, which names every seat's player.
        self.my_player_id = my_player_id
        self.hand_id = ""
        self.config = common_pb2.GameConfig()
        self.seats: dict[int, SeatView] = {}
        self.pots: list[common_pb2.Pot] = []
        self.pot_total = 0
        self.community_card = ""
        self.street = 0
        self.street_name = ""
        self.button_seat = 0
        self.button_dead = False  # B1: nobody holds the button this hand
        self.to_act: int | None = None
        self.turn: table_pb2.YourTurn | None = None
        self.action_seq: int | None = None
        self.deck_commitment = b""
        self.event_seq = 0
        self.dealt_in = 0  # seats dealt into the current hand
        self.hand_over = True
        self.hands_finished = 0
        self.showdown: list[table_pb2.ShownHand] = []
        self.last_finish: table_pb2.HandFinished | None = None
        self.last_rejection: table_pb2.ActionRejected | None = None
        self.actions: list[HandAction] = []  # the hand's actions in order (see the module)
        self.street_start = 0  # index in ``actions`` of the current street's first action
        self.history_complete = False  # ``actions`` holds the hand from its start

    # ------------------------------------------------------------------ queries

    @property
    def game(self) -> common_pb2.Game.ValueType:
        return self.config.game

    @property
    def is_draw(self) -> bool:
        return self.config.game == common_pb2.GAME_DRAW_7A

    @property
    def is_hilo(self) -> bool:
        return self.config.game == common_pb2.GAME_STUD_HILO

    @property
    def me(self) -> SeatView | None:
        """The viewer's seat, or None for a spectator (or before the seat is known)."""
        return self.seats.get(self.my_seat) if self.my_seat else None

    @property
    def my_cards(self) -> list[str]:
        """The viewer's cards: own down cards, then upcards (a draw hand: all five)."""
        me = self.me
        return me.cards if me is not None else []

    @property
    def my_card_ints(self) -> list[Card]:
        return card_ints(self.my_cards)

    @property
    def my_down_cards(self) -> list[str]:
        """The viewer's face-down cards: in draw, the cards that may be discarded."""
        me = self.me
        return list(me.own_cards) if me is not None else []

    @property
    def my_stack(self) -> int:
        me = self.me
        return me.stack if me is not None else 0

    @property
    def legal(self) -> common_pb2.LegalActions | None:
        """The menu of the pending YourTurn, or None when it is not the viewer's turn."""
        return self.turn.legal if self.turn is not None else None

    @property
    def is_my_turn(self) -> bool:
        return self.turn is not None

    def upcards(self, seat: int) -> list[str]:
        s = self.seats.get(seat)
        return list(s.upcards) if s is not None else []

    def all_upcards(self) -> dict[int, list[str]]:
        """Every seat's upcards (stud boards), seats in the hand only."""
        return {n: list(s.upcards) for n, s in self.seats.items() if s.in_hand}

    def opponents(self) -> list[SeatView]:
        """Seats still in the hand other than the viewer's."""
        return [s for n, s in sorted(self.seats.items()) if s.in_hand and n != self.my_seat]

    def stacks(self) -> dict[int, int]:
        return {n: s.stack for n, s in self.seats.items()}

    @property
    def current_bet(self) -> int:
        """The highest bet in front of anyone this street."""
        return max((s.bet for s in self.seats.values()), default=0)

    # ---------------------------------------------------------- the hand's actions

    @property
    def actions_this_street(self) -> list[HandAction]:
        """The actions of the current street, in order."""
        return self.actions[self.street_start :]

    @property
    def raises_this_street(self) -> int:
        """RAISEs on the current street: what S8's cap counts in fixed limit (the
        opening bet or completion is not one; ``bets_this_street`` counts it too).
        A short all-in the table reports as a RAISE is counted, though S8 says it
        is not a raise."""
        raise_kind = common_pb2.ACTION_KIND_RAISE
        return sum(1 for a in self.actions[self.street_start :] if a.kind == raise_kind)

    @property
    def bets_this_street(self) -> int:
        """Aggressive actions on the current street: the bet or completion and every
        raise."""
        return sum(1 for a in self.actions[self.street_start :] if a.kind in _AGGRESSIVE)

    @property
    def last_aggressor(self) -> int | None:
        """The seat that bet, completed or raised last in the hand (None: nobody)."""
        for a in reversed(self.actions):
            if a.kind in _AGGRESSIVE:
                return a.seat
        return None

    @property
    def street_aggressor(self) -> int | None:
        """The seat that bet, completed or raised last on the current street."""
        for a in reversed(self.actions[self.street_start :]):
            if a.kind in _AGGRESSIVE:
                return a.seat
        return None

    @property
    def last_action(self) -> HandAction | None:
        return self.actions[-1] if self.actions else None

    def actions_by(self, seat: int) -> list[HandAction]:
        """Every action of ``seat`` this hand, in order."""
        return [a for a in self.actions if a.seat == seat]

    def seat(self, seat: int) -> SeatView:
        """The seat's view, created empty on first mention."""
        s = self.seats.get(seat)
        if s is None:
            s = self.seats[seat] = SeatView(seat)
        return s

    def sat_down(self, seat: int, stack: int, player_id: str = "", name: str = "") -> None:
        """The viewer took ``seat`` with ``stack`` between hands (a rebuy: stood up
        and sat down again): no event says so (the table tells seats with the next
        hand), so the caller that made the SitDown does."""
        old = self.seats.get(self.my_seat) if self.my_seat else None
        if old is not None and self.my_seat != seat:
            del self.seats[self.my_seat]
        self.my_seat = seat
        self.seats[seat] = SeatView(
            seat,
            player_id=player_id or (old.player_id if old else ""),
            name=name or (old.name if old else ""),
            stack=stack,
        )

    # ------------------------------------------------------------------ updates

    def apply(self, event: table_pb2.TableEvent) -> None:
        """Update the view with one stream message (a batch: each of its events)."""
        kind = event.WhichOneof("event")
        if kind == "batch":
            for inner in event.batch.events:
                self.apply(inner)
            return
        self.apply_event(event, kind)

    def apply_event(self, event: table_pb2.TableEvent, kind: str | None) -> None:
        """``apply`` for one event (not a batch) whose ``kind`` (the ``event``
        oneof's field) the caller already read."""
        self.event_seq = max(self.event_seq, event.event_seq)
        handler = _HANDLERS.get(kind) if kind is not None else None
        if handler is not None:
            handler(self, event)

    def _on_snapshot(self, event: table_pb2.TableEvent) -> None:
        self.load_snapshot(event.snapshot)

    def load_snapshot(self, snap: table_pb2.Snapshot) -> None:
        """Replace the whole state with a Snapshot (join, reconnect, GetState)."""
        self.table_id = snap.table_id or self.table_id
        self.hand_id = snap.hand_id
        self.config = snap.config
        self.my_seat = snap.your_seat
        self.seats = {s.seat: SeatView.from_pb(s) for s in snap.seats}
        if not self.my_player_id and snap.your_seat in self.seats:
            self.my_player_id = self.seats[snap.your_seat].player_id
        self.pots = list(snap.pots)
        bets = sum(s.bet for s in self.seats.values())
        self.pot_total = max(sum(p.amount for p in self.pots), bets)
        self.community_card = snap.community_card
        self.street = snap.street
        self.street_name = ""
        self.button_seat = snap.button_seat
        self.button_dead = snap.button_dead
        self.to_act = snap.to_act_seat if snap.HasField("to_act_seat") else None
        if snap.HasField("your_turn"):
            self.turn = snap.your_turn
            self.action_seq = snap.your_turn.action_seq
            self.to_act = self.my_seat or self.to_act
        else:
            self.turn = None
        self.deck_commitment = snap.deck_commitment
        self.event_seq = snap.event_seq
        self.hand_over = not snap.hand_id
        self.dealt_in = sum(1 for s in self.seats.values() if s.in_hand or s.card_count)
        self.showdown = []
        # No history rides a Snapshot: the actions start here (see the module).
        self.actions = []
        self.street_start = 0
        self.history_complete = False

    def _on_hand_started(self, event: table_pb2.TableEvent) -> None:
        msg = event.hand_started
        self.hand_id = event.hand_id
        self.hand_over = False
        self.turn = None
        self.to_act = None
        self.action_seq = None
        self.showdown = []
        self.pots = []
        self.pot_total = 0
        self.community_card = ""
        self.street = 0
        self.street_name = ""
        self.actions = []
        self.street_start = 0
        self.history_complete = True
        self.button_seat = msg.button_seat
        self.button_dead = msg.button_dead
        self.deck_commitment = msg.deck_commitment
        for s in self.seats.values():  # seats not dealt in sit this hand out
            s.in_hand = False
            s.all_in = False
            s.bet = 0
            s.upcards = []
            s.own_cards = []
            s.down_cards = 0
            s.draw_count = None
            s.shown = []
        for pb in msg.seats:
            seat = SeatView.from_pb(pb)
            seat.in_hand = True
            self.seats[seat.seat] = seat
            if self.my_player_id and pb.player_id == self.my_player_id:
                self._move_to(seat.seat)
        self.dealt_in = len(msg.seats)
        for post in msg.posts:
            s = self.seat(post.seat)
            s.stack -= post.amount
            self.pot_total += post.amount
            if post.kind in ("blind", "bring_in"):
                s.bet += post.amount
            if s.stack <= 0:
                s.stack = 0
                s.all_in = True

    def _move_to(self, seat: int) -> None:
        """The viewer is dealt in at ``seat``: a seat it held before is gone (it
        stood up and sat down again, or someone else rebought for it)."""
        old = self.my_seat
        if old and old != seat:
            left = self.seats.get(old)
            if left is not None and left.player_id == self.my_player_id and not left.in_hand:
                del self.seats[old]
        self.my_seat = seat

    def _on_cards_dealt(self, event: table_pb2.TableEvent) -> None:
        msg = event.cards_dealt
        if msg.community_card:
            self.community_card = msg.community_card
        if not msg.seat:
            return
        s = self.seat(msg.seat)
        if msg.up:
            s.upcards.extend(c for c in msg.cards if c not in s.upcards)
        elif msg.cards:
            s.own_cards.extend(c for c in msg.cards if c not in s.own_cards)
        if msg.hidden_count:
            s.down_cards += msg.hidden_count
            limit = 5 if self.is_draw else 7
            excess = s.card_count - limit
            if excess > 0:  # a draw's replacements counted twice: keep the hand's size
                s.down_cards = max(0, s.down_cards - excess)

    def _on_action_taken(self, event: table_pb2.TableEvent) -> None:
        msg = event.action_taken
        seat, stack = msg.seat, msg.stack
        s = self.seat(seat)
        put_in = s.stack - stack
        if put_in > 0:
            s.bet += put_in
            self.pot_total += put_in
        s.stack = stack
        action = msg.action
        kind = action.kind
        discards: int | None = None
        if kind == common_pb2.ACTION_KIND_FOLD:
            s.in_hand = False
        elif kind == common_pb2.ACTION_KIND_DISCARD:
            if action.cards:
                # the actor's own stream: the discards leave the hand (DrawTaken
                # adds the replacements; removing twice is harmless)
                s.own_cards = [c for c in s.own_cards if c not in action.cards]
                discards = len(action.cards)
        elif stack == 0 and s.in_hand:
            s.all_in = True
        if kind:  # kind 0: S10's all-in protection, no action applied (not recorded)
            self.actions.append(
                HandAction(
                    self.street,
                    seat,
                    kind,
                    s.bet,
                    put_in if put_in > 0 else 0,
                    s.all_in,
                    msg.timeout,
                    discards,
                )
            )
        if msg.pots:
            self.pots = list(msg.pots)
        if self.is_draw:  # D7: the draw count is public until now (stud has none)
            for other in self.seats.values():
                if other.seat != seat:
                    other.draw_count = None
        if self.turn is not None and seat == self.my_seat:
            self.turn = None
        self.to_act = None

    def _on_street_started(self, event: table_pb2.TableEvent) -> None:
        msg = event.street_started
        self.street = msg.street
        self.street_name = msg.name
        self.street_start = len(self.actions)
        if msg.street == 0:
            return  # the first street follows HandStarted: its blinds are this street's bets
        for s in self.seats.values():
            s.bet = 0

    def _on_your_turn(self, event: table_pb2.TableEvent) -> None:
        msg = event.your_turn
        self.turn = msg
        self.action_seq = msg.action_seq
        self.to_act = msg.legal.seat or self.my_seat
        if msg.legal.seat:  # the table's word on which seat is the viewer's
            self.my_seat = msg.legal.seat

    def _on_draw_taken(self, event: table_pb2.TableEvent) -> None:
        msg = event.draw_taken
        s = self.seat(msg.seat)
        s.draw_count = msg.count
        # The draw is the seat's action: the table tells it with DrawTaken alone
        # (the count public, D7); an ActionTaken DISCARD just before it is the same one.
        last = self.actions[-1] if self.actions else None
        if last is not None and last.seat == msg.seat and last.kind == _DISCARD:
            last.discards = msg.count
        else:
            self.actions.append(
                HandAction(self.street, msg.seat, _DISCARD, s.bet, 0, s.all_in, False, msg.count)
            )
        if msg.discarded:
            s.own_cards = [c for c in s.own_cards if c not in msg.discarded]
        if msg.received:
            s.own_cards.extend(c for c in msg.received if c not in s.own_cards)

    def _on_showdown(self, event: table_pb2.TableEvent) -> None:
        hands = list(event.showdown.hands)
        self.showdown = hands
        for shown in hands:
            s = self.seat(shown.seat)
            s.shown = list(shown.cards)

    def _on_hand_finished(self, event: table_pb2.TableEvent) -> None:
        msg = event.hand_finished
        for pb in msg.seats:
            s = self.seat(pb.seat)
            s.stack = pb.stack
            s.bet = 0
        self.hand_over = True
        self.hands_finished += 1
        self.turn = None
        self.to_act = None
        self.last_finish = msg

    def _on_seat_changed(self, event: table_pb2.TableEvent) -> None:
        msg = event.seat_changed
        if msg.left:
            self.seats.pop(msg.seat.seat, None)
            return
        old = self.seats.get(msg.seat.seat)
        new = SeatView.from_pb(msg.seat)
        if old is not None and not new.cards and not new.down_cards:
            # a stack or name change: keep the hand's cards
            new.upcards, new.own_cards = old.upcards, old.own_cards
            new.down_cards, new.shown = old.down_cards, old.shown
            new.in_hand = new.in_hand or old.in_hand
        self.seats[new.seat] = new

    def _on_rejected(self, event: table_pb2.TableEvent) -> None:
        self.last_rejection = event.action_rejected


_HANDLERS = {
    "snapshot": TableView._on_snapshot,
    "hand_started": TableView._on_hand_started,
    "cards_dealt": TableView._on_cards_dealt,
    "action_taken": TableView._on_action_taken,
    "street_started": TableView._on_street_started,
    "your_turn": TableView._on_your_turn,
    "draw_taken": TableView._on_draw_taken,
    "showdown": TableView._on_showdown,
    "hand_finished": TableView._on_hand_finished,
    "seat_changed": TableView._on_seat_changed,
    "action_rejected": TableView._on_rejected,
}
