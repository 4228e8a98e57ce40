"""The few protobuf framings the table writes by hand, around events it has
serialized once.

Why: at a thousand tables most of the table's work per decision was copying the
same events into every seat's message and serializing them again there.  An
event is now serialized once per view (``viewers.Audience.emit``), and a seat's
batch and a PlayMany message are those bytes with a few bytes of framing around
them, exactly what protobuf would have written for the same messages (a
length-delimited field is its tag, its length as a varint, its bytes; a
repeated one is that, once per element, in order).  The tests parse every
framing back with the generated classes (tests/unit/table/test_wire.py).

Only the framings of ``table.proto`` below are written here; their field numbers
are checked against the descriptors at import, so a renumbered field fails
loudly rather than sending garbage.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple

from poker.table.v1 import table_pb2 as pb

_LEN = 2  # wire type: length-delimited
_VARINT = 0


def _encode(value: int) -> bytes:
    out = bytearray()
    while value > 0x7F:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


_SMALL = [_encode(n) for n in range(1 << 14)]  # every length of one event or batch


def _varint(value: int) -> bytes:
    """An unsigned varint (lengths, session numbers: never negative)."""
    return _SMALL[value] if value < 1 << 14 else _encode(value)


def _tag(message: type, field: str, wire_type: int) -> bytes:
    number: int = message.DESCRIPTOR.fields_by_name[field].number  # type: ignore[attr-defined]
    return _varint(number << 3 | wire_type)


_EVENT_BATCH = _tag(pb.TableEvent, "batch", _LEN)  # TableEvent.batch
_BATCH_EVENTS = _tag(pb.EventBatch, "events", _LEN)  # EventBatch.events
_SESSION = _tag(pb.SessionEvent, "session", _VARINT)  # SessionEvent.session
_SESSION_EVENT = _tag(pb.SessionEvent, "event", _LEN)  # SessionEvent.event
_MANY_EVENTS = _tag(pb.PlayManyEvents, "events", _LEN)  # PlayManyEvents.events


def _field(tag: bytes, data: bytes) -> bytes:
    return tag + _varint(len(data)) + data


class Piece(NamedTuple):
    """One serialized TableEvent, and the same framed as an element of an
    EventBatch: made once per view and shared by every seat that sees it, so a
    seat's batch is a join of pieces."""

    event: bytes
    framed: bytes


def piece(event: bytes) -> Piece:
    return Piece(event, _field(_BATCH_EVENTS, event))


def batch_of(pieces: Sequence[Piece]) -> bytes:
    """``TableEvent(batch=EventBatch(events=...))`` of these events (a
    DELIVERY_ON_TURN batch: no ids of its own, as the table always sent it)."""
    return _field(_EVENT_BATCH, b"".join([p.framed for p in pieces]))


def batch(events: Iterable[bytes]) -> bytes:
    """``batch_of`` serialized TableEvents."""
    return batch_of([piece(event) for event in events])


def session_event(session: int, event: bytes) -> bytes:
    """A serialized ``SessionEvent(session=..., event=...)`` around a serialized
    TableEvent."""
    # int32 session >= 1 (Many checks it): a plain varint.
    return _SESSION + _varint(session) + _field(_SESSION_EVENT, event)


def many_events(session_events: Iterable[bytes]) -> bytes:
    """``PlayManyEvents(events=...)`` of serialized SessionEvents."""
    return b"".join([_field(_MANY_EVENTS, event) for event in session_events])


__all__ = ["Piece", "batch", "batch_of", "many_events", "piece", "session_event"]
