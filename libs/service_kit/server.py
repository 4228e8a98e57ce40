"""One way to run a service: ``python -m services.<name>`` calls ``run_service``.

``serve`` builds the grpc.aio server with the kit's interceptors (Prometheus first,
so it sees the status of every refusal; then who may call what, from the protos'
``access`` options (``authz``); then the error mapping), health checking,
reflection for every service, and the ``/metrics`` endpoint.  It listens with
mutual TLS on PORT (the internal plane, ``tls``) and, for the lobby and the table,
with server TLS on PUBLIC_PORT (the player plane); GRPC_PLAINTEXT=1 (benchmarks
only) listens in plaintext.  Once the server is up it freezes the startup heap
out of the garbage collector's walks and leaves full collections to memory growth
(``heap``, GC_FULL_GROWTH); it logs one ``serving`` line with
the bound ports (PORT=0, PUBLIC_PORT=0 and METRICS_PORT=0 pick free ones, which is
how the tests run many servers side by side) and the objects frozen, then waits
for SIGTERM or SIGINT.

Shutdown is graceful and in this order: health goes NOT_SERVING (so load
balancers and the table service stop sending new work), the server keeps
answering for SHUTDOWN_DRAIN_S, the service's own ``on_shutdown`` runs (at most
SHUTDOWN_GRACE_S), then ``server.stop(SHUTDOWN_GRACE_S)`` lets in-flight calls
finish, and the process exits 0.

A port that cannot be bound stops the service with one line on stderr naming it
("dealer: port 50051 (gRPC) is in use") and exit code 2, like a bad setting.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

import grpc
from grpc_reflection.v1alpha import reflection

from .authz import AccessInterceptor, policies
from .errors import ErrorCodes, ErrorInterceptor
from .health import HEALTH_SERVICE, Health
from .heap import FullCollections, freeze_startup_heap
from .logs import configure_logging, get_logger
from .loop import run
from .metrics import PrometheusInterceptor, start_metrics_server
from .ports import DEFAULT_PUBLIC_PORTS
from .process import BindError, bind_error, follow_parent, port_in_use
from .ratelimit import RateLimiter
from .settings import ConfigError, ServerSettings
from .tls import TlsFiles, server_credentials


@dataclass(frozen=True)
class ServiceSpec:
    """What makes a service: its name, its gRPC services and how to add them."""

    name: str  # for logs: "dealer"
    service_names: Sequence[str]  # full names: "poker.dealer.v1.Dealer"
    register: Callable[[grpc.aio.Server], None]  # adds the servicers to the server
    error_codes: ErrorCodes = field(default_factory=dict)  # library errors -> statuses
    # Awaited on SIGTERM after the drain and before the server stops, while calls to
    # other services still work (the table service voids and reports its hands).
    on_shutdown: Callable[[], Awaitable[None]] | None = None


S = TypeVar("S")


def servicer_spec(
    name: str,
    service_name: str,
    add_to_server: Callable[[S, grpc.aio.Server], None],
    servicer: S,
    error_codes: ErrorCodes,
) -> ServiceSpec:
    """The spec of a service that serves one servicer, added by its generated
    ``add_*Servicer_to_server``."""

    def register(server: grpc.aio.Server) -> None:
        add_to_server(servicer, server)

    return ServiceSpec(
        name=name, service_names=(service_name,), register=register, error_codes=error_codes
    )


async def serve(spec: ServiceSpec, settings: ServerSettings) -> int:
    """Run until SIGTERM/SIGINT, then shut down gracefully; returns the exit code."""
    log = get_logger()
    try:
        stop_metrics, metrics_port = start_metrics_server(settings.host, settings.metrics_port)
    except OSError as error:
        raise bind_error(
            settings.host, settings.metrics_port, "metrics", error.strerror or str(error)
        ) from None
    # Prometheus first, so it counts the status of every refusal; then who may
    # call (before a request is even looked at); then the error mapping.
    interceptors: list[grpc.aio.ServerInterceptor] = [PrometheusInterceptor()]
    if not settings.plaintext:
        limiter = RateLimiter(settings.player_calls_per_s, settings.player_burst)
        interceptors.append(AccessInterceptor(policies(spec.service_names), limiter))
    interceptors.append(ErrorInterceptor(spec.error_codes))
    server = grpc.aio.server(
        interceptors=interceptors,
        options=[
            ("grpc.max_receive_message_length", settings.max_message_bytes),
            ("grpc.so_reuseport", 0),
            # A burst of calls waits for the loop instead of being dropped (see
            # MAX_PENDING_CALLS).
            ("grpc.server.max_pending_requests", MAX_PENDING_CALLS),
            ("grpc.server.max_pending_requests_hard_limit", MAX_PENDING_CALLS),
        ],
    )
    spec.register(server)
    health = Health()
    health.add_to(server)
    reflection.enable_server_reflection(
        (*spec.service_names, HEALTH_SERVICE, reflection.SERVICE_NAME), server
    )
    public = spec.name in DEFAULT_PUBLIC_PORTS
    try:
        port = _bind(server, settings, settings.port, "gRPC", internal=True)
        public_port = (
            _bind(server, settings, settings.public_port, "public", internal=False)
            if public
            else None
        )
    except BindError:
        stop_metrics()
        raise
    await server.start()
    frozen = freeze_startup_heap()  # the startup heap is not walked by the GC again
    full_collections = FullCollections(settings.gc_full_growth, young=settings.gc_young)
    managed = full_collections.start()  # full collections on memory growth (heap)
    await health.serving(spec.service_names)

    stopping = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stopping.set)
    log.info(
        "serving",
        host=settings.host,
        port=port,
        metrics_port=metrics_port,
        public_port=public_port,
        tls="off (GRPC_PLAINTEXT)" if settings.plaintext else "mutual",
        services=list(spec.service_names),
        gc_frozen_objects=frozen,
        gc_full_collections="on memory growth" if managed else "CPython's",
        gc_young_collections=settings.gc_young or not managed,
        grpc_experiments=os.environ.get("GRPC_EXPERIMENTS", ""),
    )
    await stopping.wait()

    log.info("shutting down", drain_s=settings.drain_seconds, grace_s=settings.grace_seconds)
    await health.shutting_down()
    if settings.drain_seconds:
        await asyncio.sleep(settings.drain_seconds)
    if spec.on_shutdown is not None:
        try:
            await asyncio.wait_for(spec.on_shutdown(), settings.grace_seconds)
        except Exception:
            log.exception("shutdown hook failed")
    await server.stop(settings.grace_seconds)
    await full_collections.stop()
    stop_metrics()
    log.info("stopped")
    return 0


MAX_PENDING_CALLS = 20_000
"""Calls a server holds that its event loop has not taken up yet: a burst's queue.

