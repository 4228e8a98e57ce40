"""The hostile client of the trust-boundary tests: every internal method of every
service (read from the protos' ``access`` option, so a method added later is
covered), the ways to call it that must be refused, and a room holding a hand in
progress at each table to attack (the local room's processes or the containers,
``Endpoints``).  The tests are tests/system/security/test_trust_boundary.py and
tests/system/containers/test_trust_boundary.py.  ``attack_the_door`` calls every
internal method at the room's public door (the gateway), which serves the Room
API only."""

from __future__ import annotations

import asyncio
import struct
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Protocol

import grpc
import pytest
from google.protobuf import message_factory
from google.protobuf.descriptor import MethodDescriptor, ServiceDescriptor

from devroom.room import Room, table_specs
from devroom.stack import Stack
from poker.betting.v1 import betting_pb2
from poker.common.v1 import access_pb2
from poker.common.v1.batch_pb2 import CallBatch
from poker.dealer.v1 import dealer_pb2
from poker.lobby.v1 import lobby_pb2 as lpb
from poker.lobby.v1 import lobby_pb2_grpc, tournament_pb2
from poker.showdown.v1 import showdown_pb2
from poker.table.v1 import table_pb2 as tpb
from poker.table.v1 import table_pb2_grpc
from poker_wire.channels import player_credentials, service_credentials, staff_lobby
from service_kit.identity import GATEWAY, IDENTITIES
from service_kit.pki import Pki

from .connect import ConnectClient

# Which process serves each proto file's services.
SERVED_BY = {
    dealer_pb2.DESCRIPTOR: "dealer",
    betting_pb2.DESCRIPTOR: "betting",
    showdown_pb2.DESCRIPTOR: "showdown",
    lpb.DESCRIPTOR: "lobby",
    tournament_pb2.DESCRIPTOR: "lobby",
    tpb.DESCRIPTOR: "table",
}
CLOCK_MS = 120_000  # the first player to act never acts: the hand stays in progress


@dataclass(frozen=True)
class Internal:
    """One internal method: where it is served and who may call it."""

    process: str
    service: ServiceDescriptor
    method: MethodDescriptor
    callers: frozenset[str]

    @property
    def path(self) -> str:
        return f"/{self.service.full_name}/{self.method.name}"

    def __str__(self) -> str:
        return self.path


def internal_methods() -> Iterator[Internal]:
    for file, process in SERVED_BY.items():
        for service in file.services_by_name.values():
            options = service.GetOptions()
            assert options.HasExtension(access_pb2.access), f"{service.full_name}: no access"
            access = options.Extensions[access_pb2.access]
            if access.plane != access_pb2.PLANE_INTERNAL:
                continue
            for method in service.methods:
                yield Internal(process, service, method, frozenset(access.callers))


INTERNAL = list(internal_methods())


@dataclass
class World:
    """What a refused call must not change."""

    totals: Any
    balances: dict[str, int]
    stacks: dict[tuple[str, str], int]
    hands: dict[str, str]


class Endpoints(Protocol):
    """Where a room's services listen, and its certificates: the local room's
    processes or the containers."""

    pki: Pki

    def internal(self, name: str) -> str: ...

    def public(self, name: str) -> str | None: ...


class StackEndpoints:
    """The local room (``devroom.stack``)."""

    def __init__(self, stack: Stack) -> None:
        assert stack.pki is not None
        self.pki = stack.pki
        self._stack = stack

    def internal(self, name: str) -> str:
        return self._stack[name].target

    def public(self, name: str) -> str | None:
        process = self._stack[name]
        return process.public_target if process.public_port else None


