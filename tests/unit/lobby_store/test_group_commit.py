"""Group commit (services/lobby/commits.py): many transactions, one fsync; no
answer before its transaction is durable; a handler's transaction stays atomic
inside its group; a failed fsync answers nothing."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sqlite3
import threading
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from poker.common.v1.batch_pb2 import Reply, ReplyBatch
from poker.lobby.v1 import lobby_pb2 as lpb
from service_kit.batches import Early
from services.lobby.commits import DurableServicer, GroupCommitter, NotDurableError
from services.lobby.store import LobbyStore

from .support import GRANT, PLAYERS, Hands, seeded


def committed_rows(path: Path, sql: str) -> Any:
    """What another connection sees: only committed groups."""
    db = sqlite3.connect(path)
    try:
        return db.execute(sql).fetchone()[0]
    finally:
        db.close()


def test_many_transactions_share_one_fsync_and_all_are_durable(tmp_path: Path) -> None:
    path = tmp_path / "lobby.sqlite3"
    store = seeded(path)
    hands = Hands(store)

    async def main() -> GroupCommitter:
        committer = GroupCommitter(store, window_s=0.05, checkpoint_s=3600)
        committer.start()
        for _ in range(20):
            hands.one()
        await committer.wait()
        await committer.stop()
        return committer

    committer = asyncio.run(main())
    assert committer.durable == store.commits
    assert committer.counts.fsyncs["group"] < 40  # 40 transactions
    assert committer.counts.largest_group > 1
    assert committed_rows(path, "SELECT COUNT(*) FROM hands WHERE status = 'finished'") == 20
    assert store.totals() == LobbyStore(str(path)).totals()


def test_an_answer_waits_for_the_fsync_of_its_group(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = seeded(tmp_path / "lobby.sqlite3")
    entered, release = threading.Event(), threading.Event()
    real_fsync = os.fsync

    def held_fsync(fd: int) -> None:
        entered.set()
        release.wait()
        real_fsync(fd)

    async def main() -> None:
        committer = GroupCommitter(store, checkpoint_s=3600)
        monkeypatch.setattr(os, "fsync", held_fsync)
        committer.start()
        Hands(store).one()
        answer = committer.wait()
        await asyncio.to_thread(entered.wait)  # the group is committed, its fsync runs
        assert not answer.done()  # written to the log, not yet durable: no answer
        release.set()
        await answer
        assert committer.durable == store.commits
        await committer.stop()

    asyncio.run(main())


def test_a_failed_transaction_is_undone_alone_inside_its_group(tmp_path: Path) -> None:
    path = tmp_path / "lobby.sqlite3"
    store = seeded(path)

    async def main() -> None:
        committer = GroupCommitter(store, window_s=0.05, checkpoint_s=3600)
        committer.start()
        with store.transaction():
            store.grant(PLAYERS[0], 5)
        with pytest.raises(RuntimeError), store.transaction():
            store.grant(PLAYERS[1], 7)
            raise RuntimeError("refused after a write")
        with store.transaction():
            store.grant(PLAYERS[2], 9)
        await committer.wait()
        await committer.stop()
        assert committer.counts.groups == 1

    asyncio.run(main())
    balances = LobbyStore(str(path))
    assert [balances.balance(p) for p in PLAYERS] == [
        GRANT - 1_000 + 5,
        GRANT - 1_000,
        GRANT - 1_000 + 9,
    ]
    t = balances.totals()
    assert t.granted == t.balances + t.at_tables == len(PLAYERS) * GRANT + 14
    assert t == store.running_totals


def test_checkpoints_run_and_the_log_starts_over(tmp_path: Path) -> None:
    path = tmp_path / "lobby.sqlite3"
    store = seeded(path)
    hands = Hands(store)

    async def main() -> GroupCommitter:
        committer = GroupCommitter(store, checkpoint_s=0.0)
        committer.start()
        for _ in range(200):
            hands.one()
            await committer.wait()
        await committer.stop()
        return committer

    committer = asyncio.run(main())
    assert committer.counts.checkpoints >= 2
    assert committer.counts.fsyncs["checkpoint"] >= 2
    assert committer.counts.fsyncs["wal_restart"] >= 2
    # Started over, the log holds fewer frames than the 200 hands wrote end to end
    # (each hand, two transactions of at least one frame).  The frames in the log
    # now, not the file's size: a restarted log is written over from its start
    # and the file keeps its longest cycle's size, which on a loaded host (the
    # first thread checkpoint late) came near the whole run once in CI.
    with contextlib.closing(sqlite3.connect(path)) as db:
        _, log_frames, _ = db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
    assert 0 <= log_frames < 200 * 2, log_frames
    assert committed_rows(path, "SELECT COUNT(*) FROM hands") == hands.played


def test_a_failed_fsync_answers_nothing_and_stops_the_lobby(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = seeded(tmp_path / "lobby.sqlite3")
    fatal: list[bool] = []

    def broken_fsync(fd: int) -> None:
        raise OSError(5, "Input/output error")

    async def main() -> None:
        committer = GroupCommitter(store, checkpoint_s=3600, on_fatal=lambda: fatal.append(True))
        monkeypatch.setattr(os, "fsync", broken_fsync)
        committer.start()
        Hands(store).one()
        with pytest.raises(NotDurableError):
            await committer.wait()
        with pytest.raises(NotDurableError):
            await committer.wait()  # and nothing after
        await committer.stop()

    asyncio.run(main())
    assert fatal == [True]


class FakeServicer:
    """A unary RPC and a stream that write a transaction per message."""

    def __init__(self, store: LobbyStore) -> None:
        self.store = store

    async def Grant(self, request: str, context: object) -> int:  # noqa: N802 (an RPC)
        with self.store.transaction():
            self.store.grant(request, 1)
        return self.store.commits

    async def Batch(  # noqa: N802 (an RPC)
        self, requests: AsyncIterator[str], context: object
    ) -> AsyncIterator[int]:
        async for player in requests:
            with self.store.transaction():
                self.store.grant(player, 1)
            yield self.store.commits

    def helper(self) -> str:
        return "not an RPC"


def test_the_servicer_answers_once_durable_and_streams_in_order(tmp_path: Path) -> None:
    store = seeded(tmp_path / "lobby.sqlite3")

    async def main() -> None:
        committer = GroupCommitter(store, window_s=0.01, checkpoint_s=3600)
        committer.start()
        servicer: Any = DurableServicer(FakeServicer(store), committer)
        assert servicer.helper() == "not an RPC"
        commits_after = await servicer.Grant(PLAYERS[0], None)
        assert committer.durable >= commits_after

        async def requests() -> AsyncIterator[str]:
            for player in PLAYERS * 5:
                yield player

        seen = []
        async for commits_after in servicer.Batch(requests(), None):
            assert committer.durable >= commits_after  # sent once durable
            seen.append(commits_after)
        assert seen == sorted(seen) and len(seen) == 15
        await committer.stop()

    asyncio.run(main())


def test_after_stop_each_transaction_commits_durably_on_its_own(tmp_path: Path) -> None:
    """The shutdown hook stops the committer before the server's last calls end:
    those commit one by one (synchronous=FULL) and are answered at once."""
    path = tmp_path / "lobby.sqlite3"
    store = seeded(path)

    async def main() -> None:
        committer = GroupCommitter(store, window_s=10.0, checkpoint_s=3600)
        committer.start()
        Hands(store).one()
        await committer.stop()  # commits the open group without its window
        assert committer.durable == store.commits
        with store.transaction():
            store.grant(PLAYERS[0], 1)
        assert committer.wait().done()

    asyncio.run(main())
    assert committed_rows(path, "SELECT COUNT(*) FROM hands") == 1
    assert LobbyStore(str(path)).balance(PLAYERS[0]) == GRANT - 1_000 + 1


class EarlyServicer:
    """A FinishHand-like RPC answered before its fsync (``recorded`` false) or not,
    and a Batch-like stream yielding a waiting message and then an Early one."""

    def __init__(self, store: LobbyStore) -> None:
        self.store = store

    async def FinishHand(self, recorded: bool, context: object) -> lpb.FinishHandResponse:  # noqa: N802
        with self.store.transaction():
            self.store.grant(PLAYERS[0], 1)
        return lpb.FinishHandResponse(recorded=recorded)

    async def Batch(  # noqa: N802 (an RPC)
        self, requests: AsyncIterator[str], context: object
    ) -> AsyncIterator[Any]:
        async for player in requests:
            with self.store.transaction():
                self.store.grant(player, 1)
            yield ReplyBatch(replies=[Reply(id=1)])  # waits for the fsync
            yield Early(ReplyBatch(replies=[Reply(id=2)]))  # leaves at once


def test_an_early_answer_leaves_before_its_fsync_and_overtakes_waiting_ones(
    tmp_path: Path,
) -> None:
    """A FinishHand answered when applied (``recorded`` false) does not wait for
    the group; one that says recorded does; on a stream an ``Early`` message goes
    out ahead of the messages still waiting, which follow once durable."""
    store = seeded(tmp_path / "lobby.sqlite3")

    async def main() -> None:
        committer = GroupCommitter(store, window_s=30.0, checkpoint_s=3600)
        committer.start()
        servicer: Any = DurableServicer(EarlyServicer(store), committer)
        early = await asyncio.wait_for(servicer.FinishHand(False, None), 5)
        assert not early.recorded and committer.durable < store.commits  # not durable yet
        waiting = asyncio.create_task(servicer.FinishHand(True, None))

        async def requests() -> AsyncIterator[str]:
            yield PLAYERS[1]

        stream = servicer.Batch(requests(), None)
        first = await asyncio.wait_for(anext(stream), 5)
        assert [r.id for r in first.replies] == [2]  # the Early one, unwrapped
        await asyncio.sleep(0.05)
        assert not waiting.done()
        await committer.stop()  # commits and syncs the open group
        assert (await asyncio.wait_for(waiting, 5)).recorded
        second = await asyncio.wait_for(anext(stream), 5)
        assert [r.id for r in second.replies] == [1]
        assert committer.durable == store.commits
        with pytest.raises(StopAsyncIteration):
            await asyncio.wait_for(anext(stream), 5)

    asyncio.run(main())