Why: grpc core hands the asyncio server one call at a time, when its loop asks
for the next; calls arriving faster wait in core.  Past 1,000 waiting (core's
default) core drops new calls at random, and past 3,000 all of them, as
CANCELLED before any handler sees them: 1,800 players registering at once, or
every seat joining after a table-service restart, lost some calls with nothing
wrong but the moment.  Here they wait, up to this many (each a few KB of
memory); a call past it is still refused by core (CANCELLED), and a caller's own
deadline bounds how long any of them waits."""

# The largest request each service accepts: a few hundred bytes are a player's
# call, and a table process's batch of calls stays far below 1 MiB; the betting
# service's batches carry the hands' states, so it takes more.  A request past
# its limit is refused before it is read (RESOURCE_EXHAUSTED), so a flood of
# big requests costs the service no memory.
MAX_MESSAGE_BYTES = {"betting": 4 * 1024 * 1024}
# The services that keep CPython's young collections (GC_YOUNG_COLLECTIONS): the
# lobby's store makes reference cycles, about 1,400 objects a second at 50 hands
# a second; the others make almost none (service_kit.heap).
YOUNG_COLLECTIONS = frozenset({"lobby"})


def _bind(
    server: grpc.aio.Server, settings: ServerSettings, port: int, what: str, *, internal: bool
) -> int:
    """Add one listening port: mutual TLS (internal) or server TLS (public), or
    plaintext in a bench's GRPC_PLAINTEXT run."""
    if port and port_in_use(settings.host, port):  # before grpc logs it
        raise bind_error(settings.host, port, what, "in use")
    address = f"{settings.host}:{port}"
    try:
        if settings.plaintext:
            return server.add_insecure_port(address)
        credentials = server_credentials(settings.tls_dir, require_client_auth=internal)
        return server.add_secure_port(address, credentials)
    except RuntimeError as error:  # grpc says "Failed to bind to address ..."
        raise bind_error(settings.host, port, what, str(error)) from None


def run_service(
    name: str,
    spec_factory: Callable[[], ServiceSpec],
    *,
    default_port: int,
    default_metrics_port: int,
) -> None:
    """The entry point of ``python -m services.<name>``: settings, logs, serve, exit.

    ``spec_factory`` runs after logging is configured, so a service can read its own
    settings there and have a bad value reported like the common ones (exit code 2).
    """
    try:
        settings = ServerSettings.from_env(
            default_port=default_port,
            default_metrics_port=default_metrics_port,
            default_public_port=DEFAULT_PUBLIC_PORTS.get(name, 0),
            default_max_message_bytes=MAX_MESSAGE_BYTES.get(name, 1024 * 1024),
            default_gc_young=name in YOUNG_COLLECTIONS,
        )
        if settings.tls_dir:
            TlsFiles(Path(settings.tls_dir)).check()
        follow_parent(settings.parent_pid)
        configure_logging(name, settings.log_level)
        spec = spec_factory()
    except ConfigError as error:
        print(f"{name}: configuration error: {error}", file=sys.stderr)
        raise SystemExit(2) from None
    try:
        code = run(serve(spec, settings), loop=settings.event_loop)
    except BindError as error:
        print(f"{name}: {error}", file=sys.stderr)
        raise SystemExit(2) from None
    sys.exit(code)
