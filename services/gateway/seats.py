"""A seat's streams through the door: Play (both ways), Follow (events only, for
clients that cannot stream both ways) and PlayMany (many seats, one stream).

Each opens the same stream on the shard that runs the table and passes the
shard's events on as they came, as bytes (``codecs.Encoded``): the gateway
never rebuilds a seat's view, so what a seat sees through the door is exactly
what the table built for it.  The player's credential goes into the Join (the
table checks it again with the lobby).

PlayMany's seats may sit at tables on different shards: the gateway opens one
upstream PlayMany per shard the client's sessions need and routes each session's
messages to its table's shard; the shards' event batches come back as they are
(their sessions are the client's numbers).  A session whose table no shard runs
ends at once with NOT_FOUND; a shard stream that breaks ends its sessions with
its status, the others go on.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from typing import Any

import grpc

from poker.table.v1 import table_pb2 as tpb
from poker_wire.batching import drain
from poker_wire.broken import upstream_status
from service_kit.errors import PermissionDeniedError, ServiceError

from .codecs import Encoded
from .credentials import Credentials, Player, UnauthenticatedError
from .errors import StatusError
from .upstream import Upstream


def seat_join(join: tpb.Join, player: Player | None) -> tpb.Join:
    """The Join the shard gets: the credential's player, or the Join's own
    (PlayMany, or Play without a bearer); a Join naming someone else than the
    bearer is PERMISSION_DENIED."""
    if player is not None:
        if join.player_id and join.player_id != player.player_id:
            raise PermissionDeniedError(
                f"the Join names player {join.player_id!r}; your credential is for "
                f"{player.player_id!r}"
            )
        if join.token and join.token != player.token:
            raise PermissionDeniedError("the Join's token is not your credential's")
        join.player_id = player.player_id
        join.token = player.token
    elif not join.player_id or not join.token:
        raise UnauthenticatedError(
            "who is playing? send `authorization: Bearer <credential>` (or the Join's "
            "player_id and token)"
        )
    return join


# A write to a shard's stream that has ended (the shard went away or refused):
# grpc.aio raises its status, or InvalidStateError once the call is done.  The
# stream's read side reports the status; the write is dropped.
UPSTREAM_GONE = (grpc.aio.AioRpcError, asyncio.InvalidStateError)


async def _forever() -> None:
    await asyncio.Event().wait()


async def play(
    upstream: Upstream, first: tpb.PlayerMessage, rest: AsyncIterator[tpb.PlayerMessage]
) -> AsyncIterator[Encoded]:
    """A Play stream forwarded to the table's shard (``first`` is its Join)."""
    shard = await upstream.shards.shard_of(first.join.table_id)
    call = upstream.raw_play(shard)()
    with contextlib.suppress(*UPSTREAM_GONE):  # its read tells why
        await call.write(first)

    failure: list[Exception] = []

    async def pump() -> None:
        try:
            async for message in rest:  # an undecodable message raises here
                try:
                    await call.write(message)
                except UPSTREAM_GONE:
                    return  # the shard's stream ended: its read side has the status
            with contextlib.suppress(*UPSTREAM_GONE):
                await call.done_writing()
        except (asyncio.CancelledError, grpc.aio.AioRpcError):
            return
        except Exception as error:  # the client's message: the call ends with it
            failure.append(error)
            call.cancel()

    pumping = asyncio.create_task(pump())
    try:
        async for data in _rest(call):
            yield Encoded(data, tpb.TableEvent)
    except (grpc.aio.AioRpcError, asyncio.CancelledError):
        # The call pump() cancelled reads as CancelledError (grpc.aio's locally
        # cancelled call): the client sees its own message's error, not CANCELLED.
        if failure:
            raise failure[0] from None
        raise
    finally:
        pumping.cancel()
        call.cancel()


async def follow(upstream: Upstream, join: tpb.Join) -> AsyncIterator[Encoded]:
    """A seat's events (Follow): the shard's Play with only its Join sent; the
    upward half stays open until the client goes."""

    async def requests() -> AsyncIterator[tpb.PlayerMessage]:
        yield tpb.PlayerMessage(join=join)
        await _forever()

    async def open_on(shard: int) -> Any:
        call = upstream.raw_play(shard)(requests())
        first = await call.read()  # the Snapshot, or the refusal (NOT_FOUND: moved)
        if first is grpc.aio.EOF:
            raise StatusError(
                grpc.StatusCode.UNAVAILABLE, "the table ended the stream before its snapshot"
            )
        return call, first

    call, first = await upstream.on_table(join.table_id, open_on)
    try:
        yield Encoded(first, tpb.TableEvent)
        async for data in _rest(call):
            yield Encoded(data, tpb.TableEvent)
    finally:
        call.cancel()


