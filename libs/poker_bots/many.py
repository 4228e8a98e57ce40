"""Many seats over one connection: the client side of the table's PlayMany.

A process that plays many bots (a bot lab, a load test) passes one
:class:`Multiplexer` to :func:`poker_bots.play` as the ``target`` of each bot::

    async with Multiplexer("127.0.0.1:50055") as mux:
        await asyncio.gather(*(play(mux, t, p, tok, RandomBot()) for t, p, tok in seats))

Each bot then plays exactly as over its own Play stream (join, turns, rejections,
pings, reconnects), but every seat's messages travel over one PlayMany stream:
what the bots send while the last message is being written leaves together, and
the table batches the events of all seats the same way.  grpc.aio charges its
per-message cost once per batch instead of once per seat.

A seat is a session of the stream.  When the table ends a session (wrong token,
replaced by a newer connection) that seat's read raises the ``AioRpcError`` Play
would have raised; when the whole stream breaks, every seat's read raises it and
the next ``Play()`` opens a new stream (the SDK reconnects seats as usual).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from typing import Any, Literal

import grpc
from grpc import aio

from poker.room.v1 import room_pb2
from poker.table.v1 import table_pb2
from poker_wire.batching import drain
from poker_wire.channels import player_channel

Via = Literal["room", "table"]
"""Where a bot's streams go: ``room``, the room's public door (the gateway, one
address for every table); ``table``, a table service's own public port (the
table's shard; tests and the direct bench)."""


def _error(code: grpc.StatusCode, details: str) -> aio.AioRpcError:
    return aio.AioRpcError(code, aio.Metadata(), aio.Metadata(), details)


_Outgoing = tuple[int, table_pb2.PlayerMessage | None]  # (session, message); None = leave


class SeatCall:
    """One seat's half of the shared stream, shaped like a Play call (``write``,
    ``read``, ``cancel``, ``done``) so that the SDK's session runs on it unchanged."""

    def __init__(self, mux: Multiplexer, number: int) -> None:
        self._mux = mux
        self.number = number
        self._inbox: asyncio.Queue[table_pb2.TableEvent | BaseException | None] = asyncio.Queue()
        self._done = False

    async def write(self, message: table_pb2.PlayerMessage) -> None:
        if self._done:
            raise _error(grpc.StatusCode.CANCELLED, "this seat's session is over")
        self._mux._send(self.number, message)

    async def read(self) -> Any:
        item = await self._inbox.get()
        if item is None:
            self._done = True
            return aio.EOF
        if isinstance(item, BaseException):
            self._done = True
            raise item
        return item

    def cancel(self) -> bool:
        """Leave the session; a pending read ends with ``CancelledError`` (as a
        cancelled Play call's does)."""
        if self._done:
            return False
        self._done = True
        self._mux._leave(self.number)
        self._inbox.put_nowait(asyncio.CancelledError())
        return True

    def done(self) -> bool:
        return self._done

    # the multiplexer's side
    def _deliver(self, event: table_pb2.TableEvent) -> None:
        self._inbox.put_nowait(event)

    def _close(self, failure: BaseException | None) -> None:
        self._inbox.put_nowait(failure)


