"""Five Card Draw 7-A hands (D8), with or without the sixes (G1).

Ranks high to low: royal flush, straight flush, four of a kind, **flush, full house**
(a flush beats a full house: with eight or nine ranks it is the rarer hand), straight,
three of a kind, two pair, pair, high card.  The ace plays low only in the lowest
straight: A-7-8-9-T in the 32-card deck, A-6-7-8-9 when the sixes are in; that is
the lowest straight and, suited, the lowest straight flush.  With the sixes in,
A-7-8-9-T is therefore no straight (ace high), and 6-7-8-9-T beats A-6-7-8-9.

The same key-sum tables as the high evaluator (see ``_tables``), built for this
deck's ranks, straights and category order.  Values of the 32- and 36-card decks are
separate scales: a hand is always scored within the deck it was dealt from.
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
    RankTables,
    best_five,
    build_tables,
    check_fast_path_constants,
    check_hand,
    display_order,
    rank_any,
    short_deck_straights,
)
from .value import HandValue, ShortDeckCategory

_PLAIN: Final = build_tables(range(5, 13), short_deck_straights(False), ShortDeckCategory)
_SIXES: Final = build_tables(range(4, 13), short_deck_straights(True), ShortDeckCategory)
_FLUSH_SUIT5: Final = FLUSH_SUIT[5]
_FLUSH_SUIT7: Final = FLUSH_SUIT[7]
check_fast_path_constants()


def _tables(with_sixes: bool) -> RankTables:
    return _SIXES if with_sixes else _PLAIN


def short_deck_classes(with_sixes: bool = False) -> int:
    """Number of distinct 5-card 7-A hands: values run 1 .. this (the royal flush)."""
    return _tables(with_sixes).top


def short_deck_rank(cards: Sequence[Card], with_sixes: bool = False) -> int:
    """Value of the best five of 5..7 cards of the 7-A deck (larger better, equal ties).

    ``with_sixes``: the 36-card deck of five-handed games (G1).  Five cards (the draw
    showdown) and seven cards take unrolled paths.  The input is trusted to be
    distinct cards; a card below the deck's lowest rank raises ``ValueError``.
    """
    tables = _SIXES if with_sixes else _PLAIN
    k = CARD_KEYS
    n = len(cards)
    if n == 7:
        a, b, c, d, e, f, g = cards
        key = FIRST_KEYS[a] + k[b] + k[c] + k[d] + k[e] + k[f] + k[g]
        # Literals as in high_rank: 255 = SUIT_MASK, 20 = SUIT_BITS + ROW_BITS,
        # 8 = SUIT_BITS, 4095 = ROW_MASK.
        suit = _FLUSH_SUIT7[key & 255]
        if suit:
            bit = FLUSH_BITS[suit]
            value = tables.flush[bit[a] | bit[b] | bit[c] | bit[d] | bit[e] | bit[f] | bit[g]]
        else:
            value = tables.packed7[ROW_OFFSETS[key >> 20] + (key >> 8 & 4095)]
    elif n == 5:  # the draw showdown
        a, b, c, d, e = cards
        key = FIRST_KEYS[a] + k[b] + k[c] + k[d] + k[e]
        suit = _FLUSH_SUIT5[key & 255]
        if suit:
            bit = FLUSH_BITS[suit]
            value = tables.flush[bit[a] | bit[b] | bit[c] | bit[d] | bit[e]]
        else:
            value = tables.nonflush[5].get(key >> 8, 0)
    else:
        return rank_any(cards, tables)
    if value:  # 0: a card outside this deck
        return value
    raise ValueError(f"not a hand of distinct cards of this deck: {list(cards)}")


def short_deck_category_of(value: int, with_sixes: bool = False) -> ShortDeckCategory:
    """Category of a ``short_deck_rank`` value of the same deck."""
    category = _tables(with_sixes).category_of(value)
    assert isinstance(category, ShortDeckCategory)  # type narrowing: these tables hold no other
    return category


def evaluate_short_deck(cards: Sequence[Card], with_sixes: bool = False) -> HandValue:
    """Score and name a 5..7-card 7-A hand; validates that every card is in the deck.

    ``.value`` equals ``short_deck_rank(cards, with_sixes)``; ``.cards`` are the five
    used, best-first (the low-ace straight is listed T-9-8-7-A / 9-8-7-6-A).

    D8: in 7-A a flush beats a full house.

    >>> from poker_rules import parse_cards
    >>> flush = evaluate_short_deck(parse_cards("As Ks Qs Js 9s"))
    >>> full = evaluate_short_deck(parse_cards("Ah Ad Ac Kd Ks"))
    >>> str(flush), flush.value > full.value
    ('flush, ace high [As Ks Qs Js 9s]', True)
    """
    tables = _tables(with_sixes)
    hand = check_hand(cards, tables.ranks, range(5, 8))
    value = short_deck_rank(hand, with_sixes)
    five = best_five(hand, lambda h: short_deck_rank(h, with_sixes), value)
    return HandValue(
        value, short_deck_category_of(value, with_sixes), display_order(five, tables.straights)
    )
