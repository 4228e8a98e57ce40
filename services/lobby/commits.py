"""Group commit: many RPCs' transactions made durable by one fsync, and no
answer sent before what it reports is durable.

Why not SQLite's own COMMIT with synchronous=FULL (one fsync per transaction,
two per hand): at 20 tables flat out that is hundreds of fsyncs a second, and a
WAL commit writes every page the transaction touched, whole, so each hand wrote
~68 KB for ~1.45 KB of rows.  Here:

- **Groups.** ``LobbyStore.group_commits``: every ``transaction()`` of the
  handlers is a SAVEPOINT inside one open SQLite transaction, the *group*
  (rolled back to on error, released into the group on success: a handler's
  writes stay atomic, and a group is committed all or nothing, so they stay
  atomic across a crash too).  A page that many hands change (the ledger's
  last page, the seats, the seating rows, an index leaf) is written to the log
  once per group instead of once per transaction: this, more than the fsyncs,
  is what cuts the bytes written per hand.
- **One fsync per group.** The committer (``GroupCommitter.run``) COMMITs the
  group on the loop with synchronous=NORMAL (the log's frames are written,
  not synced: microseconds) and fsyncs the ``-wal`` file on a thread of its
  own, while the loop goes on and the next group forms.  Then every answer
  whose transaction was in that group is released.  A group is committed
  ``LOBBY_GROUP_COMMIT_MS`` after it opened (0: at once), and never while the
  previous group's fsync runs: under load the groups grow by themselves.
- **Checkpoints off the loop.** SQLite's automatic checkpoint (at COMMIT, on
  the loop) is off; every ``LOBBY_CHECKPOINT_S`` a passive checkpoint runs on
  a connection of its own on another thread (it syncs the log, copies the
  pages to the database file, syncs that).  A log can only start over from its
  beginning when it is fully copied before a transaction begins, which under
  load never happens by itself (a group is always open), so once a thread
  checkpoint has copied everything it saw, the committer finishes it on the
  loop right after the next group's COMMIT: a passive checkpoint of that one
  group's frames (it also syncs them, standing in for the group's fsync), and
  the next transaction starts the log over.  The log's size is bounded by
  what the room writes in one checkpoint period.  Every fsync is counted
  (``lobby_store_fsyncs_total`` by ``kind``: group, checkpoint (log and
  database file), wal_restart (SQLite syncs a restarted log's header)).

Which answers wait: **all of them** (``DurableServicer``).  An answer waits
until every transaction committed before it was sent is durable, which costs a
read nothing when no group is pending.  So FinishHand (a result recorded, money
moved), RegisterPlayer and GrantChips (money granted), SitDown and StandUp
(money moved between balance and table), the switches and the tournament
calls wait for their own transaction; and no read can show a state that a
crash could still undo (a player shown a balance, a table shown a seat, that
the restarted lobby would not have).  NextHand must wait too, although its
plan moves no money: the table deals the hand once it has the plan, and a
plan lost in a crash would be a hand dealt (cards seen, a deck committed) of
which the lobby keeps no record, not even its void, where with the plan
durable the restart voids it and ListHands says so.  At 20 tables flat out a
NextHand mostly rides in the FinishHand that precedes it (``plan_next``), one
answer, one wait.  A stream (the hand protocol's ``Batch``, a tournament's
events) is read on while earlier messages wait, so batches do not queue
behind each other's fsync; each message is sent, in order, once durable.

**Hand results answered when applied.**  One answer does not wait: the
FinishHand that applies a hand's result (``recorded`` false in its response;
``answered_early``), alone or in a Batch message (``service_kit.batches.Early``,
sent ahead of the replies still waiting).  The table then tells the players the
hand is over at once, so a group window costs the hand-ending action nothing;
and before it deals the plan that came with the answer, it asks
``HandRecorded``, answered like any call once everything before it is durable:
the result is then recorded, and the plan too (it was written in the same
transaction).  So no hand is dealt on a plan a crash could lose, and a hand
the table was told is recorded survives a SIGKILL
(``tests/system/durability/test_group_commit_kill.py``).  A crash between the
two answers loses the result and the plan: the restarted lobby voids the hand
(as it voids any hand pending at a restart), HandRecorded says so, and the
table records the hand voided and tells its players, as when a FinishHand is
refused; the plan is never dealt.  Every other FinishHand answer (a repeat, a
refusal) waits as before, and says ``recorded`` true.

If a COMMIT or an fsync fails the process cannot tell what is on disk
(PostgreSQL panics on a failed fsync for the same reason): the waiting
answers fail (UNAVAILABLE: not recorded), nothing is answered after, and the
process exits (``on_fatal``) so that a restart rebuilds from what is durable.

PostgreSQL and ``:memory:`` have no committer: PostgreSQL's COMMIT returns once
its WAL record is flushed (``synchronous_commit = on``), and the server groups
concurrent commits into one flush itself (``commit_delay``/``commit_siblings``
are its group commit knobs); every RPC's transaction is its own COMMIT, as
before.  ``:memory:`` has nothing to make durable.
"""

