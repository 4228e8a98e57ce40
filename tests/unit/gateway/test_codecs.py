"""The gateway passes serialized events on without re-encoding them (codecs)."""

from __future__ import annotations

import json

import pytest
from connectrpc.code import Code
from connectrpc.errors import ConnectError
from google.protobuf.json_format import MessageToDict

from poker.room.v1 import room_pb2 as rpb
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


@pytest.mark.parametrize(
    ("body", "says"),
    [
        (b"null", "the body is null"),
        (b"5", "the body is a number"),
        (b"[1]", "the body is an array"),
        (b'"t-1"', "the body is a string"),
        (b"{", "the body is not JSON"),
        (b'{"tableId": 5}', "tableId"),
    ],
)
def test_a_json_body_that_is_not_the_request_is_invalid_and_says_what_to_send(
    body: bytes, says: str
) -> None:
    json_codec = next(c for c in codecs() if c.name() == "json")
    with pytest.raises(ConnectError) as refused:
        json_codec.decode(body, rpb.GetStateRequest)
    assert refused.value.code is Code.INVALID_ARGUMENT
    assert (
        says in refused.value.message and "poker.room.v1.GetStateRequest" in refused.value.message
    )
    assert "NoneType" not in refused.value.message


def test_a_json_body_may_carry_fields_the_room_does_not_know() -> None:
    """As Connect's own implementations do: a client newer than the room works."""
    json_codec = next(c for c in codecs() if c.name() == "json")
    request = json_codec.decode(b'{"tableId": "t-1", "fromTheFuture": 1}', rpb.GetStateRequest)
    assert request == rpb.GetStateRequest(table_id="t-1")


def test_unknown_fields_are_dropped_at_any_depth() -> None:
    json_codec = next(c for c in codecs() if c.name() == "json")
    request = json_codec.decode(
        b'{"tableId": "t-1", "handId": "h-1", "actionSeq": 4,'
        b' "action": {"kind": "ACTION_KIND_CALL", "fromTheFuture": true}, "x": {"y": 1}}',
        rpb.ActRequest,
    )
    assert request.hand_id == "h-1" and request.action_seq == 4
    assert request.action.kind != 0


@pytest.mark.parametrize("entry", ['"ENTRY_NOPE"', '"entry_post_now"', "{}", "[1]", "true"])
def test_an_enum_value_that_is_not_one_of_its_names_is_invalid_and_lists_them(entry: str) -> None:
    """B2: a misspelt entry choice must not sit the player down with the default
    one (protobuf's ignore_unknown_fields dropped it silently)."""
    json_codec = next(c for c in codecs() if c.name() == "json")
    with pytest.raises(ConnectError) as refused:
        json_codec.decode(f'{{"tableId": "t-1", "entry": {entry}}}'.encode(), rpb.SitDownRequest)
    assert refused.value.code is Code.INVALID_ARGUMENT
    message = refused.value.message
    assert message.startswith("entry must be one of ENTRY_UNSPECIFIED, ENTRY_POST_NOW")
    assert "unhashable" not in message


@pytest.mark.parametrize(("entry", "number"), [('"ENTRY_POST_NOW"', 1), ("1", 1), ('"1"', 1)])
def test_an_enum_by_name_or_number_is_taken(entry: str, number: int) -> None:
    json_codec = next(c for c in codecs() if c.name() == "json")
    request = json_codec.decode(f'{{"entry": {entry}}}'.encode(), rpb.SitDownRequest)
    assert request.entry == number


def test_the_examples_in_the_module_run() -> None:
    import doctest

    from services.gateway import codecs as module

    failed, tried = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert tried >= 3 and failed == 0


@pytest.mark.parametrize(
    ("action", "got"), [("[1]", "an array"), ("5", "a number"), ('"x"', "a string")]
)
def test_a_message_field_that_is_not_an_object_says_so(action: str, got: str) -> None:
    json_codec = next(c for c in codecs() if c.name() == "json")
    with pytest.raises(ConnectError) as refused:
        json_codec.decode(f'{{"action": {action}}}'.encode(), rpb.ActRequest)
    assert refused.value.code is Code.INVALID_ARGUMENT
    assert refused.value.message == f"action must be an object (poker.common.v1.Action), got {got}"


def test_a_null_message_field_is_its_default() -> None:
    json_codec = next(c for c in codecs() if c.name() == "json")
    assert not json_codec.decode(b'{"action": null}', rpb.ActRequest).HasField("action")
