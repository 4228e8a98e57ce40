# ruff: noqa: N802  (test names end with the docs/rules.md rule IDs, e.g. __S12)
"""``HandHistory.phh``: each viewer's hand history in PHH, over real gRPC.

The PHH text is written from the events the viewer received, so it must show
exactly what they saw (G4: others' down cards are ``??`` until shown; S12: a mucked
hand only in the participants' history), and it must be PHH a reader can step
through: PokerKit replays the stud histories, unknown cards and all, to the
finishing stacks the table paid (our own evaluator and pots agree with PokerKit's
on these hands; tests/unit/test_phh_pokerkit.py lists where the rule books differ).
"""

from __future__ import annotations

import tomllib
import warnings
from typing import Any

from poker.common.v1 import common_pb2 as common
from poker.table.v1 import table_pb2 as tpb
from tests.support.decks import draw_order, stud_order
from tests.support.hand import Hand
from tests.support.policies import script
from tests.support.room import Room
from tests.support.scenarios import play_stud_full_hand
from tests.system.security.leaks import phh_cards

STUD = common.GameConfig(game=common.GAME_STUD, ante=10, bring_in=25, small_bet=50, big_bet=100)
DRAW_FL = common.GameConfig(
    game=common.GAME_DRAW_7A, structure=common.STRUCTURE_FIXED_LIMIT, small_bet=100, big_bet=200
)


def _public(room: Room, hand: Hand) -> tpb.HandHistory:
    reply = room.table.GetHandHistory(
        tpb.GetHandHistoryRequest(table_id=hand.table_id, hand_id=hand.hand_id), timeout=10
    )
    (history,) = reply.hands
    return history


def _fields(history: tpb.HandHistory) -> dict[str, Any]:
    assert history.phh.startswith("variant = ")
    return tomllib.loads(history.phh)


def _deals(fields: dict[str, Any], player: str) -> list[str]:
    """The cards of every ``d dh`` line of ``player`` (``"p2"``), in order."""
    return [a.split()[3] for a in fields["actions"] if a.startswith(f"d dh {player} ")]


def _pokerkit_final_stacks(text: str) -> list[int]:
    from pokerkit import notation  # in the lock file: missing must fail, not skip

    history = notation.HandHistory.loads(text)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # cards dealt that PokerKit did not shuffle
        states = list(history)
    state = states[-1]
    assert not state.status, "PokerKit did not finish the hand"
    return [int(s) for s in state.stacks]


def test_stud_history_shows_each_viewer_what_they_saw__G4_S12(room: Room) -> None:
    # The stud full hand (tests/support/scenarios.py): seat 2 folds on fourth
    # street, seat 3's beaten hand is mucked at the showdown.
    hand = play_stud_full_hand(room, STUD)
    hand.settle()
    final = hand.final_stacks()
    for seat in (1, 2, 3):
        history = hand.history(seat)
        fields = _fields(history)
        assert fields["variant"] == "F7S"
        assert (fields["antes"], fields["bring_in"], fields["small_bet"]) == ([10] * 3, 25, 50)
        assert fields["seats"] == [1, 2, 3]
        assert fields["starting_stacks"] == [1000] * 3
        assert fields["finishing_stacks"] == [final[s] for s in (1, 2, 3)]
        assert fields["winnings"] == [880, 0, 0]
        assert fields["hand"] == hand.hand_id
        assert fields["actions"][:4] == [
            "d dh p1 " + ("KcKd3c" if seat == 1 else "????3c"),
            "d dh p2 " + ("QsJs9h" if seat == 2 else "????9h"),
            "d dh p3 " + ("4d4s2d" if seat == 3 else "????2d"),
            "p3 pb",
        ]
        # Seventh street's down card: the owner's only.
        assert _deals(fields, "p1")[-1] == ("2h" if seat == 1 else "??")
        # S12: seat 3's mucked hand is shown to the hand's players afterwards.
        assert (
            "p3 sm 4d4sTs2d5c6c9c # mucked, shown to the hand's players (S12)"
            in (fields["actions"])
        )
        assert _pokerkit_final_stacks(history.phh) == fields["finishing_stacks"]
    public = _fields(_public(room, hand))
    assert public["actions"][:3] == ["d dh p1 ????3c", "d dh p2 ????9h", "d dh p3 ????2d"]
    assert "p1 sm KcKd2h3c7hKh8s" in public["actions"]
    assert "p3 sm # mucks (S12)" in public["actions"]  # not to the public
    # Nowhere in the public text (the leak scan's reading of PHH card runs).
    assert not {"4d", "4s", "Ts"} & set(phh_cards(_public(room, hand).phh))


