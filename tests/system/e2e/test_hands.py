# ruff: noqa: N802  (test names end with the docs/rules.md rule IDs, e.g. __S11)
"""Whole hands over real gRPC: scripted players on Play streams, preset decks.

Each test seats new players at a table of its own, presets the deck (the dealer's
and table's preset-deck mode), plays the hand through the players' streams and
checks exact outcomes: actions in order, final stacks, awards, who showed.  Every
hand is then settled (``Hand.settle``): its deck reveal verifies against the
commitment, the lobby paid out exactly the final stacks, and chips are conserved.

Stud stakes: ante 10, bring-in 25, 50/100.  Draw 7-A: blinds 50/100, 100/200.
Expected amounts are worked out by hand in the comments.
"""

from __future__ import annotations

import pytest

from poker.common.v1 import common_pb2 as common
from poker.dealer.v1 import dealer_pb2 as dpb
from poker.table.v1 import table_pb2 as tpb
from tests.support.decks import STUD_DECK, draw_order, stud_order
from tests.support.hand import Hand
from tests.support.policies import script
from tests.support.room import Room, total
from tests.support.scenarios import play_stud_full_hand

STUD = common.GameConfig(game=common.GAME_STUD, ante=10, bring_in=25, small_bet=50, big_bet=100)
HILO = common.GameConfig(
    game=common.GAME_STUD_HILO, ante=10, bring_in=25, small_bet=50, big_bet=100
)


def draw_config(structure: common.Structure.ValueType) -> common.GameConfig:
    return common.GameConfig(
        game=common.GAME_DRAW_7A, structure=structure, small_bet=100, big_bet=200
    )


WHOLE, HIGH, LOW = common.POT_SHARE_WHOLE, common.POT_SHARE_HIGH, common.POT_SHARE_LOW


def shown(hand: Hand, seat: int = 0) -> list[tuple[int, bool]]:
    """(seat, mucked) in show order, as ``seat`` saw the showdown live."""
    event = hand.showdown(seat)
    assert event is not None, "no showdown"
    return [(h.seat, h.mucked) for h in event.hands]


# ---------------------------------------------------------------------- stud


def test_stud_full_hand__S4_S5_S6_S7_S12(room: Room) -> None:
    # The stud full hand (tests/support/scenarios.py): seat 2 folds on fourth
    # street, seat 3's beaten hand is mucked at the showdown.
    hand = play_stud_full_hand(room, STUD)
    reveal = hand.settle()
    assert hand.moves() == [
        (3, "bring_in"), (1, "complete"), (2, "call"), (3, "call"),  # third: 30 + 150
        (2, "check"), (3, "check"), (1, "bet"), (2, "fold"), (3, "call"),  # fourth: +100
        (1, "bet"), (3, "raise"), (1, "call"),  # fifth: +400
        (1, "check"), (3, "check"),  # sixth
        (1, "bet"), (3, "call"),  # seventh: +200, pot 880
    ]  # fmt: skip
    amounts = [a.action.amount for a in hand.seen("action_taken") if a.action.amount]
    assert amounts == [50, 50, 100, 200, 100]  # complete, bet (small), bet, raise, bet (big)
    # Seat 1: kings full?  No: three kings (Kc Kd Kh) beat seat 3's pair of fours.
    assert hand.final_stacks() == {1: 1000 - 410 + 880, 2: 1000 - 60, 3: 1000 - 410}
    assert hand.awards() == [(0, 1, 880, WHOLE)]
    # S12: the last bettor shows first; seat 3's beaten hand is mucked, hidden live
    # from the others, revealed to the hand's participants in the history.
    assert shown(hand, seat=2) == [(1, False), (3, True)]
    live = hand.showdown(seat=2)
    assert live is not None and list(live.hands[1].cards) == []
    assert "three of a kind" in live.hands[0].high.lower()
    (history,) = hand.seen("showdown", seat=2)
    assert sorted(history.hands[1].cards) == sorted(["4d", "4s", "2d", "5c", "6c", "9c", "Ts"])
    public = room.table.GetHandHistory(
        tpb.GetHandHistoryRequest(table_id=hand.table_id, hand_id=hand.hand_id), timeout=10
    )
    (showdown,) = [e.showdown for e in public.hands[0].events if e.HasField("showdown")]
    assert list(showdown.hands[1].cards) == []  # not to the public
    # Fifth street was dealt ahead, at seat 1's turn on fourth street (a check would
    # have closed the round), for all three; seat 2 folded, so seats 1 and 3 got
    # its first two cards (Kh 6c, above) and the third went back on the stub with
    # sixth street's deal, whose burn it was (S4: as if never dealt).  The reveal
    # shows it, and verifies (settle).
    fifth, sixth = reveal.log[2], reveal.log[3]
    assert list(fifth.cards)[:2] == ["Kh", "6c"] and len(fifth.cards) == 3
    assert sixth.deal.return_unused == 1 and list(sixth.burned) == [fifth.cards[2]]


