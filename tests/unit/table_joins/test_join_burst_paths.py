"""The table service's join path under a burst (issue 19, point 5), in process
over a scripted lobby: every Join that arrives before a fresh process knows its
tables waits for one listing, not one each; a lobby that does not answer a token
check in time makes the Join UNAVAILABLE (the SDK retries it), never INTERNAL;
past MAX_CHECKS_WAITING checks at once a Join is RESOURCE_EXHAUSTED, saying when
to come back; and a process shutting down tells a Join to come back."""

from __future__ import annotations

import asyncio
from typing import Any

import grpc
import pytest

from poker.lobby.v1 import lobby_pb2 as lpb
from service_kit.errors import NotFoundError, ResourceExhaustedError, status_of
from services.table import servicer as table_servicer
from services.table.clients import DownstreamError
from services.table.servicer import TableManager, TableServicer, UnavailableError


class ScriptedLobby:
    """The table's downstream, answering the lobby's ListTables and Authenticate."""

    deadline = 2.0

    def __init__(self, auth_failure: grpc.StatusCode | None = None) -> None:
        self.calls: list[str] = []
        self.auth_failure = auth_failure
        self.listed = asyncio.Event()  # ListTables answers once it is set
        self.checked = asyncio.Event()  # Authenticate answers once it is set
        self.checked.set()

    async def call(self, service: str, method: str, request: Any) -> Any:
        self.calls.append(method)
        if method == "ListTables":
            await self.listed.wait()
            return lpb.ListTablesResponse()
        if method == "Authenticate":
            await self.checked.wait()
            if self.auth_failure is not None:
                raise DownstreamError(self.auth_failure, "no answer in time")
            return lpb.AuthenticateResponse()
        raise AssertionError(f"unexpected call {method}")

    async def close(self) -> None:
        pass


def _manager(lobby: ScriptedLobby) -> TableManager:
    return TableManager(
        lobby,  # type: ignore[arg-type]  # the downstream's one method the joins use
        discovery_s=3600,
        idle_poll_s=0.1,
        hand_pause_s=0,
        history_hands=10,
    )


def test_joins_before_the_tables_are_known_share_one_listing() -> None:
    async def body() -> None:
        lobby = ScriptedLobby()
        manager = _manager(lobby)
        joins = [asyncio.ensure_future(manager.get(f"t-{n % 7}")) for n in range(500)]
        await asyncio.sleep(0.05)
        lobby.listed.set()
        outcomes = await asyncio.gather(*joins, return_exceptions=True)
        assert all(isinstance(o, NotFoundError) for o in outcomes)  # each: no such table
        assert lobby.calls == ["ListTables"]

    asyncio.run(body())


@pytest.mark.parametrize(
    "code",
    [grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED],
)
def test_a_lobby_that_does_not_answer_makes_the_join_unavailable(code: grpc.StatusCode) -> None:
    async def body() -> None:
        servicer = TableServicer(_manager(ScriptedLobby(code)), allow_presets=False, audit_token="")
        with pytest.raises(UnavailableError, match="join again"):
            await servicer._authenticate("p-1", "token", "t-1")
        assert servicer.checks_waiting == 0

    asyncio.run(body())


def test_a_refusal_of_the_player_is_still_the_lobbys() -> None:
    async def body() -> None:
        lobby = ScriptedLobby(grpc.StatusCode.PERMISSION_DENIED)
        servicer = TableServicer(_manager(lobby), allow_presets=False, audit_token="")
        with pytest.raises(Exception) as info:
            await servicer._authenticate("p-1", "token", "t-1")
        assert status_of(info.value, {}) == (grpc.StatusCode.PERMISSION_DENIED, "no answer in time")

    asyncio.run(body())


def test_past_the_queue_limit_a_join_is_told_when_to_come_back(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(table_servicer, "MAX_CHECKS_WAITING", 3)

    async def body() -> None:
        lobby = ScriptedLobby()
        lobby.checked.clear()  # the lobby is slow: the checks queue
        servicer = TableServicer(_manager(lobby), allow_presets=False, audit_token="")
        waiting = [
            asyncio.ensure_future(servicer._authenticate(f"p-{n}", "token", "t-1"))
            for n in range(3)
        ]
        await asyncio.sleep(0.01)
        with pytest.raises(ResourceExhaustedError, match="join again in a few seconds"):
            await servicer._authenticate("p-9", "token", "t-1")
        lobby.checked.set()
        await asyncio.gather(*waiting)  # the queued ones get in
        assert servicer.checks_waiting == 0

    asyncio.run(body())


def test_a_join_while_the_process_shuts_down_is_told_to_come_back() -> None:
    async def body() -> None:
        lobby = ScriptedLobby()
        manager = _manager(lobby)
        waiting = asyncio.ensure_future(manager.get("t-1"))  # a listing in flight
        await asyncio.sleep(0.01)
        await manager.stop()
        with pytest.raises(UnavailableError, match="shutting down"):
            await waiting
        with pytest.raises(UnavailableError, match="shutting down"):
            await manager.get("t-1")

    asyncio.run(body())
