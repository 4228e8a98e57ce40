# ruff: noqa: N802  (test names end with the RULES.md rule ID, e.g. __S8)
"""Audit scenarios: edge cases of RULES.md the per-rule suites do not reach.

Each test plays one scripted hand (preset decks, see ``helpers.py`` and
``draw_helpers.py``) and asserts the exact outcome the rule book prescribes,
including the legal-action menu a bot would be offered at each decision.
Stud stakes are the $1/$2 defaults (25 ante, 50 bring-in, 100/200) unless a test
says otherwise; draw is 100/200 with blinds 50/100.
"""

from __future__ import annotations

from poker_rules import (
    Action,
    DrawConfig,
    DrawHand,
    Phase,
    Structure,
    StudConfig,
    StudHand,
    TimeoutPolicy,
    short_deck,
)
from poker_rules.draw import Post

from .draw_helpers import check_down, draw_deck, stand_pat_all
from .draw_helpers import stud_deck as hilo_deck
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

THIRD, FOURTH, FIFTH, SIXTH, SEVENTH = range(5)
FL = DrawConfig()
PL = DrawConfig(structure=Structure.POT_LIMIT)
NL = DrawConfig(structure=Structure.NO_LIMIT)


def pots_of(hand: StudHand | DrawHand) -> list[tuple[int, tuple[int, ...]]]:
    assert hand.result is not None
    return [(p.amount, p.eligible) for p in hand.result.pots]


def draw_menu(hand: DrawHand) -> dict[str, object]:
    """The menu in compact form, with the no/pot-limit bounds."""
    legal = hand.legal_actions()
    return {
        "player": legal.player,
        "kinds": tuple(k.value for k in legal.kinds),
        "call": legal.call_amount,
        "min": legal.min_to,
        "max": legal.max_to,
        "to": legal.to_choices,
    }


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


P0 = "As Ah Kc Qd Jh 9c 8d"
P1 = "Ks Kh Tc 8s 7h 5c 4d"
P2 = "Qs Qh 9d 6s 5h 3c 3h"
P3 = "Js Jd 2c 4s 6h 7c 9s"


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


# ====================================================================== S11 river


def test_river_shortage_counts_the_burn_before_third_street__S11() -> None:
    # Eight players, burn before third, nobody folds: 1 + 24 + 3 x 9 = 52 dealt.
    config = StudConfig(burn_before_third=True)
    hand = StudHand(config, [10_000] * 8, seed=3)
    check_or_call_until(hand, SIXTH)
    assert hand.deck.remaining == 0 and len(hand.deck.burned) == 4
    check_or_call_down(hand)
    assert hand.river_outcome == "community"


def test_river_shortage_seven_players_burn_before_third_reshuffles__S11() -> None:
    # Seven players, burn before third: 1 + 21 + 3 x 8 = 46 dealt, R = 6, B = 4,
    # N = 7: R < N + 1 and R + B >= N: reshuffle, one down card each, no burn.
    config = StudConfig(burn_before_third=True)
    hand = StudHand(config, [10_000] * 7, seed=5)
    check_or_call_until(hand, SIXTH)
    assert hand.deck.remaining == 6 and len(hand.deck.burned) == 4
    check_or_call_until(hand, SEVENTH)
    assert hand.river_outcome == "reshuffled"
    assert all(len(hand.cards[i]) == 7 for i in range(7))
    assert hand.community is None


def test_river_shortage_counts_players_still_in_not_folded__S11() -> None:
    # Eight players, one folds on third street: 24 + 3 burns + 3 x 7 = 48 dealt.
    # R = 4, B = 3, N = 7: short of N + 1, R + B = 7 >= N: reshuffle and deal.
    hand = StudHand(StudConfig(), [10_000] * 8, seed=9)
    legal = hand.legal_actions()
    assert legal.bring_in_amount is not None
    hand.act(Action.bring_in())
    folder = hand.to_act
    hand.act(Action.fold())
    check_or_call_until(hand, SIXTH)
    assert hand.deck.remaining == 4 and len(hand.deck.burned) == 3
    check_or_call_until(hand, SEVENTH)
    assert hand.river_outcome == "reshuffled"
    assert folder is not None and len(hand.cards[folder]) == 3
    # The folded cards stay out: the river cards come from the stub and the burns.
    river = [e.cards[0] for e in events_of(hand, "deal") if e.street == SEVENTH]
    assert len(river) == 7
    assert not set(river) & set(hand.cards[folder])


