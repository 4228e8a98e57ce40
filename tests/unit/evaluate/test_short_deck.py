# ruff: noqa: N802  (test names end with the docs/rules.md rule ID, e.g. __D8)
"""Five Card Draw 7-A evaluator (``short_deck_rank``, ``evaluate_short_deck``): D8, G1.

Exhaustive over every 5-card hand of the 32-card deck and of the 36-card deck (sixes
in), against the reference; random 7-card hands check the best-five extension.
"""

from __future__ import annotations

import random
from itertools import combinations

import pytest

from poker_rules.cards import card_str, short_deck
from poker_rules.evaluate import (
    ShortDeckCategory,
    evaluate_short_deck,
    short_deck_category_of,
    short_deck_classes,
    short_deck_rank,
)

from .helpers import OrderMap, cards
from .reference import SHORT_DECK_CATEGORIES, ref_short_deck, ref_short_deck5

DECKS = pytest.mark.parametrize("with_sixes", [False, True], ids=["32cards", "36cards"])


@pytest.mark.slow
@DECKS
def test_short_deck_exhaustive_five_card_hands_match_reference__D8(with_sixes: bool) -> None:
    order = OrderMap()
    for five in combinations(short_deck(with_sixes), 5):
        order.add(ref_short_deck5(five, with_sixes), short_deck_rank(five, with_sixes), five)
    items = order.check_strictly_monotone()
    n_classes = short_deck_classes(with_sixes)
    assert n_classes == (1404 if with_sixes else 840)
    assert [v for _, v in items] == list(range(1, n_classes + 1))
    for key, value in items:
        assert short_deck_category_of(value, with_sixes).name == SHORT_DECK_CATEGORIES[key[0]]


@pytest.mark.slow
@DECKS
def test_short_deck_random_seven_card_hands_match_reference__D8(with_sixes: bool) -> None:
    rng = random.Random(36 if with_sixes else 32)
    deck = short_deck(with_sixes)
    order = OrderMap()
    for _ in range(60_000):
        hand = tuple(rng.sample(deck, 7))
        key = ref_short_deck(hand, with_sixes)
        value = short_deck_rank(hand, with_sixes)
        order.add(key, value, hand)
    order.check_strictly_monotone()
    for n_cards in (6, 7):
        for _ in range(2_000):
            hand = tuple(rng.sample(deck, n_cards))
            result = evaluate_short_deck(hand, with_sixes)
            assert result.value == short_deck_rank(hand, with_sixes)
            assert ref_short_deck5(result.cards, with_sixes) == ref_short_deck(hand, with_sixes)


def _rank(text: str, with_sixes: bool = False) -> int:
    return short_deck_rank(cards(text), with_sixes)


def test_flush_beats_full_house__D8() -> None:
    flush = _rank("7h 8h 9h Jh Kh")
    full_house = _rank("Ac Ad Ah Ks Kd")
    assert flush > full_house
    assert short_deck_category_of(flush) == ShortDeckCategory.FLUSH
    assert short_deck_category_of(full_house) == ShortDeckCategory.FULL_HOUSE
    assert _rank("7h 8h 9h Jh Kh", True) > _rank("Ac Ad Ah Ks Kd", True)
    # Seven cards cannot hold both; four hearts and a full house is a full house.
    result = evaluate_short_deck(cards("Kh Kd Ks 9h 9c 7h 8h"))
    assert result.category == ShortDeckCategory.FULL_HOUSE
    assert result.value < _rank("Kh 9h 8h 7h Th Kd Ks")  # with a fifth heart: a flush
    # Quads still beat a flush, straight flushes beat quads.
    assert _rank("Ac Ad Ah As 7d") > _rank("Ah Kh Qh Jh 9h")
    assert _rank("7h 8h 9h Th Jh") > _rank("Ac Ad Ah As 7d")


