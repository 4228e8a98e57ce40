# ruff: noqa: N802  (test names end with the RULES.md rule ID, e.g. __S5)
"""Scenario tests for the Seven Card Stud rules S1-S13 (and S7a) of RULES.md.

Each test name ends with the rule ID it checks.  Cards are scripted with preset
decks (``tests/rules/helpers.py``): each player's cards are listed in the order
that player receives them (down, down, door, fourth, fifth, sixth, seventh).
Amounts are in the smallest chip; the default table is $1/$2 (25 ante, 50
bring-in, 100/200) with 10_000 chips per player.
"""

from __future__ import annotations

import pytest

from poker_rules import (
    Action,
    IllegalActionError,
    InvalidConfigError,
    RiverShortage,
    Structure,
    StudConfig,
    StudHand,
    TimeoutPolicy,
)
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
    stud_order,
)

THIRD, FOURTH, FIFTH, SIXTH, SEVENTH = range(5)

# Four hands used by several betting scenarios.  Boards: fourth street K-Q / T-8 /
# 9-6 / 2-4 (no pair), fifth K-Q-J / T-8-7 / 9-6-5 / 2-4-6: player 0 opens every
# street from fourth on.  With three players (0-2) the 9d brings in; with four, 2c.
# Showdown: 0 pair of aces, 1 pair of kings, 2 two pair (queens and threes).
P0 = "As Ah Kc Qd Jh 9c 8d"
P1 = "Ks Kh Tc 8s 7h 5c 4d"
P2 = "Qs Qh 9d 6s 5h 3c 3h"
P3 = "Js Jd 2c 4s 6h 7c 9s"


# ====================================================================== S1 table


@pytest.mark.parametrize("n", range(2, 9))
def test_two_to_eight_players_are_dealt_in__S1(n: int) -> None:
    hand = StudHand(StudConfig(), [1000] * n, seed=n)
    assert hand.n == n
    assert [len(c) for c in hand.cards] == [3] * n
    assert hand.stacks == [975] * n


@pytest.mark.parametrize("n", [0, 1, 9, 10])
def test_fewer_than_two_or_more_than_eight_players_rejected__S1(n: int) -> None:
    with pytest.raises(InvalidConfigError):
        StudHand(StudConfig(), [1000] * n, seed=1)


@pytest.mark.parametrize(
    ("config", "ante", "bring_in", "small", "big"),
    [
        (StudConfig(), 25, 50, 100, 200),  # $1/$2, 25c ante, 50c bring-in
        (StudConfig(ante=25, bring_in=100, small_bet=200, big_bet=400), 25, 100, 200, 400),
        (StudConfig(ante=50, bring_in=100, small_bet=300, big_bet=600), 50, 100, 300, 600),
    ],
)
def test_fixed_limit_stakes_small_big_ante_bring_in__S1(
    config: StudConfig, ante: int, bring_in: int, small: int, big: int
) -> None:
    hand = new_stud(["Ah Kh 2c 5d 9s", "As Ks Qc Td 8h"], 10_000, config)
    assert hand.structure is Structure.FIXED_LIMIT
    assert hand.stacks == [10_000 - ante] * 2
    assert menu(hand) == {
        "player": 0,
        "kinds": ("bring_in", "complete"),
        "call": None,
        "bring_in": bring_in,
        "to": (small,),
    }
    play(hand, (0, Action.bring_in()), (1, Action.complete(small)), (0, Action.call()))
    assert menu(hand) == {  # fourth street: the small bet
        "player": 1,
        "kinds": ("check", "bet"),
        "call": None,
        "bring_in": None,
        "to": (small,),
    }
    play(hand, (1, Action.check()), (0, Action.check()))
    assert hand.street == FIFTH
    assert menu(hand)["to"] == (big,)  # fifth street: the big bet


@pytest.mark.parametrize(
    "config",
    [
        StudConfig(bring_in=0),
        StudConfig(bring_in=150),  # more than the small bet
        StudConfig(small_bet=300),  # small bet above the big bet
        StudConfig(ante=-1),
        StudConfig(max_raises=0),
    ],
)
def test_invalid_stakes_rejected__S1(config: StudConfig) -> None:
    with pytest.raises(InvalidConfigError):
        config.validate()
    with pytest.raises(InvalidConfigError):
        StudHand(config, [1000, 1000], seed=1)


# ====================================================================== S2 buy-in
# The minimum buy-in is the lobby's (table service) business: the engine has no
# buy-in, it only refuses a starting position no buy-in could produce.


@pytest.mark.parametrize(
    "stacks",
    [[1000, 0], [1000, -5], [1000, 100.0], [1000, True]],
)
def test_engine_refuses_players_without_valid_chips__S2(stacks: list[object]) -> None:
    with pytest.raises(InvalidConfigError):
        StudHand(StudConfig(), stacks, seed=1)  # type: ignore[arg-type]


def test_any_positive_integer_stack_is_dealt_in__S2() -> None:
    # One chip is enough to be dealt in (all-in on the ante); nobody can bet
    # against the other player, so the hand is dealt out at once.
    hand = StudHand(StudConfig(), [1, 10_000], seed=1)
    result = hand.result
    assert result is not None
    assert [len(c) for c in hand.cards] == [7, 7]
    assert result.contributed == [1, 25]
    assert result.uncalled == (1, 24)
    assert result.pots == [Pot(2, (0, 1))]
    assert sum(hand.stacks) == 10_001