from __future__ import annotations

import asyncio
import inspect
import os
import signal
import sqlite3
import time
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import grpc

from poker.lobby.v1 import lobby_pb2
from service_kit.batches import Early
from service_kit.errors import ServiceError
from service_kit.logs import get_logger

from .store import LobbyStore

log = get_logger()

STREAM_AHEAD = 64
"""Messages of one stream read and answered ahead while earlier ones wait for
their fsync (the bound on what one stream holds in memory)."""


class NotDurableError(ServiceError):
    """The store could not make a transaction durable: nothing is answered."""

    code = grpc.StatusCode.UNAVAILABLE


@dataclass
class Counts:
    """What the committer did, for the metrics and the bench (monotonic)."""

    groups: int = 0  # groups committed
    fsyncs: dict[str, int] = field(
        default_factory=lambda: {"group": 0, "checkpoint": 0, "wal_restart": 0}
    )
    checkpoints: int = 0  # passive checkpoints (thread and the loop's short ones)
    largest_group: int = 0  # transactions in the largest group

    @property
    def all_fsyncs(self) -> int:
        return sum(self.fsyncs.values())


def _exit_now() -> None:
    """The default ``on_fatal``: the in-memory tables may be ahead of the disk."""
    os.kill(os.getpid(), signal.SIGKILL)


