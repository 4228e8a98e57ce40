"""Eight-or-better lows (Seven Card Stud Hi-Lo): H2 qualifier, H3 comparison.

A low only cares which *distinct* ranks of ace (low), 2, ..., 8 a hand holds: pairs
count once (H2: five different ranks), and suits, straights and flushes are ignored.
So the whole hand reduces to an 8-bit mask (bit 0 = ace, bit 1 = deuce, ..., bit 7 =
eight), and a 256-entry table gives the value.  The best low of a mask is its five
lowest ranks: comparing highest card first (H3) means a lower top card always wins,
so taking the lowest available ranks is never worse.

Low and high are scored independently (H4): this module never looks at the high hand.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations
from typing import Final

from ..cards import ACE, EIGHT, Card
from ._tables import check_hand
from .value import HandValue, LowCategory


def _low_bit(card: Card) -> int:
    """Bit of a card's rank in the low mask: ace -> 1, deuce -> 2, ..., eight -> 128."""
    rank = card >> 2
    if rank == ACE:
        return 1
    return 1 << (rank + 1) if rank <= EIGHT else 0


_LOW_BIT: Final = [_low_bit(c) for c in range(52)]


def _lowest_five(mask: int) -> int:
    """The five lowest ranks (bits) of a mask."""
    five = 0
    for bit in range(8):
        if mask >> bit & 1:
            five |= 1 << bit
            if five.bit_count() == 5:
                break
    return five


# H3: comparing sorted-descending rank lists highest card first is the same as
# comparing the 5-bit masks as integers (the highest differing rank decides), and a
# smaller mask is the better low.  Number the 56 lows 1 (8-7-6-5-4) .. 56 (the wheel).
_FIVES: Final = sorted(
    (sum(1 << b for b in bits) for bits in combinations(range(8), 5)), reverse=True
)
_VALUE_OF_FIVE: Final = {mask: value for value, mask in enumerate(_FIVES, start=1)}
_LOW_TABLE: Final[list[int | None]] = [
    _VALUE_OF_FIVE[_lowest_five(m)] if m.bit_count() >= 5 else None for m in range(256)
]

LOW_CLASSES: Final = len(_FIVES)
"""Number of distinct qualifying lows (56); the wheel's value."""


def low_rank(cards: Sequence[Card]) -> int | None:
    """Value of the best eight-or-better low of 5..7 cards, or None if none qualifies.

    Larger is better: the wheel A-2-3-4-5 is ``LOW_CLASSES`` (56), 8-7-6-5-4 is 1.
    The input is trusted: distinct card ints ``0..51``.
    """
    b = _LOW_BIT
    try:
        c0, c1, c2, c3, c4, c5, c6 = cards
    except ValueError:
        if not 5 <= len(cards) <= 7:
            raise ValueError(f"a hand to evaluate has 5 to 7 cards, got {len(cards)}") from None
        mask = 0
        for card in cards:
            mask |= b[card]
        return _LOW_TABLE[mask]
    return _LOW_TABLE[b[c0] | b[c1] | b[c2] | b[c3] | b[c4] | b[c5] | b[c6]]


def _category(top_rank: int) -> LowCategory:
    """Name a low by its highest card (rank index 6 = eight .. 3 = five: the wheel)."""
    return LowCategory(EIGHT - top_rank)


def evaluate_low(cards: Sequence[Card]) -> HandValue | None:
    """Score and name the best eight-or-better low of 5..7 cards (None: no low, H1).

    ``cards`` are the five cards used, highest first with the ace last
    (8-6-4-3-2, 5-4-3-2-A); of several cards of one rank, the lowest suit is listed.

    H2: five different ranks of eight or lower qualify, the ace playing low.

    >>> from poker_rules import parse_cards
    >>> print(evaluate_low(parse_cards("As 2d 3c 4h 8s Kd Kc")))
    eight low (8-4-3-2-A) [8s 4h 3c 2d As]
    >>> print(evaluate_low(parse_cards("As 2d 3c 9h Ts Kd Kc")))
    None
    """
    hand = check_hand(cards, frozenset(range(13)), range(5, 8))
    value = low_rank(hand)
    if value is None:
        return None
    mask = _FIVES[value - 1]
    by_bit: dict[int, Card] = {}
    for card in sorted(hand, reverse=True):  # the lowest suit of a rank wins
        bit = _LOW_BIT[card]
        if bit & mask:
            by_bit[bit] = card
    five = tuple(by_bit[1 << b] for b in range(7, -1, -1) if mask >> b & 1)
    return HandValue(value, _category(five[0] >> 2), five)