# ====================================================================== S3 antes


def test_every_player_posts_the_ante_before_any_card__S3() -> None:
    hand = StudHand(StudConfig(), [1000] * 5, seed=9)
    kinds = [e.kind for e in hand.events]
    assert kinds[:5] == ["ante"] * 5
    assert [(e.player, e.amount) for e in hand.events[:5]] == [(i, 25) for i in range(5)]
    assert kinds[5:20] == ["deal"] * 15
    assert hand.stacks == [975] * 5
    assert hand.pot_total() == 125
    assert hand.bets == [0] * 5  # antes are not part of the street's bet


def test_ante_of_a_short_stack_puts_it_all_in__S3() -> None:
    hand = new_stud(
        [
            "3d 4d 2c 7h 8c Td Jc",  # brings in; jack high
            "Ah Ad Kc As Qs 9s 5c",  # 10 chips: all-in on the ante; trip aces
            "Kh Ks 8d 6s 7d 2h 3h",  # pair of kings
        ],
        [10_000, 10, 10_000],
    )
    assert hand.stacks == [9_975, 0, 9_975]
    assert hand.all_in == [False, True, False]
    assert len(hand.cards[1]) == 3  # dealt in
    play(hand, (0, Action.bring_in()), (2, Action.call()))  # player 1 is skipped
    assert hand.street == FOURTH
    assert hand.to_act == 2  # player 1's A-K is the best board, but all-in
    check_or_call_down(hand)
    assert hand.result is not None
    assert hand.result.pots == [Pot(30, (0, 1, 2)), Pot(130, (0, 2))]
    assert pot_awards(hand) == [(0, 1, 30), (1, 2, 130)]
    assert hand.stacks == [9_925, 30, 10_055]


# ====================================================================== S4 streets


def test_two_down_one_up_then_up_up_up_then_down__S4() -> None:
    hand = new_stud([P0, P1], burns="2c 2d 2h 2s")
    check_or_call_down(hand)
    assert hand.up == [[False, False, True, True, True, True, False]] * 2
    assert hand.cards == [cards(P0), cards(P1)]
    assert hand.deck.remaining == 52 - 14 - 4


def test_one_burn_before_each_of_fourth_to_seventh_street__S4() -> None:
    hand = new_stud([P0, P1], burns="2c 2d 2h 2s")
    check_or_call_down(hand)
    burns = events_of(hand, "burn")
    assert [(e.street, e.cards) for e in burns] == [
        (1, (cards("2c")[0],)),
        (2, (cards("2d")[0],)),
        (3, (cards("2h")[0],)),
        (4, (cards("2s")[0],)),
    ]
    # Each burn comes right after the street starts, before its first card.
    for street in (1, 2, 3, 4):
        kinds = [e.kind for e in hand.events if e.street == street and e.kind != "action"]
        assert kinds[:4] == ["street", "burn", "deal", "deal"]


def test_no_burn_before_third_street_by_default__S4() -> None:
    order = stud_order([P0, P1])
    hand = new_stud([P0, P1])
    assert not [e for e in events_of(hand, "burn") if e.street == 0]
    assert events_of(hand, "deal")[0].cards == (order[0],)
    assert hand.deck.remaining == 52 - 6


def test_burn_before_third_street_when_configured__S4() -> None:
    config = StudConfig(burn_before_third=True)
    order = stud_order([P0, P1], burns="2c 2d 2h 2s 3d", burn_before_third=True)
    assert order[0] == cards("2c")[0]
    hand = new_stud([P0, P1], 10_000, config, burns="2c 2d 2h 2s 3d")
    kinds = [e.kind for e in hand.events]
    assert kinds[:4] == ["ante", "ante", "burn", "deal"]  # antes, burn, then cards
    assert hand.events[2].cards == (order[0],)
    assert hand.cards == [cards(P0)[:3], cards(P1)[:3]]
    check_or_call_down(hand)
    assert len(events_of(hand, "burn")) == 5
    assert hand.deck.remaining == 52 - 14 - 5


# ====================================================================== S5 bring-in


def test_bring_in_lowest_door_card__S5() -> None:
    hand = new_stud(["Ah Kh 5h", "Ad Kd 3d", "As Ks Qs"])
    assert hand.bring_in_player == 1
    assert menu(hand) == {
        "player": 1,
        "kinds": ("bring_in", "complete"),
        "call": None,
        "bring_in": 50,
        "to": (100,),
    }


def test_bring_in_ace_is_high__S5() -> None:
    hand = new_stud(["2h 3h Ac", "2d 3d Kd", "2s 3s Ah"])
    assert hand.bring_in_player == 1  # the king is lower than both aces
    assert hand.to_act == 1


@pytest.mark.parametrize(
    ("doors", "expected"),
    [
        (("4d", "4c", "4s"), 1),
        (("4s", "4h", "4d"), 2),
        (("5c", "4h", "4s"), 1),
    ],
)
def test_bring_in_lowest_door_card_suit_tiebreak__S5(
    doors: tuple[str, str, str], expected: int
) -> None:
    hand = new_stud([f"Ah Kh {doors[0]}", f"Ad Kd {doors[1]}", f"Ac Kc {doors[2]}"])
    assert hand.bring_in_player == expected
    assert hand.to_act == expected


