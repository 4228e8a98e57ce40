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

The stream's messages are written as bytes (``wire``): each session's events
are the bytes the table serialized once per view for every seat that sees the
same thing (``viewers.Audience.emit``), framed into ``PlayManyEvents`` without
being parsed or copied again; the handler's serializer passes them through
(``server.add_table_services``).  Copying each event into every seat's message
and serializing it there again cost the table a tenth of its CPU at 300 tables
at human pace (docs/performance.md, "Scale").
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

from . import wire
from .metrics import CONNECTED, STREAM_MESSAGES
from .runtime import TableRuntime
from .settings import PLAYMANY_SESSIONS
from .viewers import QUEUE_LIMIT, Subscriber

# How the servicer opens a seat: runtime lookup and token check, as Play does.
Opener = Callable[[pb.Join], Awaitable[TableRuntime]]


@dataclass
class _Session:
    number: int
    runtime: TableRuntime | None = None
    sub: Subscriber | None = None
    waiting: list[pb.SessionMessage] = field(default_factory=list)  # while joining
    over: bool = False


class Many:
    """One PlayMany stream's sessions and its outgoing queue."""

    def __init__(self, opener: Opener, max_sessions: int = PLAYMANY_SESSIONS) -> None:
        self.opener = opener
        self.max_sessions = max_sessions  # seats at once (TABLE_PLAYMANY_SESSIONS)
        self.sessions: dict[int, _Session] = {}
        # (session, a serialized SessionEvent) or None: the stream's end
        self.out: asyncio.Queue[tuple[int, bytes] | None] = asyncio.Queue()
        self.tasks: set[asyncio.Task[None]] = set()

    # ------------------------------------------------------------ outgoing

    def _sink(
        self, number: int
    ) -> Callable[[Subscriber, pb.TableEvent | list[pb.TableEvent] | bytes | None], None]:
        def sink(
            sub: Subscriber, event: pb.TableEvent | list[pb.TableEvent] | bytes | None
        ) -> None:
            if event is not None:
                if self.out.qsize() >= QUEUE_LIMIT * max(1, len(self.sessions)):
                    sub.end(grpc.StatusCode.RESOURCE_EXHAUSTED, "the stream is not being read")
                    return
                if not isinstance(event, bytes):  # the subscriber joins with wire=True
                    raise TypeError("a PlayMany session takes serialized events")
                self.out.put_nowait((number, wire.session_event(number, event)))
                return
            code, message = sub.ended or (grpc.StatusCode.OK, "")
            self._end(number, code, message)

        return sink

    def _put_ended(self, number: int, code: grpc.StatusCode, message: str) -> None:
        ended = pb.SessionEvent(
            session=number, ended=pb.SessionEnded(code=code.value[0], message=message)
        )
        self.out.put_nowait((number, ended.SerializeToString()))

    def _end(self, number: int, code: grpc.StatusCode, message: str) -> None:
        session = self.sessions.pop(number, None)
        if session is None or session.over:
            return
        session.over = True
        if session.runtime is not None and session.sub is not None:
            session.runtime.leave(session.sub)
            CONNECTED.labels("player").dec()
        self._put_ended(number, code, message)

    async def batches(self) -> AsyncIterator[bytes]:
        """Every item waiting goes into the next message (a serialized
        PlayManyEvents)."""
        async for batch in drain(self.out, list, _add):
            _MANY_MESSAGES.inc()
            yield wire.many_events(batch)

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
        if len(self.sessions) >= self.max_sessions:
            self._put_ended(
                number,
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                f"this stream holds {len(self.sessions)} sessions, the most one PlayMany "
                f"stream may (TABLE_PLAYMANY_SESSIONS={self.max_sessions}); end one, or "
                "open another stream",
            )
            return
        session = self.sessions[number] = _Session(number)
        task = asyncio.create_task(self._join(session, message.message.join))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    def _refuse(self, number: int, why: str) -> None:
        self._put_ended(number, grpc.StatusCode.INVALID_ARGUMENT, why)

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
            join.player_id, join.delivery, self._sink(session.number), seating, wire=True
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


_MANY_MESSAGES = STREAM_MESSAGES.labels("many")  # looked up once: every message


def _add(batch: list[bytes], item: tuple[int, bytes]) -> None:
    batch.append(item[1])


async def play_many(
    opener: Opener,
    requests: AsyncIterator[pb.PlayManyRequest],
    *,
    max_sessions: int = PLAYMANY_SESSIONS,
) -> AsyncIterator[bytes]:
    """The PlayMany stream: sessions in, batches of their events out (serialized
    PlayManyEvents, sent as they are); at most ``max_sessions`` at once."""
    many = Many(opener, max_sessions)
    reader = asyncio.create_task(many.read(requests))
    try:
        async for batch in many.batches():
            yield batch
    finally:
        reader.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await reader
        await many.close()
