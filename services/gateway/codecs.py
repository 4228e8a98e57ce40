"""Messages the gateway passes on without re-encoding them.

What a shard sends a player or a spectator is already a serialized TableEvent;
the gateway reads it as bytes (``Encoded``) and hands the same bytes to every
client that speaks binary protobuf (gRPC, gRPC-Web, Connect's binary): one
spectator event fans out to 2,000 watchers as one ``bytes`` object.  A client
that speaks Connect JSON gets the event's JSON, made once per event on first
use and shared the same way.  Ordinary response messages go through as
connectrpc's own codecs encode them.
"""

from __future__ import annotations

import functools
import json
import re
from typing import Any

from connectrpc.code import Code
from connectrpc.compat import google_protobuf_codecs
from connectrpc.errors import ConnectError
from google.protobuf.descriptor import Descriptor, EnumDescriptor, FieldDescriptor
from google.protobuf.json_format import MessageToJson, ParseDict, ParseError
from google.protobuf.message import Message


class Encoded:
    """A serialized message of ``message_type``, with its JSON made at most once."""

    __slots__ = ("_json", "data", "hand_id", "message_type", "seq")

    def __init__(
        self, data: bytes, message_type: type[Message], *, hand_id: str = "", seq: int = 0
    ) -> None:
        self.data = data
        self.message_type = message_type
        self.hand_id = hand_id
        self.seq = seq
        self._json: bytes | None = None

    def json(self) -> bytes:
        if self._json is None:
            self._json = MessageToJson(
                self.message_type.FromString(self.data), indent=None
            ).encode()
        return self._json


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        low = value & 0x7F
        value >>= 7
        if value:
            out.append(low | 0x80)
        else:
            out.append(low)
            return bytes(out)


# TableEvent.batch (field 22, length-delimited) and EventBatch.events (field 1).
_BATCH_TAG = _varint((22 << 3) | 2)
_EVENTS_TAG = _varint((1 << 3) | 2)


class Batch(Encoded):
    """Several serialized TableEvents as one ``TableEvent{batch}`` message, made
    by concatenating their bytes (protobuf's encoding of a repeated field is the
    concatenation of its elements): nothing is parsed or serialized again.  Its
    JSON is the members' JSON, each made once, joined."""

    __slots__ = ("members",)

    def __init__(self, members: list[Encoded]) -> None:
        body = b"".join(_EVENTS_TAG + _varint(len(m.data)) + m.data for m in members)
        super().__init__(_BATCH_TAG + _varint(len(body)) + body, members[0].message_type)
        self.members = members

    def json(self) -> bytes:
        if self._json is None:
            self._json = (
                b'{"batch":{"events":[' + b",".join(m.json() for m in self.members) + b"]}}"
            )
        return self._json


def gathered(members: list[Encoded]) -> Encoded:
    """One message for ``members``: the event itself when there is one."""
    return members[0] if len(members) == 1 else Batch(members)


