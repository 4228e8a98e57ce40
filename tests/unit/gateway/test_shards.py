"""The shard map: learned from the shards, a moved table found again."""

from __future__ import annotations

import asyncio
from typing import Any

import grpc
import pytest

from poker.table.v1 import table_pb2 as tpb
from service_kit.errors import InvalidArgumentError, NotFoundError
from services.gateway.shards import ShardMap


class Shard:
    def __init__(self, *tables: str) -> None:
        self.tables = list(tables)
        self.down = False
        self.asked = 0

    async def ListTables(self, request: Any, timeout: float) -> tpb.ListTablesResponse:  # noqa: N802
        self.asked += 1
        if self.down:
            raise grpc.aio.AioRpcError(
                grpc.StatusCode.UNAVAILABLE, grpc.aio.Metadata(), grpc.aio.Metadata(), "down"
            )
        return tpb.ListTablesResponse(tables=[tpb.TableSummary(table_id=t) for t in self.tables])


def test_tables_are_found_on_the_shard_that_lists_them_and_followed_when_they_move() -> None:
    async def scenario() -> None:
        shards = [Shard("t-a"), Shard("t-b", "t-c"), Shard()]
        known = {"t-a", "t-b", "t-c", "t-new"}

        async def exists(table_id: str) -> bool:
            return table_id in known

        room = ShardMap(shards, refresh_s=0.01, exists=exists)  # type: ignore[arg-type]
        assert await room.shard_of("t-c") == 1
        assert await room.shard_of("t-a") == 0
        with pytest.raises(NotFoundError):
            await room.shard_of("t-nope")
        # t-c moves to shard 2: the old shard said it does not run it.
        shards[1].tables.remove("t-c")
        shards[2].tables.append("t-c")
        room.moved("t-c")
        assert await room.shard_of("t-c") == 2
        # A shard that does not answer keeps its tables in the map.
        shards[0].down = True
        await room.refresh()
        assert await room.shard_of("t-a") == 0
        assert {t.table_id for t in room.live_tables()} == {"t-a", "t-b", "t-c"}

        # A table the lobby has and a shard starts running a moment later.
        async def later() -> None:
            await asyncio.sleep(0.05)
            shards[2].tables.append("t-new")

        task = asyncio.create_task(later())
        assert await room.shard_of("t-new") == 2
        await task

    asyncio.run(scenario())


def test_concurrent_misses_share_one_listing() -> None:
    async def scenario() -> None:
        shards = [Shard("t-a"), Shard("t-b")]
        room = ShardMap(shards, refresh_s=10)  # type: ignore[arg-type]
        found = await asyncio.gather(*(room.shard_of("t-b") for _ in range(50)))
        assert found == [1] * 50
        assert all(shard.asked == 1 for shard in shards)

    asyncio.run(scenario())


def test_an_id_no_table_could_have_is_invalid_before_anyone_is_asked() -> None:
    """An empty table id, or one past the room's 64 characters, is INVALID_ARGUMENT
    from the door itself: neither the shards nor the lobby are asked."""

    async def scenario() -> None:
        shard = Shard("t-a")
        asked: list[str] = []

        async def exists(table_id: str) -> bool:
            asked.append(table_id)
            return False

        room = ShardMap([shard], refresh_s=60.0, exists=exists)  # type: ignore[list-item]
        for bad, says in (("", "required"), ("t" * 65, "at most 64"), ("t\n", "printable")):
            with pytest.raises(InvalidArgumentError) as error:
                await room.shard_of(bad)
            assert "table_id" in error.value.message and says in error.value.message
        assert asked == [] and shard.asked == 0

    asyncio.run(scenario())


def test_a_table_no_shard_runs_any_more_is_read_where_it_last_ran_at_once() -> None:
    """A finished tournament's table (T1): no shard lists it, the lobby still has
    it.  Its hand history and deck proofs (``closed_ok``) go at once to the shard
    that last listed it, or to a shard at all when none did; a call that would
    play there still waits for it and then says what the table may be."""

    async def scenario() -> None:
        shards = [Shard(), Shard("t-done"), Shard()]
        known = {"t-done", "t-old"}

        async def exists(table_id: str) -> bool:
            return table_id in known

        room = ShardMap(shards, refresh_s=0.01, exists=exists)  # type: ignore[arg-type]
        assert await room.shard_of("t-done") == 1
        shards[1].tables.clear()  # its tournament is over
        await room.refresh()
        started = asyncio.get_running_loop().time()
        assert await room.shard_of("t-done", closed_ok=True) == 1
        # Finished before any gateway saw it run: a shard, whichever.
        assert await room.shard_of("t-old", closed_ok=True) in (0, 1, 2)
        assert asyncio.get_running_loop().time() - started < 1.0  # no wait for it to appear
        with pytest.raises(NotFoundError, match="no table"):
            await room.shard_of("t-nope", closed_ok=True)
        with pytest.raises(NotFoundError, match="tournament is over"):
            await room.shard_of("t-done")

    asyncio.run(scenario())
