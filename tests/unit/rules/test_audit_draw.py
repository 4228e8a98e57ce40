# ruff: noqa: N802  (test names end with the docs/rules.md rule ID, e.g. __S8)
"""Audit scenarios, Five Card Draw 7-A: pot- and no-limit bounds after short all-ins
(D2), short blinds (D3), the big blind's option (D5), the clock (S10), reshuffles
(D6) and the second round (D7).

What the audit scenarios are and their stakes: ``audit_scenarios.py``.
"""

from __future__ import annotations

from poker_rules import Action, DrawConfig, DrawHand, Phase, Structure, TimeoutPolicy, short_deck
from poker_rules.draw import Post

from .audit_scenarios import pots_of
from .draw_helpers import check_down, draw_deck, stand_pat_all
from .draw_scenarios import FL, NL, PL
from .helpers import cards, menu


def draw_menu(hand: DrawHand) -> dict[str, object]:
    """The menu in compact form, with the no/pot-limit bounds."""
    legal = hand.legal_actions()
    return {
        "player": legal.player,
        "kinds": tuple(k.value for k in legal.kinds),
        "call": legal.call_amount,
        "min": legal.min_to,
        "max": legal.max_to,
        "to": legal.to_choices,
    }


# ====================================================================== D2 structures


def test_pot_limit_max_counts_antes_and_dead_money__D2() -> None:
    config = DrawConfig(structure=Structure.POT_LIMIT, ante=10)
    # Player 3 returns from a missed blind: big blind live plus small blind dead.
    posts = [Post(0, 50), Post(1, 100), Post(3, 100), Post(3, 50, live=False)]
    hand = DrawHand(config, [5000] * 4, seed=1, posts=posts, big_blind_player=1)
    # Pot: 40 antes + 50 + 100 + 100 + 50 dead = 340; player 2 calls 100 and may
    # raise by the 440 in the pot after the call: to 540.
    assert draw_menu(hand) == {
        "player": 2,
        "kinds": ("fold", "call", "raise"),
        "call": 100,
        "min": 200,
        "max": 540,
        "to": (),
    }


def test_pot_limit_after_a_short_all_in_min_is_last_full_raise__D2() -> None:
    hand = DrawHand(PL, [5000, 5000, 5000, 450], seed=2)
    hand.act(Action.raise_to(300), 2)  # a raise of 200
    hand.act(Action.raise_to(450), 3)  # all-in, 150 more: short
    # Pot 50 + 100 + 300 + 450 = 900; the small blind calls 400 -> 1300.
    assert draw_menu(hand) == {
        "player": 0,
        "kinds": ("fold", "call", "raise"),
        "call": 400,
        "min": 650,
        "max": 1750,
        "to": (),
    }
    play_draw(hand, (0, Action.call()), (1, Action.call()))
    # Player 2 raised and was not fully re-raised: call or fold only.
    assert draw_menu(hand)["kinds"] == ("fold", "call")


def test_no_limit_min_raise_after_short_all_in_is_the_last_full_raise__D2() -> None:
    hand = DrawHand(NL, [5000, 5000, 5000, 450], seed=2)
    hand.act(Action.raise_to(300), 2)
    hand.act(Action.raise_to(450), 3)
    assert draw_menu(hand) == {
        "player": 0,
        "kinds": ("fold", "call", "raise"),
        "call": 400,
        "min": 650,
        "max": 5000,
        "to": (),
    }
    hand.act(Action.raise_to(650), 0)  # a full raise reopens for player 2
    hand.act(Action.fold(), 1)
    assert draw_menu(hand) == {
        "player": 2,
        "kinds": ("fold", "call", "raise"),
        "call": 350,
        "min": 850,
        "max": 5000,
        "to": (),
    }


def play_draw(hand: DrawHand, *moves: tuple[int, Action]) -> None:
    for player, action in moves:
        hand.act(action, player)


# ====================================================================== D3 blinds


def test_short_small_blind_all_in_from_the_blind__D3() -> None:
    hand = DrawHand(FL, [30, 1000, 1000], seed=3)
    assert hand.all_in[0] and hand.bets[0] == 30
    assert menu(hand)["player"] == 2
    play_draw(hand, (2, Action.call()))
    # The small blind is all-in: the big blind has the option.
    assert draw_menu(hand) == {
        "player": 1,
        "kinds": ("check", "raise"),
        "call": None,
        "min": 200,
        "max": 200,
        "to": (200,),
    }
    hand.act(Action.check(), 1)
    stand_pat_all(hand)
    check_down(hand)
    assert pots_of(hand) == [(90, (0, 1, 2)), (140, (1, 2))]


