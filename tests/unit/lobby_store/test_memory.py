"""The lobby's memory does not grow with the hands it records (issue 19): the
page cache is bounded (``CACHE_KIB``) and nothing keeps per-hand Python state
(the store, the committer and its waiters)."""

from __future__ import annotations

import asyncio
import gc
import tracemalloc
from pathlib import Path

from services.lobby.commits import GroupCommitter
from services.lobby.store import CACHE_KIB

from .support import Hands, seeded

FEW, MANY = 200, 2_000
SLACK = 128 * 1024  # bytes: allocator noise, not per hand (2,000 hands at 64 B = 128 KB)


def test_python_memory_is_flat_between_few_and_many_hands(tmp_path: Path) -> None:
    store = seeded(tmp_path / "lobby.sqlite3")
    (cache,) = store._db.execute("PRAGMA cache_size").fetchone()
    assert cache == -CACHE_KIB
    hands = Hands(store)

    async def main() -> tuple[int, int]:
        committer = GroupCommitter(store, checkpoint_s=0.5)
        committer.start()

        async def play(n: int) -> None:
            for _ in range(n):
                hands.one()
                await committer.wait()

        await play(FEW)
        gc.collect()
        tracemalloc.start()
        try:
            await play(FEW)  # warm: every path taken once under tracing
            gc.collect()
            at_few = tracemalloc.get_traced_memory()[0]
            await play(MANY)
            gc.collect()
            at_many = tracemalloc.get_traced_memory()[0]
        finally:
            tracemalloc.stop()
        await committer.stop()
        assert not committer._waiters
        return at_few, at_many

    at_few, at_many = asyncio.run(main())
    assert at_many - at_few < SLACK, (at_few, at_many)
