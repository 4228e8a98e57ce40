# ruff: noqa: N802  (test names end with the docs/rules.md rule ID, e.g. __S5)
"""Scenario tests for the general rules G1-G6 of docs/rules.md.

Each test name ends with the rule ID it checks.  Cards are scripted with preset
decks (``tests/unit/rules/helpers.py``); amounts are in the smallest chip of the default
$1/$2 stud game (25 ante, 50 bring-in, 100/200).
"""

from __future__ import annotations

import secrets

import pytest

from poker_rules import (
    Action,
    Deck,
    DrawConfig,
    DrawHand,
    StudConfig,
    StudHand,
    card_str,
    short_deck,
    standard_deck,
)
from poker_rules.events import Burn, Deal, Show, Uncalled, Win
from poker_rules.pots import Pot

from .helpers import (
    awards_by_player,
    card,
    cards,
    cards_of,
    check_or_call_down,
    check_or_call_until,
    events_of,
    new_stud,
    play,
    pot_awards,
    stud_order,
)

# ---------------------------------------------------------------- G1 decks


def test_stud_deck_is_52_distinct_cards_without_jokers__G1() -> None:
    deck = standard_deck()
    assert len(deck) == 52
    assert sorted(deck) == list(range(52))
    names = {card_str(c) for c in deck}
    assert len(names) == 52
    assert {n[0] for n in names} == set("23456789TJQKA")
    assert {n[1] for n in names} == set("cdhs")


def test_stud_hand_deals_from_a_full_52_card_deck__G1() -> None:
    hand = StudHand(StudConfig(), [1000] * 8, seed=7)
    assert sorted(hand.deck.order) == list(range(52))
    # 8 players x 3 cards dealt on third street, no burn before third by default.
    assert hand.deck.remaining == 52 - 24


def test_draw_deck_is_32_cards_seven_to_ace__G1() -> None:
    deck = short_deck()
    assert len(deck) == 32
    assert {card_str(c)[0] for c in deck} == set("789TJQKA")
    for n in (2, 3, 4):
        hand = DrawHand(DrawConfig(), [1000] * n, seed=3)
        assert sorted(hand.deck.order) == sorted(deck)
        assert hand.with_sixes is False


def test_draw_deck_adds_the_four_sixes_with_five_players__G1() -> None:
    deck = short_deck(with_sixes=True)
    assert len(deck) == 36
    assert set(deck) - set(short_deck()) == set(cards("6c 6d 6h 6s"))
    hand = DrawHand(DrawConfig(), [1000] * 5, seed=3)
    assert hand.with_sixes is True
    assert sorted(hand.deck.order) == sorted(deck)
    assert len(hand.deck.order) == 36


# ---------------------------------------------------------------- G2 suit order


def test_suit_order_spades_hearts_diamonds_clubs__G2() -> None:
    # Card ints compare rank first, then suit in the G2 order.
    assert card("2c") < card("2d") < card("2h") < card("2s") < card("3c")
    assert min(standard_deck()) == card("2c")
    assert max(standard_deck()) == card("As")


@pytest.mark.parametrize(
    ("doors", "bring_in_player"),
    [
        (("2d", "2c", "2h", "2s"), 1),
        (("2s", "2h", "2d", "2c"), 3),
        (("7h", "7s", "7d", "Kc"), 2),
        (("9s", "9h", "Ac", "Kc"), 1),
    ],
)
def test_bring_in_tie_broken_by_suit_clubs_lowest__G2(
    doors: tuple[str, ...], bring_in_player: int
) -> None:
    downs = ["Ah Kh", "Ad Kd", "As Ks", "Qh Qd"]
    hand = new_stud([f"{downs[i]} {doors[i]}" for i in range(4)])
    assert hand.bring_in_player == bring_in_player
    assert hand.to_act == bring_in_player