async def _rest(call: Any) -> AsyncIterator[bytes]:
    """The messages of a call after the ones already read; ``read`` raises the
    call's status when it is not OK, and gives EOF when the shard ended it well."""
    while True:
        data = await call.read()
        if data is grpc.aio.EOF:
            return
        yield data


# A shard's upward queue: this many messages waiting makes the client's stream
# wait (HTTP/2 flow control then holds the client).
UP_QUEUE_LIMIT = 256
# Messages are joined up to these many bytes (one larger than that leaves alone,
# as it came): up, well under the table service's 1 MiB receive limit
# (MAX_MESSAGE_BYTES); down, well under a gRPC client's 4 MiB.
UP_JOIN_BYTES = 256 * 1024
DOWN_JOIN_BYTES = 1 << 20


class _Parts:
    """The serialized messages of one coalesced write, and their size so far
    (kept as they are added: a long backlog costs one pass, not one per part);
    ``fits_up`` / ``fits_down`` say whether one more joins it."""

    __slots__ = ("parts", "size")

    def __init__(self) -> None:
        self.parts: list[bytes] = []
        self.size = 0

    def add(self, data: bytes) -> None:
        self.parts.append(data)
        self.size += len(data)

    def fits_up(self, data: bytes) -> bool:
        return self.size + len(data) <= UP_JOIN_BYTES

    def fits_down(self, data: bytes) -> bool:
        return self.size + len(data) <= DOWN_JOIN_BYTES

    def joined(self) -> bytes:
        """The parts as one message (the encoding of a repeated field is its
        elements' concatenated, so two PlayManyRequests' or PlayManyEvents'
        bytes are the message of both).

        >>> parts = _Parts()
        >>> parts.add(tpb.PlayManyEvents(events=[tpb.SessionEvent(session=1)]).SerializeToString())
        >>> parts.add(tpb.PlayManyEvents(events=[tpb.SessionEvent(session=2)]).SerializeToString())
        >>> [e.session for e in tpb.PlayManyEvents.FromString(parts.joined()).events]
        [1, 2]
        """
        return self.parts[0] if len(self.parts) == 1 else b"".join(self.parts)


class _ShardStream:
    """One upstream PlayMany: its reader, and its writer, which sends the
    client's messages for the shard in order, those that queued while a write
    was in flight as one message (PlayManyRequests' bytes joined): a busy
    stream costs fewer writes, and the client's next message is not held
    while grpc.aio reports the last write done."""

    def __init__(self, call: Any) -> None:
        self.call = call
        self.queue: asyncio.Queue[bytes | None] = asyncio.Queue()
        self._room = asyncio.Event()
        self._closed = False
        self.writer = asyncio.create_task(self._write_all())
        self.reader: asyncio.Task[None] | None = None

    async def put(self, data: bytes) -> None:
        """Queue ``data``; past ``UP_QUEUE_LIMIT`` waiting, wait for the writer
        (the client's stream then waits too, as it did on an awaited write)."""
        while self.queue.qsize() >= UP_QUEUE_LIMIT and not self._closed:
            self._room.clear()
            await self._room.wait()
        self.queue.put_nowait(data)

    def close(self) -> None:
        """No more messages: the writer sends what is queued, then half-closes
        (or, the call having ended, drops it)."""
        if not self._closed:
            self._closed = True
            self._room.set()
            self.queue.put_nowait(None)

    async def _write_all(self) -> None:
        broken = False
        async for parts in drain(self.queue, _Parts, _Parts.add, fits=_Parts.fits_up):
            self._room.set()
            if broken:
                continue  # the shard's stream ended: its reader has the status
            try:
                await self.call.write(parts.joined())
            except UPSTREAM_GONE:
                broken = True
        if not broken:
            with contextlib.suppress(*UPSTREAM_GONE):
                await self.call.done_writing()

    def cancel(self) -> None:
        self.call.cancel()
        self.writer.cancel()
        if self.reader is not None:
            self.reader.cancel()