class GroupCommitter:
    """Commits the store's groups, fsyncs the log once per group, checkpoints."""

    def __init__(
        self,
        store: LobbyStore,
        *,
        window_s: float = 0.0,
        checkpoint_s: float = 10.0,
        on_fatal: Callable[[], None] = _exit_now,
        on_sync: Callable[[str, int], None] | None = None,
        on_group: Callable[[int], None] | None = None,
    ) -> None:
        wal = store.wal_path
        if wal is None:
            raise ValueError("group commit is for a SQLite file")
        self._store = store
        self._wal_path = wal
        self._window_s = window_s
        self._checkpoint_s = checkpoint_s
        self._on_fatal = on_fatal
        self._on_sync = on_sync  # (kind, n): for the metrics
        self._on_group = on_group  # (transactions in the group): for the metrics
        self.counts = Counts()
        self._durable = store.commits  # everything committed so far is on disk
        self._waiters: deque[tuple[int, asyncio.Future[None]]] = deque()
        self._opened = asyncio.Event()
        self._failed: BaseException | None = None
        self._stopped = False  # ``stop``: the store commits each transaction itself
        self._fsync_pool = ThreadPoolExecutor(1, thread_name_prefix="lobby-fsync")
        self._checkpoint_pool = ThreadPoolExecutor(1, thread_name_prefix="lobby-checkpoint")
        self._checkpointing: asyncio.Future[tuple[int, int, int]] | None = None
        self._finish_checkpoint = False  # a thread checkpoint copied all it saw
        self._restart_pending = False  # the next group starts the log over
        self._last_checkpoint = time.monotonic()
        self._wal_fd: int | None = None
        self._reader: sqlite3.Connection | None = None  # the checkpoint thread's
        self._task: asyncio.Task[None] | None = None
        store.on_group_open = self._opened.set
        store.group_commits()
        self._sync_directory()

    # ------------------------------------------------------------ the answers' side

    @property
    def durable(self) -> int:
        """How many transactions are durable (``LobbyStore.commits`` synced)."""
        return self._durable

    def wait(self, commits: int | None = None) -> asyncio.Future[None]:
        """Until the first ``commits`` transactions (default: all committed so
        far) are durable; at once if they are.  Raises ``NotDurableError`` if
        the store failed."""
        if self._failed is not None:
            raise NotDurableError("the lobby's database failed to sync: nothing was recorded")
        target = self._store.commits if commits is None else commits
        future = asyncio.get_running_loop().create_future()
        if self._stopped or target <= self._durable:
            future.set_result(None)
        else:
            self._waiters.append((target, future))
        return future

    # ------------------------------------------------------------ the loop

    def start(self) -> None:
        """Run on the serving loop until ``stop``."""
        self._task = asyncio.create_task(self.run())
        if self._store.commits > self._durable or self._store._group_open:
            self._opened.set()

    async def stop(self) -> None:
        """Commit and sync what is open, then stop (the shutdown hook)."""
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        if self._checkpointing is not None:
            await asyncio.gather(self._checkpointing, return_exceptions=True)
        if self._failed is None:
            await self._commit_and_sync()
            # Calls still in flight (the server drains after this hook) commit
            # one by one with their own fsyncs, and are answered at once.
            self._store.ungroup()
            self._stopped = True
            self._release(self._store.commits)
        self._fsync_pool.shutdown(wait=True)
        self._checkpoint_pool.shutdown(wait=True)
        if self._reader is not None:
            self._reader.close()
        if self._wal_fd is not None:
            os.close(self._wal_fd)

    async def run(self) -> None:
        """One group at a time: wait for one to open, give it the window, commit
        it, fsync (or finish a checkpoint), release its answers."""
        try:
            while True:
                await self._opened.wait()
                self._opened.clear()
                if self._window_s:
                    await asyncio.sleep(self._window_s)
                await self._commit_and_sync()
                self._maybe_checkpoint()
        except asyncio.CancelledError:
            raise
        except BaseException as error:  # a failed COMMIT or fsync
            self._fail(error)

    async def _commit_and_sync(self) -> None:
        before = self._durable
        restarting = self._restart_pending
        committed = self._store.commit_group()
        if committed <= before:
            if self._finish_checkpoint and self._checkpointing is None:
                self._finish_on_loop(new_frames=False)  # idle: nothing to sync
            return
        self.counts.groups += 1
        self.counts.largest_group = max(self.counts.largest_group, committed - before)
        if self._on_group is not None:
            self._on_group(committed - before)
        if restarting:  # this group's first write started the log over: a header sync
            self._restart_pending = False
            self._count("wal_restart", 1)
        # On the loop, between groups, when a thread checkpoint copied all it saw:
        # only this group's frames are left to copy, and copying every frame
        # syncs them first (the group's fsync) and lets the log start over.
        synced = False
        if self._finish_checkpoint and self._checkpointing is None:
            synced = self._finish_on_loop(new_frames=True)
        if not synced:
            fd = self._wal()
            await asyncio.get_running_loop().run_in_executor(self._fsync_pool, os.fsync, fd)
            self._count("group", 1)
        self._release(committed)

    def _finish_on_loop(self, *, new_frames: bool) -> bool:
        """A passive checkpoint of what is left (one group); whether it copied every
        frame (and so synced the log before it)."""
        self._finish_checkpoint = False
        busy, frames, copied = self._store.checkpoint()
        self.counts.checkpoints += 1
        everything = not busy and frames == copied
        if new_frames:  # the log synced (and the database file, if all was copied)
            self._count("checkpoint", 2 if everything else 1)
        if everything:
            self._restart_pending = True
        return everything

    def _release(self, durable: int) -> None:
        self._durable = durable
        waiters = self._waiters
        while waiters and waiters[0][0] <= durable:
            _, future = waiters.popleft()
            if not future.done():
                future.set_result(None)

    def _count(self, kind: str, n: int) -> None:
        self.counts.fsyncs[kind] += n
        if self._on_sync is not None:
            self._on_sync(kind, n)

    def _fail(self, error: BaseException) -> None:
        self._failed = error
        log.critical(
            "the lobby's database could not be committed or synced: exiting",
            error=f"{type(error).__name__}: {error}",
        )
        while self._waiters:
            _, future = self._waiters.popleft()
            if not future.done():
                future.set_exception(
                    NotDurableError("the lobby's database failed to sync: not recorded")
                )
        self._on_fatal()

    # ------------------------------------------------------------ checkpoints

    def _maybe_checkpoint(self) -> None:
        """Start a thread checkpoint every ``checkpoint_s`` (one at a time)."""
        if self._checkpointing is not None or self._finish_checkpoint:
            return
        if time.monotonic() - self._last_checkpoint < self._checkpoint_s:
            return
        self._last_checkpoint = time.monotonic()
        loop = asyncio.get_running_loop()
        future = loop.run_in_executor(self._checkpoint_pool, self._checkpoint_thread)
        self._checkpointing = future
        future.add_done_callback(self._checkpointed)

    def _checkpoint_thread(self) -> tuple[int, int, int]:
        if self._reader is None:
            self._reader = sqlite3.connect(
                self._store.path, isolation_level=None, check_same_thread=False
            )
            self._reader.execute("PRAGMA synchronous = NORMAL")
            self._reader.execute("PRAGMA wal_autocheckpoint = 0")
        row = self._reader.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        return int(row[0]), int(row[1]), int(row[2])

    def _checkpointed(self, future: asyncio.Future[tuple[int, int, int]]) -> None:
        self._checkpointing = None
        if future.cancelled():
            return
        error = future.exception()
        if error is not None:
            self._fail(error)
            return
        busy, frames, copied = future.result()
        self.counts.checkpoints += 1
        self._count("checkpoint", 2)  # the log, then the database file
        if not busy and frames == copied:
            self._finish_checkpoint = True
            self._opened.set()  # finish it at the next group, even an empty one

    # ------------------------------------------------------------ files

    def _wal(self) -> int:
        if self._wal_fd is None:
            self._wal_fd = os.open(self._wal_path, os.O_RDONLY | os.O_CLOEXEC)
        return self._wal_fd

    def _sync_directory(self) -> None:
        """The database's directory, once: the log file's name is durable too."""
        directory = os.path.dirname(os.path.abspath(self._store.path))
        fd = os.open(directory, os.O_RDONLY | os.O_CLOEXEC)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def answered_early(response: object) -> bool:
    """A FinishHand answered when its result is applied (``recorded`` false)
    leaves at once: see "Hand results answered when applied" in the module."""
    return isinstance(response, lobby_pb2.FinishHandResponse) and not response.recorded