def test_bring_in_cannot_check_or_fold__S5() -> None:
    hand = new_stud(["Ah Kh 5h", "Ad Kd 3d", "As Ks Qs"])
    before = (list(hand.stacks), len(hand.events), hand.to_act)
    for action in (Action.fold(), Action.check(), Action.call(), Action.bet(100)):
        with pytest.raises(IllegalActionError):
            hand.act(action, 1)
    assert (list(hand.stacks), len(hand.events), hand.to_act) == before
    legal = hand.legal_actions()
    assert legal.can_fold is False
    assert legal.can_check is False


def test_bring_in_then_action_proceeds_clockwise__S5() -> None:
    hand = new_stud(["Ah Kh 5h", "Ad Kd 6d", "As Ks 3s", "Qh Qd 8c"])
    assert hand.to_act == 2
    hand.act(Action.bring_in(), 2)
    assert hand.stacks[2] == 10_000 - 25 - 50
    assert menu(hand) == {
        "player": 3,
        "kinds": ("fold", "call", "complete"),
        "call": 50,
        "bring_in": None,
        "to": (100,),
    }
    hand.act(Action.call(), 3)
    assert hand.to_act == 0
    hand.act(Action.call(), 0)
    assert hand.to_act == 1
    hand.act(Action.call(), 1)
    assert hand.street == FOURTH  # the bring-in has no option when only called


def test_bring_in_player_may_complete__S5() -> None:
    hand = new_stud(["Ah Kh 5h", "Ad Kd 3d", "As Ks Qs"])
    hand.act(Action.complete(100), 1)
    assert hand.stacks[1] == 10_000 - 125
    assert hand.current_bet == 100
    assert menu(hand) == {
        "player": 2,
        "kinds": ("fold", "call", "raise"),
        "call": 100,
        "bring_in": None,
        "to": (200,),
    }


def test_completion_after_bring_in_and_the_bring_in_may_raise_it__S5() -> None:
    hand = new_stud(["Ah Kh 5h", "Ad Kd 3d", "As Ks Qs"])
    play(hand, (1, Action.bring_in()), (2, Action.complete(100)), (0, Action.call()))
    assert menu(hand) == {
        "player": 1,
        "kinds": ("fold", "call", "raise"),
        "call": 50,
        "bring_in": None,
        "to": (200,),
    }
    with pytest.raises(IllegalActionError):
        hand.act(Action.raise_to(150), 1)


def test_completion_is_the_bet_not_a_raise_for_the_cap__S5() -> None:
    hand = new_stud(["Ah Kh 2c", "Ad Kd 6d", "As Ks 7s", "Qh Qd 8c", "Jh Jd 9c"])
    hand.act(Action.bring_in(), 0)
    assert menu(hand)["to"] == (100,)
    hand.act(Action.complete(100), 1)  # the round's bet
    assert menu(hand)["to"] == (200,)
    hand.act(Action.raise_to(200), 2)  # raise 1
    assert menu(hand)["to"] == (300,)
    hand.act(Action.raise_to(300), 3)  # raise 2
    assert menu(hand)["to"] == (400,)
    hand.act(Action.raise_to(400), 4)  # raise 3: capped
    assert menu(hand) == {
        "player": 0,
        "kinds": ("fold", "call"),
        "call": 350,
        "bring_in": None,
        "to": (),
    }
    hand.act(Action.call(), 0)
    assert menu(hand) == {
        "player": 1,
        "kinds": ("fold", "call"),
        "call": 300,
        "bring_in": None,
        "to": (),
    }


def test_short_bring_in_posts_all_it_has__S5() -> None:
    hand = new_stud(["Ah Kh 2c", "Ad Kd 6d", "As Ks 7s"], [60, 10_000, 10_000])
    assert menu(hand) == {
        "player": 0,
        "kinds": ("bring_in",),
        "call": None,
        "bring_in": 35,
        "to": (),
    }
    hand.act(Action.bring_in(), 0)
    assert hand.stacks[0] == 0
    assert hand.all_in[0] is True
    assert menu(hand) == {
        "player": 1,
        "kinds": ("fold", "call", "complete"),
        "call": 35,
        "bring_in": None,
        "to": (100,),
    }


def test_low_card_all_in_from_ante_next_player_may_bring_in_or_fold__S5() -> None:
    hand = new_stud(
        [
            "Ah Kh 9c 8d 7s 5c 3h",
            "3d 4d 2c 2s 2h Jd Qc",  # 25 chips: all-in on the ante; trip deuces
            "Qs Js Ts",
            "Kc Kd 8s 7c 6d 3s 9h",  # pair of kings
        ],
        [10_000, 25, 10_000, 10_000],
    )
    assert hand.bring_in_player == 1
    assert hand.all_in[1] is True
    expected = {
        "player": 2,
        "kinds": ("fold", "bring_in", "complete"),
        "call": None,
        "bring_in": 50,
        "to": (100,),
    }
    assert menu(hand) == expected
    hand.act(Action.fold(), 2)
    assert menu(hand) == {**expected, "player": 3}  # still nobody has opened
    hand.act(Action.bring_in(), 3)
    assert menu(hand) == {
        "player": 0,
        "kinds": ("fold", "call", "complete"),
        "call": 50,
        "bring_in": None,
        "to": (100,),
    }
    hand.act(Action.fold(), 0)
    result = hand.result
    assert result is not None  # nobody left to bet against player 3
    assert result.uncalled == (3, 50)
    assert result.pots == [Pot(100, (1, 3))]
    assert pot_awards(hand) == [(0, 1, 100)]  # the all-in player's deuces win
    assert hand.stacks == [9_975, 100, 9_975, 9_975]


