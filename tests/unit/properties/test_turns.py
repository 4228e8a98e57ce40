# ruff: noqa: N802  (test names end with the docs/rules.md rule ID, e.g. __G6)
"""Exactly one player is to act, and only when there is something to decide: full
stud tables over every street, and the hands where an all-in leaves nobody to
bet against.
"""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from poker_rules import Action, DrawConfig, DrawHand, Phase, StudConfig, StudHand

from .play import play_and_check
from .setups import HANDS_PER_GAME, PROPERTY_SETTINGS, STYLES, Setup, Stats, stud_configs

pytestmark = pytest.mark.slow


def full_table_stud_setups() -> st.SearchStrategy[Setup]:
    """Six to eight players who rarely fold: every street, board orders, shortages."""
    config = stud_configs(st.booleans())
    return st.builds(
        Setup,
        config,
        st.sampled_from(range(6, 9)),
        st.sampled_from(("deep", "mixed", "equal")),
        st.sampled_from(STYLES[1:]),
        st.integers(0, 2**64 - 1),
    )


def test_exactly_one_player_to_act_stud__S6() -> None:
    """Full stud tables: the best board opens each street, then one player at a time."""
    stats: Stats = Counter()

    @settings(PROPERTY_SETTINGS, max_examples=max(HANDS_PER_GAME // 10, 100))
    @given(full_table_stud_setups())
    def run(setup: Setup) -> None:
        play_and_check(setup, stats)

    run()
    missing = [k for k in range(5) if stats[f"opener street {k}"] == 0]
    assert not missing, f"no round opened on streets {missing}: {dict(stats)}"
    assert stats["river community"] and stats["river stub_first"], dict(stats)


# ------------------------------------------------------------------ regressions


def test_no_turn_with_nothing_to_decide_heads_up_draw__S12() -> None:
    """The small blind calls all-in for less: the big blind owes nothing and nobody
    can bet against it, so nobody is on the clock (it used to be asked to check, and
    a timeout under ALL_IN_PROTECTION folded its hand)."""
    hand = DrawHand(DrawConfig(), [1_000, 70], seed=7)
    hand.act(Action.call(), 1)
    assert hand.all_in[1]
    assert hand.phase is Phase.DRAWING  # straight to the draw, then the showdown
    while not hand.is_over:
        hand.timeout()  # stand pat
    assert hand.result is not None and not hand.folded[0]
    assert sorted(hand.result.shown) == [0, 1]
    assert sum(hand.result.final_stacks) == 1_070


def test_no_turn_after_all_in_protection_leaves_one_player__S10() -> None:
    """Heads-up stud, both players in voluntarily: the first to act on fourth street
    times out and is protected all-in (S10); the other owes nothing and has nobody
    to bet against, so the hand is dealt out to the showdown without them acting."""
    hand = StudHand(StudConfig(), [10_000, 10_000], seed=3)
    hand.act(Action.bring_in())
    hand.act(Action.complete(100))
    hand.act(Action.call())
    assert hand.street == 1
    first = hand.to_act
    assert first is not None
    assert hand.timeout() is None
    assert hand.protected[first]
    assert hand.is_over and hand.result is not None
    assert sorted(hand.result.shown) == [0, 1]
    assert sum(hand.result.final_stacks) == 20_000
