"""PlayMany: many seats over one stream (see the proto).

Why: a process that plays many bots (a bot lab, a load test, the benchmark) would
otherwise hold one Play stream per seat, and grpc.aio charges every message on
every stream.  Over one stream, every event waiting when a message is written
goes into that message, whichever seat it is for, and the client's actions for
many seats arrive together, so both sides pay the per-message cost once for many
seats while the tables are busy.

Each session is what a Play stream would be: a Join first (checked with the
lobby like Play's, so a wrong token ends that session with PERMISSION_DENIED),
then actions and pings, with the same subscriber (visibility, delivery,
rejections, replacement by a newer connection).  A session's messages that
arrive while its Join is being checked wait and are handled in order after it.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field

import grpc

from poker.table.v1 import table_pb2 as pb
from poker_wire import check_count
from poker_wire.batching import drain
from service_kit.errors import status_of
from service_kit.logs import get_logger

from .metrics import CONNECTED, STREAM_MESSAGES
from .runtime import TableRuntime
from .viewers import QUEUE_LIMIT, Subscriber

# How the servicer opens a seat: runtime lookup and token check, as Play does.
Opener = Callable[[pb.Join], Awaitable[TableRuntime]]

MAX_SESSIONS = 1_000  # seats one stream may hold at once


@dataclass
class _Session:
    number: int
    runtime: TableRuntime | None = None
    sub: Subscriber | None = None
    waiting: list[pb.SessionMessage] = field(default_factory=list)  # while joining
    over: bool = False


class Many:
    """One PlayMany stream's sessions and its outgoing queue."""

    def __init__(self, opener: Opener) -> None:
        self.opener = opener
        self.sessions: dict[int, _Session] = {}
        self.out: asyncio.Queue[
            tuple[int, pb.TableEvent | list[pb.TableEvent] | pb.SessionEnded] | None
        ] = asyncio.Queue()
        self.tasks: set[asyncio.Task[None]] = set()

    # ------------------------------------------------------------ outgoing

    def _sink(
        self, number: int
    ) -> Callable[[Subscriber, pb.TableEvent | list[pb.TableEvent] | None], None]:
        def sink(sub: Subscriber, event: pb.TableEvent | list[pb.TableEvent] | None) -> None:
            if event is not None:
                if self.out.qsize() >= QUEUE_LIMIT * max(1, len(self.sessions)):
                    sub.end(grpc.StatusCode.RESOURCE_EXHAUSTED, "the stream is not being read")
                    return
                self.out.put_nowait((number, event))
                return
            code, message = sub.ended or (grpc.StatusCode.OK, "")
            self._end(number, code, message)

        return sink

    def _end(self, number: int, code: grpc.StatusCode, message: str) -> None:
        session = self.sessions.pop(number, None)
        if session is None or session.over:
            return
        session.over = True
        if session.runtime is not None and session.sub is not None:
            session.runtime.leave(session.sub)
            CONNECTED.labels("player").dec()
        self.out.put_nowait((number, pb.SessionEnded(code=code.value[0], message=message)))

    async def batches(self) -> AsyncIterator[pb.PlayManyEvents]:
        """Every item waiting goes into the next message."""
        async for batch in drain(self.out, pb.PlayManyEvents, _add):
            STREAM_MESSAGES.labels("many").inc()
            yield batch

    # ------------------------------------------------------------ incoming

    async def read(self, requests: AsyncIterator[pb.PlayManyRequest]) -> None:
        try:
            async for request in requests:
                for message in request.messages:
                    self._handle(message)
        except (asyncio.CancelledError, grpc.aio.AioRpcError):
            pass
        finally:
            self.out.put_nowait(None)  # the client closed: end the stream

    def _handle(self, message: pb.SessionMessage) -> None:
        number = message.session
        session = self.sessions.get(number)
        if session is None:
            self._open(message)
            return
        if session.sub is None:  # still joining: in order after the Join
            session.waiting.append(message)
            return
        self._apply(session, message)

    def _open(self, message: pb.SessionMessage) -> None:
        number = message.session
        if number < 1:
            self._refuse(number, "session numbers are 1 or more")
            return
        if message.leave:
            return  # nothing to leave
        if not message.message.HasField("join"):
            self._refuse(number, "a session's first message must be a Join")
            return
        if len(self.sessions) >= MAX_SESSIONS:
            self._refuse(number, f"at most {MAX_SESSIONS} sessions per stream")
            return
        session = self.sessions[number] = _Session(number)
        task = asyncio.create_task(self._join(session, message.message.join))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    def _refuse(self, number: int, why: str) -> None:
        self.out.put_nowait(
            (
                number,
                pb.SessionEnded(code=grpc.StatusCode.INVALID_ARGUMENT.value[0], message=why),
            )
        )

    async def _join(self, session: _Session, join: pb.Join) -> None:
        try:
            check_count(join.delivery, "join.delivery", 0, max(pb.Delivery.values()))
            runtime = await self.opener(join)
            seating = await runtime.seating()
        except Exception as error:
            status = status_of(error, {})
            if status is None:
                get_logger().exception("unexpected error", method="PlayMany/join")
                status = (grpc.StatusCode.INTERNAL, "internal error")
            self._end(session.number, *status)
            return
        if session.over:
            return
        session.runtime = runtime
        session.sub = runtime.join(
            join.player_id, join.delivery, self._sink(session.number), seating
        )
        CONNECTED.labels("player").inc()
        waiting, session.waiting = session.waiting, []
        for message in waiting:
            if session.over:
                return
            self._apply(session, message)

    def _apply(self, session: _Session, message: pb.SessionMessage) -> None:
        runtime, sub = session.runtime, session.sub
        if runtime is None or sub is None:
            raise RuntimeError("a message applied before its Join was taken")
        if message.leave:
            sub.end(grpc.StatusCode.OK, "")
            return
        msg = message.message
        if msg.HasField("action"):
            runtime.submit(sub, msg.action)
        elif msg.HasField("ping"):
            sub.direct(pb.TableEvent(table_id=runtime.table_id, pong=pb.Pong(nonce=msg.ping.nonce)))
        else:
            runtime.send_rejection(
                sub,
                0,
                grpc.StatusCode.INVALID_ARGUMENT,
                "after the Join, send actions or pings only",
            )

    async def close(self) -> None:
        for task in list(self.tasks):
            task.cancel()
        for number in list(self.sessions):
            self._end(number, grpc.StatusCode.CANCELLED, "the stream closed")


def _add(
    batch: pb.PlayManyEvents,
    item: tuple[int, pb.TableEvent | list[pb.TableEvent] | pb.SessionEnded],
) -> None:
    number, what = item
    tagged = batch.events.add(session=number)
    if isinstance(what, pb.SessionEnded):
        tagged.ended.CopyFrom(what)
    elif isinstance(what, list):  # a DELIVERY_ON_TURN batch
        if len(what) == 1:
            tagged.event.CopyFrom(what[0])
        else:
            tagged.event.batch.events.extend(what)
    else:
        tagged.event.CopyFrom(what)


async def play_many(
    opener: Opener, requests: AsyncIterator[pb.PlayManyRequest]
) -> AsyncIterator[pb.PlayManyEvents]:
    """The PlayMany stream: sessions in, batches of their events out."""
    many = Many(opener)
    reader = asyncio.create_task(many.read(requests))
    try:
        async for batch in many.batches():
            yield batch
    finally:
        reader.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await reader
        await many.close()
