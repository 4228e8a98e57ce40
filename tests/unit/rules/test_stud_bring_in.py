# ruff: noqa: N802  (test names end with the docs/rules.md rule ID, e.g. __S5)
"""Seven Card Stud scenarios, third street: the bring-in and the completion (S5 of
docs/rules.md).

Conventions (rule IDs, scripted decks, the default table): ``stud_scenarios.py``.
"""

from __future__ import annotations

import pytest

from poker_rules import Action, IllegalActionError
from poker_rules.pots import Pot

from .helpers import menu, new_stud, play, pot_awards
from .stud_scenarios import FOURTH

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