def test_odd_chip_goes_to_the_highest_suit_when_top_ranks_tie__G2() -> None:
    # P0 and P1 both play A-A-K-K-Q; their highest cards are the As and the Ad:
    # spades beat diamonds, so P0 gets the odd chip of the 175 pot.
    hand = new_stud(
        [
            "As Ah 9c Ks Kh Qs 8d",
            "Ad Ac 7c Kd Kc Qh 6h",
            "2d 3d Jd",  # folds to the bring-in
        ]
    )
    assert hand.to_act == 1  # 7c is the lowest door
    play(hand, (1, Action.bring_in()), (2, Action.fold()), (0, Action.call()))
    check_or_call_down(hand)
    assert hand.result is not None
    assert hand.result.pots == [Pot(175, (0, 1))]
    assert pot_awards(hand) == [(0, 0, 88), (0, 1, 87)]
    assert hand.stacks == [10_013, 10_012, 9_975]


# ---------------------------------------------------------------- G3 cards speak


def test_best_five_of_seven_wins__G3() -> None:
    # P0's flush is spread over down and up cards (2h 7h | 9h Kh | Jh); P1 shows a
    # better board (two pair kings and queens) but the flush wins.
    hand = new_stud(["2h 7h Ac 9h Kh 3s Jh", "Ks Kd 3c Qs Qd 8c 4d"])
    check_or_call_down(hand)  # P1 brings in (3c), P0 calls, checked down
    assert hand.result is not None
    assert awards_by_player(hand) == {0: 150}
    assert hand.stacks == [10_075, 9_925]


def test_kicker_decides_within_the_best_five__G3() -> None:
    # Same two pair (aces and kings); P0's queen kicker beats P1's jack.
    hand = new_stud(["As Ah 9c Ks Kh Qs 3d", "Ad Ac 8c Kd Kc Jh 4h"])
    check_or_call_down(hand)
    assert awards_by_player(hand) == {0: 150}


def test_identical_best_five_split_even_if_other_cards_differ__G3() -> None:
    # Both play A-A-K-K-Q; P0's unused 9 and 8 beat P1's unused 7 and 6, but
    # only the best five cards count: the pot is split.
    hand = new_stud(["As Ah 9c Ks Kh Qs 8d", "Ad Ac 7c Kd Kc Qh 6h"])
    check_or_call_down(hand)
    assert pot_awards(hand) == [(0, 0, 75), (0, 1, 75)]
    assert hand.stacks == [10_000, 10_000]


def test_cards_speak_the_hand_shown_first_does_not_decide__G3() -> None:
    # P1 bets the river and shows first with two pair; P0 calls and turns over a
    # straight nobody could see on the board: the server reads it and P0 wins.
    hand = new_stud(["5c 6d 7s 8h 9c Kd 2s", "Ks Kh 3c Qs Qd 4d 2d"])
    check_or_call_until(hand, 4)
    assert hand.street == 4
    opener = hand.to_act
    assert opener == 1  # K-Q-Q-4 pair of queens showing beats 7-8-9-K
    play(hand, (1, Action.bet(200)), (0, Action.call()))
    assert hand.result is not None
    assert hand.result.shown == [1, 0]
    assert awards_by_player(hand) == {0: 2 * (75 + 200)}


# ---------------------------------------------------------------- G4 shuffle