@pytest.mark.parametrize(
    ("doors", "bring_in_seat"),
    [
        (("2d", "9h", "2c"), 3),  # two deuces: clubs is the lowest suit, seat 3
        (("2s", "2h", "Ac"), 2),  # hearts below spades; the ace is high (not low)
    ],
)
def test_stud_bring_in_by_suit__S5_G2(
    room: Room, doors: tuple[str, str, str], bring_in_seat: int
) -> None:
    downs = [("Ks", "Qd"), ("Jc", "Th"), ("9s", "8d")]
    third = [(a, b, door) for (a, b), door in zip(downs, doors, strict=True)]
    hand = room.start_hand(STUD, order=stud_order(third), buy_ins=[1000, 1000, 1000])
    # The bring-in player may only bring in or complete (S5); everyone folds to it.
    hand.play(script({bring_in_seat: ["bring_in"]}, then=lambda *_: "fold"))
    hand.settle()
    first = hand.turns[0]
    assert first.legal.seat == bring_in_seat
    assert common.ACTION_KIND_BRING_IN in first.legal.kinds
    assert common.ACTION_KIND_FOLD not in first.legal.kinds
    assert common.ACTION_KIND_CHECK not in first.legal.kinds
    others = [s for s in (1, 2, 3) if s != bring_in_seat]
    after = [bring_in_seat % 3 + 1, (bring_in_seat + 1) % 3 + 1]  # clockwise (S5)
    assert hand.moves() == [(bring_in_seat, "bring_in"), *[(s, "fold") for s in after]]
    # G6: the uncalled bring-in comes back; the bring-in wins the three antes.
    finished = hand.finished()
    assert (finished.uncalled_seat, finished.uncalled_amount) == (bring_in_seat, 25)
    assert hand.awards() == [(0, bring_in_seat, 30, WHOLE)]
    assert hand.final_stacks() == {bring_in_seat: 1020, **{s: 990 for s in others}}
    assert hand.showdown() is None  # G6: won without showing


def test_stud_lowest_card_all_in_from_the_ante__S5_S6(room: Room) -> None:
    # Seat 1 (2c, the lowest door) has only its ante: all-in, so seat 2 to its left
    # acts first and may bring in or fold (S5).  Seat 1's ace-high boards are the
    # best on every street, but it is all-in: the next player to its left who can
    # act, seat 2, opens each street (S6).  Main pot 30 (antes) to seat 1's trip
    # aces, side pot 50 to seat 3's kings up.
    order = stud_order(
        third=[("As", "Ah", "2c"), ("7s", "8d", "9h"), ("Ks", "Jc", "Kd")],
        streets=[["Ad", "2d", "6h"], ["3c", "3h", "Tc"], ["4d", "5s", "4s"]],
        river=["8s", "Qc", "Jd"],
    )
    hand = room.start_hand(STUD, order=order, buy_ins=[10, 1000, 1000])
    hand.play()  # bring in, call, check
    hand.settle()
    first = hand.turns[0].legal
    assert first.seat == 2
    assert {common.ACTION_KIND_BRING_IN, common.ACTION_KIND_FOLD} <= set(first.kinds)
    assert hand.moves() == [(2, "bring_in"), (3, "call")] + [(2, "check"), (3, "check")] * 4
    assert sorted(hand.awards()) == [(0, 1, 30, WHOLE), (1, 3, 50, WHOLE)]
    assert hand.final_stacks() == {1: 30, 2: 965, 3: 1015}


