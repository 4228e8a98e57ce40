# ruff: noqa: N802  (test names end with the RULES.md rule ID, e.g. __D5)
"""Five Card Draw 7-A: scenario tests for rules D1-D9 of RULES.md.

Players are indexes clockwise from the first player left of the button, so the
button is the last index (heads-up: index 1 is the button and posts the small
blind).  Decks are preset: the deal runs five rounds of one card from index 0; then
the burn (when the table burns); then the draws in draw order.
"""

from __future__ import annotations

import pytest

from poker_rules import (
    Action,
    ActionKind,
    Deck,
    DrawConfig,
    DrawHand,
    IllegalActionError,
    InvalidConfigError,
    NotYourTurnError,
    Phase,
    Structure,
    short_deck,
)

from .draw_helpers import cards, check_down, draw_deck, play, stand_pat_all

FL = DrawConfig()  # fixed limit 100/200: blinds 50/100
PL = DrawConfig(structure=Structure.POT_LIMIT)  # blinds 50/100
NL = DrawConfig(structure=Structure.NO_LIMIT)  # blinds 50/100

FOLD, CHECK, CALL, BET, RAISE, DISCARD = (
    ActionKind.FOLD,
    ActionKind.CHECK,
    ActionKind.CALL,
    ActionKind.BET,
    ActionKind.RAISE,
    ActionKind.DISCARD,
)

# A four-handed scripted deal (32 cards): twenty dealt, then the burn, then the
# eleven cards of the stub in the order they are served.
HANDS4 = ("7c 7d 7h 8c 8d", "9c 9d 9h Tc Td", "Jc Jd Jh Qc Qd", "Kc Kd Kh Ac Ad")
BURN = "7s"
STUB = "8h 8s 9s Th Ts Js Qh Qs Ks Ah As"


def four_handed(config: DrawConfig = FL, *, fold_utg: bool = False) -> DrawHand:
    """The scripted four-handed deal, played to the draw: everyone limps and the big
    blind checks (or the UTG player, index 2, folds)."""
    hand = DrawHand(config, [1000] * 4, deck=draw_deck(HANDS4, f"{BURN} {STUB}"))
    play(
        hand,
        (2, Action.fold() if fold_utg else Action.call()),
        (3, Action.call()),
        (0, Action.call()),
        (1, Action.check()),
    )
    assert hand.phase is Phase.DRAWING
    return hand


def discard(text: str) -> Action:
    return Action.discard(cards(text))


def limp_three_handed(config: DrawConfig = FL, stacks: int = 1000) -> DrawHand:
    """Three players (button = index 2, UTG) limp, big blind checks, all stand pat."""
    hand = DrawHand(config, [stacks] * 3, seed=7)
    play(hand, (2, Action.call()), (0, Action.call()), (1, Action.check()))
    stand_pat_all(hand)
    assert hand.phase is Phase.BETTING
    return hand


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


# ---------------------------------------------------------------- D2 structures


def test_fixed_limit_small_bet_before_the_draw__D2() -> None:
    hand = DrawHand(FL, [1000] * 3, seed=1)
    legal = hand.legal_actions()
    assert legal.player == 2
    assert legal.call_amount == 100
    assert legal.raise_kind is RAISE
    assert legal.to_choices == (200,)
    assert (legal.min_to, legal.max_to) == (200, 200)
    with pytest.raises(IllegalActionError):
        hand.act(Action.raise_to(250))
    with pytest.raises(IllegalActionError):
        hand.act(Action.raise_to(300))


def test_fixed_limit_big_bet_after_the_draw__D2() -> None:
    hand = limp_three_handed(FL)
    legal = hand.legal_actions()
    assert legal.player == 0
    assert legal.raise_kind is BET
    assert legal.to_choices == (200,)
    hand.act(Action.bet(200))
    assert hand.legal_actions().to_choices == (400,)