# ====================================================================== S13 odd chips


def test_three_way_tie_odd_chips_per_pot_by_highest_card__S13() -> None:
    config = StudConfig(ante=5, bring_in=10, small_bet=20, big_bet=40)
    hand = new_stud(
        [
            "5c 6d 9c Qh 7h 8s Js",  # 5-9 straight, highest card Qh
            "5d 6h 8c Kh 7s 9d 2h",  # 5-9 straight, highest card Kh
            "5h 6s 2d Ah 7c 8d 9h",  # 5-9 straight, highest card Ah; brings in
            "Tc Td 3s Jd",  # folds on fourth street
        ],
        [1000, 1000, 22, 1000],
        config,
    )
    play(
        hand,
        (2, Action.bring_in()),
        (3, Action.call()),
        (0, Action.complete(20)),
        (1, Action.call()),
        (2, Action.call()),  # all-in: 22 in all
        (3, Action.call()),
    )
    assert hand.all_in[2] and hand.street == FOURTH
    # Best board A-2 is all-in: player 3 (J-3) acts first.
    assert hand.to_act == 3
    play(hand, (3, Action.check()), (0, Action.bet(20)), (1, Action.call()), (3, Action.fold()))
    check_or_call_down(hand)
    # Main pot 4 x 22 = 88 for three tied straights: 29 each, the odd chip to the
    # ace.  Side pot 3 x 3 + 2 x 20 = 49 for players 0 and 1: the odd chip to Kh.
    assert pots_of(hand) == [(88, (0, 1, 2)), (49, (0, 1))]
    assert pot_awards(hand) == [(0, 0, 29), (0, 1, 29), (0, 2, 30), (1, 0, 24), (1, 1, 25)]


# ====================================================================== H hi-lo


HILO = StudConfig(hi_lo=True, ante=5, bring_in=10, small_bet=20, big_bet=40)


def test_one_player_best_high_and_low_scoops_every_pot__H1() -> None:
    hand = StudHand(
        HILO,
        [15, 1000, 1000],
        deck=hilo_deck(
            [
                "Kc Kd 2c 9h 9d Tc Jc",  # all-in bringing in: kings up, no low
                "As 2s 3s 4s 5s 9s Ts",  # steel wheel: best high and best low
                "Qd Qs 7c 8c 6h Jd Js",  # queens up, 8-7-6-Q-J: no low
            ]
        ),
    )
    play(hand, (0, Action.bring_in()), (1, Action.complete(20)), (2, Action.call()))
    check_down(hand)
    wins = awards_by_player(hand)
    assert wins == {1: 65}
    assert pots_of(hand) == [(45, (0, 1, 2)), (20, (1, 2))]


def test_side_pot_where_only_one_eligible_player_has_a_low__H6() -> None:
    hand = StudHand(
        HILO,
        [15, 1000, 1000],
        deck=hilo_deck(
            [
                "Ac 3d 2c 4h 5d Kc Kd",  # all-in: wheel low (and a straight)
                "Qd Qs 9c 9h Qh Jd Js",  # queens full: best high
                "8d 7s 6c 4s 2s Jh Th",  # 8-7-6-4-2 low
            ]
        ),
    )
    play(hand, (0, Action.bring_in()), (1, Action.complete(20)), (2, Action.call()))
    check_down(hand)
    # Main 45: high 23 to the full house, low 22 to the wheel.  Side 20 (players 1,
    # 2): player 2 is the only low there, 10 each.
    assert hand.result is not None
    assert sorted((a.pot, a.player, a.amount, a.half) for a in hand.result.awards) == [
        (0, 0, 22, "low"),
        (0, 1, 23, "high"),
        (1, 1, 10, "high"),
        (1, 2, 10, "low"),
    ]


# ====================================================================== D2 structures


def test_pot_limit_max_counts_antes_and_dead_money__D2() -> None:
    config = DrawConfig(structure=Structure.POT_LIMIT, ante=10)
    # Player 3 returns from a missed blind: big blind live plus small blind dead.
    posts = [Post(0, 50), Post(1, 100), Post(3, 100), Post(3, 50, live=False)]
    hand = DrawHand(config, [5000] * 4, seed=1, posts=posts, big_blind_player=1)
    # Pot: 40 antes + 50 + 100 + 100 + 50 dead = 340; player 2 calls 100 and may
    # raise by the 440 in the pot after the call: to 540.
    assert draw_menu(hand) == {
        "player": 2,
        "kinds": ("fold", "call", "raise"),
        "call": 100,
        "min": 200,
        "max": 540,
        "to": (),
    }


