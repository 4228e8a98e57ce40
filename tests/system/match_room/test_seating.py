# ruff: noqa: N802  (test names end with the docs/rules.md rule IDs, e.g. __B1)
"""The match table's seating plan (``poker_bots.match_room_seating``) and the merge
of the players' histories (``poker_bots.match_room_phh``), without a room.

The planner runs the lobby's seating library one step ahead: each hand's players
sit down in the group the last hand did not use while it is played, and the seats
are chosen so the lobby's plan deals them in the order asked (stud from the lowest
seat, G5; the 7-A draw from the left of the button, which moves by B1 and D3).
"""

from __future__ import annotations

import itertools

import pytest

from poker.common.v1 import common_pb2 as common
from poker.table.v1 import table_pb2 as tpb
from poker_bots.match_room_phh import dealt_cards, merge_views
from poker_bots.match_room_seating import SeatPlanner

STUD = common.GameConfig(game=common.GAME_STUD, ante=5, bring_in=10, small_bet=20, big_bet=40)
DRAW = common.GameConfig(
    game=common.GAME_DRAW_7A, structure=common.STRUCTURE_POT_LIMIT, small_bet=20, big_bet=40
)


def alias(name: str, hand: int) -> str:
    """The player a bot plays hand ``hand`` through (two per bot, alternating)."""
    return f"{name}-{'ab'[hand % 2]}"


def test_heads_up_draw_hands_deal_from_the_left_of_the_moving_button__B1_D3_D4() -> None:
    planner = SeatPlanner(DRAW, 2)
    assert planner.seats == 4 and planner.groups == ((1, 2), (3, 4))
    planner.seat_first([alias("x", 1), alias("y", 1)], 1_000, 1)  # the warm-up
    seatings = itertools.cycle([("x", "y"), ("y", "x"), ("y", "x"), ("x", "y")])
    for hand in range(12):
        asked = tuple(alias(name, hand) for name in next(seatings))
        seats, plan = planner.seat_next(asked, 1_000, hand % 2)
        assert plan.players == asked
        assert set(seats.values()) == set(planner.groups[hand % 2])
        assert plan.seats == tuple(seats[p] for p in asked)
        # D3 heads-up: the button posts the small blind and is dealt last; the
        # deal starts with the big blind, left of it (D4).
        assert plan.big_blind == plan.seats[0] and plan.button == plan.seats[1]
    planner.finish()
    assert planner.table.occupied() == []


def test_stud_hands_deal_from_the_lowest_seat__G5() -> None:
    planner = SeatPlanner(STUD, 4)
    assert planner.groups == ((1, 2, 3, 4), (5, 6, 7, 8))
    planner.seat_first([alias("w", 1), alias("x", 1), alias("y", 1)], 500, 1)
    for hand, asked in enumerate(itertools.permutations("wxyz")):
        players = tuple(alias(name, hand) for name in asked)
        seats, plan = planner.seat_next(players, 500, hand % 2)
        assert plan.players == players
        assert [seats[p] for p in players] == list(planner.groups[hand % 2])


def test_a_table_holds_two_groups_of_the_game_s_players__S1_D1() -> None:
    with pytest.raises(ValueError, match="up to 2 players"):
        SeatPlanner(DRAW, 3)
    with pytest.raises(ValueError, match="up to 4 players"):
        SeatPlanner(STUD, 5)


def _dealt(
    seat: int, cards: list[str], *, up: bool = False, hidden: bool = False
) -> tpb.TableEvent:
    if hidden:
        return tpb.TableEvent(cards_dealt=tpb.CardsDealt(seat=seat, hidden_count=len(cards)))
    return tpb.TableEvent(cards_dealt=tpb.CardsDealt(seat=seat, cards=cards, up=up))


def test_merged_views_take_each_seat_s_own_cards_and_draws() -> None:
    one = [
        _dealt(1, ["As", "Kd"]),
        _dealt(2, ["2c", "3c"], hidden=True),
        tpb.TableEvent(your_turn=tpb.YourTurn(action_seq=1)),
        tpb.TableEvent(
            draw_taken=tpb.DrawTaken(seat=1, count=1, discarded=["Kd"], received=["Qh"])
        ),
        tpb.TableEvent(draw_taken=tpb.DrawTaken(seat=2, count=2)),
    ]
    two = [
        _dealt(1, ["As", "Kd"], hidden=True),
        _dealt(2, ["2c", "3c"]),
        tpb.TableEvent(to_act=tpb.ToAct(seat=1, action_seq=1)),
        tpb.TableEvent(draw_taken=tpb.DrawTaken(seat=1, count=1)),
        tpb.TableEvent(
            draw_taken=tpb.DrawTaken(seat=2, count=2, discarded=["2c", "3c"], received=["7d", "8d"])
        ),
    ]
    merged = merge_views({1: one, 2: two})
    assert dealt_cards(merged) == {1: ["As", "Kd", "Qh"], 2: ["2c", "3c", "7d", "8d"]}
    with pytest.raises(ValueError, match="not views of the same hand"):
        merge_views({1: one, 2: two[:-1]})
