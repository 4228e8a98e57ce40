"""Smoke test of the gRPC ceiling benchmark (bench/grpc_ceiling.py): a short run
gives every figure, and the echo server process exits cleanly.  No thresholds:
speed is the benchmark's business, not the test's."""

from __future__ import annotations

import asyncio

from bench import grpc_ceiling


def test_ceilings_are_measured_and_the_server_exits_cleanly() -> None:
    async def scenario() -> tuple[dict[str, float], int | None]:
        async with grpc_ceiling.CeilingServer() as server:
            assert server.port > 0
            figures = await grpc_ceiling.measure(server.target, seconds=0.2)
        return figures, server.returncode

    figures, returncode = asyncio.run(scenario())
    assert returncode == 0
    assert set(figures) == {
        grpc_ceiling.UNARY,
        grpc_ceiling.UNARY_CONCURRENT,
        grpc_ceiling.P50,
        grpc_ceiling.P99,
        grpc_ceiling.STREAM,
        grpc_ceiling.STREAM_CONCURRENT,
    }
    assert all(value > 0 for value in figures.values()), figures
    assert figures[grpc_ceiling.P50] <= figures[grpc_ceiling.P99]


def test_measure_ceilings_helper() -> None:
    figures = asyncio.run(grpc_ceiling.measure_ceilings(seconds=0.1))
    assert all(value > 0 for value in figures.values()), figures
