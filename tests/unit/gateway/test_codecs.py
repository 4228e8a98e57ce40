"""The gateway passes serialized events on without re-encoding them (codecs)."""

from __future__ import annotations

import json

from google.protobuf.json_format import MessageToDict

from poker.table.v1 import table_pb2 as tpb
from services.gateway.codecs import Batch, Encoded, codecs, gathered


def _events() -> list[tpb.TableEvent]:
    big = tpb.TableEvent(
        event_seq=3, table_id="t-1", hand_id="h-1", to_act=tpb.ToAct(seat=2, action_seq=7)
    )
    big.snapshot.table_id = "x" * 300  # a member longer than 127 bytes (2-byte length)
    return [
        tpb.TableEvent(event_seq=1, table_id="t-1", hand_id="h-1"),
        tpb.TableEvent(event_seq=2, table_id="t-1", hand_id="h-1", to_act=tpb.ToAct(seat=3)),
        big,
    ]


def test_a_batch_made_of_bytes_is_the_batch_protobuf_would_make() -> None:
    events = _events()
    made = Batch([Encoded(e.SerializeToString(), tpb.TableEvent) for e in events])
    expected = tpb.TableEvent(batch=tpb.EventBatch(events=events))
    assert tpb.TableEvent.FromString(made.data) == expected
    assert made.data == expected.SerializeToString()


def test_a_batch_in_json_is_its_members_json() -> None:
    events = _events()
    made = Batch([Encoded(e.SerializeToString(), tpb.TableEvent) for e in events])
    expected = MessageToDict(tpb.TableEvent(batch=tpb.EventBatch(events=events)))
    assert json.loads(made.json()) == expected


def test_one_event_is_sent_as_itself() -> None:
    one = Encoded(_events()[0].SerializeToString(), tpb.TableEvent)
    assert gathered([one]) is one


def test_the_codecs_pass_bytes_on_and_encode_messages_as_usual() -> None:
    by_name = {codec.name(): codec for codec in codecs()}
    event = _events()[1]
    encoded = Encoded(event.SerializeToString(), tpb.TableEvent)
    assert by_name["proto"].encode(encoded) is encoded.data
    assert by_name["proto"].encode(event) == event.SerializeToString()
    assert json.loads(by_name["json"].encode(encoded)) == MessageToDict(event)
    assert encoded.json() is encoded.json()  # made once, shared by every JSON watcher
    decoded = by_name["proto"].decode(event.SerializeToString(), tpb.TableEvent)
    assert decoded == event