class HostileRoom:
    """A room whose tables each hold a hand in progress, and the attacker's tools."""

    def __init__(self, endpoints: Endpoints, room: Room) -> None:
        self.endpoints = endpoints
        self.room = room
        self.pki = endpoints.pki

    def internal_channel(self, process: str, identity: str | None) -> grpc.aio.Channel:
        """The internal port, as ``identity`` (None: TLS without a certificate)."""
        target = self.endpoints.internal(process)
        if identity is None:
            return grpc.aio.secure_channel(target, player_credentials(self.pki.ca_file))
        return grpc.aio.secure_channel(target, service_credentials(self.pki.dir(identity)))

    def public_channel(self, process: str) -> grpc.aio.Channel | None:
        """The public port, as a player has it (None: the service has none)."""
        target = self.endpoints.public(process)
        if target is None:
            return None
        return grpc.aio.secure_channel(target, player_credentials(self.pki.ca_file))

    async def world(self) -> World:
        async with self.internal_channel("lobby", "operator") as channel:
            lobby = staff_lobby(channel)
            totals = await lobby.GetLedgerTotals(lpb.GetLedgerTotalsRequest())
            balances: dict[str, int] = {}
            stacks: dict[tuple[str, str], int] = {}
            for table in self.room.tables:
                for seat in table.seats:
                    player = await lobby.GetPlayer(
                        lpb.GetPlayerRequest(player_id=seat.player_id, token=seat.token)
                    )
                    balances[seat.player_id] = player.balance
                info = await lobby.GetTable(lpb.GetTableRequest(table_id=table.table_id))
                for occupied in info.occupied:
                    stacks[(table.table_id, occupied.player_id)] = occupied.stack
        table_channel = self.public_channel("table")
        assert table_channel is not None
        async with table_channel as channel:
            listed = await table_pb2_grpc.TableServiceStub(channel).ListTables(
                tpb.ListTablesRequest()
            )
        hands = {t.table_id: t.current_hand_id for t in listed.tables}
        return World(totals, balances, stacks, hands)


async def call(
    channel: grpc.aio.Channel,
    method: Internal,
    request: Any = None,
    metadata: tuple[tuple[str, str], ...] | None = None,
) -> grpc.StatusCode:
    """Call ``method`` with ``request`` (its default message) and return the status."""
    return (await call_status(channel, method, request, metadata))[0]


async def call_status(
    channel: grpc.aio.Channel,
    method: Internal,
    request: Any = None,
    metadata: tuple[tuple[str, str], ...] | None = None,
) -> tuple[grpc.StatusCode, str]:
    """Call ``method`` with ``request`` (its default message): the status and its
    message."""
    request_type = message_factory.GetMessageClass(method.method.input_type)
    response_type = message_factory.GetMessageClass(method.method.output_type)
    body = request if request is not None else request_type()
    try:
        if method.method.client_streaming:
            stream = channel.stream_stream(
                method.path,
                request_serializer=CallBatch.SerializeToString,
                response_deserializer=response_type.FromString,
            )

            # No request is written: the refusal comes before the server reads
            # one, and a grpc.aio client write racing the server's end of the
            # stream is reported as INTERNAL by the client itself (grpc#36066).
            batch_call = stream(timeout=5, metadata=metadata)
            while await batch_call.read() is not grpc.aio.EOF:  # raises on a refusal
                pass
        elif method.method.server_streaming:
            server_stream = channel.unary_stream(
                method.path,
                request_serializer=request_type.SerializeToString,
                response_deserializer=response_type.FromString,
            )
            async for _ in server_stream(body, timeout=5, metadata=metadata):
                pass
        else:
            unary = channel.unary_unary(
                method.path,
                request_serializer=request_type.SerializeToString,
                response_deserializer=response_type.FromString,
            )
            await unary(body, timeout=5, metadata=metadata)
    except grpc.aio.AioRpcError as error:
        return error.code(), error.details() or ""
    return grpc.StatusCode.OK, ""


async def hold_hands(endpoints: Endpoints) -> HostileRoom:
    """Two tables with seated players who never connect and a long clock: each
    table deals a hand and waits, so its hand id is live and public."""
    async with grpc.aio.secure_channel(
        endpoints.internal("lobby"), service_credentials(endpoints.pki.dir("operator"))
    ) as channel:
        room = Room(
            staff_lobby(channel),
            table_pb2_grpc.TableServiceStub(channel),
        )
        await room.create(table_specs()[:2], CLOCK_MS)
        await room.seat_everyone()
    hostile = HostileRoom(endpoints, room)
    for _ in range(400):
        world = await hostile.world()
        if all(world.hands.get(t.table_id) for t in room.tables):
            return hostile
        await asyncio.sleep(0.05)
    raise AssertionError("the tables never dealt a hand")


