"""What the lobby service tests share: stubs' helpers that check the ledger's
invariant after every call that moves money, and the shorthands of a table's
life (create, next hand, finish).

After every step that moves money the ledger's invariant is checked through
GetLedgerTotals: ``granted == balances + at_tables``, and the ledger's own sums
agree with the balances and the stacks.  Every test runs on both stores (the
``lobby_db`` fixture of conftest.py: SQLite in memory and PostgreSQL).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import grpc
import pytest

from poker.common.v1 import common_pb2 as common
from poker.lobby.v1 import lobby_pb2 as pb
from poker.lobby.v1.lobby_pb2_grpc import LobbyOperatorStub
from tests.support.lobby import LobbyClient

STUD = common.GameConfig(game=common.GAME_STUD, ante=25, bring_in=50, small_bet=100, big_bet=200)
DRAW = common.GameConfig(game=common.GAME_DRAW_7A, small_bet=100, big_bet=200)  # blinds 50/100
INVALID = grpc.StatusCode.INVALID_ARGUMENT
FAILED = grpc.StatusCode.FAILED_PRECONDITION


def code_of(call: Callable[[], Any]) -> grpc.StatusCode:
    with pytest.raises(grpc.RpcError) as info:
        call()
    error = info.value
    assert isinstance(error, grpc.Call)
    assert error.details(), "every refusal says why"
    return error.code()


def assert_invariant(lobby: LobbyOperatorStub) -> pb.LedgerTotals:
    t = lobby.GetLedgerTotals(pb.GetLedgerTotalsRequest(), timeout=5)
    assert t.granted == t.balances + t.at_tables, t
    assert (t.ledger_balances, t.ledger_tables) == (t.balances, t.at_tables), t
    return t


class Player:
    """A registered player: id and token, and calls made on their behalf."""

    def __init__(self, lobby: LobbyClient, name: str, balance: int = 0) -> None:
        reply = lobby.RegisterPlayer(
            pb.RegisterPlayerRequest(name=name, initial_balance=balance), timeout=5
        )
        self.lobby, self.id, self.token = lobby, reply.player.player_id, reply.token
        self.name = name

    def get(self) -> pb.Player:
        return self.lobby.GetPlayer(pb.GetPlayerRequest(player_id=self.id, token=self.token))

    def sit(
        self, table_id: str, buy_in: int, seat: int = 0, wait: bool = False
    ) -> pb.SitDownResponse:
        reply: pb.SitDownResponse = self.lobby.SitDown(
            pb.SitDownRequest(
                player_id=self.id,
                token=self.token,
                table_id=table_id,
                seat=seat,
                buy_in=buy_in,
                wait_for_big_blind=wait,
            ),
            timeout=5,
        )
        assert_invariant(self.lobby)
        return reply

    def stand(self, table_id: str) -> pb.StandUpResponse:
        reply: pb.StandUpResponse = self.lobby.StandUp(
            pb.StandUpRequest(player_id=self.id, token=self.token, table_id=table_id), timeout=5
        )
        assert_invariant(self.lobby)
        return reply


def players(lobby: LobbyClient, *names: str) -> list[Player]:
    """A registered player for each name, in order."""
    return [Player(lobby, name) for name in names]


def create(lobby: LobbyClient, config: common.GameConfig = STUD, **fields: Any) -> pb.Table:
    request = pb.CreateTableRequest(
        name=fields.pop("name", "table"),
        config=config,
        seats=fields.pop("seats", 8 if config.game != common.GAME_DRAW_7A else 5),
        min_buy_in=fields.pop("min_buy_in", 1000),
        **fields,
    )
    table: pb.Table = lobby.CreateTable(request, timeout=5)
    return table


def table_of(lobby: LobbyClient, table_id: str) -> pb.Table:
    table: pb.Table = lobby.GetTable(pb.GetTableRequest(table_id=table_id), timeout=5)
    return table


def stacks(lobby: LobbyClient, table_id: str) -> dict[int, int]:
    return {s.seat: s.stack for s in table_of(lobby, table_id).occupied}


def next_hand(lobby: LobbyClient, table_id: str) -> pb.NextHandResponse:
    reply: pb.NextHandResponse = lobby.NextHand(pb.NextHandRequest(table_id=table_id), timeout=5)
    return reply


def finish(
    lobby: LobbyClient,
    table_id: str,
    hand: pb.NextHandResponse,
    final: dict[int, int] | None = None,
) -> pb.FinishHandResponse:
    """Finish with ``final`` stacks by seat (default: unchanged)."""
    final = final or {s.seat: s.stack for s in hand.dealt_in}
    reply: pb.FinishHandResponse = lobby.FinishHand(
        pb.FinishHandRequest(
            table_id=table_id,
            hand_id=hand.hand_id,
            final_stacks=[pb.SeatInfo(seat=s, stack=c) for s, c in final.items()],
        ),
        timeout=5,
    )
    assert_invariant(lobby)
    return reply


def moved(hand: pb.NextHandResponse, winner: int, loser: int, chips: int) -> dict[int, int]:
    """The hand's starting stacks with ``chips`` moved from seat loser to seat winner."""
    final = {s.seat: s.stack for s in hand.dealt_in}
    final[winner] += chips
    final[loser] -= chips
    return final


def posts(hand: pb.NextHandResponse) -> list[tuple[int, int, bool]]:
    return [(p.seat, p.amount, p.live) for p in hand.posts]
