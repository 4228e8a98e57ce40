# ruff: noqa: N802  (test names end with the docs/rules.md rule ID, e.g. __D5)
"""Seven Card Stud Hi-Lo, eight or better: scenario tests for rules H1-H6 of docs/rules.md.

Decks are preset with ``stud_deck``: each player's cards are listed in the order
received (two down, the door card, fourth..seventh street); burns are filled in.
Unless a test says otherwise the stakes are ante 5, bring-in 10, 20/40, so every
player who calls the bring-in and checks down puts 15 in the pot.
"""

from __future__ import annotations

import pytest

from poker_rules import Action, ActionKind, IllegalActionError, StudConfig, StudHand

from .draw_helpers import check_down, play, pot_awards
from .helpers import stud_deck

HILO = StudConfig(hi_lo=True, ante=5, bring_in=10, small_bet=20, big_bet=40)

# Reused hands (seven cards each, door card third).
FULL_HOUSE = "Kc Kd Ks 9h 9d Tc Jc"  # kings full of nines, no low card at all
LOW_87532 = "2c 3d 5h 7s 8c Qd Jh"  # 8-7-5-3-2 low, queen high
PAIR_QUEENS = "Qs Qh 4c 9c Ts Js Ad"  # pair of queens, only two low cards


def showdown(config: StudConfig, stacks: list[int], hands: list[str]) -> StudHand:
    """Everyone calls the bring-in, then the hand is checked down."""
    hand = StudHand(config, stacks, deck=stud_deck(hands))
    check_down(hand)
    assert hand.is_over
    assert hand.result is not None
    return hand


def final(hand: StudHand) -> list[int]:
    assert hand.result is not None
    return hand.result.final_stacks


# ---------------------------------------------------------------- H1 split


def test_pot_split_between_best_high_and_best_low__H1() -> None:
    hand = showdown(HILO, [1000] * 3, [FULL_HOUSE, LOW_87532, PAIR_QUEENS])
    # Pot 45: high half 23 to the full house, low half 22 to the 8-7-5-3-2.
    assert pot_awards(hand) == [(0, 0, 23, "high"), (0, 1, 22, "low")]
    assert final(hand) == [1008, 1007, 985]


def test_no_qualifying_low_high_takes_the_whole_pot__H1() -> None:
    no_low_nine = "2c 3d 5h 4s 9c Qd Jh"  # 9-5-4-3-2: not a low
    no_low_pair = "Qs Qh 4c 4d 3h 2h Ad"  # A-2-3-4-4: only four ranks
    hand = showdown(HILO, [1000] * 3, [FULL_HOUSE, no_low_nine, no_low_pair])
    assert pot_awards(hand) == [(0, 0, 45, "all")]
    assert final(hand) == [1030, 985, 985]


def test_hilo_has_no_fourth_street_open_pair_big_bet_option__H1() -> None:
    """H: bet sizes are those of S7 *without* S7a; the same deal in stud high
    offers the big bet."""
    hands = ["As Ah Kc Kd 9c 8c 7c", "3c 4d 2c Qh Jd Ts 9h"]
    for hi_lo, choices in ((True, (100,)), (False, (100, 200))):
        hand = StudHand(StudConfig(hi_lo=hi_lo), [5000, 5000], deck=stud_deck(hands))
        play(hand, (1, Action.bring_in()), (0, Action.call()))
        assert hand.street == 1  # fourth street; the open pair of kings acts first
        legal = hand.legal_actions()
        assert legal.player == 0
        assert legal.raise_kind is ActionKind.BET
        assert legal.to_choices == choices
        assert hand.open_pair is (not hi_lo)
        if hi_lo:
            with pytest.raises(IllegalActionError, match="exactly 100"):
                hand.act(Action.bet(200))


def test_hilo_no_open_pair_option_for_raises_either__H1() -> None:
    hands = ["As Ah Kc Kd 9c 8c 7c", "3c 4d 2c Qh Jd Ts 9h"]
    hand = StudHand(StudConfig(hi_lo=True), [5000, 5000], deck=stud_deck(hands))
    play(hand, (1, Action.bring_in()), (0, Action.call()), (0, Action.bet(100)))
    assert hand.legal_actions().to_choices == (200,)  # one small bet more, never 300


# ---------------------------------------------------------------- H2 qualifier


