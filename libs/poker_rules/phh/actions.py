"""The event log of a hand as PHH actions, each with the comment that names its
street.

PHH orders some things differently from the event log (dealing grouped per player
and street, every discard of the draw before the new cards, the hands shown as
soon as betting is closed by all-ins), so the log is replayed here with just
enough chip tracking (``_Table``) to know when that is.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..actions import Action, ActionKind
from ..cards import cards_str
from ..draw import DrawHand
from ..events import (
    Act,
    Ante,
    Blind,
    Community,
    DeadBlind,
    Deal,
    Draw,
    Event,
    Muck,
    NewStreet,
    Reshuffle,
    Show,
    Timeout,
)
from ..stud import STREET_NAMES, StudHand

_DRAW_STREET_NAMES = ("before the draw", "after the draw")


def _action_str(player: int, action: Action) -> str:
    p = f"p{player + 1}"
    kind = action.kind
    if kind is ActionKind.BRING_IN:
        return f"{p} pb"
    if kind is ActionKind.FOLD:
        return f"{p} f"
    if kind in (ActionKind.CHECK, ActionKind.CALL):
        return f"{p} cc"
    if kind is ActionKind.DISCARD:
        return f"{p} sd {cards_str(action.cards)}" if action.cards else f"{p} sd"
    return f"{p} cbr {action.amount}"  # BET, RAISE, COMPLETE: a *to* amount


def _street_name(hand: StudHand | DrawHand, street: int) -> str:
    if isinstance(hand, StudHand):
        return f"{STREET_NAMES[street]} street"
    return _DRAW_STREET_NAMES[street]


def annotated_actions(hand: StudHand | DrawHand) -> list[tuple[str, str]]:
    """``(toml_comment, action)`` pairs; the comment ('' for none) names the street.

    Dealing is grouped per player and street, as PHH writes it.  In the draw our
    engine serves each player right after their discard (D6); PHH (and PokerKit)
    take every discard first and then the new cards, so the draw is written that
    way, in draw order, with any reshuffle noted where it happened.
    """
    out: list[tuple[str, str]] = []
    table = _Table(hand.starting_stacks)
    held: list[list[int]] = [[] for _ in range(hand.n)]  # stud: cards dealt so far
    shown_all_in = False
    is_draw = isinstance(hand, DrawHand)
    current_section = _street_name(hand, 0)
    pending_comment = current_section
    dealt: dict[int, list[int]] = {}  # player -> cards, in first-dealt order
    draw_deals: list[str] = []  # new cards of the draw, written after all discards
    timed_out = False

    def section(name: str) -> None:
        """Draw hands log no ``street`` events: name a section when it starts."""
        nonlocal pending_comment, current_section
        if current_section != name:
            current_section = name
            pending_comment = name

    def emit(action: str) -> None:
        nonlocal pending_comment
        out.append((pending_comment, action))
        pending_comment = ""

    def flush_deals() -> None:
        for player, cards in dealt.items():
            emit(f"d dh p{player + 1} {cards_str(cards)}")
        dealt.clear()

    def flush_draw() -> None:
        for line in draw_deals:
            emit(line)
        draw_deals.clear()

    for e in hand.events:
        table.apply(e)
        if isinstance(e, Deal):
            dealt.setdefault(e.player, []).extend(e.cards)
            held[e.player].extend(e.cards)
            continue
        if isinstance(e, Timeout) and not e.all_in_protection:
            # The forced action follows as its own event and is written with a
            # comment; the timeout writes nothing, so it must not flush either: in
            # the draw it comes between two discards, and flushing there wrote the
            # earlier drawers' new cards before the timed-out player's ``sd``.
            timed_out = True
            continue
        flush_deals()
        if not isinstance(e, Draw | Reshuffle):
            flush_draw()
        match e:
            case NewStreet():
                if not shown_all_in and table.betting_closed():
                    # PHH (and PokerKit) turn the hands up as soon as the players are
                    # all-in, before the remaining streets are dealt (S12: all show).
                    shown_all_in = True
                    for i in table.alive():
                        emit(f"p{i + 1} sm {cards_str(held[i])} # all-in (S12)")
                pending_comment = _street_name(hand, e.street)
            case Act():
                if is_draw and e.street == 1:
                    section("after the draw")
                text = _action_str(e.player, e.action)
                if timed_out:
                    text += " # timeout (S10)"
                    timed_out = False
                emit(text)
            case Timeout():  # all-in protection (the others are handled above)
                emit(
                    f"# p{e.player + 1} timeout: all-in protection (S10), plays on for "
                    "the chips already committed"
                )
            case Draw():
                section("the draw")
                text = _action_str(e.player, Action(ActionKind.DISCARD, 0, e.discarded))
                if timed_out:
                    text += " # timeout (S10): stands pat"
                    timed_out = False
                emit(text)
                if e.received:
                    draw_deals.append(f"d dh p{e.player + 1} {cards_str(e.received)}")
            case Reshuffle():
                note = {
                    "river": "stub and burns reshuffled for seventh street (S11)",
                    "stub_first": "stub served, last card reshuffled with the burns (S11)",
                    "draw": "stub, burns and earlier discards reshuffled for the draw (D6)",
                }.get(e.reason, e.reason)
                line = f"# reshuffle: {note}"
                if draw_deals:
                    draw_deals.append(line)
                else:
                    emit(line)
            case Community():
                emit(f"d db {cards_str(e.cards)} # community card, every player's seventh (S11)")
            case Show():
                emit(f"p{e.player + 1} sm {cards_str(e.cards)}")
            case Muck():
                emit(f"p{e.player + 1} sm # mucks a beaten hand (S12)")
            # Ante, Blind, DeadBlind, Burn, Uncalled, Win: implied by the fields (PHH
            # automates antes, blinds, burns, uncalled bets and the pot); see
            # finishing_stacks.
    flush_deals()
    flush_draw()
    return out


class _Table:
    """Just enough chip tracking over the event log to know who is all-in.

    PHH shows the hands when betting is closed by all-ins (before the rest is
    dealt), a moment the event log does not mark; it follows from the stacks.
    """

    __slots__ = ("all_in", "bets", "folded", "stacks", "street")

    def __init__(self, stacks: Sequence[int]) -> None:
        n = len(stacks)
        self.stacks = list(stacks)
        self.bets = [0] * n
        self.folded = [False] * n
        self.all_in = [False] * n
        self.street = 0

    def _put(self, i: int, amount: int, *, live: bool = True) -> None:
        amount = min(amount, self.stacks[i])
        self.stacks[i] -= amount
        if live:
            self.bets[i] += amount
        if self.stacks[i] == 0:
            self.all_in[i] = True

    def apply(self, e: Event) -> None:
        match e:
            case Ante() | DeadBlind():
                self._put(e.player, e.amount, live=False)
            case Blind():
                self._put(e.player, e.amount)
            case Timeout(all_in_protection=True):
                self.all_in[e.player] = True
            case Act():
                if e.street != self.street:
                    self.street = e.street
                    self.bets = [0] * len(self.bets)
                i, action = e.player, e.action
                k = action.kind
                if k is ActionKind.FOLD:
                    self.folded[i] = True
                elif k is ActionKind.CALL:
                    self._put(i, max(self.bets) - self.bets[i])
                elif k is ActionKind.BRING_IN:
                    self._put(i, e.amount)
                elif k in (ActionKind.BET, ActionKind.RAISE, ActionKind.COMPLETE):
                    self._put(i, action.amount - self.bets[i])

    def alive(self) -> list[int]:
        return [i for i, f in enumerate(self.folded) if not f]

    def betting_closed(self) -> bool:
        """Two or more players left and at most one of them can still bet."""
        alive = self.alive()
        return len(alive) >= 2 and sum(1 for i in alive if not self.all_in[i]) <= 1
