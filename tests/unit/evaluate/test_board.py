# ruff: noqa: N802  (test names end with the docs/rules.md rule ID, e.g. __S6)
"""Stud board ranking for action order (``board_rank``): S6."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from poker_rules.evaluate import BoardCategory, board_rank

from .helpers import cards


def _board(text: str) -> tuple[int, ...]:
    return board_rank(cards(text))


def test_pair_beats_higher_unpaired_cards__S6() -> None:
    assert _board("2c 2d") > _board("Ac Kd")
    assert _board("2c 2d 3h 4s") > _board("Ac Kd Qh Js")
    assert _board("3c 3d") > _board("2c 2d")
    assert _board("Kc Kd 9h") > _board("Kh Ks 8c")  # kicker decides between equal pairs
    assert _board("Kc Kd 9h 3c") > _board("Kh Ks 9c 2c")


def test_group_order_two_pair_trips_quads__S6() -> None:
    order = [
        "Ac Kd Qh Js",  # no pair
        "2c 2d 3h 4s",  # pair
        "3c 3d 2h 2s",  # two pair
        "Ac Ad Kh Kd",  # higher two pair
        "2c 2d 2h 3s",  # trips
        "2c 2d 2h 2s",  # quads
    ]
    ranks = [_board(text) for text in order]
    assert ranks == sorted(ranks) and len(set(ranks)) == len(ranks)
    assert [r[0] for r in ranks] == [
        BoardCategory.NO_PAIR,
        BoardCategory.PAIR,
        BoardCategory.TWO_PAIR,
        BoardCategory.TWO_PAIR,
        BoardCategory.THREE_OF_A_KIND,
        BoardCategory.FOUR_OF_A_KIND,
    ]


def test_straights_and_flushes_showing_do_not_count__S6() -> None:
    four_flush_straight = _board("6h 7h 8h 9h")
    assert four_flush_straight[0] == BoardCategory.NO_PAIR
    assert four_flush_straight < _board("2c 2d 3h 4s")
    assert four_flush_straight < _board("Tc 6d 4h 2s")  # just nine high vs ten high
    assert four_flush_straight == _board("9c 8d 7h 6s")


def test_equal_boards_tie_suits_ignored__S6() -> None:
    assert _board("Ac") == _board("As")
    assert _board("Kc Kd 7h") == _board("Kh Ks 7d")
    assert _board("9c 8d 7h 6s") == _board("6c 7d 8h 9s")  # order of the cards is irrelevant
    rng = random.Random(5)
    for _ in range(2_000):
        board = rng.sample(range(52), rng.randint(1, 4))
        same_ranks = [r * 4 + (s + 1) % 4 for r, s in ((c >> 2, c & 3) for c in board)]
        if len(set(same_ranks)) == len(same_ranks):
            assert board_rank(board) == board_rank(same_ranks)


def test_board_rank_matches_group_rules_on_random_boards__S6() -> None:
    def reference(board: list[int]) -> tuple[list[int], list[int]]:
        """(sizes of the groups of two or more, ranks bigger group first then higher)."""
        counts = Counter(c >> 2 for c in board)
        by_size = sorted(counts.items(), key=lambda rc: (rc[1], rc[0]), reverse=True)
        return [n for _, n in by_size if n > 1], [r for r, _ in by_size]

    rng = random.Random(6)
    # Few ranks make the groups common: draw from a 5-rank (20-card) slice of the deck.
    boards = [rng.sample(range(52), n) for n in (2, 3, 4) for _ in range(80)]
    boards += [rng.sample(range(20, 40), n) for n in (2, 3, 4) for _ in range(80)]
    scored = [(reference(b), board_rank(b), b) for b in boards]
    for (groups_a, ranks_a), rank_a, a in scored:
        for (groups_b, ranks_b), rank_b, b in scored:
            if len(a) != len(b):
                continue
            if groups_a == groups_b:  # same kind of board: ranks decide, groups first
                expected = (ranks_a > ranks_b) - (ranks_a < ranks_b)
            else:  # quads > trips > two pair > pair > nothing
                expected = (groups_a > groups_b) - (groups_a < groups_b)
            assert (rank_a > rank_b) - (rank_a < rank_b) == expected, (a, b)


def test_board_sizes__S6() -> None:
    assert _board("Ac Ad Ah Kc Kd")[0] == BoardCategory.FULL_HOUSE  # five upcards: in case
    assert _board("Ac Ad Ah Kc Kd") > _board("Ac Ad Ah Kc Qd")
    assert _board("Ac Ad Ah As Kd") > _board("Ac Ad Ah Kc Kd")
    with pytest.raises(ValueError, match="1 to 5 upcards"):
        board_rank([])
    with pytest.raises(ValueError, match="1 to 5 upcards"):
        board_rank(cards("Ac Ad Ah As Kd Kc"))
