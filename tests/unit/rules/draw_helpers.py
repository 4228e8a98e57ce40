"""Scripted 7-A decks and small drivers for the draw and Stud Hi-Lo rule scenarios
(stud decks, ``cards`` and ``play`` are those of ``helpers``).

Cards are written as people write them (``"As Kd 7c"``).  Players are indexes:
for draw, 0 is the first player left of the button (the button is the last index);
for stud, 0 is the first seat left of the dealer.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from poker_rules import (
    Action,
    Deck,
    DrawHand,
    Phase,
    short_deck,
)
from poker_rules.engine import BettingHand

from .helpers import cards, play

Cards = str | Sequence[str]


def _with_filler(order: list[int], full_deck: Iterable[int]) -> list[int]:
    used = set(order)
    return order + [c for c in full_deck if c not in used]


def draw_deck(
    hands: Sequence[Cards | None], after: Cards = "", *, with_sixes: bool = False
) -> Deck:
    """A preset 7-A deck: ``hands[i]`` are player i's five cards, dealt one at a time
    clockwise from index 0 (D4); ``after`` are the next cards in stub order (the burn
    first when the table burns, then the draws in draw order).  A ``None`` hand gets
    five cards nobody else holds (for players who will fold).  The rest of the
    32-card (36 with sixes) deck follows in a fixed order."""
    full = short_deck(with_sixes)
    named = {c for h in hands if h is not None for c in cards(h)} | set(cards(after))
    spare = [c for c in full if c not in named]
    dealt: list[list[int]] = []
    for h in hands:
        if h is None:
            dealt.append(spare[:5])
            del spare[:5]
        else:
            dealt.append(cards(h))
    assert all(len(h) == 5 for h in dealt), "each draw hand is five cards"
    order = [dealt[i][r] for r in range(5) for i in range(len(dealt))]
    order += cards(after)
    return Deck(_with_filler(order, full), preset=True)


def stand_pat_all(hand: DrawHand) -> None:
    """Every player still to draw stands pat."""
    while hand.phase is Phase.DRAWING:
        hand.act(Action.discard(()))


def check_down(hand: BettingHand) -> None:
    """Play the hand out passively: check when free, else call; stand pat on draws."""
    while not hand.is_over:
        legal = hand.legal_actions()
        if legal.max_discards is not None:
            hand.act(Action.discard(()))
        elif legal.bring_in_amount is not None:
            hand.act(Action.bring_in())
        elif legal.can_check:
            hand.act(Action.check())
        else:
            hand.act(Action.call())


def winnings(hand: BettingHand) -> dict[tuple[int, str], int]:
    """``{(player, half): chips}`` summed over every pot of the finished hand."""
    assert hand.result is not None
    out: dict[tuple[int, str], int] = {}
    for a in hand.result.awards:
        out[a.player, a.half] = out.get((a.player, a.half), 0) + a.amount
    return out


def pot_awards(hand: BettingHand) -> list[tuple[int, int, int, str]]:
    """Every award as ``(pot, player, amount, half)``, sorted."""
    assert hand.result is not None
    return sorted((a.pot, a.player, a.amount, a.half) for a in hand.result.awards)


__all__ = [
    "cards",
    "check_down",
    "draw_deck",
    "play",
    "pot_awards",
    "stand_pat_all",
    "winnings",
]
