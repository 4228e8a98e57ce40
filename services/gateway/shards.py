"""Which table-service shard runs which table, learned from the shards.

The room's tables are spread over table-service replicas (TABLE_SHARD i/n); a
client never computes where a table is.  The gateway asks every shard's
``ListTables`` (the tables that replica runs) every ``GATEWAY_SHARD_REFRESH_S``
and whenever it is asked for a table it does not know; the answers are the
map.  A table that moves (a shard restarted with another count, a replica
replaced) is found again the same way: a shard that answers NOT_FOUND for a
table it was thought to run makes the gateway forget it and ask again
(``moved``).  A shard that does not answer keeps its last known tables, so a
slow shard does not make its tables vanish from the map.

The cost of a refresh is one ListTables per shard, whatever the number of
gateway calls; concurrent misses share one refresh.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import time
import zlib
from collections.abc import Awaitable, Callable, Sequence

import grpc

from poker.table.v1 import table_pb2 as tpb
from poker.table.v1 import table_pb2_grpc as tpb_grpc
from poker_wire import check_id
from poker_wire.errors import WireError
from service_kit.errors import InvalidArgumentError, NotFoundError
from service_kit.logs import get_logger

from .metrics import SHARD_REFRESHES, SHARD_TABLES

# A table the lobby has but no shard lists yet (created a moment ago: the shards
# discover new tables every second): how long a call waits for it to appear.
NEW_TABLE_WAIT_S = 3.0
MIN_MISS_REFRESH_S = 0.1  # misses within this share the last refresh
GONE_TABLES = 4096  # tables no longer listed whose last shard is remembered


class ShardMap:
    """table_id -> the shard (index into the shard channels) that runs it."""

    def __init__(
        self,
        shards: Sequence[tpb_grpc.TableServiceAsyncStub],
        *,
        refresh_s: float,
        exists: Callable[[str], Awaitable[bool]] | None = None,
        timeout_s: float = 2.0,
    ) -> None:
        self._stubs = list(shards)
        self._refresh_s = refresh_s
        self._timeout = timeout_s
        self._exists = exists
        self._where: dict[str, int] = {}
        # Tables a shard listed and no shard lists now (a tournament table broken
        # or its tournament over): where their hands were last, for the readers.
        self._gone: collections.OrderedDict[str, int] = collections.OrderedDict()
        self._listed: list[tpb.ListTablesResponse | None] = [None] * len(self._stubs)
        self._answered: list[float] = [0.0] * len(self._stubs)
        self._refresh: asyncio.Task[None] | None = None
        self._last_refresh = 0.0
        self._task: asyncio.Task[None] | None = None
        self.log = get_logger()

    @property
    def shards(self) -> int:
        return len(self._stubs)

    def stub(self, shard: int) -> tpb_grpc.TableServiceAsyncStub:
        return self._stubs[shard]

    def ready(self) -> bool:
        """Every shard has answered since the start, and one of them lately (within
        three refresh periods).  One shard down does not take the door out of
        service: its tables answer UNAVAILABLE, the others play on."""
        horizon = time.monotonic() - 3 * max(self._refresh_s, 1.0)
        return all(self._answered) and any(answered > horizon for answered in self._answered)

    def replace(self, shards: Sequence[tpb_grpc.TableServiceAsyncStub]) -> None:
        """New stubs for the same shards (new channels: a renewed certificate)."""
        if len(shards) != len(self._stubs):
            raise ValueError("the shards are the same, only their channels are new")
        self._stubs = list(shards)

    def live_tables(self) -> list[tpb.TableSummary]:
        """Every table every shard said it runs, at the last refresh."""
        return [t for listed in self._listed if listed is not None for t in listed.tables]

    async def _refresh_now(self) -> None:
        answers = await asyncio.gather(
            *(
                stub.ListTables(tpb.ListTablesRequest(), timeout=self._timeout)
                for stub in self._stubs
            ),
            return_exceptions=True,
        )
        now = time.monotonic()
        where: dict[str, int] = {}
        for shard, answer in enumerate(answers):
            if isinstance(answer, tpb.ListTablesResponse):
                self._listed[shard] = answer
                self._answered[shard] = now
                SHARD_REFRESHES.labels("ok").inc()
            else:
                SHARD_REFRESHES.labels("failed").inc()
                if isinstance(answer, BaseException) and not isinstance(
                    answer, grpc.aio.AioRpcError
                ):
                    self.log.error("shard listing failed", shard=shard, error=repr(answer))
            listed = self._listed[shard]
            if listed is not None:
                for table in listed.tables:
                    where[table.table_id] = shard
        moved = sum(1 for t, s in where.items() if self._where.get(t, s) != s)
        if moved:
            self.log.info("tables moved between shards", tables=moved)
        for table_id, shard in self._where.items():
            if table_id not in where:
                self._gone[table_id] = shard
                self._gone.move_to_end(table_id)
        while len(self._gone) > GONE_TABLES:
            self._gone.popitem(last=False)
        self._where = where
        self._last_refresh = now
        for shard in range(len(self._stubs)):
            listed = self._listed[shard]
            SHARD_TABLES.labels(str(shard)).set(len(listed.tables) if listed else 0)

    async def refresh(self) -> None:
        """Ask every shard now; concurrent callers share one round."""
        if self._refresh is None or self._refresh.done():
            self._refresh = asyncio.create_task(self._refresh_now())
        await asyncio.shield(self._refresh)

    def moved(self, table_id: str) -> None:
        """A shard said it does not run ``table_id``: forget where it was."""
        self._where.pop(table_id, None)

    async def shard_of(self, table_id: str, *, closed_ok: bool = False) -> int:
        """The shard that runs ``table_id``: NOT_FOUND when no shard runs it and
        the lobby has no such table, INVALID_ARGUMENT when no table could have
        this id (before anyone is asked).

        ``closed_ok``: the call only reads finished hands (GetHandHistory,
        GetDeckProof), which every shard can read from the lobby for a table no
        shard runs any more; such a table goes to the shard that last ran it (it
        keeps a stopped tournament table's last hands), else to any shard, at once."""
        shard = self._where.get(table_id)
        if shard is not None:  # a listed table's id: checked by the shard that runs it
            return shard
        try:
            check_id(table_id, "table_id")
        except WireError as error:
            raise InvalidArgumentError(error.message) from None
        if time.monotonic() - self._last_refresh > MIN_MISS_REFRESH_S:
            await self.refresh()
        shard = self._where.get(table_id)
        if shard is not None:
            return shard
        if self._exists is not None and await self._exists(table_id):
            if closed_ok:
                gone = self._gone.get(table_id)
                return gone if gone is not None else zlib.crc32(table_id.encode()) % self.shards
            deadline = time.monotonic() + NEW_TABLE_WAIT_S
            while time.monotonic() < deadline:
                await asyncio.sleep(min(self._refresh_s, 0.25))
                await self.refresh()
                shard = self._where.get(table_id)
                if shard is not None:
                    return shard
            raise NotFoundError(
                f"table {table_id!r} exists but no table service runs it: a table created "
                "a moment ago (retry in a moment), or a tournament table that was broken "
                "or whose tournament is over (GetHandHistory and GetDeckProof still read "
                "its hands)"
            )
        raise NotFoundError(f"no table {table_id!r}; ListTables shows the room's tables")

    async def _loop(self) -> None:
        while True:
            with contextlib.suppress(Exception):
                await self.refresh()
            await asyncio.sleep(self._refresh_s)

    def start(self) -> None:
        self._task = asyncio.create_task(self._loop(), name="shard map")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