def test_fixed_limit_cap_is_big_blind_plus_three_raises_before_draw__D2() -> None:
    hand = DrawHand(FL, [5000] * 4, seed=1)
    # The big blind is the round's bet: three raises cap it at 400.
    play(hand, (2, Action.raise_to(200)), (3, Action.raise_to(300)))
    assert hand.legal_actions().to_choices == (400,)
    hand.act(Action.raise_to(400), 0)
    legal = hand.legal_actions()
    assert legal.player == 1
    assert legal.kinds == (FOLD, CALL)
    assert legal.call_amount == 300
    assert legal.raise_kind is None
    with pytest.raises(IllegalActionError):
        hand.act(Action.raise_to(500))
    play(hand, (1, Action.call()), (2, Action.call()), (3, Action.call()))
    assert hand.phase is Phase.DRAWING
    assert hand.pot_total() == 1600
    assert hand.stacks == [4600] * 4


def test_fixed_limit_cap_is_bet_plus_three_raises_after_draw__D2() -> None:
    hand = limp_three_handed(FL, stacks=5000)
    play(
        hand,
        (0, Action.bet(200)),
        (1, Action.raise_to(400)),
        (2, Action.raise_to(600)),
        (0, Action.raise_to(800)),
    )
    legal = hand.legal_actions()
    assert legal.player == 1
    assert legal.kinds == (FOLD, CALL)
    assert legal.call_amount == 400
    play(hand, (1, Action.call()), (2, Action.call()))
    assert hand.is_over
    assert hand.result is not None
    assert sum(hand.result.final_stacks) == 15000
    assert hand.result.contributed == [900, 900, 900]


def test_fixed_limit_heads_up_is_uncapped__D2() -> None:
    hand = DrawHand(FL, [5000, 5000], seed=1)
    expected_to = 200
    for _ in range(8):  # far beyond a bet and three raises
        legal = hand.legal_actions()
        assert legal.raise_kind is RAISE
        assert legal.to_choices == (expected_to,)
        hand.act(Action.raise_to(expected_to))
        expected_to += 100
    assert hand.bets == [900, 800]  # index 0 (big blind) made the last raise to 900
    assert hand.legal_actions().to_choices == (1000,)


def test_fixed_limit_capped_round_stays_capped_when_a_fold_leaves_two__D2() -> None:
    hand = DrawHand(FL, [5000] * 3, seed=1)
    play(
        hand,
        (2, Action.raise_to(200)),
        (0, Action.raise_to(300)),
        (1, Action.raise_to(400)),  # cap: the blind and three raises
        (2, Action.fold()),
    )
    legal = hand.legal_actions()
    assert legal.player == 0
    assert legal.kinds == (FOLD, CALL)
    assert legal.call_amount == 100


def test_fixed_limit_uncapped_once_only_two_players_can_bet__D2() -> None:
    # Three in the hand, but the UTG player is all-in: two can bet, so no cap.
    hand = DrawHand(FL, [5000, 5000, 100], seed=1)
    play(hand, (2, Action.call()))  # all-in for the big blind
    assert hand.all_in[2]
    play(
        hand,
        (0, Action.raise_to(200)),
        (1, Action.raise_to(300)),
        (0, Action.raise_to(400)),
        (1, Action.raise_to(500)),
    )
    assert hand.legal_actions().to_choices == (600,)


def test_fixed_limit_short_all_in_raise_neither_counts_nor_reopens__D2() -> None:
    hand = DrawHand(FL, [350, 5000, 5000, 5000], seed=1)
    play(hand, (2, Action.raise_to(200)), (3, Action.raise_to(300)))
    legal = hand.legal_actions()
    assert legal.player == 0
    assert legal.to_choices == (350,)  # all-in short of the full raise to 400
    hand.act(Action.raise_to(350))
    assert hand.all_in[0]
    # The short all-in is not a raise for the cap: the big blind may still raise.
    legal = hand.legal_actions()
    assert legal.player == 1
    assert legal.call_amount == 250
    assert legal.to_choices == (450,)
    hand.act(Action.call())
    legal = hand.legal_actions()
    assert legal.player == 2  # faced the full raise to 300 since acting: may raise
    assert legal.to_choices == (450,)
    hand.act(Action.call())
    legal = hand.legal_actions()
    assert legal.player == 3  # only the short all-in since acting: call or fold
    assert legal.kinds == (FOLD, CALL)
    assert legal.call_amount == 50
    hand.act(Action.call())
    assert hand.phase is Phase.DRAWING
    assert hand.pot_total() == 1400


