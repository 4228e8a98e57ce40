"""grpc.health.v1 for a service: SERVING once started, NOT_SERVING on shutdown.

A typed facade over grpcio-health-checking's asyncio servicer (which ships no type
information), so the rest of the kit stays strictly typed.
"""

from __future__ import annotations

from collections.abc import Iterable

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_health.v1.health import aio as health_aio

HEALTH_SERVICE = "grpc.health.v1.Health"


class Health:
    """The server's health: the overall status ("") and one per service name."""

    def __init__(self) -> None:
        self._servicer = health_aio.HealthServicer()

    def add_to(self, server: grpc.aio.Server) -> None:
        health_pb2_grpc.add_HealthServicer_to_server(self._servicer, server)

    async def serving(self, services: Iterable[str]) -> None:
        """Report SERVING for the server as a whole and for each service."""
        for name in ("", *services):
            await self._servicer.set(name, health_pb2.HealthCheckResponse.SERVING)

    async def shutting_down(self) -> None:
        """NOT_SERVING for everything, for good (later ``serving`` calls are ignored)."""
        await self._servicer.enter_graceful_shutdown()
