"""Nine changes to hypercorn 0.18.0 (the newest release on PyPI) and the h2 it runs on,
applied at start.

**DATA on a closed stream.**
A client's DATA frame for a stream hypercorn has already closed (a call to a
method the gateway does not serve, answered 404 before its body arrived) raises
a KeyError in ``H2Protocol._handle_events`` that kills the connection's reader:
every later call on that connection hangs until its deadline.  hypercorn
guards the same case for END_STREAM (upstream pgjones/hypercorn PRs 334 and
365 do it for DATA too).  Here: such a frame is acknowledged, so the
connection's flow-control window is not lost, and skipped; every other event
goes to hypercorn's own handler unchanged.

**One write per loop turn.** hypercorn writes every piece of HTTP/2 output as it
is made: a call's headers, each message's DATA frame, its trailers, and the
WINDOW_UPDATE acknowledging each frame received, each its own ``write`` on the
connection, so each its own TLS record and ``send`` system call: the largest part
of the gateway's CPU per message in a profile.  Here the pieces made in one turn
of the event loop are joined and written once at the end of that turn (the order
is unchanged; nothing waits longer than the turn).  A connection whose transport
buffer is over ``HIGH_WATER`` makes its writer wait for it to drain, as
hypercorn's own ``drain`` did; a closing connection writes what is pending first.

**A stream's writer waits while its peer does not read.** hypercorn pauses an
app writing a response once the stream's buffer holds ``BUFFER_HIGH_WATER``
bytes, and ``StreamBuffer.pop`` resumes it when the piece *taken* is under
``BUFFER_LOW_WATER``.  With the peer's flow-control window at zero the sender
takes nothing (a zero-length pop), which resumed the writer every time: a Watch
client that never read had every event appended to that buffer for as long as it
stayed connected, the gateway's memory grew, and the watcher was never
``GATEWAY_WATCH_BUFFER`` behind, so never dropped (a hostile-client probe).
Here the writer resumes when the buffer *holds* less than the low-water mark (the
fix anycorn, a hypercorn fork, merged as its PR 61), so the gateway's own
bounded buffer fills and the watcher is dropped and then cut off.

**A response its app gave up on is reset.** An app that ends without finishing
its response (the gateway cutting off a watcher that does not read, whose
trailers cannot pass a shut window) left hypercorn's HTTP/2 stream open: the
client waited on it for ever, it held one of the connection's streams, and its
buffer (up to the high-water mark) stayed in memory.  Here such a stream is reset
(RST_STREAM CANCEL; a gRPC client reads CANCELLED) and its buffer freed.

**A response piece goes out at once when it can.** hypercorn queues every piece
of a response in the stream's buffer and wakes its sender task, which picks a
stream by priority and writes a DATA frame on a later turn of the loop.  A piece
whose stream has nothing queued before it and whose window takes it whole is
written as its DATA frame at once here (the order is the same: nothing of the
stream is waiting); anything else queues as before.

**A malformed request ends its own stream, not the connection.** h2 raises a
header that breaks HTTP/2's field rules (a value with a space at its end, as in
``authorization: Bearer `` with nothing after it) as a connection error, so one
bad call from a client closed every call on its connection.  RFC 9113 (8.1.1)
makes a malformed request a stream error: here that stream is reset with
PROTOCOL_ERROR (a gRPC client reads INTERNAL) and the connection goes on, as
nghttp2 does.  A ``:method`` or ``:path`` that is not visible ASCII is malformed
the same way: hypercorn decodes both as ASCII, and a byte past 0x7F raised in the
connection's reader, which dropped every call on the connection with an ERROR
traceback, or left it open and uncounted behind a stream waiting for its body
(an outside probe).

**A stream past the connection's limit is refused, not the connection.** A
HEADERS frame that would open more streams than ``MAX_CONCURRENT_STREAMS``
(``GATEWAY_STREAMS_PER_CONNECTION``) made h2 end the connection (GOAWAY
PROTOCOL_ERROR), and every call on it with it: a client that opens one stream
too many before it has read the server's SETTINGS, or a proxy sharing a
connection among players.  Here that stream alone is refused (RST_STREAM
REFUSED_STREAM, RFC 9113 5.1.2, which a client may retry); its header block is
still decoded, so the connection's HPACK table stays in step.

**A body that disagrees with its content-length ends its own stream.** A DATA
frame past a request's ``content-length`` (or an end before it) was a connection
error in h2; RFC 9113 8.1.1 makes it the stream's (malformed): that stream is
reset with PROTOCOL_ERROR, its app told so, and the connection's window credited.

**A response complete before its request asks the client to stop sending.** A
call refused before its request has arrived whole (a gRPC message over
``GATEWAY_MAX_MESSAGE_BYTES``, answered at its length prefix) ends the response
while the client still sends.  hypercorn then ended the stream a second time
after the trailers, which h2 takes as closing it, and every DATA frame of the
client's still in flight drew an RST_STREAM STREAM_CLOSED: a grpc client still
writing reported that (INTERNAL, "Stream removed") instead of the status in the
trailers, 3 times in 39 in a hostile-client probe.  RFC 9113 (8.1): once the
response is complete, the server may ask the client to abort the request without
error, RST_STREAM NO_ERROR, as grpc-go does after a call's status: here it does
so after the trailers when the client's side is still open (then hypercorn's
second end finds the stream closed, and nothing more is sent).  A response
without trailers (a trailers-only gRPC status, an HTTP 404) ends once, and the
client's DATA in flight is taken as before: a grpc client reads a 404 ended with
RST_STREAM as "Stream removed" (INTERNAL), not the UNIMPLEMENTED the 404 means.
"""