def test_pot_limit_max_raise_is_the_pot_after_the_call__D2() -> None:
    hand = DrawHand(PL, [10000] * 4, seed=1)
    # Blinds 50/100: pot 150, UTG calls 100 -> pot 250 -> may raise by 250 to 350.
    legal = hand.legal_actions()
    assert legal.player == 2
    assert legal.to_choices == ()
    assert (legal.min_to, legal.max_to) == (200, 350)
    with pytest.raises(IllegalActionError):
        hand.act(Action.raise_to(351))
    hand.act(Action.raise_to(350))
    # Button: pot 500, calls 350 -> 850 -> raise to 350 + 850 = 1200; min 350 + 250.
    legal = hand.legal_actions()
    assert legal.player == 3
    assert (legal.min_to, legal.max_to) == (600, 1200)
    hand.act(Action.call())
    # Small blind: pot 850, calls 300 -> 1150 -> raise to 350 + 1150 = 1500.
    legal = hand.legal_actions()
    assert legal.player == 0
    assert legal.call_amount == 300
    assert (legal.min_to, legal.max_to) == (600, 1500)
    hand.act(Action.raise_to(1500))
    # Big blind: pot 2300, calls 1400 -> 3700 -> raise to 1500 + 3700 = 5200;
    # the minimum repeats the last raise (1150).
    legal = hand.legal_actions()
    assert legal.player == 1
    assert legal.call_amount == 1400
    assert (legal.min_to, legal.max_to) == (2650, 5200)


def test_pot_limit_bet_after_draw_at_most_the_pot__D2() -> None:
    hand = limp_three_handed(PL, stacks=5000)
    legal = hand.legal_actions()  # pot 300
    assert legal.raise_kind is BET
    assert (legal.min_to, legal.max_to) == (100, 300)
    hand.act(Action.bet(300))
    legal = hand.legal_actions()  # pot 600, call 300 -> 900
    assert (legal.min_to, legal.max_to) == (600, 1200)


def test_pot_limit_max_raise_limited_by_stack__D2() -> None:
    hand = DrawHand(PL, [10000, 10000, 250], seed=1)
    legal = hand.legal_actions()
    assert (legal.min_to, legal.max_to) == (200, 250)


def test_pot_limit_and_no_limit_have_no_raise_cap__D2() -> None:
    for config in (PL, NL):
        hand = DrawHand(config, [10**6] * 4, seed=1)
        for _ in range(6):
            legal = hand.legal_actions()
            assert legal.raise_kind is RAISE
            hand.act(Action.raise_to(legal.min_to or 0))
        assert hand.legal_actions().raise_kind is RAISE


def test_no_limit_min_raise_is_the_previous_bet_or_raise__D2() -> None:
    hand = DrawHand(NL, [10000] * 4, seed=1)
    legal = hand.legal_actions()
    assert (legal.min_to, legal.max_to) == (200, 10000)  # at least the big blind
    with pytest.raises(IllegalActionError):
        hand.act(Action.raise_to(199))
    hand.act(Action.raise_to(300))  # a raise of 200
    legal = hand.legal_actions()
    assert (legal.min_to, legal.max_to) == (500, 10000)
    with pytest.raises(IllegalActionError):
        hand.act(Action.raise_to(499))
    hand.act(Action.raise_to(800))  # a raise of 500
    legal = hand.legal_actions()
    assert legal.player == 0
    assert (legal.min_to, legal.max_to) == (1300, 10000)  # small blind: 50 + 9950


