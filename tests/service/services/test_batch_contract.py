"""The batched-call convention is defined once (poker/common/v1/batch.proto) and
every internal service follows it the same way: exactly one streaming method,
``Batch``, over the common messages; the methods it carries marked in the proto
and read from there by both the servers and the table service's client.

These tests read descriptors and run servicers in process: no server needed."""

from __future__ import annotations

import asyncio
import pkgutil
from collections.abc import AsyncIterator, Iterator
from importlib import import_module
from typing import Any

import grpc
import pytest
from google.protobuf.descriptor import Descriptor, FileDescriptor, ServiceDescriptor
from prometheus_client import REGISTRY

import poker
from devroom.launcher import shared_pki
from poker.betting.v1 import betting_pb2
from poker.common.v1 import batch_pb2, common_pb2
from poker.common.v1.batch_pb2 import Call, CallBatch, ReplyBatch
from poker.dealer.v1 import dealer_pb2
from poker.lobby.v1 import lobby_pb2
from poker.showdown.v1 import showdown_pb2
from service_kit.batches import batched_methods
from services.betting.servicer import BettingServicer
from services.dealer.decks import DeckStore
from services.dealer.servicer import DealerServicer
from services.showdown.servicer import ShowdownServicer
from services.table import clients
from tests.support.batching import call

COMMON = "poker.common.v1"
BATCH_PROTO = "poker/common/v1/batch.proto"
INTERNAL: dict[str, ServiceDescriptor] = {
    "betting": betting_pb2.DESCRIPTOR.services_by_name["Betting"],
    "dealer": dealer_pb2.DESCRIPTOR.services_by_name["Dealer"],
    "showdown": showdown_pb2.DESCRIPTOR.services_by_name["Showdown"],
    "lobby": lobby_pb2.DESCRIPTOR.services_by_name["LobbyHands"],  # the table's calls
}
BATCHED = {
    "betting": ["LegalActions", "ApplyAction", "ApplyTimeout", "StartRound"],
    "dealer": ["OpenDeck", "Deal", "DealRiver", "Draw", "CloseDeck"],
    "showdown": ["Evaluate", "Settle"],
    "lobby": ["NextHand", "FinishHand", "VoidPendingHand", "HandRecorded"],  # the table service's
}
# What the contract's messages were called when each service defined its own.
CONTRACT_NAMES = {"Call", "CallError", "Reply", "CallBatch", "ReplyBatch"} | {
    f"Session{suffix}" for suffix in ("Call", "Reply", "Request", "Response", "Batch", "BatchReply")
}


def _proto_files() -> Iterator[FileDescriptor]:
    """Every generated poker.* proto file."""
    for module in pkgutil.walk_packages(poker.__path__, "poker."):
        if module.name.endswith("_pb2"):
            yield import_module(module.name).DESCRIPTOR


def _messages(message: Descriptor) -> Iterator[Descriptor]:
    yield message
    for nested in message.nested_types:
        yield from _messages(nested)


@pytest.mark.parametrize("name", INTERNAL)
def test_every_internal_service_has_exactly_the_one_batched_method(name: str) -> None:
    service = INTERNAL[name]
    streams = [m for m in service.methods if m.client_streaming or m.server_streaming]
    assert [m.name for m in streams] == ["Batch"]
    (batch,) = streams
    assert batch.client_streaming and batch.server_streaming
    assert batch.input_type is CallBatch.DESCRIPTOR
    assert batch.output_type is ReplyBatch.DESCRIPTOR
    assert BATCH_PROTO in [f.name for f in service.file.dependencies]
    assert list(batched_methods(service)) == BATCHED[name]


def test_the_lobby_keeps_its_players_calls_unary() -> None:
    batched = batched_methods(INTERNAL["lobby"])
    assert "Authenticate" not in batched
    services = lobby_pb2.DESCRIPTOR.services_by_name
    # The player plane and the operator's calls: unary, and not batched.
    for name, unary in (
        ("Lobby", ("ListTables", "GetTable", "SitDown")),
        ("LobbyOperator", ("GetLedgerTotals",)),
    ):
        assert not batched_methods(services[name]), name
        methods = services[name].methods_by_name
        for method in unary:
            assert not (methods[method].client_streaming or methods[method].server_streaming)