def test_pot_limit_after_a_short_all_in_min_is_last_full_raise__D2() -> None:
    hand = DrawHand(PL, [5000, 5000, 5000, 450], seed=2)
    hand.act(Action.raise_to(300), 2)  # a raise of 200
    hand.act(Action.raise_to(450), 3)  # all-in, 150 more: short
    # Pot 50 + 100 + 300 + 450 = 900; the small blind calls 400 -> 1300.
    assert draw_menu(hand) == {
        "player": 0,
        "kinds": ("fold", "call", "raise"),
        "call": 400,
        "min": 650,
        "max": 1750,
        "to": (),
    }
    play_draw(hand, (0, Action.call()), (1, Action.call()))
    # Player 2 raised and was not fully re-raised: call or fold only.
    assert draw_menu(hand)["kinds"] == ("fold", "call")


def test_no_limit_min_raise_after_short_all_in_is_the_last_full_raise__D2() -> None:
    hand = DrawHand(NL, [5000, 5000, 5000, 450], seed=2)
    hand.act(Action.raise_to(300), 2)
    hand.act(Action.raise_to(450), 3)
    assert draw_menu(hand) == {
        "player": 0,
        "kinds": ("fold", "call", "raise"),
        "call": 400,
        "min": 650,
        "max": 5000,
        "to": (),
    }
    hand.act(Action.raise_to(650), 0)  # a full raise reopens for player 2
    hand.act(Action.fold(), 1)
    assert draw_menu(hand) == {
        "player": 2,
        "kinds": ("fold", "call", "raise"),
        "call": 350,
        "min": 850,
        "max": 5000,
        "to": (),
    }


def play_draw(hand: DrawHand, *moves: tuple[int, Action]) -> None:
    for player, action in moves:
        hand.act(action, player)


# ====================================================================== D3 blinds


def test_short_small_blind_all_in_from_the_blind__D3() -> None:
    hand = DrawHand(FL, [30, 1000, 1000], seed=3)
    assert hand.all_in[0] and hand.bets[0] == 30
    assert menu(hand)["player"] == 2
    play_draw(hand, (2, Action.call()))
    # The small blind is all-in: the big blind has the option.
    assert draw_menu(hand) == {
        "player": 1,
        "kinds": ("check", "raise"),
        "call": None,
        "min": 200,
        "max": 200,
        "to": (200,),
    }
    hand.act(Action.check(), 1)
    stand_pat_all(hand)
    check_down(hand)
    assert pots_of(hand) == [(90, (0, 1, 2)), (140, (1, 2))]


def test_short_big_blind_others_still_call_the_full_blind__D3() -> None:
    hand = DrawHand(FL, [1000, 30, 1000], seed=3)
    assert hand.all_in[1]
    assert draw_menu(hand) == {
        "player": 2,
        "kinds": ("fold", "call", "raise"),
        "call": 100,
        "min": 200,
        "max": 200,
        "to": (200,),
    }


def test_small_blind_covering_an_all_in_big_blind_has_no_decision__D3() -> None:
    # Heads-up: the button (1) posts the small blind 50; the big blind is all-in for
    # 30.  The small blind already covers it: nothing to call, nobody to bet against.
    hand = DrawHand(FL, [30, 1000], seed=4)
    assert hand.all_in[0]
    assert hand.phase is Phase.DRAWING
    stand_pat_all(hand)
    assert hand.result is not None
    assert hand.result.uncalled == (1, 20)
    assert pots_of(hand) == [(60, (0, 1))]


def test_small_blind_covering_after_the_others_fold_has_no_decision__D3() -> None:
    hand = DrawHand(FL, [1000, 30, 1000], seed=4)
    hand.act(Action.fold(), 2)
    assert hand.phase is Phase.DRAWING


# ====================================================================== D5 option


def test_heads_up_big_blind_option_after_the_button_completes__D5() -> None:
    hand = DrawHand(FL, [1000, 1000], seed=5)
    assert draw_menu(hand) == {
        "player": 1,
        "kinds": ("fold", "call", "raise"),
        "call": 50,
        "min": 200,
        "max": 200,
        "to": (200,),
    }
    hand.act(Action.call(), 1)
    assert draw_menu(hand) == {
        "player": 0,
        "kinds": ("check", "raise"),
        "call": None,
        "min": 200,
        "max": 200,
        "to": (200,),
    }