def test_low_card_all_in_next_player_brings_in_then_action_goes_on__S5() -> None:
    hand = new_stud(["Ah Kh 9c", "3d 4d 2c", "Qs Js Ts"], [10_000, 25, 10_000])
    hand.act(Action.bring_in(), 2)
    assert menu(hand) == {
        "player": 0,
        "kinds": ("fold", "call", "complete"),
        "call": 50,
        "bring_in": None,
        "to": (100,),
    }


def test_bring_in_timeout_posts_the_bring_in__S5() -> None:
    hand = new_stud(["Ah Kh 5h", "Ad Kd 3d", "As Ks Qs"])
    assert hand.timeout() == Action.bring_in()
    assert hand.stacks == [9_975, 9_925, 9_975]
    assert hand.to_act == 2


# ====================================================================== S6 who opens


def test_best_board_opens_fourth_street_pair_counts__S6() -> None:
    hand = new_stud(["2s 3s Ah Kd", "4s 5s 9c 9d", "6s 7s Qh Jh"])
    check_or_call_until(hand, FOURTH)  # 9c brings in
    assert hand.to_act == 1  # 9-9 beats A-K


def test_best_board_high_cards_compared_in_order__S6() -> None:
    hand = new_stud(["2s 3s Ah Kd", "4s 5s 3c 9d", "6s 7s As Qh"])
    check_or_call_until(hand, FOURTH)
    assert hand.to_act == 0  # A-K beats A-Q and 9-3


def test_best_board_trips_beat_two_pair_quads_beat_trips__S6() -> None:
    hand = new_stud(
        [
            "2s 3s Kh Kd Qs Qd",  # two pair showing
            "4s 4h 5c 5d 5s 2h",  # trips showing
            "6s 6h Ah Ac 9s 8d",  # pair of aces showing
            "7s 8s 7c 7d 7h 3h",  # quads showing
        ]
    )
    check_or_call_until(hand, SIXTH)
    assert hand.to_act == 3
    hand2 = new_stud(
        [
            "2s 3s Kh Kd Qs Qd",
            "4s 4h 5c 5d 5s 2h",
            "6s 6h Ah Ac 9s 8d",
        ]
    )
    check_or_call_until(hand2, SIXTH)
    assert hand2.to_act == 1


def test_straights_and_flushes_do_not_count_on_the_board__S6() -> None:
    hand = new_stud(
        [
            "As Ad 7c 8d 9h",  # straight showing: 9 high only
            "Ks Kd 2h 5h Jh",  # flush showing: jack high only
            "Ah Kh Qs 4c 3d",  # queen high
        ]
    )
    check_or_call_until(hand, FIFTH)
    assert hand.to_act == 2
    hand6 = new_stud(
        [
            "3s 4c 9h Th Jh Qh",  # four to a straight flush: queen high only
            "5c 6c 2c 2d 5s 7h",  # a pair of deuces
            "6d 7d Ah Kd 8c 4s",  # ace high
        ]
    )
    check_or_call_until(hand6, SIXTH)
    assert hand6.to_act == 1


@pytest.mark.parametrize(
    ("boards", "expected"),
    [
        (("9c 5d", "Kc 7d", "Kh 7s"), 1),  # tie between 1 and 2: 1 is closer
        (("Kc 7d", "9c 5d", "Kh 7s"), 0),  # tie between 0 and 2: 0 is closer
        (("5c 5d", "9c 9d", "9h 9s"), 1),  # equal pairs: suits do not matter
    ],
)
def test_equal_boards_closest_to_the_dealers_left_opens__S6(
    boards: tuple[str, str, str], expected: int
) -> None:
    downs = ["2s 3s", "2h 3h", "4s 4h"]
    hand = new_stud([f"{downs[i]} {boards[i]}" for i in range(3)])
    check_or_call_until(hand, FOURTH)
    assert hand.to_act == expected


def test_all_in_best_board_next_player_to_its_left_opens__S6() -> None:
    hand = new_stud(
        ["3d 4d 2c 7h 8c", "5s 6s Ac Ad 9h", "9s Ts Kc 9c Jd"],
        [10_000, 75, 10_000],
    )
    play(hand, (0, Action.bring_in()), (1, Action.call()), (2, Action.call()))
    assert hand.all_in[1] is True
    assert hand.street == FOURTH
    assert hand.to_act == 2  # player 1 shows aces but is all-in
    play(hand, (2, Action.check()), (0, Action.check()))
    assert hand.street == FIFTH
    assert hand.to_act == 2


