# ruff: noqa: N802  (test names end with the docs/rules.md rule ID, e.g. __S8)
"""Audit scenarios, Seven Card Stud betting: the bring-in and completion (S5), the
clock on third street (S10), first to act (S6), the open pair (S7a), the cap (S8),
check-raising (S9) and uncalled bets (G6).

What the audit scenarios are and their stakes: ``audit_scenarios.py``.
"""

from __future__ import annotations

from poker_rules import Action, StudConfig, StudHand, TimeoutPolicy

from .audit_scenarios import pots_of
from .helpers import check_or_call_down, check_or_call_until, menu, new_stud, play
from .stud_scenarios import FIFTH, FOURTH, P0, P1, P2, SIXTH

# ====================================================================== S5 bring-in


# Five players: 1 and 2 are all-in from the ante and hold the two lowest door cards.
FIVE_WITH_TWO_ALL_IN = [
    "As Ad Qh 4c 5c 6c 7c",
    "3d 4d 2c 2s 2h Jd Qc",  # door 2c: the bring-in, but all-in on the ante
    "3h 4h 3c 5d 6d 7d 8d",  # door 3c: next lowest, also all-in
    "Ks Kd 9d",
    "Qs Js Kc",
]


def test_bring_in_passes_over_every_player_all_in_from_the_ante__S5() -> None:
    hand = new_stud(FIVE_WITH_TWO_ALL_IN, [10_000, 25, 25, 10_000, 10_000])
    assert hand.bring_in_player == 1
    # Both low cards are all-in: player 3, next to the left, may bring in or fold.
    assert menu(hand) == {
        "player": 3,
        "kinds": ("fold", "bring_in", "complete"),
        "call": None,
        "bring_in": 50,
        "to": (100,),
    }
    hand.act(Action.fold(), 3)
    # The next player left may in turn bring in or fold.
    assert menu(hand) == {
        "player": 4,
        "kinds": ("fold", "bring_in", "complete"),
        "call": None,
        "bring_in": 50,
        "to": (100,),
    }
    hand.act(Action.bring_in(), 4)
    assert menu(hand) == {
        "player": 0,
        "kinds": ("fold", "call", "complete"),
        "call": 50,
        "bring_in": None,
        "to": (100,),
    }
    hand.act(Action.call(), 0)
    assert hand.street == FOURTH


def test_every_substitute_folds_no_bring_in_and_no_betting__S5() -> None:
    hand = new_stud(FIVE_WITH_TWO_ALL_IN, [10_000, 25, 25, 10_000, 10_000])
    play(hand, (3, Action.fold()), (4, Action.fold()))
    # Player 0 is the only one left who can bet and owes nothing: nothing to decide.
    assert hand.is_over
    assert pots_of(hand) == [(125, (0, 1, 2))]


def test_short_all_in_completion_next_player_may_call_it_or_complete__S5() -> None:
    # Player 1 has 80 after the ante; player 0 (2c) brings in.
    hand = new_stud(["Ah Kh 2c", "Ad Kd 6d", "As Ks 7s"], [10_000, 105, 10_000])
    hand.act(Action.bring_in(), 0)
    assert menu(hand) == {
        "player": 1,
        "kinds": ("fold", "call", "complete"),
        "call": 50,
        "bring_in": None,
        "to": (80,),
    }
    hand.act(Action.complete(80), 1)
    assert hand.all_in[1]
    # Not a full completion: the next player may call 80 or complete to 100.
    assert menu(hand) == {
        "player": 2,
        "kinds": ("fold", "call", "complete"),
        "call": 80,
        "bring_in": None,
        "to": (100,),
    }
    hand.act(Action.call(), 2)
    # The bring-in has made no voluntary decision yet: it may complete to 100.
    assert menu(hand) == {
        "player": 0,
        "kinds": ("fold", "call", "complete"),
        "call": 30,
        "bring_in": None,
        "to": (100,),
    }
    hand.act(Action.complete(100), 0)
    # The completion is the round's bet (a full bet): player 2 may raise.
    assert menu(hand) == {
        "player": 2,
        "kinds": ("fold", "call", "raise"),
        "call": 20,
        "bring_in": None,
        "to": (200,),
    }


def test_short_all_in_completion_does_not_reopen_for_callers__S5() -> None:
    hand = new_stud(["Ah Kh 2c", "As Ks 7s", "Ad Kd 6d"], [10_000, 10_000, 105])
    play(hand, (0, Action.bring_in()), (1, Action.call()), (2, Action.complete(80)))
    assert menu(hand)["player"] == 0  # the bring-in may still complete
    hand.act(Action.call(), 0)
    # Player 1 called the bring-in and faces only 30 more: call or fold.
    assert menu(hand) == {
        "player": 1,
        "kinds": ("fold", "call"),
        "call": 30,
        "bring_in": None,
        "to": (),
    }