@pytest.mark.parametrize(
    ("seven_cards", "qualifies"),
    [
        ("2c 3d 4h 5s 9c Qd Jh", False),  # a nine: not eight or better
        ("2c 3d 4h 5s 8c Qd Jh", True),  # 8-5-4-3-2
        ("Ac 3d 4h 5s 8c Qd Jh", True),  # the ace counts low: 8-5-4-3-A
        ("Ac Kh 4h 5s 8c Qd Jh", False),  # ace low but only four low ranks
        ("2c 2d 4h 5s 8c Qd Jh", False),  # a pair: four different ranks only
        ("Ac 2d 3h 4s 5c Qd Jh", True),  # the wheel: a straight, still the best low
        ("2s 4s 6s 7s 8s Qd Jh", True),  # a flush does not count against the low
        ("8c 7d 6h 5s 4c Qd Jh", True),  # a straight does not either
    ],
    ids=["nine", "eight", "ace-low", "ace-four-ranks", "pair", "wheel", "flush", "straight"],
)
def test_low_qualifier_five_ranks_eight_or_lower_ace_low__H2(
    seven_cards: str, qualifies: bool
) -> None:
    hand = showdown(HILO, [1000, 1000], [FULL_HOUSE, seven_cards])  # pot 30
    if qualifies:
        assert pot_awards(hand) == [(0, 0, 15, "high"), (0, 1, 15, "low")]
        assert final(hand) == [1000, 1000]
    else:
        assert pot_awards(hand) == [(0, 0, 30, "all")]
        assert final(hand) == [1015, 985]


def test_wheel_is_the_best_low_and_a_straight_for_high__H2() -> None:
    wheel = "Ac 2d 3h 4s 5c Kh Qd"  # 5-high straight; low A-2-3-4-5
    pair = "Kc Kd 9s 9c Ts Js 8h"  # kings and nines, no straight, no low
    low_76432 = "2c 3d 4c 6d 7h Jh Jd"  # pair of jacks, 7-6-4-3-2 low
    hand = showdown(HILO, [1000] * 3, [wheel, pair, low_76432])
    # The straight beats two pair for high and the wheel beats 7-6-4-3-2: scoop.
    assert pot_awards(hand) == [(0, 0, 22, "low"), (0, 0, 23, "high")]
    assert final(hand) == [1030, 985, 985]


# ---------------------------------------------------------------- H3 comparison


def test_low_compares_highest_card_first_24567_beats_a2468__H3() -> None:
    low_76542 = "2c 4d 5h 6s 7c Qh Qs"
    low_8642a = "Ah 2d 4c 6d 8h Jd Js"
    hand = showdown(HILO, [1000] * 3, [FULL_HOUSE, low_76542, low_8642a])
    assert pot_awards(hand) == [(0, 0, 23, "high"), (0, 1, 22, "low")]
    assert final(hand) == [1008, 1007, 985]
    # Seated the other way round, the same hand wins.
    hand = showdown(HILO, [1000] * 3, [FULL_HOUSE, low_8642a, low_76542])
    assert pot_awards(hand) == [(0, 0, 23, "high"), (0, 2, 22, "low")]


def test_low_equal_top_card_compares_the_next__H3() -> None:
    low_85432 = "8c 5d 4h 3s 2c Qh Qs"
    low_8643a = "8h 6d 4c 3d Ah Jd Js"
    hand = showdown(HILO, [1000] * 3, [FULL_HOUSE, low_8643a, low_85432])
    assert pot_awards(hand) == [(0, 0, 23, "high"), (0, 2, 22, "low")]
    assert final(hand) == [1008, 985, 1007]


# ---------------------------------------------------------------- H4 independent hands


def test_different_cards_for_high_and_low_scoop__H4() -> None:
    # Spade flush A-K-Q-6-2 for high; 6-4-3-2-A for low with the 3d and 4h.
    flush_and_low = "As 2s 6s Ks Qs 3d 4h"
    pair_kings_low = "7c 5c 4d 3c 2d Kd Kc"  # 7-5-4-3-2 low: beaten by 6-4-3-2-A
    two_pair = "Qd Qh Jd Td 9d 9h Jc"
    hand = showdown(HILO, [1000] * 3, [flush_and_low, pair_kings_low, two_pair])
    assert pot_awards(hand) == [(0, 0, 22, "low"), (0, 0, 23, "high")]
    assert final(hand) == [1030, 985, 985]