def test_stud_side_pots_three_all_ins__S12_S13(room: Room) -> None:
    # Stacks 60, 110, 160, 1000; antes leave 50, 100, 150, 990.  Seat 4 (2c) brings
    # in; seat 1 completes all-in to 50, seat 2 raises all-in to 100, seat 3 raises
    # all-in to 150, seat 4 calls.  Pots: main 4 x 60 = 240 (everyone), side 3 x 50
    # = 150 (seats 2-4), side 2 x 50 = 100 (seats 3-4).  The rest is dealt out with
    # no betting; every hand is shown (S12).  Seat 1 has four aces, seat 2 three
    # kings, seat 4 a pair of queens, seat 3 jack high.
    order = stud_order(
        third=[("As", "Ah", "9c"), ("Ks", "Kh", "8c"), ("Jd", "Tc", "7c"), ("Qs", "Qh", "2c")],
        streets=[["Ad", "Kd", "3s", "5h"], ["Ac", "5s", "4s", "6h"], ["3d", "6s", "8d", "9d"]],
        river=["4d", "7d", "2h", "Th"],
    )
    hand = room.start_hand(STUD, order=order, buy_ins=[60, 110, 160, 1000])
    hand.play(script({4: ["bring_in", "call"], 1: ["complete"], 2: ["raise"], 3: ["raise"]}))
    hand.settle()
    assert hand.moves() == [
        (4, "bring_in"),
        (1, "complete"),
        (2, "raise"),
        (3, "raise"),
        (4, "call"),
    ]
    assert [(a.seat, a.stack) for a in hand.seen("action_taken")] == [
        (4, 965), (1, 0), (2, 0), (3, 0), (4, 840),
    ]  # fmt: skip
    assert hand.awards() == [(0, 1, 240, WHOLE), (1, 2, 150, WHOLE), (2, 4, 100, WHOLE)]
    assert hand.final_stacks() == {1: 240, 2: 150, 3: 0, 4: 840 + 100}
    assert sorted(shown(hand)) == [(1, False), (2, False), (3, False), (4, False)]


# ---------------------------------------------------------------------- stud hi-lo


def test_stud_hilo_full_hand_split_with_odd_chip__H1_H2_H4_H5(room: Room) -> None:
    # Seat 2's 3d brings in; all call.  Fourth: seat 1's open kings act first (S6):
    # bet, both call (pot 105 + 150).  Fifth: seat 1 bets, seat 2 raises, seat 3
    # folds, seat 1 calls (+400).  Sixth checked.  Seventh: seat 1 bets, seat 2
    # calls: pot 855.  Seat 1: kings full (high); seat 2: the wheel A-2-3-4-5, a
    # straight for high and the best low (H2, H4); seat 3 has no low.  855 is odd:
    # the high half gets the odd chip, 428 to 427 (H5).
    order = stud_order(
        third=[("As", "Ks", "Kh"), ("Ac", "2c", "3d"), ("Qd", "Qc", "8h")],
        streets=[["Kd", "4h", "Jc"], ["9s", "5s", "Td"], ["9c", "7c"]],
        river=["Js", "Qh"],
    )
    hand = room.start_hand(HILO, order=order, buy_ins=[1000, 1000, 1000])
    hand.play(
        script(
            {
                1: ["call", "bet", "bet", "call", "check", "bet"],
                2: ["bring_in", "call", "raise", "check", "call"],
                3: ["call", "call", "fold"],
            }
        )
    )
    hand.settle()
    assert hand.moves() == [
        (2, "bring_in"), (3, "call"), (1, "call"),
        (1, "bet"), (2, "call"), (3, "call"),
        (1, "bet"), (2, "raise"), (3, "fold"), (1, "call"),
        (1, "check"), (2, "check"),
        (1, "bet"), (2, "call"),
    ]  # fmt: skip
    assert hand.awards() == [(0, 1, 428, HIGH), (0, 2, 427, LOW)]
    assert hand.final_stacks() == {1: 615 + 428, 2: 615 + 427, 3: 915}
    event = hand.showdown()
    assert event is not None  # the last bettor shows first (S12)
    assert [(h.seat, h.mucked, h.high, h.low) for h in event.hands] == [
        (1, False, "full house, kings full of nines", ""),
        (2, False, "straight, five high", "wheel (5-4-3-2-A)"),
    ]


