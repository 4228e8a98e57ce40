"""The TableService gRPC surface, and the set of tables this replica runs.

Players authenticate through the lobby (``Authenticate``: player id + secret
token); a stream is then bound to that player, so a seat can only ever be acted
for by its owner.  Requests are validated before anything is looked up
(INVALID_ARGUMENT), unknown tables and hands are NOT_FOUND, a wrong token is
PERMISSION_DENIED, and actions out of turn or with a stale ``action_seq`` come
back on the stream as ActionRejected (FAILED_PRECONDITION) and change nothing.
``Act`` makes the same checks for one action without a stream (the player is
authenticated as for GetState) and answers a refusal with its status.

Bursts of joins (every seat of a restarted process comes back at once) queue:
the token checks wait for the lobby (up to MAX_CHECKS_WAITING of them, each as
long as ``clients.PATIENT_CALLS`` allows; past the limit RESOURCE_EXHAUSTED), a
lobby that does not answer is UNAVAILABLE (never INTERNAL), and so is a Join
while the process shuts down: the SDK retries all three.  The tables of a fresh
process are listed once for every Join that arrives before they are known
(``TableManager.refresh``).

Spectators: ``Watch`` sends the bytes the table serialized once for all of its
spectators (``viewers.Watcher``), so its handler is registered with a response
serializer that passes bytes through (``server.add_table_services``).  A new
Watch past the table's limit, or past its client's (callers without a service
identity, by address), is RESOURCE_EXHAUSTED.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import hmac
import zlib
from collections.abc import AsyncIterator
from typing import Any, Protocol

import grpc

from poker.lobby.v1 import lobby_pb2 as lpb
from poker.table.v1 import table_pb2 as pb
from poker.table.v1 import table_pb2_grpc as pb_grpc
from poker_wire import card_list, check_count, check_id
from service_kit.errors import (
    FailedPreconditionError,
    InvalidArgumentError,
    NotFoundError,
    PermissionDeniedError,
    ResourceExhaustedError,
    ServiceError,
)
from service_kit.identity import caller_identity, player_token
from service_kit.logs import get_logger

from .clients import Downstream, DownstreamError
from .history import History
from .many import play_many
from .metrics import CONNECTED, TABLES
from .runtime import TableRuntime
from .settings import PLAYMANY_SESSIONS
from .viewers import Subscriber, WatchClients, WatchLimits, client_address

MAX_TOKEN_LENGTH = 128
# Stopped tournament tables (broken, T3, or their tournament over) whose hand
# histories and deck reveals stay readable, most recently stopped kept.
FINISHED_TABLES = 256
Context = grpc.aio.ServicerContext[Any, Any]
_LOBBY_CODES = {
    grpc.StatusCode.PERMISSION_DENIED: PermissionDeniedError,
    grpc.StatusCode.NOT_FOUND: NotFoundError,
    grpc.StatusCode.INVALID_ARGUMENT: InvalidArgumentError,
}
# Token checks (a Join's, GetState's...) waiting for the lobby at once: the queue
# of a burst of joins (every seat of a restarted table service comes back at
# once).  Past it a check is RESOURCE_EXHAUSTED, saying when to try again; the
# SDK retries it.
MAX_CHECKS_WAITING = 20_000


_SHUTTING_DOWN = (
    "the table service is shutting down: join again in a moment "
    "(a new process takes its tables over)"
)


def table_closed(table_id: str) -> tuple[grpc.StatusCode, str]:
    """How the streams of a tournament table the lobby stopped listing end: a final
    NOT_FOUND, as a new call there gets, not UNAVAILABLE (which tells a client to
    come back, and each came back to wait 3 s for that NOT_FOUND)."""
    return (
        grpc.StatusCode.NOT_FOUND,
        f"table {table_id} was broken or its tournament is over: it deals no more hands "
        "(its players follow the tournament to their new tables; its hands stay in their "
        "history)",
    )


class UnavailableError(ServiceError):
    """Try again in a moment: the lobby is slow to answer, or this process is
    shutting down (another takes its tables over)."""

    code = grpc.StatusCode.UNAVAILABLE


class TableManager:
    """The lobby's tables that this replica runs (``shard`` of ``shards``)."""

    def __init__(
        self,
        downstream: Downstream,
        *,
        discovery_s: float,
        idle_poll_s: float,
        hand_pause_s: float,
        history_hands: int,
        shard: int = 0,
        shards: int = 1,
        watch: WatchLimits | None = None,
        sit_out_after_clock_hands: int = 0,
    ) -> None:
        self.ds = downstream
        self.discovery_s = discovery_s
        self.idle_poll_s = idle_poll_s
        self.hand_pause_s = hand_pause_s
        self.history_hands = history_hands
        self.shard = shard
        self.shards = shards
        self.watch = watch or WatchLimits()
        self.sit_out_after_clock_hands = sit_out_after_clock_hands  # TableRuntime's
        self.tables: dict[str, TableRuntime] = {}
        # Stopped tournament tables: no longer played or joined, but their hands
        # are the players' history (GetHandHistory, GetDeckProof, GetDeckReveal).
        # And tables no table service runs (a tournament table broken or its
        # tournament over, that this process never ran or no longer keeps): their
        # hands read from the lobby (``ClosedTable``).
        self.finished: collections.OrderedDict[str, PlayedTable] = collections.OrderedDict()
        self._listed: frozenset[str] = frozenset()  # the lobby's last ListTables
        self._task: asyncio.Task[None] | None = None
        # The listing in flight: callers that arrive meanwhile wait for it rather
        # than ask the lobby again (every Join finds no table until the first
        # listing of a fresh process is in).
        self._refreshing: asyncio.Future[None] | None = None
        self.stopping = False
        self.log = get_logger()

    def mine(self, table_id: str) -> bool:
        return zlib.crc32(table_id.encode()) % self.shards == self.shard

    async def refresh(self) -> None:
        """Start a runtime for every new lobby table of this shard: one listing
        at a time, shared by every caller that arrives while it runs."""
        refreshing = self._refreshing
        if refreshing is None:
            refreshing = self._refreshing = asyncio.ensure_future(self._refresh())
            refreshing.add_done_callback(self._refreshed)
        try:
            await asyncio.shield(refreshing)
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if refreshing.cancelled() and (task is None or not task.cancelling()):
                raise UnavailableError(_SHUTTING_DOWN) from None  # stop() cancelled it
            raise

    def _refreshed(self, done: asyncio.Future[None]) -> None:
        if self._refreshing is done:
            self._refreshing = None
        if not done.cancelled():
            done.exception()  # each awaiting caller sees it; none is left unread

    async def _refresh(self) -> None:
        listed: lpb.ListTablesResponse = await self.ds.call(
            "lobby", "ListTables", lpb.ListTablesRequest()
        )
        for info in listed.tables:
            runtime = self.tables.get(info.table_id)
            if runtime is not None:
                runtime.info = info
            elif self.mine(info.table_id):
                runtime = TableRuntime(
                    info,
                    self.ds,
                    idle_poll_s=self.idle_poll_s,
                    hand_pause_s=self.hand_pause_s,
                    history_hands=self.history_hands,
                    watch=self.watch,
                    sit_out_after_clock_hands=self.sit_out_after_clock_hands,
                )
                self.tables[info.table_id] = runtime
                runtime.start()
                self.log.info("table started", table_id=info.table_id, name=info.name)
        # A tournament table the lobby no longer lists was broken (T3) or its
        # tournament is over: stop running it.
        listed_ids = frozenset(info.table_id for info in listed.tables)
        self._listed = listed_ids
        for table_id in [t for t, r in self.tables.items() if r.info.tournament_id]:
            if table_id not in listed_ids:
                stopped = self.tables.pop(table_id)
                await stopped.stop(ending=table_closed(table_id))
                self.finished[table_id] = stopped
                while len(self.finished) > FINISHED_TABLES:
                    self.finished.popitem(last=False)
                self.log.info("tournament table stopped", table_id=table_id)
        TABLES.set(len(self.tables))

    async def _discover(self) -> None:
        while True:
            try:
                await self.refresh()
            except DownstreamError as error:
                self.log.warning("lobby tables not listed", code=error.code().name)
            await asyncio.sleep(self.discovery_s)

    def start(self) -> None:
        self._task = asyncio.create_task(self._discover(), name="table discovery")

    async def stop(self) -> None:
        self.stopping = True  # from now on a Join is told to come back (get)
        if self._refreshing is not None:
            self._refreshing.cancel()  # no table is started from now on
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        await asyncio.gather(*(t.stop() for t in self.tables.values()))
        await self.ds.close()

    async def get_played(self, table_id: str) -> PlayedTable:
        """A table whose hands may be read: running here, a tournament table
        stopped since (the last FINISHED_TABLES of them), or a table the lobby has
        and no longer lists, which no table service runs (``ClosedTable``).

        Why the last: the gateway routes a finished tournament's history and deck
        proofs to any shard (none lists the table), and a restarted table service
        keeps no stopped tables; the hands are the lobby's either way."""
        check_id(table_id, "table_id")
        played: PlayedTable | None = self.tables.get(table_id) or self.finished.get(table_id)
        if played is not None:
            return played
        try:
            return await self.get(table_id)
        except NotFoundError:
            closed = await self._closed(table_id)
            if closed is None:
                raise
            return closed

    async def _closed(self, table_id: str) -> ClosedTable | None:
        """``table_id``'s hands when the lobby has the table but does not list it
        (its last listing, just refreshed by ``get``): no table service runs it."""
        if table_id in self._listed:
            return None  # running, on another shard: the caller is sent there
        try:
            await self.ds.call("lobby", "GetTable", lpb.GetTableRequest(table_id=table_id))
        except DownstreamError as error:
            if error.code() == grpc.StatusCode.NOT_FOUND:
                return None
            raise UnavailableError(
                f"the lobby did not answer for table {table_id!r} "
                f"({error.code().name}); try again in a moment"
            ) from None
        closed = ClosedTable(table_id, History(table_id, 0, self.ds))
        self.finished[table_id] = closed
        while len(self.finished) > FINISHED_TABLES:
            self.finished.popitem(last=False)
        return closed

    async def get(self, table_id: str) -> TableRuntime:
        """The runtime of ``table_id``; a table created a moment ago is found by
        asking the lobby again."""
        check_id(table_id, "table_id")
        if self.stopping:
            raise UnavailableError(_SHUTTING_DOWN)
        runtime = self.tables.get(table_id)
        if runtime is None:
            with contextlib.suppress(DownstreamError):
                await self.refresh()
            runtime = self.tables.get(table_id)
        if runtime is None:
            raise NotFoundError(
                f"no table {table_id!r} is run here; ListTables shows those that are"
            )
        return runtime


