# ruff: noqa: N802  (the fakes' methods are named as the RPCs they serve)
"""What the CLI tests share: the menus and the hand that the play parser and the
texts are tried on, and fake lobby and table servicers for the commands.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import grpc

from poker.common.v1 import common_pb2 as c
from poker.lobby.v1 import lobby_pb2, lobby_pb2_grpc
from poker.table.v1 import table_pb2 as t
from poker.table.v1 import table_pb2_grpc

from .events import (
    STUD,
    action,
    batch,
    dealt,
    finished,
    fixed_menu,
    hand_started,
    seat,
    snapshot,
    your_turn,
)

# Menus and a hand for the play parser and the texts.

FL = fixed_menu(call=100, raise_kind=c.ACTION_KIND_RAISE, to=[200])
NL = c.LegalActions(
    seat=1,
    can_fold=True,
    can_check=True,
    raise_kind=c.ACTION_KIND_BET,
    min_to=100,
    max_to=2_000,
    kinds=[c.ACTION_KIND_FOLD, c.ACTION_KIND_CHECK, c.ACTION_KIND_BET],
)
DRAW = c.LegalActions(seat=1, max_discards=3, kinds=[c.ACTION_KIND_DISCARD])
HAND = ["As", "Kd", "7c", "8h", "9s"]


# The fakes serve only the RPCs a test calls; the generated stubs declare every RPC
# abstract (at run time the base class answers the others UNIMPLEMENTED), hence the
# ``type: ignore[abstract]`` where a fake is made.


class FakeLobby(lobby_pb2_grpc.LobbyServicer, lobby_pb2_grpc.LobbyOperatorServicer):
    """The player plane and the operator's CreateTable (the staff's calls go to the
    internal port; the fake serves both services on one)."""

    def __init__(self) -> None:
        self.deadlines: list[float | None] = []
        self.tokens: list[str] = []  # SitDown's, as received
        self.creators: list[list[bytes]] = []  # CreateTable's callers' SPIFFE ids
        self.internal = ""  # the mutual-TLS port, when the fixture serves one

    def _seen(self, context: Any) -> None:
        self.deadlines.append(context.time_remaining())

    def RegisterPlayer(self, request: Any, context: Any) -> Any:
        self._seen(context)
        player = lobby_pb2.Player(player_id="p-1", name=request.name, balance=10_000)
        return lobby_pb2.RegisterPlayerResponse(player=player, token="tok-1")

    def ListTables(self, request: Any, context: Any) -> Any:
        self._seen(context)
        table = lobby_pb2.Table(table_id="T1", name="main", config=STUD, seats=8, min_buy_in=2_000)
        return lobby_pb2.ListTablesResponse(tables=[table])

    def SitDown(self, request: Any, context: Any) -> Any:
        self._seen(context)
        self.tokens.append(request.token)
        if request.token not in ("tok-1", "-tok-1"):  # an old token may begin with "-"
            context.abort(grpc.StatusCode.PERMISSION_DENIED, "wrong token")
        return lobby_pb2.SitDownResponse(seat=3, stack=request.buy_in, balance=8_000)

    def CreateTable(self, request: Any, context: Any) -> Any:
        self._seen(context)
        self.creators.append(list(context.auth_context().get("peer_spiffe_id", [])))
        return lobby_pb2.Table(table_id="T9", name=request.name, config=request.config, seats=5)

    def GetTable(self, request: Any, context: Any) -> Any:
        self._seen(context)
        occupied = [
            lobby_pb2.SeatInfo(seat=1, player_id="p1", name="P1", stack=1_000),
            lobby_pb2.SeatInfo(seat=2, player_id="p2", name="P2", stack=1_000),
        ]
        return lobby_pb2.Table(
            table_id=request.table_id, config=STUD, seats=8, min_buy_in=2_000, occupied=occupied
        )


class FakeWatch(table_pb2_grpc.TableServiceServicer):
    def Watch(self, request: Any, context: Any) -> Iterator[t.TableEvent]:
        yield snapshot(STUD, 0, [seat(1), seat(2)], hand="")
        yield hand_started([seat(1), seat(2)])
        yield dealt(1, ["Kd"], up=True)
        yield finished({1: 1_000, 2: 1_000})
        yield hand_started([seat(1), seat(2)])  # not printed: --hands 1


class FakePlay(table_pb2_grpc.TableServiceServicer):
    """A sync Play: one turn (check or bet), then the hand ends."""

    def __init__(self) -> None:
        self.messages: list[t.PlayerMessage] = []

    def Play(self, request_iterator: Iterator[t.PlayerMessage], context: Any) -> Any:
        self.messages.append(next(request_iterator))
        menu = fixed_menu(2, check=True, raise_kind=c.ACTION_KIND_BET, to=[100])
        yield batch(snapshot(STUD, 2, [seat(1), seat(2)]), hand_started([seat(1), seat(2)]))
        yield batch(dealt(2, ["As", "Ad"]), your_turn(menu, 4))
        self.messages.append(next(request_iterator))
        yield batch(action(2, c.ACTION_KIND_CHECK, stack=1_000), finished({1: 900, 2: 1_100}))
        context.abort(grpc.StatusCode.UNAVAILABLE, "table went away")  # hands=1: never seen