def test_stud_hilo_odd_chip_to_the_high_half__H5(room: Room) -> None:
    # Antes 30 + three bring-in calls 75 = 105, checked down.  Seat 1 has the high
    # (aces up), seat 3 the only low (8-6-5-4-2): 53 to the high half, 52 to the low.
    order = stud_order(
        third=[("As", "Ah", "Kd"), ("Qc", "Jd", "Tc"), ("2h", "4d", "5c")],
        streets=[["Ks", "9s", "6d"], ["3h", "9c", "8s"], ["Jh", "Ts", "Kc"]],
        river=["7s", "Qs", "Qd"],
    )
    hand = room.start_hand(HILO, order=order, buy_ins=[500, 500, 500])
    hand.play()  # bring in, call, check
    hand.settle()
    assert hand.moves()[:3] == [(3, "bring_in"), (1, "call"), (2, "call")]
    assert hand.awards() == [(0, 1, 53, HIGH), (0, 3, 52, LOW)]
    assert hand.final_stacks() == {1: 465 + 53, 2: 465, 3: 465 + 52}


def test_stud_hilo_side_pot_split_on_its_own__H6(room: Room) -> None:
    # Seat 1 (60) is all-in on third street: main pot 3 x 60 = 180.  Seats 2 and 3
    # put 50 each more in on fourth: a side pot of 100 for them alone.  Seat 2's
    # three kings take both high halves; the main pot's low goes to seat 1's
    # 6-4-3-2-A, the side pot's low to seat 3's 8-7-5-3-2 (seat 1 has no part of it).
    order = stud_order(
        third=[("Ah", "2d", "6d"), ("Kc", "Kd", "Kh"), ("5c", "7d", "2c")],
        streets=[["3h", "Qh", "8c"], ["4c", "Td", "3s"], ["9s", "9d", "Qd"]],
        river=["Ks", "8s", "Jh"],
    )
    hand = room.start_hand(HILO, order=order, buy_ins=[60, 1000, 1000])
    hand.play(script({3: ["bring_in", "call", "call"], 1: ["complete"], 2: ["call", "bet"]}))
    hand.settle()
    assert hand.moves()[:6] == [
        (3, "bring_in"), (1, "complete"), (2, "call"), (3, "call"), (2, "bet"), (3, "call"),
    ]  # fmt: skip
    assert sorted(hand.awards()) == [
        (0, 1, 90, LOW), (0, 2, 90, HIGH), (1, 2, 50, HIGH), (1, 3, 50, LOW),
    ]  # fmt: skip
    assert hand.final_stacks() == {1: 90, 2: 1030, 3: 940}
    assert sorted(shown(hand)) == [(1, False), (2, False), (3, False)]


# ---------------------------------------------------------------------- draw 7-A


