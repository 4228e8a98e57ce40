"""Standard high hands (Seven Card Stud, the high half of Stud Hi-Lo): G3, S, H1.

``high_rank`` is the hot path of every showdown and of equity simulations: a 7-card
hand is scored with seven list lookups, six additions, one 256-entry list lookup for
flushes and two list lookups in a packed table (see ``_tables`` for why the key sum
works and why the table is a packed list rather than a dict).  It trusts its input:
distinct card ints in ``0..51``.  ``evaluate_high`` validates, and also
says what the hand is and which five cards make it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from ..cards import Card
from ._tables import (
    CARD_KEYS,
    FIRST_KEYS,
    FLUSH_BITS,
    FLUSH_SUIT,
    ROW_OFFSETS,
    best_five,
    build_tables,
    check_fast_path_constants,
    check_hand,
    display_order,
    rank_any,
    standard_straights,
)
from .value import HandCategory, HandValue

_TABLES: Final = build_tables(range(13), standard_straights(), HandCategory)

HIGH_CLASSES: Final = _TABLES.top
"""Number of distinct 5-card high hands (7462): values run 1 (7-5-4-3-2) .. 7462 (royal)."""

_K0: Final = FIRST_KEYS
_K: Final = CARD_KEYS
_FLUSH_SUIT7: Final = FLUSH_SUIT[7]
_ROWS: Final = ROW_OFFSETS
_PACKED7: Final = _TABLES.packed7
_FLUSH: Final = _TABLES.flush
_FLUSH_BITS: Final = FLUSH_BITS
check_fast_path_constants()


def high_rank(cards: Sequence[Card]) -> int:
    """Value of the best five cards among 5, 6 or 7 (larger is better, equal ties).

    Seven cards (the stud showdown) take the unrolled path below; five or six take
    the general loop.  The input is trusted: distinct card ints ``0..51``.
    """
    k = _K
    try:
        a, b, c, d, e, f, g = cards
    except ValueError:
        return rank_any(cards, _TABLES)
    key = _K0[a] + k[b] + k[c] + k[d] + k[e] + k[f] + k[g]
    # Literals, not the named constants, keep this line free of global lookups:
    # 255 = SUIT_MASK, 20 = SUIT_BITS + ROW_BITS, 8 = SUIT_BITS, 4095 = ROW_MASK.
    suit = _FLUSH_SUIT7[key & 255]
    if suit:  # ~3% of hands: OR the flush suit's rank bits, look the bitmask up
        bit = _FLUSH_BITS[suit]
        return _FLUSH[bit[a] | bit[b] | bit[c] | bit[d] | bit[e] | bit[f] | bit[g]]
    return _PACKED7[_ROWS[key >> 20] + (key >> 8 & 4095)]


def category_of(value: int) -> HandCategory:
    """Category of a ``high_rank`` value (e.g. ``HandCategory.FULL_HOUSE``)."""
    category = _TABLES.category_of(value)
    assert isinstance(category, HandCategory)  # type narrowing: the high tables hold no other
    return category


def evaluate_high(cards: Sequence[Card]) -> HandValue:
    """Score and name a 5-, 6- or 7-card high hand (G3: best five cards).

    Slower than ``high_rank`` (it finds the five cards used), but validates its input
    and returns the category and the five cards, best-first.  ``.value`` equals
    ``high_rank(cards)``.

    >>> from poker_rules import parse_cards
    >>> hand = evaluate_high(parse_cards("As Ad Ks Kd 2c 7h 9s"))
    >>> hand.category.name, str(hand)
    ('TWO_PAIR', 'two pair, aces and kings [As Ad Ks Kd 9s]')
    """
    hand = check_hand(cards, _TABLES.ranks, range(5, 8))
    value = high_rank(hand)
    five = best_five(hand, high_rank, value)
    return HandValue(value, category_of(value), display_order(five, _TABLES.straights))