class _Binary:
    """connectrpc's binary codec, passing ``Encoded`` bytes through."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def name(self) -> str:
        return str(self._inner.name())

    def encode(self, message: Any) -> bytes:
        if isinstance(message, Encoded):
            return message.data
        return bytes(self._inner.encode(message))

    def decode(self, data: bytes | bytearray, message_class: Any) -> Any:
        return self._inner.decode(data, message_class)


_JSON_KINDS = {
    type(None): "null",
    bool: "a boolean",
    int: "a number",
    float: "a number",
    str: "a string",
    list: "an array",
}


class _Json(_Binary):
    """connectrpc's JSON codec, with ``Encoded`` JSON made once per event, and
    a body that is not a JSON object of the request refused INVALID_ARGUMENT
    saying so (connectrpc's own answer to ``null`` or ``5`` was a Python
    TypeError's text).  Unknown field names are ignored, as Connect's own
    implementations do, so a client newer than the room still works; an enum
    value that is not one of its names is refused, naming them (protobuf's
    ``ignore_unknown_fields`` dropped it too, so ``"entry": "ENTRY_NOPE"`` sat
    a player down with the default entry: an outside hostile probe)."""

    def encode(self, message: Any) -> bytes:
        if isinstance(message, Encoded):
            return message.json()
        return bytes(self._inner.encode(message))

    def decode(self, data: bytes | bytearray, message_class: Any) -> Any:
        name = message_class.DESCRIPTOR.full_name
        try:
            body = json.loads(data)
        except ValueError as error:
            raise ConnectError(
                Code.INVALID_ARGUMENT, f"the body is not JSON ({error}); send a {name} object"
            ) from None
        if not isinstance(body, dict):
            raise ConnectError(
                Code.INVALID_ARGUMENT,
                f"the body is {_JSON_KINDS.get(type(body), 'not an object')}; send a {name} "
                "object ({} for none of its fields)",
            )
        message = message_class()
        try:
            ParseDict(known_fields(body, message_class.DESCRIPTOR, ""), message)
        except ParseError as error:
            raise ConnectError(
                Code.INVALID_ARGUMENT, f"the body is not a {name}: {error}"
            ) from None
        return message


_NUMBER = re.compile(r"-?[0-9]+")  # an enum's number as a string, which protobuf takes


def _enum_value(value: Any, enum: EnumDescriptor, path: str) -> None:
    if isinstance(value, str) and (value in enum.values_by_name or _NUMBER.fullmatch(value)):
        return
    if isinstance(value, int) and not isinstance(value, bool):
        return  # a number: protobuf's enums are open; the service checks its range
    if value is None:
        return  # JSON null: the default
    names = ", ".join(v.name for v in enum.values)
    raise ConnectError(
        Code.INVALID_ARGUMENT,
        f"{path} must be one of {names} (or its number), got {json.dumps(value)[:40]}",
    )


@functools.cache
def _fields_by_any_name(descriptor: Descriptor) -> dict[str, FieldDescriptor]:
    """A message's fields by proto name and by JSON name (ParseDict takes both),
    made once per message type rather than per request."""
    return {**descriptor.fields_by_name, **{f.json_name: f for f in descriptor.fields}}


def known_fields(body: dict[str, Any], descriptor: Descriptor, prefix: str) -> dict[str, Any]:
    """``body`` without the names ``descriptor`` does not know (at any depth), its
    enum values checked.

    >>> from poker.room.v1 import room_pb2 as rpb
    >>> known_fields({"tableId": "t", "future": 1}, rpb.SitDownRequest.DESCRIPTOR, "")
    {'tableId': 't'}
    >>> known_fields({"entry": "ENTRY_NOPE"}, rpb.SitDownRequest.DESCRIPTOR, "")
    Traceback (most recent call last):
    ...
    connectrpc.errors.ConnectError: entry must be one of ENTRY_UNSPECIFIED, ...
    """
    fields = _fields_by_any_name(descriptor)
    kept: dict[str, Any] = {}
    for name, value in body.items():
        field = fields.get(name)
        if field is None:
            continue
        kept[name] = value
        path = prefix + field.name
        repeated = field.is_repeated
        if field.enum_type is not None:
            for item in value if repeated and isinstance(value, list) else [value]:
                _enum_value(item, field.enum_type, path)
            continue
        inner = field.message_type
        if inner is None or inner.full_name.startswith("google.protobuf."):
            continue
        if inner.GetOptions().map_entry:
            value_field = inner.fields_by_name["value"]
            if isinstance(value, dict) and value_field.message_type is not None:
                kept[name] = {
                    k: known_fields(v, value_field.message_type, f"{path}.{k}.")
                    if isinstance(v, dict)
                    else v
                    for k, v in value.items()
                }
            continue
        if value is None:
            continue  # JSON null: the default
        if repeated:
            if not isinstance(value, list):
                raise _shape(path, f"an array of objects ({inner.full_name})", value)
            for v in value:
                if not isinstance(v, dict):
                    raise _shape(path, f"an array of objects ({inner.full_name})", v)
            kept[name] = [known_fields(v, inner, f"{path}.") for v in value]
        elif isinstance(value, dict):
            kept[name] = known_fields(value, inner, f"{path}.")
        else:
            raise _shape(path, f"an object ({inner.full_name})", value)
    return kept


def _shape(path: str, wanted: str, value: Any) -> ConnectError:
    """A message field given as something other than an object (protobuf's own
    message was a Python TypeError's text, 'unhashable type')."""
    got = _JSON_KINDS.get(type(value), "an object")
    return ConnectError(Code.INVALID_ARGUMENT, f"{path} must be {wanted}, got {got}")


def codecs() -> list[Any]:
    """The gateway's codecs: binary protobuf and JSON, as connectrpc names them."""
    return [
        _Json(codec) if codec.name() == "json" else _Binary(codec)
        for codec in google_protobuf_codecs()
    ]
