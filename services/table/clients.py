"""The table service's downstream calls: one stub per service, every call with a
deadline and counted.

Betting decisions, the bulk of a hand's calls (one per decision), the dealer's
calls, the lobby's hand calls (NextHand, FinishHand, VoidPendingHand) and the
showdown's go over batched streams (betting ``SessionBatches``, dealer, lobby and
showdown ``Session``): one long-lived stream per service and table-service
process, each call a request matched to its response by id, and every call
waiting when a message goes out carried in that message.  A stream message costs
a fraction of a unary call in grpc.aio (the ceiling benchmark measures both), a
batch costs about one message, and the betting service stays stateless: every
request carries its state.  The lobby's other calls (Authenticate, ListTables...)
stay unary.  ``TABLE_BETTING_SESSION=0`` makes them all unary again.

Every failure, unary or on the stream (refused, deadline passed, stream broken),
reaches the caller as ``DownstreamError`` with the status code, so the hand runner
handles both paths the same way: a refused action goes back to the player,
anything else voids the hand.

The count is the table's cost per hand (issue 3 asks for "inter-service RPCs per
hand"): ``table_downstream_calls_total{service,method,transport}`` on /metrics,
``transport`` "unary" (an RPC) or "stream" (a call on a batched stream).
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass
from typing import Any

import grpc

from poker.betting.v1 import betting_pb2 as bpb
from poker.betting.v1 import betting_pb2_grpc
from poker.dealer.v1 import dealer_pb2 as dpb
from poker.dealer.v1 import dealer_pb2_grpc
from poker.lobby.v1 import lobby_pb2 as lpb
from poker.lobby.v1 import lobby_pb2_grpc
from poker.showdown.v1 import showdown_pb2 as spb
from poker.showdown.v1 import showdown_pb2_grpc
from service_kit.batches import drain
from service_kit.deadlines import default_deadline

from .metrics import DOWNSTREAM_CALLS, DOWNSTREAM_FAILURES, DOWNSTREAM_SECONDS


@dataclass(frozen=True)
class Addresses:
    lobby: str
    dealer: str
    betting: str
    showdown: str


class DownstreamError(Exception):
    """A downstream call failed: ``code()`` and ``details()`` as grpc errors have."""

    def __init__(self, code: grpc.StatusCode, details: str) -> None:
        super().__init__(f"{code.name}: {details}")
        self._code = code
        self._details = details

    def code(self) -> grpc.StatusCode:
        return self._code

    def details(self) -> str:
        return self._details


_CODES = {code.value[0]: code for code in grpc.StatusCode}
_BETTING_FIELDS = {
    "ApplyAction": "apply_action",
    "ApplyTimeout": "apply_timeout",
    "StartRound": "start_round",
    "LegalActions": "legal_actions",
}
_DEALER_FIELDS = {
    "OpenDeck": "open_deck",
    "Deal": "deal",
    "DealRiver": "deal_river",
    "Draw": "draw",
    "CloseDeck": "close_deck",
}
_SHOWDOWN_FIELDS = {"Evaluate": "evaluate", "Settle": "settle"}
_LOBBY_FIELDS = {
    "NextHand": "next_hand",
    "FinishHand": "finish_hand",
    "VoidPendingHand": "void_pending_hand",
}


class CallStream:
    """A service's calls as messages of one batched ``Session``-style stream,
    reopened when broken (betting ``SessionBatches``, dealer ``Session``).

    Every call waiting when a message is written goes into that message: while one
    batch is on its way, the calls the process's other tables make queue up and
    leave together in the next.  With one table nothing waits (a batch of one);
    with twenty busy tables a message carries several calls, and both sides pay
    grpc.aio's per-message cost once for them all.  Each call keeps its own
    deadline and its own answer or error (``DownstreamError``)."""

    def __init__(
        self,
        name: str,
        open_stream: Callable[[AsyncIterator[Any]], Any],
        new_batch: Callable[[], Any],
        fields: Mapping[str, str],
        deadline: float,
    ) -> None:
        self._name = name
        self._open_stream = open_stream
        self._new_batch = new_batch
        self.fields = fields  # the methods it carries
        self._deadline = deadline
        self._queue: asyncio.Queue[tuple[int, str, Any] | None] | None = None
        self._pending: dict[int, asyncio.Future[Any]] = {}
        self._ids = itertools.count(1)
        self._reader: asyncio.Task[None] | None = None

    def _open(self) -> asyncio.Queue[tuple[int, str, Any] | None]:
        queue: asyncio.Queue[tuple[int, str, Any] | None] = asyncio.Queue()

        def add(batch: Any, item: tuple[int, str, Any]) -> None:
            call_id, field, request = item
            message = batch.calls.add()
            message.id = call_id
            getattr(message, field).CopyFrom(request)

        call = self._open_stream(drain(queue, self._new_batch, add))
        self._queue = queue
        self._reader = asyncio.create_task(self._read(call, queue), name=f"{self._name} stream")
        return queue

    async def _read(self, call: Any, queue: asyncio.Queue[tuple[int, str, Any] | None]) -> None:
        failure = DownstreamError(grpc.StatusCode.UNAVAILABLE, f"{self._name} stream ended")
        try:
            async for reply in call:
                for response in reply.replies:
                    future = self._pending.pop(response.id, None)
                    if future is not None and not future.done():
                        future.set_result(response)
        except grpc.aio.AioRpcError as error:
            failure = DownstreamError(
                error.code(), error.details() or f"{self._name} stream failed"
            )
        finally:
            if self._queue is queue:
                self._queue = None
            for future in self._pending.values():
                if not future.done():
                    future.set_exception(failure)
            self._pending.clear()

    def _expire(self, call_id: int, method: str) -> None:
        future = self._pending.pop(call_id, None)
        if future is not None and not future.done():
            future.set_exception(
                DownstreamError(
                    grpc.StatusCode.DEADLINE_EXCEEDED, f"{self._name} {method}: no answer in time"
                )
            )

    async def call(self, method: str, request: Any) -> Any:
        queue = self._queue or self._open()
        call_id = next(self._ids)
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Any] = loop.create_future()
        self._pending[call_id] = future
        queue.put_nowait((call_id, self.fields[method], request))
        # One timer per call (cheaper than asyncio.wait_for's task and waiter).
        timer = loop.call_later(self._deadline, self._expire, call_id, method)
        try:
            response = await future
        finally:
            timer.cancel()
        result = response.WhichOneof("result")
        if result == "error":
            code = _CODES.get(response.error.code, grpc.StatusCode.UNKNOWN)
            raise DownstreamError(code, response.error.message)
        return getattr(response, result)

    async def close(self) -> None:
        if self._queue is not None:
            self._queue.put_nowait(None)
        if self._reader is not None:
            try:
                await asyncio.wait_for(self._reader, 2)
            except (TimeoutError, asyncio.CancelledError):
                self._reader.cancel()


class Downstream:
    """Stubs of the four services the table calls, over long-lived channels."""

    def __init__(
        self, addresses: Addresses, deadline: float | None = None, *, betting_session: bool = True
    ) -> None:
        options = [("grpc.keepalive_time_ms", 30_000)]
        self.deadline = default_deadline() if deadline is None else deadline
        # Plain channels: ``call`` gives every unary call ``timeout=self.deadline``
        # itself.  A deadline interceptor (service_kit.insecure_channel) would do
        # the same at the price of an extra task per call, on the hottest path.
        self._channels = {
            name: grpc.aio.insecure_channel(getattr(addresses, name), options=options)
            for name in ("lobby", "dealer", "betting", "showdown")
        }
        self.lobby = lobby_pb2_grpc.LobbyStub(self._channels["lobby"])
        self.dealer = dealer_pb2_grpc.DealerStub(self._channels["dealer"])
        self.betting = betting_pb2_grpc.BettingStub(self._channels["betting"])
        self.showdown = showdown_pb2_grpc.ShowdownStub(self._channels["showdown"])
        # Betting, dealer, showdown and the lobby's hand calls go over batched
        # streams (unary with TABLE_BETTING_SESSION=0); the lobby's others are unary.
        self.streams: dict[str, CallStream] = {}
        if betting_session:
            self.streams["betting"] = CallStream(
                "betting",
                self.betting.SessionBatches,
                bpb.SessionBatch,
                _BETTING_FIELDS,
                self.deadline,
            )
            self.streams["dealer"] = CallStream(
                "dealer", self.dealer.Session, dpb.SessionBatch, _DEALER_FIELDS, self.deadline
            )
            self.streams["lobby"] = CallStream(
                "lobby", self.lobby.Session, lpb.SessionBatch, _LOBBY_FIELDS, self.deadline
            )
            self.streams["showdown"] = CallStream(
                "showdown",
                self.showdown.Session,
                spb.SessionBatch,
                _SHOWDOWN_FIELDS,
                self.deadline,
            )
        self.calls = 0
        self._counters: dict[tuple[str, str], Any] = {}
        self._timers: dict[str, Any] = {}

    def _count(self, service: str, method: str, transport: str) -> None:
        counter = self._counters.get((service, method))
        if counter is None:
            counter = self._counters[(service, method)] = DOWNSTREAM_CALLS.labels(
                service, method, transport
            )
        counter.inc()

    async def call(self, service: str, method: str, request: Any) -> Any:
        """``await stub.method(request)``, counted; a failure raises DownstreamError
        for the caller to void the hand, retry, or pass on."""
        self.calls += 1
        session = self.streams.get(service)
        if session is not None and method not in session.fields:
            session = None
        self._count(service, method, "unary" if session is None else "stream")
        started = time.perf_counter()
        try:
            if session is not None:
                return await session.call(method, request)
            return await getattr(getattr(self, service), method)(request, timeout=self.deadline)
        except grpc.aio.AioRpcError as error:
            DOWNSTREAM_FAILURES.labels(service, method, error.code().name).inc()
            raise DownstreamError(error.code(), error.details() or "") from error
        except DownstreamError as error:
            DOWNSTREAM_FAILURES.labels(service, method, error.code().name).inc()
            raise
        finally:
            timer = self._timers.get(service)
            if timer is None:  # the child looked up once (``labels`` takes a lock)
                timer = self._timers[service] = DOWNSTREAM_SECONDS.labels(service)
            timer.observe(time.perf_counter() - started)

    async def close(self) -> None:
        for stream in self.streams.values():
            await stream.close()
        for channel in self._channels.values():
            await channel.close()