def test_big_blind_option_after_a_limper_all_in_for_less__D5() -> None:
    hand = DrawHand(NL, [1000, 1000, 60], seed=6)
    hand.act(Action.call(), 2)  # all-in for 60
    hand.act(Action.call(), 0)  # small blind completes to 100
    assert draw_menu(hand) == {
        "player": 1,
        "kinds": ("check", "raise"),
        "call": None,
        "min": 200,
        "max": 1000,
        "to": (),
    }


def test_big_blind_option_timeout_check_or_fold_checks__S10() -> None:
    config = DrawConfig(timeout_policy=TimeoutPolicy.CHECK_OR_FOLD)
    hand = DrawHand(config, [1000] * 3, seed=6)
    play_draw(hand, (2, Action.call()), (0, Action.call()))
    assert hand.timeout() == Action.check()
    assert hand.phase is Phase.DRAWING


def test_draw_timeout_stands_pat_under_check_or_fold__S10() -> None:
    config = DrawConfig(timeout_policy=TimeoutPolicy.CHECK_OR_FOLD)
    hand = DrawHand(config, [1000] * 3, seed=6)
    play_draw(hand, (2, Action.call()), (0, Action.call()), (1, Action.check()))
    assert hand.phase is Phase.DRAWING
    before = list(hand.hands[0])
    assert hand.timeout() == Action.discard(())
    assert hand.hands[0] == before and not hand.folded[0]


# ====================================================================== D6 draw


def test_five_handed_two_reshuffles_never_own_or_folded_cards__D6() -> None:
    hands = (
        "7c 7d 7h 8c 8d",
        "9c 9d 9h Tc Td",
        "Jc Jd Jh Qc Qd",
        "Kc Kd Kh Ac Ad",
        "6c 6d 6h 6s 7s",
    )
    stub = "8h 8s 9s Th Ts Js Qh Qs Ks Ah As"  # burn 8h, then ten more
    hand = DrawHand(FL, [1000] * 5, deck=draw_deck(hands, stub, with_sixes=True))
    play_draw(
        hand,
        (2, Action.call()),
        (3, Action.call()),
        (4, Action.call()),
        (0, Action.call()),
        (1, Action.check()),
    )
    assert hand.phase is Phase.DRAWING and hand.deck.remaining == 10
    hand.act(Action.discard(cards("7c 7d 7h 8c 8d")), 0)  # 5 from the stub: 5 left
    hand.act(Action.discard(cards("9c 9d 9h Tc")), 1)  # 4: 1 left, never dealt
    assert hand.deck.remaining == 1
    p0_thrown = set(cards("7c 7d 7h 8c 8d"))
    p1_thrown = set(cards("9c 9d 9h Tc"))
    last = set(cards("As"))
    own = set(cards("Jc Jd Jh"))
    hand.act(Action.discard(sorted(own)), 2)  # reshuffle: 1 + burn + 9 discards = 11
    new2 = set(hand.hands[2]) - set(cards("Qc Qd"))
    assert new2 <= p0_thrown | p1_thrown | last | set(cards("8h"))
    assert not new2 & own
    assert hand.deck.remaining == 8
    own3 = set(cards("Kc Kd Kh Ac Ad"))
    hand.act(Action.discard(sorted(own3)), 3)  # 5 of 8: 3 left
    assert hand.deck.remaining == 3
    held = {c for h in hand.hands for c in h}
    left = set(short_deck(True)) - held - set(hand.deck.discards) - set(hand.deck.burned)
    assert len(left) == 3
    pool = left | own  # the stub and player 2's discards (player 3's added below)
    own4 = set(cards("6c 6d 6h 6s 7s"))
    hand.act(Action.discard(sorted(own4)), 4)  # 5 > 2: reshuffle the 3 + 3 + 5
    new4 = set(hand.hands[4])
    assert new4 <= pool | own3
    assert not new4 & own4
    assert hand.deck.remaining == 6


# ====================================================================== D7 second round