def test_high_and_low_to_different_players_low_winner_uses_other_cards__H4() -> None:
    # P1's best high is a pair of queens, but its low is 7-6-5-4-2 (other cards).
    jacks = "Ah 2d 9c Ts Js Jd 4c"  # pair of jacks, only three low ranks
    hand = showdown(HILO, [1000] * 3, [FULL_HOUSE, "2c 4d 5h 6s 7c Qh Qs", jacks])
    assert pot_awards(hand) == [(0, 0, 23, "high"), (0, 1, 22, "low")]


# ---------------------------------------------------------------- H5 odd chips


def test_odd_chip_of_a_halved_pot_goes_to_the_high_half__H5() -> None:
    # Low winner in seat 0, high winner in seat 1: pot 45 -> 23 high, 22 low.
    hand = showdown(HILO, [1000] * 3, [LOW_87532, FULL_HOUSE, PAIR_QUEENS])
    assert pot_awards(hand) == [(0, 0, 22, "low"), (0, 1, 23, "high")]
    assert final(hand) == [1007, 1008, 985]


def test_ties_in_both_halves_odd_chips_highest_and_lowest_card_by_suit__H5() -> None:
    config = StudConfig(hi_lo=True, ante=3, bring_in=20, small_bet=40, big_bet=80)
    # Both: 8-high straight and 8-7-6-5-4 low.  Pot 46: halves of 23.
    p0 = "8s 7s 6h 5d 4c Kc Qd"  # highest card Kc, lowest 4c
    p1 = "8d 7d 6c 5h 4s Kh Qs"  # highest card Kh (hearts > clubs), lowest 4s
    hand = showdown(config, [1000, 1000], [p0, p1])
    # High odd chip: Kh (a card that does not play in the straight) beats Kc.
    # Low odd chip: 4c, clubs lowest.
    assert pot_awards(hand) == [
        (0, 0, 11, "high"),
        (0, 0, 12, "low"),
        (0, 1, 11, "low"),
        (0, 1, 12, "high"),
    ]
    assert final(hand) == [1000, 1000]


def test_low_tie_odd_chip_to_lowest_card_clubs_lowest__H5() -> None:
    config = StudConfig(hi_lo=True, ante=5, bring_in=20, small_bet=40, big_bet=80)
    p0 = "2d 3d 4h 5s 7c Jc Jd"  # 7-5-4-3-2, lowest card 2d
    p1 = "2c 3c 4d 5d 7h Qc Qd"  # 7-5-4-3-2, lowest card 2c
    p2 = "Kc Kd Kh Qs Js 9s 9h"  # kings full: high
    hand = showdown(config, [1000] * 3, [p0, p1, p2])
    # Pot 75: high 38; low 37 split 19 (2c) / 18 (2d).
    assert pot_awards(hand) == [(0, 0, 18, "low"), (0, 1, 19, "low"), (0, 2, 38, "high")]
    assert final(hand) == [993, 994, 1013]


def test_low_tie_odd_chip_considers_all_the_players_cards__H5() -> None:
    config = StudConfig(hi_lo=True, ante=5, bring_in=20, small_bet=40, big_bet=80)
    p0 = "2h 2c 4h 5s 7c 3h Jd"  # 7-5-4-3-2 with a pair of deuces: holds the 2c
    p1 = "2d 3c 4d 5d 7h Qc Qd"  # 7-5-4-3-2, lowest card 2d
    p2 = "Kc Kd Kh Qs Js 9s 9h"
    hand = showdown(config, [1000] * 3, [p0, p1, p2])
    assert pot_awards(hand) == [(0, 0, 19, "low"), (0, 1, 18, "low"), (0, 2, 38, "high")]


def test_high_tie_without_low_odd_chip_to_highest_card_by_suit__H5() -> None:
    # P2 folds on third street; P0 and P1 both hold a king-high straight, no low.
    p0 = "9c Td 3d Qs Kc 3h Jh"  # door 3d brings in; highest card Kc
    p1 = "9d Th 4c Qc Kd 4s Js"  # highest card Kd
    p2 = "2c 2d Ah"
    hand = StudHand(HILO, [1000] * 3, deck=stud_deck([p0, p1, p2]))
    play(hand, (0, Action.bring_in()), (1, Action.call()), (2, Action.fold()))
    check_down(hand)
    # Pot 15 + 20 = 35, all to the high hands: 18 to Kd, 17 to Kc.
    assert pot_awards(hand) == [(0, 0, 17, "all"), (0, 1, 18, "all")]
    assert final(hand) == [1002, 1003, 995]