def test_draw_fixed_limit_full_hand__D2_D3_D4_D5_D6_D7_D8(room: Room) -> None:
    # Three players, the first hand: button seat 1, small blind seat 2, big blind
    # seat 3 (D3); dealt from seat 2 (D4).  Pre-draw from seat 1 (D5): raise to 200,
    # both call (600).  Draws from seat 2: three, one, two (D6; counts public, D7).
    # Post-draw from seat 2: check, bet 200, raise 400, fold, raise 600, call: 1800.
    # Seat 3 makes a king-high spade flush, seat 1 aces full: a flush beats a full
    # house in 7-A (D8).
    order = draw_order(
        hands=[
            ["7c", "7d", "8c", "9d", "Jh"],  # seat 2
            ["Ks", "Kh", "Qs", "Js", "Ts"],  # seat 3
            ["As", "Ah", "Ad", "7h", "8h"],  # seat 1 (button)
        ],
        stub=["7s", "Tc", "9h", "8s", "Qd", "Qh"],
    )
    hand = room.start_hand(
        draw_config(common.STRUCTURE_FIXED_LIMIT), order=order, buy_ins=[2000, 2000, 2000]
    )
    hand.play(
        script(
            {
                1: ["raise", "discard 7h 8h", "raise", "call"],
                2: ["call", "discard 8c 9d Jh", "check", "fold"],
                3: ["call", "discard Kh", "bet", "raise"],
            }
        )
    )
    hand.settle()
    (started,) = hand.seen("hand_started")
    assert started.button_seat == 1
    assert [(p.seat, p.amount, p.kind) for p in started.posts] == [
        (2, 50, "blind"),
        (3, 100, "blind"),
    ]
    assert hand.moves() == [
        (1, "raise"), (2, "call"), (3, "call"),
        (2, "check"), (3, "bet"), (1, "raise"), (2, "fold"), (3, "raise"), (1, "call"),
    ]  # fmt: skip
    assert [(d.seat, d.count) for d in hand.seen("draw_taken")] == [(2, 3), (3, 1), (1, 2)]
    (mine,) = [d for d in hand.seen("draw_taken", seat=3) if d.seat == 3]
    assert list(mine.received) == ["8s"]
    assert all(not d.received for d in hand.seen("draw_taken", seat=3) if d.seat != 3)
    assert hand.awards() == [(0, 3, 1800, WHOLE)]
    assert hand.final_stacks() == {1: 1200, 2: 1800, 3: 3000}
    event = hand.showdown()
    assert event is not None
    assert [(h.seat, h.mucked) for h in event.hands] == [(3, False), (1, True)]
    assert "flush" in event.hands[0].high.lower()


def test_draw_pot_limit_heads_up_full_hand__D2_D3_D8(room: Room) -> None:
    # Heads-up the button (seat 1) posts the small blind and acts first before the
    # draw, last after it (D3).  Pot limit: raise to 300 (call 100, pot 200), re-raise
    # to 900 (call 300, pot 600), call: 1800.  Seat 2 stands pat with kings full,
    # seat 1 draws one to a flush.  After the draw seat 2 bets its last 1100 (less
    # than the pot), seat 1 calls: the flush wins 4000 (D8).
    order = draw_order(
        hands=[["Kc", "Kd", "Ks", "9c", "9d"], ["Jh", "Th", "9h", "8h", "7d"]],  # seats 2, 1
        stub=["Ah"],
    )
    hand = room.start_hand(
        draw_config(common.STRUCTURE_POT_LIMIT), order=order, buy_ins=[2000, 2000]
    )
    hand.play(
        script(
            {
                1: ["raise 300", "call", "discard 7d", "call"],
                2: ["raise 900", "discard", "bet 1100"],
            }
        )
    )
    hand.settle()
    assert hand.moves() == [(1, "raise"), (2, "raise"), (1, "call"), (2, "bet"), (1, "call")]
    pot_limits = [
        (t.legal.seat, t.legal.min_to, t.legal.max_to) for t in hand.turns if t.legal.max_to
    ]
    assert pot_limits[:2] == [(1, 200, 300), (2, 500, 900)]
    assert (2, 100, 1100) in pot_limits  # post-draw: the pot is 1800, the stack 1100
    assert [(d.seat, d.count) for d in hand.seen("draw_taken")] == [(2, 0), (1, 1)]
    assert hand.awards() == [(0, 1, 4000, WHOLE)]
    assert hand.final_stacks() == {1: 4000, 2: 0}
    assert sorted(shown(hand)) == [(1, False), (2, False)]  # all-in: both shown (S12)


