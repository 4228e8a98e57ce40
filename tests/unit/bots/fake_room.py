# ruff: noqa: N802  (the fake's methods are named as the RPCs they serve)
"""A fake room's door (``poker.room.v1.Room``, grpc.aio on 127.0.0.1:0) for the SDK's
lobby and rebuy tests: ``Play`` is a :class:`~.fake_table.FakeTable`'s scripted
stream; the lobby calls keep one table's seats.

What it checks as the gateway and the lobby do: every call that acts for a player
carries ``authorization: Bearer <player_id>.<token>`` with a known token
(UNAUTHENTICATED otherwise), a table other than ``t1`` is NOT_FOUND, a player sits
at most once (FAILED_PRECONDITION).  What it can be told to do: answer a StandUp
``pending`` and keep the player seated for ``pending_reads`` more GetTables (a hand
the lobby has not recorded as finished yet), refuse SitDowns, or answer the first
``unavailable_reads`` reads UNAVAILABLE.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import grpc
from grpc import aio

from poker.lobby.v1 import lobby_pb2
from poker.room.v1 import room_pb2, room_pb2_grpc
from poker.table.v1 import table_pb2 as t

from .events import STUD
from .fake_table import FakeTable, tls_credentials

TOKENS = {"p2": "secret", "p9": "nine"}
NO_TABLE = "no table {!r}; ListTables shows the room's tables"


class FakeRoom(room_pb2_grpc.RoomServicer):
    def __init__(
        self,
        table: FakeTable | None = None,
        *,
        pending_reads: int = 0,
        sit_refusal: tuple[grpc.StatusCode, str] | None = None,
        stand_refusal: str = "",
        unavailable_reads: int = 0,
        balance: int = 10_000,
    ) -> None:
        self.table = table
        self.pending_reads = pending_reads
        self.sit_refusal = sit_refusal
        self.stand_refusal = stand_refusal  # StandUp's FAILED_PRECONDITION, seated or not
        self.unavailable_reads = unavailable_reads
        self.balances = {player: balance for player in TOKENS}
        self.seats: dict[str, lobby_pb2.SeatInfo] = {
            "p1": lobby_pb2.SeatInfo(seat=1, player_id="p1", name="P1", stack=1_000),
            "p2": lobby_pb2.SeatInfo(seat=2, player_id="p2", name="P2", stack=0),
        }
        self.leaving: str = ""  # a pending stand-up's player
        self.calls: list[tuple[str, str]] = []  # (method, bearer)
        self.sat = asyncio.Event()  # set at every successful SitDown

    # ------------------------------------------------------------ who calls

    async def _player(self, method: str, context: Any) -> str:
        value = str(dict(context.invocation_metadata()).get("authorization", ""))
        bearer = value.removeprefix("Bearer ")
        self.calls.append((method, bearer))
        player_id, _, token = bearer.rpartition(".")
        if not value.startswith("Bearer ") or TOKENS.get(player_id) != token:
            await context.abort(grpc.StatusCode.UNAUTHENTICATED, "the credential was not accepted")
        return player_id

    async def _read(self, method: str, context: Any, *, record: bool = True) -> None:
        if record:
            self.calls.append((method, ""))
        if self.unavailable_reads:
            self.unavailable_reads -= 1
            await context.abort(grpc.StatusCode.UNAVAILABLE, "the door is restarting")

    async def _table_id(self, table_id: str, context: Any) -> None:
        if table_id != "t1":
            await context.abort(grpc.StatusCode.NOT_FOUND, NO_TABLE.format(table_id))

    def _table(self) -> lobby_pb2.Table:
        return lobby_pb2.Table(
            table_id="t1",
            name="fake",
            config=STUD,
            seats=8,
            min_buy_in=200,
            max_buy_in=5_000,
            occupied=sorted(self.seats.values(), key=lambda s: s.seat),
        )

    # ------------------------------------------------------------ account

    async def Register(self, request: Any, context: Any) -> room_pb2.RegisterResponse:
        self.calls.append(("Register", ""))
        player = lobby_pb2.Player(player_id="p9", name=request.name, balance=10_000)
        return room_pb2.RegisterResponse(player=player, credential="p9.nine")

    async def GetMe(self, request: Any, context: Any) -> lobby_pb2.Player:
        player_id = await self._player("GetMe", context)
        await self._read("GetMe", context, record=False)
        return lobby_pb2.Player(
            player_id=player_id, name=player_id.upper(), balance=self.balances[player_id]
        )

    # ------------------------------------------------------------ tables and seats

    async def ListTables(self, request: Any, context: Any) -> lobby_pb2.ListTablesResponse:
        await self._read("ListTables", context)
        return lobby_pb2.ListTablesResponse(tables=[self._table()])

    async def GetTable(self, request: Any, context: Any) -> lobby_pb2.Table:
        await self._read("GetTable", context)
        await self._table_id(request.table_id, context)
        if self.leaving:
            if self.pending_reads:
                self.pending_reads -= 1
            else:  # the hand is recorded: the pending stand-up completes
                self.seats.pop(self.leaving, None)
                self.leaving = ""
        return self._table()

    async def StandUp(self, request: Any, context: Any) -> lobby_pb2.StandUpResponse:
        player_id = await self._player("StandUp", context)
        await self._table_id(request.table_id, context)
        seat = self.seats.get(player_id)
        if seat is None or self.stand_refusal:
            message = self.stand_refusal or "you are not seated at t1"
            await context.abort(grpc.StatusCode.FAILED_PRECONDITION, message)
            raise AssertionError("abort raises")
        if self.pending_reads:
            self.leaving = player_id
            return lobby_pb2.StandUpResponse(pending=True, balance=self.balances[player_id])
        del self.seats[player_id]
        self.balances[player_id] += seat.stack
        return lobby_pb2.StandUpResponse(returned=seat.stack, balance=self.balances[player_id])

    async def SitDown(self, request: Any, context: Any) -> lobby_pb2.SitDownResponse:
        player_id = await self._player("SitDown", context)
        await self._table_id(request.table_id, context)
        if self.sit_refusal is not None:
            await context.abort(*self.sit_refusal)
        if player_id in self.seats:
            await context.abort(grpc.StatusCode.FAILED_PRECONDITION, "you already sit at t1")
        taken = {s.seat for s in self.seats.values()}
        seat = request.seat or min(n for n in range(1, 9) if n not in taken)
        self.balances[player_id] -= request.buy_in
        self.seats[player_id] = lobby_pb2.SeatInfo(
            seat=seat, player_id=player_id, name=player_id.upper(), stack=request.buy_in
        )
        self.sat.set()
        return lobby_pb2.SitDownResponse(
            seat=seat, stack=request.buy_in, balance=self.balances[player_id]
        )

    async def SitOut(self, request: Any, context: Any) -> lobby_pb2.SeatStatusResponse:
        player_id = await self._player("SitOut", context)
        seat = lobby_pb2.SeatInfo()
        seat.CopyFrom(self.seats[player_id])
        seat.away = True
        return lobby_pb2.SeatStatusResponse(seat=seat)

    # ------------------------------------------------------------ the table's stream

    async def Play(
        self, request_iterator: AsyncIterator[t.PlayerMessage], context: Any
    ) -> AsyncIterator[t.TableEvent]:
        await self._player("Play", context)
        assert self.table is not None, "this test's room has no table script"
        async for event in self.table.Play(request_iterator, context):
            yield event


def make_room(table: FakeTable | None = None, **options: Any) -> FakeRoom:
    """A FakeRoom.  It serves only the RPCs the SDK's lobby and play call; the
    generated stubs declare every RPC abstract (at run time the base class answers
    the others UNIMPLEMENTED)."""
    return FakeRoom(table, **options)  # type: ignore[abstract]


async def with_room(room: FakeRoom, body: Callable[[str], Awaitable[Any]]) -> Any:
    """Serve ``room`` on a TLS port (the test PKI) while ``body(address)`` runs."""
    server = aio.server()
    room_pb2_grpc.add_RoomServicer_to_server(room, server)
    port = server.add_secure_port("127.0.0.1:0", tls_credentials())
    await server.start()
    try:
        return await asyncio.wait_for(body(f"127.0.0.1:{port}"), 20)
    finally:
        await server.stop(0)