def test_bring_in_timeout_under_check_or_fold_still_posts__S10() -> None:
    config = StudConfig(timeout_policy=TimeoutPolicy.CHECK_OR_FOLD)
    hand = new_stud(["Ah Kh 2c", "Ad Kd 6d", "As Ks 7s"], config=config)
    assert hand.timeout() == Action.bring_in()
    assert hand.bets[0] == 50
    assert not hand.folded[0]


def test_substitute_bring_in_timeout_folds_under_both_policies__S10() -> None:
    for policy in TimeoutPolicy:
        config = StudConfig(timeout_policy=policy)
        hand = new_stud(FIVE_WITH_TWO_ALL_IN, [10_000, 25, 25, 10_000, 10_000], config)
        assert hand.timeout() == Action.fold()
        assert hand.folded[3]
        assert menu(hand)["player"] == 4
        assert menu(hand)["kinds"] == ("fold", "bring_in", "complete")


def test_forced_bring_in_only_times_out_to_a_fold_facing_completion__S10() -> None:
    hand = new_stud(["Ah Kh 2c", "Ad Kd 6d", "As Ks 7s"])
    play(hand, (0, Action.bring_in()), (1, Action.complete(100)), (2, Action.call()))
    assert hand.timeout() == Action.fold()  # the bring-in was forced, not voluntary
    assert hand.folded[0]


# ====================================================================== S6 first to act


def test_trips_showing_beat_two_pair_on_sixth_street__S6() -> None:
    hand = new_stud(
        [
            "2c 3c Ks Kd 7s 7d 4h",  # K-K-7-7 two pair on sixth
            "2d 3d 5s 5d 5h 9c 4s",  # 5-5-5-9 trips on sixth
            "2h 3h As Ad Ac Qh 4d",  # A-A-A only on sixth? A-A-A-Q: trips aces
        ]
    )
    check_or_call_until(hand, SIXTH)
    assert hand.to_act == 2  # trip aces beat trip fives beat two pair


def test_pair_kickers_decide_on_sixth_street__S6() -> None:
    hand = new_stud(
        [
            "2c 3c Ks Kd 9s 4h 5h",  # K-K-9-4
            "2d 3d Kh Kc 9d 6h 5d",  # K-K-9-6: better kicker
            "2h 3h Qs Qd Jc Ts 5c",  # Q-Q-J-T
        ]
    )
    check_or_call_until(hand, SIXTH)
    assert hand.to_act == 1


def test_equal_boards_non_adjacent_seats_lowest_seat_opens__S6() -> None:
    hand = new_stud(
        [
            "2c 3c 4s 6h 9c Jc",  # 4-6-9-J (worse)
            "2d 3d Ks Qh 7s 5s",  # K-Q-7-5
            "2h 3h 4d 6d 9d Jd",  # 4-6-9-J
            "2s 3s Kd Qd 7d 5d",  # K-Q-7-5, equal to seat 2's board
        ]
    )
    check_or_call_until(hand, SIXTH)
    assert hand.to_act == 1


def test_equal_best_boards_first_all_in_next_player_left_acts__S6() -> None:
    # Player 1 (25 + 100: all-in after third street) and player 3 show K-Q.
    hand = new_stud(
        [
            "2c 3c 4s 6h 9c Jc 8h",
            "2d 3d Ks Qh 7s 5s 8s",
            "2h 3h 4d 6d 9d Jd 8d",
            "Ac Ah Kd Qd 7d 5d 8c",
        ],
        [10_000, 125, 10_000, 10_000],
    )
    # 4d (player 2) brings in; player 3 completes; everyone calls.
    play(
        hand,
        (2, Action.bring_in()),
        (3, Action.complete(100)),
        (0, Action.call()),
        (1, Action.call()),
        (2, Action.call()),
    )
    assert hand.all_in[1]
    assert hand.street == FOURTH
    # Best board K-Q: players 1 and 3; player 1 is closest to the dealer's left but
    # all-in, so the next player to its left who can act opens.
    assert hand.to_act == 2


# ====================================================================== S7a open pair


def test_open_pair_option_stays_after_the_paired_player_folds__S7a() -> None:
    hand = new_stud(
        [
            "As Ad 9c 9d",  # open nines on fourth street (player 0 opens)
            "Ks Kd Tc 8s",
            "Qs Qd 2c 3h",  # 2c brings in
        ]
    )
    check_or_call_until(hand, FOURTH)
    assert hand.to_act == 0
    play(hand, (0, Action.check()), (1, Action.check()), (2, Action.bet(100)))
    hand.act(Action.fold(), 0)  # the pair is gone from the table
    # The option was set by the pair shown on fourth street: it holds for the street.
    assert menu(hand) == {
        "player": 1,
        "kinds": ("fold", "call", "raise"),
        "call": 100,
        "bring_in": None,
        "to": (200, 300),
    }