def test_draw_no_limit_uncalled_bet__D2_D6_G6(room: Room) -> None:
    # Seat 1 raises to 300, seat 2 folds, seat 3 re-raises the minimum (to 500: the
    # last raise was 200, D2), seat 1 calls: 1050.  After the draw seat 3 checks,
    # seat 1 moves all-in for 1500, seat 3 folds: the 1500 comes back (G6) and
    # seat 1 wins 1050 without showing.
    order = draw_order(
        hands=[
            ["7c", "7d", "8c", "9d", "Jh"],  # seat 2
            ["Ks", "Kh", "Qs", "Js", "Ts"],  # seat 3
            ["As", "Ah", "Ad", "7h", "8h"],  # seat 1
        ]
    )
    hand = room.start_hand(
        draw_config(common.STRUCTURE_NO_LIMIT), order=order, buy_ins=[2000, 2000, 2000]
    )
    hand.play(
        script(
            {
                1: ["raise 300", "call", "discard 7h 8h", "bet 1500"],
                2: ["fold"],
                3: ["raise 500", "discard Js Ts", "check", "fold"],
            }
        )
    )
    hand.settle()
    assert hand.moves() == [
        (1, "raise"), (2, "fold"), (3, "raise"), (1, "call"), (3, "check"), (1, "bet"), (3, "fold"),
    ]  # fmt: skip
    no_limit = [
        (t.legal.seat, t.legal.min_to, t.legal.max_to) for t in hand.turns if t.legal.max_to
    ]
    assert no_limit[:3] == [(1, 200, 2000), (2, 500, 2000), (3, 500, 2000)]
    finished = hand.finished()
    assert (finished.uncalled_seat, finished.uncalled_amount) == (1, 1500)
    assert hand.awards() == [(0, 1, 1050, WHOLE)]
    assert hand.final_stacks() == {1: 2550, 2: 1950, 3: 1500}
    assert hand.showdown() is None


# ---------------------------------------------------------------------- S11


def _river(reveal: tpb.DeckReveal) -> dpb.DeckOperation:
    (river,) = [op for op in reveal.log if op.WhichOneof("op") == "river"]
    return river


def test_river_shortage_8_players_community_card__S11(room: Room) -> None:
    # 8 x 3 + three streets of (burn + 8) = 51 cards: R = 1, B = 3, N = 8.  R < N + 1
    # and R + B < N: the stub and the burns are shuffled and one community card is
    # turned up, every player's seventh card.
    order = stud_order(
        [(STUD_DECK[3 * i], STUD_DECK[3 * i + 1], STUD_DECK[3 * i + 2]) for i in range(8)]
    )
    before = room.metrics("table")
    hand = room.start_hand(STUD, order=order, buy_ins=[1000] * 8)
    hand.play()  # everyone calls the bring-in, then checks
    reveal = hand.settle()
    outcomes = "table_river_outcomes_total"
    after = room.metrics("table")
    assert (
        total(after, outcomes, outcome="community")
        == total(before, outcomes, outcome="community") + 1
    )
    river = _river(reveal)
    assert river.river_outcome == dpb.RIVER_OUTCOME_COMMUNITY
    burns = [order[24], order[33], order[42]]
    assert river.community_card in {*burns, order[51]}
    for seat in range(1, 9):  # everyone sees the community card, once
        dealt = [c for c in hand.seen("cards_dealt", seat) if c.community_card]
        assert [c.community_card for c in dealt] == [river.community_card]
    event = hand.showdown()
    assert event is not None and len(event.hands) == 8
    for h in event.hands:  # the community card is part of every hand shown
        if not h.mucked:
            assert river.community_card in h.cards and len(h.cards) == 7