class DurableServicer:
    """A servicer whose every answer waits for the committer (module doc).

    The generated ``add_*Servicer_to_server`` reads each RPC as an attribute:
    a unary RPC is answered once ``wait()`` after it, unless it was answered
    early (``answered_early``); a streaming one reads on (up to
    ``STREAM_AHEAD`` messages) while each message waits for the transactions
    committed before it, in order, and an ``Early`` message (the replies a
    Batch stream answered early) goes at once, ahead of those waiting."""

    def __init__(self, servicer: object, committer: GroupCommitter) -> None:
        self._servicer = servicer
        self._committer = committer
        self._wrapped: dict[str, Any] = {}

    def __getattr__(self, name: str) -> Any:
        method = getattr(self._servicer, name)
        if not name[:1].isupper() or not callable(method):
            return method
        wrapped = self._wrapped.get(name)
        if wrapped is None:
            if inspect.isasyncgenfunction(method):
                wrapped = self._stream(method)
            elif inspect.iscoroutinefunction(method):
                wrapped = self._unary(method)
            else:
                return method
            self._wrapped[name] = wrapped
        return wrapped

    def _unary(self, method: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
        committer = self._committer

        async def unary(request: Any, context: Any) -> Any:
            try:
                response = await method(request, context)
            except BaseException:
                await committer.wait()
                raise
            if not answered_early(response):
                await committer.wait()
            return response

        return unary

    def _stream(self, method: Callable[..., AsyncIterator[Any]]) -> Callable[..., Any]:
        committer = self._committer
        store = committer._store
        end = object()

        async def stream(request: Any, context: Any) -> AsyncIterator[Any]:
            # Each message waits for the transactions committed before it (its
            # future, released in commit order, queues it); an Early one is queued
            # at once.  ``room`` bounds what one stream holds.
            out: asyncio.Queue[Any] = asyncio.Queue()
            room = asyncio.Semaphore(STREAM_AHEAD)

            def when_durable(item: Any) -> None:
                try:
                    future = committer.wait(store.commits)
                except NotDurableError as error:
                    out.put_nowait(error)
                    return

                def release(done: asyncio.Future[None]) -> None:
                    if done.cancelled():
                        return
                    error = done.exception()
                    out.put_nowait(item if error is None else error)

                future.add_done_callback(release)

            async def produce() -> None:
                try:
                    async for message in method(request, context):
                        await room.acquire()
                        if isinstance(message, Early):
                            out.put_nowait(message.replies)
                        else:
                            when_durable(message)
                except Exception as error:
                    when_durable(error)
                    return
                when_durable(end)

            producer = asyncio.create_task(produce())
            try:
                while True:
                    item = await out.get()
                    if item is end:
                        break
                    if isinstance(item, BaseException):
                        raise item
                    room.release()
                    yield item
            finally:
                producer.cancel()
                await asyncio.gather(producer, return_exceptions=True)

        return stream
