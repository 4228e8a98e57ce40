"""What an evaluator says about a hand: its value, its category and the five cards used.

Every evaluator in this package follows one convention, so that showdown code never
needs to know which game it is scoring: **a larger ``value`` is a better hand, values
order hands totally, and equal values are a tie** (G3: identical hands split).  The
fast ``*_rank`` functions return only that int; the ``evaluate_*`` functions return a
:class:`HandValue` that also names the hand for people and hand histories.

Values of different games (high, eight-or-better low, 7-A with or without the sixes)
live on different scales and must never be compared with each other.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from enum import IntEnum

from ..cards import ACE, Card, card_str


class HandCategory(IntEnum):
    """Standard high-hand categories (Seven Card Stud, G3), weakest first.

    A royal flush is not a category of its own: it is the ace-high straight flush,
    the top of ``STRAIGHT_FLUSH`` (``HandValue.is_royal_flush`` tells it apart).
    """

    HIGH_CARD = 0
    PAIR = 1
    TWO_PAIR = 2
    THREE_OF_A_KIND = 3
    STRAIGHT = 4
    FLUSH = 5
    FULL_HOUSE = 6
    FOUR_OF_A_KIND = 7
    STRAIGHT_FLUSH = 8


class ShortDeckCategory(IntEnum):
    """Five Card Draw 7-A categories (D8), weakest first.

    Same names as :class:`HandCategory`, but a **flush beats a full house**: with only
    eight (or nine) ranks a flush is the rarer hand.  The royal flush is again the top
    of ``STRAIGHT_FLUSH``.
    """

    HIGH_CARD = 0
    PAIR = 1
    TWO_PAIR = 2
    THREE_OF_A_KIND = 3
    STRAIGHT = 4
    FULL_HOUSE = 5
    FLUSH = 6
    FOUR_OF_A_KIND = 7
    STRAIGHT_FLUSH = 8


class LowCategory(IntEnum):
    """Eight-or-better lows (H2), named by their highest card, weakest first.

    Players call a low by its top card ("an eight low", "a seven low"); the best one,
    A-2-3-4-5, is the wheel (H2).
    """

    EIGHT_LOW = 0
    SEVEN_LOW = 1
    SIX_LOW = 2
    WHEEL = 3


Category = HandCategory | ShortDeckCategory | LowCategory
"""Any evaluator's category; which enum tells which game scored the hand."""

RANK_NAMES = (
    "deuce",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "jack",
    "queen",
    "king",
    "ace",
)
RANK_PLURALS = (
    "deuces",
    "threes",
    "fours",
    "fives",
    "sixes",
    "sevens",
    "eights",
    "nines",
    "tens",
    "jacks",
    "queens",
    "kings",
    "aces",
)


@dataclass(frozen=True)
class HandValue:
    """A scored hand.

    ``value``: larger is better within one game; equal values tie (split the pot).
    ``category``: the hand's category in that game's enum.
    ``cards``: the five cards that make the hand, **best-first in the order people
    say it**: groups before kickers (K-K-K-7-7, 9-9-A-Q-4), straights from the top
    (with the low ace last: 5-4-3-2-A), lows from the highest card (8-6-4-3-2).

    Compare hands with ``value``, never with ``==`` on the whole object: two tied
    hands usually hold different cards.
    """

    value: int
    category: Category
    cards: tuple[Card, ...]

    @property
    def is_royal_flush(self) -> bool:
        """The ace-high straight flush (top of ``STRAIGHT_FLUSH`` in high and 7-A)."""
        return (
            not isinstance(self.category, LowCategory)
            and self.category.name == "STRAIGHT_FLUSH"
            and self.cards[0] >> 2 == ACE  # a low-ace straight lists its ace last
        )

    def describe(self) -> str:
        """A poker name of the hand, e.g. ``"full house, kings full of sevens"``."""
        ranks = [c >> 2 for c in self.cards]
        if isinstance(self.category, LowCategory):
            text = "-".join("A" if r == ACE else str(r + 2) for r in ranks)
            if self.category is LowCategory.WHEEL:
                return f"wheel ({text})"
            return f"{RANK_NAMES[ranks[0]]} low ({text})"
        top = RANK_NAMES[ranks[0]]
        name = self.category.name
        if name == "STRAIGHT_FLUSH":
            return "royal flush" if self.is_royal_flush else f"straight flush, {top} high"
        if name == "STRAIGHT":
            return f"straight, {top} high"
        if name == "FLUSH":
            return f"flush, {top} high"
        if name == "HIGH_CARD":
            return f"high card, {top}"
        groups = [r for r, _ in Counter(ranks).most_common()]  # cards are groups-first
        if name == "FOUR_OF_A_KIND":
            return f"four of a kind, {RANK_PLURALS[groups[0]]}"
        if name == "FULL_HOUSE":
            return f"full house, {RANK_PLURALS[groups[0]]} full of {RANK_PLURALS[groups[1]]}"
        if name == "THREE_OF_A_KIND":
            return f"three of a kind, {RANK_PLURALS[groups[0]]}"
        if name == "TWO_PAIR":
            return f"two pair, {RANK_PLURALS[groups[0]]} and {RANK_PLURALS[groups[1]]}"
        return f"pair of {RANK_PLURALS[groups[0]]}"

    def __str__(self) -> str:
        return f"{self.describe()} [{' '.join(card_str(c) for c in self.cards)}]"
