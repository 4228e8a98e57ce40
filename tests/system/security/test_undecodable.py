"""Bytes that do not decode as the request message, on every method of every service.

Any client can send a body that is not a protobuf of the method's request type.
That is bad input: INVALID_ARGUMENT with a short message naming the expected
type (no exception class), counted as INVALID_ARGUMENT in
``grpc_server_handled_total`` (a client error, which the error-rate alert leaves
out), and no traceback in the service's log.  The methods are listed from each
running server's reflection, so a method added later is covered without a change
here; that includes the health and reflection services every server carries.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Any

import grpc
from google.protobuf.descriptor import MethodDescriptor
from google.protobuf.descriptor_pool import DescriptorPool
from grpc import aio
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import (
    ProtoReflectionDescriptorDatabase,
)

from devroom.launcher import ServiceProcess
from devroom.stack import Stack
from poker.betting.v1 import betting_pb2
from poker.dealer.v1 import dealer_pb2
from poker.lobby.v1 import lobby_pb2, tournament_pb2
from poker.showdown.v1 import showdown_pb2
from poker.table.v1 import table_pb2 as pb
from service_kit.authz import OPEN_SERVICES, access_of
from tests.support.metrics import scrape

from .room import STUD, WAIT_S, Room

# The room's services in the default descriptor pool, for their access options.
PROTOS = (betting_pb2, dealer_pb2, lobby_pb2, tournament_pb2, showdown_pb2, pb)
BAD = b"\xff\xff\xff"  # a truncated varint: no message type decodes it
SERVER_ERRORS = ("UNKNOWN", "INTERNAL", "UNIMPLEMENTED", "DATA_LOSS")


def raw(channel: Any) -> Any:
    """The channel for calls of raw bytes (no serializers), which the grpc stubs
    cannot type."""
    return channel


def methods_of(channel: grpc.Channel) -> list[MethodDescriptor]:
    """Every method of every service the server lists over reflection."""
    database = ProtoReflectionDescriptorDatabase(channel)
    pool = DescriptorPool(database)
    return [
        method
        for name in database.get_services()
        for method in pool.FindServiceByName(name).methods
    ]


def caller_of(service: str) -> str:
    """An identity that may call ``service`` on an internal port: one of its
    internal callers, else (the player plane, health, reflection) the operator."""
    callers = () if service in OPEN_SERVICES else access_of(service).callers
    return min(callers) if callers else "operator"


def rpc_type(method: MethodDescriptor) -> str:
    if method.client_streaming:
        return "BIDI_STREAM" if method.server_streaming else "CLIENT_STREAM"
    return "SERVER_STREAM" if method.server_streaming else "UNARY"


def handled(process: ServiceProcess) -> dict[tuple[str, str, str], float]:
    """grpc_server_handled_total by (service, method, code)."""
    handled: dict[tuple[str, str, str], float] = {}
    for (name, pairs), value in scrape(process).items():
        if name == "grpc_server_handled_total":
            labels = dict(pairs)
            key = (labels["grpc_service"], labels["grpc_method"], labels["grpc_code"])
            handled[key] = value
    return handled


def send_undecodable(channel: grpc.Channel, method: MethodDescriptor) -> grpc.RpcError:
    """The bad body as the (first) request; the error the call ends with."""
    path = f"/{method.containing_service.full_name}/{method.name}"
    call: Any
    try:
        if method.client_streaming and method.server_streaming:
            call = raw(channel).stream_stream(path)(iter([BAD]), timeout=10)
            list(call)
        elif method.client_streaming:
            raw(channel).stream_unary(path)(iter([BAD]), timeout=10)
        elif method.server_streaming:
            call = raw(channel).unary_stream(path)(BAD, timeout=10)
            list(call)
        else:
            raw(channel).unary_unary(path)(BAD, timeout=10)
    except grpc.RpcError as error:
        return error
    raise AssertionError(f"{path}: an undecodable body was accepted")


REFLECTION = "grpc.reflection.v1alpha.ServerReflection"


def reflection_streams(counts: dict[tuple[str, str, str], float]) -> float:
    """Reflection streams the server has counted as handled, whatever their code."""
    return sum(v for (service, _, _), v in counts.items() if service == REFLECTION)


def listed(process: ServiceProcess) -> list[MethodDescriptor]:
    """``methods_of`` the process, once the listing's own reflection stream has
    been counted: it ends when its channel closes, and the server counts it a
    moment later (a code of its own), which must not fall between the counts the
    test compares (CI failed once on it: ServerReflectionInfo UNKNOWN 1)."""
    before = reflection_streams(handled(process))
    with process.channel("operator") as lister:
        methods = methods_of(lister)
    deadline = time.monotonic() + 5.0
    while reflection_streams(handled(process)) <= before and time.monotonic() < deadline:
        time.sleep(0.05)
    return methods


def counted_after(
    process: ServiceProcess,
    methods: list[MethodDescriptor],
    before: dict[tuple[str, str, str], float],
    within_s: float = 5.0,
) -> dict[tuple[str, str, str], float]:
    """``handled`` once every method's call has been counted, or after
    ``within_s``.  grpc.aio's ``context.abort`` sends the status to the client
    before the handler's stack unwinds through the metrics interceptor, so on a
    busy server the client can see its INVALID_ARGUMENT a moment before the
    counter moves (seen once in CI on TableService.Act)."""
    deadline = time.monotonic() + within_s
    while True:
        after = handled(process)
        keys = [(m.containing_service.full_name, m.name, "INVALID_ARGUMENT") for m in methods]
        if all(after.get(k, 0.0) > before.get(k, 0.0) for k in keys):
            return after
        if time.monotonic() >= deadline:
            return after
        time.sleep(0.05)


def test_undecodable_bodies_are_invalid_argument_on_every_method(stack: Stack) -> None:
    problems: list[str] = []
    covered = 0
    for name, process in stack.processes.items():
        if name == "gateway":  # no internal port: test_undecodable_through_the_door
            continue
        methods = listed(process)
        assert len({m.containing_service.full_name for m in methods}) >= 3, name
        # Each method as a caller its service lets in (the body is what is bad
        # here, not who sends it).
        callers = {caller_of(m.containing_service.full_name) for m in methods}
        with contextlib.ExitStack() as opened:
            channels = {c: opened.enter_context(process.channel(c)) for c in callers}
            log_from = len(process.lines)
            before = handled(process)
            for method in methods:
                caller = caller_of(method.containing_service.full_name)
                error: Any = send_undecodable(channels[caller], method)
                expected = f"request body is not a valid {method.input_type.full_name} message"
                if (error.code(), error.details()) != (grpc.StatusCode.INVALID_ARGUMENT, expected):
                    problems.append(
                        f"{name} {method.full_name}: {error.code()} {error.details()!r}"
                    )
                covered += 1
            after = counted_after(process, methods, before)
        for method in methods:
            key = (method.containing_service.full_name, method.name)
            counted = {
                code: after.get((*key, code), 0.0) - before.get((*key, code), 0.0)
                for code in ("INVALID_ARGUMENT", *SERVER_ERRORS)
            }
            if counted["INVALID_ARGUMENT"] != 1 or any(counted[c] for c in SERVER_ERRORS):
                problems.append(f"{name} {method.full_name} ({rpc_type(method)}): {counted}")
        time.sleep(0.2)  # the last log lines reach the reader thread
        lines = list(process.lines)[log_from:]
        problems += [
            f"{name} logged: {line[:300]}"
            for line in lines
            if "Traceback" in line or '"level": "error"' in line
        ]
        warned = sum('"undecodable request"' in line for line in lines)
        if warned != len(methods):
            problems.append(f"{name}: {warned} undecodable-request lines for {len(methods)} calls")
    assert covered >= 40, covered  # five services' methods, health and reflection
    assert not problems, "\n".join(problems)


def test_undecodable_bodies_are_invalid_argument_through_the_door(stack: Stack) -> None:
    """Every Room method at the gateway (gRPC over HTTP/2): a body no request
    type decodes is INVALID_ARGUMENT naming the type, counted as such, logged
    without a traceback."""
    from poker.room.v1 import room_pb2
    from poker_wire.channels import player_channel_sync

    gateway = stack["gateway"]
    assert stack.pki is not None
    methods = list(room_pb2.DESCRIPTOR.services_by_name["Room"].methods)
    problems: list[str] = []
    log_from = len(gateway.lines)
    before = handled(gateway)
    with player_channel_sync(stack.gateway_target, stack.pki.ca_file) as channel:
        for method in methods:
            error: Any = send_undecodable(channel, method)
            if error.code() != grpc.StatusCode.INVALID_ARGUMENT or (
                method.input_type.full_name not in (error.details() or "")
            ):
                problems.append(f"{method.full_name}: {error.code()} {error.details()!r}")
    after = handled(gateway)
    for method in methods:
        key = ("poker.room.v1.Room", method.name, "INVALID_ARGUMENT")
        if after.get(key, 0.0) - before.get(key, 0.0) != 1:
            problems.append(f"{method.full_name}: not counted as INVALID_ARGUMENT once")
    time.sleep(0.2)
    problems += [
        f"gateway logged: {line[:300]}"
        for line in list(gateway.lines)[log_from:]
        if "Traceback" in line or '"level": "error"' in line
    ]
    assert len(methods) >= 20
    assert not problems, "\n".join(problems)


def test_undecodable_message_after_the_join_ends_play_and_play_many(room: Room) -> None:
    """Mid-stream, after a valid Join and a ping answered: the table service reads
    these streams on a task of its own; the bad message still ends the stream
    with INVALID_ARGUMENT, the seat leaves, and nothing is logged as an error."""
    table_id = room.create_table("undecodable", STUD, 2, min_buy_in=1_000, clock_ms=5_000)
    player = room.register("undecodable-1")
    join = pb.PlayerMessage(
        join=pb.Join(table_id=table_id, player_id=player.player_id, token=player.token)
    )
    ping = pb.PlayerMessage(ping=pb.Ping(nonce=7))
    process = room.stack["table"]
    log_from = len(process.lines)

    def pong(raw: bytes) -> bool:
        return pb.TableEvent.FromString(raw).pong.nonce == 7

    def many_pong(raw: bytes) -> bool:
        return any(e.event.pong.nonce == 7 for e in pb.PlayManyEvents.FromString(raw).events)

    def many(message: pb.PlayerMessage) -> bytes:
        request = pb.PlayManyRequest(messages=[pb.SessionMessage(session=1, message=message)])
        return request.SerializeToString()

    method_type = {
        "Play": "poker.table.v1.PlayerMessage",
        "PlayMany": "poker.table.v1.PlayManyRequest",
    }

    async def check(method: str, first: bytes, then: bytes, answered: Any) -> None:
        async with room.stack["table"].player_channel() as channel:
            call = raw(channel).stream_stream(f"/poker.table.v1.TableService/{method}")()
            await call.write(first)
            await call.write(then)
            async with asyncio.timeout(WAIT_S):
                while not answered(await call.read()):
                    pass
                await call.write(BAD)
                try:
                    while True:
                        assert await call.read() is not aio.EOF, f"{method} ended OK"
                except aio.AioRpcError as error:
                    assert (method, error.code(), error.details()) == (
                        method,
                        grpc.StatusCode.INVALID_ARGUMENT,
                        f"request body is not a valid {method_type[method]} message",
                    )

    asyncio.run(check("Play", join.SerializeToString(), ping.SerializeToString(), pong))
    asyncio.run(check("PlayMany", many(join), many(ping), many_pong))
    time.sleep(0.2)  # the last log lines reach the reader thread
    lines = list(process.lines)[log_from:]
    assert [line for line in lines if "Traceback" in line or '"level": "error"' in line] == []
    assert sum('"undecodable request"' in line for line in lines) == 2
