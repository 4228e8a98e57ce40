"""Key-sum lookup tables shared by the high (Stud) and 7-A (Draw) evaluators.

How a hand is scored in a handful of integer operations
--------------------------------------------------------
Each card has an integer key ``(RANK_KEYS[rank] << 8) + SUIT_KEYS[suit]``.  Adding the
keys of a hand's cards gives one int whose two parts answer the two questions a high
hand asks:

* **Bits 8 and up: the rank multiset.**  ``RANK_KEYS`` are chosen (greedily, smallest
  first) so that any multiset of up to seven ranks with at most four of each has its
  own sum among multisets of the same size.  Suits do not matter for anything but a
  flush, so this sum alone identifies the best non-flush hand: one dict lookup.
* **Bits 0-7: the suit counts, squeezed.**  ``SUIT_KEYS = (0, 1, 24, 33)`` were found
  by search: their sum (at most ``7 * 33 = 231``, so eight bits) still tells, for 5, 6
  and 7 cards, whether some suit has five or more cards and which one (no keys do it
  in seven bits, and no eight-bit keys make a flush one bit test).  One small
  list lookup detects the (rare: ~3% of 7-card hands) flush; only then do we look at
  the suits of the individual cards and index a table by the flush suit's rank bitmask.
  A flush can be read this way because with seven cards a flush rules out quads and
  full houses, so the best flush (or straight flush) is the hand.

Why these exact widths: CPython adds ints below 2**30 in magnitude ("medium" ints)
on a fast path, and the 7-card loop spends most of its time adding.  The largest
7-rank sum is ``4*1479181 + 3*636345 = 7_825_759 < 2**23``; shifted by the 8 suit
bits that is just under ``2**31``, so the first card's key also carries ``-BIAS << 8``
(``FIRST_KEYS``), centring every partial and final sum inside ``(-2**30, 2**30)``.
``key >> 8`` is then ``rank_sum - BIAS`` and ``key & 255`` the suit sum (Python's
shifts and masks act on negative ints as two's complement, so this is exact).

Values are dense: the weakest 5-card class of a game gets 1, the strongest gets the
number of classes (7462 for standard high), so values total-order hands and equal
values tie (``value.py``).
"""

from __future__ import annotations

from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import combinations, combinations_with_replacement, product, repeat
from operator import sub
from typing import Final

from ..cards import Card
from .value import HandCategory, ShortDeckCategory

RANK_KEYS: Final = (0, 1, 5, 22, 98, 453, 2031, 8698, 22854, 83661, 262349, 636345, 1479181)
"""Deuce..ace: every multiset (<= 4 of a rank) of a given size 1..7 has its own sum."""

SUIT_KEYS: Final = (0, 1, 24, 33)
"""Clubs, diamonds, hearts, spades: the suit sum of 5..7 cards tells the flush suit."""

SUIT_BITS: Final = 8
SUIT_MASK: Final = (1 << SUIT_BITS) - 1
BIAS: Final = (1 << 22) - 1
"""Subtracted from the rank sum (via the first card) to keep every sum a medium int."""

CARD_KEYS: Final[list[int]] = [
    (RANK_KEYS[c >> 2] << SUIT_BITS) + SUIT_KEYS[c & 3] for c in range(52)
]
"""Per-card key, indexed by card int."""

FIRST_KEYS: Final[list[int]] = [k - (BIAS << SUIT_BITS) for k in CARD_KEYS]
"""Key of the first card of a hand: ``CARD_KEYS`` with the bias folded in."""


def _flush_suit_table(n_cards: int) -> list[int]:
    """Suit sum of ``n_cards`` cards -> flush suit + 1 (0: no suit has five cards)."""
    table = [0] * (SUIT_MASK + 1)
    seen: dict[int, int] = {}
    for counts in product(range(n_cards + 1), repeat=4):
        if sum(counts) != n_cards:
            continue
        total = sum(n * key for n, key in zip(counts, SUIT_KEYS, strict=True))
        flush = next((s + 1 for s, n in enumerate(counts) if n >= 5), 0)
        if seen.setdefault(total, flush) != flush:  # the keys were chosen so this holds
            raise AssertionError(f"suit keys cannot tell flushes of {n_cards} cards apart")
        table[total] = flush
    return table


FLUSH_SUIT: Final[dict[int, list[int]]] = {n: _flush_suit_table(n) for n in (5, 6, 7)}
"""Cards in hand -> (suit sum -> flush suit + 1, or 0)."""

