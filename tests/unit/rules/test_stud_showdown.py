# ruff: noqa: N802  (test names end with the docs/rules.md rule ID, e.g. __S5)
"""Seven Card Stud scenarios, the showdown: who shows first (S12) and the odd chips
(S13) of docs/rules.md.

Conventions (rule IDs, scripted decks, the default table): ``stud_scenarios.py``.
"""

from __future__ import annotations

from poker_rules import Action, StudConfig, StudHand
from poker_rules.events import Muck, Show
from poker_rules.pots import Pot

from .helpers import (
    awards_by_player,
    cards,
    check_or_call_down,
    check_or_call_until,
    events_of,
    menu,
    new_stud,
    play,
    pot_awards,
)
from .stud_scenarios import P0, P1, P2, SEVENTH

# ====================================================================== S12 showdown


def to_seventh() -> StudHand:
    hand = new_stud([P0, P1, P2])
    check_or_call_until(hand, SEVENTH)
    assert hand.to_act == 0  # K-Q-J-9 showing
    return hand


def test_last_raiser_on_the_river_shows_first__S12() -> None:
    hand = to_seventh()
    play(
        hand,
        (0, Action.bet(200)),
        (1, Action.raise_to(400)),
        (2, Action.call()),
        (0, Action.call()),
    )
    result = hand.result
    assert result is not None
    # Player 1 (pair of kings) shows first, player 2 (two pair) beats it and
    # shows, player 0 (pair of aces) is beaten and mucks.
    assert result.shown == [1, 2]
    assert result.mucked == [0]
    assert awards_by_player(hand) == {2: 3 * 475}
    assert hand.stacks == [9_525, 9_525, 10_950]


def test_bettor_shows_first_after_check_bet_calls__S12() -> None:
    hand = to_seventh()
    play(
        hand,
        (0, Action.check()),
        (1, Action.bet(200)),
        (2, Action.call()),
        (0, Action.call()),
    )
    assert hand.result is not None
    assert hand.result.shown == [1, 2]
    assert hand.result.mucked == [0]


def test_checked_through_first_to_act_shows_first__S12() -> None:
    hand = to_seventh()
    play(hand, (0, Action.check()), (1, Action.check()), (2, Action.check()))
    assert hand.result is not None
    # Player 0 shows first; player 1's kings are beaten by the aces: muck.
    assert hand.result.shown == [0, 2]
    assert hand.result.mucked == [1]
    assert awards_by_player(hand) == {2: 225}


def test_mucked_hands_stay_in_the_history__S12() -> None:
    hand = to_seventh()
    play(hand, (0, Action.check()), (1, Action.check()), (2, Action.check()))
    (muck,) = events_of(hand, Muck)
    assert muck.player == 1
    assert muck.cards == tuple(cards(P1))
    shows = events_of(hand, Show)
    assert [(e.player, e.cards) for e in shows] == [(0, tuple(cards(P0))), (2, tuple(cards(P2)))]


def test_all_in_with_no_more_betting_every_hand_is_shown__S12() -> None:
    hand = new_stud([P0, P1, P2], [10_000, 75, 75])
    play(hand, (2, Action.bring_in()), (0, Action.call()), (1, Action.call()))
    assert hand.all_in == [False, True, True]
    assert hand.is_over  # dealt out without betting
    result = hand.result
    assert result is not None
    assert sorted(result.shown) == [0, 1, 2]
    assert result.mucked == []
    assert result.pots == [Pot(225, (0, 1, 2))]
    assert awards_by_player(hand) == {2: 225}
    assert hand.stacks == [9_925, 0, 225]


def test_all_in_call_on_the_river_every_hand_is_shown__S12() -> None:
    # Heads-up, player 1 calls its last 150 on the river: nobody can bet any
    # more, so both hands are shown although player 1's kings are beaten.
    hand = new_stud([P0, P1], [10_000, 225])
    check_or_call_until(hand, SEVENTH)
    hand.act(Action.bet(200), 0)
    assert menu(hand) == {
        "player": 1,
        "kinds": ("fold", "call"),
        "call": 150,
        "bring_in": None,
        "to": (),
    }
    hand.act(Action.call(), 1)
    result = hand.result
    assert result is not None
    assert result.uncalled == (0, 50)
    assert result.shown == [0, 1]  # the bettor first
    assert result.mucked == []
    assert pot_awards(hand) == [(0, 0, 450)]


