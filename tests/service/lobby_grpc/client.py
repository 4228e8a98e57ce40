"""Scripted players and table-service calls against a real lobby process (gRPC).

The ring-game tests drive the lobby the way the table service and the players do:
players SitDown / StandUp / SitOut / SitIn / SetAutoPost / ImIn, and the "table"
(the test) asks NextHand and reports FinishHand with made-up final stacks that
conserve the chips dealt in.  No table service is needed for that; the hand
history test (``test_history``) runs the whole room.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any, TypedDict

from devroom.launcher import ServiceProcess
from poker.common.v1 import common_pb2 as common
from poker.lobby.v1 import lobby_pb2 as pb
from tests.support.lobby import LobbyClient, lobby_client

# 7-A draw, small bet 100: blinds 50/100 (D3); stud: ante 25, bring-in 50.
DRAW = common.GameConfig(game=common.GAME_DRAW_7A, small_bet=100, big_bet=200)
STUD = common.GameConfig(game=common.GAME_STUD, ante=25, bring_in=50, small_bet=100, big_bet=200)
SB, BB, ANTE = 50, 100, 25
BUY_IN = 1_000


class Auth(TypedDict):
    """A player's credentials at a table, as keyword arguments of a request: typed per
    field so that ``Request(**auth)`` is checked against the request's fields."""

    player_id: str
    token: str
    table_id: str


@contextmanager
def lobby_stub(
    env: Mapping[str, str] | None = None,
) -> Iterator[tuple[ServiceProcess, LobbyClient]]:
    """A lobby process (``devroom.launcher``) and a client of it: the hand protocol
    as the ``table``, the rest as the ``operator`` (``tests.support.lobby``)."""
    settings = {"LOBBY_DEFAULT_BALANCE": "100000", **(env or {})}
    with ServiceProcess("lobby", settings) as process, lobby_client(process) as lobby:
        yield process, lobby


def create_table(lobby: LobbyClient, config: common.GameConfig = DRAW, **fields: Any) -> pb.Table:
    request = pb.CreateTableRequest(
        name=fields.pop("name", "ring"),
        config=config,
        seats=fields.pop("seats", 5 if config.game == common.GAME_DRAW_7A else 8),
        min_buy_in=fields.pop("min_buy_in", 500),
        **fields,
    )
    table: pb.Table = lobby.CreateTable(request, timeout=5)
    return table


def get_table(lobby: LobbyClient, table_id: str) -> pb.Table:
    table: pb.Table = lobby.GetTable(pb.GetTableRequest(table_id=table_id), timeout=5)
    return table


def seat_info(lobby: LobbyClient, table_id: str, seat: int) -> pb.SeatInfo:
    for info in get_table(lobby, table_id).occupied:
        if info.seat == seat:
            return info
    raise AssertionError(f"seat {seat} is empty")


class Player:
    """A registered player; every call is made with their id and token."""

    def __init__(self, lobby: LobbyClient, name: str, balance: int = 0) -> None:
        reply = lobby.RegisterPlayer(
            pb.RegisterPlayerRequest(name=name, initial_balance=balance), timeout=5
        )
        self.lobby = lobby
        self.id: str = reply.player.player_id
        self.token: str = reply.token
        self.name = name
        self.table_id = ""
        self.seat = 0

    def auth(self) -> Auth:
        return {"player_id": self.id, "token": self.token, "table_id": self.table_id}

    def get(self) -> pb.Player:
        reply: pb.Player = self.lobby.GetPlayer(
            pb.GetPlayerRequest(player_id=self.id, token=self.token), timeout=5
        )
        return reply

    def sit(
        self,
        table_id: str,
        seat: int,
        buy_in: int = BUY_IN,
        entry: pb.Entry.ValueType = pb.ENTRY_POST_NOW,
    ) -> pb.SitDownResponse:
        reply: pb.SitDownResponse = self.lobby.SitDown(
            pb.SitDownRequest(
                player_id=self.id,
                token=self.token,
                table_id=table_id,
                seat=seat,
                buy_in=buy_in,
                entry=entry,
            ),
            timeout=5,
        )
        self.table_id, self.seat = table_id, reply.seat
        return reply

    def stand(self) -> pb.StandUpResponse:
        reply: pb.StandUpResponse = self.lobby.StandUp(pb.StandUpRequest(**self.auth()), timeout=5)
        return reply

    def sit_out(self) -> pb.SeatInfo:
        reply = self.lobby.SitOut(pb.SitOutRequest(**self.auth()), timeout=5)
        seat: pb.SeatInfo = reply.seat
        return seat

    def sit_in(self, choice: pb.ReturnChoice.ValueType = pb.RETURN_CHOICE_POST) -> pb.SeatInfo:
        reply = self.lobby.SitIn(pb.SitInRequest(**self.auth(), return_choice=choice), timeout=5)
        seat: pb.SeatInfo = reply.seat
        return seat

    def auto_post(self, on: bool) -> pb.SeatInfo:
        reply = self.lobby.SetAutoPost(
            pb.SetAutoPostRequest(**self.auth(), auto_post=on), timeout=5
        )
        seat: pb.SeatInfo = reply.seat
        return seat

    def im_in(self) -> pb.SeatInfo:
        reply = self.lobby.ImIn(pb.ImInRequest(**self.auth()), timeout=5)
        seat: pb.SeatInfo = reply.seat
        return seat


def next_hand(lobby: LobbyClient, table_id: str) -> pb.NextHandResponse:
    reply: pb.NextHandResponse = lobby.NextHand(pb.NextHandRequest(table_id=table_id), timeout=5)
    return reply


def finish(
    lobby: LobbyClient,
    table_id: str,
    hand: pb.NextHandResponse,
    final: Mapping[int, int] | None = None,
    *,
    plan_next: bool = False,
) -> pb.FinishHandResponse:
    """Report the hand with ``final`` stacks by seat (default: as dealt in)."""
    stacks = dict(final) if final is not None else {s.seat: s.stack for s in hand.dealt_in}
    reply: pb.FinishHandResponse = lobby.FinishHand(
        pb.FinishHandRequest(
            table_id=table_id,
            hand_id=hand.hand_id,
            final_stacks=[pb.SeatInfo(seat=s, stack=c) for s, c in stacks.items()],
            plan_next=plan_next,
        ),
        timeout=5,
    )
    return reply


def play(lobby: LobbyClient, table_id: str) -> pb.NextHandResponse:
    """Plan a hand and finish it with the stacks unchanged; returns the plan."""
    hand = next_hand(lobby, table_id)
    assert hand.play, "two or more players should be dealt in"
    finish(lobby, table_id, hand)
    return hand


def dealt(hand: pb.NextHandResponse) -> list[int]:
    return [s.seat for s in hand.dealt_in]


def posts(hand: pb.NextHandResponse) -> list[tuple[int, int, bool]]:
    """(seat, amount, live) of every blind and dead post, in the plan's order."""
    return [(p.seat, p.amount, p.live) for p in hand.posts]


def positions(hand: pb.NextHandResponse) -> tuple[int, int, int]:
    """(button, small blind, big blind) seats; 0 = none."""
    return hand.button_seat, hand.small_blind_seat, hand.big_blind_seat