def test_second_round_skips_an_all_in_player_left_of_the_button__D7() -> None:
    hand = DrawHand(FL, [100, 1000, 1000], seed=8)
    play_draw(hand, (2, Action.call()), (0, Action.call()), (1, Action.check()))
    assert hand.all_in[0]
    stand_pat_all(hand)
    assert hand.phase is Phase.BETTING
    assert draw_menu(hand) == {
        "player": 1,
        "kinds": ("fold", "check", "bet"),
        "call": None,
        "min": 200,
        "max": 200,
        "to": (200,),
    }
    assert hand.final_round_opener == 1


def test_draw_all_in_short_bet_after_draw_next_player_menu__D2() -> None:
    # Player 0 has 40 left after the first round; it bets them all after the draw.
    hand = DrawHand(NL, [140, 1000, 1000], seed=8)
    play_draw(hand, (2, Action.call()), (0, Action.call()), (1, Action.check()))
    stand_pat_all(hand)
    hand.act(Action.bet(40), 0)
    assert draw_menu(hand) == {
        "player": 1,
        "kinds": ("fold", "call", "raise"),
        "call": 40,
        "min": 140,
        "max": 900,
        "to": (),
    }


# ====================================================================== more S12, H5, D2


def test_last_raiser_all_in_on_the_river_every_hand_shown_raiser_first__S12() -> None:
    # Player 1 has 400 left on the river: raises all-in over player 0's bet.
    hand = new_stud([P0, P1, P2], [10_000, 475, 10_000])
    check_or_call_until(hand, SEVENTH)
    assert hand.to_act == 0
    play(
        hand,
        (0, Action.bet(200)),
        (1, Action.raise_to(400)),
        (2, Action.call()),
        (0, Action.call()),
    )
    assert hand.all_in[1]
    assert hand.result is not None
    assert hand.result.shown == [1, 2, 0]
    assert hand.result.mucked == []


def test_odd_pot_high_half_tied_and_low_half_tied__H5() -> None:
    config = StudConfig(hi_lo=True, ante=3, bring_in=20, small_bet=40, big_bet=80)
    p0 = "8s 7s 6h 5d 4c Kc Qd"  # 8-high straight, 8-7-6-5-4 low; highest Kc
    p1 = "8d 7d 6c 5h 4s Kh Qs"  # the same two hands; highest Kh, lowest 4s
    p2 = "As Ad Jc"  # antes and folds: the pot is odd
    hand = StudHand(config, [1000] * 3, deck=hilo_deck([p0, p1, p2]))
    play(hand, (1, Action.bring_in()), (2, Action.fold()), (0, Action.call()))
    check_down(hand)
    # Pot 9 + 40 = 49: high half 25 (odd chip), low half 24.  High tie: 13 to the
    # Kh, 12 to the Kc.  Low tie: 12 each.
    assert hand.result is not None
    assert sorted((a.player, a.amount, a.half) for a in hand.result.awards) == [
        (0, 12, "high"),
        (0, 12, "low"),
        (1, 12, "low"),
        (1, 13, "high"),
    ]


def test_pot_limit_with_a_big_blind_all_in_for_less__D2() -> None:
    hand = DrawHand(PL, [5000, 30, 5000], seed=12)
    # Everyone calls the full big blind; the pot is 50 + 30 = 80, 180 after the call.
    assert draw_menu(hand) == {
        "player": 2,
        "kinds": ("fold", "call", "raise"),
        "call": 100,
        "min": 200,
        "max": 280,
        "to": (),
    }
    hand.act(Action.call(), 2)
    assert draw_menu(hand) == {
        "player": 0,
        "kinds": ("fold", "call", "raise"),
        "call": 50,
        "min": 200,
        "max": 330,
        "to": (),
    }
    hand.act(Action.call(), 0)
    assert hand.phase is Phase.DRAWING  # the all-in big blind has no option
    stand_pat_all(hand)
    check_down(hand)
    assert pots_of(hand) == [(90, (0, 1, 2)), (140, (0, 2))]


def test_fixed_limit_cap_before_the_draw_with_a_short_big_blind__D2() -> None:
    hand = DrawHand(FL, [5000, 30, 5000, 5000], seed=13)
    play_draw(
        hand,
        (2, Action.raise_to(200)),
        (3, Action.raise_to(300)),
        (0, Action.raise_to(400)),  # blind + three raises: capped
    )
    assert draw_menu(hand) == {
        "player": 2,
        "kinds": ("fold", "call"),
        "call": 200,
        "min": None,
        "max": None,
        "to": (),
    }
