"""Checks shared by the evaluator tests."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise
from typing import Any

from poker_rules.cards import parse_cards


def cards(text: str) -> tuple[int, ...]:
    """``"As Kd 7c"`` -> a tuple of card ints, as the fast evaluators get them."""
    return tuple(parse_cards(text))


class OrderMap:
    """Collects (reference key, evaluator value) pairs and checks they order alike.

    The evaluator is right when its value is a strictly monotone function of the
    reference key: the same key always gets the same value (so equal hands tie),
    and sorting by key sorts the values strictly (so better hands score more).
    ``descending=True`` is for lows, where the smaller reference key is the better low.
    """

    def __init__(self, descending: bool = False) -> None:
        self.descending = descending
        self.values: dict[Any, int] = {}

    def add(self, key: Any, value: int, hand: Sequence[int] = ()) -> None:
        seen = self.values.setdefault(key, value)
        assert seen == value, f"{list(hand)}: reference {key} got {value}, earlier {seen}"

    def check_strictly_monotone(self) -> list[tuple[Any, int]]:
        """Assert strict monotonicity; return the (key, value) pairs sorted by key."""
        items = sorted(self.values.items(), reverse=self.descending)
        for (k1, v1), (k2, v2) in pairwise(items):
            assert v1 < v2, f"reference {k1} -> {v1} but better {k2} -> {v2}"
        return items
