"""The gateway's own settings (besides ``service_kit.settings.ServerSettings``,
of which it uses the public port, TLS_DIR, the metrics port, the player limits,
the log level and the event loop)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from service_kit.ports import DEFAULT_PORTS
from service_kit.settings import ConfigError, Var, parse_address, read_settings, setting


def parse_addresses(name: str, text: str) -> tuple[str, ...]:
    """``host:port,host:port``: at least one, each with a port."""
    addresses = tuple(part.strip() for part in text.split(",") if part.strip())
    if not addresses:
        raise ConfigError(f"{name}: at least one host:port is required")
    for address in addresses:
        parse_address(name, address)
    if len(set(addresses)) != len(addresses):
        raise ConfigError(f"{name}: an address is listed twice")
    return addresses


def parse_origins(name: str, text: str) -> tuple[str, ...]:
    """Browser origins (``https://app.example.com``) or ``*``; empty = none."""
    origins = tuple(part.strip().rstrip("/") for part in text.split(",") if part.strip())
    for origin in origins:
        if origin != "*" and not origin.startswith(("http://", "https://")):
            raise ConfigError(f"{name}: {origin!r} is not an origin (scheme://host[:port]) or *")
    return origins


_TABLE = f"127.0.0.1:{DEFAULT_PORTS['table'][0]}"


@dataclass(frozen=True, slots=True)
class GatewaySettings:
    """GATEWAY_*: where the room is, who may call from a browser, and the limits."""

    lobby_addr: str = setting(
        Var(
            "GATEWAY_LOBBY_ADDR",
            f"127.0.0.1:{DEFAULT_PORTS['lobby'][0]}",
            "the lobby's internal (mutual TLS) address",
            values="host:port",
        ),
        parse=parse_address,
    )
    table_shards: tuple[str, ...] = setting(
        Var(
            "GATEWAY_TABLE_SHARDS",
            _TABLE,
            "the internal addresses of every table-service shard; the gateway asks each "
            "which tables it runs (clients never compute a shard)",
            values="host:port,host:port,...",
        ),
        parse=parse_addresses,
        default=(_TABLE,),
    )
    public_tls_dir: str = setting(
        Var(
            "GATEWAY_PUBLIC_TLS_DIR",
            "",
            "directory with the public certificate (`tls.crt`, `tls.key`) players see; "
            "empty = TLS_DIR's (the room's CA signs it); re-read when it changes",
            values="a directory",
        )
    )
    cors_origins: tuple[str, ...] = setting(
        Var(
            "GATEWAY_CORS_ORIGINS",
            "",
            "browser origins allowed to call (CORS), comma-separated, or `*`; empty = "
            "no cross-origin calls",
            values="origins or *",
        ),
        parse=parse_origins,
        default=(),
    )
    shard_refresh_s: float = setting(
        Var(
            "GATEWAY_SHARD_REFRESH_S",
            2.0,
            "seconds between asking every shard which tables it runs (a miss asks at once)",
            minimum=0.05,
        )
    )
    credential_cache_s: float = setting(
        Var(
            "GATEWAY_CREDENTIAL_CACHE_S",
            30.0,
            "seconds a credential the lobby accepted is remembered (0 = ask every call)",
        )
    )
    watchers_per_table: int = setting(
        Var(
            "GATEWAY_WATCHERS_PER_TABLE",
            1000,
            "spectators of one table on one gateway replica; past it RESOURCE_EXHAUSTED",
            minimum=1,
        )
    )
    watchers_per_player: int = setting(
        Var(
            "GATEWAY_WATCHERS_PER_PLAYER",
            20,
            "Watch streams one player may hold open; past it RESOURCE_EXHAUSTED",
            minimum=1,
        )
    )
    watch_buffer: int = setting(
        Var(
            "GATEWAY_WATCH_BUFFER",
            256,
            "messages waiting for one spectator; a spectator this far behind is dropped "
            "(RESOURCE_EXHAUSTED), never waited for",
            minimum=8,
        )
    )
    watch_coalesce_ms: int = setting(
        Var(
            "GATEWAY_WATCH_COALESCE_MS",
            10,
            "a table's events within this many ms reach its spectators as one message "
            "(a batch); 0 = one message per event",
            minimum=0,
            maximum=1000,
        )
    )
    registrations_per_minute: float = setting(
        Var(
            "GATEWAY_REGISTRATIONS_PER_MIN",
            60.0,
            "Register calls a minute from one client address (bursts of 20); past it "
            "RESOURCE_EXHAUSTED",
            minimum=1.0,
        )
    )
    trusted_hops: int = setting(
        Var(
            "GATEWAY_TRUSTED_HOPS",
            0,
            "proxies in front of the gateway (a Gateway API implementation, an Ingress) "
            "whose X-Forwarded-For is believed: the per-address limits then count the "
            "client's address, not the proxy's; 0 = the connection's own address",
            minimum=0,
            maximum=10,
        )
    )
    connections_per_address: int = setting(
        Var(
            "GATEWAY_CONNECTIONS_PER_ADDRESS",
            256,
            "open client connections from one address, counted from accept (TLS "
            "handshakes too); the next is reset at once (0 = no cap; off behind "
            "proxies, GATEWAY_TRUSTED_HOPS > 0, which limit their own clients)",
            minimum=0,
        )
    )
    tls_handshake_s: float = setting(
        Var(
            "GATEWAY_TLS_HANDSHAKE_S",
            10.0,
            "seconds a new connection has to finish its TLS handshake before it is "
            "closed (it counts against GATEWAY_CONNECTIONS_PER_ADDRESS meanwhile)",
            minimum=0.5,
            maximum=120,
        )
    )
    # At most 900: hypercorn keeps a connection's open streams in a priority tree
    # of 1,000 (priority.PriorityTree's default), and a stream past it raised an
    # error nobody handled, which stalled the whole connection for good.  Below
    # that, HTTP/2 itself refuses a client's extra stream.  Many seats need no more:
    # one PlayMany stream carries them.
    streams_per_connection: int = setting(
        Var(
            "GATEWAY_STREAMS_PER_CONNECTION",
            900,
            "concurrent HTTP/2 streams on one client connection (hypercorn holds at "
            "most 1,000; many seats share one PlayMany stream)",
            minimum=100,
            maximum=900,
        )
    )

    web_root: str = setting(
        Var(
            "GATEWAY_WEB_ROOT",
            "",
            "directory of the built web client (`index.html`, `app.js`) served at `/`; "
            "empty = this checkout's `clients/web/dist` when it was built, `off` = no page",
            values="a directory, or off",
        )
    )

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> GatewaySettings:
        """Read GATEWAY_* (a bad value names the variable)."""
        return read_settings(cls, environ)