def test_low_tie_odd_chip_counts_the_ace_as_the_lowest_card__H5() -> None:
    """rule-decisions low-odd-chip: in the low half the ace plays low (H3), so the
    ace of clubs is the lowest card there, below the other player's 3c."""
    config = StudConfig(hi_lo=True, ante=5, bring_in=20, small_bet=40, big_bet=80)
    p0 = "Ac 3d 4h 5s 7c Kd Kh"  # 7-5-4-3-A, lowest card Ac
    p1 = "Ad 3c 4d 5d 7h Qc Qd"  # 7-5-4-3-A, lowest card Ad (its 3c is above both aces)
    p2 = "Tc Ts Th Js Jh 9s 9h"  # tens full: high
    hand = showdown(config, [1000] * 3, [p0, p1, p2])
    # Pot 75: high 38; low 37 split 19 (Ac) / 18 (Ad).
    assert pot_awards(hand) == [(0, 0, 19, "low"), (0, 1, 18, "low"), (0, 2, 38, "high")]
    assert final(hand) == [994, 993, 1013]


def test_one_player_may_take_the_odd_chip_of_each_half__H5() -> None:
    """rule-decisions low-odd-chip: each half is divided on its own (H5), so the
    player holding both the highest and the lowest card gets both odd chips; S13's
    one odd chip a pot is Stud high's, where a pot is divided once."""
    config = StudConfig(hi_lo=True, ante=3, bring_in=20, small_bet=40, big_bet=80)
    p0 = "8s 7s 6h 5d 4c Kh Qd"  # highest card Kh and lowest card 4c
    p1 = "8d 7d 6c 5h 4s Kc Qs"  # the same high and low hands
    hand = showdown(config, [1000, 1000], [p0, p1])
    # Pot 46: halves of 23, each split 12 / 11.
    assert pot_awards(hand) == [
        (0, 0, 12, "high"),
        (0, 0, 12, "low"),
        (0, 1, 11, "high"),
        (0, 1, 11, "low"),
    ]
    assert final(hand) == [1001, 999]


def test_tied_lows_split_the_low_half_evenly__H5() -> None:
    low_a = "8c 5d 4h 3s 2c Qh Qs"
    low_b = "8h 5c 4d 3d 2h Jd Js"
    hand = showdown(HILO, [1000] * 3, [FULL_HOUSE, low_a, low_b])
    assert pot_awards(hand) == [(0, 0, 23, "high"), (0, 1, 11, "low"), (0, 2, 11, "low")]
    assert final(hand) == [1008, 996, 996]


# ---------------------------------------------------------------- H6 side pots


ALL_IN_LOW = "Ac 3d 2c 4h 6s Kh Qh"  # door 2c: brings in all-in; 6-4-3-2-A low


def side_pot_hand(p2: str) -> StudHand:
    """P0 (15 chips) antes 5 and brings in all-in for 10; P1 completes to 20 and P2
    calls: main pot 45 (all three), side pot 20 (P1, P2); then checked down."""
    hand = StudHand(HILO, [15, 1000, 1000], deck=stud_deck([ALL_IN_LOW, FULL_HOUSE, p2]))
    play(hand, (0, Action.bring_in()), (1, Action.complete(20)), (2, Action.call()))
    assert hand.all_in[0]
    check_down(hand)
    assert hand.result is not None
    assert [(p.amount, p.eligible) for p in hand.result.pots] == [(45, (0, 1, 2)), (20, (1, 2))]
    return hand


def test_each_side_pot_split_high_low_among_its_players__H6() -> None:
    hand = side_pot_hand("2d 3s 5c 7d 8h Jd Qc")  # 8-7-5-3-2 low
    # Main: 23 high to P1, 22 low to P0 (6-4-3-2-A).  Side: P0 is not eligible, so
    # its low half goes to P2's 8-7-5-3-2; high to P1.
    assert pot_awards(hand) == [
        (0, 0, 22, "low"),
        (0, 1, 23, "high"),
        (1, 1, 10, "high"),
        (1, 2, 10, "low"),
    ]
    assert final(hand) == [22, 1008, 985]


def test_side_pot_without_qualifying_low_goes_to_high__H6() -> None:
    hand = side_pot_hand("Qd Qs 5c 9c Th Jd Js")  # no low
    assert pot_awards(hand) == [(0, 0, 22, "low"), (0, 1, 23, "high"), (1, 1, 20, "all")]
    assert final(hand) == [22, 1018, 975]
