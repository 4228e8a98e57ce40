# ruff: noqa: N802  (test names end with the docs/rules.md rule ID, e.g. __D5)
"""Five Card Draw 7-A scenarios, the table and the deal: players and the deck (D1),
the blinds (D3) and the deal (D4) of docs/rules.md.

Conventions (player indexes, preset decks): ``draw_scenarios.py``.
"""

from __future__ import annotations

import pytest

from poker_rules import Action, Deck, DrawConfig, DrawHand, InvalidConfigError, Phase, short_deck
from poker_rules.events import Blind, Deal

from .draw_helpers import cards, draw_deck, play
from .draw_scenarios import FL, discard

# ---------------------------------------------------------------- D1 table and deck


@pytest.mark.parametrize("players", [0, 1, 6, 8])
def test_fewer_than_two_or_more_than_five_players_rejected__D1(players: int) -> None:
    with pytest.raises(InvalidConfigError, match="2 to 5"):
        DrawHand(FL, [1000] * players, seed=1)


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_two_to_five_players_deal_five_cards_each__D1(players: int) -> None:
    hand = DrawHand(FL, [1000] * players, seed=1)
    assert [len(h) for h in hand.hands] == [5] * players
    assert hand.phase is Phase.BETTING


@pytest.mark.parametrize("players", [2, 3, 4])
def test_up_to_four_players_use_the_32_card_seven_to_ace_deck__D1(players: int) -> None:
    hand = DrawHand(FL, [1000] * players, seed=3)
    assert hand.with_sixes is False
    assert sorted(hand.deck.order) == short_deck(False)
    assert len(hand.deck.order) == 32
    assert all(card_rank >= 5 for card_rank in (c >> 2 for c in hand.deck.order))  # 7..A
    assert hand.deck.remaining == 32 - 5 * players


def test_five_players_add_the_four_sixes_36_cards__D1() -> None:
    hand = DrawHand(FL, [1000] * 5, seed=3)
    assert hand.with_sixes is True
    assert len(hand.deck.order) == 36
    assert sorted(hand.deck.order) == short_deck(True)
    sixes = [c for c in hand.deck.order if c >> 2 == 4]
    assert sorted(sixes) == cards("6c 6d 6h 6s")
    assert hand.deck.remaining == 36 - 25


def test_five_players_can_be_dealt_and_draw_sixes__D1() -> None:
    deck = draw_deck(["6c 6d 6h 6s 7c", None, None, None, None], "Ah 9c 9d", with_sixes=True)
    hand = DrawHand(FL, [1000] * 5, deck=deck)
    assert hand.hands[0] == cards("6c 6d 6h 6s 7c")
    play(
        hand,
        (2, Action.fold()),
        (3, Action.fold()),
        (4, Action.fold()),
        (0, Action.call()),
        (1, Action.check()),
    )
    hand.act(discard("7c 6s"))  # burn Ah, then 9c 9d
    assert hand.hands[0] == cards("6c 6d 6h 9c 9d")
    assert hand.deck.burned == cards("Ah")


# ---------------------------------------------------------------- D3 blinds


def test_small_blind_half_the_small_bet_rounded_down__D3() -> None:
    config = DrawConfig(small_bet=25, big_bet=50)
    assert (config.small_blind, config.big_blind) == (12, 25)
    hand = DrawHand(config, [1000] * 3, seed=1)
    assert hand.stacks == [988, 975, 1000]
    assert hand.bets == [12, 25, 0]
    assert hand.pot_total() == 37
    assert hand.legal_actions().call_amount == 25
    hand.act(Action.call(), 2)
    assert hand.legal_actions().call_amount == 13  # small blind completes


def test_blinds_left_of_the_button__D3() -> None:
    hand = DrawHand(FL, [1000] * 4, seed=1)
    assert hand.big_blind_player == 1
    assert hand.stacks == [950, 900, 1000, 1000]
    blinds = [(e.player, e.amount) for e in hand.events if isinstance(e, Blind)]
    assert blinds == [(0, 50), (1, 100)]


def test_heads_up_button_posts_small_blind_acts_first_before_draw__D3() -> None:
    hand = DrawHand(FL, [1000, 1000], seed=1)  # index 1 is the button
    assert hand.big_blind_player == 0
    assert hand.stacks == [900, 950]
    legal = hand.legal_actions()
    assert legal.player == 1
    assert legal.call_amount == 50
    hand.act(Action.call(), 1)
    legal = hand.legal_actions()
    assert legal.player == 0  # the big blind's option
    assert legal.can_check


def test_heads_up_button_acts_last_after_the_draw__D3() -> None:
    hand = DrawHand(FL, [1000, 1000], seed=1)
    play(hand, (1, Action.call()), (0, Action.check()))
    assert hand.to_act == 0  # draw from the left of the button
    play(hand, (0, Action.discard(())), (1, Action.discard(())))
    assert hand.to_act == 0
    hand.act(Action.check(), 0)
    assert hand.to_act == 1
    hand.act(Action.bet(200), 1)
    assert hand.to_act == 0
    hand.act(Action.fold(), 0)
    assert hand.result is not None
    assert hand.result.final_stacks == [900, 1100]


# ---------------------------------------------------------------- D4 deal


def test_five_cards_one_at_a_time_from_left_of_button__D4() -> None:
    order = cards("7c 8c 9c Tc Jc Qc Kc Ac 7d 8d 9d Td Jd Qd Kd")
    hand = DrawHand(FL, [1000] * 3, deck=Deck(order, preset=True))
    assert hand.hands == [
        cards("7c Tc Kc 8d Jd"),
        cards("8c Jc Ac 9d Qd"),
        cards("9c Qc 7d Td Kd"),
    ]
    deals = [(e.player, e.cards) for e in hand.events if isinstance(e, Deal)]
    assert [p for p, _ in deals] == [0, 1, 2] * 5
    assert [c for _, (c,) in deals] == order
    assert all(e.up is False for e in hand.events if isinstance(e, Deal))


def test_deal_order_five_handed_with_sixes__D4() -> None:
    hands = [
        "6c 6d 6h 6s 7c",
        "7d 7h 7s 8c 8d",
        "8h 8s 9c 9d 9h",
        "9s Tc Td Th Ts",
        "Jc Jd Jh Js Qc",
    ]
    hand = DrawHand(FL, [1000] * 5, deck=draw_deck(hands, with_sixes=True))
    assert hand.hands == [cards(h) for h in hands]
    first_round = [e.player for e in hand.events if isinstance(e, Deal)][:5]
    assert first_round == [0, 1, 2, 3, 4]
    assert hand.deck.order[:5] == tuple(cards("6c 7d 8h 9s Jc"))
