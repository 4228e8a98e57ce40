"""service_kit in-process: settings, error mapping and client deadlines."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from typing import Any

import grpc
import pytest
from prometheus_client import REGISTRY

from devroom.launcher import shared_pki
from service_kit import (
    ConfigError,
    InvalidArgumentError,
    ServerSettings,
    call_timeout,
    insecure_channel,
)
from service_kit.errors import ErrorInterceptor
from service_kit.metrics import PrometheusInterceptor, batch_metrics
from service_kit.settings import env_bool, env_float, env_int

# ---------------------------------------------------------------- settings


def test_server_settings_defaults_and_overrides() -> None:
    tls = {"TLS_DIR": str(shared_pki().dir("dealer"))}  # required: mutual TLS
    defaults = ServerSettings.from_env(default_port=50051, default_metrics_port=9101, environ=tls)
    assert (defaults.host, defaults.port, defaults.metrics_port) == ("127.0.0.1", 50051, 9101)
    assert (defaults.log_level, defaults.drain_seconds, defaults.grace_seconds) == ("info", 0, 5)
    assert (defaults.tls_dir, defaults.plaintext) == (tls["TLS_DIR"], False)
    custom = ServerSettings.from_env(
        default_port=1,
        default_metrics_port=2,
        environ={"PORT": "0", "METRICS_PORT": "9999", "LOG_LEVEL": "debug", **tls},
    )
    assert (custom.port, custom.metrics_port, custom.log_level) == (0, 9999, "debug")


def test_server_settings_require_a_tls_dir_unless_plaintext() -> None:
    """No TLS_DIR: the service refuses to start (GRPC_PLAINTEXT=1 is the bench's)."""
    with pytest.raises(ConfigError, match="TLS_DIR is required"):
        ServerSettings.from_env(default_port=1, default_metrics_port=2, environ={})
    bench = ServerSettings.from_env(
        default_port=1, default_metrics_port=2, environ={"GRPC_PLAINTEXT": "1"}
    )
    assert (bench.tls_dir, bench.plaintext) == ("", True)


@pytest.mark.parametrize(
    ("read", "message"),
    [
        (lambda: env_int("PORT", 1, minimum=0, maximum=65535, environ={"PORT": "x"}), "integer"),
        (
            lambda: env_int("PORT", 1, minimum=0, maximum=65535, environ={"PORT": "70000"}),
            "0..65535",
        ),
        (lambda: env_float("GRACE", 1.0, environ={"GRACE": "-1"}), "at least"),
        (lambda: env_float("GRACE", 1.0, environ={"GRACE": "nan"}), "at least"),
        (lambda: env_float("GRACE", 1.0, environ={"GRACE": "inf"}), "finite"),
        (lambda: env_float("MS", 1.0, maximum=1000, environ={"MS": "5000"}), r"0\.\.1000"),
        (lambda: env_int("DECKS", 5, minimum=1, environ={"DECKS": "0"}), "at least 1$"),
        (
            # a float setting's declared maximum is checked (it was not: 50 served)
            lambda: ServerSettings.from_env(
                default_port=1, default_metrics_port=2, environ={"GC_FULL_GROWTH": "50"}
            ),
            r"GC_FULL_GROWTH=50: expected a finite number, 0\.\.10",
        ),
        (
            lambda: ServerSettings.from_env(
                default_port=1, default_metrics_port=2, environ={"SHUTDOWN_GRACE_S": "inf"}
            ),
            "SHUTDOWN_GRACE_S=inf",
        ),
        (lambda: env_bool("FLAG", False, environ={"FLAG": "maybe"}), "expected 1/true"),
        (
            lambda: ServerSettings.from_env(
                default_port=1, default_metrics_port=2, environ={"LOG_LEVEL": "loud"}
            ),
            "LOG_LEVEL",
        ),
    ],
)
def test_bad_settings_name_the_variable(read: Any, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        read()


def test_event_loop_is_uvloop_unless_asyncio_is_asked_for() -> None:
    """service_kit.loop: EVENT_LOOP picks the loop every service and bot runs on."""
    import uvloop

    from service_kit import loop

    assert loop.event_loop_name({}) == "uvloop"
    assert loop.event_loop_name({"EVENT_LOOP": "asyncio"}) == "asyncio"
    with pytest.raises(ConfigError, match="EVENT_LOOP"):
        loop.event_loop_name({"EVENT_LOOP": "trio"})

    async def which() -> type:
        return type(asyncio.get_running_loop())

    assert issubclass(loop.run(which(), loop="uvloop"), uvloop.Loop)
    assert not issubclass(loop.run(which(), loop="asyncio"), uvloop.Loop)


def test_env_bool_spellings() -> None:
    for raw in ("1", "true", "YES", "on"):
        assert env_bool("F", False, environ={"F": raw})
    for raw in ("0", "false", "No", "off"):
        assert not env_bool("F", True, environ={"F": raw})
    assert env_bool("F", True, environ={})


# ---------------------------------------------------------------- an in-process server

METHOD = "/test.Echo/Call"


async def _behavior(request: bytes, context: grpc.aio.ServicerContext[bytes, bytes]) -> bytes:
    if request == b"slow":
        await asyncio.sleep(5)
    if request == b"invalid":
        raise InvalidArgumentError("count must be 0..52, got -1")
    if request == b"mapped":
        raise KeyError("no such thing")
    if request == b"bug":
        raise RuntimeError("secret internal detail")
    return request


class _Echo(grpc.GenericRpcHandler):
    def service(self, handler_call_details: grpc.HandlerCallDetails) -> Any:
        if handler_call_details.method == METHOD:
            return grpc.unary_unary_rpc_method_handler(_behavior)
        return None


async def _with_server(test: Any) -> None:
    server = grpc.aio.server(
        interceptors=[
            PrometheusInterceptor(),
            ErrorInterceptor({KeyError: grpc.StatusCode.NOT_FOUND}),
        ]
    )
    server.add_generic_rpc_handlers((_Echo(),))
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    try:
        await test(f"127.0.0.1:{port}")
    finally:
        await server.stop(0)


async def _call(channel: grpc.aio.Channel, payload: bytes, timeout: float | None = None) -> bytes:
    # No (de)serializers: raw bytes each way.
    call: grpc.aio.UnaryUnaryMultiCallable[bytes, bytes] = channel.unary_unary(METHOD)
    reply = await call(payload, timeout=timeout)
    return reply


def test_errors_map_to_status_codes_without_leaking_internals() -> None:
    async def check(target: str) -> None:
        async with insecure_channel(target, deadline=5) as channel:
            assert await _call(channel, b"hello") == b"hello"
            for payload, code, details in [
                (b"invalid", grpc.StatusCode.INVALID_ARGUMENT, "count must be 0..52, got -1"),
                (b"mapped", grpc.StatusCode.NOT_FOUND, "'no such thing'"),
                (b"bug", grpc.StatusCode.INTERNAL, "internal error"),
            ]:
                with pytest.raises(grpc.aio.AioRpcError) as info:
                    await _call(channel, payload)
                assert (info.value.code(), info.value.details()) == (code, details)

    asyncio.run(_with_server(check))


def test_channel_gives_every_unary_call_a_deadline() -> None:
    async def check(target: str) -> None:
        async with insecure_channel(target, deadline=0.2) as channel:
            started = asyncio.get_running_loop().time()
            with pytest.raises(grpc.aio.AioRpcError) as info:
                await _call(channel, b"slow")  # no timeout given: the default applies
            assert info.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
            assert asyncio.get_running_loop().time() - started < 3
            with pytest.raises(grpc.aio.AioRpcError) as info:
                await _call(channel, b"slow", timeout=0.05)  # an explicit one wins
            assert info.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED

    asyncio.run(_with_server(check))


def test_call_timeout_never_outlives_the_callers_deadline() -> None:
    class Context:
        def __init__(self, remaining: float | None) -> None:
            self.remaining = remaining

        def time_remaining(self) -> float | None:
            return self.remaining

    assert call_timeout(None, 2.0) == 2.0
    assert call_timeout(Context(None), 2.0) == 2.0  # type: ignore[arg-type]
    assert call_timeout(Context(0.5), 2.0) == 0.5  # type: ignore[arg-type]
    assert call_timeout(Context(-1.0), 2.0) == 0.0  # type: ignore[arg-type]


def test_the_startup_heap_is_frozen_out_of_the_gcs_walks() -> None:
    """service_kit.heap: after startup, full collections no longer walk the
    objects alive then (serve() calls it once the server is up)."""
    import gc

    from service_kit.heap import freeze_startup_heap

    kept = [[i] for i in range(1000)]  # alive at "startup"
    try:
        frozen = freeze_startup_heap()
        assert frozen == gc.get_freeze_count() >= 1000
        walked = {id(o) for o in gc.get_objects()}
        assert not any(id(o) in walked for o in kept)
        assert all(o == [i] for i, o in enumerate(kept))  # frozen, not lost
    finally:
        gc.unfreeze()


def test_full_collections_run_on_memory_growth_not_on_promotions() -> None:
    """service_kit.heap.FullCollections: CPython's count-triggered full
    collections are off while it is installed (they paused a 1,000-table
    process 150-290 ms every 10-25 s for no garbage); a full collection runs
    once resident memory grew by the share, and it does free the cycles that
    reached the oldest generation; uninstalling gives CPython's thresholds back."""
    import gc
    import weakref

    from service_kit.heap import NEVER, FullCollections

    class Node:
        pass

    memory = [100 * 2**20]
    policy = FullCollections(growth=0.25, rss=lambda: memory[0])
    saved = gc.get_threshold()
    assert policy.install()
    try:
        assert gc.get_threshold() == (saved[0], saved[1], NEVER)
        node = Node()
        node.me = node  # type: ignore[attr-defined]  # a cycle: only a collection frees it
        alive = weakref.ref(node)
        gc.collect(1)  # alive: promoted into the oldest generation
        del node  # garbage there now, which young collections do not see
        gc.collect(1)
        assert alive() is not None
        memory[0] = 120 * 2**20  # +20 %: under the share
        assert not policy.check() and alive() is not None
        memory[0] = 126 * 2**20  # +26 %
        assert policy.check() and alive() is None and policy.collections == 1
        assert policy.baseline == 126 * 2**20  # the next share counts from here
        assert not policy.check()
    finally:
        policy.uninstall()
    assert gc.get_threshold() == saved


def test_full_collections_stay_cpythons_when_off_or_memory_unreadable() -> None:
    """GC_FULL_GROWTH=0, or no /proc: nothing is changed."""
    import gc

    from service_kit.heap import FullCollections, resident_bytes

    saved = gc.get_threshold()
    assert not FullCollections(growth=0.0).install()
    assert not FullCollections(rss=lambda: None).install()
    assert gc.get_threshold() == saved
    assert (resident_bytes() or 0) > 1_000_000  # Linux: this process's RSS


def test_without_young_collections_only_memory_growth_collects() -> None:
    """GC_YOUNG_COLLECTIONS off (every service but the lobby): no automatic
    collection at all while installed (a table process's young collections
    paused it up to 68 ms and found almost nothing), a cycle waits for the full
    collection on memory growth, which frees it; uninstalling gives CPython's
    thresholds back."""
    import gc
    import weakref

    from service_kit.heap import NEVER, FullCollections

    class Node:
        pass

    memory = [100 * 2**20]
    policy = FullCollections(growth=0.5, young=False, rss=lambda: memory[0])
    saved = gc.get_threshold()
    assert policy.install()
    try:
        assert gc.get_threshold() == (0, saved[1], NEVER)
        node = Node()
        node.me = node  # type: ignore[attr-defined]  # a cycle: only a collection frees it
        alive = weakref.ref(node)
        del node
        garbage: list[list[int]] = [[] for _ in range(5 * max(saved[0], 700))]  # young
        del garbage
        assert alive() is not None  # no young collection ran
        memory[0] = 151 * 2**20
        assert policy.check() and alive() is None
    finally:
        policy.uninstall()
    assert gc.get_threshold() == saved


def test_young_collections_are_the_lobbys_alone_by_default() -> None:
    """The lobby makes reference cycles (its store), so it keeps CPython's young
    collections; the other services do not, unless GC_YOUNG_COLLECTIONS says so."""
    from service_kit.server import YOUNG_COLLECTIONS
    from service_kit.settings import ServerSettings

    def young(name: str, environ: dict[str, str]) -> bool:
        return ServerSettings.from_env(
            default_port=1,
            default_metrics_port=2,
            default_gc_young=name in YOUNG_COLLECTIONS,
            environ={"TLS_DIR": "/tls", **environ},
        ).gc_young

    assert young("lobby", {}) and not young("table", {}) and not young("betting", {})
    assert young("table", {"GC_YOUNG_COLLECTIONS": "1"})
    assert not young("lobby", {"GC_YOUNG_COLLECTIONS": "0"})


def test_grpc_core_reads_the_rooms_io_setting_before_grpc_loads() -> None:
    """gRPC core reads GRPC_EXPERIMENTS once, when grpc is first imported
    (service_kit.grpc_core): every service entry point and the bench's bots must
    have it set by then, and an operator's own value is kept."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    from service_kit.grpc_core import LEGACY_ENDPOINTS, choose_io

    env: dict[str, str] = {}
    assert choose_io(env) == LEGACY_ENDPOINTS == env["GRPC_EXPERIMENTS"]
    assert choose_io({"GRPC_EXPERIMENTS": "event_engine_client"}) == "event_engine_client"

    root = Path(__file__).resolve().parents[3]
    probe = (
        "import builtins, os, sys\n"
        "seen = []\n"
        "real = builtins.__import__\n"
        "def spy(name, *args, **kwargs):\n"
        "    if name.split('.')[0] == 'grpc' and not seen:\n"
        "        seen.append(os.environ.get('GRPC_EXPERIMENTS'))\n"
        "    return real(name, *args, **kwargs)\n"
        "builtins.__import__ = spy\n"
        "import importlib\n"
        "importlib.import_module(sys.argv[1])\n"
        "print(seen[0] if seen else 'no grpc')\n"
    )
    environ = {k: v for k, v in os.environ.items() if k != "GRPC_EXPERIMENTS"}
    for module in (
        "services.table.__main__",
        "services.lobby.__main__",
        "services.betting.__main__",
        "services.gateway.__main__",
        "bench.stack_bots",
    ):
        out = subprocess.run(
            [sys.executable, "-c", probe, module],
            cwd=root,
            env=environ,
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        ).stdout.split()[-1]
        assert out == LEGACY_ENDPOINTS, (module, out)


def test_batch_metrics_name_a_services_batched_calls_and_batch_sizes() -> None:
    """One helper gives every service with a Batch stream the same two families."""
    from prometheus_client import REGISTRY

    calls, sizes = batch_metrics("kittest")
    calls.labels("settle", "OK").inc(3)
    sizes.observe(3)
    assert (
        REGISTRY.get_sample_value("kittest_batched_calls_total", {"method": "settle", "code": "OK"})
        == 3
    )
    assert REGISTRY.get_sample_value("kittest_batch_size_count") == 1
    assert REGISTRY.get_sample_value("kittest_batch_size_bucket", {"le": "4.0"}) == 1
    assert REGISTRY.get_sample_value("kittest_batch_size_bucket", {"le": "2.0"}) == 0


class _Context:
    """What the metrics read of a grpc.aio servicer context: no status set."""

    def code(self) -> None:
        return None


def test_a_stream_its_client_left_at_a_yield_is_counted_cancelled_not_unknown() -> None:
    """grpc.aio closes a streaming handler whose client went away while it waited
    at a ``yield`` (GeneratorExit): grpc_server_handled_total counted it UNKNOWN,
    which the error-rate alert fires on (a reflection client closing its channel,
    a player leaving Watch).  It is CANCELLED."""

    async def watch(request: Any, context: Any) -> Any:
        while True:
            yield request

    handler: Any = grpc.unary_stream_rpc_method_handler(watch)
    wrapped: Any = PrometheusInterceptor().wrap(handler, "/test.Left/Watch")

    def cancelled_count() -> float:
        value = REGISTRY.get_sample_value(
            "grpc_server_handled_total",
            {
                "grpc_type": "SERVER_STREAM",
                "grpc_service": "test.Left",
                "grpc_method": "Watch",
                "grpc_code": "CANCELLED",
            },
        )
        return value or 0.0

    async def scenario() -> None:
        stream = wrapped.unary_stream(b"x", _Context())
        assert await anext(stream) == b"x"
        await stream.aclose()  # as grpc.aio does when the client is gone

    before = cancelled_count()
    asyncio.run(scenario())
    assert cancelled_count() == before + 1
    unknown = REGISTRY.get_sample_value(
        "grpc_server_handled_total",
        {
            "grpc_type": "SERVER_STREAM",
            "grpc_service": "test.Left",
            "grpc_method": "Watch",
            "grpc_code": "UNKNOWN",
        },
    )
    assert not unknown


LOOSE_TASKS = """
import asyncio, gc, logging
from service_kit.logs import configure_logging

configure_logging("probe", "info")

async def fails():
    raise RuntimeError("aclose(): asynchronous generator is already running")

async def main():
    asyncio.get_running_loop().create_task(fails())  # its exception never retrieved
    await asyncio.sleep(0.01)

asyncio.run(main())
gc.collect()
logging.getLogger("grpc").warning("a library's own warning")
logging.getLogger("grpc").info("below the stdlib level: dropped")
"""


def test_standard_logging_lines_are_json_too() -> None:
    """asyncio reports an exception nobody retrieved (and a task destroyed while
    pending) through the standard logging module: with no handler there, Python
    printed them as plain text among a service's JSON lines."""
    done = subprocess.run(
        [sys.executable, "-c", LOOSE_TASKS], check=False, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0 and done.stderr == "", done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert [(e["logger"], e["level"]) for e in lines] == [("asyncio", "error"), ("grpc", "warning")]
    assert "already running" in lines[0]["exception"] and lines[0]["service"] == "probe"