def test_no_limit_min_bet_after_draw_is_the_big_blind__D2() -> None:
    hand = limp_three_handed(NL)
    legal = hand.legal_actions()
    assert legal.raise_kind is BET
    assert (legal.min_to, legal.max_to) == (100, 900)
    hand.act(Action.bet(150))
    assert (hand.legal_actions().min_to, hand.legal_actions().max_to) == (300, 900)


def test_no_limit_all_in_bet_below_big_blind_min_raise_still_a_big_blind__D2() -> None:
    hand = DrawHand(NL, [1000, 150, 1000], seed=7)
    play(hand, (2, Action.call()), (0, Action.call()), (1, Action.check()))
    stand_pat_all(hand)
    hand.act(Action.check(), 0)
    legal = hand.legal_actions()
    assert legal.player == 1
    assert (legal.min_to, legal.max_to) == (50, 50)  # all-in for less than the BB
    hand.act(Action.bet(50))
    legal = hand.legal_actions()
    assert legal.player == 2
    assert legal.call_amount == 50
    assert (legal.min_to, legal.max_to) == (150, 900)
    hand.act(Action.raise_to(150))
    legal = hand.legal_actions()
    assert legal.player == 0
    assert (legal.min_to, legal.max_to) == (250, 900)


def test_no_limit_all_in_short_of_a_full_raise_does_not_reopen__D2() -> None:
    hand = DrawHand(NL, [10000, 10000, 10000, 400], seed=1)
    hand.act(Action.raise_to(300), 2)  # UTG raises by 200
    legal = hand.legal_actions()
    assert (legal.min_to, legal.max_to) == (400, 400)  # only all-in, short of 500
    hand.act(Action.raise_to(400), 3)  # all-in: a raise of 100 only
    legal = hand.legal_actions()
    assert legal.player == 0
    assert (legal.min_to, legal.max_to) == (600, 10000)  # not yet acted: may raise
    play(hand, (0, Action.fold()), (1, Action.call()))
    legal = hand.legal_actions()
    assert legal.player == 2
    assert legal.kinds == (FOLD, CALL)  # already acted, not facing a full raise
    assert legal.call_amount == 100
    assert legal.raise_kind is None
    with pytest.raises(IllegalActionError):
        hand.act(Action.raise_to(1000))
    hand.act(Action.call())
    assert hand.phase is Phase.DRAWING


def test_no_limit_full_raise_after_short_all_in_reopens__D2() -> None:
    hand = DrawHand(NL, [10000, 10000, 10000, 400], seed=1)
    play(hand, (2, Action.raise_to(300)), (3, Action.raise_to(400)))
    hand.act(Action.raise_to(600), 0)  # a full raise over the all-in
    legal = hand.legal_actions()
    assert legal.player == 1
    assert (legal.min_to, legal.max_to) == (800, 10000)
    hand.act(Action.fold())
    legal = hand.legal_actions()
    assert legal.player == 2
    assert legal.raise_kind is RAISE
    assert (legal.min_to, legal.max_to) == (800, 10000)


def test_pot_limit_all_in_short_of_a_full_raise_does_not_reopen__D2() -> None:
    hand = DrawHand(PL, [10000, 10000, 10000, 350], seed=1)
    play(hand, (2, Action.raise_to(250)))  # raise by 150 (pot allowed 350)
    legal = hand.legal_actions()
    assert (legal.min_to, legal.max_to) == (350, 350)  # min 400 > stack: all-in only
    play(hand, (3, Action.raise_to(350)), (0, Action.call()), (1, Action.call()))
    legal = hand.legal_actions()
    assert legal.player == 2
    assert legal.kinds == (FOLD, CALL)
    assert legal.call_amount == 100


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
    blinds = [(e.player, e.amount) for e in hand.events if e.kind == "blind"]
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
    deals = [(e.player, e.cards) for e in hand.events if e.kind == "deal"]
    assert [p for p, _ in deals] == [0, 1, 2] * 5
    assert [c for _, (c,) in deals] == order
    assert all(e.up is False for e in hand.events if e.kind == "deal")


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
    first_round = [e.player for e in hand.events if e.kind == "deal"][:5]
    assert first_round == [0, 1, 2, 3, 4]
    assert hand.deck.order[:5] == tuple(cards("6c 7d 8h 9s Jc"))


