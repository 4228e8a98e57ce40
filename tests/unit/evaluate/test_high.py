# ruff: noqa: N802  (test names end with the docs/rules.md rule ID, e.g. __G3)
"""High-hand evaluator (``high_rank``, ``evaluate_high``) against the brute-force reference.

G3: cards speak, best five cards win, identical hands split.  The exhaustive test is
the proof: every one of the 2,598,960 five-card hands gets the reference's category
and is ordered exactly as the reference orders it; 6- and 7-card hands are checked on
seeded random samples (their value must be the best of their 5-card subsets).
"""

from __future__ import annotations

import random
from itertools import combinations

import pytest

from poker_rules.cards import card_str
from poker_rules.evaluate import (
    HIGH_CLASSES,
    HandCategory,
    _tables,
    category_of,
    evaluate_high,
    high_rank,
)
from poker_rules.evaluate.high import _TABLES

from .helpers import OrderMap, cards
from .reference import HIGH_CATEGORIES, best_high_five, ref_high, ref_high5


@pytest.mark.slow
def test_high_exhaustive_five_card_hands_match_reference__G3() -> None:
    order = OrderMap()
    values = order.values
    for five in combinations(range(52), 5):
        key = ref_high5(five)
        value = high_rank(five)
        if values.setdefault(key, value) != value:
            order.add(key, value, five)  # raises with a readable message
    items = order.check_strictly_monotone()
    assert len(items) == HIGH_CLASSES == 7462
    assert [v for _, v in items] == list(range(1, 7463))  # dense: 1 .. 7462
    for key, value in items:
        assert category_of(value).name == HIGH_CATEGORIES[key[0]]


def _random_hands(n_cards: int, count: int, seed: int) -> list[tuple[int, ...]]:
    rng = random.Random(seed)
    return [tuple(rng.sample(range(52), n_cards)) for _ in range(count)]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("n_cards", "count", "seed"), [(7, 200_000, 7), (6, 100_000, 6)], ids=["7cards", "6cards"]
)
def test_high_random_hands_match_reference__G3(n_cards: int, count: int, seed: int) -> None:
    order = OrderMap()
    for hand in _random_hands(n_cards, count, seed):
        key = ref_high(hand)
        value = high_rank(hand)
        order.add(key, value, hand)
        assert category_of(value).name == HIGH_CATEGORIES[key[0]], hand
    order.check_strictly_monotone()
    # Same scale as 5-card hands: a hand is worth exactly its best five cards.
    for hand in _random_hands(n_cards, 2_000, seed + 100):
        assert high_rank(hand) == high_rank(best_high_five(hand)), hand
        assert high_rank(list(hand)) == high_rank(hand)  # lists work as well as tuples


def test_evaluate_high_agrees_with_high_rank_and_reference__G3() -> None:
    rng = random.Random(3)
    for n_cards in (5, 6, 7):
        for _ in range(3_000):
            hand = tuple(rng.sample(range(52), n_cards))
            result = evaluate_high(hand)
            assert result.value == high_rank(hand)
            assert result.category == category_of(result.value)
            assert len(result.cards) == 5 and set(result.cards) <= set(hand)
            assert high_rank(result.cards) == result.value  # the five cards make the hand
            assert ref_high5(result.cards) == ref_high(hand)


def test_categories_in_standard_order__G3() -> None:
    examples = [
        ("HIGH_CARD", "Ac Jd 8h 5s 3c 2d 7h"),
        ("PAIR", "Ac Ad 8h 5s 3c Jd 7h"),
        ("TWO_PAIR", "Ac Ad 8h 8s 3c Jd 7h"),
        ("THREE_OF_A_KIND", "Ac Ad Ah 8s 3c Jd 7h"),
        ("STRAIGHT", "9c Td Jh Qs Kc 2d 2h"),
        ("FLUSH", "2h 7h 9h Jh Kh Ac Ad"),
        ("FULL_HOUSE", "Ac Ad Ah 8s 8c Jd 7h"),
        ("FOUR_OF_A_KIND", "Ac Ad Ah As 8c Jd 7h"),
        ("STRAIGHT_FLUSH", "5h 6h 7h 8h 9h Ac Ad"),
    ]
    values = [high_rank(cards(text)) for _, text in examples]
    assert values == sorted(values) and len(set(values)) == len(values)
    for (name, _), value in zip(examples, values, strict=True):
        assert category_of(value) == HandCategory[name]


def test_wheel_is_five_high_straight__G3() -> None:
    wheel = high_rank(cards("Ah 2d 3c 4s 5h"))
    assert category_of(wheel) == HandCategory.STRAIGHT
    assert wheel < high_rank(cards("2d 3c 4s 5h 6c"))  # the lowest straight
    assert wheel > high_rank(cards("Ac Ad Ah Ks Qd"))  # still beats trips
    assert high_rank(cards("Ah Kd Qc Js Th")) > high_rank(cards("Kd Qc Js Th 9h"))
    # A-K-Q-J-T is a straight, K-A-2-3-4 (round the corner) is not.
    assert category_of(high_rank(cards("Kh Ad 2c 3s 4h"))) == HandCategory.HIGH_CARD
    result = evaluate_high(cards("Kc Ah 2d 3c 4s 5h 9d"))
    assert result.describe() == "straight, five high"
    assert [card_str(c) for c in result.cards] == ["5h", "4s", "3c", "2d", "Ah"]


