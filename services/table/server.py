"""The table service's ServiceSpec: its settings (see the package docstring),
the table manager and the servicer."""

from __future__ import annotations

import asyncio

import grpc

from poker.table.v1 import table_pb2, table_pb2_grpc
from service_kit import ConfigError, ServiceSpec
from service_kit.deadlines import default_deadline
from service_kit.logs import get_logger
from service_kit.settings import env_bool, env_float, env_int, env_secret, env_str
from services.ports import DEFAULT_PORTS

from .clients import Addresses, Downstream
from .servicer import TableManager, TableServicer

SERVICE_NAME = table_pb2.DESCRIPTOR.services_by_name["TableService"].full_name


def _address(service: str) -> str:
    return env_str(f"TABLE_{service.upper()}_ADDR", f"127.0.0.1:{DEFAULT_PORTS[service][0]}")


def _shard() -> tuple[int, int]:
    text = env_str("TABLE_SHARD", "0/1")
    try:
        index, count = (int(part) for part in text.split("/"))
    except ValueError:
        raise ConfigError(f"TABLE_SHARD={text!r}: expected i/n, like 0/1 or 2/3") from None
    if not 0 <= index < count:
        raise ConfigError(f"TABLE_SHARD={text!r}: need 0 <= i < n")
    return index, count


def _audit_token() -> str:
    """The auditors' token: TABLE_AUDIT_TOKEN, or the file TABLE_AUDIT_TOKEN_FILE
    names (the Kubernetes manifests mount a Secret there).  A missing file is no
    token: GetDeckReveal is disabled, as with the variable unset (the Secret is
    optional)."""
    token = env_secret("TABLE_AUDIT_TOKEN")
    if not token and env_str("TABLE_AUDIT_TOKEN_FILE", ""):
        get_logger().warning("no audit token in TABLE_AUDIT_TOKEN_FILE: GetDeckReveal disabled")
    return token


def make_spec() -> ServiceSpec:
    """Read TABLE_* settings and build the service (tables start once serving)."""
    addresses = Addresses(
        lobby=_address("lobby"),
        dealer=_address("dealer"),
        betting=_address("betting"),
        showdown=_address("showdown"),
    )
    shard, shards = _shard()
    discovery_s = env_float("TABLE_DISCOVERY_S", 1.0, minimum=0.05)
    idle_poll_s = env_float("TABLE_IDLE_POLL_S", 0.25, minimum=0.01)
    hand_pause_s = env_int("TABLE_HAND_PAUSE_MS", 0, minimum=0, maximum=60_000) / 1000
    history_hands = env_int("TABLE_HISTORY_HANDS", 500, minimum=1, maximum=100_000)
    allow_presets = env_bool("TABLE_ALLOW_PRESET_DECKS", False)
    betting_session = env_bool("TABLE_BETTING_SESSION", True)
    audit_token = _audit_token()
    deadline = default_deadline()
    log = get_logger()
    if allow_presets:
        log.warning("preset decks are allowed: tests and certification only")
    holder: dict[str, TableManager] = {}

    def register(server: grpc.aio.Server) -> None:
        manager = TableManager(
            Downstream(addresses, deadline, betting_session=betting_session),
            discovery_s=discovery_s,
            idle_poll_s=idle_poll_s,
            hand_pause_s=hand_pause_s,
            history_hands=history_hands,
            shard=shard,
            shards=shards,
        )
        holder["manager"] = manager
        table_pb2_grpc.add_TableServiceServicer_to_server(
            TableServicer(manager, allow_presets=allow_presets, audit_token=audit_token), server
        )
        asyncio.get_running_loop().call_soon(manager.start)
        log.info("downstream", **vars(addresses), shard=f"{shard}/{shards}")

    async def on_shutdown() -> None:
        """SIGTERM: stop dealing; a hand in progress is voided and reported, so the
        lobby returns its chips at once (not only when a new table process starts)."""
        manager = holder.get("manager")
        if manager is not None:
            await manager.stop()

    return ServiceSpec(
        name="table", service_names=(SERVICE_NAME,), register=register, on_shutdown=on_shutdown
    )
