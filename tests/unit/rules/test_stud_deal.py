# ruff: noqa: N802  (test names end with the docs/rules.md rule ID, e.g. __S5)
"""Seven Card Stud scenarios, the table and the deal: players and stakes (S1), chips
(S2), antes (S3) and the order of the cards and burns (S4) of docs/rules.md.

Conventions (rule IDs, scripted decks, the default table): ``stud_scenarios.py``.
"""

from __future__ import annotations

import pytest

from poker_rules import Action, InvalidConfigError, Structure, StudConfig, StudHand
from poker_rules.events import Act, Ante, Burn, Deal, NewStreet
from poker_rules.pots import Pot

from .helpers import (
    cards,
    check_or_call_down,
    events_of,
    menu,
    new_stud,
    on_street,
    play,
    pot_awards,
    stud_order,
)
from .stud_scenarios import FIFTH, FOURTH, P0, P1

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
    kinds = [type(e) for e in hand.events]
    assert kinds[:5] == [Ante] * 5
    assert [(e.player, e.amount) for e in events_of(hand, Ante)] == [(i, 25) for i in range(5)]
    assert kinds[5:20] == [Deal] * 15
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
    burns = events_of(hand, Burn)
    assert [(e.street, e.cards) for e in burns] == [
        (1, (cards("2c")[0],)),
        (2, (cards("2d")[0],)),
        (3, (cards("2h")[0],)),
        (4, (cards("2s")[0],)),
    ]
    # Each burn comes right after the street starts, before its first card.
    for street in (1, 2, 3, 4):
        kinds = [type(e) for e in on_street(hand, street) if not isinstance(e, Act)]
        assert kinds[:4] == [NewStreet, Burn, Deal, Deal]


def test_no_burn_before_third_street_by_default__S4() -> None:
    order = stud_order([P0, P1])
    hand = new_stud([P0, P1])
    assert not [e for e in events_of(hand, Burn) if e.street == 0]
    assert events_of(hand, Deal)[0].cards == (order[0],)
    assert hand.deck.remaining == 52 - 6


def test_burn_before_third_street_when_configured__S4() -> None:
    config = StudConfig(burn_before_third=True)
    order = stud_order([P0, P1], burns="2c 2d 2h 2s 3d", burn_before_third=True)
    assert order[0] == cards("2c")[0]
    hand = new_stud([P0, P1], 10_000, config, burns="2c 2d 2h 2s 3d")
    kinds = [type(e) for e in hand.events]
    assert kinds[:4] == [Ante, Ante, Burn, Deal]  # antes, burn, then cards
    assert events_of(hand, Burn)[0].cards == (order[0],)
    assert hand.cards == [cards(P0)[:3], cards(P1)[:3]]
    check_or_call_down(hand)
    assert len(events_of(hand, Burn)) == 5
    assert hand.deck.remaining == 52 - 14 - 5