# ---------------------------------------------------------------- D5 first round


def test_first_round_starts_left_of_big_blind_who_cannot_check__D5() -> None:
    hand = DrawHand(FL, [1000] * 5, seed=1)
    legal = hand.legal_actions()
    assert legal.player == 2
    assert not legal.can_check
    assert legal.kinds == (FOLD, CALL, RAISE)
    assert legal.call_amount == 100
    with pytest.raises(IllegalActionError):
        hand.act(Action.check())
    assert hand.to_act == 2  # rejected action changes nothing
    play(hand, (2, Action.fold()), (3, Action.call()), (4, Action.call()))
    assert hand.to_act == 0


def test_big_blind_option_check_or_raise__D5() -> None:
    hand = DrawHand(FL, [1000] * 3, seed=1)
    play(hand, (2, Action.call()), (0, Action.call()))
    legal = hand.legal_actions()
    assert legal.player == 1
    assert legal.can_check
    assert legal.call_amount is None
    assert legal.kinds == (CHECK, RAISE)
    assert legal.to_choices == (200,)
    hand.act(Action.check())
    assert hand.phase is Phase.DRAWING
    assert hand.pot_total() == 300
    assert hand.stacks == [900, 900, 900]


def test_big_blind_option_raise_reopens_the_round__D5() -> None:
    hand = DrawHand(FL, [1000] * 3, seed=1)
    play(hand, (2, Action.call()), (0, Action.call()), (1, Action.raise_to(200)))
    legal = hand.legal_actions()
    assert legal.player == 2
    assert legal.call_amount == 100
    assert legal.to_choices == (300,)
    play(hand, (2, Action.call()), (0, Action.call()))
    assert hand.phase is Phase.DRAWING
    assert hand.stacks == [800, 800, 800]


def test_big_blind_option_no_limit_raise_range__D5() -> None:
    hand = DrawHand(NL, [1000] * 3, seed=1)
    play(hand, (2, Action.call()), (0, Action.call()))
    legal = hand.legal_actions()
    assert legal.can_check
    assert (legal.min_to, legal.max_to) == (200, 1000)


def test_no_option_for_the_big_blind_after_a_raise__D5() -> None:
    hand = DrawHand(FL, [1000] * 3, seed=1)
    play(hand, (2, Action.raise_to(200)), (0, Action.call()))
    legal = hand.legal_actions()
    assert legal.player == 1
    assert not legal.can_check
    assert legal.call_amount == 100
    hand.act(Action.call())
    assert hand.phase is Phase.DRAWING


def test_everyone_folds_to_the_big_blind__D5() -> None:
    hand = DrawHand(FL, [1000] * 3, seed=1)
    play(hand, (2, Action.fold()), (0, Action.fold()))
    assert hand.result is not None
    assert hand.result.final_stacks == [950, 1050, 1000]


# ---------------------------------------------------------------- D6 draw


def test_draw_in_order_from_left_of_button_after_burn__D6() -> None:
    hand = four_handed()
    assert hand.draw_order == [0, 1, 2, 3]
    assert hand.legal_actions().kinds == (DISCARD,)
    assert hand.legal_actions().max_discards == 5
    assert hand.deck.burned == cards(BURN)
    assert [e.cards for e in hand.events if e.kind == "burn"] == [tuple(cards(BURN))]
    assert hand.deck.remaining == 11
    hand.act(discard("7c 7d"), 0)
    assert hand.hands[0] == cards("7h 8c 8d 8h 8s")
    assert hand.to_act == 1
    hand.act(discard("Tc"), 1)
    assert hand.hands[1] == cards("9c 9d 9h Td 9s")
    assert hand.to_act == 2
    hand.act(Action.discard(()), 2)  # stands pat
    assert hand.hands[2] == cards(HANDS4[2])
    hand.act(discard("Kc Kd Kh"), 3)
    assert hand.hands[3] == cards("Ac Ad Th Ts Js")
    assert hand.deck.remaining == 11 - 6
    assert hand.phase is Phase.BETTING