def test_river_shortage_7_players_reshuffled_burns__S11(room: Room) -> None:
    # 7 x 3 + three streets of (burn + 7) = 45 cards: R = 7 < N + 1 = 8, R + B = 10
    # >= 7: the burns and the stub are shuffled and each player gets one down card
    # from them, with no burn.
    order = stud_order(
        [(STUD_DECK[3 * i], STUD_DECK[3 * i + 1], STUD_DECK[3 * i + 2]) for i in range(7)]
    )
    before = room.metrics("table")
    hand = room.start_hand(STUD, order=order, buy_ins=[1000] * 7)
    hand.play()
    reveal = hand.settle()
    outcomes = "table_river_outcomes_total"
    after = room.metrics("table")
    assert (
        total(after, outcomes, outcome="reshuffled")
        == total(before, outcomes, outcome="reshuffled") + 1
    )
    river = _river(reveal)
    assert river.river_outcome == dpb.RIVER_OUTCOME_RESHUFFLED
    assert list(river.burned) == []
    pool = {order[21], order[29], order[37], *order[45:]}
    assert len(river.cards) == 7 and set(river.cards) <= pool
    for seat in range(1, 8):
        sevenths = hand.seen("cards_dealt", seat)[-7:]  # seventh street: one card each
        assert [c.seat for c in sevenths] == list(range(1, 8))
        for c in sevenths:
            assert not c.up and not c.community_card
            if c.seat == seat:  # own down card: the dealer's card for this seat
                assert list(c.cards) == [river.cards[seat - 1]]
            else:  # others' down cards are counted, never sent
                assert list(c.cards) == [] and c.hidden_count == 1


def test_river_shortage_7_players_stub_first__S11(room: Room) -> None:
    # The configurable procedure of seed [002]: R = 7 serves six players from the
    # stub, keeping its last card; that card is shuffled with the 3 burns, one is
    # burned and the seventh player gets the next.
    order = stud_order(
        [(STUD_DECK[3 * i], STUD_DECK[3 * i + 1], STUD_DECK[3 * i + 2]) for i in range(7)]
    )
    config = common.GameConfig()
    config.CopyFrom(STUD)
    config.river_shortage = common.RIVER_SHORTAGE_STUB_FIRST
    hand = room.start_hand(config, order=order, buy_ins=[1000] * 7)
    hand.play()
    river = _river(hand.settle())
    assert river.river_outcome == dpb.RIVER_OUTCOME_STUB_FIRST
    assert list(river.cards[:6]) == order[45:51]
    pool = {order[21], order[29], order[37], order[51]}
    assert len(river.burned) == 1 and {river.cards[6], *river.burned} <= pool
    (mine,) = [c for c in hand.seen("cards_dealt", seat=7)[-7:] if c.seat == 7]
    assert list(mine.cards) == [river.cards[6]]


# ---------------------------------------------------------------------- draw, five players


def test_draw_five_players_sixes_in_the_deck__G1_D1_D8(room: Room) -> None:
    # Five players: the four sixes join the 32 cards (G1), and A-6-7-8-9 is a straight
    # (D8).  Everyone calls the big blind, stands pat and checks: 5 x 100 = 500 to the
    # straight (seat 2) over trip sixes (seat 1).
    order = draw_order(
        hands=[
            ["As", "6c", "7d", "8h", "9s"],  # seat 2 (small blind)
            ["Kc", "Kd", "Qh", "Js", "Tc"],  # seat 3 (big blind)
            ["Qc", "Qd", "8c", "9c", "Th"],  # seat 4
            ["Jc", "Jd", "7c", "7h", "Ac"],  # seat 5
            ["6d", "6h", "6s", "Kh", "9d"],  # seat 1 (button)
        ],
        sixes=True,
    )
    hand = room.start_hand(
        draw_config(common.STRUCTURE_FIXED_LIMIT), order=order, buy_ins=[2000] * 5
    )
    hand.play()
    reveal = hand.settle()
    assert len(reveal.order) == 36 and {"6c", "6d", "6h", "6s"} <= set(reveal.order)
    assert hand.moves()[:5] == [(4, "call"), (5, "call"), (1, "call"), (2, "call"), (3, "check")]
    assert [(d.seat, d.count) for d in hand.seen("draw_taken")] == [(s, 0) for s in (2, 3, 4, 5, 1)]
    assert hand.awards() == [(0, 2, 500, WHOLE)]
    assert hand.final_stacks() == {1: 1900, 2: 2400, 3: 1900, 4: 1900, 5: 1900}
    event = hand.showdown()
    assert event is not None
    (winner,) = [h for h in event.hands if h.seat == 2]
    assert "straight" in winner.high.lower()