async def attack_every_internal_method(
    hostile: HostileRoom, tried: Counter[str] | None = None
) -> list[str]:
    """Every internal method, every way it must be refused; what was not refused
    as it must be.  The room must be unchanged after.  ``tried`` counts the
    methods called as each identity."""
    before = await hostile.world()
    wrong: list[str] = []
    for method in INTERNAL:
        public = hostile.public_channel(method.process)
        if public is not None:
            async with public as channel:
                code = await call(channel, method)
            if code != grpc.StatusCode.UNAUTHENTICATED:
                wrong.append(f"{method} on the public port: {code.name}")
        for way in ("no certificate", "plaintext"):
            channel = (
                hostile.internal_channel(method.process, None)
                if way == "no certificate"
                else grpc.aio.insecure_channel(hostile.endpoints.internal(method.process))
            )
            async with channel:
                code = await call(channel, method)
            if code != grpc.StatusCode.UNAVAILABLE:  # the handshake refused
                wrong.append(f"{method} with {way}: {code.name}")
        for identity in IDENTITIES:
            if identity in method.callers:
                continue
            async with hostile.internal_channel(method.process, identity) as channel:
                code = await call(channel, method)
            if tried is not None:
                tried[identity] += 1
            if code != grpc.StatusCode.PERMISSION_DENIED:
                wrong.append(f"{method} as {identity}: {code.name}")
    after = await hostile.world()
    assert after == before, "a refused call changed the room"
    return wrong


def lobby_public(hostile: HostileRoom) -> grpc.aio.Channel:
    channel = hostile.public_channel("lobby")
    assert channel is not None
    return channel


async def forged_finish(hostile: HostileRoom, before: World) -> lpb.FinishHandRequest:
    """FinishHand for the live hand of the first table (its id from the table's
    public ListTables) with final stacks that move 5,000 chips from one player to
    another."""
    table = hostile.room.tables[0]
    hand_id = before.hands[table.table_id]
    assert hand_id, "no hand in progress to attack"
    seats = [s.player_id for s in table.seats]
    forged = {pid: before.stacks[(table.table_id, pid)] for pid in seats}
    forged[seats[0]] += 5_000
    forged[seats[1]] -= 5_000
    request = lpb.FinishHandRequest(table_id=table.table_id, hand_id=hand_id)
    async with hostile.internal_channel("lobby", "operator") as channel:
        info = await lobby_pb2_grpc.LobbyStub(channel).GetTable(
            lpb.GetTableRequest(table_id=table.table_id)
        )
    for seat in info.occupied:
        request.final_stacks.add(
            seat=seat.seat, player_id=seat.player_id, stack=forged[seat.player_id]
        )
    return request


FINISH_HAND = next(m for m in INTERNAL if m.path == "/poker.lobby.v1.LobbyHands/FinishHand")


async def chip_rewrite_attack(hostile: HostileRoom) -> None:
    """The attack of the outside test: FinishHand for the live hand (its id from
    the table's public ListTables) with final stacks that move 5,000 chips from
    one player to another.  Refused for a player, a stranger and every identity
    but the table's, and the ledger, the balances and the stacks stay."""
    before = await hostile.world()
    table = hostile.room.tables[0]
    request = await forged_finish(hostile, before)
    finish = FINISH_HAND
    async with lobby_public(hostile) as channel:
        assert await call(channel, finish, request) == grpc.StatusCode.UNAUTHENTICATED
    for way in ("no certificate", "plaintext"):
        channel = (
            hostile.internal_channel("lobby", None)
            if way == "no certificate"
            else grpc.aio.insecure_channel(hostile.endpoints.internal("lobby"))
        )
        async with channel:
            assert await call(channel, finish, request) == grpc.StatusCode.UNAVAILABLE, way
    for identity in IDENTITIES:
        if identity == "table":
            continue
        async with hostile.internal_channel("lobby", identity) as channel:
            code = await call(channel, finish, request)
        assert code == grpc.StatusCode.PERMISSION_DENIED, identity
    void = next(m for m in INTERNAL if m.path == "/poker.lobby.v1.LobbyHands/VoidPendingHand")
    async with lobby_public(hostile) as channel:
        code = await call(channel, void, lpb.VoidPendingHandRequest(table_id=table.table_id))
        assert code == grpc.StatusCode.UNAUTHENTICATED
    assert await hostile.world() == before


