"""The table service's ServiceSpec: its settings (``settings.TableSettings``),
the table manager and the servicer, and how its services are registered
(``add_table_services``: Watch and PlayMany send pre-serialized messages)."""

from __future__ import annotations

import asyncio
from typing import Any, cast

import grpc

from poker.table.v1 import table_pb2, table_pb2_grpc
from service_kit import ServiceSpec
from service_kit.handlers import Handler
from service_kit.logs import get_logger
from service_kit.settings import ServerSettings, var_of

from .clients import Addresses, Downstream
from .servicer import TableManager, TableServicer
from .settings import TableSettings
from .viewers import WatchLimits

SERVICE_NAMES = tuple(
    table_pb2.DESCRIPTOR.services_by_name[name].full_name
    for name in ("TableService", "TableAudit", "TableCertification")
)
TABLE_SERVICE = table_pb2.DESCRIPTOR.services_by_name["TableService"]


class _Registrations:
    """Stands in for a server to take the method handlers that the generated
    ``add_TableServiceServicer_to_server`` registers, so that one can be replaced."""

    def __init__(self) -> None:
        self.handlers: dict[str, Handler] = {}

    def add_generic_rpc_handlers(self, handlers: Any) -> None:
        """The same handlers come through ``add_registered_method_handlers``."""

    def add_registered_method_handlers(self, service: str, handlers: dict[str, Handler]) -> None:
        self.handlers.update(handlers)


def add_table_services(servicer: TableServicer, server: grpc.aio.Server) -> None:
    """Register the table proto's three services.  TableService as the generated
    code does, except Watch and PlayMany: their responses are bytes the table
    serialized already (once for all of a table's spectators,
    ``viewers.Audience.broadcast``; framed around events serialized once per view,
    ``many``), sent as they are.  The server's interceptors (metrics, access,
    errors) wrap them as they wrap any method: they keep a handler's serializers."""
    generated = _Registrations()
    # Only the two registration methods are called on it.
    table_pb2_grpc.add_TableServiceServicer_to_server(servicer, cast(grpc.aio.Server, generated))
    handlers = generated.handlers
    expected = {method.name for method in TABLE_SERVICE.methods}
    if set(handlers) != expected:  # the generated code registers another way now
        raise RuntimeError(f"TableService handlers {sorted(handlers)}, expected {sorted(expected)}")
    handlers["Watch"] = grpc.unary_stream_rpc_method_handler(
        servicer.Watch,
        request_deserializer=table_pb2.WatchRequest.FromString,
        response_serializer=_as_sent,
    )
    # PlayMany's messages are framed around events serialized once per view (many.py).
    handlers["PlayMany"] = grpc.stream_stream_rpc_method_handler(
        servicer.PlayMany,
        request_deserializer=table_pb2.PlayManyRequest.FromString,
        response_serializer=_as_sent,
    )
    name = TABLE_SERVICE.full_name
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(name, handlers),))
    server.add_registered_method_handlers(name, handlers)
    table_pb2_grpc.add_TableAuditServicer_to_server(servicer, server)
    table_pb2_grpc.add_TableCertificationServicer_to_server(servicer, server)


def _as_sent(wire: bytes) -> bytes:
    """Watch's and PlayMany's response serializer: each message is serialized
    already."""
    return wire


def make_spec() -> ServiceSpec:
    """Read TABLE_* settings and build the service (tables start once serving)."""
    settings = TableSettings.from_env()
    addresses = Addresses(
        lobby=settings.lobby_addr,
        dealer=settings.dealer_addr,
        betting=settings.betting_addr,
        showdown=settings.showdown_addr,
    )
    shard, shards = settings.shard
    log = get_logger()
    if settings.allow_preset_decks:
        log.warning("preset decks are allowed: tests and certification only")
    if not settings.audit_token and settings.audit_token_file:
        # A missing file is no token (the Secret is optional), as with the variable unset.
        log.warning("no audit token in TABLE_AUDIT_TOKEN_FILE: GetDeckReveal disabled")
    holder: dict[str, TableManager] = {}
    # The table calls the others as itself: its own certificate (TLS_DIR).
    tls_dir = var_of(ServerSettings, "tls_dir").read()
    plaintext = var_of(ServerSettings, "plaintext").read()

    def register(server: grpc.aio.Server) -> None:
        manager = TableManager(
            Downstream(
                addresses,
                settings.call_deadline_s,
                batched=settings.batched_calls,
                tls_dir=tls_dir or None,
                plaintext=plaintext,
            ),
            discovery_s=settings.discovery_s,
            idle_poll_s=settings.idle_poll_s,
            hand_pause_s=settings.hand_pause_s,
            history_hands=settings.history_hands,
            sit_out_after_clock_hands=settings.sit_out_after_clock_hands,
            shard=shard,
            shards=shards,
            watch=WatchLimits(
                buffer=settings.watch_buffer,
                per_table=settings.watchers_per_table,
                per_client=settings.watchers_per_client,
            ),
        )
        holder["manager"] = manager
        servicer = TableServicer(
            manager,
            allow_presets=settings.allow_preset_decks,
            audit_token=settings.audit_token,
            identities=not plaintext,
            play_many_sessions=settings.play_many_sessions,
        )
        add_table_services(servicer, server)
        asyncio.get_running_loop().call_soon(manager.start)
        log.info("downstream", **vars(addresses), shard=f"{shard}/{shards}")

    async def on_shutdown() -> None:
        """SIGTERM: stop dealing; a hand in progress is voided and reported, so the
        lobby returns its chips at once (not only when a new table process starts)."""
        manager = holder.get("manager")
        if manager is not None:
            await manager.stop()

    return ServiceSpec(
        name="table", service_names=SERVICE_NAMES, register=register, on_shutdown=on_shutdown
    )
