"""Running the door: settings, the upstream channels, hypercorn on one TLS port.

hypercorn serves HTTP/1.1 and HTTP/2 (ALPN) with TLS on ``PUBLIC_PORT``: gRPC
needs HTTP/2 with trailers, gRPC-Web and Connect work over either.  The public
certificate (``GATEWAY_PUBLIC_TLS_DIR``, else TLS_DIR's) is re-read when its
files change, for new connections, as the services do with theirs; the
gateway's own identity (TLS_DIR) is re-read the same way and its channels to the
room re-made.  ``/metrics`` is on ``METRICS_PORT`` like every service's.
SIGTERM: stop accepting, let calls finish for ``SHUTDOWN_GRACE_S``, exit.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import socket
import ssl
import sys
from pathlib import Path
from typing import Any

from hypercorn.asyncio import serve
from hypercorn.config import Config
from hypercorn.middleware import ProxyFixMiddleware

from poker.room.v1.room_connect import RoomASGIApplication
from service_kit.logs import StdlibToJson, configure_logging, get_logger
from service_kit.loop import run
from service_kit.metrics import start_metrics_server
from service_kit.ports import DEFAULT_GATEWAY_PORT, GATEWAY_METRICS_PORT
from service_kit.process import BindError, bind_error, follow_parent, port_in_use
from service_kit.settings import CALL_DEADLINE, ConfigError, ServerSettings
from service_kit.tls import TlsFiles

from . import connections, hypercorn_fix
from .codecs import codecs
from .connections import ConnectionLimit
from .credentials import Credentials
from .grpc_web_text import GrpcWebText
from .http import Door
from .limits import Limits
from .metrics import CREDENTIALS
from .metrics import interceptors as metrics_interceptors
from .room import RoomService
from .settings import GatewaySettings
from .spectators import Spectators
from .upstream import Upstream
from .web import WebRoot, default_root

CERT_CHECK_S = 10.0  # how often the certificate files' stamps are compared
CHANNEL_RETIRE_S = 600.0  # old channels' streams get this long after a renewal
EXIT_MARGIN_S = 1.0  # after the grace, what closing takes before the process ends


class _ReloadingConfig(Config):
    """hypercorn's config, keeping the one SSLContext it makes so the
    certificate can be loaded into it again when the files change."""

    public: TlsFiles
    context: ssl.SSLContext | None = None

    def create_ssl_context(self) -> ssl.SSLContext | None:
        context = super().create_ssl_context()
        self.context = context
        return context


def _socket(host: str, port: int) -> socket.socket:
    if port and port_in_use(host, port):
        raise bind_error(host, port, "public", "in use")
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as error:
        sock.close()
        raise bind_error(host, port, "public", error.strerror or str(error)) from None
    sock.listen(1024)
    sock.set_inheritable(True)
    return sock


async def _watch_certificates(
    config: _ReloadingConfig, public: TlsFiles, identity: TlsFiles, upstream: Upstream
) -> None:
    """Load the public certificate again when its files change (new connections),
    and make new channels to the room when the gateway's own identity is renewed
    (``Upstream.renew``)."""
    log = get_logger()
    public_stamp, identity_stamp = _public_stamp(public), identity.stamp()
    renewals: set[asyncio.Task[None]] = set()
    while True:
        await asyncio.sleep(CERT_CHECK_S)
        with contextlib.suppress(OSError):
            now = _public_stamp(public)
            if now and now != public_stamp and config.context is not None:
                config.context.load_cert_chain(str(public.cert), str(public.key))
                public_stamp = now
                log.info("public certificate reloaded")
        with contextlib.suppress(OSError):
            now = identity.stamp()
            if now != identity_stamp:
                identity_stamp = now
                task = asyncio.create_task(
                    upstream.renew(str(identity.directory), retire_s=CHANNEL_RETIRE_S)
                )
                renewals.add(task)
                task.add_done_callback(renewals.discard)
                log.info("identity certificate renewed: new channels to the room")


def _public_stamp(files: TlsFiles) -> tuple[int, ...]:
    """The public certificate's and key's modification times.  Not
    ``TlsFiles.stamp``: a public directory need not hold a ``ca.crt``, and with
    it missing that stamp never changed, so a renewed certificate was never
    loaded."""
    try:
        return tuple(os.stat(path).st_mtime_ns for path in (files.cert, files.key))
    except OSError:
        return ()


async def _serve(settings: ServerSettings, gateway: GatewaySettings) -> int:
    log = get_logger()
    if settings.plaintext:
        raise ConfigError(
            "the gateway always serves TLS (GRPC_PLAINTEXT is for the bench's services)"
        )
    identity = TlsFiles(Path(settings.tls_dir)).check()
    public_files = TlsFiles(Path(gateway.public_tls_dir)) if gateway.public_tls_dir else identity
    for path in (public_files.cert, public_files.key):
        if not path.is_file():
            raise ConfigError(f"GATEWAY_PUBLIC_TLS_DIR: missing {path}")
    sock = _socket(settings.host, settings.public_port)
    try:
        stop_metrics, metrics_port = start_metrics_server(settings.host, settings.metrics_port)
    except OSError as error:
        sock.close()
        raise bind_error(
            settings.host, settings.metrics_port, "metrics", error.strerror or str(error)
        ) from None

    upstream = Upstream(
        gateway.lobby_addr,
        gateway.table_shards,
        settings.tls_dir,
        refresh_s=gateway.shard_refresh_s,
        deadline_s=CALL_DEADLINE.read(),
    )

    async def check(player: Any) -> None:
        try:
            await upstream.check(player)
        except Exception:
            CREDENTIALS.labels("refused").inc()
            raise
        CREDENTIALS.labels("checked").inc()

    limits = Limits(
        settings.player_calls_per_s, settings.player_burst, gateway.registrations_per_minute
    )
    credentials = Credentials(check, gateway.credential_cache_s, limits=limits)
    spectators = Spectators(
        _opener(upstream),
        _spectator_snapshot(upstream),
        per_table=gateway.watchers_per_table,
        per_player=gateway.watchers_per_player,
        buffer=gateway.watch_buffer,
        coalesce_s=gateway.watch_coalesce_ms / 1000,
    )
    room = RoomASGIApplication(
        RoomService(upstream, credentials, limits, spectators),
        interceptors=metrics_interceptors(),
        read_max_bytes=settings.max_message_bytes,
        codecs=codecs(),
    )
    upstream.start()

    hypercorn_fix.apply()
    # Behind proxies every connection is a proxy's: they limit their own clients.
    per_address = 0 if gateway.trusted_hops else gateway.connections_per_address
    connections.install(ConnectionLimit(per_address), gateway.tls_handshake_s)
    config = _ReloadingConfig()
    config.bind = [f"fd://{sock.fileno()}"]
    config.certfile = str(public_files.cert)
    config.keyfile = str(public_files.key)
    config.alpn_protocols = ["h2", "http/1.1"]
    config.h2_max_concurrent_streams = gateway.streams_per_connection
    config.graceful_timeout = settings.grace_seconds
    config.keep_alive_timeout = 120.0
    # hypercorn closes a connection after 1,000 requests by default: a browser's
    # Act calls or a bot lab's joins would see it go away mid-game.
    config.keep_alive_max_requests = 2**62
    config.accesslog = None
    hypercorn_log = logging.getLogger("hypercorn.error")
    hypercorn_log.handlers = [StdlibToJson()]  # its own lines, as JSON
    hypercorn_log.propagate = False
    config.errorlog = hypercorn_log

    stopping = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stopping.set)
    deadline = asyncio.create_task(_exit_after_grace(stopping, settings.grace_seconds))
    watcher = asyncio.create_task(_watch_certificates(config, public_files, identity, upstream))
    log.info(
        "serving",
        host=settings.host,
        public_port=sock.getsockname()[1],
        metrics_port=metrics_port,
        protocols=["grpc", "grpc-web", "connect"],  # grpc-web: binary and text mode
        lobby=gateway.lobby_addr,
        shards=list(gateway.table_shards),
        cors_origins=list(gateway.cors_origins),
    )
    text_mode = GrpcWebText(room, settings.max_message_bytes)
    app: Any = Door(text_mode, gateway.cors_origins, upstream.shards.ready, web_root(gateway))
    if gateway.trusted_hops:
        # Behind a proxy: the client's address from the X-Forwarded-For the
        # trusted hops appended (the per-address limits count it).
        app = ProxyFixMiddleware(app, mode="legacy", trusted_hops=gateway.trusted_hops)
    try:
        await serve(
            app,
            config,
            shutdown_trigger=stopping.wait,
        )
    finally:
        watcher.cancel()
        deadline.cancel()
        await upstream.close()
        stop_metrics()
        with contextlib.suppress(OSError):  # hypercorn closed its copy of the fd
            sock.close()
        log.info("stopped")
    return 0


async def _exit_after_grace(stopping: asyncio.Event, grace_s: float) -> None:
    """SIGTERM: calls get ``SHUTDOWN_GRACE_S``, then the process ends even if a
    client still holds a TLS connection open (closing it waits for the client's
    close_notify up to 30 s, past Kubernetes' grace).  The gateway keeps nothing:
    a cut connection's client reconnects to another replica."""
    await stopping.wait()
    await asyncio.sleep(grace_s + EXIT_MARGIN_S)
    get_logger().warning("stopped with connections still open", grace_s=grace_s)
    sys.stdout.flush()
    os._exit(0)


def web_root(gateway: GatewaySettings) -> WebRoot | None:
    """The web client to serve at ``/`` (``GATEWAY_WEB_ROOT``), or None."""
    if gateway.web_root == "off":
        return None
    root = Path(gateway.web_root) if gateway.web_root else default_root()
    if not (root / "index.html").is_file():
        if gateway.web_root:  # asked for and missing: say so, serve the API anyway
            get_logger().warning("no web client to serve", web_root=str(root))
        return None
    return WebRoot(root)


def _opener(upstream: Upstream) -> Any:
    async def open_watch(table_id: str) -> Any:
        from poker.table.v1 import table_pb2 as tpb

        async def on(shard: int) -> Any:
            return upstream.raw_watch(shard)(tpb.WatchRequest(table_id=table_id))

        return await upstream.on_table(table_id, on)

    return open_watch


def _spectator_snapshot(upstream: Upstream) -> Any:
    async def snapshot(table_id: str) -> bytes:
        from poker.table.v1 import table_pb2 as tpb

        async def on(shard: int) -> tpb.Snapshot:
            return await upstream.table(shard).GetState(
                tpb.GetStateRequest(table_id=table_id), timeout=upstream.deadline_s
            )

        view = await upstream.on_table(table_id, on)
        return tpb.TableEvent(table_id=table_id, snapshot=view).SerializeToString()

    return snapshot


def main() -> None:
    """``python -m services.gateway``."""
    try:
        settings = ServerSettings.from_env(
            default_port=0,
            default_metrics_port=GATEWAY_METRICS_PORT,
            default_public_port=DEFAULT_GATEWAY_PORT,
        )
        gateway = GatewaySettings.from_env()
        follow_parent(settings.parent_pid)
        configure_logging("gateway", settings.log_level)
    except ConfigError as error:
        print(f"gateway: configuration error: {error}", file=sys.stderr)
        raise SystemExit(2) from None
    try:
        code = run(_serve(settings, gateway), loop=settings.event_loop)
    except (BindError, ConfigError) as error:
        print(f"gateway: {error}", file=sys.stderr)
        raise SystemExit(2) from None
    sys.exit(code)
