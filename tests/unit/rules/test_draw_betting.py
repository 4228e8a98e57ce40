# ruff: noqa: N802  (test names end with the docs/rules.md rule ID, e.g. __D5)
"""Five Card Draw 7-A scenarios, the betting structures: fixed, pot and no limit,
their sizes, caps and short all-ins (D2 of docs/rules.md).

Conventions (player indexes, preset decks): ``draw_scenarios.py``.
"""

from __future__ import annotations

import pytest

from poker_rules import Action, DrawConfig, DrawHand, IllegalActionError, Phase

from .draw_helpers import play, stand_pat_all
from .draw_scenarios import BET, CALL, FL, FOLD, NL, PL, RAISE


def limp_three_handed(config: DrawConfig = FL, stacks: int = 1000) -> DrawHand:
    """Three players (button = index 2, UTG) limp, big blind checks, all stand pat."""
    hand = DrawHand(config, [stacks] * 3, seed=7)
    play(hand, (2, Action.call()), (0, Action.call()), (1, Action.check()))
    stand_pat_all(hand)
    assert hand.phase is Phase.BETTING
    return hand


# ---------------------------------------------------------------- D2 structures


def test_fixed_limit_small_bet_before_the_draw__D2() -> None:
    hand = DrawHand(FL, [1000] * 3, seed=1)
    legal = hand.legal_actions()
    assert legal.player == 2
    assert legal.call_amount == 100
    assert legal.raise_kind is RAISE
    assert legal.to_choices == (200,)
    assert (legal.min_to, legal.max_to) == (200, 200)
    with pytest.raises(IllegalActionError):
        hand.act(Action.raise_to(250))
    with pytest.raises(IllegalActionError):
        hand.act(Action.raise_to(300))


def test_fixed_limit_big_bet_after_the_draw__D2() -> None:
    hand = limp_three_handed(FL)
    legal = hand.legal_actions()
    assert legal.player == 0
    assert legal.raise_kind is BET
    assert legal.to_choices == (200,)
    hand.act(Action.bet(200))
    assert hand.legal_actions().to_choices == (400,)


def test_fixed_limit_cap_is_big_blind_plus_three_raises_before_draw__D2() -> None:
    hand = DrawHand(FL, [5000] * 4, seed=1)
    # The big blind is the round's bet: three raises cap it at 400.
    play(hand, (2, Action.raise_to(200)), (3, Action.raise_to(300)))
    assert hand.legal_actions().to_choices == (400,)
    hand.act(Action.raise_to(400), 0)
    legal = hand.legal_actions()
    assert legal.player == 1
    assert legal.kinds == (FOLD, CALL)
    assert legal.call_amount == 300
    assert legal.raise_kind is None
    with pytest.raises(IllegalActionError):
        hand.act(Action.raise_to(500))
    play(hand, (1, Action.call()), (2, Action.call()), (3, Action.call()))
    assert hand.phase is Phase.DRAWING
    assert hand.pot_total() == 1600
    assert hand.stacks == [4600] * 4


def test_fixed_limit_cap_is_bet_plus_three_raises_after_draw__D2() -> None:
    hand = limp_three_handed(FL, stacks=5000)
    play(
        hand,
        (0, Action.bet(200)),
        (1, Action.raise_to(400)),
        (2, Action.raise_to(600)),
        (0, Action.raise_to(800)),
    )
    legal = hand.legal_actions()
    assert legal.player == 1
    assert legal.kinds == (FOLD, CALL)
    assert legal.call_amount == 400
    play(hand, (1, Action.call()), (2, Action.call()))
    assert hand.is_over
    assert hand.result is not None
    assert sum(hand.result.final_stacks) == 15000
    assert hand.result.contributed == [900, 900, 900]


def test_fixed_limit_heads_up_is_uncapped__D2() -> None:
    hand = DrawHand(FL, [5000, 5000], seed=1)
    expected_to = 200
    for _ in range(8):  # far beyond a bet and three raises
        legal = hand.legal_actions()
        assert legal.raise_kind is RAISE
        assert legal.to_choices == (expected_to,)
        hand.act(Action.raise_to(expected_to))
        expected_to += 100
    assert hand.bets == [900, 800]  # index 0 (big blind) made the last raise to 900
    assert hand.legal_actions().to_choices == (1000,)


def test_fixed_limit_capped_round_stays_capped_when_a_fold_leaves_two__D2() -> None:
    hand = DrawHand(FL, [5000] * 3, seed=1)
    play(
        hand,
        (2, Action.raise_to(200)),
        (0, Action.raise_to(300)),
        (1, Action.raise_to(400)),  # cap: the blind and three raises
        (2, Action.fold()),
    )
    legal = hand.legal_actions()
    assert legal.player == 0
    assert legal.kinds == (FOLD, CALL)
    assert legal.call_amount == 100


