"""Watch's own handler (``services.table.server.add_table_services``: responses are
bytes serialized once per event) still goes through the kit's interceptors, as
every other method: the metrics count its calls and messages, the error mapping
answers an undecodable body INVALID_ARGUMENT and an unknown table NOT_FOUND, and
what arrives is a TableEvent like any other."""

from __future__ import annotations

import asyncio
from typing import Any

import grpc
from prometheus_client import REGISTRY

from poker.table.v1 import table_pb2_grpc

from .inroom import WAIT_S, InRoom, in_room
from .streams import watch

WATCH = "/poker.table.v1.TableService/Watch"
LABELS = {"grpc_type": "SERVER_STREAM", "grpc_service": "poker.table.v1.TableService"}


def sample(name: str, **labels: str) -> float:
    value = REGISTRY.get_sample_value(name, {**LABELS, "grpc_method": "Watch", **labels})
    return value or 0.0


def test_watch_is_counted_and_its_errors_mapped_like_any_method() -> None:
    async def body(room: InRoom) -> None:
        table_id = await room.create_table()
        started, sent = sample("grpc_server_started_total"), sample("grpc_server_msg_sent_total")
        invalid = sample("grpc_server_handled_total", grpc_code="INVALID_ARGUMENT")
        async with room.player_channel() as channel:
            stub = table_pb2_grpc.TableServiceStub(channel)
            reader = watch(stub, table_id)
            first = await reader.wait_for(lambda e: e.HasField("snapshot"), "the Snapshot")
            assert first.table_id == table_id and first.snapshot.table_id == table_id
            await room.seat(table_id, 2)
            await reader.wait_for(lambda e: e.HasField("hand_started"), "the hand's start")
            await reader.close()

            unknown = watch(stub, "t-no-such-table")
            error = await unknown.ended()
            assert error is not None and error.code() == grpc.StatusCode.NOT_FOUND, error

            raw: Any = channel.unary_stream(WATCH)  # no serializers: the bytes as sent
            with_bad_body = raw(b"\xff\xff\xff", timeout=WAIT_S)
            try:
                async for _ in with_bad_body:
                    raise AssertionError("an undecodable Watch streamed")
            except grpc.aio.AioRpcError as refused:
                assert refused.code() == grpc.StatusCode.INVALID_ARGUMENT, refused
                assert "WatchRequest" in (refused.details() or "")
        assert sample("grpc_server_started_total") == started + 3
        assert sample("grpc_server_msg_sent_total") >= sent + len(reader.events)
        assert sample("grpc_server_handled_total", grpc_code="INVALID_ARGUMENT") == invalid + 1

    async def main() -> None:
        async with in_room() as room:
            await body(room)

    asyncio.run(main())