def test_stud_all_ins_show_the_hands_when_betting_closes__S12_S13(room: Room) -> None:
    # The hand of test_stud_side_pots_three_all_ins: three all-ins on third street
    # close the betting; PHH turns every hand up then, before fourth street, and
    # PokerKit splits the three pots as the table did.
    order = stud_order(
        third=[("As", "Ah", "9c"), ("Ks", "Kh", "8c"), ("Jd", "Tc", "7c"), ("Qs", "Qh", "2c")],
        streets=[["Ad", "Kd", "3s", "5h"], ["Ac", "5s", "4s", "6h"], ["3d", "6s", "8d", "9d"]],
        river=["4d", "7d", "2h", "Th"],
    )
    hand = room.start_hand(STUD, order=order, buy_ins=[60, 110, 160, 1000])
    hand.play(script({4: ["bring_in", "call"], 1: ["complete"], 2: ["raise"], 3: ["raise"]}))
    hand.settle()
    history = hand.history(4)
    fields = _fields(history)
    actions = fields["actions"]
    fourth = actions.index("d dh p1 Ad")
    assert actions[fourth - 4 : fourth] == [
        "p1 sm AsAh9c # all-in (S12)",
        "p2 sm KsKh8c # all-in (S12)",
        "p3 sm JdTc7c # all-in (S12)",
        "p4 sm QsQh2c # all-in (S12)",
    ]
    assert fields["finishing_stacks"] == [240, 150, 0, 940]
    assert _pokerkit_final_stacks(history.phh) == [240, 150, 0, 940]


def test_draw_history_counts_others_draws_and_hides_their_cards__D6_D7_G4(room: Room) -> None:
    # The hand of test_draw_fixed_limit_full_hand: button seat 1, blinds seats 2
    # and 3 (D3), dealt from seat 2 (p1); draws of three, one and two cards (D7:
    # counts public, cards private).
    order = draw_order(
        hands=[
            ["7c", "7d", "8c", "9d", "Jh"],  # seat 2
            ["Ks", "Kh", "Qs", "Js", "Ts"],  # seat 3
            ["As", "Ah", "Ad", "7h", "8h"],  # seat 1 (button)
        ],
        stub=["7s", "Tc", "9h", "8s", "Qd", "Qh"],
    )
    hand = room.start_hand(DRAW_FL, order=order, buy_ins=[2000, 2000, 2000])
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
    fields = _fields(hand.history(3))
    assert fields["variant"] == "F7A1D"  # the room's own code: no PHH variant is 7-A
    assert (fields["_game"], fields["_structure"]) == ("draw_7a", "fixed_limit")
    assert fields["seats"] == [2, 3, 1]
    assert fields["blinds_or_straddles"] == [50, 100, 0]
    assert fields["starting_stacks"] == [2000] * 3
    assert fields["finishing_stacks"] == [1800, 3000, 1200]
    assert fields["winnings"] == [0, 1800, 0]
    draw = fields["actions"].index("p1 sd ??????")
    assert fields["actions"][draw : draw + 6] == [
        "p1 sd ??????",
        "p2 sd Kh",
        "p3 sd ????",
        "d dh p1 ??????",
        "d dh p2 8s",
        "d dh p3 ????",
    ]
    assert _deals(fields, "p2")[0] == "KsKhQsJsTs"
    assert _deals(fields, "p1")[0] == "??????????"