class ManySeats:
    """One client's PlayMany, split over the shards (see the module)."""

    def __init__(
        self,
        upstream: Upstream,
        credentials: Credentials,
        admit: Callable[[str], None],
        address: str | None,
    ) -> None:
        self._upstream = upstream
        self._address = address
        self._credentials = credentials
        self._admit = admit
        self._sessions: dict[int, int] = {}
        self._streams: dict[int, _ShardStream] = {}
        self._all: list[_ShardStream] = []
        # Serialized PlayManyEvents: the shards' as they came, the gateway's own
        # (a session it ended) serialized here.
        self.out: asyncio.Queue[bytes | None] = asyncio.Queue()
        self.failure: Exception | None = None  # the client's stream broke (undecodable)

    def _ended(self, session: int, code: grpc.StatusCode, message: str) -> None:
        self.out.put_nowait(
            tpb.PlayManyEvents(
                events=[
                    tpb.SessionEvent(
                        session=session,
                        ended=tpb.SessionEnded(code=code.value[0], message=message),
                    )
                ]
            ).SerializeToString()
        )

    async def _read(self, shard: int, stream: _ShardStream) -> None:
        code, message = grpc.StatusCode.UNAVAILABLE, "the table service's stream ended"
        try:
            async for data in stream.call:
                self.out.put_nowait(data)
            code = grpc.StatusCode.OK
        except grpc.aio.AioRpcError as error:
            code, message = upstream_status(error)  # a failed write's INTERNAL: UNAVAILABLE
        finally:
            if self._streams.get(shard) is stream:
                del self._streams[shard]
            stream.close()  # a later message for the shard opens a new stream
            for session in [s for s, at in self._sessions.items() if at == shard]:
                del self._sessions[session]
                if code != grpc.StatusCode.OK:
                    self._ended(session, code, message)

    def _stream(self, shard: int) -> _ShardStream:
        stream = self._streams.get(shard)
        if stream is None:
            stream = self._streams[shard] = _ShardStream(self._upstream.raw_play_many(shard)())
            stream.reader = asyncio.create_task(self._read(shard, stream))
            self._all = [s for s in self._all if s.reader is not None and not s.reader.done()]
            self._all.append(stream)
        return stream

    async def _write(self, shard: int, request: tpb.PlayManyRequest) -> None:
        """Onto the shard's stream: its writer sends it (a stream that has ended
        drops it; its reader ends the shard's sessions with the stream's status,
        and the next message opens a new stream)."""
        await self._stream(shard).put(request.SerializeToString())

    async def _route(self, message: tpb.SessionMessage) -> int | None:
        """The shard of this session's message; None when it ended here."""
        if message.message.HasField("join"):
            join = message.message.join
            try:
                if not join.player_id or not join.token:
                    raise UnauthenticatedError(
                        "each PlayMany Join carries its player's id and token"
                    )
                # The door's own check (one answer for a wrong token and an unknown
                # player), then the player's limit: a stranger cannot spend it.
                await self._credentials.of_join(join.player_id, join.token, self._address)
                self._admit(join.player_id)
                shard = await self._upstream.shards.shard_of(join.table_id)
            except ServiceError as error:
                self._sessions.pop(message.session, None)
                self._ended(message.session, error.code, error.message)
                return None
            except grpc.aio.AioRpcError as error:  # the lobby, asked where the table is
                self._sessions.pop(message.session, None)
                self._ended(message.session, *upstream_status(error))
                return None
            old = self._sessions.get(message.session)
            if old is not None and old != shard:  # a session number used again
                await self._write(
                    old,
                    tpb.PlayManyRequest(
                        messages=[tpb.SessionMessage(session=message.session, leave=True)]
                    ),
                )
            self._sessions[message.session] = shard
            return shard
        routed = self._sessions.get(message.session)
        if routed is None and not message.leave:
            self._ended(
                message.session,
                grpc.StatusCode.INVALID_ARGUMENT,
                "a session's first message must be its Join",
            )
        return routed

    async def forward(self, requests: AsyncIterator[tpb.PlayManyRequest]) -> None:
        try:
            async for batch in requests:
                per_shard: dict[int, tpb.PlayManyRequest] = {}
                for message in batch.messages:
                    shard = await self._route(message)
                    if shard is None:
                        continue
                    per_shard.setdefault(shard, tpb.PlayManyRequest()).messages.append(message)
                    if message.leave:
                        self._sessions.pop(message.session, None)
                for shard, request in per_shard.items():
                    await self._write(shard, request)
            for stream in list(self._streams.values()):
                stream.close()
            await asyncio.gather(*(s.reader for s in self._all if s.reader), return_exceptions=True)
        except (asyncio.CancelledError, grpc.aio.AioRpcError):
            pass
        except Exception as error:  # an undecodable message: the call ends with it
            self.failure = error
        finally:
            self.out.put_nowait(None)

    async def events(self, requests: AsyncIterator[tpb.PlayManyRequest]) -> AsyncIterator[Encoded]:
        """The shards' event messages as they come; those that queued while the
        client's last message was being sent leave together, as one message
        (``_Parts.joined``)."""
        forwarding = asyncio.create_task(self.forward(requests))
        try:
            async for parts in drain(self.out, _Parts, _Parts.add, fits=_Parts.fits_down):
                yield Encoded(parts.joined(), tpb.PlayManyEvents)
            if self.failure is not None:
                raise self.failure
        finally:
            forwarding.cancel()
            for stream in self._all:
                stream.cancel()
