# ruff: noqa: N802  (test names end with the docs/rules.md rule ID, e.g. __S8)
"""Audit scenarios, the end of a stud hand: the river shortage (S11), who shows first
(S12), odd chips (S13) and the hi-lo split (H1, H5, H6).

What the audit scenarios are and their stakes: ``audit_scenarios.py``.
"""

from __future__ import annotations

from poker_rules import Action, StudConfig, StudHand
from poker_rules.events import Deal

from .audit_scenarios import pots_of
from .draw_helpers import check_down
from .helpers import (
    awards_by_player,
    check_or_call_down,
    check_or_call_until,
    events_of,
    new_stud,
    play,
    pot_awards,
    stud_deck,
)
from .stud_scenarios import FOURTH, P0, P1, P2, SEVENTH, SIXTH

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
    river = [e.cards[0] for e in events_of(hand, Deal) if e.street == SEVENTH]
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
        deck=stud_deck(
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
        deck=stud_deck(
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


# ====================================================================== S12 and H5 again


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
    hand = StudHand(config, [1000] * 3, deck=stud_deck([p0, p1, p2]))
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