def test_fixed_limit_uncapped_once_only_two_players_can_bet__D2() -> None:
    # Three in the hand, but the UTG player is all-in: two can bet, so no cap.
    hand = DrawHand(FL, [5000, 5000, 100], seed=1)
    play(hand, (2, Action.call()))  # all-in for the big blind
    assert hand.all_in[2]
    play(
        hand,
        (0, Action.raise_to(200)),
        (1, Action.raise_to(300)),
        (0, Action.raise_to(400)),
        (1, Action.raise_to(500)),
    )
    assert hand.legal_actions().to_choices == (600,)


def test_fixed_limit_short_all_in_raise_neither_counts_nor_reopens__D2() -> None:
    hand = DrawHand(FL, [350, 5000, 5000, 5000], seed=1)
    play(hand, (2, Action.raise_to(200)), (3, Action.raise_to(300)))
    legal = hand.legal_actions()
    assert legal.player == 0
    assert legal.to_choices == (350,)  # all-in short of the full raise to 400
    hand.act(Action.raise_to(350))
    assert hand.all_in[0]
    # The short all-in is not a raise for the cap: the big blind may still raise.
    legal = hand.legal_actions()
    assert legal.player == 1
    assert legal.call_amount == 250
    assert legal.to_choices == (450,)
    hand.act(Action.call())
    legal = hand.legal_actions()
    assert legal.player == 2  # faced the full raise to 300 since acting: may raise
    assert legal.to_choices == (450,)
    hand.act(Action.call())
    legal = hand.legal_actions()
    assert legal.player == 3  # only the short all-in since acting: call or fold
    assert legal.kinds == (FOLD, CALL)
    assert legal.call_amount == 50
    hand.act(Action.call())
    assert hand.phase is Phase.DRAWING
    assert hand.pot_total() == 1400


def test_pot_limit_max_raise_is_the_pot_after_the_call__D2() -> None:
    hand = DrawHand(PL, [10000] * 4, seed=1)
    # Blinds 50/100: pot 150, UTG calls 100 -> pot 250 -> may raise by 250 to 350.
    legal = hand.legal_actions()
    assert legal.player == 2
    assert legal.to_choices == ()
    assert (legal.min_to, legal.max_to) == (200, 350)
    with pytest.raises(IllegalActionError):
        hand.act(Action.raise_to(351))
    hand.act(Action.raise_to(350))
    # Button: pot 500, calls 350 -> 850 -> raise to 350 + 850 = 1200; min 350 + 250.
    legal = hand.legal_actions()
    assert legal.player == 3
    assert (legal.min_to, legal.max_to) == (600, 1200)
    hand.act(Action.call())
    # Small blind: pot 850, calls 300 -> 1150 -> raise to 350 + 1150 = 1500.
    legal = hand.legal_actions()
    assert legal.player == 0
    assert legal.call_amount == 300
    assert (legal.min_to, legal.max_to) == (600, 1500)
    hand.act(Action.raise_to(1500))
    # Big blind: pot 2300, calls 1400 -> 3700 -> raise to 1500 + 3700 = 5200;
    # the minimum repeats the last raise (1150).
    legal = hand.legal_actions()
    assert legal.player == 1
    assert legal.call_amount == 1400
    assert (legal.min_to, legal.max_to) == (2650, 5200)


def test_pot_limit_bet_after_draw_at_most_the_pot__D2() -> None:
    hand = limp_three_handed(PL, stacks=5000)
    legal = hand.legal_actions()  # pot 300
    assert legal.raise_kind is BET
    assert (legal.min_to, legal.max_to) == (100, 300)
    hand.act(Action.bet(300))
    legal = hand.legal_actions()  # pot 600, call 300 -> 900
    assert (legal.min_to, legal.max_to) == (600, 1200)


def test_pot_limit_max_raise_limited_by_stack__D2() -> None:
    hand = DrawHand(PL, [10000, 10000, 250], seed=1)
    legal = hand.legal_actions()
    assert (legal.min_to, legal.max_to) == (200, 250)


def test_pot_limit_and_no_limit_have_no_raise_cap__D2() -> None:
    for config in (PL, NL):
        hand = DrawHand(config, [10**6] * 4, seed=1)
        for _ in range(6):
            legal = hand.legal_actions()
            assert legal.raise_kind is RAISE
            hand.act(Action.raise_to(legal.min_to or 0))
        assert hand.legal_actions().raise_kind is RAISE


