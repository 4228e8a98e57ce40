"""What the gateway passes on from a client: the internal requests it builds from
the public ones (services/gateway/room.py), and the HTTP/2 streams it offers."""

from __future__ import annotations

import pytest
from priority.priority import PriorityTree

from poker.room.v1 import room_pb2 as rpb
from poker.table.v1 import table_pb2 as tpb
from service_kit.settings import ConfigError
from services.gateway.credentials import Player
from services.gateway.room import _internal
from services.gateway.settings import GatewaySettings


def _smuggled(kind: type[rpb.GetHandHistoryRequest] | type[rpb.GetDeckProofRequest]) -> bytes:
    """A public request with a player id and token in its reserved field numbers
    (2 and 3, the internal request's), as a hostile client can write them."""
    body = kind(table_id="t-1", hand_id="h-1").SerializeToString()
    player_id, token = b"p-victim", b"the-victims-token"
    return (
        body + b"\x12" + bytes([len(player_id)]) + player_id + b"\x1a" + bytes([len(token)]) + token
    )


@pytest.mark.parametrize(
    ("public", "internal"),
    [
        (rpb.GetHandHistoryRequest, tpb.GetHandHistoryRequest),
        (rpb.GetDeckProofRequest, tpb.GetDeckProofRequest),
    ],
)
def test_a_credential_in_a_public_requests_reserved_fields_never_reaches_the_table(
    public: type[rpb.GetHandHistoryRequest] | type[rpb.GetDeckProofRequest],
    internal: type[tpb.GetHandHistoryRequest] | type[tpb.GetDeckProofRequest],
) -> None:
    """Without a credential the table is asked for the public view; with one, for
    the checked player's, whatever the body carried."""
    request = public.FromString(_smuggled(public))
    anonymous = _internal(request, internal)
    assert (anonymous.table_id, anonymous.hand_id) == ("t-1", "h-1")
    assert (anonymous.player_id, anonymous.token) == ("", "")

    request = public.FromString(_smuggled(public))
    mine = _internal(request, internal, Player("p-me", "my-token"))
    assert (mine.player_id, mine.token) == ("p-me", "my-token")


def test_the_gateway_never_advertises_more_streams_than_hypercorn_holds() -> None:
    """hypercorn keeps a connection's open streams in a priority tree of 1,000; a
    stream past it stalled the whole connection, so the setting stays under it
    (a client's extra stream is then refused by HTTP/2 itself)."""
    tree_holds = PriorityTree()._maximum_streams
    assert GatewaySettings.from_env({}).streams_per_connection < tree_holds
    with pytest.raises(ConfigError, match="GATEWAY_STREAMS_PER_CONNECTION"):
        GatewaySettings.from_env({"GATEWAY_STREAMS_PER_CONNECTION": str(tree_holds)})
