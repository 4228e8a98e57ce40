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
from pathlib import Path
from typing import Any

import grpc

from poker.betting.v1 import betting_pb2, betting_pb2_grpc
from poker.common.v1.batch_pb2 import CallBatch, Reply
from poker.dealer.v1 import dealer_pb2, dealer_pb2_grpc
from poker.lobby.v1 import lobby_pb2, lobby_pb2_grpc
from poker.showdown.v1 import showdown_pb2, showdown_pb2_grpc
from poker_wire.batching import drain
from poker_wire.channels import Stubs, service_channel
from service_kit.batches import BatchedMethod, batched_methods
from service_kit.deadlines import default_deadline
from service_kit.logs import get_logger
from service_kit.tls import TlsFiles

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
    "lobby": batched_methods(lobby_pb2.DESCRIPTOR.services_by_name["LobbyHands"]),
    "showdown": batched_methods(showdown_pb2.DESCRIPTOR.services_by_name["Showdown"]),
}
_Queued = tuple[int, str, bytes]  # call id, method, serialized request

# A Batch message's requests stop growing past this many bytes: a backlog (a
# lobby back after a pause, a thousand tables each with a FinishHand carrying its
# hand's history, ~2 KB) leaves in several messages, each well under the
# receivers' 1 MiB limit (MAX_MESSAGE_BYTES), instead of one the stream refuses.
BATCH_BYTES = 256 * 1024
# Unary calls that may wait longer than a hand's (CALL_DEADLINE_S), in seconds: a
# Join's token check, queued at the lobby with thousands of others when every seat
# comes back at once (a restart).  A join that waits is better than one refused;
# a lobby that does not answer still fails it in bounded time (the table answers
# UNAVAILABLE, which the SDK retries: services/table/servicer.py).
PATIENT_CALLS: Mapping[tuple[str, str], float] = {("lobby", "Authenticate"): 30.0}


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

        size = 0  # the requests' bytes in the message being filled

        def new_batch() -> CallBatch:
            nonlocal size
            size = 0
            return CallBatch()

        def add(batch: CallBatch, item: _Queued) -> None:
            nonlocal size
            call_id, method, request = item
            batch.calls.add(id=call_id, method=method, request=request)
            size += len(request) + len(method) + 16

        def full(batch: CallBatch) -> bool:
            return size >= BATCH_BYTES

        call = self._open_stream(drain(queue, new_batch, add, full))
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
    """Stubs of the four services the table calls, over long-lived channels.

    Every channel is mutual TLS with the table's own certificate (``tls_dir``, the
    identity ``table``): the only identity the dealer, betting, showdown and the
    lobby's hand protocol answer (poker/common/v1/access.proto).

    A certificate is read when a channel is made, so when the files in
    ``tls_dir`` change (cert-manager renewed the Secret) the table makes new
    channels and streams for the calls that follow; the old ones finish what they
    carry and close.  The files are looked at once every ``ROTATION_CHECK_S``.
    """

    ROTATION_CHECK_S = 30.0

    def __init__(
        self,
        addresses: Addresses,
        deadline: float | None = None,
        *,
        batched: bool = True,
        tls_dir: str | None = None,
        plaintext: bool = False,
    ) -> None:
        self.deadline = default_deadline() if deadline is None else deadline
        self._addresses = addresses
        self._batched = batched
        self._tls_dir = tls_dir
        self._plaintext = plaintext
        self._stamp = self._files_stamp()
        self._next_check = 0.0
        self._retired: list[tuple[dict[str, grpc.aio.Channel], dict[str, CallStream]]] = []
        self._connect()
        self.calls = 0
        self._counters: dict[tuple[str, str], Any] = {}
        self._timers: dict[str, Any] = {}

    def _files_stamp(self) -> tuple[int, ...]:
        return () if self._tls_dir is None else TlsFiles(Path(self._tls_dir)).stamp()

    def _connect(self) -> None:
        """Channels, stubs and Batch streams, with the certificate as it is now."""
        options = [("grpc.keepalive_time_ms", 30_000)]
        # No deadline interceptor: ``call`` gives every unary call
        # ``timeout=self.deadline`` itself, which an interceptor would do at the
        # price of an extra task per call, on the hottest path.
        self._channels = {
            name: service_channel(
                getattr(self._addresses, name),
                self._tls_dir,
                options=options,
                plaintext=self._plaintext,
            )
            for name in ("lobby", "dealer", "betting", "showdown")
        }
        self.lobby = Stubs(
            lobby_pb2_grpc.LobbyStub(self._channels["lobby"]),
            lobby_pb2_grpc.LobbyHandsStub(self._channels["lobby"]),
        )
        self.dealer = dealer_pb2_grpc.DealerStub(self._channels["dealer"])
        self.betting = betting_pb2_grpc.BettingStub(self._channels["betting"])
        self.showdown = showdown_pb2_grpc.ShowdownStub(self._channels["showdown"])
        # The batched methods go over each service's Batch stream (unary with
        # TABLE_BATCHED_CALLS=0); the lobby's others are unary.
        self.streams: dict[str, CallStream] = {}
        if self._batched:
            for name, methods in _BATCHED.items():
                stub = getattr(self, name)
                self.streams[name] = CallStream(name, stub.Batch, methods, self.deadline)

    def _check_rotation(self) -> None:
        """New channels when the certificate files changed (see the class)."""
        now = time.monotonic()
        if now < self._next_check:
            return
        self._next_check = now + self.ROTATION_CHECK_S
        stamp = self._files_stamp()
        if not stamp or stamp == self._stamp:
            return
        self._stamp = stamp
        self._retired.append((self._channels, self.streams))
        self._connect()
        asyncio.get_running_loop().create_task(self._retire_old())
        get_logger().info("certificate reloaded: new channels", tls_dir=self._tls_dir)

    async def _retire_old(self) -> None:
        """Close the channels of the certificate before, once their calls are over."""
        await asyncio.sleep(self.deadline * 2)
        await self._close_retired()

    async def _close_retired(self) -> None:
        while self._retired:
            channels, streams = self._retired.pop()
            for stream in streams.values():
                await stream.close()
            for channel in channels.values():
                await channel.close()

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
        if self._tls_dir is not None:
            self._check_rotation()
        stream = self.streams.get(service)
        if stream is not None and method not in stream.methods:
            stream = None
        self._count(service, method, "unary" if stream is None else "batched")
        started = time.perf_counter()
        try:
            if stream is not None:
                return await stream.call(method, request)
            timeout = max(self.deadline, PATIENT_CALLS.get((service, method), 0.0))
            return await getattr(getattr(self, service), method)(request, timeout=timeout)
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
        self._retired.append((self._channels, self.streams))
        await self._close_retired()
