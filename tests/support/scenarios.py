"""Named hands that more than one test plays through the room: the deck and the
actions written once, so the tests that read the same hand from different sides
(the play, the history) cannot drift apart."""

from __future__ import annotations

from poker.common.v1 import common_pb2 as common
from tests.support.decks import stud_order
from tests.support.hand import Hand
from tests.support.policies import script
from tests.support.room import Room

# Seat 3's 2d is the lowest door card: it brings in (S5); seat 1 completes.
# Fourth street: seat 2's 9-8 is the best board (S6) and checks; seat 1 bets, seat
# 2 folds.  Fifth to seventh: seat 1's king-high board acts first; bets at the big
# bet (S7), seat 3 raises once on fifth.  Seat 1's three kings beat seat 3's
# fours; seat 3's beaten hand is mucked (S12).
STUD_FULL_HAND_ORDER = stud_order(
    third=[("Kc", "Kd", "3c"), ("Qs", "Js", "9h"), ("4d", "4s", "2d")],
    streets=[["7h", "8d", "5c"], ["Kh", "6c"], ["8s", "9c"]],
    river=["2h", "Ts"],
)
STUD_FULL_HAND_ACTIONS = {
    1: ["complete", "bet", "bet", "call", "check", "bet"],
    2: ["call", "check", "fold"],
    3: ["bring_in", "call", "check", "call", "raise", "check", "call"],
}


def play_stud_full_hand(room: Room, config: common.GameConfig) -> Hand:
    """The stud full hand at 1,000 chips a seat, played to its end."""
    hand = room.start_hand(config, order=STUD_FULL_HAND_ORDER, buy_ins=[1000, 1000, 1000])
    hand.play(script(STUD_FULL_HAND_ACTIONS))
    return hand
