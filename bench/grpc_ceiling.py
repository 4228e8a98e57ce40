"""The gRPC ceiling: how fast a trivial grpc.aio unary echo and server stream go here.

Why: the full-stack figures (hands per second of many bot tables, table-event
stream messages per second) are bounded by what grpc.aio itself can carry on this
machine.  They are reported as ratios against these ceilings, measured in the same
run, so they compare like with like.

Setup: the server is a separate process (``python -m bench.grpc_ceiling serve``,
which prints its port on stdout); the client is the bench process; both use
grpc.aio over 127.0.0.1, insecure, with generic handlers and no (de)serialization
(bytes in, bytes out), no interceptors.  ``/bench.Echo/Echo`` echoes a 64-byte
payload (about a poker action); ``/bench.Echo/Stream`` answers a count with that
many 100-byte messages (about a table event).

Measured, each for about ``seconds`` after a short warm-up:

- ``grpc_echo_unary_calls_per_s``: one caller, one call at a time;
- ``grpc_echo_p50_ms`` / ``grpc_echo_p99_ms``: that caller's call latency;
- ``grpc_echo_unary_concurrent_calls_per_s``: ``ECHO_CONCURRENCY`` callers (the
  unary ceiling);
- ``grpc_stream_messages_per_s``: one stream (streams of ``STREAM_BATCH`` messages,
  one after another);
- ``grpc_stream_concurrent_messages_per_s``: ``STREAM_CONCURRENCY`` such streams at
  once (the stream ceiling).

Reuse from another benchmark's event loop: ``await measure_ceilings(seconds)``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import signal
import statistics
import sys
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import grpc

from service_kit import loop as event_loop

ROOT = Path(__file__).resolve().parents[1]

SERVICE = "bench.Echo"
ECHO_METHOD = f"/{SERVICE}/Echo"
STREAM_METHOD = f"/{SERVICE}/Stream"
ECHO_PAYLOAD = bytes(range(64))  # about the size of a serialized poker action
STREAM_MESSAGE = bytes(i % 256 for i in range(100))  # about a table event
STREAM_BATCH = 1_000  # messages per stream in the stream figures
ECHO_CONCURRENCY = 32
STREAM_CONCURRENCY = 16
WARMUP_S = 0.3
START_TIMEOUT_S = 20.0
STOP_TIMEOUT_S = 10.0
SERVER_OPTIONS = [("grpc.so_reuseport", 0)]

# The keys ``measure_ceilings`` returns.
UNARY = "grpc_echo_unary_calls_per_s"
UNARY_CONCURRENT = "grpc_echo_unary_concurrent_calls_per_s"
P50 = "grpc_echo_p50_ms"
P99 = "grpc_echo_p99_ms"
STREAM = "grpc_stream_messages_per_s"
STREAM_CONCURRENT = "grpc_stream_concurrent_messages_per_s"

# --------------------------------------------------------------------------- server


async def _echo(request: bytes, context: grpc.aio.ServicerContext[Any, Any]) -> bytes:
    return request


async def _stream(
    request: bytes, context: grpc.aio.ServicerContext[Any, Any]
) -> AsyncIterator[bytes]:
    for _ in range(int(request)):
        yield STREAM_MESSAGE


def _handlers() -> grpc.GenericRpcHandler:
    # No serializers: the handlers see and return the raw bytes.
    return grpc.method_handlers_generic_handler(
        SERVICE,
        {
            "Echo": grpc.unary_unary_rpc_method_handler(_echo),
            "Stream": grpc.unary_stream_rpc_method_handler(_stream),
        },
    )


async def serve(host: str, port: int, *, stop_on_stdin_eof: bool) -> int:
    """Serve until SIGTERM/SIGINT (or stdin's end); print the port first; exit code."""
    server = grpc.aio.server(options=SERVER_OPTIONS)
    server.add_generic_rpc_handlers([_handlers()])
    bound = server.add_insecure_port(f"{host}:{port}")
    if not bound:
        print(f"cannot bind {host}:{port}", file=sys.stderr)
        return 1
    await server.start()

    stopping = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stopping.set)
    if stop_on_stdin_eof:
        # The parent closes our stdin to stop us, and an orphan (parent killed)
        # stops too instead of serving forever.
        def watch() -> None:
            sys.stdin.buffer.read()
            loop.call_soon_threadsafe(stopping.set)

        threading.Thread(target=watch, daemon=True).start()

    print(bound, flush=True)
    await stopping.wait()
    await server.stop(grace=1.0)
    return 0


class CeilingServer:
    """The echo server as a child process; ``async with`` it, then dial ``target``.

    Leaving the block closes the child's stdin (its cue to stop), waits for it and
    keeps its exit code in ``returncode``; a child that does not stop is killed.
    """

    def __init__(self) -> None:
        self.port = 0
        self.returncode: int | None = None
        self._proc: asyncio.subprocess.Process | None = None

    @property
    def target(self) -> str:
        return f"127.0.0.1:{self.port}"

    async def __aenter__(self) -> CeilingServer:
        self._proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "bench.grpc_ceiling",
            "serve",
            "--port",
            "0",
            "--stop-on-stdin-eof",
            cwd=ROOT,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
        )
        assert self._proc.stdout is not None
        try:
            line = await asyncio.wait_for(self._proc.stdout.readline(), START_TIMEOUT_S)
            self.port = int(line)
        except (TimeoutError, ValueError):
            await self._stop()
            raise RuntimeError(
                f"echo server did not report its port (exit code {self.returncode})"
            ) from None
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self._stop()

    async def _stop(self) -> None:
        proc = self._proc
        if proc is None or self.returncode is not None:
            return
        if proc.stdin is not None:
            proc.stdin.close()
        try:
            self.returncode = await asyncio.wait_for(proc.wait(), STOP_TIMEOUT_S)
        except TimeoutError:
            proc.kill()
            self.returncode = await proc.wait()