def test_draw_split_pot_odd_chip_first_left_of_the_button__D9_G3(room: Room) -> None:
    # Antes 5 (15) and three calls of the big blind (300): 315, checked down after
    # everyone stands pat.  Seats 3 and 1 hold the same ace-high straight: the pot
    # is split (G3) and the odd chip goes to the first of them clockwise from the
    # button (seat 1): seat 3 (D9).
    config = draw_config(common.STRUCTURE_FIXED_LIMIT)
    config.ante = 5
    order = draw_order(
        hands=[
            ["7c", "7d", "8c", "9d", "9h"],  # seat 2
            ["Tc", "Jd", "Qh", "Ks", "Ac"],  # seat 3
            ["Td", "Jh", "Qs", "Kc", "Ad"],  # seat 1 (button)
        ]
    )
    hand = room.start_hand(config, order=order, buy_ins=[2000, 2000, 2000])
    hand.play()
    hand.settle()
    assert sorted(hand.awards()) == [(0, 1, 157, WHOLE), (0, 3, 158, WHOLE)]
    assert hand.final_stacks() == {1: 2052, 2: 1895, 3: 2053}
    assert shown(hand) == [(2, False), (3, False), (1, False)]  # from the first to act (S12)


def test_draw_reshuffle_when_the_stub_runs_short__D6(room: Room) -> None:
    # Five players: 36 cards, 25 dealt, one burned, a stub of 10.  Seat 2 draws five
    # (the stub keeps 5).  Seat 3 wants five, but the stub's last card is never
    # dealt: the stub, the burn and seat 2's discards (not seat 3's own) are
    # shuffled into a new stub, and seat 3 draws from it.
    hands = [
        ["7c", "7d", "8c", "9d", "Jh"],  # seat 2
        ["Kc", "Kd", "Qh", "Js", "Tc"],  # seat 3
        ["Qc", "Qd", "8h", "9c", "Th"],  # seat 4
        ["Jc", "Jd", "7h", "7s", "Ac"],  # seat 5
        ["6d", "6h", "6s", "Kh", "9s"],  # seat 1 (button)
    ]
    order = draw_order(hands, sixes=True)
    hand = room.start_hand(
        draw_config(common.STRUCTURE_FIXED_LIMIT), order=order, buy_ins=[2000] * 5
    )
    hand.play(
        script(
            {
                2: ["call", "discard " + " ".join(hands[0])],
                3: ["check", "discard " + " ".join(hands[1])],
            }
        )
    )
    reveal = hand.settle()
    draws = [op for op in reveal.log if op.WhichOneof("op") == "draw"]
    assert [(list(op.draw.discards), op.reshuffled) for op in draws[:2]] == [
        (hands[0], False),
        (hands[1], True),
    ]
    assert list(draws[0].cards) == order[26:31]
    received = set(draws[1].cards)
    assert len(received) == 5 and received <= {*order[31:36], order[25], *hands[0]}
    (mine,) = [d for d in hand.seen("draw_taken", seat=3) if d.seat == 3]
    assert set(mine.received) == received
    assert sum(hand.final_stacks().values()) == 10_000