def test_default_shuffle_comes_from_the_os_csprng__G4(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without a seed every random choice of the shuffle comes from the OS CSPRNG."""
    calls: list[int] = []
    real = secrets.token_bytes

    def spy(n: int) -> bytes:
        calls.append(n)
        return real(n)

    # The ``secrets`` module the deck draws from (poker_rules.deck imports it).
    monkeypatch.setattr("poker_rules.deck.secrets.token_bytes", spy)
    hand = StudHand(StudConfig(), [1000, 1000])
    assert calls, "the stud deck was not shuffled from secrets"
    stud_calls = len(calls)
    draw = DrawHand(DrawConfig(), [1000, 1000])
    assert len(calls) > stud_calls, "the draw deck was not shuffled from secrets"
    assert sorted(hand.deck.order) == list(range(52))
    assert sorted(draw.deck.order) == sorted(short_deck())


def test_shuffle_is_uniform_over_small_decks__G4() -> None:
    """Every order of a 4-card deck is equally likely (chi-square, seeded so stable)."""
    from collections import Counter

    counts = Counter(Deck([0, 1, 2, 3], seed).order for seed in range(24_000))
    assert len(counts) == 24
    expected = 1000
    chi2 = sum((c - expected) ** 2 / expected for c in counts.values())
    assert chi2 < 49.7  # 23 degrees of freedom, p = 0.001


def test_unseeded_hands_are_shuffled_freshly__G4() -> None:
    orders = {StudHand(StudConfig(), [1000, 1000]).deck.order for _ in range(5)}
    assert len(orders) == 5  # a repeat has probability ~1e-67
    assert all(order != tuple(range(52)) for order in orders)


def test_seeded_shuffle_is_reproducible__G4() -> None:
    a = StudHand(StudConfig(), [1000, 1000, 1000], seed=2024)
    b = StudHand(StudConfig(), [1000, 1000, 1000], seed=2024)
    c = StudHand(StudConfig(), [1000, 1000, 1000], seed=2025)
    assert a.deck.order == b.deck.order
    assert a.cards == b.cards
    assert a.deck.order != c.deck.order
    assert Deck(standard_deck(), 5).order == Deck(standard_deck(), 5).order


def test_burned_cards_recorded_only_as_burn_events__G4() -> None:
    burns = "2c 3c 4c 5c"
    hand = new_stud(["Ah Kh 9c Qs Js Ts 8d", "Ad Kd 7d Qd Jd Th 8h"], burns=burns)
    check_or_call_down(hand)
    burn_events = events_of(hand, Burn)
    assert [e.cards for e in burn_events] == [(c,) for c in cards(burns)]
    assert [e.street for e in burn_events] == [1, 2, 3, 4]
    assert all(not hasattr(e, "player") for e in burn_events)  # burned to nobody
    assert hand.deck.burned == cards(burns)
    burned = set(cards(burns))
    for e in hand.events:
        if not isinstance(e, Burn):
            assert not burned & set(cards_of(e)), e
    assert not burned & {c for player_cards in hand.cards for c in player_cards}


def test_folded_cards_never_return_to_play__G4() -> None:
    # 8 players, P7 folds on third street: 7 players reach the river with 4 cards
    # in the stub and 3 burns, so the river is dealt from a reshuffle of exactly
    # those 7 cards (S11); the folded player's three cards are never used.
    hands = [
        "3s 3h Ac 4s 4h 5s",
        "5h 5d Ad 6s 6h 6d",
        "7s 7h Ah 8s 8h 8d",
        "9s 9h As Ts Th Td",
        "Js Jh Kc Qs Qh Qd",
        "5c 6c Kd 7c 8c 9c",
        "Tc Jc Kh Qc 7d 9d",
        "Jd 3d 3c",  # lowest door: brings in, then folds to the completion
    ]
    tail = "2c 2d 2h 2s"
    burns = "4d 4c Ks"
    hand = new_stud(hands, burns=burns, tail=tail, seed=11)
    play(hand, (7, Action.bring_in()), (0, Action.complete(100)))
    for p in range(1, 7):
        hand.act(Action.call(), p)
    hand.act(Action.fold(), 7)
    check_or_call_until(hand, 4)
    river = [hand.cards[i][6] for i in range(7)]
    assert sorted(river) == sorted(cards(tail) + cards(burns))
    assert not set(river) & set(cards("Jd 3d 3c"))
    assert hand.river_outcome == "reshuffled"


# ---------------------------------------------------------------- G5 dealing order


def test_stud_deals_clockwise_from_seat_one_two_down_then_door__G5() -> None:
    hands = ["Ah Kh 9c Qs", "Ad Kd 7d Qd", "As Ks 8s Qh"]
    order = stud_order(hands)
    hand = new_stud(hands)
    deals = events_of(hand, Deal)
    assert [e.player for e in deals] == [0, 1, 2] * 3
    assert [e.up for e in deals] == [False] * 6 + [True] * 3
    assert [e.cards[0] for e in deals] == order[:9]
    # Fourth street: burn, then one card each, again from seat 1, although the
    # bring-in (7d, player 1) acted first on third street.
    play(hand, (1, Action.bring_in()), (2, Action.call()), (0, Action.call()))
    street4 = [e for e in hand.events if isinstance(e, Burn | Deal) and e.street == 1]
    assert [(type(e), e.player if isinstance(e, Deal) else None) for e in street4] == [
        (Burn, None),
        (Deal, 0),
        (Deal, 1),
        (Deal, 2),
    ]
    assert [e.cards[0] for e in street4] == order[9:13]
    assert [hand.cards[i] for i in range(3)] == [cards(h) for h in hands]


def test_draw_deals_one_at_a_time_from_the_left_of_the_button__G5() -> None:
    order = short_deck()[::-1]  # As, Ah, Ad, Ac, Ks, ...
    hand = DrawHand(DrawConfig(), [1000, 1000, 1000], deck=Deck(order, preset=True))
    deals = events_of(hand, Deal)
    assert [e.player for e in deals] == [0, 1, 2] * 5
    assert [e.cards[0] for e in deals] == order[:15]
    for i in range(3):
        assert hand.hands[i] == order[i:15:3]


# ---------------------------------------------------------------- G6 uncalled bets


def test_uncalled_bet_returned_winner_does_not_show__G6() -> None:
    hand = new_stud(
        [
            "3d 4d 2c 5h 6h",  # brings in, folds on fifth
            "Ah Ad Kc Qc Jc",  # best board from fourth street
            "7s 8s 9s Td 8h",  # folds on fifth
        ]
    )
    play(
        hand,
        (0, Action.bring_in()),
        (1, Action.complete(100)),
        (2, Action.call()),
        (0, Action.call()),
    )
    assert hand.to_act == 1  # K-Q showing
    play(hand, (1, Action.check()), (2, Action.check()), (0, Action.check()))
    play(hand, (1, Action.bet(200)), (2, Action.fold()), (0, Action.fold()))
    result = hand.result
    assert result is not None
    assert result.uncalled == (1, 200)
    assert result.pots == [Pot(375, (1,))]
    assert pot_awards(hand) == [(0, 1, 375)]
    assert result.shown == []
    assert result.mucked == []
    assert not events_of(hand, Show)
    assert hand.stacks == [9_875, 10_250, 9_875]
    kinds = [type(e) for e in hand.events]
    assert kinds.index(Uncalled) < kinds.index(Win)
    (ret,) = events_of(hand, Uncalled)
    assert (ret.player, ret.amount) == (1, 200)


def test_uncalled_bring_in_returned_when_everyone_folds__G6() -> None:
    hand = new_stud(["3d 4d 2c", "Ah Ad Kc", "7s 8s 9s"])
    play(hand, (0, Action.bring_in()), (1, Action.fold()), (2, Action.fold()))
    assert hand.result is not None
    assert hand.result.uncalled == (0, 50)
    assert pot_awards(hand) == [(0, 0, 75)]
    assert hand.result.shown == []
    assert hand.stacks == [10_050, 9_975, 9_975]


def test_uncalled_part_of_a_raise_returned_to_a_short_all_in_call__G6() -> None:
    # P1 (300 chips) completes, bets fourth street, P0 check-raises to 200 and P1
    # can only call 75 more: 25 of P0's raise is returned before the showdown.
    hand = new_stud(
        ["Ah As 2c Ad 8h 9h Jd", "Kh Ks Kc 9d Tc 4s 7h"],
        stacks=[10_000, 300],
    )
    play(hand, (0, Action.bring_in()), (1, Action.complete(100)), (0, Action.call()))
    assert hand.to_act == 0  # A-2 beats K-9
    play(hand, (0, Action.check()), (1, Action.bet(100)), (0, Action.raise_to(200)))
    legal = hand.legal_actions()
    assert legal.call_amount == 75
    hand.act(Action.call(), 1)
    assert hand.is_over  # nobody can bet any more: dealt out to the showdown
    result = hand.result
    assert result is not None
    assert result.uncalled == (0, 25)
    assert result.pots == [Pot(600, (0, 1))]
    assert pot_awards(hand) == [(0, 0, 600)]  # trip aces beat trip kings
    assert hand.stacks == [10_300, 0]