from __future__ import annotations

import contextlib
import re
from typing import Any

import h2.errors
import h2.events
import h2.exceptions
from h2.connection import H2Connection, _decode_headers
from h2.stream import H2Stream, StreamClosedBy, StreamState
from hypercorn.asyncio.tcp_server import TCPServer
from hypercorn.events import Closed, Event, RawData
from hypercorn.protocol.events import Body, StreamClosed, Trailers
from hypercorn.protocol.h2 import BUFFER_LOW_WATER, H2Protocol, StreamBuffer
from hyperframe.frame import RstStreamFrame, WindowUpdateFrame
from priority.priority import MissingStreamError

_original = H2Protocol._handle_events
_original_send = TCPServer.protocol_send
_original_stream_send = H2Protocol.stream_send
HIGH_WATER = 256 * 1024


async def _handle_events(self: Any, events: list[h2.events.Event]) -> None:
    # In order, one run of hypercorn's handler per stretch of events: a DATA frame
    # is judged after the events before it (its stream's headers may be in the
    # same read) have been handled.
    stretch: list[h2.events.Event] = []
    for event in events:
        if isinstance(event, h2.events.DataReceived):
            if stretch:
                await _original(self, stretch)
                stretch = []
            if event.stream_id not in self.streams:
                self.connection.acknowledge_received_data(
                    event.flow_controlled_length, event.stream_id
                )
                continue
        stretch.append(event)
    await _original(self, stretch)


def _flush(server: Any) -> None:
    """Write what the connection made this turn, as one piece."""
    pending: list[bytes] = server.__dict__.get("_cardroom_pending", [])
    if not pending:
        return
    data = b"".join(pending)
    pending.clear()
    if not server.writer.transport.is_closing():  # a closed peer: hypercorn's reader ends it
        server.writer.write(data)


async def _protocol_send(self: Any, event: Event) -> None:
    if isinstance(event, RawData):
        pending: list[bytes] = self.__dict__.setdefault("_cardroom_pending", [])
        pending.append(event.data)
        if len(pending) == 1:
            self.loop.call_soon(_flush, self)
        if self.writer.transport.get_write_buffer_size() > HIGH_WATER:
            _flush(self)
            async with self.send_lock:
                try:
                    await self.writer.drain()
                except (ConnectionError, RuntimeError):
                    await self.protocol.handle(Closed())
        return
    if isinstance(event, Closed):
        _flush(self)
    await _original_send(self, event)


async def _pop(self: Any, max_length: int) -> bytes:
    length = min(len(self.buffer), max_length)
    data = bytes(self.buffer[:length])
    del self.buffer[:length]
    if len(self.buffer) < BUFFER_LOW_WATER:  # what is left, not what was taken
        await self._paused.set()
    if len(self.buffer) == 0:
        await self._is_empty.set()
    return data


def _sent_at_once(self: Any, event: Body) -> bool:
    """Send a response piece as a DATA frame now when nothing of its stream waits
    before it and the peer's window takes it whole; False (nothing done) when it
    must queue for hypercorn's sender task."""
    buffer = self.stream_buffers.get(event.stream_id)
    if self.closed or buffer is None or buffer.buffer or buffer._complete:
        return False
    try:
        room = min(
            self.connection.local_flow_control_window(event.stream_id),
            self.connection.max_outbound_frame_size,
        )
        if not 0 < len(event.data) <= room:
            return False
        self.connection.send_data(event.stream_id, event.data)
    except h2.exceptions.ProtocolError:  # the stream closed: hypercorn's path handles it
        return False
    return True


def _request_not_needed(self: Any, stream_id: int) -> None:
    """Our response on ``stream_id`` has ended (END_STREAM sent) and the client's
    request has not: tell it to stop sending, without error (RFC 9113 8.1)."""
    stream = self.connection.streams.get(stream_id)
    if stream is not None and stream.state_machine.state is StreamState.HALF_CLOSED_LOCAL:
        self.connection.reset_stream(stream_id, h2.errors.ErrorCodes.NO_ERROR)


