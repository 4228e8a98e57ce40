"""A table no table service runs any more still has its hands read (T1, G4a).

A tournament table that was broken, or whose tournament is over, leaves the
lobby's listing and every shard stops running it; the gateway sends its
GetHandHistory and GetDeckProof to any shard, which may never have run it (or
was restarted since).  ``TableManager.get_played`` then reads it from the lobby,
which stores every hand (``ClosedTable``): a player's history does not end with
their tournament.
"""

from __future__ import annotations

import asyncio
import zlib
from typing import Any

import grpc
import pytest

from poker.lobby.v1 import lobby_pb2 as lpb
from service_kit.errors import NotFoundError
from services.table.clients import DownstreamError
from services.table.servicer import ClosedTable, TableManager


class Lobby:
    """The lobby as the table manager sees it: its listing, its tables, its hands."""

    def __init__(self, listed: set[str], known: set[str]) -> None:
        self.listed = listed
        self.known = known
        self.asked: list[tuple[str, str]] = []

    async def call(self, service: str, method: str, request: Any) -> Any:
        self.asked.append((method, getattr(request, "table_id", "")))
        if method == "ListTables":
            return lpb.ListTablesResponse(tables=[lpb.Table(table_id=t) for t in self.listed])
        if method == "GetTable":
            if request.table_id not in self.known:
                raise DownstreamError(grpc.StatusCode.NOT_FOUND, f"no table {request.table_id}")
            return lpb.Table(table_id=request.table_id, tournament_id="tn-1")
        if method == "GetHandHistories":
            return lpb.GetHandHistoriesResponse()
        raise AssertionError(f"not asked here: {method}")


def manager(lobby: Lobby) -> TableManager:
    # Shard 1 of 2 runs no table in these tests: every listed id below is shard 0's.
    return TableManager(
        lobby,  # type: ignore[arg-type]
        discovery_s=1.0,
        idle_poll_s=1.0,
        hand_pause_s=0.0,
        history_hands=10,
        shard=1,
        shards=2,
    )


def others(ids: list[str]) -> list[str]:
    """Table ids that shard 1 of 2 does not run (crc32 % 2 == 0)."""
    return [t for t in ids if zlib.crc32(t.encode()) % 2 == 0]


def test_a_table_the_lobby_no_longer_lists_is_read_from_the_lobby__T1() -> None:  # noqa: N802
    async def scenario() -> None:
        done, live = others([f"t-{i}" for i in range(40)])[:2]
        lobby = Lobby(listed={live}, known={done, live})
        tables = manager(lobby)
        closed = await tables.get_played(done)
        assert isinstance(closed, ClosedTable) and closed.table_id == done
        assert await closed.histories(None, "", 20) == []
        assert ("GetHandHistories", done) in lobby.asked
        assert await tables.get_played(done) is closed  # kept, not asked again
        # A table another shard runs is not read here: the caller goes there.
        with pytest.raises(NotFoundError, match="run here"):
            await tables.get_played(live)
        # An id the lobby does not know is NOT_FOUND.
        with pytest.raises(NotFoundError):
            await tables.get_played("t-nope")
        assert not tables.tables  # nothing was started to answer

    asyncio.run(scenario())


class Ended:
    """A spectator's stream as the table's audience sees it: how it was ended."""

    def __init__(self) -> None:
        self.ended: list[tuple[grpc.StatusCode, str]] = []

    def end(self, code: grpc.StatusCode, message: str) -> None:
        self.ended.append((code, message))


def test_a_broken_tournament_table_ends_its_streams_with_not_found__T3(  # noqa: N802
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Not UNAVAILABLE "the table service is shutting down" (an outside probe, 2026-12-06):
    that tells every client to come back, and each came back to wait 3 s for the
    NOT_FOUND a new call there gets.  A process that stops still says UNAVAILABLE:
    another takes its tables over."""
    from services.table.runtime import TableRuntime

    monkeypatch.setattr(TableRuntime, "start", lambda self: None)  # no hands dealt here

    class Tournament(Lobby):
        async def call(self, service: str, method: str, request: Any) -> Any:
            if method == "ListTables":
                return lpb.ListTablesResponse(
                    tables=[lpb.Table(table_id=t, tournament_id="tn-1") for t in self.listed]
                )
            return await super().call(service, method, request)

        async def close(self) -> None:
            """The manager's stop closes its channels."""

    async def scenario() -> None:
        broken, staying = others([f"tt-{i}" for i in range(40)])[:2]
        lobby = Tournament(listed={broken, staying}, known={broken, staying})
        tables = TableManager(
            lobby,  # type: ignore[arg-type]
            discovery_s=1.0,
            idle_poll_s=1.0,
            hand_pause_s=0.0,
            history_hands=10,
        )
        await tables.refresh()
        watchers = {t: Ended() for t in (broken, staying)}
        for table_id, watcher in watchers.items():
            tables.tables[table_id].viewers.spectators[watcher] = None  # type: ignore[index]
        lobby.listed = {staying}  # T3: broken
        await tables.refresh()
        ((code, message),) = watchers[broken].ended
        assert code == grpc.StatusCode.NOT_FOUND
        assert message.startswith(f"table {broken} was broken or its tournament is over")
        assert not watchers[staying].ended and staying in tables.tables
        await tables.stop()  # the process goes: come back, another runs it
        assert watchers[staying].ended == [
            (grpc.StatusCode.UNAVAILABLE, "the table service is shutting down")
        ]

    asyncio.run(scenario())