def test_no_proto_but_the_common_one_defines_the_contract() -> None:
    files = list(_proto_files())
    assert BATCH_PROTO in [f.name for f in files]
    for file in files:
        if file.package == COMMON:
            continue
        for top in file.message_types_by_name.values():
            for message in _messages(top):
                assert message.name not in CONTRACT_NAMES, message.full_name
                assert "CallError" not in message.name, message.full_name
        for service in file.services_by_name.values():
            for method in service.methods:
                assert method.name not in ("Session", "SessionBatches"), method.full_name


def test_servicers_serve_batch_and_nothing_else_streamed() -> None:
    for servicer in (BettingServicer, DealerServicer, ShowdownServicer):
        assert callable(getattr(servicer, "Batch", None))
        assert not hasattr(servicer, "Session") and not hasattr(servicer, "SessionBatches")


def test_the_table_client_batches_what_the_protos_mark() -> None:
    async def streams() -> dict[str, list[str]]:
        addresses = clients.Addresses(*(["127.0.0.1:1"] * 4))
        tls_dir = str(shared_pki().dir("table"))
        downstream = clients.Downstream(addresses, 1.0, tls_dir=tls_dir)
        try:
            return {name: list(s.methods) for name, s in downstream.streams.items()}
        finally:
            await downstream.close()

    assert asyncio.run(streams()) == BATCHED


async def _answer(servicer: Any, *calls: Call) -> list[Any]:
    async def batches() -> AsyncIterator[CallBatch]:
        yield CallBatch(calls=calls)

    return [reply async for batch in servicer.Batch(batches(), None) for reply in batch.replies]


def _counted(service: str, method: str, code: str) -> float:
    labels = {"method": method, "code": code}
    return REGISTRY.get_sample_value(f"{service}_batched_calls_total", labels) or 0.0


def test_a_call_naming_no_batched_method_is_invalid_argument() -> None:
    """An unknown or unbatched method, or none: the reply's INVALID_ARGUMENT names
    the methods allowed; the metrics label it "unknown" (no client strings)."""
    before = _counted("showdown", "unknown", "INVALID_ARGUMENT")
    unknown, stream, missing = asyncio.run(
        _answer(ShowdownServicer(), call(1, "Nope"), call(2, "Batch"), call(3))
    )
    invalid = grpc.StatusCode.INVALID_ARGUMENT.value[0]
    assert [r.id for r in (unknown, stream, missing)] == [1, 2, 3]
    for reply in (unknown, stream):
        assert reply.error.code == invalid
        assert "not a batched method of poker.showdown.v1.Showdown" in reply.error.message
        assert "one of Evaluate, Settle" in reply.error.message
    assert missing.error.code == invalid
    assert missing.error.message == "call is required: a method, one of Evaluate, Settle"
    assert _counted("showdown", "unknown", "INVALID_ARGUMENT") - before == 3


def test_an_undecodable_request_is_invalid_argument_as_in_a_unary_call() -> None:
    """Bad bytes are bad input: INVALID_ARGUMENT with the unary call's words, and
    the next call of the batch is answered."""
    dealer = DealerServicer(DeckStore(max_decks=4, ttl=60.0), allow_presets=False)
    garbage = Call(id=1, method="Deal", request=b"\xff\xff\xff")
    opened = call(2, "OpenDeck", dealer_pb2.OpenDeckRequest(game=common_pb2.GAME_STUD, players=2))
    bad, good = asyncio.run(_answer(dealer, garbage, opened))
    assert bad.error.code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    assert bad.error.message == "request body is not a valid poker.dealer.v1.DealRequest message"
    assert good.WhichOneof("result") == "response"
    assert dealer_pb2.OpenDeckResponse.FromString(good.response).cards == 52


def test_the_contract_is_in_the_common_package() -> None:
    assert batch_pb2.DESCRIPTOR.package == COMMON
    assert batch_pb2.DESCRIPTOR.name == BATCH_PROTO