def test_all_in_best_board_wraps_to_seat_one__S6() -> None:
    hand = new_stud(
        ["3d 4d 2c 7h", "5s 6s Kc Kd", "9s Ts Ac Ad"],
        [10_000, 10_000, 75],
    )
    play(hand, (0, Action.bring_in()), (1, Action.call()), (2, Action.call()))
    assert hand.all_in[2] is True
    # Player 2 (aces) is all-in: the next player to its left is 0, not the
    # second-best board (player 1's kings).
    assert hand.to_act == 0


def test_seventh_street_order_is_that_of_sixth__S6() -> None:
    # Player 1's river card would make trips if it counted; it is a down card.
    hand = new_stud(
        [
            "2s 3s Kh Qd 9c 4h Jd",
            "5c 5d Qh Jc 8s 6d Jh",
            "7c 8c Th 9d 6h 2d 3h",
        ]
    )
    check_or_call_until(hand, SIXTH)
    sixth = hand.to_act
    assert sixth == 0
    check_or_call_until(hand, SEVENTH)
    assert hand.to_act == sixth
    assert hand.final_street_opener == sixth


# ====================================================================== S7 bet sizes


def test_bet_sizes_small_on_third_and_fourth_big_from_fifth__S7() -> None:
    hand = new_stud(["Ah Kh 2c 5d 7s 9c Jd", "As Ks Qc Td 8h 6c 4d"])
    hand.act(Action.bring_in(), 0)
    assert menu(hand)["to"] == (100,)  # completion to the small bet
    hand.act(Action.complete(100), 1)
    assert menu(hand) == {
        "player": 0,
        "kinds": ("fold", "call", "raise"),
        "call": 50,
        "bring_in": None,
        "to": (200,),
    }
    hand.act(Action.call(), 0)
    expected = {FOURTH: (100, 200), FIFTH: (200, 400), SIXTH: (200, 400), SEVENTH: (200, 400)}
    for street, (bet, raise_to) in expected.items():
        assert hand.street == street
        assert hand.to_act == 1  # Q-T... shows higher than 2-5... on every street
        assert menu(hand)["to"] == (bet,)
        for wrong in (bet - 1, bet + 1, bet * 2, bet // 2):
            with pytest.raises(IllegalActionError):
                hand.act(Action.bet(wrong), 1)
        hand.act(Action.bet(bet), 1)
        assert menu(hand)["to"] == (raise_to,)
        with pytest.raises(IllegalActionError):
            hand.act(Action.raise_to(raise_to + bet), 0)
        hand.act(Action.call(), 0)
    assert hand.result is not None
    each = 25 + 100 + 100 + 200 + 200 + 200
    assert awards_by_player(hand) == {1: 2 * each}  # A-K-Q-T-8 beats A-K-J-9-7
    assert hand.stacks == [10_000 - each, 10_000 + each]


# ====================================================================== S7a open pair

OPEN_PAIR = ["As Ah Kc 9d 8h", "Ks Kh 3c 3d 7s", "Qs Qh Jc Td 6c"]


def open_pair_hand(config: StudConfig | None = None) -> StudHand:
    hand = new_stud(OPEN_PAIR, 10_000, config)
    play(hand, (1, Action.bring_in()), (2, Action.call()), (0, Action.call()))
    assert hand.street == FOURTH
    assert hand.to_act == 1  # 3-3 showing
    return hand


def test_open_pair_on_fourth_bet_small_or_big__S7a() -> None:
    hand = open_pair_hand()
    assert menu(hand) == {
        "player": 1,
        "kinds": ("check", "bet"),
        "call": None,
        "bring_in": None,
        "to": (100, 200),
    }
    with pytest.raises(IllegalActionError):
        hand.act(Action.bet(150), 1)


def test_open_pair_any_player_may_choose_after_a_check__S7a() -> None:
    hand = open_pair_hand()
    hand.act(Action.check(), 1)
    assert menu(hand)["to"] == (100, 200)  # player 2 has no pair showing


def test_open_pair_after_small_bet_raise_small_or_big__S7a() -> None:
    hand = open_pair_hand()
    hand.act(Action.bet(100), 1)
    assert menu(hand) == {
        "player": 2,
        "kinds": ("fold", "call", "raise"),
        "call": 100,
        "bring_in": None,
        "to": (200, 300),
    }
    hand.act(Action.raise_to(200), 2)  # a small raise keeps the choice
    assert menu(hand)["to"] == (300, 400)


def test_open_pair_after_big_raise_all_raises_are_big__S7a() -> None:
    hand = open_pair_hand()
    play(hand, (1, Action.bet(100)), (2, Action.raise_to(300)))
    assert menu(hand) == {
        "player": 0,
        "kinds": ("fold", "call", "raise"),
        "call": 300,
        "bring_in": None,
        "to": (500,),
    }
    hand.act(Action.raise_to(500), 0)
    assert menu(hand)["to"] == (700,)


def test_open_pair_after_big_bet_raises_are_big__S7a() -> None:
    hand = open_pair_hand()
    hand.act(Action.bet(200), 1)
    assert menu(hand)["to"] == (400,)
    with pytest.raises(IllegalActionError):
        hand.act(Action.raise_to(300), 2)
    hand.act(Action.raise_to(400), 2)
    assert menu(hand)["to"] == (600,)


def test_open_pair_option_is_fourth_street_only__S7a() -> None:
    hand = open_pair_hand()
    play(hand, (1, Action.check()), (2, Action.check()), (0, Action.check()))
    assert hand.street == FIFTH
    assert hand.to_act == 1
    assert menu(hand)["to"] == (200,)


def test_no_open_pair_small_bet_only__S7a() -> None:
    hand = new_stud(["As Ah Kc 9d", "Ks Kh 3c 4d", "Qs Qh Jc Td"])
    check_or_call_until(hand, FOURTH)
    assert hand.to_act == 0
    assert menu(hand)["to"] == (100,)


def test_open_pair_option_not_in_stud_hi_lo__S7a() -> None:
    hand = open_pair_hand(StudConfig(hi_lo=True))
    assert menu(hand)["to"] == (100,)
    hand.act(Action.bet(100), 1)
    assert menu(hand)["to"] == (200,)


# ====================================================================== S8 cap


def fifth_street(
    hands: list[str], stacks: list[int] | int = 10_000, config: StudConfig | None = None
) -> StudHand:
    """Bring-in called around, fourth street checked: player 0 opens fifth."""
    hand = new_stud(hands, stacks, config)
    check_or_call_until(hand, FIFTH)
    assert hand.to_act == 0
    return hand


def test_cap_bet_and_three_raises_with_three_players__S8() -> None:
    hand = fifth_street([P0, P1, P2])
    hand.act(Action.bet(200), 0)
    assert menu(hand)["to"] == (400,)
    hand.act(Action.raise_to(400), 1)
    assert menu(hand)["to"] == (600,)
    hand.act(Action.raise_to(600), 2)
    assert menu(hand)["to"] == (800,)
    hand.act(Action.raise_to(800), 0)  # bet + three raises: capped
    assert menu(hand) == {
        "player": 1,
        "kinds": ("fold", "call"),
        "call": 400,
        "bring_in": None,
        "to": (),
    }
    with pytest.raises(IllegalActionError):
        hand.act(Action.raise_to(1000), 1)
    hand.act(Action.call(), 1)
    assert menu(hand)["kinds"] == ("fold", "call")
    assert menu(hand)["call"] == 200


def test_heads_up_raises_are_unlimited__S8() -> None:
    hand = fifth_street([P0, P1])
    hand.act(Action.bet(200), 0)
    to = 200
    for k in range(8):
        to += 200
        player = 1 - k % 2
        assert menu(hand) == {
            "player": player,
            "kinds": ("fold", "call", "raise"),
            "call": 200,
            "bring_in": None,
            "to": (to,),
        }
        hand.act(Action.raise_to(to), player)
    assert hand.current_bet == 200 * 9


def test_capped_round_stays_capped_when_a_fold_leaves_two__S8() -> None:
    hand = fifth_street([P0, P1, P2])
    play(
        hand,
        (0, Action.bet(200)),
        (1, Action.raise_to(400)),
        (2, Action.raise_to(600)),
        (0, Action.raise_to(800)),
        (1, Action.fold()),
    )
    assert menu(hand) == {
        "player": 2,
        "kinds": ("fold", "call"),
        "call": 200,
        "bring_in": None,
        "to": (),
    }


def test_fold_to_two_before_the_cap_makes_raises_unlimited__S8() -> None:
    hand = fifth_street([P0, P1, P2])
    play(hand, (0, Action.bet(200)), (1, Action.raise_to(400)), (2, Action.fold()))
    play(hand, (0, Action.raise_to(600)), (1, Action.raise_to(800)))
    assert menu(hand)["to"] == (1000,)  # a fifth bet: heads-up now
    hand.act(Action.raise_to(1000), 0)
    assert menu(hand)["to"] == (1200,)


def test_players_all_in_do_not_count_for_the_cap__S8() -> None:
    # Player 2 is all-in from the bring-in: only two players can still bet.
    hand = fifth_street([P0, P1, P2], [10_000, 10_000, 75])
    assert hand.all_in[2] is True
    play(
        hand,
        (0, Action.bet(200)),
        (1, Action.raise_to(400)),
        (0, Action.raise_to(600)),
        (1, Action.raise_to(800)),
    )
    assert menu(hand)["to"] == (1000,)


def test_short_all_in_raise_does_not_reopen_for_players_who_acted__S8() -> None:
    # Player 2 has 250 left on fifth street.
    hand = fifth_street([P0, P1, P2], [10_000, 10_000, 325])
    play(hand, (0, Action.bet(200)), (1, Action.call()))
    assert menu(hand) == {
        "player": 2,
        "kinds": ("fold", "call", "raise"),
        "call": 200,
        "bring_in": None,
        "to": (250,),
    }
    hand.act(Action.raise_to(250), 2)
    assert hand.all_in[2] is True
    assert menu(hand) == {
        "player": 0,
        "kinds": ("fold", "call"),
        "call": 50,
        "bring_in": None,
        "to": (),
    }
    hand.act(Action.call(), 0)
    assert menu(hand) == {
        "player": 1,
        "kinds": ("fold", "call"),
        "call": 50,
        "bring_in": None,
        "to": (),
    }
    hand.act(Action.call(), 1)
    assert hand.street == SIXTH


def test_short_all_in_raise_does_not_count_as_a_raise_for_the_cap__S8() -> None:
    # Player 3 has 700 left on fifth street: all-in for 100 over the third bet.
    hand = fifth_street([P0, P1, P2, P3], [10_000, 10_000, 10_000, 775])
    play(
        hand,
        (0, Action.bet(200)),
        (1, Action.raise_to(400)),
        (2, Action.raise_to(600)),
    )
    assert menu(hand)["to"] == (700,)
    hand.act(Action.raise_to(700), 3)
    assert menu(hand) == {  # not capped: the short all-in was no raise
        "player": 0,
        "kinds": ("fold", "call", "raise"),
        "call": 500,
        "bring_in": None,
        "to": (900,),
    }
    hand.act(Action.raise_to(900), 0)  # bet + three full raises: capped
    assert menu(hand) == {
        "player": 1,
        "kinds": ("fold", "call"),
        "call": 500,
        "bring_in": None,
        "to": (),
    }


# ====================================================================== S9 check-raise


def test_check_raise_allowed__S9() -> None:
    hand = fifth_street([P0, P1, P2])
    play(hand, (0, Action.check()), (1, Action.bet(200)), (2, Action.call()))
    assert menu(hand) == {
        "player": 0,
        "kinds": ("fold", "call", "raise"),
        "call": 200,
        "bring_in": None,
        "to": (400,),
    }
    hand.act(Action.raise_to(400), 0)
    assert hand.stacks[0] == 10_000 - 75 - 400
    assert menu(hand) == {
        "player": 1,
        "kinds": ("fold", "call", "raise"),
        "call": 200,
        "bring_in": None,
        "to": (600,),
    }


def test_check_raise_on_fourth_street__S9() -> None:
    hand = new_stud([P0, P1, P2])
    check_or_call_until(hand, FOURTH)
    play(hand, (0, Action.check()), (1, Action.bet(100)), (2, Action.fold()))
    assert menu(hand)["to"] == (200,)
    hand.act(Action.raise_to(200), 0)
    assert hand.last_aggressor == 0


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
    (note,) = [e for e in events_of(hand, "timeout")]
    assert (note.player, note.note) == (1, "all_in_protection")


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


# ====================================================================== S11 river shortage

# Eight six-card hands using all 48 cards from 3 to A; the four deuces are the
# three burns and the last card of the stub.  Sixth street boards: trip 4s, trip
# 6s, trip 8s, trip tens, trip queens (player 4 opens), K high, Q high, pair of
# aces.  Player 7 holds four aces.
EIGHT = [
    "3c 3d 3h 4c 4d 4h",
    "5c 5d 5h 6c 6d 6h",
    "7c 7d 7h 8c 8d 8h",
    "9d 9h Tc Td Th 3s",
    "Jc Jd Jh Qc Qd Qh",
    "Kc Kh Ks 4s 5s 9s",
    "6s 7s 8s Ts Js Qs",
    "Ah Ad 9c As Ac Kd",
]
DEUCES = "2c 2d 2h 2s"


def test_river_shortage_eight_players_community_card__S11() -> None:
    hand = new_stud(EIGHT, burns="2c 2d 2h", tail="2s", seed=1)
    assert hand.to_act == 0  # 3h brings in
    check_or_call_until(hand, SIXTH)
    assert hand.to_act == 4
    assert hand.deck.remaining == 1
    assert len(hand.deck.burned) == 3
    check_or_call_until(hand, SEVENTH)
    assert hand.river_outcome == "community"
    assert hand.community in cards(DEUCES)
    river_events = [e for e in hand.events if e.street == SEVENTH]
    kinds = [e.kind for e in river_events]
    assert kinds[:3] == ["street", "reshuffle", "community"]
    assert "burn" not in kinds
    assert "deal" not in kinds
    (community,) = events_of(hand, "community")
    assert community.up is True
    assert community.cards == (hand.community,)
    assert all(len(hand.cards[i]) == 6 for i in range(8))
    assert all(hand.hand_cards(i) == [*hand.cards[i], hand.community] for i in range(8))
    # Betting on seventh street proceeds normally, opened as on sixth.
    assert hand.to_act == 4
    assert menu(hand)["to"] == (200,)
    hand.act(Action.bet(200), 4)
    for p in (5, 6, 7, 0, 1, 2, 3):
        hand.act(Action.call(), p)
    assert hand.result is not None
    assert awards_by_player(hand) == {7: 8 * 275}  # four aces
    assert hand.stacks == [9_725] * 7 + [9_725 + 8 * 275]


def test_river_shortage_seven_players_reshuffle_burns_no_burn__S11() -> None:
    tail = "2s 9c Kd Ah Ad As Ac"
    hand = new_stud(EIGHT[:7], burns="2c 2d 2h", tail=tail, seed=2)
    check_or_call_until(hand, SIXTH)
    assert hand.deck.remaining == 7  # R = 7 < N + 1 = 8
    check_or_call_until(hand, SEVENTH)
    assert hand.river_outcome == "reshuffled"
    river_events = [e for e in hand.events if e.street == SEVENTH and e.kind != "action"]
    assert [e.kind for e in river_events] == ["street", "reshuffle"] + ["deal"] * 7
    assert [e.player for e in river_events[2:]] == list(range(7))
    assert all(e.up is False for e in river_events[2:])
    river = [hand.cards[i][6] for i in range(7)]
    assert len(set(river)) == 7
    assert set(river) <= set(cards(tail)) | set(cards("2c 2d 2h"))
    assert hand.deck.burned == []  # the burns went back into the stub
    assert hand.deck.remaining == 3
    assert hand.community is None


def test_river_normal_when_stub_has_one_more_card_than_players__S11() -> None:
    hands = [*EIGHT[:6], "6s 7s 8s", "Ah Ad 9c"]  # players 6 and 7 fold on third
    tail = "Kd As 2s Ts Js Qs Ac"
    hand = new_stud(hands, burns="2c 2d 2h", tail=tail)
    hand.act(Action.bring_in(), 0)
    for p in range(1, 6):
        hand.act(Action.call(), p)
    play(hand, (6, Action.fold()), (7, Action.fold()))
    check_or_call_until(hand, SIXTH)
    assert hand.deck.remaining == 7  # R = N + 1
    check_or_call_until(hand, SEVENTH)
    assert hand.river_outcome == "normal"
    assert events_of(hand, "burn")[-1].cards == (cards("Kd")[0],)
    assert [hand.cards[i][6] for i in range(6)] == cards("As 2s Ts Js Qs Ac")
    assert not events_of(hand, "reshuffle")


def test_river_shortage_never_uses_folded_cards__S11() -> None:
    # 8 dealt, player 7 folds on third: R = 4, B = 3, N = 7: reshuffle, no burn.
    hands = [*EIGHT[:7], "Ah Ad 9c"]
    tail = "2s Kd As Ac"
    hand = new_stud(hands, burns="2c 2d 2h", tail=tail, seed=3)
    hand.act(Action.bring_in(), 0)
    for p in range(1, 7):
        hand.act(Action.call(), p)
    hand.act(Action.fold(), 7)
    check_or_call_until(hand, SEVENTH)
    assert hand.river_outcome == "reshuffled"
    river = [hand.cards[i][6] for i in range(7)]
    assert sorted(river) == sorted(cards(tail) + cards("2c 2d 2h"))
    assert not set(river) & set(cards("Ah Ad 9c"))
    assert not [e for e in events_of(hand, "burn") if e.street == SEVENTH]


def test_river_shortage_stub_first_alternative__S11() -> None:
    config = StudConfig(river_shortage=RiverShortage.STUB_FIRST)
    tail = "2s 9c Kd Ah Ad As Ac"
    hand = new_stud(EIGHT[:7], 10_000, config, burns="2c 2d 2h", tail=tail, seed=4)
    check_or_call_until(hand, SEVENTH)
    assert hand.river_outcome == "stub_first"
    # The stub serves players 0..5 in order and keeps its last card (Ac) ...
    assert [hand.cards[i][6] for i in range(6)] == cards("2s 9c Kd Ah Ad As")
    # ... which is shuffled with the burns; one is burned, the next goes to player 6.
    pool = set(cards("Ac 2c 2d 2h"))
    river_events = [e for e in hand.events if e.street == SEVENTH and e.kind != "action"]
    assert [e.kind for e in river_events] == (
        ["street"] + ["deal"] * 6 + ["reshuffle", "burn", "deal"]
    )
    burned = river_events[8].cards[0]
    assert burned in pool
    assert hand.cards[6][6] in pool - {burned}
    assert hand.deck.burned == [burned]
    assert hand.deck.remaining == 2
    assert hand.community is None


def test_river_shortage_stub_first_still_short_uses_community_card__S11() -> None:
    config = StudConfig(river_shortage=RiverShortage.STUB_FIRST)
    hand = new_stud(EIGHT, 10_000, config, burns="2c 2d 2h", tail="2s", seed=5)
    check_or_call_until(hand, SEVENTH)
    assert hand.river_outcome == "community"
    assert hand.community in cards(DEUCES)
    assert all(len(c) == 6 for c in hand.cards)


def test_river_shortage_stub_first_short_after_keeping_the_last_card__S11() -> None:
    # 8 dealt, player 7 folds on third: R = 4, B = 3, N = 7.  The [002] procedure
    # serves 3 players, shuffles the last card with the 3 burns and burns one:
    # 3 cards for 4 players, still short -> a community card for everyone.
    config = StudConfig(river_shortage=RiverShortage.STUB_FIRST)
    hands = [*EIGHT[:7], "Ah Ad 9c"]
    tail = "2s Kd As Ac"
    hand = new_stud(hands, 10_000, config, burns="2c 2d 2h", tail=tail, seed=6)
    hand.act(Action.bring_in(), 0)
    for p in range(1, 7):
        hand.act(Action.call(), p)
    hand.act(Action.fold(), 7)
    check_or_call_until(hand, SEVENTH)
    assert hand.river_outcome == "community"
    assert hand.community in set(cards(tail) + cards("2c 2d 2h"))
    assert all(len(hand.cards[i]) == 6 for i in range(7))


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
    (muck,) = events_of(hand, "muck")
    assert muck.player == 1
    assert muck.cards == tuple(cards(P1))
    shows = events_of(hand, "show")
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
