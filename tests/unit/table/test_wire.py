"""The table's hand-written protobuf framings (services/table/wire.py) are what
protobuf itself writes: every framing parses back with the generated classes
into the messages it stands for, byte for byte the same as their own
serialization."""

from __future__ import annotations

from poker.table.v1 import table_pb2 as pb
from services.table import wire


def _event(n: int, note: str = "") -> pb.TableEvent:
    return pb.TableEvent(
        event_seq=n,
        table_id="t" * 36,
        hand_id="h" * 36,
        action_rejected=pb.ActionRejected(action_seq=n, code=9, message=note),
    )


def test_a_batch_is_the_event_batch_protobuf_writes() -> None:
    events = [_event(1), _event(2, "x" * 300), _event(3)]
    framed = wire.batch(e.SerializeToString() for e in events)
    expected = pb.TableEvent(batch=pb.EventBatch(events=events))
    assert framed == expected.SerializeToString()
    assert pb.TableEvent.FromString(framed) == expected


def test_a_play_many_message_is_the_one_protobuf_writes() -> None:
    big = _event(7, "y" * 20_000)  # a length past two varint bytes
    items = [(1, _event(1)), (300, big), (2**31 - 1, _event(2))]
    framed = wire.many_events(
        wire.session_event(number, event.SerializeToString()) for number, event in items
    )
    expected = pb.PlayManyEvents(
        events=[pb.SessionEvent(session=number, event=event) for number, event in items]
    )
    assert framed == expected.SerializeToString()
    assert pb.PlayManyEvents.FromString(framed) == expected


def test_a_batch_of_batches_and_session_ends_mix_in_one_message() -> None:
    inner = wire.batch([_event(1).SerializeToString(), _event(2).SerializeToString()])
    ended = pb.SessionEvent(session=5, ended=pb.SessionEnded(code=7, message="no"))
    framed = wire.many_events([wire.session_event(4, inner), ended.SerializeToString()])
    parsed = pb.PlayManyEvents.FromString(framed)
    assert [e.session for e in parsed.events] == [4, 5]
    assert [e.event_seq for e in parsed.events[0].event.batch.events] == [1, 2]
    assert parsed.events[1].ended.message == "no"