class PlayedTable(Protocol):
    """What the readers of finished hands need of a table (GetHandHistory,
    GetDeckProof, GetDeckReveal): a running or stopped ``TableRuntime``, or a
    ``ClosedTable``."""

    async def histories(
        self, player_id: str | None, hand_id: str, limit: int
    ) -> list[pb.HandHistory]: ...

    async def proof(self, player_id: str | None, hand_id: str) -> pb.DeckProof: ...

    async def reveal(self, hand_id: str) -> pb.DeckReveal: ...


class ClosedTable:
    """A table no table service runs any more, read from the lobby, which stores
    every hand (``History`` with no cache)."""

    def __init__(self, table_id: str, history: History) -> None:
        self.table_id = table_id
        self.history = history

    async def histories(
        self, player_id: str | None, hand_id: str, limit: int
    ) -> list[pb.HandHistory]:
        return await self.history.views(player_id, hand_id, limit)

    async def proof(self, player_id: str | None, hand_id: str) -> pb.DeckProof:
        return await self.history.proof(player_id, hand_id)

    async def reveal(self, hand_id: str) -> pb.DeckReveal:
        return await self.history.reveal(hand_id)


class TableServicer(
    pb_grpc.TableServiceServicer, pb_grpc.TableAuditServicer, pb_grpc.TableCertificationServicer
):
    def __init__(
        self,
        manager: TableManager,
        *,
        allow_presets: bool,
        audit_token: str,
        identities: bool = True,
        play_many_sessions: int = PLAYMANY_SESSIONS,
    ) -> None:
        self.manager = manager
        self.allow_presets = allow_presets
        self.audit_token = audit_token
        self.play_many_sessions = play_many_sessions  # TABLE_PLAYMANY_SESSIONS
        # TABLE_WATCHERS_PER_CLIENT: by address, for callers without a service
        # identity.  Without identities at all (GRPC_PLAINTEXT, benchmarks only)
        # the gateway could not be told from a client: nobody is limited.
        self.watch_clients = WatchClients(manager.watch.per_client if identities else None)
        self.checks_waiting = 0  # token checks waiting for the lobby (MAX_CHECKS_WAITING)

    async def _authenticate(self, player_id: str, token: str, table_id: str) -> None:
        """The lobby's check of the player's token.  Its refusal is the call's
        (PERMISSION_DENIED, NOT_FOUND, INVALID_ARGUMENT); a lobby that does not
        answer in time, or at all, is UNAVAILABLE (try again), never INTERNAL;
        past MAX_CHECKS_WAITING checks at once, RESOURCE_EXHAUSTED."""
        check_id(player_id, "player_id")
        if not token or len(token) > MAX_TOKEN_LENGTH:
            raise InvalidArgumentError(f"token is required, 1..{MAX_TOKEN_LENGTH} characters")
        if self.checks_waiting >= MAX_CHECKS_WAITING:
            raise ResourceExhaustedError(
                f"{self.checks_waiting} joins are waiting for the lobby's token check, the "
                f"most this table service queues: join again in a few seconds"
            )
        if self.manager.stopping:
            raise UnavailableError(_SHUTTING_DOWN)
        self.checks_waiting += 1
        try:
            await self.manager.ds.call(
                "lobby",
                "Authenticate",
                lpb.AuthenticateRequest(player_id=player_id, token=token, table_id=table_id),
            )  # its deadline fits a queued lobby (clients.PATIENT_CALLS)
        except DownstreamError as error:
            kind = _LOBBY_CODES.get(error.code())
            if kind is None:
                raise UnavailableError(
                    f"the lobby did not check the token ({error.code().name}): "
                    "join again in a moment"
                ) from None
            raise kind(error.details() or "refused by the lobby") from None
        except grpc.aio.UsageError:
            if not self.manager.stopping:
                raise
            raise UnavailableError(_SHUTTING_DOWN) from None  # its channels closed
        finally:
            self.checks_waiting -= 1

    # ------------------------------------------------------------ streams

    async def Play(
        self, request_iterator: AsyncIterator[pb.PlayerMessage], context: Context
    ) -> AsyncIterator[pb.TableEvent]:
        first = await anext(aiter(request_iterator), None)
        if first is None or not first.HasField("join"):
            raise InvalidArgumentError("the first message must be a Join (table, player, token)")
        join = first.join
        check_count(join.delivery, "join.delivery", 0, max(pb.Delivery.values()))
        runtime = await self.manager.get(join.table_id)
        token = player_token(join.token, context)
        await self._authenticate(join.player_id, token, join.table_id)
        sub = runtime.join(join.player_id, join.delivery, seating=await runtime.seating())
        CONNECTED.labels("player").inc()
        reader = asyncio.create_task(self._read(runtime, sub, request_iterator))
        try:
            async for event in _drain(sub):
                yield event
        finally:
            reader.cancel()
            runtime.leave(sub)
            CONNECTED.labels("player").dec()
        if sub.ended is not None and sub.ended[0] != grpc.StatusCode.OK:
            await context.abort(*sub.ended)  # OK (the player half-closed): a plain end

    async def PlayMany(  # type: ignore[override]  # serialized PlayManyEvents, see many.py
        self, request_iterator: AsyncIterator[pb.PlayManyRequest], context: Context
    ) -> AsyncIterator[bytes]:
        """Many seats over one stream (services/table/many.py); its messages are
        written as bytes and sent as they are (``server.add_table_services``)."""
        async for batch in play_many(
            self._open_seat, request_iterator, max_sessions=self.play_many_sessions
        ):
            yield batch

    async def _open_seat(self, join: pb.Join) -> TableRuntime:
        """A PlayMany session's Join: the table, then the token, as Play checks them."""
        runtime = await self.manager.get(join.table_id)
        await self._authenticate(join.player_id, join.token, join.table_id)
        return runtime

    async def _read(
        self,
        runtime: TableRuntime,
        sub: Subscriber,
        request_iterator: AsyncIterator[pb.PlayerMessage],
    ) -> None:
        try:
            async for msg in request_iterator:
                if msg.HasField("action"):
                    runtime.submit(sub, msg.action)
                elif msg.HasField("ping"):
                    sub.direct(
                        pb.TableEvent(table_id=runtime.table_id, pong=pb.Pong(nonce=msg.ping.nonce))
                    )
                else:
                    runtime.send_rejection(
                        sub,
                        0,
                        grpc.StatusCode.INVALID_ARGUMENT,
                        "after the Join, send actions or pings only",
                    )
        except (asyncio.CancelledError, grpc.aio.AioRpcError):
            return
        sub.end(grpc.StatusCode.OK, "")

    async def Watch(  # type: ignore[override]  # serialized TableEvents, see the module
        self, request: pb.WatchRequest, context: Context
    ) -> AsyncIterator[bytes]:
        """A spectator's stream: the table's public events, serialized once for all
        its spectators; dropped (RESOURCE_EXHAUSTED) when it falls
        TABLE_WATCH_BUFFER events behind."""
        runtime = await self.manager.get(request.table_id)
        seating = await runtime.seating()
        # No await from here until the watcher is counted: the limits hold.
        client = None if caller_identity(context) is not None else client_address(context.peer())
        if client is not None:
            self.watch_clients.admit(client)
        try:
            watcher = runtime.watch(seating)
        except BaseException:
            if client is not None:
                self.watch_clients.release(client)
            raise
        CONNECTED.labels("spectator").inc()
        try:
            async for wire in watcher.messages():
                yield wire
        finally:
            runtime.unwatch(watcher)
            if client is not None:
                self.watch_clients.release(client)
            CONNECTED.labels("spectator").dec()
        if watcher.ended is not None and watcher.ended[0] != grpc.StatusCode.OK:
            await context.abort(*watcher.ended)

    # ------------------------------------------------------------ unary

    async def GetState(self, request: pb.GetStateRequest, context: Context) -> pb.Snapshot:
        runtime = await self.manager.get(request.table_id)
        token = player_token(request.token, context)
        if not request.player_id and not token:
            # A spectator's view: what Watch's first message shows anyone (no
            # down card, public seating); the gateway's late watchers start here.
            return runtime.snapshot(None, await runtime.seating())
        await self._authenticate(request.player_id, token, request.table_id)
        return runtime.snapshot(request.player_id, await runtime.seating())

    async def Act(self, request: pb.ActRequest, context: Context) -> pb.ActResponse:
        """One action without a stream: authenticated as GetState is, checked as a
        Play stream's action is (``TableRuntime.act``), answered once the hand has
        applied it; a refusal is the call's status and changes nothing."""
        if not request.HasField("action"):
            raise InvalidArgumentError(
                "action is required: the hand_id and action_seq of your YourTurn, and your action"
            )
        check_id(request.action.hand_id, "action.hand_id")
        runtime = await self.manager.get(request.table_id)
        token = player_token(request.token, context)
        await self._authenticate(request.player_id, token, request.table_id)
        refusal = await runtime.act(request.player_id, request.action)
        if refusal is not None:
            await context.abort(*refusal)
        return pb.ActResponse()

    async def ListTables(
        self, request: pb.ListTablesRequest, context: Context
    ) -> pb.ListTablesResponse:
        check_count(request.game, "game", 0, 3)
        return pb.ListTablesResponse(
            tables=[
                t.summary()
                for t in self.manager.tables.values()
                if not request.game or t.info.config.game == request.game
            ]
        )

    async def GetHandHistory(
        self, request: pb.GetHandHistoryRequest, context: Context
    ) -> pb.GetHandHistoryResponse:
        limit = check_count(request.limit, "limit", 0, 100) or 20
        if request.hand_id:
            check_id(request.hand_id, "hand_id")
        runtime = await self.manager.get_played(request.table_id)
        player = await self._history_viewer(request, context)
        hands = await runtime.histories(player, request.hand_id, limit)
        return pb.GetHandHistoryResponse(hands=hands)

    async def GetDeckProof(self, request: pb.GetDeckProofRequest, context: Context) -> pb.DeckProof:
        """A finished hand's deal as the requester may check it (G4a): identified
        as for GetHandHistory (a player's own view with their token, else the
        public's), the proof opens only the cards that view shows."""
        check_id(request.hand_id, "hand_id")
        runtime = await self.manager.get_played(request.table_id)
        return await runtime.proof(await self._history_viewer(request, context), request.hand_id)

    async def _history_viewer(
        self, request: pb.GetHandHistoryRequest | pb.GetDeckProofRequest, context: Context
    ) -> str | None:
        """Whose view of finished hands a request asks for: the player's own when it
        names one or carries a token (checked), else None, the public's."""
        token = player_token(request.token, context)
        if not (request.player_id or token):
            return None
        await self._authenticate(request.player_id, token, request.table_id)
        return request.player_id

    async def GetDeckReveal(
        self, request: pb.GetDeckRevealRequest, context: Context
    ) -> pb.DeckReveal:
        check_id(request.hand_id, "hand_id")
        if not self.audit_token or not hmac.compare_digest(
            request.audit_token.encode(), self.audit_token.encode()
        ):
            raise PermissionDeniedError(
                "deck reveals are for auditors: a valid audit_token is required"
            )
        runtime = await self.manager.get_played(request.table_id)
        return await runtime.reveal(request.hand_id)

    async def PresetNextDeck(
        self, request: pb.PresetNextDeckRequest, context: Context
    ) -> pb.PresetNextDeckResponse:
        if not self.allow_presets:
            raise FailedPreconditionError(
                "preset decks are off: start the table service with TABLE_ALLOW_PRESET_DECKS=1"
            )
        card_list(request.order, "order", most=52)
        runtime = await self.manager.get(request.table_id)
        runtime.set_preset(request.order)
        return pb.PresetNextDeckResponse()


async def _drain(sub: Subscriber) -> AsyncIterator[pb.TableEvent]:
    while True:
        event = await sub.queue.get()
        if event is None:
            return
        yield event