def test_short_big_blind_others_still_call_the_full_blind__D3() -> None:
    hand = DrawHand(FL, [1000, 30, 1000], seed=3)
    assert hand.all_in[1]
    assert draw_menu(hand) == {
        "player": 2,
        "kinds": ("fold", "call", "raise"),
        "call": 100,
        "min": 200,
        "max": 200,
        "to": (200,),
    }


def test_small_blind_covering_an_all_in_big_blind_has_no_decision__D3() -> None:
    # Heads-up: the button (1) posts the small blind 50; the big blind is all-in for
    # 30.  The small blind already covers it: nothing to call, nobody to bet against.
    hand = DrawHand(FL, [30, 1000], seed=4)
    assert hand.all_in[0]
    assert hand.phase is Phase.DRAWING
    stand_pat_all(hand)
    assert hand.result is not None
    assert hand.result.uncalled == (1, 20)
    assert pots_of(hand) == [(60, (0, 1))]


def test_small_blind_covering_after_the_others_fold_has_no_decision__D3() -> None:
    hand = DrawHand(FL, [1000, 30, 1000], seed=4)
    hand.act(Action.fold(), 2)
    assert hand.phase is Phase.DRAWING


# ====================================================================== D5 option


def test_heads_up_big_blind_option_after_the_button_completes__D5() -> None:
    hand = DrawHand(FL, [1000, 1000], seed=5)
    assert draw_menu(hand) == {
        "player": 1,
        "kinds": ("fold", "call", "raise"),
        "call": 50,
        "min": 200,
        "max": 200,
        "to": (200,),
    }
    hand.act(Action.call(), 1)
    assert draw_menu(hand) == {
        "player": 0,
        "kinds": ("check", "raise"),
        "call": None,
        "min": 200,
        "max": 200,
        "to": (200,),
    }


def test_big_blind_option_after_a_limper_all_in_for_less__D5() -> None:
    hand = DrawHand(NL, [1000, 1000, 60], seed=6)
    hand.act(Action.call(), 2)  # all-in for 60
    hand.act(Action.call(), 0)  # small blind completes to 100
    assert draw_menu(hand) == {
        "player": 1,
        "kinds": ("check", "raise"),
        "call": None,
        "min": 200,
        "max": 1000,
        "to": (),
    }


def test_big_blind_option_timeout_check_or_fold_checks__S10() -> None:
    config = DrawConfig(timeout_policy=TimeoutPolicy.CHECK_OR_FOLD)
    hand = DrawHand(config, [1000] * 3, seed=6)
    play_draw(hand, (2, Action.call()), (0, Action.call()))
    assert hand.timeout() == Action.check()
    assert hand.phase is Phase.DRAWING


def test_draw_timeout_stands_pat_under_check_or_fold__S10() -> None:
    config = DrawConfig(timeout_policy=TimeoutPolicy.CHECK_OR_FOLD)
    hand = DrawHand(config, [1000] * 3, seed=6)
    play_draw(hand, (2, Action.call()), (0, Action.call()), (1, Action.check()))
    assert hand.phase is Phase.DRAWING
    before = list(hand.hands[0])
    assert hand.timeout() == Action.discard(())
    assert hand.hands[0] == before and not hand.folded[0]


# ====================================================================== D6 draw