def test_draw_skips_folded_players__D6() -> None:
    hand = four_handed(fold_utg=True)
    assert hand.draw_order == [0, 1, 3]
    play(hand, (0, Action.discard(())), (1, Action.discard(())))
    assert hand.to_act == 3


def test_no_burn_when_configured_off__D6() -> None:
    config = DrawConfig(burn_before_draw=False)
    hand = four_handed(config)
    assert hand.deck.burned == []
    assert not [e for e in hand.events if e.kind == "burn"]
    assert hand.deck.remaining == 12
    hand.act(discard("7c 7d"), 0)
    assert hand.hands[0] == cards("7h 8c 8d 7s 8h")  # the would-be burn is dealt


def test_discard_all_five_or_stand_pat__D6() -> None:
    hand = four_handed()
    hand.act(discard(HANDS4[0]), 0)
    assert hand.hands[0] == cards("8h 8s 9s Th Ts")
    hand.act(Action.discard(()), 1)
    assert hand.hands[1] == cards(HANDS4[1])
    assert hand.draw_counts[:2] == [5, 0]


def test_cannot_discard_cards_not_held__D6() -> None:
    hand = four_handed()
    before = [list(h) for h in hand.hands]
    for bad in (discard("9c"), discard("7c 7s"), Action.discard(cards("7c 7c"))):
        with pytest.raises(IllegalActionError):
            hand.act(bad, 0)
    with pytest.raises(IllegalActionError):
        hand.act(Action.check(), 0)  # no betting during the draw
    with pytest.raises(NotYourTurnError):
        hand.act(discard("9c"), 1)
    assert hand.to_act == 0
    assert hand.hands == before
    assert hand.deck.remaining == 11
    assert hand.draw_counts == [None] * 4


def test_stub_last_card_never_dealt_reshuffle_burns_and_earlier_discards__D6() -> None:
    hand = four_handed()
    play(hand, (0, discard(HANDS4[0])), (1, discard(HANDS4[1])))
    assert hand.deck.remaining == 1  # the last card stays: 6 - 5
    assert hand.deck.reshuffles == 0
    own = cards("Jc")
    pool = set(cards("As")) | set(cards(BURN)) | set(cards(HANDS4[0])) | set(cards(HANDS4[1]))
    hand.act(Action.discard(own), 2)  # 1 card wanted, only the last card left
    assert hand.deck.reshuffles == 1
    assert [e.player for e in hand.events if e.kind == "reshuffle"] == [2]
    assert hand.deck.burned == []  # the burn went into the new stub
    assert hand.deck.remaining == 12 - 1  # stub 1 + burn 1 + ten earlier discards
    new2 = hand.hands[2][-1:]
    assert set(new2) <= pool
    assert hand.discards == own  # the current player's discards stay out
    hand.act(discard(HANDS4[3]), 3)
    assert hand.deck.remaining == 11 - 5
    new3 = hand.hands[3]
    assert set(new3) <= pool
    rest = hand.deck.deal_many(hand.deck.remaining)
    assert set(rest) | set(new2) | set(new3) == pool


def test_reshuffle_when_stub_exactly_equals_the_draw__D6() -> None:
    hand = four_handed()
    play(hand, (0, discard("7c 7d 7h 8c")), (1, discard("9c 9d")))
    assert hand.deck.remaining == 5
    hand.act(discard(HANDS4[2]), 2)  # five wanted, five left: the last is never dealt
    assert hand.deck.reshuffles == 1
    assert hand.deck.remaining == 12 - 5  # stub 5 + burn + six earlier discards
    pool = set(cards("Qh Qs Ks Ah As 7s 7c 7d 7h 8c 9c 9d"))
    assert set(hand.hands[2]) <= pool
    assert not set(hand.hands[2]) & set(cards(HANDS4[2]))


