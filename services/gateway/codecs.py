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

from typing import Any

from connectrpc.compat import google_protobuf_codecs
from google.protobuf.json_format import MessageToJson
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


class _Json(_Binary):
    """connectrpc's JSON codec, with ``Encoded`` JSON made once per event."""

    def encode(self, message: Any) -> bytes:
        if isinstance(message, Encoded):
            return message.json()
        return bytes(self._inner.encode(message))


def codecs() -> list[Any]:
    """The gateway's codecs: binary protobuf and JSON, as connectrpc names them."""
    return [
        _Json(codec) if codec.name() == "json" else _Binary(codec)
        for codec in google_protobuf_codecs()
    ]