def test_player_all_in_earlier_every_hand_is_shown__S12() -> None:
    # Player 1 is all-in from third street; players 0 and 2 check the river: all
    # three hands are shown, player 1's beaten kings included.
    hand = new_stud([P0, P1, P2], [10_000, 75, 10_000])
    check_or_call_until(hand, SEVENTH)
    assert hand.all_in == [False, True, False]
    play(hand, (0, Action.check()), (2, Action.check()))
    result = hand.result
    assert result is not None
    assert result.shown == [0, 1, 2]
    assert result.mucked == []
    assert result.pots == [Pot(225, (0, 1, 2))]
    assert awards_by_player(hand) == {2: 225}


# ====================================================================== S13 split


def test_odd_chip_to_highest_card_among_all_the_players_cards__S13() -> None:
    # Both play the queen-high straight 8-9-T-J-Q.  Player 0's highest card is
    # the As it does not play; player 1's is the Qs (which beats player 0's Qc).
    hand = new_stud(
        [
            "As 2d 8c 9d Ts Jh Qc",
            "3c 4h 8d 9h Tc Jd Qs",
            "Ah Kh Kd",
        ]
    )
    play(hand, (0, Action.bring_in()), (1, Action.call()), (2, Action.fold()))
    check_or_call_down(hand)
    assert hand.result is not None
    assert hand.result.pots == [Pot(175, (0, 1))]
    assert pot_awards(hand) == [(0, 0, 88), (0, 1, 87)]
    assert hand.stacks == [10_013, 10_012, 9_975]


def test_odd_chip_by_suit_when_highest_ranks_tie__S13() -> None:
    # Both play 9-T-J-Q-K; highest cards Kh (player 0) and Ks (player 1).
    hand = new_stud(
        [
            "3c 4d 9c Th Jd Qc Kh",
            "3d 4h 9d Tc Jh Qd Ks",
            "Ah Ad As",
        ]
    )
    play(hand, (0, Action.bring_in()), (1, Action.call()), (2, Action.fold()))
    check_or_call_down(hand)
    assert pot_awards(hand) == [(0, 0, 87), (0, 1, 88)]


STRAIGHT_X = "4d 9c 3c Th Jd Qc Ks"
STRAIGHT_Y = "4h 9d 3d Tc Jh Qd Kh"
STRAIGHT_Z = "4c 9h 3h Td Jc Qh Kd"


def test_no_player_gets_more_than_one_odd_chip_from_a_pot__S13() -> None:
    # Three identical K-high straights; 275 does not split by 3: the two odd chips
    # go to the Ks and the Kh, one each.
    hand = new_stud([STRAIGHT_X, STRAIGHT_Y, STRAIGHT_Z, "5s 6s As", "7s 8s Ah"])
    play(
        hand,
        (0, Action.bring_in()),
        (1, Action.call()),
        (2, Action.call()),
        (3, Action.fold()),
        (4, Action.fold()),
    )
    check_or_call_down(hand)
    assert hand.result is not None
    assert hand.result.pots == [Pot(275, (0, 1, 2))]
    assert pot_awards(hand) == [(0, 0, 92), (0, 1, 92), (0, 2, 91)]
    assert hand.stacks == [10_017, 10_017, 10_016, 9_975, 9_975]


def test_main_pot_and_side_pot_split_separately__S13() -> None:
    config = StudConfig(ante=5, bring_in=10, small_bet=20, big_bet=40)
    hand = new_stud(
        [
            STRAIGHT_X,  # 12 chips: ante 5, short bring-in 7
            STRAIGHT_Y,
            STRAIGHT_Z,
            "Ac Ah 4s 5s",  # calls the completion, folds on fourth
            "As Ad 6s",  # folds on third
        ],
        [12, 1000, 1000, 1000, 1000],
        config,
    )
    assert menu(hand)["bring_in"] == 7
    play(
        hand,
        (0, Action.bring_in()),
        (1, Action.complete(20)),
        (2, Action.call()),
        (3, Action.call()),
        (4, Action.fold()),
    )
    assert hand.to_act == 1  # 3-T boards tie; player 0 is closest but all-in
    play(hand, (1, Action.bet(20)), (2, Action.call()), (3, Action.fold()))
    check_or_call_down(hand)
    result = hand.result
    assert result is not None
    assert result.pots == [Pot(53, (0, 1, 2)), Pot(79, (1, 2))]
    # Main pot 53 = 3 x 17 + 2: odd chips to the Ks and the Kh.
    # Side pot 79 = 2 x 39 + 1: odd chip to the Kh (player 0 is not in it).
    assert pot_awards(hand) == [(0, 0, 18), (0, 1, 18), (0, 2, 17), (1, 1, 40), (1, 2, 39)]
    assert hand.stacks == [18, 1013, 1011, 975, 995]