Straight = tuple[int, int, int, int, int]
"""A straight's rank indexes from the top card down (a low ace comes last)."""


def standard_straights() -> tuple[Straight, ...]:
    """Straights of the 52-card deck, weakest first: the wheel 5-4-3-2-A up to A-K-Q-J-T."""
    wheel: Straight = (3, 2, 1, 0, 12)
    return (wheel, *((i + 4, i + 3, i + 2, i + 1, i) for i in range(9)))


def short_deck_straights(with_sixes: bool) -> tuple[Straight, ...]:
    """Straights of the 7-A deck (D8), weakest first.

    The ace plays low only below the deck's lowest rank: T-9-8-7-A (32 cards) or
    9-8-7-6-A (36 cards, sixes in).  So with the sixes in, A-7-8-9-T is *not* a
    straight, and 6-7-8-9-T is one that beats A-6-7-8-9.
    """
    low = 4 if with_sixes else 5  # rank index of the six or the seven
    low_ace: Straight = (low + 3, low + 2, low + 1, low, 12)
    return (low_ace, *((i + 4, i + 3, i + 2, i + 1, i) for i in range(low, 9)))


@dataclass(frozen=True, slots=True)
class RankTables:
    """Everything a key-sum evaluator of one game needs.

    ``nonflush[n]``: for hands of ``n`` cards, ``key >> 8`` (rank sum minus BIAS) ->
    value of the best five cards ignoring suits.  ``flush``: rank bitmask (bit r for
    rank index r) of the flush suit's cards -> value of the best flush or straight
    flush among them (0 where fewer than five ranks).  ``floors``: lowest value of
    each category, in category order.
    """

    nonflush: dict[int, dict[int, int]]
    flush: list[int]
    floors: tuple[int, ...]
    categories: tuple[HandCategory | ShortDeckCategory, ...]
    straights: tuple[Straight, ...]
    ranks: frozenset[int]
    top: int
    """The best value of this game (the royal flush) = the number of 5-card classes."""

    def category_of(self, value: int) -> HandCategory | ShortDeckCategory:
        """The category of a value of this game."""
        if not 1 <= value <= self.top:
            raise ValueError(f"not a hand value of this game: {value}")
        return self.categories[bisect_right(self.floors, value) - 1]


_SHAPES: Final = {
    (4, 1): "FOUR_OF_A_KIND",
    (3, 2): "FULL_HOUSE",
    (3, 1, 1): "THREE_OF_A_KIND",
    (2, 2, 1): "TWO_PAIR",
    (2, 1, 1, 1): "PAIR",
}


def build_tables(
    ranks: Sequence[int],
    straights: tuple[Straight, ...],
    categories: type[HandCategory] | type[ShortDeckCategory],
) -> RankTables:
    """Score every 5-card class of a game, then extend to 6 and 7 cards.

    A class is a rank multiset (non-flush) or a set of five ranks in one suit.  The
    classes are sorted by (category strength in this game's enum, tie-break ranks)
    and numbered from 1.  A 6- or 7-card hand is worth the best of the hands left by
    removing one card, so its table entry is a max over the smaller table: no
    21-way combination loop at import.
    """
    straight_order = {frozenset(s): i for i, s in enumerate(straights)}
    classes: list[tuple[tuple[int, tuple[int, ...]], bool, int]] = []
    for combo in combinations_with_replacement(ranks, 5):
        counts = Counter(combo)
        if max(counts.values()) > 4:
            continue
        # Tie-break: groups first (bigger, then higher), then kickers high to low.
        order = tuple(sorted(counts, key=lambda r: (counts[r], r), reverse=True))
        rank_sum = sum(RANK_KEYS[r] for r in combo)
        if len(counts) == 5:
            mask = sum(1 << r for r in combo)
            height = straight_order.get(frozenset(combo))
            if height is None:
                classes.append(((categories["HIGH_CARD"], order), False, rank_sum))
                classes.append(((categories["FLUSH"], order), True, mask))
            else:
                classes.append(((categories["STRAIGHT"], (height,)), False, rank_sum))
                classes.append(((categories["STRAIGHT_FLUSH"], (height,)), True, mask))
        else:
            shape = tuple(sorted(counts.values(), reverse=True))
            classes.append(((categories[_SHAPES[shape]], order), False, rank_sum))
    classes.sort()

    nonflush5: dict[int, int] = {}
    flush = [0] * (1 << 13)
    floors: dict[int, int] = {}
    for value, ((category, _), is_flush, key) in enumerate(classes, start=1):
        floors.setdefault(category, value)
        if is_flush:
            flush[key] = value
        elif key - BIAS in nonflush5:
            raise AssertionError("rank keys collide for 5-card hands")
        else:
            nonflush5[key - BIAS] = value

    nonflush = {5: nonflush5}
    rank_key = RANK_KEYS.__getitem__
    for size in (6, 7):
        smaller = nonflush[size - 1].__getitem__
        table: dict[int, int] = {}
        for multiset in combinations_with_replacement(ranks, size):
            # The multiset is sorted: five of a rank would show as m[i] == m[i + 4].
            if (
                multiset[0] == multiset[4]
                or multiset[1] == multiset[5]
                or (size > 6 and multiset[2] == multiset[6])
            ):
                continue
            rank_sum = sum(map(rank_key, multiset)) - BIAS
            if rank_sum in table:
                raise AssertionError(f"rank keys collide for {size}-card hands")
            # Best of the hands left by removing one card (map/sub keep this loop in C).
            table[rank_sum] = max(map(smaller, map(sub, repeat(rank_sum), map(rank_key, multiset))))
        nonflush[size] = table
        for suited in combinations(ranks, size):
            mask = sum(1 << r for r in suited)
            flush[mask] = max(flush[mask & ~(1 << r)] for r in suited)

    members: tuple[HandCategory | ShortDeckCategory, ...] = tuple(categories)  # weakest first
    return RankTables(
        nonflush=nonflush,
        flush=flush,
        floors=tuple(floors[int(c)] for c in members),
        categories=members,
        straights=straights,
        ranks=frozenset(ranks),
        top=len(classes),
    )


