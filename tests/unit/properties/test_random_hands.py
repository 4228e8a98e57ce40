# ruff: noqa: N802  (test names end with the docs/rules.md rule ID, e.g. __G6)
"""Every property over ``HANDS_PER_GAME`` random hands of each game (Stud, Stud
Hi-Lo, 7-A draw in each structure), and money that is not whole chips refused.
"""

from __future__ import annotations

from collections import Counter

import pytest

from poker_rules import Action, DrawConfig, DrawHand, IllegalActionError, Structure

from .legality import snapshot
from .play import DRAW_KEYS, STUD_KEYS, assert_covered, run_many
from .setups import RAISE, Stats, draw_setups, stud_setups

pytestmark = pytest.mark.slow


# ------------------------------------------------------------------ the tests


def test_chips_conserved_random_stud_hands__G6() -> None:
    """Seven Card Stud: every property over HANDS_PER_GAME random hands."""
    stats: Stats = Counter()
    run_many(stud_setups(hi_lo=False), stats)
    assert_covered(stats, [*STUD_KEYS, "open pair"])


def test_side_pot_eligibility_random_hilo_hands__H6() -> None:
    """Seven Card Stud Hi-Lo: every property over HANDS_PER_GAME random hands."""
    stats: Stats = Counter()
    run_many(stud_setups(hi_lo=True), stats)
    assert_covered(stats, [*STUD_KEYS, "hi-lo split"])


@pytest.mark.parametrize("structure", list(Structure))
def test_draw_legal_actions_accepted_and_others_rejected__D2(structure: Structure) -> None:
    """7-A draw in each structure: every property over HANDS_PER_GAME random hands."""
    stats: Stats = Counter()
    run_many(draw_setups(structure), stats)
    assert_covered(stats, DRAW_KEYS)


@pytest.mark.parametrize("amount", [200.0, 250.5])
def test_float_amount_refused_money_is_whole_chips__D2(amount: float) -> None:
    hand = DrawHand(DrawConfig(structure=Structure.NO_LIMIT), [1_000] * 3, seed=1)
    before = snapshot(hand)
    with pytest.raises((IllegalActionError, TypeError), match="int"):
        hand.act(Action(RAISE, amount))  # type: ignore[arg-type]
    assert snapshot(hand) == before