async def self_grant_attack(hostile: HostileRoom) -> None:
    """RegisterPlayer with a balance from a player's connection is refused and
    registers nobody; a balance is an operator's grant."""
    before = await hostile.world()
    async with lobby_public(hostile) as channel:
        stub = lobby_pb2_grpc.LobbyStub(channel)
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await stub.RegisterPlayer(
                lpb.RegisterPlayerRequest(name="mallory", initial_balance=10**9)
            )
        assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED
        assert "operator" in (refused.value.details() or "")
    assert (await hostile.world()).totals == before.totals


async def gateway_grant_attack(hostile: HostileRoom) -> None:
    """The door's own identity is no operator: RegisterPlayer with a balance as
    ``gateway`` on the lobby's internal port is refused and registers nobody (a
    compromised door cannot print chips)."""
    before = await hostile.world()
    async with hostile.internal_channel("lobby", GATEWAY) as channel:
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await lobby_pb2_grpc.LobbyStub(channel).RegisterPlayer(
                lpb.RegisterPlayerRequest(name="mallory", initial_balance=10**9)
            )
    assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED
    assert (await hostile.world()).totals == before.totals


# What the door answers a gRPC call of a method it does not serve: an HTTP 404
# (connectrpc's), which grpc reports as UNIMPLEMENTED in its own words; no gRPC
# status, no message of the room's, no identity looked at.
DOOR_UNKNOWN_METHOD = (grpc.StatusCode.UNIMPLEMENTED, "Received http2 header with status: 404")


async def attack_the_door(hostile: HostileRoom, door: str) -> list[str]:
    """Every internal method at the room's public door (``door``: the gateway's
    address), which serves the Room API only:

    * over gRPC (HTTP/2), with no credential and with a seated player's, each on
      a connection of its own (a 404 leaves its connection unusable:
      test_door_connections.py): DOOR_UNKNOWN_METHOD;
    * over HTTP/1.1 in Connect JSON and in gRPC-Web, as a browser would post
      it: HTTP 404, nothing else;
    * the forged FinishHand of the chip-rewrite attack the same way;

    and the room is unchanged after.  What was answered otherwise is returned."""
    before = await hostile.world()
    seat = hostile.room.tables[0].seats[0]
    credential = f"{seat.player_id}.{seat.token}"
    forged = await forged_finish(hostile, before)
    web = ConnectClient(door, str(hostile.pki.ca_file))
    wrong: list[str] = []
    attacks = [(m, None) for m in INTERNAL] + [(FINISH_HAND, forged)]
    for method, request in attacks:
        for metadata in (None, (("authorization", f"Bearer {credential}"),)):
            channel = grpc.aio.secure_channel(door, player_credentials(hostile.pki.ca_file))
            async with channel:
                answer = await call_status(channel, method, request, metadata)
            if answer != DOOR_UNKNOWN_METHOD:
                who = "a player" if metadata else "no credential"
                wrong.append(f"{method} at the door over gRPC, {who}: {answer}")
        body = b"" if request is None else request.SerializeToString()
        for content_type, data in (
            ("application/json", b"{}"),
            ("application/grpc-web+proto", struct.pack(">BI", 0, len(body)) + body),
        ):
            response = await web.post(
                method.path, content_type, data, authorization=f"Bearer {credential}"
            )
            try:
                reply = await response.body.read_all()
            finally:
                await response.close()
            if response.status != 404 or reply:
                wrong.append(f"{method} at the door, {content_type}: {response.status} {reply!r}")
    after = await hostile.world()
    assert after == before, "a call at the door changed the room"
    return wrong
