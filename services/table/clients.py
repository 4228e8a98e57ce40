"""The table service's downstream calls: one stub per service, every call with a
deadline and counted.

Betting decisions, the bulk of a hand's calls (one per decision), the dealer's
calls, the lobby's hand calls (NextHand, FinishHand, VoidPendingHand) and the
showdown's go over each service's ``Batch`` stream (poker/common/v1/batch.proto):
one long-lived stream per service and table-service process, each call matched
to its reply by id, and every call waiting when a message goes out carried in
that message.  A stream message costs a fraction of a unary call in grpc.aio (the
ceiling benchmark measures both), a batch costs about one message, and the
betting service stays stateless: a call may carry its state.  Which methods
ride the stream is the protos' ``batched`` option (``batched_methods``); the
lobby's other calls (Authenticate, ListTables...) stay unary.
``TABLE_BATCHED_CALLS=0`` makes them all unary again.

Every failure, unary or on the stream (refused, deadline passed, stream broken),
reaches the caller as ``DownstreamError`` with the status code, so the hand runner
handles both paths the same way: a refused action goes back to the player,
anything else voids the hand.

The count is the table's cost per hand (inter-service calls per hand):
``table_downstream_calls_total{service,method,transport}`` on /metrics,
``transport`` "unary" (an RPC) or "batched" (a call on a Batch stream).
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass
from typing import Any

import grpc

from poker.betting.v1 import betting_pb2, betting_pb2_grpc
from poker.common.v1.batch_pb2 import CallBatch, Reply
from poker.dealer.v1 import dealer_pb2, dealer_pb2_grpc
from poker.lobby.v1 import lobby_pb2, lobby_pb2_grpc
from poker.showdown.v1 import showdown_pb2, showdown_pb2_grpc
from poker_wire.batching import drain
from service_kit.batches import BatchedMethod, batched_methods
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
# The methods each service's Batch stream carries, from the protos' ``batched``
# option (the server reads the same).
_BATCHED = {
    "betting": batched_methods(betting_pb2.DESCRIPTOR.services_by_name["Betting"]),
    "dealer": batched_methods(dealer_pb2.DESCRIPTOR.services_by_name["Dealer"]),
    "lobby": batched_methods(lobby_pb2.DESCRIPTOR.services_by_name["Lobby"]),
    "showdown": batched_methods(showdown_pb2.DESCRIPTOR.services_by_name["Showdown"]),
}
_Queued = tuple[int, str, bytes]  # call id, method, serialized request


class CallStream:
    """A service's batched calls as messages of its ``Batch`` stream, reopened
    when broken.

    Every call waiting when a message is written goes into that message: while one
    batch is on its way, the calls the process's other tables make queue up and
    leave together in the next.  With one table nothing waits (a batch of one);
    with twenty busy tables a message carries several calls, and both sides pay
    grpc.aio's per-message cost once for them all.  Each call keeps its own
    deadline and its own answer or error (``DownstreamError``)."""

    def __init__(
        self,
        name: str,
        open_stream: Callable[[AsyncIterator[CallBatch]], Any],
        methods: Mapping[str, BatchedMethod],
        deadline: float,
    ) -> None:
        self._name = name
        self._open_stream = open_stream
        self.methods = methods  # the methods it carries
        self._deadline = deadline
        self._queue: asyncio.Queue[_Queued | None] | None = None
        self._pending: dict[int, asyncio.Future[Reply]] = {}
        self._ids = itertools.count(1)
        self._reader: asyncio.Task[None] | None = None

    def _open(self) -> asyncio.Queue[_Queued | None]:
        queue: asyncio.Queue[_Queued | None] = asyncio.Queue()

        def add(batch: CallBatch, item: _Queued) -> None:
            call_id, method, request = item
            batch.calls.add(id=call_id, method=method, request=request)

        call = self._open_stream(drain(queue, CallBatch, add))
        self._queue = queue
        self._reader = asyncio.create_task(self._read(call, queue), name=f"{self._name} stream")
        return queue

    async def _read(self, call: Any, queue: asyncio.Queue[_Queued | None]) -> None:
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
        future: asyncio.Future[Reply] = loop.create_future()
        self._pending[call_id] = future
        queue.put_nowait((call_id, method, request.SerializeToString()))
        # One timer per call (cheaper than asyncio.wait_for's task and waiter).
        timer = loop.call_later(self._deadline, self._expire, call_id, method)
        try:
            response = await future
        finally:
            timer.cancel()
        if response.WhichOneof("result") == "error":
            code = _CODES.get(response.error.code, grpc.StatusCode.UNKNOWN)
            raise DownstreamError(code, response.error.message)
        return self.methods[method].response.FromString(response.response)

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
        self, addresses: Addresses, deadline: float | None = None, *, batched: bool = True
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
        # The batched methods go over each service's Batch stream (unary with
        # TABLE_BATCHED_CALLS=0); the lobby's others are unary.
        self.streams: dict[str, CallStream] = {}
        if batched:
            for name, methods in _BATCHED.items():
                stub = getattr(self, name)
                self.streams[name] = CallStream(name, stub.Batch, methods, self.deadline)
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
        stream = self.streams.get(service)
        if stream is not None and method not in stream.methods:
            stream = None
        self._count(service, method, "unary" if stream is None else "batched")
        started = time.perf_counter()
        try:
            if stream is not None:
                return await stream.call(method, request)
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
