# ruff: noqa: N802  (test names end with the docs/rules.md rule ID, e.g. __D5)
"""Five Card Draw 7-A scenarios, the showdown: the seven-to-ace hand ranks (D8), who
shows first and the odd chips (D9) of docs/rules.md.

Conventions (player indexes, preset decks): ``draw_scenarios.py``.
"""

from __future__ import annotations

import pytest

from poker_rules import Action, DrawConfig, DrawHand, Phase

from .draw_helpers import check_down, draw_deck, play, stand_pat_all
from .draw_scenarios import FL, NL

# ---------------------------------------------------------------- D8 hand ranks


def heads_up_showdown(h0: str, h1: str) -> list[int]:
    """Heads-up limp and check-down, both stand pat; final stacks (pot 200)."""
    hand = DrawHand(FL, [1000, 1000], deck=draw_deck([h0, h1]))
    check_down(hand)
    assert hand.result is not None
    return hand.result.final_stacks


def five_handed_showdown(h0: str, h1: str) -> list[int]:
    """Five-handed (sixes in): three fold, blinds check it down; final stacks."""
    hand = DrawHand(FL, [1000] * 5, deck=draw_deck([h0, h1, None, None, None], with_sixes=True))
    play(hand, (2, Action.fold()), (3, Action.fold()), (4, Action.fold()))
    check_down(hand)
    assert hand.result is not None
    return hand.result.final_stacks[:2]


# From best to worst, each adjacent pair disjoint.
LADDER = [
    ("royal flush", "As Ks Qs Js Ts"),
    ("straight flush", "Jh Th 9h 8h 7h"),
    ("four of a kind", "Ac Ad Ah As 7c"),
    ("flush", "Kd Jd 9d 8d 7d"),
    ("full house", "Ks Kh Kc Qs Qh"),
    ("straight", "Js Tc 9d 8c 7s"),
    ("three of a kind", "Qc Qd Qh As 8h"),
    ("two pair", "Kc Kd 9c 9s 7h"),
    ("one pair", "Ac Ad Qs Ts 8d"),
    ("high card", "Kh Qh Jc 9d 7s"),
]


@pytest.mark.parametrize(
    ("better", "worse"),
    [(LADDER[k][1], LADDER[k + 1][1]) for k in range(len(LADDER) - 1)],
    ids=[f"{LADDER[k][0]}>{LADDER[k + 1][0]}" for k in range(len(LADDER) - 1)],
)
def test_hand_rank_order_seven_to_ace__D8(better: str, worse: str) -> None:
    assert heads_up_showdown(better, worse) == [1100, 900]
    assert heads_up_showdown(worse, better) == [900, 1100]


def test_flush_beats_full_house__D8() -> None:
    assert heads_up_showdown("Ah Jh 9h 8h 7h", "Ks Kd Kc Qs Qd") == [1100, 900]
    assert heads_up_showdown("Ks Kd Kc As Ad", "Qh Jh 9h 8h 7h") == [900, 1100]


def test_ace_seven_to_ten_is_the_lowest_straight__D8() -> None:
    wheel = "Ah 7c 8d 9s Th"
    assert heads_up_showdown(wheel, "7h 8c 9d Ts Js") == [900, 1100]
    assert heads_up_showdown(wheel, "Kc Kd Ks Qh Jd") == [1100, 900]  # still a straight
    assert heads_up_showdown(wheel, "As Kd Qc Jd Tc") == [900, 1100]


def test_ace_seven_to_ten_lowest_straight_flush__D8() -> None:
    low_sf = "Ac 7c 8c 9c Tc"
    assert heads_up_showdown(low_sf, "Jh Th 9h 8h 7h") == [900, 1100]
    assert heads_up_showdown(low_sf, "Kc Kd Kh Ks 7d") == [1100, 900]
    assert heads_up_showdown(low_sf, "As Ks Qs Js Ts") == [900, 1100]


def test_ace_six_to_nine_is_the_lowest_straight_with_sixes__D8() -> None:
    wheel = "Ah 6c 7d 8s 9h"
    assert five_handed_showdown(wheel, "6h 7c 8d 9s Ts") == [900, 1100]
    assert five_handed_showdown(wheel, "Kc Kd Ks Qh Jd") == [1100, 900]


def test_flush_beats_full_house_with_sixes__D8() -> None:
    assert five_handed_showdown("Ah Jh 9h 8h 6h", "Ks Kd Kc Qs Qd") == [1100, 900]


def test_identical_hands_split__D8() -> None:
    assert heads_up_showdown("As Kd Qc Jh Tc", "Ah Ks Qd Jc Ts") == [1000, 1000]


# ---------------------------------------------------------------- D9 showdown


THREE = ("Qc Qd Qh 7c 8d", "Kc Kd 9c 9d 7d", "Ac Ad Th Js 8h")  # trips, two pair, pair


def test_last_aggressor_shows_first_beaten_hands_may_muck__D9() -> None:
    hand = DrawHand(FL, [1000] * 3, deck=draw_deck(THREE))
    play(hand, (2, Action.call()), (0, Action.call()), (1, Action.check()))
    stand_pat_all(hand)
    play(
        hand,
        (0, Action.check()),
        (1, Action.bet(200)),
        (2, Action.call()),
        (0, Action.call()),
    )
    assert hand.result is not None
    assert hand.result.shown == [1, 0]  # bettor first; P2 beaten by P1 mucks
    assert hand.result.mucked == [2]
    assert hand.result.final_stacks == [1600, 700, 700]