def test_category_order__D8() -> None:
    examples = [
        ("HIGH_CARD", "Ac Jd 9h 8s 7c"),
        ("PAIR", "Ac Ad 9h 8s 7c"),
        ("TWO_PAIR", "Ac Ad 9h 9s 7c"),
        ("THREE_OF_A_KIND", "Ac Ad Ah 9s 7c"),
        ("STRAIGHT", "Ac 7d 8h 9s Tc"),  # the lowest straight
        ("FULL_HOUSE", "Ac Ad Ah 9s 9c"),
        ("FLUSH", "7h 8h 9h Jh Qh"),  # the lowest flush
        ("FOUR_OF_A_KIND", "7c 7d 7h 7s 8c"),
        ("STRAIGHT_FLUSH", "Ah 7h 8h 9h Th"),  # the lowest straight flush
    ]
    values = [_rank(text) for _, text in examples]
    assert values == sorted(values) and len(set(values)) == len(values)
    for (name, _), value in zip(examples, values, strict=True):
        assert short_deck_category_of(value) == ShortDeckCategory[name]


def test_ace_low_straight_is_the_lowest__D8() -> None:
    low = _rank("Ac 7d 8h 9s Tc")
    assert short_deck_category_of(low) == ShortDeckCategory.STRAIGHT
    assert low < _rank("7d 8h 9s Tc Jd")
    assert low > _rank("Ac Ad Ah Ks Qd")  # a straight still beats trips
    steel = _rank("Ah 7h 8h 9h Th")
    assert short_deck_category_of(steel) == ShortDeckCategory.STRAIGHT_FLUSH
    assert steel < _rank("7h 8h 9h Th Jh")  # the lowest straight flush ...
    assert steel < _rank("Th Jh Qh Kh Ah")  # ... not a royal flush
    result = evaluate_short_deck(cards("Ac 7d 8h 9s Tc Kd Kh"))
    assert result.describe() == "straight, ten high"
    assert [card_str(c) for c in result.cards] == ["Tc", "9s", "8h", "7d", "Ac"]
    royal = evaluate_short_deck(cards("Th Jh Qh Kh Ah 7c"))
    assert royal.is_royal_flush and royal.value == short_deck_classes()
    assert not evaluate_short_deck(cards("Ah 7h 8h 9h Th")).is_royal_flush


def test_sixes_in_ace_plays_below_the_six__D8() -> None:
    low = _rank("Ac 6d 7h 8s 9c", True)
    assert short_deck_category_of(low, True) == ShortDeckCategory.STRAIGHT
    assert _rank("6d 7h 8s 9c Td", True) > low  # 6-7-8-9-T beats A-6-7-8-9
    # With the sixes in, A-7-8-9-T is no straight: the ace cannot skip the six.
    assert short_deck_category_of(_rank("Ac 7d 8h 9s Tc", True), True) == (
        ShortDeckCategory.HIGH_CARD
    )
    steel = _rank("Ah 6h 7h 8h 9h", True)
    assert short_deck_category_of(steel, True) == ShortDeckCategory.STRAIGHT_FLUSH
    assert steel < _rank("6h 7h 8h 9h Th", True)
    assert steel > _rank("Ac Ad Ah As Kd", True)


def test_ties_and_best_five_of_seven__D8() -> None:
    assert _rank("Ac Kd Qh 9s 8c") == _rank("As Kh Qd 9c 8s")
    assert _rank("Ac Kd Qh 9s 8c 7d 7h") == _rank("Ac Kd Qh 7s 7c")
    assert _rank("Ac Kc Qc 9c 8c 7c Ad") == _rank("Ac Kc Qc 9c 8c")


def test_cards_outside_the_deck_are_refused__G1() -> None:
    with pytest.raises(ValueError, match="not a card of this deck"):
        evaluate_short_deck(cards("6c 7d 8h 9s Tc"))  # no sixes in the 32-card deck
    with pytest.raises(ValueError):
        short_deck_rank(cards("6c 7d 8h 9s Tc Jd Qh"))
    with pytest.raises(ValueError):
        short_deck_rank(cards("6c 7d 8h 9s Tc"))
    with pytest.raises(ValueError):
        short_deck_rank(cards("6c 7d 8h 9s Tc Jd"))
    with pytest.raises(ValueError):
        short_deck_rank(cards("6h 7h 8h 9h Jh"))
    with pytest.raises(ValueError):
        short_deck_rank(cards("2c 7d 8h 9s Tc"), True)
    with pytest.raises(ValueError):
        short_deck_rank(cards("2h 7h 8h 9h Th Jd Qd"))  # a flush using a deuce
    assert evaluate_short_deck(cards("6c 7d 8h 9s Tc"), True).category == (
        ShortDeckCategory.STRAIGHT
    )
