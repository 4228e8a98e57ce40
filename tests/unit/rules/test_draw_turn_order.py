# ruff: noqa: N802  (test names end with the docs/rules.md rule ID, e.g. __D5)
"""Five Card Draw 7-A scenarios, who acts: the first round and the big blind's
option (D5), the second round after the draw (D7) of docs/rules.md.

Conventions (player indexes, preset decks): ``draw_scenarios.py``.
"""

from __future__ import annotations

import pytest

from poker_rules import Action, DrawHand, IllegalActionError, Phase

from .draw_helpers import play, stand_pat_all
from .draw_scenarios import BET, CALL, CHECK, FL, FOLD, HANDS4, NL, RAISE, discard, four_handed

# ---------------------------------------------------------------- D5 first round


def test_first_round_starts_left_of_big_blind_who_cannot_check__D5() -> None:
    hand = DrawHand(FL, [1000] * 5, seed=1)
    legal = hand.legal_actions()
    assert legal.player == 2
    assert not legal.can_check
    assert legal.kinds == (FOLD, CALL, RAISE)
    assert legal.call_amount == 100
    with pytest.raises(IllegalActionError):
        hand.act(Action.check())
    assert hand.to_act == 2  # rejected action changes nothing
    play(hand, (2, Action.fold()), (3, Action.call()), (4, Action.call()))
    assert hand.to_act == 0


def test_big_blind_option_check_or_raise__D5() -> None:
    hand = DrawHand(FL, [1000] * 3, seed=1)
    play(hand, (2, Action.call()), (0, Action.call()))
    legal = hand.legal_actions()
    assert legal.player == 1
    assert legal.can_check
    assert legal.call_amount is None
    assert legal.kinds == (CHECK, RAISE)
    assert legal.to_choices == (200,)
    hand.act(Action.check())
    assert hand.phase is Phase.DRAWING
    assert hand.pot_total() == 300
    assert hand.stacks == [900, 900, 900]


def test_big_blind_option_raise_reopens_the_round__D5() -> None:
    hand = DrawHand(FL, [1000] * 3, seed=1)
    play(hand, (2, Action.call()), (0, Action.call()), (1, Action.raise_to(200)))
    legal = hand.legal_actions()
    assert legal.player == 2
    assert legal.call_amount == 100
    assert legal.to_choices == (300,)
    play(hand, (2, Action.call()), (0, Action.call()))
    assert hand.phase is Phase.DRAWING
    assert hand.stacks == [800, 800, 800]


def test_big_blind_option_no_limit_raise_range__D5() -> None:
    hand = DrawHand(NL, [1000] * 3, seed=1)
    play(hand, (2, Action.call()), (0, Action.call()))
    legal = hand.legal_actions()
    assert legal.can_check
    assert (legal.min_to, legal.max_to) == (200, 1000)


def test_no_option_for_the_big_blind_after_a_raise__D5() -> None:
    hand = DrawHand(FL, [1000] * 3, seed=1)
    play(hand, (2, Action.raise_to(200)), (0, Action.call()))
    legal = hand.legal_actions()
    assert legal.player == 1
    assert not legal.can_check
    assert legal.call_amount == 100
    hand.act(Action.call())
    assert hand.phase is Phase.DRAWING


def test_everyone_folds_to_the_big_blind__D5() -> None:
    hand = DrawHand(FL, [1000] * 3, seed=1)
    play(hand, (2, Action.fold()), (0, Action.fold()))
    assert hand.result is not None
    assert hand.result.final_stacks == [950, 1050, 1000]


# ---------------------------------------------------------------- D7 second round


def test_second_round_starts_left_of_button__D7() -> None:
    hand = four_handed()
    stand_pat_all(hand)
    assert hand.phase is Phase.BETTING
    assert hand.to_act == 0
    assert hand.final_round_opener == 0
    assert hand.bets == [0, 0, 0, 0]


def test_second_round_first_active_player_left_of_button__D7() -> None:
    hand = DrawHand(FL, [1000] * 4, seed=5)
    play(hand, (2, Action.call()), (3, Action.call()), (0, Action.fold()), (1, Action.check()))
    stand_pat_all(hand)
    assert hand.to_act == 1  # the small blind folded


def test_second_round_opener_may_fold_check_or_bet__D7() -> None:
    hand = four_handed()
    stand_pat_all(hand)
    legal = hand.legal_actions()
    assert legal.player == 0
    assert legal.kinds == (FOLD, CHECK, BET)
    assert legal.can_fold and legal.can_check
    assert legal.to_choices == (200,)
    hand.act(Action.fold())  # folding is allowed even when checking is free
    legal = hand.legal_actions()
    assert legal.player == 1
    assert legal.kinds == (FOLD, CHECK, BET)  # the next player has the same options
    hand.act(Action.bet(200))
    legal = hand.legal_actions()
    assert legal.player == 2
    assert legal.kinds == (FOLD, CALL, RAISE)


def test_draw_counts_public_until_first_action_after_draw__D7() -> None:
    hand = four_handed(fold_utg=True)
    assert hand.draw_counts == [None] * 4
    hand.act(discard("7c 7d 7h"), 0)
    assert hand.draw_counts == [3, None, None, None]
    hand.act(Action.discard(()), 1)
    hand.act(discard(HANDS4[3]), 3)
    assert hand.draw_counts == [3, 0, None, 5]
    assert hand.phase is Phase.BETTING
    assert hand.legal_actions().player == 0
    hand.act(Action.check())
    assert hand.draw_counts == [None] * 4


def test_draw_counts_hidden_after_first_action_even_a_bet__D7() -> None:
    hand = four_handed()
    play(
        hand,
        (0, discard("7c")),
        (1, discard("9c 9d")),
        (2, Action.discard(())),
        (3, discard("Kc Kd Kh Ac")),
    )
    assert hand.draw_counts == [1, 2, 0, 4]
    hand.act(Action.bet(200), 0)
    assert hand.draw_counts == [None] * 4