def test_open_pair_of_an_all_in_player_gives_the_option__S7a() -> None:
    hand = new_stud(
        [
            "Ah Ac 2s 2d 4h 4d 4s",  # all-in on third street: pair of deuces showing
            "Ks Kd Tc 8s 5h 5d 5s",
            "Qs Qd 3d Jh 6h 6d 6s",
        ],
        [75, 10_000, 10_000],
    )
    hand.act(Action.bring_in(), 0)  # 2s: all-in for the bring-in
    play(hand, (1, Action.call()), (2, Action.call()))
    assert hand.street == FOURTH
    assert hand.to_act == 1  # the deuces are all-in: the next player left opens
    assert menu(hand) == {
        "player": 1,
        "kinds": ("check", "bet"),
        "call": None,
        "bring_in": None,
        "to": (100, 200),
    }


# ====================================================================== S8 cap


def fifth(hands: list[str], stacks: list[int] | int = 10_000) -> StudHand:
    hand = new_stud(hands, stacks)
    check_or_call_until(hand, FIFTH)
    assert hand.to_act == 0
    return hand


def test_cap_lifted_when_a_full_all_in_raise_leaves_two_who_can_bet__S8() -> None:
    # Player 2 has 600 left on fifth street: a full raise to 600 puts it all-in.
    hand = fifth([P0, P1, P2], [10_000, 10_000, 675])
    play(hand, (0, Action.bet(200)), (1, Action.raise_to(400)), (2, Action.raise_to(600)))
    assert hand.all_in[2]
    hand.act(Action.raise_to(800), 0)  # the fourth bet, but only two can still bet
    assert menu(hand) == {
        "player": 1,
        "kinds": ("fold", "call", "raise"),
        "call": 400,
        "bring_in": None,
        "to": (1000,),
    }
    play(hand, (1, Action.raise_to(1000)), (0, Action.raise_to(1200)))
    assert menu(hand)["to"] == (1400,)


def test_capped_round_stays_capped_when_an_all_in_call_leaves_two__S8() -> None:
    hand = fifth([P0, P1, P2], [10_000, 10_000, 875])
    play(
        hand,
        (0, Action.bet(200)),
        (1, Action.raise_to(400)),
        (2, Action.raise_to(600)),
        (0, Action.raise_to(800)),  # capped with three players who can bet
        (1, Action.call()),
        (2, Action.call()),  # all-in for exactly 800
    )
    assert hand.street == SIXTH


def test_heads_up_after_a_capped_round_raises_unlimited_next_street__S8() -> None:
    hand = fifth([P0, P1, P2])
    play(
        hand,
        (0, Action.bet(200)),
        (1, Action.raise_to(400)),
        (2, Action.raise_to(600)),
        (0, Action.raise_to(800)),
        (1, Action.call()),
        (2, Action.call()),
    )
    assert hand.street == SIXTH and hand.to_act == 0
    play(
        hand,
        (0, Action.bet(200)),
        (1, Action.raise_to(400)),
        (2, Action.fold()),
        (0, Action.raise_to(600)),
        (1, Action.raise_to(800)),
        (0, Action.raise_to(1000)),
    )
    assert menu(hand) == {
        "player": 1,
        "kinds": ("fold", "call", "raise"),
        "call": 200,
        "bring_in": None,
        "to": (1200,),
    }


def test_check_raise_and_reraise__S9() -> None:
    hand = fifth([P0, P1, P2])
    play(hand, (0, Action.check()), (1, Action.check()), (2, Action.bet(200)))
    play(hand, (0, Action.raise_to(400)), (1, Action.fold()))
    assert menu(hand) == {
        "player": 2,
        "kinds": ("fold", "call", "raise"),
        "call": 200,
        "bring_in": None,
        "to": (600,),
    }


# ====================================================================== G6 uncalled bets


def test_raise_called_only_by_a_short_all_in_excess_returned__G6() -> None:
    # Player 2 has 300 left on fifth street.
    hand = fifth([P0, P1, P2], [10_000, 10_000, 375])
    play(
        hand,
        (0, Action.bet(200)),
        (1, Action.raise_to(400)),
        (2, Action.call()),  # all-in for 300
        (0, Action.fold()),
    )
    check_or_call_down(hand)
    assert hand.result is not None
    assert hand.result.uncalled == (1, 100)
    # Main pot: 3 x 75 (third and fourth) + 200 (P0) + 300 + 300.
    assert pots_of(hand) == [(1025, (1, 2))]
