# ruff: noqa: N802  (test names end with the docs/rules.md rule ID, e.g. __S5)
"""Seven Card Stud scenarios, the river when the stub runs short: the community
card, the reshuffle and the stub-first alternative (S11 of docs/rules.md).

Conventions (rule IDs, scripted decks, the default table): ``stud_scenarios.py``.
"""

from __future__ import annotations

from poker_rules import Action, RiverShortage, StudConfig
from poker_rules.events import Act, Burn, Community, Deal, NewStreet, Reshuffle

from .helpers import (
    awards_by_player,
    cards,
    check_or_call_until,
    events_of,
    menu,
    new_stud,
    on_street,
    play,
)
from .stud_scenarios import SEVENTH, SIXTH

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
    river_events = on_street(hand, SEVENTH)
    kinds = [type(e) for e in river_events]
    assert kinds[:3] == [NewStreet, Reshuffle, Community]
    assert Burn not in kinds
    assert Deal not in kinds
    (community,) = events_of(hand, Community)  # face up: a Community card always is
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
    river_events = [e for e in on_street(hand, SEVENTH) if not isinstance(e, Act)]
    assert [type(e) for e in river_events] == [NewStreet, Reshuffle] + [Deal] * 7
    river_deals = events_of(hand, Deal)[-7:]
    assert river_deals == river_events[2:]
    assert [e.player for e in river_deals] == list(range(7))
    assert all(e.up is False for e in river_deals)
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
    assert events_of(hand, Burn)[-1].cards == (cards("Kd")[0],)
    assert [hand.cards[i][6] for i in range(6)] == cards("As 2s Ts Js Qs Ac")
    assert not events_of(hand, Reshuffle)


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
    assert not [e for e in events_of(hand, Burn) if e.street == SEVENTH]


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
    river_events = [e for e in on_street(hand, SEVENTH) if not isinstance(e, Act)]
    assert [type(e) for e in river_events] == ([NewStreet] + [Deal] * 6 + [Reshuffle, Burn, Deal])
    (burn,) = [e for e in river_events if isinstance(e, Burn)]
    burned = burn.cards[0]
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
