"""The table service's ServiceSpec: its settings (``settings.TableSettings``),
the table manager and the servicer."""

from __future__ import annotations

import asyncio

import grpc

from poker.table.v1 import table_pb2, table_pb2_grpc
from service_kit import ServiceSpec
from service_kit.logs import get_logger
from service_kit.settings import ServerSettings, var_of

from .clients import Addresses, Downstream
from .servicer import TableManager, TableServicer
from .settings import TableSettings

SERVICE_NAMES = tuple(
    table_pb2.DESCRIPTOR.services_by_name[name].full_name
    for name in ("TableService", "TableAudit", "TableCertification")
)


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
            shard=shard,
            shards=shards,
        )
        holder["manager"] = manager
        servicer = TableServicer(
            manager,
            allow_presets=settings.allow_preset_decks,
            audit_token=settings.audit_token,
        )
        table_pb2_grpc.add_TableServiceServicer_to_server(servicer, server)
        table_pb2_grpc.add_TableAuditServicer_to_server(servicer, server)
        table_pb2_grpc.add_TableCertificationServicer_to_server(servicer, server)
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