class Multiplexer:
    """One PlayMany stream for many seats; usable wherever ``play`` takes a target."""

    def __init__(self, target: str | aio.Channel, *, via: Via = "room") -> None:
        self._own = isinstance(target, str)
        self._channel = player_channel(target) if isinstance(target, str) else target
        # The room's door (the gateway's Room.PlayMany, which routes each seat to
        # its table's shard), or a table service's own port (its PlayMany); the
        # stubs' method, with a deserializer that also counts the bytes received.
        self._play_many: Any = self._channel.stream_stream(
            _ROOM_PLAY_MANY if via == "room" else _TABLE_PLAY_MANY,
            request_serializer=table_pb2.PlayManyRequest.SerializeToString,
            response_deserializer=self._parse,
        )
        self.via = via
        self._out: asyncio.Queue[_Outgoing | None] | None = None
        self._seats: dict[int, SeatCall] = {}
        self._numbers = itertools.count(1)
        self._reader: asyncio.Task[None] | None = None
        self.messages_sent = 0
        self.messages_received = 0
        self.bytes_received = 0  # PlayManyEvents bytes, as they came off the wire

    def _parse(self, data: bytes) -> table_pb2.PlayManyEvents:
        self.bytes_received += len(data)
        return table_pb2.PlayManyEvents.FromString(data)

    def Play(self, metadata: Any = None) -> SeatCall:  # noqa: N802 - the stub's method name
        """A new seat session (its first write must be the Join, whose token
        authenticates the seat: one stream carries many players, so the stream's
        metadata cannot name one of them and is not used)."""
        if self._out is None:
            self._open()
        seat = SeatCall(self, next(self._numbers))
        self._seats[seat.number] = seat
        return seat

    def _open(self) -> None:
        out: asyncio.Queue[_Outgoing | None] = asyncio.Queue()

        async def requests() -> Any:
            async for batch in drain(out, table_pb2.PlayManyRequest, _add):
                self.messages_sent += 1
                yield batch

        call = self._play_many(requests())
        self._out = out
        self._reader = asyncio.create_task(self._read(call, out), name="play many")

    async def _read(self, call: Any, out: asyncio.Queue[_Outgoing | None]) -> None:
        failure: BaseException = _error(grpc.StatusCode.UNAVAILABLE, "the PlayMany stream ended")
        try:
            async for batch in call:
                self.messages_received += 1
                for tagged in batch.events:
                    seat = self._seats.get(tagged.session)
                    if seat is None:
                        continue
                    if tagged.HasField("ended"):
                        del self._seats[tagged.session]
                        code = tagged.ended.code
                        seat._close(
                            None
                            if code == 0
                            else _error(
                                _CODES.get(code, grpc.StatusCode.UNKNOWN), tagged.ended.message
                            )
                        )
                    else:
                        seat._deliver(tagged.event)
        except aio.AioRpcError as error:
            failure = error
            if error.code() == grpc.StatusCode.INTERNAL:
                # grpc.aio ends a stream whose request write failed in core (the
                # table service went away mid-write) INTERNAL, not UNAVAILABLE: for
                # the seats it is the same broken connection, which they reconnect.
                failure = _error(
                    grpc.StatusCode.UNAVAILABLE,
                    f"the PlayMany stream broke: INTERNAL {error.details()}",
                )
        except asyncio.CancelledError:
            failure = _error(grpc.StatusCode.CANCELLED, "the multiplexer was closed")
            raise
        finally:
            if self._out is out:
                self._out = None
            seats, self._seats = self._seats, {}
            for seat in seats.values():
                seat._close(failure)

    def _send(self, number: int, message: table_pb2.PlayerMessage) -> None:
        if self._out is None:
            raise _error(grpc.StatusCode.UNAVAILABLE, "the PlayMany stream is not open")
        self._out.put_nowait((number, message))

    def _leave(self, number: int) -> None:
        self._seats.pop(number, None)
        if self._out is not None:
            self._out.put_nowait((number, None))

    async def close(self) -> None:
        """End the stream (every seat's read sees CANCELLED) and the own channel."""
        if self._out is not None:
            self._out.put_nowait(None)
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._reader
        if self._own:
            await self._channel.close()

    async def __aenter__(self) -> Multiplexer:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


_CODES = {code.value[0]: code for code in grpc.StatusCode}
# The generated stubs' paths (room_pb2_grpc.RoomStub, table_pb2_grpc.TableServiceStub).
_ROOM_PLAY_MANY = f"/{room_pb2.DESCRIPTOR.services_by_name['Room'].full_name}/PlayMany"
_TABLE_PLAY_MANY = f"/{table_pb2.DESCRIPTOR.services_by_name['TableService'].full_name}/PlayMany"


def _add(batch: table_pb2.PlayManyRequest, item: _Outgoing) -> None:
    number, message = item
    tagged = batch.messages.add(session=number)
    if message is None:
        tagged.leave = True
    else:
        tagged.message.CopyFrom(message)