def test_five_handed_two_reshuffles_never_own_or_folded_cards__D6() -> None:
    hands = (
        "7c 7d 7h 8c 8d",
        "9c 9d 9h Tc Td",
        "Jc Jd Jh Qc Qd",
        "Kc Kd Kh Ac Ad",
        "6c 6d 6h 6s 7s",
    )
    stub = "8h 8s 9s Th Ts Js Qh Qs Ks Ah As"  # burn 8h, then ten more
    hand = DrawHand(FL, [1000] * 5, deck=draw_deck(hands, stub, with_sixes=True))
    play_draw(
        hand,
        (2, Action.call()),
        (3, Action.call()),
        (4, Action.call()),
        (0, Action.call()),
        (1, Action.check()),
    )
    # the burn is owed to the first draw that replaces cards (rule-decisions draw-burn)
    assert hand.phase is Phase.DRAWING and hand.deck.remaining == 11
    hand.act(Action.discard(cards("7c 7d 7h 8c 8d")), 0)  # burn, 5 from the stub: 5 left
    hand.act(Action.discard(cards("9c 9d 9h Tc")), 1)  # 4: 1 left, never dealt
    assert hand.deck.remaining == 1
    p0_thrown = set(cards("7c 7d 7h 8c 8d"))
    p1_thrown = set(cards("9c 9d 9h Tc"))
    last = set(cards("As"))
    own = set(cards("Jc Jd Jh"))
    hand.act(Action.discard(sorted(own)), 2)  # reshuffle: 1 + burn + 9 discards = 11
    new2 = set(hand.hands[2]) - set(cards("Qc Qd"))
    assert new2 <= p0_thrown | p1_thrown | last | set(cards("8h"))
    assert not new2 & own
    assert hand.deck.remaining == 8
    own3 = set(cards("Kc Kd Kh Ac Ad"))
    hand.act(Action.discard(sorted(own3)), 3)  # 5 of 8: 3 left
    assert hand.deck.remaining == 3
    held = {c for h in hand.hands for c in h}
    left = set(short_deck(True)) - held - set(hand.deck.discards) - set(hand.deck.burned)
    assert len(left) == 3
    pool = left | own  # the stub and player 2's discards (player 3's added below)
    own4 = set(cards("6c 6d 6h 6s 7s"))
    hand.act(Action.discard(sorted(own4)), 4)  # 5 > 2: reshuffle the 3 + 3 + 5
    new4 = set(hand.hands[4])
    assert new4 <= pool | own3
    assert not new4 & own4
    assert hand.deck.remaining == 6


# ====================================================================== D7 second round


def test_second_round_skips_an_all_in_player_left_of_the_button__D7() -> None:
    hand = DrawHand(FL, [100, 1000, 1000], seed=8)
    play_draw(hand, (2, Action.call()), (0, Action.call()), (1, Action.check()))
    assert hand.all_in[0]
    stand_pat_all(hand)
    assert hand.phase is Phase.BETTING
    assert draw_menu(hand) == {
        "player": 1,
        "kinds": ("fold", "check", "bet"),
        "call": None,
        "min": 200,
        "max": 200,
        "to": (200,),
    }
    assert hand.final_round_opener == 1


def test_draw_all_in_short_bet_after_draw_next_player_menu__D2() -> None:
    # Player 0 has 40 left after the first round; it bets them all after the draw.
    hand = DrawHand(NL, [140, 1000, 1000], seed=8)
    play_draw(hand, (2, Action.call()), (0, Action.call()), (1, Action.check()))
    stand_pat_all(hand)
    hand.act(Action.bet(40), 0)
    assert draw_menu(hand) == {
        "player": 1,
        "kinds": ("fold", "call", "raise"),
        "call": 40,
        "min": 140,
        "max": 900,
        "to": (),
    }


# ====================================================================== D2 again: a short big blind


def test_pot_limit_with_a_big_blind_all_in_for_less__D2() -> None:
    hand = DrawHand(PL, [5000, 30, 5000], seed=12)
    # Everyone calls the full big blind; the pot is 50 + 30 = 80, 180 after the call.
    assert draw_menu(hand) == {
        "player": 2,
        "kinds": ("fold", "call", "raise"),
        "call": 100,
        "min": 200,
        "max": 280,
        "to": (),
    }
    hand.act(Action.call(), 2)
    assert draw_menu(hand) == {
        "player": 0,
        "kinds": ("fold", "call", "raise"),
        "call": 50,
        "min": 200,
        "max": 330,
        "to": (),
    }
    hand.act(Action.call(), 0)
    assert hand.phase is Phase.DRAWING  # the all-in big blind has no option
    stand_pat_all(hand)
    check_down(hand)
    assert pots_of(hand) == [(90, (0, 1, 2)), (140, (0, 2))]


def test_fixed_limit_cap_before_the_draw_with_a_short_big_blind__D2() -> None:
    hand = DrawHand(FL, [5000, 30, 5000, 5000], seed=13)
    play_draw(
        hand,
        (2, Action.raise_to(200)),
        (3, Action.raise_to(300)),
        (0, Action.raise_to(400)),  # blind + three raises: capped
    )
    assert draw_menu(hand) == {
        "player": 2,
        "kinds": ("fold", "call"),
        "call": 200,
        "min": None,
        "max": None,
        "to": (),
    }