def test_steel_wheel_is_lowest_straight_flush__G3() -> None:
    steel = high_rank(cards("Ah 2h 3h 4h 5h"))
    assert category_of(steel) == HandCategory.STRAIGHT_FLUSH
    assert steel < high_rank(cards("2h 3h 4h 5h 6h"))
    assert steel > high_rank(cards("Ac Ad Ah As Kd"))  # beats four aces
    # Seven cards holding both the steel wheel and a six-high straight flush.
    assert high_rank(cards("Ah 2h 3h 4h 5h 6h Kc")) == high_rank(cards("2h 3h 4h 5h 6h"))
    royal = evaluate_high(cards("Ts Js Qs Ks As 2c 3d"))
    assert royal.value == HIGH_CLASSES and royal.is_royal_flush
    assert royal.describe() == "royal flush"
    assert not evaluate_high(cards("Ah 2h 3h 4h 5h")).is_royal_flush


def test_best_five_of_six_and_seven_cards__G3() -> None:
    # Six cards: the sixth card can only improve a hand, never spoil it.
    assert high_rank(cards("Ac Ad Kh Ks 2c 2d")) == high_rank(cards("Ac Ad Kh Ks 2c"))
    assert high_rank(cards("Ac Ad Kh Ks Qc 2d")) == high_rank(cards("Ac Ad Kh Ks Qc"))
    # Two trips in seven cards make the best full house.
    full = evaluate_high(cards("9c 9d 9h 4s 4c 4d Ah"))
    assert full.describe() == "full house, nines full of fours"
    # A flush and a straight in one hand: the flush plays.
    assert evaluate_high(cards("2h 7h 9h Jh Kh Tc Qd")).category == HandCategory.FLUSH
    # Three pairs: the two highest play, with the best kicker.
    assert high_rank(cards("Ac Ad Kh Ks Qc Qd 2h")) == high_rank(cards("Ac Ad Kh Ks Qc"))
    # Quads with a pair: the kicker is the highest remaining card, not the pair.
    assert high_rank(cards("5c 5d 5h 5s 3c 3d Kh")) == high_rank(cards("5c 5d 5h 5s Kh"))


def test_identical_hands_tie_whatever_the_suits__G3() -> None:
    assert high_rank(cards("Ac Kd Qh Js 9c 3d 2h")) == high_rank(cards("As Kh Qd Jc 9s 3h 2c"))
    assert high_rank(cards("Ac Kc Qc Jc 9c")) == high_rank(cards("Ad Kd Qd Jd 9d 2c 3h"))
    # Kickers beyond the best five do not count.
    assert high_rank(cards("Ac Ad Kh Qs Jc 3d 2h")) == high_rank(cards("Ah As Kd Qc Js 4d 3h"))


def test_describe_names_the_hand__G3() -> None:
    assert evaluate_high(cards("Kc Kd Ks 7h 7d 2c 3c")).describe() == (
        "full house, kings full of sevens"
    )
    assert evaluate_high(cards("9c 9d Ah Qd 4c 3s 2h")).describe() == "pair of nines"
    assert evaluate_high(cards("9c 9d Ah Ad 4c 3s 2h")).describe() == "two pair, aces and nines"
    assert str(evaluate_high(cards("9c 9d Ah Qd 4c 3s 2h"))) == "pair of nines [9d 9c Ah Qd 4c]"
    assert evaluate_high(cards("Ac Jd 8h 5s 3c")).describe() == "high card, ace"


def test_invalid_hands_are_refused__G3() -> None:
    with pytest.raises(ValueError, match="5 to 7 cards"):
        evaluate_high(cards("Ac Kd Qh Js"))
    with pytest.raises(ValueError, match="5 to 7 cards"):
        high_rank(cards("Ac Kd Qh Js"))
    with pytest.raises(ValueError, match="5 to 7 cards"):
        high_rank(cards("Ac Kd Qh Js Tc 9c 8c 7c"))
    with pytest.raises(ValueError, match="twice"):
        evaluate_high(cards("Ac Ac Qh Js Tc"))
    with pytest.raises(ValueError, match="not a card"):
        evaluate_high([0, 1, 2, 3, 52])
    with pytest.raises(ValueError, match="not a hand value"):
        category_of(0)
    with pytest.raises(ValueError, match="not a hand value"):
        category_of(HIGH_CLASSES + 1)


def test_high_rank_orders_like_eval7__G3() -> None:
    eval7 = pytest.importorskip("eval7")
    rng = random.Random(11)
    order = OrderMap()
    for _ in range(20_000):
        hand = tuple(rng.sample(range(52), 7))
        theirs = eval7.evaluate([eval7.Card(card_str(c)) for c in hand])
        order.add(theirs, high_rank(hand), hand)
    order.check_strictly_monotone()


def test_packed_row_offsets_match_their_generator__G3() -> None:
    # The 7-card fast path indexes a list packed with stored row offsets; rebuilding
    # them proves the constant is the generator's output for the current rank keys.
    assert _tables.pack_rows(_TABLES.nonflush[7]) == _tables.ROW_OFFSETS
    packed = _TABLES.packed7
    for r, value in _TABLES.nonflush[7].items():
        assert packed[_tables.packed_slot(r)] == value
    assert sum(1 for v in packed if v) == len(_TABLES.nonflush[7]) == 49_205
