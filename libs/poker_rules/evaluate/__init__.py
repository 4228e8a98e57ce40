"""Hand evaluators: high (Stud), eight-or-better low (Stud Hi-Lo), 7-A (Draw), boards.

One convention everywhere: **a larger value is a better hand, and equal values tie**
(G3).  The ``*_rank`` functions are the fast paths used at showdown and return a
plain int (``low_rank`` returns None when no low qualifies, H2; ``board_rank`` a
tuple for S6 action order).  The ``evaluate_*`` functions validate their input and
return a :class:`HandValue` with the category and the five cards used.
"""

from __future__ import annotations

from .board import BoardCategory, board_rank
from .high import HIGH_CLASSES, category_of, evaluate_high, high_rank
from .low import LOW_CLASSES, evaluate_low, low_rank
from .short_deck import (
    evaluate_short_deck,
    short_deck_category_of,
    short_deck_classes,
    short_deck_rank,
)
from .value import Category, HandCategory, HandValue, LowCategory, ShortDeckCategory

__all__ = [
    "HIGH_CLASSES",
    "LOW_CLASSES",
    "BoardCategory",
    "Category",
    "HandCategory",
    "HandValue",
    "LowCategory",
    "ShortDeckCategory",
    "board_rank",
    "category_of",
    "evaluate_high",
    "evaluate_low",
    "evaluate_short_deck",
    "high_rank",
    "low_rank",
    "short_deck_category_of",
    "short_deck_classes",
    "short_deck_rank",
]
