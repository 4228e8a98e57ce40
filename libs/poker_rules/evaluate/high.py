"""Standard high hands (Seven Card Stud, the high half of Stud Hi-Lo): G3, S, H1.

``high_rank`` is the hot path of every showdown and of equity simulations: a 7-card
hand is scored with seven list lookups, six additions, one 256-entry list lookup for
flushes and one dict lookup (see ``_tables`` for why the key sum works).  It trusts
its input: distinct card ints in ``0..51``.  ``evaluate_high`` validates, and also
says what the hand is and which five cards make it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from ..cards import Card
from ._tables import (
    CARD_KEYS,
    FIRST_KEYS,
    FLUSH_SUIT,
    SUIT_BITS,
    SUIT_MASK,
    best_five,
    build_tables,
    check_hand,
    display_order,
    flush_value,
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
_NONFLUSH7: Final = _TABLES.nonflush[7]
_FLUSH: Final = _TABLES.flush


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
    suit = _FLUSH_SUIT7[key & SUIT_MASK]
    if suit:
        return flush_value(cards, suit, _FLUSH)
    try:
        return _NONFLUSH7[key >> SUIT_BITS]
    except KeyError:
        raise ValueError(f"not a hand of distinct cards: {list(cards)}") from None


def category_of(value: int) -> HandCategory:
    """Category of a ``high_rank`` value (e.g. ``HandCategory.FULL_HOUSE``)."""
    category = _TABLES.category_of(value)
    assert isinstance(category, HandCategory)
    return category


def evaluate_high(cards: Sequence[Card]) -> HandValue:
    """Score and name a 5-, 6- or 7-card high hand (G3: best five cards).

    Slower than ``high_rank`` (it finds the five cards used), but validates its input
    and returns the category and the five cards, best-first.  ``.value`` equals
    ``high_rank(cards)``.
    """
    hand = check_hand(cards, _TABLES.ranks, range(5, 8))
    value = high_rank(hand)
    five = best_five(hand, high_rank, value)
    return HandValue(value, category_of(value), display_order(five, _TABLES.straights))
