# ruff: noqa: N802  (test names carry the docs/rules.md rule ID, e.g. test_B5_...)
"""poker_bots.lobby against a fake door (fake_room.py) and a fake staff port: the
calls, the bearer they carry, typed refusals with the room's message, reads retried
on UNAVAILABLE and writes never, a rebuy that waits for a pending stand-up (B5: a
busted seat stays seated until its player stands up), the operator's create_table."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from concurrent import futures
from typing import Any

import grpc
import pytest

from devroom.launcher import shared_pki
from poker.common.v1 import common_pb2 as c
from poker.lobby.v1 import lobby_pb2_grpc
from poker_bots import (
    Credential,
    InvalidRequestError,
    Lobby,
    LobbyError,
    NotFoundError,
    RefusedError,
    UnauthenticatedError,
    UnavailableError,
    create_table,
)
from poker_bots.lobby import DEFAULT_ROOM, lobby_error, room_address
from tests.unit.cli.support import FakeStaffLobby

from .fake_room import FakeRoom, make_room, with_room
from .fake_table import tls_port


def run(
    room: FakeRoom, body: Callable[[Lobby], Awaitable[Any]], credential: str = "p2.secret"
) -> Any:
    async def main(address: str) -> Any:
        async with Lobby(address, credential or None, retry_backoff=0.01) as lobby:
            return await body(lobby)

    return asyncio.run(with_room(room, main))


def test_register_then_the_lobby_acts_for_the_new_player() -> None:
    room = make_room()

    async def body(lobby: Lobby) -> tuple[Credential, int]:
        me = await lobby.register("newcomer")
        return me, await lobby.balance()

    me, balance = run(room, body, credential="")
    assert (me.player_id, me.token, me.name) == ("p9", "nine", "newcomer")
    assert me.credential == "p9.nine" and balance == 10_000
    assert room.calls == [("Register", ""), ("GetMe", "p9.nine")]
    assert "nine" not in repr(me), "the token never shows in a repr (logs)"


def test_sit_stand_and_the_seat() -> None:
    room = make_room()
    del room.seats["p2"]

    async def body(lobby: Lobby) -> tuple[Any, ...]:
        sat = await lobby.sit("t1", 1_000)
        seat = await lobby.seat_at("t1")
        away = await lobby.sit_out("t1")
        stood = await lobby.stand("t1")
        return sat, seat, away, stood, await lobby.seat_at("t1")

    sat, seat, away, stood, after = run(room, body)
    assert (sat.seat, sat.stack, sat.balance) == (2, 1_000, 9_000)
    assert seat is not None and seat.seat == 2 and away.away
    assert (stood.returned, stood.pending, stood.balance) == (1_000, False, 10_000)
    assert after is None
    assert ("SitDown", "p2.secret") in room.calls and ("StandUp", "p2.secret") in room.calls


def test_refusals_are_typed_and_keep_the_rooms_message() -> None:
    async def body(lobby: Lobby) -> list[LobbyError]:
        errors: list[LobbyError] = []
        for call in (
            lambda: lobby.table("t404"),
            lambda: lobby.sit("t1", 1_000),  # p2 sits there already
            lambda: lobby.with_credential("p2.wrong").stand("t1"),
        ):
            with pytest.raises(LobbyError) as info:
                await call()
            errors.append(info.value)
        return errors

    missing, twice, stranger = run(make_room(), body)
    assert isinstance(missing, NotFoundError) and missing.code == grpc.StatusCode.NOT_FOUND
    assert missing.message == "no table 't404'; ListTables shows the room's tables"
    assert missing.call == "GetTable" and "GetTable: NOT_FOUND: no table" in str(missing)
    assert isinstance(twice, RefusedError) and twice.message == "you already sit at t1"
    assert isinstance(stranger, UnauthenticatedError)


def test_a_call_for_a_player_without_a_credential_is_refused_before_it_is_sent() -> None:
    room = make_room()

    async def body(lobby: Lobby) -> None:
        with pytest.raises(UnauthenticatedError, match="register first"):
            await lobby.sit("t1", 1_000)
        assert len(await lobby.tables()) == 1  # a public read needs none

    run(room, body, credential="")
    assert room.calls == [("ListTables", "")]


def test_reads_are_retried_on_unavailable_and_writes_are_not() -> None:
    room = make_room(unavailable_reads=2)

    async def body(lobby: Lobby) -> None:
        assert [t.table_id for t in await lobby.tables()] == ["t1"]
        lobby.read_retries = 1
        room.unavailable_reads = 2
        with pytest.raises(UnavailableError, match="restarting"):
            await lobby.table("t1")

    run(room, body)
    assert [m for m, _ in room.calls] == ["ListTables"] * 3 + ["GetTable"] * 2

    # a write is sent once: SitDown's UNAVAILABLE is the caller's to look into
    refusing = make_room(sit_refusal=(grpc.StatusCode.UNAVAILABLE, "gone"))

    async def write(lobby: Lobby) -> None:
        with pytest.raises(UnavailableError):
            await lobby.sit("t1", 500)

    run(refusing, write)
    assert [m for m, _ in refusing.calls] == ["SitDown"]


def test_B5_rebuy_stands_up_and_sits_down_again() -> None:
    """B5: a seat at 0 chips stays seated until its player stands up; a rebuy is
    StandUp then SitDown with the new buy-in."""
    room = make_room()

    async def body(lobby: Lobby) -> Any:
        return await lobby.rebuy("t1", 800)

    done = run(room, body)
    assert not done.pending and done.waited_s == 0.0
    assert (done.sat.seat, done.sat.stack) == (2, 800)
    assert [m for m, _ in room.calls] == ["StandUp", "SitDown"]


def test_B5_a_rebuy_after_the_room_took_the_seat_just_sits_down() -> None:
    """B5 took the busted seat already (its bust was noticed late, behind a slow
    decision): the StandUp is refused, the table shows the player not seated, so
    the rebuy sits down with the new buy-in instead of failing."""
    room = make_room()
    del room.seats["p2"]

    async def body(lobby: Lobby) -> Any:
        return await lobby.rebuy("t1", 800)

    done = run(room, body)
    assert not done.pending and (done.sat.seat, done.sat.stack) == (2, 800)
    assert [m for m, _ in room.calls] == ["StandUp", "GetTable", "SitDown"]


def test_B5_a_refused_stand_up_while_still_seated_is_raised() -> None:
    """A StandUp refused for another reason while the player is still seated is
    the refusal: no SitDown is tried."""
    room = make_room(stand_refusal="the hand in progress is being recorded")

    async def body(lobby: Lobby) -> None:
        with pytest.raises(RefusedError, match="being recorded"):
            await lobby.rebuy("t1", 800)

    run(room, body)
    assert "SitDown" not in [m for m, _ in room.calls]


def test_B5_rebuy_waits_for_a_pending_stand_up() -> None:
    """The lobby answers the stand-up pending (it has not recorded the hand yet): the
    rebuy reads the table until the seat is free, then sits down."""
    room = make_room(pending_reads=3)

    async def body(lobby: Lobby) -> Any:
        return await lobby.rebuy("t1", 800, poll_s=0.01)

    done = run(room, body)
    assert done.pending and done.waited_s > 0
    assert [m for m, _ in room.calls] == ["StandUp", *["GetTable"] * 4, "SitDown"]


def test_B5_a_stand_up_pending_too_long_is_refused() -> None:
    room = make_room(pending_reads=10_000)

    async def body(lobby: Lobby) -> None:
        with pytest.raises(RefusedError, match="still seated at t1"):
            await lobby.rebuy("t1", 800, settle_timeout=0.1, poll_s=0.01)

    run(room, body)
    assert "SitDown" not in [m for m, _ in room.calls]


def test_S2_a_buy_in_outside_the_range_is_an_invalid_request() -> None:
    """S2: the buy-in is within the table's range; the lobby's INVALID_ARGUMENT is an
    InvalidRequestError with its message."""
    room = make_room(sit_refusal=(grpc.StatusCode.INVALID_ARGUMENT, "buy_in must be 200..5000"))
    del room.seats["p2"]

    async def body(lobby: Lobby) -> None:
        with pytest.raises(InvalidRequestError) as info:
            await lobby.sit("t1", 10)
        assert info.value.message == "buy_in must be 200..5000"

    run(room, body)


def test_credentials_and_the_address(monkeypatch: pytest.MonkeyPatch) -> None:
    assert Credential.parse("p-1.a.b") == Credential("p-1.a", "b")
    with pytest.raises(ValueError, match="player_id"):
        Credential.parse("nodot")
    monkeypatch.setenv("POKER_CREDENTIAL", "p2.secret")
    assert Credential.from_env() == Credential("p2", "secret")
    monkeypatch.delenv("POKER_ROOM", raising=False)
    assert room_address() == DEFAULT_ROOM
    monkeypatch.setenv("POKER_ROOM", "10.0.0.1:443")
    assert room_address() == "10.0.0.1:443"


def test_an_unknown_status_is_a_plain_lobby_error() -> None:
    error = grpc.aio.AioRpcError(
        grpc.StatusCode.INTERNAL, grpc.aio.Metadata(), grpc.aio.Metadata(), "boom"
    )
    mapped = lobby_error(error, "SitDown")
    assert type(mapped) is LobbyError and mapped.code == grpc.StatusCode.INTERNAL


def test_the_operator_creates_a_table_on_the_staff_port() -> None:
    """create_table: mutual TLS to the lobby's internal port with the operator's
    certificate (the room's staff; the Room API has no CreateTable)."""
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    staff = FakeStaffLobby()  # type: ignore[abstract]
    lobby_pb2_grpc.add_LobbyOperatorServicer_to_server(staff, server)
    port = tls_port(server, internal=True)
    server.start()
    try:
        config = c.GameConfig(game=c.GAME_DRAW_7A, structure=c.STRUCTURE_NO_LIMIT, small_bet=20)
        table = asyncio.run(
            create_table(
                config,
                target=f"127.0.0.1:{port}",
                tls_dir=shared_pki().dir("operator"),
                seats=5,
            )
        )
    finally:
        server.stop(0)
    assert table.table_id == "T9" and table.name == "draw 20/40"
    assert staff.callers and any(b"operator" in caller for caller in staff.callers[0])