# --------------------------------------------------------------------------- client


async def _for(seconds: float, step: Callable[[], Awaitable[int]]) -> tuple[int, float]:
    """Run ``step`` (which returns how many items it did) until ``seconds`` are up."""
    done = 0
    started = time.perf_counter()
    deadline = started + seconds
    while time.perf_counter() < deadline:
        done += await step()
    return done, time.perf_counter() - started


async def _concurrently(
    n: int, seconds: float, step: Callable[[], Awaitable[int]]
) -> tuple[int, float]:
    """``n`` tasks each running ``step`` for ``seconds``; items done and wall time."""
    started = time.perf_counter()
    runs = await asyncio.gather(*(_for(seconds, step) for _ in range(n)))
    return sum(done for done, _ in runs), time.perf_counter() - started


def _percentile(sorted_values: list[float], q: float) -> float:
    return sorted_values[min(len(sorted_values) - 1, int(q * len(sorted_values)))]


async def measure(target: str, seconds: float) -> dict[str, float]:
    """The ceiling figures against an echo server already listening at ``target``."""
    async with grpc.aio.insecure_channel(target) as channel:
        await asyncio.wait_for(channel.channel_ready(), START_TIMEOUT_S)
        echo: grpc.aio.UnaryUnaryMultiCallable[bytes, bytes] = channel.unary_unary(ECHO_METHOD)
        stream: grpc.aio.UnaryStreamMultiCallable[bytes, bytes] = channel.unary_stream(
            STREAM_METHOD
        )
        batch = str(STREAM_BATCH).encode()

        async def one_echo() -> int:
            reply = await echo(ECHO_PAYLOAD)
            assert reply == ECHO_PAYLOAD
            return 1

        latencies: list[float] = []

        async def timed_echo() -> int:
            began = time.perf_counter()
            await echo(ECHO_PAYLOAD)
            latencies.append(time.perf_counter() - began)
            return 1

        async def one_stream() -> int:
            received = 0
            async for _ in stream(batch):
                received += 1
            assert received == STREAM_BATCH
            return received

        results: dict[str, float] = {}
        await _concurrently(ECHO_CONCURRENCY, min(WARMUP_S, seconds), one_echo)
        calls, spent = await _for(seconds, timed_echo)
        results[UNARY] = round(calls / spent, 1)
        latencies.sort()
        results[P50] = round(statistics.median(latencies) * 1000, 3)
        results[P99] = round(_percentile(latencies, 0.99) * 1000, 3)
        calls, spent = await _concurrently(ECHO_CONCURRENCY, seconds, one_echo)
        results[UNARY_CONCURRENT] = round(calls / spent, 1)

        await _concurrently(STREAM_CONCURRENCY, min(WARMUP_S, seconds), one_stream)
        messages, spent = await _for(seconds, one_stream)
        results[STREAM] = round(messages / spent, 1)
        messages, spent = await _concurrently(STREAM_CONCURRENCY, seconds, one_stream)
        results[STREAM_CONCURRENT] = round(messages / spent, 1)
    return results


async def measure_ceilings(seconds: float = 2.5) -> dict[str, float]:
    """Start the echo server process, measure every figure for about ``seconds``
    each (plus warm-ups: about ``4 * seconds + 2`` s in all), stop the server.

    Raises ``RuntimeError`` if the server does not start or does not exit cleanly.
    """
    async with CeilingServer() as server:
        results = await measure(server.target, seconds)
    if server.returncode != 0:
        raise RuntimeError(f"echo server exited with code {server.returncode}")
    return results


def run(seconds: float = 2.5) -> dict[str, float]:
    """``measure_ceilings`` in its own event loop (for ``bench.run``)."""
    return event_loop.run(measure_ceilings(seconds))  # the services' loop


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.grpc_ceiling", description=__doc__)
    commands = parser.add_subparsers(dest="command")
    serving = commands.add_parser("serve", help="run the echo server; prints its port")
    serving.add_argument("--host", default="127.0.0.1")
    serving.add_argument("--port", type=int, default=0, help="0: any free port")
    serving.add_argument(
        "--stop-on-stdin-eof", action="store_true", help="also stop when stdin is closed"
    )
    measuring = commands.add_parser("measure", help="measure the ceilings (the default)")
    measuring.add_argument("--seconds", type=float, default=2.5, help="per figure")
    args = parser.parse_args(argv)
    if args.command == "serve":
        with contextlib.suppress(KeyboardInterrupt):
            return event_loop.run(
                serve(args.host, args.port, stop_on_stdin_eof=args.stop_on_stdin_eof)
            )
        return 0
    seconds = args.seconds if args.command == "measure" else 2.5
    print(json.dumps(run(seconds), indent=2, sort_keys=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
