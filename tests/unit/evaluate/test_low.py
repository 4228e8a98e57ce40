# ruff: noqa: N802  (test names end with the docs/rules.md rule ID, e.g. __H2)
"""Eight-or-better low evaluator (``low_rank``, ``evaluate_low``): H2, H3, H4.

A low depends only on the ranks of a hand, so checking every multiset of ranks of
5, 6 and 7 cards (at most four of a rank) is exhaustive; random 7-card hands then
check that suits change nothing.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from itertools import combinations_with_replacement

import pytest

from poker_rules.cards import card_str
from poker_rules.evaluate import (
    LOW_CLASSES,
    HandCategory,
    LowCategory,
    evaluate_high,
    evaluate_low,
    high_rank,
    low_rank,
)

from .helpers import OrderMap, cards
from .reference import ref_low, ref_low5


def _hands_of_every_rank_multiset(n_cards: int) -> Iterator[tuple[int, ...]]:
    """One hand per multiset of ranks: the k-th card of a rank gets suit k."""
    for ranks in combinations_with_replacement(range(13), n_cards):
        if any(ranks.count(r) > 4 for r in set(ranks)):
            continue
        seen: dict[int, int] = {}
        hand = []
        for r in ranks:
            hand.append(r * 4 + seen.get(r, 0))
            seen[r] = seen.get(r, 0) + 1
        yield tuple(hand)


@pytest.mark.slow
def test_low_exhaustive_rank_multisets_match_reference__H2() -> None:
    order = OrderMap(descending=True)  # the smaller reference key is the better low
    qualifying = 0
    for n_cards in (5, 6, 7):
        for hand in _hands_of_every_rank_multiset(n_cards):
            key = ref_low(hand)
            value = low_rank(hand)
            assert (key is None) == (value is None), (hand, key, value)
            if key is not None and value is not None:
                qualifying += 1
                order.add(key, value, hand)
    assert qualifying > 0
    items = order.check_strictly_monotone()
    assert [v for _, v in items] == list(range(1, LOW_CLASSES + 1))  # 56 lows, dense


@pytest.mark.slow
def test_low_random_seven_card_hands_match_reference__H3() -> None:
    rng = random.Random(8)
    order = OrderMap(descending=True)
    for _ in range(100_000):
        hand = tuple(rng.sample(range(52), 7))
        key = ref_low(hand)
        value = low_rank(hand)
        assert (key is None) == (value is None), hand
        if key is not None and value is not None:
            order.add(key, value, hand)
    order.check_strictly_monotone()


def test_low_needs_five_different_ranks_eight_or_lower__H2() -> None:
    assert low_rank(cards("Ac 2d 3h 4s 8c")) is not None
    assert low_rank(cards("Ac 2d 3h 4s 9c")) is None  # a nine does not qualify
    assert low_rank(cards("Ac 2d 3h 4s 4c Kd Qh")) is None  # a pair counts once
    assert low_rank(cards("2c 2d 3h 3s 4c 4d 5h")) is None  # four low ranks only
    assert low_rank(cards("Ac Ad 2h 3s 4c 5d 5h")) == LOW_CLASSES  # pairs ignored: a wheel
    assert ref_low5(cards("Ac 2d 3h 4s 9c")) is None
    # The ace counts low: A-K-Q-J-T is no low, A-2-3-4-6 is.
    assert low_rank(cards("Ac Kd Qh Js Tc")) is None
    assert low_rank(cards("Ac 2d 3h 4s 6c")) is not None


def test_straights_and_flushes_do_not_spoil_a_low__H2() -> None:
    steel_wheel = cards("Ah 2h 3h 4h 5h")
    assert low_rank(steel_wheel) == LOW_CLASSES  # the best low ...
    assert evaluate_high(steel_wheel).category == HandCategory.STRAIGHT_FLUSH  # ... and high
    assert low_rank(cards("2s 4s 5s 6s 7s")) == low_rank(cards("2c 4d 5h 6s 7c"))
    assert low_rank(cards("4c 5d 6h 7s 8c")) == 1  # 8-7-6-5-4: the worst low, a straight


def test_low_comparison_highest_card_first__H3() -> None:
    # The rule book's example: 2-4-5-6-7 beats A-2-4-6-8.
    assert low_rank(cards("2c 4d 5h 6s 7c")) > low_rank(cards("Ac 2d 4h 6s 8c"))  # type: ignore[operator]
    ordered = [  # worst to best
        "8c 7d 6h 5s 4c",
        "8c 7d 3h 2s Ac",
        "8c 6d 5h 4s 3c",
        "8c 6d 4h 3s 2c",
        "8c 5d 4h 3s 2c",
        "7c 6d 5h 4s 3c",
        "7c 5d 4h 3s 2c",
        "6c 5d 4h 3s 2c",
        "6c 4d 3h 2s Ac",
        "5c 4d 3h 2s Ac",
    ]
    values = [low_rank(cards(text)) for text in ordered]
    assert values == sorted(values, key=lambda v: v or 0)
    assert len(set(values)) == len(values)
    # Equal lows tie whatever the suits and the other cards.
    assert low_rank(cards("7c 5d 4h 3s 2c Kd Kh")) == low_rank(cards("7s 5h 4d 3c 2s 9d 9c"))


def test_low_categories_and_cards_used__H3() -> None:
    result = evaluate_low(cards("Kc 8d 6h 4s 3c 2d 2h"))
    assert result is not None
    assert result.category == LowCategory.EIGHT_LOW
    assert [card_str(c) for c in result.cards] == ["8d", "6h", "4s", "3c", "2d"]
    assert result.describe() == "eight low (8-6-4-3-2)"
    wheel = evaluate_low(cards("5c 4d 3h 2s Ac Ad Kh"))
    assert wheel is not None and wheel.category == LowCategory.WHEEL
    assert [card_str(c) for c in wheel.cards] == ["5c", "4d", "3h", "2s", "Ac"]
    assert wheel.describe() == "wheel (5-4-3-2-A)"
    seven = evaluate_low(cards("7c 6d 4h 3s Ac Td"))
    assert seven is not None and seven.category == LowCategory.SEVEN_LOW
    assert evaluate_low(cards("Kc Qd Jh Ts 9c 8d 7h")) is None


def test_low_and_high_use_different_cards__H4() -> None:
    hand = cards("Kc Kd 2c 3d 4h 6s 7c")
    high = evaluate_high(hand)
    low = evaluate_low(hand)
    assert low is not None
    assert high.describe() == "pair of kings"
    assert low.describe() == "seven low (7-6-4-3-2)"
    assert set(high.cards) != set(low.cards)
    # A flush for high and an unrelated low from the same seven cards.
    hand = cards("Ah Kh Qh 7h 2h 3c 4d")
    high = evaluate_high(hand)
    low = evaluate_low(hand)
    assert high.category == HandCategory.FLUSH and low is not None
    assert low.describe() == "seven low (7-4-3-2-A)"
    assert set(high.cards) != set(low.cards)
    # Scoop material: the wheel is a straight for high and the best low.
    wheel = cards("As 2d 3c 4h 5s Kc Kd")
    assert evaluate_high(wheel).category == HandCategory.STRAIGHT
    assert low_rank(wheel) == LOW_CLASSES
    # The low is the same whatever the high hand is.
    assert low_rank(cards("Ac Ad Ah As 2c 3d 4h")) is None
    assert high_rank(cards("Ac Ad Ah 2c 3d 4h 5s")) > high_rank(cards("Ac Ad Ah 2c 3d 4h Ks"))


def test_low_hand_sizes__H2() -> None:
    assert low_rank(cards("Ac 2d 3h 4s 5c 6d")) == LOW_CLASSES
    assert low_rank(list(cards("Ac 2d 3h 4s 5c 6d Kh"))) == LOW_CLASSES
    with pytest.raises(ValueError, match="5 to 7 cards"):
        low_rank(cards("Ac 2d 3h 4s"))
    with pytest.raises(ValueError, match="5 to 7 cards"):
        evaluate_low(cards("Ac 2d 3h 4s"))
