# ruff: noqa: N802  (test names end with the docs/rules.md rule ID, e.g. __S5)
"""Seven Card Stud scenarios, the action clock: what a timeout does (S10 of
docs/rules.md).

Conventions (rule IDs, scripted decks, the default table): ``stud_scenarios.py``.
"""

from __future__ import annotations

from poker_rules import Action, StudConfig, TimeoutPolicy
from poker_rules.events import Timeout
from poker_rules.pots import Pot

from .helpers import events_of, menu, new_stud, play, pot_awards
from .stud_scenarios import FIFTH, P0, P2, SIXTH

# ====================================================================== S10 clock

S10_HANDS = [P0, "Ks Kh Tc 8s 7h 5c Kd", P2]  # player 1 has trip kings


def test_timeout_with_voluntary_chips_is_all_in_for_what_is_committed__S10() -> None:
    hand = new_stud(S10_HANDS)
    play(
        hand,
        (2, Action.bring_in()),
        (0, Action.complete(100)),
        (1, Action.call()),
        (2, Action.call()),
    )
    play(hand, (0, Action.check()), (1, Action.check()), (2, Action.check()))
    hand.act(Action.bet(200), 0)
    assert hand.to_act == 1
    assert hand.timeout() is None  # all-in protection, nothing is added
    assert hand.all_in[1] is True
    assert hand.protected[1] is True
    assert hand.folded[1] is False
    assert hand.stacks[1] == 10_000 - 125
    assert hand.to_act == 2
    hand.act(Action.call(), 2)
    assert hand.street == SIXTH
    play(hand, (0, Action.bet(200)), (2, Action.call()))  # player 1 never acts again
    play(hand, (0, Action.check()), (2, Action.check()))
    result = hand.result
    assert result is not None
    # Player 1 stays eligible for the pot it paid into; later bets form a side pot.
    assert result.pots == [Pot(375, (0, 1, 2)), Pot(800, (0, 2))]
    assert pot_awards(hand) == [(0, 1, 375), (1, 2, 800)]
    assert hand.stacks == [9_475, 10_250, 10_275]
    (note,) = [e for e in events_of(hand, Timeout)]
    assert (note.player, note.all_in_protection) == (1, True)


def test_timeout_with_voluntary_chips_is_all_in_even_when_check_is_free__S10() -> None:
    hand = new_stud(S10_HANDS)
    play(
        hand,
        (2, Action.bring_in()),
        (0, Action.complete(100)),
        (1, Action.call()),
        (2, Action.call()),
    )
    assert hand.to_act == 0
    assert hand.legal_actions().can_check is True
    assert hand.timeout() is None
    assert hand.all_in[0] is True
    assert hand.folded[0] is False
    assert hand.stacks[0] == 9_875
    assert menu(hand) == {
        "player": 1,
        "kinds": ("check", "bet"),
        "call": None,
        "bring_in": None,
        "to": (100,),
    }


def test_timeout_without_voluntary_chips_folds__S10() -> None:
    hand = new_stud(S10_HANDS)
    hand.act(Action.bring_in(), 2)
    assert hand.timeout() == Action.fold()  # player 0 has only the ante in
    assert hand.folded[0] is True
    assert hand.stacks[0] == 9_975
    assert hand.to_act == 1


def test_timeout_of_forced_bets_only_folds_even_when_check_is_free__S10() -> None:
    # The bring-in and the ante are forced, not voluntary: under the seed's policy
    # the hand is folded, although player 2 could have checked.
    hand = new_stud(S10_HANDS)
    play(hand, (2, Action.bring_in()), (0, Action.call()), (1, Action.call()))
    play(hand, (0, Action.check()), (1, Action.check()))
    assert hand.to_act == 2
    assert hand.legal_actions().can_check is True
    assert hand.timeout() == Action.fold()
    assert hand.folded[2] is True
    assert hand.street == FIFTH


def test_timeout_check_or_fold_checks_when_free__S10() -> None:
    config = StudConfig(timeout_policy=TimeoutPolicy.CHECK_OR_FOLD)
    hand = new_stud(S10_HANDS, 10_000, config)
    play(
        hand,
        (2, Action.bring_in()),
        (0, Action.complete(100)),
        (1, Action.call()),
        (2, Action.call()),
    )
    assert hand.to_act == 0
    assert hand.timeout() == Action.check()
    assert hand.folded[0] is False
    assert hand.all_in[0] is False
    assert hand.to_act == 1


def test_timeout_check_or_fold_folds_facing_a_bet_even_with_chips_in__S10() -> None:
    config = StudConfig(timeout_policy=TimeoutPolicy.CHECK_OR_FOLD)
    hand = new_stud(S10_HANDS, 10_000, config)
    play(
        hand,
        (2, Action.bring_in()),
        (0, Action.complete(100)),
        (1, Action.call()),
        (2, Action.call()),
    )
    play(hand, (0, Action.check()), (1, Action.bet(100)))
    assert hand.timeout() == Action.fold()  # player 2 has 125 in voluntarily
    assert hand.folded[2] is True
    assert hand.all_in[2] is False
    assert hand.stacks[2] == 9_875
    assert hand.to_act == 0


def test_timeout_of_the_bring_in_posts_it__S10() -> None:
    hand = new_stud(S10_HANDS)
    assert hand.to_act == 2
    assert hand.timeout() == Action.bring_in()
    assert hand.stacks[2] == 9_925
    assert hand.folded[2] is False
