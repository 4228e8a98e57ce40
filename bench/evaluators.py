"""Hand evaluations per second, single thread: our pure-Python evaluators vs eval7 and treys.

Why: every stud showdown and every equity simulation scores 7-card hands, so
``high_rank`` is the hottest function of the rules library.  eval7 (Cython) and
treys (pure Python, Cactus Kev) are the anchors; the target is ``high_rank`` at
>= 1.6M hands/s and >= 0.8x eval7 on this machine.

Every library gets the same random 7-card hands, converted once up front to its own
card type (eval7 ``Card`` objects, treys ints, our int tuples), and is timed in a
plain ``for`` loop calling its public evaluate function.  The hands are cut into
slices of ``SLICE`` hands; the libraries take turns slice by slice (so a busy
machine - this one is shared - slows them alike), the whole run is repeated
``REPEATS`` times, and each slice counts with its best time over the repeats.

Keys: ``high7_per_sec``, ``high7_eval7_per_sec``, ``high7_treys_per_sec``,
``high7_ratio_vs_eval7``, ``high7_ratio_vs_treys``, ``low8_7card_per_sec`` (our
eight-or-better low on the same hands), ``short_deck_7card_per_sec`` (our 7-A
ranking, 7 cards from the 36-card deck) and ``evaluate_tables_build_sec`` (what
importing ``poker_rules.evaluate`` spends building its tables).
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable, Sequence
from typing import Any

import eval7  # type: ignore[import-untyped]
from treys import Card as TreysCard  # type: ignore[import-untyped]
from treys import Evaluator as TreysEvaluator

from poker_rules.cards import card_str, short_deck
from poker_rules.evaluate import _tables, high_rank, low_rank, short_deck_rank
from poker_rules.evaluate.value import HandCategory, ShortDeckCategory

REPEATS = 3
SLICE = 10_000


def _loop(evaluate: Callable[[Any], object], hands: Sequence[Any]) -> float:
    """Seconds for one plain loop over ``hands``."""
    start = time.perf_counter()
    for hand in hands:
        evaluate(hand)
    return time.perf_counter() - start


def _loop_treys(evaluate: Callable[[Any, Any], int], hands: Sequence[tuple[Any, Any]]) -> float:
    """treys takes (hole cards, board): the split is made up front, not in the loop."""
    start = time.perf_counter()
    for hole, board in hands:
        evaluate(hole, board)
    return time.perf_counter() - start


def _loop_short_deck(hands: Sequence[tuple[int, ...]]) -> float:
    evaluate = short_deck_rank
    start = time.perf_counter()
    for hand in hands:
        evaluate(hand, True)
    return time.perf_counter() - start


def _build_seconds() -> float:
    """Time to build the tables that ``import poker_rules.evaluate`` builds."""
    start = time.perf_counter()
    _tables.build_tables(range(13), _tables.standard_straights(), HandCategory)
    for sixes in (False, True):
        lowest = 4 if sixes else 5
        _tables.build_tables(
            range(lowest, 13), _tables.short_deck_straights(sixes), ShortDeckCategory
        )
    return time.perf_counter() - start


def run(n_hands: int = 200_000, seed: int = 1) -> dict[str, float]:
    """Measure every rate (each slice's best of ``REPEATS`` interleaved runs) and ratios."""
    rng = random.Random(seed)
    hands = [tuple(rng.sample(range(52), 7)) for _ in range(n_hands)]
    deck36 = short_deck(with_sixes=True)
    short_hands = [tuple(rng.sample(deck36, 7)) for _ in range(n_hands)]

    eval7_hands = [[eval7.Card(card_str(c)) for c in hand] for hand in hands]
    treys_hands = [
        (
            [TreysCard.new(card_str(c)) for c in hand[:2]],
            [TreysCard.new(card_str(c)) for c in hand[2:]],
        )
        for hand in hands
    ]
    treys_evaluate = TreysEvaluator().evaluate

    loops: dict[str, Callable[[slice], float]] = {
        "high7_per_sec": lambda part: _loop(high_rank, hands[part]),
        "high7_eval7_per_sec": lambda part: _loop(eval7.evaluate, eval7_hands[part]),
        "high7_treys_per_sec": lambda part: _loop_treys(treys_evaluate, treys_hands[part]),
        "low8_7card_per_sec": lambda part: _loop(low_rank, hands[part]),
        "short_deck_7card_per_sec": lambda part: _loop_short_deck(short_hands[part]),
    }
    parts = [slice(i, i + SLICE) for i in range(0, n_hands, SLICE)]
    best = {key: [float("inf")] * len(parts) for key in loops}
    for _ in range(REPEATS):
        for i, part in enumerate(parts):
            for key, loop in loops.items():
                best[key][i] = min(best[key][i], loop(part))
    seconds = {key: sum(times) for key, times in best.items()}

    out: dict[str, float] = {key: float(round(n_hands / t)) for key, t in seconds.items()}
    out["high7_ratio_vs_eval7"] = round(out["high7_per_sec"] / out["high7_eval7_per_sec"], 3)
    out["high7_ratio_vs_treys"] = round(out["high7_per_sec"] / out["high7_treys_per_sec"], 3)
    out["evaluate_tables_build_sec"] = round(_build_seconds(), 3)
    return out


if __name__ == "__main__":
    print(json.dumps(run(), indent=2, sort_keys=True))
