"""Stud boards: who acts first on fourth street and later (S6).

The first player to act is the one with the best hand *showing* - upcards only.
Only cards that pair up count: pairs, two pair, trips, quads (and, should five
upcards ever be compared, a full house between trips and quads).  Straights and
flushes showing do not count, so four suited connectors are just their high cards.
Suits never break ties here: equal boards tie, and the engine then picks the player
closest to the dealer's left (S6).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from enum import IntEnum

from ..cards import Card


class BoardCategory(IntEnum):
    """What a stud board shows, weakest first (S6)."""

    NO_PAIR = 0
    PAIR = 1
    TWO_PAIR = 2
    THREE_OF_A_KIND = 3
    FULL_HOUSE = 4
    FOUR_OF_A_KIND = 5


_SHAPES = {
    (1,): BoardCategory.NO_PAIR,
    (2,): BoardCategory.PAIR,
    (2, 2): BoardCategory.TWO_PAIR,
    (3,): BoardCategory.THREE_OF_A_KIND,
    (3, 2): BoardCategory.FULL_HOUSE,
    (4,): BoardCategory.FOUR_OF_A_KIND,
}


def board_rank(upcards: Sequence[Card]) -> tuple[int, ...]:
    """Rank of 1..5 upcards for S6: larger is the better board, equal is a tie.

    ``(category, group ranks..., kicker ranks...)``: the category
    (:class:`BoardCategory`), then each distinct rank once, bigger groups first and
    higher ranks first within a size (ace high).  A pair of deuces beats A-K-Q-J;
    K-K-9 beats K-K-8; suits are ignored.  Boards of the same street have the same
    number of cards, so equal categories have tuples of equal length.
    """
    if not 1 <= len(upcards) <= 5:
        raise ValueError(f"a stud board has 1 to 5 upcards, got {len(upcards)}")
    counts = Counter(card >> 2 for card in upcards)
    order = sorted(counts, key=lambda r: (counts[r], r), reverse=True)
    shape = tuple(n for n in sorted(counts.values(), reverse=True) if n > 1) or (1,)
    return (int(_SHAPES[shape]), *order)
