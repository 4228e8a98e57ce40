# ruff: noqa: N802  (test names end with the docs/rules.md rule ID, e.g. __S5)
"""Seven Card Stud scenarios, the betting: bet sizes (S7), the open pair on fourth
street (S7a), the cap (S8) and check-raising (S9) of docs/rules.md.

Conventions (rule IDs, scripted decks, the default table): ``stud_scenarios.py``.
"""

from __future__ import annotations

import pytest

from poker_rules import Action, IllegalActionError, StudConfig, StudHand

from .helpers import awards_by_player, check_or_call_until, menu, new_stud, play
from .stud_scenarios import FIFTH, FOURTH, P0, P1, P2, P3, SEVENTH, SIXTH

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


# Player 1 shows 4d 7c and has 250 behind on fourth street (ante 25, bring-in 50):
# all-in there for more than a small raise and less than a big one.
SHORT_BETWEEN = ["2h 3h Ac Ad", "2d 3d 4d 7c", "2s 3s 5s 8d", "6h 9d 8c Jh"]


def short_between_hand() -> StudHand:
    hand = new_stud(SHORT_BETWEEN, [5_000, 325, 5_000, 5_000])
    check_or_call_until(hand, FOURTH)
    assert hand.to_act == 0 and hand.open_pair  # Ac Ad showing
    assert hand.stacks[1] == 250
    return hand


def test_open_pair_all_in_between_the_bets_leaves_the_small_raise_full__S7a() -> None:
    hand = short_between_hand()
    hand.act(Action.bet(100), 0)
    assert menu(hand)["to"] == (200, 250)  # a small raise, or all-in short of a big one
    hand.act(Action.raise_to(250), 1)  # 150 more: a full small raise, not a big bet
    assert hand.bet_count == 2
    hand.act(Action.call(), 2)
    assert menu(hand)["to"] == (350, 450)  # small or big: no big bet was made
    hand.act(Action.raise_to(350), 3)  # by the small bet: a full raise
    assert hand.bet_count == 3
    hand.act(Action.call(), 0)
    # player 2 called 250 and now faces a full raise: may raise again (S8)
    assert menu(hand) == {
        "player": 2,
        "kinds": ("fold", "call", "raise"),
        "call": 100,
        "bring_in": None,
        "to": (450, 550),
    }


def test_open_pair_all_in_between_the_bets_counts_for_the_cap__S8() -> None:
    hand = short_between_hand()
    # the bet, the all-in's raise, and two small raises: a bet and three raises
    play(hand, (0, Action.bet(100)), (1, Action.raise_to(250)), (2, Action.raise_to(350)))
    hand.act(Action.raise_to(450), 3)
    assert hand.bet_count == 4
    assert menu(hand)["kinds"] == ("fold", "call")  # capped: three players have chips
    play(hand, (0, Action.call()), (2, Action.call()))
    assert hand.street == FIFTH


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
