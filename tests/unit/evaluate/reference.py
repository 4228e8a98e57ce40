"""Brute-force reference evaluators: slow, written straight from the rule book.

Each 5-card function returns a tuple that compares like the hands do: first a
category number (the position of the category in the game's list, weakest first),
then the ranks that break ties.  Ranks are rank indexes (0 = deuce .. 12 = ace) for
high hands and counting values (ace = 1, deuce = 2 .. eight = 8) for lows.  Larger
tuples are better for high and 7-A; for lows a *smaller* tuple is the better low.
Nothing here shares code or tables with the library under test.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from functools import cache
from itertools import combinations

ACE = 12

HIGH_CATEGORIES = (
    "HIGH_CARD",
    "PAIR",
    "TWO_PAIR",
    "THREE_OF_A_KIND",
    "STRAIGHT",
    "FLUSH",
    "FULL_HOUSE",
    "FOUR_OF_A_KIND",
    "STRAIGHT_FLUSH",
)
"""G3 / standard poker, weakest first."""

SHORT_DECK_CATEGORIES = (
    "HIGH_CARD",
    "PAIR",
    "TWO_PAIR",
    "THREE_OF_A_KIND",
    "STRAIGHT",
    "FULL_HOUSE",
    "FLUSH",
    "FOUR_OF_A_KIND",
    "STRAIGHT_FLUSH",
)
"""D8, weakest first: a flush beats a full house."""

RefKey = tuple[int, ...]


def _groups(ranks: Sequence[int]) -> tuple[list[int], list[int]]:
    """(group sizes, ranks) ordered bigger group first, then higher rank first."""
    ordered = sorted(Counter(ranks).items(), key=lambda rc: (rc[1], rc[0]), reverse=True)
    return [n for _, n in ordered], [r for r, _ in ordered]


def _straight_top(ranks: Sequence[int], lowest_rank: int) -> int | None:
    """Top rank of a straight (the low ace plays below ``lowest_rank``), else None."""
    distinct = sorted(set(ranks), reverse=True)
    if len(distinct) != 5:
        return None
    if distinct[0] - distinct[4] == 4:
        return distinct[0]
    if distinct == [ACE, lowest_rank + 3, lowest_rank + 2, lowest_rank + 1, lowest_rank]:
        return lowest_rank + 3  # A-2-3-4-5 is five high; A-7-8-9-T ten high
    return None


def _five_card_key(cards: Sequence[int], names: Sequence[str], lowest_rank: int) -> RefKey:
    assert len(cards) == 5 and len(set(cards)) == 5
    ranks = tuple(sorted((c >> 2 for c in cards), reverse=True))
    is_flush = len({c & 3 for c in cards}) == 1
    return _key_of(ranks, is_flush, tuple(names), lowest_rank)


@cache  # only 7462 (ranks, flush) classes exist: remember them, the big loops repeat them
def _key_of(
    ranks: tuple[int, ...], is_flush: bool, names: tuple[str, ...], lowest_rank: int
) -> RefKey:
    """Category rules, strongest first: the first that matches is the hand."""
    top = _straight_top(ranks, lowest_rank)
    shape, order = _groups(ranks)
    tiebreak: Sequence[int]
    if top is not None and is_flush:
        name, tiebreak = "STRAIGHT_FLUSH", [top]
    elif shape == [4, 1]:
        name, tiebreak = "FOUR_OF_A_KIND", order
    elif shape == [3, 2]:
        name, tiebreak = "FULL_HOUSE", order
    elif is_flush:
        name, tiebreak = "FLUSH", ranks
    elif top is not None:
        name, tiebreak = "STRAIGHT", [top]
    elif shape == [3, 1, 1]:
        name, tiebreak = "THREE_OF_A_KIND", order
    elif shape == [2, 2, 1]:
        name, tiebreak = "TWO_PAIR", order
    elif shape == [2, 1, 1, 1]:
        name, tiebreak = "PAIR", order
    else:
        name, tiebreak = "HIGH_CARD", ranks
    return (names.index(name), *tiebreak)


def ref_high5(cards: Sequence[int]) -> RefKey:
    """Standard high hand of exactly five cards."""
    return _five_card_key(cards, HIGH_CATEGORIES, lowest_rank=0)


def ref_short_deck5(cards: Sequence[int], with_sixes: bool = False) -> RefKey:
    """7-A hand (D8) of exactly five cards of the 32- or 36-card deck."""
    lowest = 4 if with_sixes else 5
    assert all(c >> 2 >= lowest for c in cards)
    return _five_card_key(cards, SHORT_DECK_CATEGORIES, lowest_rank=lowest)


def ref_high(cards: Sequence[int]) -> RefKey:
    """Best five of 5..7 cards (G3)."""
    return max(ref_high5(five) for five in combinations(cards, 5))


def best_high_five(cards: Sequence[int]) -> tuple[int, ...]:
    """Some five cards achieving ``ref_high(cards)``."""
    return max(combinations(cards, 5), key=ref_high5)


def ref_short_deck(cards: Sequence[int], with_sixes: bool = False) -> RefKey:
    """Best five of 5..7 cards of the 7-A deck (D8)."""
    return max(ref_short_deck5(five, with_sixes) for five in combinations(cards, 5))


def ref_low5(cards: Sequence[int]) -> RefKey | None:
    """Eight-or-better low of exactly five cards: None unless H2 qualifies.

    Returns the counting values high to low (ace = 1); smaller is better (H3).
    """
    assert len(cards) == 5 and len(set(cards)) == 5
    values = [1 if c >> 2 == ACE else (c >> 2) + 2 for c in cards]
    if len(set(values)) != 5 or max(values) > 8:
        return None
    return tuple(sorted(values, reverse=True))


def ref_low(cards: Sequence[int]) -> RefKey | None:
    """Best (smallest) qualifying low among the 5-card subsets, or None."""
    lows = [low for five in combinations(cards, 5) if (low := ref_low5(five)) is not None]
    return min(lows) if lows else None
