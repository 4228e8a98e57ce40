# ruff: noqa: N802  (test names end with the docs/rules.md rule ID, e.g. __S5)
"""Seven Card Stud scenarios, fourth street on: the best board showing acts first
(S6 of docs/rules.md).

Conventions (rule IDs, scripted decks, the default table): ``stud_scenarios.py``.
"""

from __future__ import annotations

import pytest

from poker_rules import Action

from .helpers import check_or_call_until, new_stud, play
from .stud_scenarios import FIFTH, FOURTH, SEVENTH, SIXTH

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