def test_reshuffle_never_uses_folded_cards__D6() -> None:
    hand = four_handed(fold_utg=True)
    play(hand, (0, discard(HANDS4[0])), (1, discard(HANDS4[1])))
    hand.act(discard("Kc Kd Kh"), 3)
    assert hand.deck.reshuffles == 1
    assert hand.deck.remaining == 12 - 3  # P2's folded hand is not in the pool
    pool = set(cards("As")) | set(cards(BURN)) | set(cards(HANDS4[0])) | set(cards(HANDS4[1]))
    new = hand.hands[3][2:]
    assert set(new) <= pool
    rest = hand.deck.deal_many(hand.deck.remaining)
    assert set(rest) | set(new) == pool


def test_reshuffle_without_burn__D6() -> None:
    hand = four_handed(DrawConfig(burn_before_draw=False))
    play(hand, (0, discard(HANDS4[0])), (1, discard(HANDS4[1])))
    assert hand.deck.remaining == 2
    hand.act(discard("Jc Jd"), 2)
    assert hand.deck.remaining == 12 - 2  # stub 2 + ten discards, no burns
    pool = set(cards("Ah As")) | set(cards(HANDS4[0])) | set(cards(HANDS4[1]))
    assert set(hand.hands[2][3:]) <= pool


def test_draw_timeout_stands_pat__D6() -> None:
    hand = four_handed()
    assert hand.timeout() == Action.discard(())
    assert hand.hands[0] == cards(HANDS4[0])
    assert hand.draw_counts[0] == 0
    assert hand.to_act == 1


# ---------------------------------------------------------------- D7 second round


def test_second_round_starts_left_of_button__D7() -> None:
    hand = four_handed()
    stand_pat_all(hand)
    assert hand.phase is Phase.BETTING
    assert hand.to_act == 0
    assert hand.final_round_opener == 0
    assert hand.bets == [0, 0, 0, 0]


def test_second_round_first_active_player_left_of_button__D7() -> None:
    hand = DrawHand(FL, [1000] * 4, seed=5)
    play(hand, (2, Action.call()), (3, Action.call()), (0, Action.fold()), (1, Action.check()))
    stand_pat_all(hand)
    assert hand.to_act == 1  # the small blind folded


def test_second_round_opener_may_fold_check_or_bet__D7() -> None:
    hand = four_handed()
    stand_pat_all(hand)
    legal = hand.legal_actions()
    assert legal.player == 0
    assert legal.kinds == (FOLD, CHECK, BET)
    assert legal.can_fold and legal.can_check
    assert legal.to_choices == (200,)
    hand.act(Action.fold())  # folding is allowed even when checking is free
    legal = hand.legal_actions()
    assert legal.player == 1
    assert legal.kinds == (FOLD, CHECK, BET)  # the next player has the same options
    hand.act(Action.bet(200))
    legal = hand.legal_actions()
    assert legal.player == 2
    assert legal.kinds == (FOLD, CALL, RAISE)


def test_draw_counts_public_until_first_action_after_draw__D7() -> None:
    hand = four_handed(fold_utg=True)
    assert hand.draw_counts == [None] * 4
    hand.act(discard("7c 7d 7h"), 0)
    assert hand.draw_counts == [3, None, None, None]
    hand.act(Action.discard(()), 1)
    hand.act(discard(HANDS4[3]), 3)
    assert hand.draw_counts == [3, 0, None, 5]
    assert hand.phase is Phase.BETTING
    assert hand.legal_actions().player == 0
    hand.act(Action.check())
    assert hand.draw_counts == [None] * 4


def test_draw_counts_hidden_after_first_action_even_a_bet__D7() -> None:
    hand = four_handed()
    play(
        hand,
        (0, discard("7c")),
        (1, discard("9c 9d")),
        (2, Action.discard(())),
        (3, discard("Kc Kd Kh Ac")),
    )
    assert hand.draw_counts == [1, 2, 0, 4]
    hand.act(Action.bet(200), 0)
    assert hand.draw_counts == [None] * 4


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
