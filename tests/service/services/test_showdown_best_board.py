# ruff: noqa: N802  (test names end with the docs/rules.md rule IDs, e.g. __S12)
"""The showdown service finds the first to show when the stud betting closed before
seventh street (``SettleRequest.best_board_first``): the best board showing, all-in
players included (S6; docs/rule-decisions.md, "Show order when the betting closed
early").  The betting service could not answer it (those boards are dealt after its
last reply), and the table must not decide the order itself."""

from __future__ import annotations

import grpc
import pytest

from poker.common.v1 import common_pb2 as common
from poker.showdown.v1 import showdown_pb2 as pb
from poker.showdown.v1.showdown_pb2_grpc import ShowdownStub

STUD = common.GameConfig(game=common.GAME_STUD, ante=25, bring_in=50, small_bet=100, big_bet=200)
DRAW = common.GameConfig(game=common.GAME_DRAW_7A, small_bet=100, big_bet=200)


def hand(seat: int, down: str, up: str) -> pb.SeatHand:
    return pb.SeatHand(seat=seat, cards=[*down.split(), *up.split()], upcards=up.split())


# Seat 3 shows a pair of nines (the best board, S6); seat 1 holds the best hand.
HANDS = [
    hand(1, "As Ad Ah", "2c 7d Tc Kh"),
    hand(2, "3c 3d 4h", "5s 8d Jc Qh"),
    hand(3, "6c 6d 4c", "9s 9d 2d 3s"),
]


DRAW_HANDS = [
    pb.SeatHand(seat=1, cards=["As", "Ad", "Ah", "Kc", "Kd"]),
    pb.SeatHand(seat=2, cards=["7c", "8d", "9h", "Ts", "Jc"]),
]


def settle(**fields: object) -> pb.SettleRequest:
    request = pb.SettleRequest(
        config=STUD,
        hands=HANDS,
        pots=[common.Pot(amount=3_000, eligible_seats=[1, 2])],
        all_show=True,
        best_board_first=True,
    )
    for name, value in fields.items():
        if isinstance(value, common.GameConfig):
            getattr(request, name).CopyFrom(value)
        elif isinstance(value, list):
            del getattr(request, name)[:]
            getattr(request, name).extend(value)
        else:
            setattr(request, name, value)
    return request


def test_the_best_board_shows_first_when_the_betting_closed_early__S12_S6(
    showdown: ShowdownStub,
) -> None:
    reply = showdown.Settle(settle(), timeout=5)
    assert list(reply.show_order) == [3, 1, 2]  # the pair of nines, then clockwise
    assert sorted(reply.shown_seats) == [1, 2, 3] and not reply.mucked_seats  # all show
    assert [(a.seat, a.amount) for a in reply.awards] == [(1, 3_000)]  # cards speak (G3)


def test_a_board_tie_goes_to_the_player_nearest_the_dealers_left__S6(
    showdown: ShowdownStub,
) -> None:
    tied = [
        hand(1, "As Ad Ah", "9c 9h 2h 3h"),
        hand(2, "3c 3d 4h", "5s 8d Jc Qh"),
        hand(3, "6c 6d 4c", "9s 9d 2d 3s"),
    ]
    request = settle()
    del request.hands[:]
    request.hands.extend(tied)
    assert list(showdown.Settle(request, timeout=5).show_order) == [1, 2, 3]


@pytest.mark.parametrize(
    ("why", "fields"),
    [
        ("a draw game", {"config": DRAW, "hands": DRAW_HANDS}),
        ("a first seat as well", {"first_to_show_seat": 2}),
        ("without all_show", {"all_show": False}),
    ],
)
def test_best_board_first_is_refused_where_it_does_not_apply__S6(
    showdown: ShowdownStub, why: str, fields: dict[str, object]
) -> None:
    with pytest.raises(grpc.RpcError) as info:
        showdown.Settle(settle(**fields), timeout=5)
    error = info.value
    assert isinstance(error, grpc.Call)
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT, why
    assert "best_board_first" in (error.details() or ""), why


def test_upcards_must_be_four_of_the_players_own_cards__S6(showdown: ShowdownStub) -> None:
    for upcards, words in ((["9s", "9d", "2d"], "upcards"), (["9s", "9d", "2d", "Kc"], "one of")):
        request = settle()
        del request.hands[2].upcards[:]
        request.hands[2].upcards.extend(upcards)
        with pytest.raises(grpc.RpcError) as info:
            showdown.Settle(request, timeout=5)
        error = info.value
        assert isinstance(error, grpc.Call)
        assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert words in (error.details() or "")