def test_last_raiser_shows_first__D9() -> None:
    hand = DrawHand(FL, [1000] * 3, deck=draw_deck(THREE))
    play(hand, (2, Action.call()), (0, Action.call()), (1, Action.check()))
    stand_pat_all(hand)
    play(
        hand,
        (0, Action.bet(200)),
        (1, Action.call()),
        (2, Action.raise_to(400)),
        (0, Action.call()),
        (1, Action.call()),
    )
    assert hand.result is not None
    assert hand.result.shown == [2, 0]  # raiser first, then clockwise; P1 mucks
    assert hand.result.mucked == [1]
    assert hand.result.final_stacks == [2000, 500, 500]


def test_checked_through_first_to_act_shows_first__D9() -> None:
    hand = DrawHand(FL, [1000] * 3, deck=draw_deck((THREE[2], THREE[0], THREE[1])))
    check_down(hand)
    assert hand.result is not None
    assert hand.result.shown == [0, 1]  # P0 (pair) first; P1 trips; P2 two pair mucks
    assert hand.result.mucked == [2]
    assert hand.result.final_stacks == [900, 1200, 900]


def test_all_in_before_the_draw_all_hands_shown__D9() -> None:
    hand = DrawHand(NL, [1000, 1000], deck=draw_deck(("Kc Kd 9c 9d 7d", "Ac Ad Th Js 8h")))
    play(hand, (1, Action.raise_to(1000)), (0, Action.call()))
    assert hand.phase is Phase.DRAWING
    stand_pat_all(hand)
    assert hand.result is not None
    assert sorted(hand.result.shown) == [0, 1]
    assert hand.result.mucked == []
    assert hand.result.final_stacks == [2000, 0]


def test_odd_chip_to_first_tied_player_clockwise_from_button__D9() -> None:
    config = DrawConfig(small_bet=25, big_bet=50)
    straight_a, straight_b = "As Kd Qc Jh Tc", "Ah Ks Qd Jc Ts"
    # P2 and P3 tie: pot 12 + 3 x 25 = 87 -> 44 to P2 (first clockwise), 43 to P3.
    hand = DrawHand(
        config,
        [1000] * 4,
        deck=draw_deck(("7c 7d 8c 8d 9h", "7h 7s 8h 8s 9s", straight_a, straight_b)),
    )
    play(hand, (2, Action.call()), (3, Action.call()), (0, Action.fold()), (1, Action.check()))
    check_down(hand)
    assert hand.result is not None
    assert sorted((a.player, a.amount) for a in hand.result.awards) == [(2, 44), (3, 43)]
    assert hand.result.final_stacks == [988, 975, 1019, 1018]


def test_odd_chip_follows_seat_order_not_card_strength__D9() -> None:
    config = DrawConfig(small_bet=25, big_bet=50)
    # P1 and P3 tie; the button's left (P0) folded: P1 is first clockwise.
    hand = DrawHand(
        config,
        [1000] * 4,
        deck=draw_deck(("7c 7d 8c 8d 9h", "Ah Ks Qd Jc Ts", "7h 7s 8h 8s 9s", "As Kd Qc Jh Tc")),
    )
    play(hand, (2, Action.call()), (3, Action.call()), (0, Action.fold()), (1, Action.check()))
    check_down(hand)
    assert hand.result is not None
    assert sorted((a.player, a.amount) for a in hand.result.awards) == [(1, 44), (3, 43)]
    assert hand.result.final_stacks == [988, 1019, 975, 1018]


def test_two_odd_chips_one_each_clockwise_from_button__D9() -> None:
    config = DrawConfig(small_bet=25, big_bet=50, ante=2)
    hands = (
        None,
        "As Kh Qd Jc Ts",
        "7c 7d 8c 9h 6s",
        "Ah Kd Qc Js Th",
        "Ad Kc Qs Jh Td",
    )
    hand = DrawHand(config, [1000] * 5, deck=draw_deck(hands, with_sixes=True))
    # antes 5 x 2, the small blind folds its 12; four players put 25: pot 122.
    play(hand, (2, Action.call()), (3, Action.call()), (4, Action.call()), (0, Action.fold()))
    check_down(hand)
    assert hand.result is not None
    assert sorted((a.player, a.amount) for a in hand.result.awards) == [(1, 41), (3, 41), (4, 40)]
    assert sum(hand.result.final_stacks) == 5000


def test_each_pot_split_on_its_own_odd_chip_clockwise_from_button__D9() -> None:
    config = DrawConfig(small_bet=30, big_bet=60)
    # P0 is all-in posting the 15 small blind: main pot 45 (all), side pot 30 (P1, P2).
    hands = ("As Kd Qc Jh Tc", "Kc Kh 9c 9d 7d", "Ah Ks Qd Jc Ts")
    hand = DrawHand(config, [15, 1000, 1000], deck=draw_deck(hands))
    assert hand.all_in[0]
    check_down(hand)
    assert hand.result is not None
    assert [(p.amount, p.eligible) for p in hand.result.pots] == [(45, (0, 1, 2)), (30, (1, 2))]
    # Main: P0 and P2 tie, the odd chip to P0 (first clockwise); side: P2 alone.
    assert sorted((a.pot, a.player, a.amount) for a in hand.result.awards) == [
        (0, 0, 23),
        (0, 2, 22),
        (1, 2, 30),
    ]
    assert hand.result.final_stacks == [23, 970, 1022]
    # A player is all-in: every hand is shown (S12), from the opener clockwise,
    # even P1's beaten two pair.
    assert hand.result.shown == [1, 2, 0]
    assert hand.result.mucked == []