async def _stream_send(self: Any, event: Any) -> None:
    if type(event) is Body and _sent_at_once(self, event):
        await self._flush()
        return
    if type(event) is Trailers and not self.closed:
        await _original_stream_send(self, event)  # the trailers end the response
        with contextlib.suppress(h2.exceptions.ProtocolError):
            _request_not_needed(self, event.stream_id)
        await self._flush()
        return
    if isinstance(event, StreamClosed) and not self.closed:
        buffer = self.stream_buffers.get(event.stream_id)
        if buffer is not None and not buffer._complete:  # the app ended mid-response
            with contextlib.suppress(h2.exceptions.StreamClosedError, h2.exceptions.ProtocolError):
                self.connection.reset_stream(event.stream_id, h2.errors.ErrorCodes.CANCEL)
            await buffer.close()
            del self.stream_buffers[event.stream_id]
            with contextlib.suppress(MissingStreamError):
                self.priority.remove_stream(event.stream_id)
            await self._flush()
    await _original_stream_send(self, event)


class _MalformedHeaders(h2.exceptions.ProtocolError):
    """A received header block that breaks HTTP/2's field rules."""


_original_process_headers = H2Stream._process_received_headers
_original_receive_headers_frame = H2Connection._receive_headers_frame
_original_receive_data_frame = H2Connection._receive_data_frame


_VISIBLE_ASCII = re.compile(rb"[\x21-\x7e]+")


def _ascii_request_line(headers: list[tuple[bytes, bytes]]) -> None:
    """``:method`` and ``:path`` must be visible ASCII (RFC 9110 9.1's token, RFC
    9112 3.2's request-target): hypercorn decodes them as ASCII, and a byte past
    0x7F raised in the connection's reader (an outside probe)."""
    for name, value in headers:
        if name in (b":method", b":path") and _VISIBLE_ASCII.fullmatch(value) is None:
            raise _MalformedHeaders(f"{name.decode()} must be visible ASCII")


def _process_received_headers(self: Any, *args: Any) -> Any:
    try:
        headers = _original_process_headers(self, *args)
    except h2.exceptions.ProtocolError as error:
        raise _MalformedHeaders(str(error)) from None
    _ascii_request_line(headers)
    return headers


def _receive_headers_frame(self: Any, frame: Any) -> Any:
    # At the connection's level (not the stream's): a HEADERS frame flagged
    # PRIORITY expects the stream's events after them.
    try:
        return _original_receive_headers_frame(self, frame)
    except (_MalformedHeaders, h2.exceptions.InvalidBodyLengthError):
        stream = self.streams[frame.stream_id]  # opened before its headers were checked
        return stream.reset_stream(h2.errors.ErrorCodes.PROTOCOL_ERROR), []
    except h2.exceptions.TooManyStreamsError:
        if frame.stream_id % 2 == 0 or frame.stream_id <= self.highest_inbound_stream_id:
            raise  # not a new stream of the client's: h2's own answer
        list(_decode_headers(self.decoder, frame.data))  # the HPACK table stays in step
        self.highest_inbound_stream_id = frame.stream_id
        self._closed_streams[frame.stream_id] = StreamClosedBy.SEND_RST_STREAM
        refused = RstStreamFrame(frame.stream_id)
        refused.error_code = h2.errors.ErrorCodes.REFUSED_STREAM
        return [refused], []


def _receive_data_frame(self: Any, frame: Any) -> Any:
    try:
        return _original_receive_data_frame(self, frame)
    except h2.exceptions.InvalidBodyLengthError:
        stream = self.streams.get(frame.stream_id)
        if stream is None:
            raise
        frames: list[Any] = []
        credit = self._inbound_flow_control_window_manager.process_bytes(
            frame.flow_controlled_length
        )
        if credit:
            update = WindowUpdateFrame(0)
            update.window_increment = credit
            frames.append(update)
        frames.extend(stream.reset_stream(h2.errors.ErrorCodes.PROTOCOL_ERROR))
        reset = h2.events.StreamReset(  # the app's request ends here (hypercorn closes it)
            stream_id=frame.stream_id,
            error_code=h2.errors.ErrorCodes.PROTOCOL_ERROR,
            remote_reset=False,
        )
        return frames, [reset]


def apply() -> None:
    """Install the changes (applying them again changes nothing)."""
    H2Protocol._handle_events = _handle_events  # type: ignore[method-assign]
    TCPServer.protocol_send = _protocol_send  # type: ignore[method-assign]
    StreamBuffer.pop = _pop  # type: ignore[method-assign]
    H2Protocol.stream_send = _stream_send  # type: ignore[method-assign]
    H2Stream._process_received_headers = _process_received_headers  # type: ignore[method-assign,assignment]
    H2Connection._receive_headers_frame = _receive_headers_frame  # type: ignore[method-assign]
    H2Connection._receive_data_frame = _receive_data_frame  # type: ignore[method-assign]