def test_no_limit_min_raise_is_the_previous_bet_or_raise__D2() -> None:
    hand = DrawHand(NL, [10000] * 4, seed=1)
    legal = hand.legal_actions()
    assert (legal.min_to, legal.max_to) == (200, 10000)  # at least the big blind
    with pytest.raises(IllegalActionError):
        hand.act(Action.raise_to(199))
    hand.act(Action.raise_to(300))  # a raise of 200
    legal = hand.legal_actions()
    assert (legal.min_to, legal.max_to) == (500, 10000)
    with pytest.raises(IllegalActionError):
        hand.act(Action.raise_to(499))
    hand.act(Action.raise_to(800))  # a raise of 500
    legal = hand.legal_actions()
    assert legal.player == 0
    assert (legal.min_to, legal.max_to) == (1300, 10000)  # small blind: 50 + 9950


def test_no_limit_min_bet_after_draw_is_the_big_blind__D2() -> None:
    hand = limp_three_handed(NL)
    legal = hand.legal_actions()
    assert legal.raise_kind is BET
    assert (legal.min_to, legal.max_to) == (100, 900)
    hand.act(Action.bet(150))
    assert (hand.legal_actions().min_to, hand.legal_actions().max_to) == (300, 900)


def test_no_limit_all_in_bet_below_big_blind_min_raise_still_a_big_blind__D2() -> None:
    hand = DrawHand(NL, [1000, 150, 1000], seed=7)
    play(hand, (2, Action.call()), (0, Action.call()), (1, Action.check()))
    stand_pat_all(hand)
    hand.act(Action.check(), 0)
    legal = hand.legal_actions()
    assert legal.player == 1
    assert (legal.min_to, legal.max_to) == (50, 50)  # all-in for less than the BB
    hand.act(Action.bet(50))
    legal = hand.legal_actions()
    assert legal.player == 2
    assert legal.call_amount == 50
    assert (legal.min_to, legal.max_to) == (150, 900)
    hand.act(Action.raise_to(150))
    legal = hand.legal_actions()
    assert legal.player == 0
    assert (legal.min_to, legal.max_to) == (250, 900)


def test_no_limit_all_in_short_of_a_full_raise_does_not_reopen__D2() -> None:
    hand = DrawHand(NL, [10000, 10000, 10000, 400], seed=1)
    hand.act(Action.raise_to(300), 2)  # UTG raises by 200
    legal = hand.legal_actions()
    assert (legal.min_to, legal.max_to) == (400, 400)  # only all-in, short of 500
    hand.act(Action.raise_to(400), 3)  # all-in: a raise of 100 only
    legal = hand.legal_actions()
    assert legal.player == 0
    assert (legal.min_to, legal.max_to) == (600, 10000)  # not yet acted: may raise
    play(hand, (0, Action.fold()), (1, Action.call()))
    legal = hand.legal_actions()
    assert legal.player == 2
    assert legal.kinds == (FOLD, CALL)  # already acted, not facing a full raise
    assert legal.call_amount == 100
    assert legal.raise_kind is None
    with pytest.raises(IllegalActionError):
        hand.act(Action.raise_to(1000))
    hand.act(Action.call())
    assert hand.phase is Phase.DRAWING


def test_no_limit_full_raise_after_short_all_in_reopens__D2() -> None:
    hand = DrawHand(NL, [10000, 10000, 10000, 400], seed=1)
    play(hand, (2, Action.raise_to(300)), (3, Action.raise_to(400)))
    hand.act(Action.raise_to(600), 0)  # a full raise over the all-in
    legal = hand.legal_actions()
    assert legal.player == 1
    assert (legal.min_to, legal.max_to) == (800, 10000)
    hand.act(Action.fold())
    legal = hand.legal_actions()
    assert legal.player == 2
    assert legal.raise_kind is RAISE
    assert (legal.min_to, legal.max_to) == (800, 10000)


def test_pot_limit_all_in_short_of_a_full_raise_does_not_reopen__D2() -> None:
    hand = DrawHand(PL, [10000, 10000, 10000, 350], seed=1)
    play(hand, (2, Action.raise_to(250)))  # raise by 150 (pot allowed 350)
    legal = hand.legal_actions()
    assert (legal.min_to, legal.max_to) == (350, 350)  # min 400 > stack: all-in only
    play(hand, (3, Action.raise_to(350)), (0, Action.call()), (1, Action.call()))
    legal = hand.legal_actions()
    assert legal.player == 2
    assert legal.kinds == (FOLD, CALL)
    assert legal.call_amount == 100
