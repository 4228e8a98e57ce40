# ruff: noqa: N802  (test names end with the docs/rules.md rule ID, e.g. __D5)
"""Five Card Draw 7-A scenarios, the draw itself: its order, discards, the burn and
the reshuffle when the stub runs short (D6 of docs/rules.md).

Conventions (player indexes, preset decks): ``draw_scenarios.py``.
"""

from __future__ import annotations

import pytest

from poker_rules import Action, DrawConfig, IllegalActionError, NotYourTurnError, Phase
from poker_rules.events import Burn, Reshuffle

from .draw_helpers import cards, play
from .draw_scenarios import BURN, DISCARD, HANDS4, discard, four_handed

# ---------------------------------------------------------------- D6 draw


def test_draw_in_order_from_left_of_button_after_burn__D6() -> None:
    hand = four_handed()
    assert hand.draw_order == [0, 1, 2, 3]
    assert hand.legal_actions().kinds == (DISCARD,)
    assert hand.legal_actions().max_discards == 5
    assert hand.deck.burned == []  # owed to the first draw that replaces cards
    assert hand.deck.remaining == 12
    hand.act(discard("7c 7d"), 0)
    assert hand.deck.burned == cards(BURN)
    assert [e.cards for e in hand.events if isinstance(e, Burn)] == [tuple(cards(BURN))]
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


def test_no_burn_when_every_player_stands_pat__D6() -> None:
    """rule-decisions draw-burn: a burn protects the next card dealt; with no card
    dealt in the draw, none is burned."""
    hand = four_handed()
    play(hand, *((i, Action.discard(())) for i in range(4)))
    assert hand.deck.burned == []
    assert not [e for e in hand.events if isinstance(e, Burn)]
    assert hand.deck.remaining == 12
    assert [hand.hands[i] for i in range(4)] == [cards(h) for h in HANDS4]


def test_burn_comes_before_the_first_draw_that_replaces_cards__D6() -> None:
    """The first two stand pat; the burn comes right before the third player's
    cards, and they are the cards after it, as if it had been burned at the start."""
    hand = four_handed()
    play(hand, (0, Action.discard(())), (1, Action.discard(())))
    assert hand.deck.burned == []
    hand.act(discard("Jc Jd"), 2)
    assert hand.deck.burned == cards(BURN)
    assert hand.hands[2] == cards("Jh Qc Qd 8h 8s")
    last = hand.events[-2:]
    assert isinstance(last[0], Burn) and last[0].cards == tuple(cards(BURN))
    assert type(last[1]).__name__ == "Draw"
    hand.act(discard("Kc"), 3)  # the burn is owed once
    assert hand.deck.burned == cards(BURN)
    assert hand.hands[3] == cards("Kd Kh Ac Ad 9s")


def test_draw_skips_folded_players__D6() -> None:
    hand = four_handed(fold_utg=True)
    assert hand.draw_order == [0, 1, 3]
    play(hand, (0, Action.discard(())), (1, Action.discard(())))
    assert hand.to_act == 3


def test_no_burn_when_configured_off__D6() -> None:
    config = DrawConfig(burn_before_draw=False)
    hand = four_handed(config)
    assert hand.deck.burned == []
    assert not [e for e in hand.events if isinstance(e, Burn)]
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
    assert hand.deck.remaining == 12 and hand.deck.burned == []  # a refused discard burns nothing
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
    assert [e.player for e in hand.events if isinstance(e, Reshuffle)] == [2]
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