def rank_any(cards: Sequence[Card], tables: RankTables) -> int:
    """Value of a 5-, 6- or 7-card hand: the general (not unrolled) key-sum path."""
    n = len(cards)
    if not 5 <= n <= 7:
        raise ValueError(f"a hand to evaluate has 5 to 7 cards, got {n}")
    key = FIRST_KEYS[cards[0]]
    for card in cards[1:]:
        key += CARD_KEYS[card]
    suit = FLUSH_SUIT[n][key & SUIT_MASK]
    if suit:
        return flush_value(cards, suit, tables.flush)
    try:
        return tables.nonflush[n][key >> SUIT_BITS]
    except KeyError:
        raise ValueError(f"not a hand of distinct cards of this deck: {list(cards)}") from None


def flush_value(cards: Sequence[Card], suit_plus_one: int, flush: list[int]) -> int:
    """Value of a hand known to hold five or more cards of one suit (the rare path)."""
    suit = suit_plus_one - 1
    mask = 0
    for card in cards:
        if card & 3 == suit:
            mask |= 1 << (card >> 2)
    value = flush[mask]
    if not value:
        raise ValueError(f"not a hand of distinct cards of this deck: {list(cards)}")
    return value


def check_hand(cards: Sequence[Card], ranks: frozenset[int], sizes: range) -> tuple[Card, ...]:
    """Validate a hand for the rich ``evaluate_*`` paths; the fast paths trust input."""
    hand = tuple(cards)
    if len(hand) not in sizes:
        raise ValueError(f"a hand to evaluate has {sizes.start} to {sizes.stop - 1} cards")
    for card in hand:
        if not isinstance(card, int) or not 0 <= card < 52 or card >> 2 not in ranks:
            raise ValueError(f"not a card of this deck: {card!r}")
    if len(set(hand)) != len(hand):
        raise ValueError(f"the same card twice in {list(hand)}")
    return hand


def best_five(
    hand: Sequence[Card], rank: Callable[[Sequence[Card]], int], value: int
) -> tuple[Card, ...]:
    """Five cards of ``hand`` worth ``value``; among equals, the highest card ints."""
    for five in combinations(sorted(hand, reverse=True), 5):
        if rank(five) == value:
            return five
    raise AssertionError(f"no five cards of {list(hand)} are worth {value}")


def display_order(five: Sequence[Card], straights: tuple[Straight, ...]) -> tuple[Card, ...]:
    """Best-first order people say a hand in (see ``HandValue.cards``)."""
    ranks = [c >> 2 for c in five]
    rank_set = set(ranks)
    for straight in straights:
        if rank_set == set(straight):
            by_rank = {c >> 2: c for c in five}
            return tuple(by_rank[r] for r in straight)
    counts = Counter(ranks)
    return tuple(sorted(five, key=lambda c: (counts[c >> 2], c), reverse=True))
