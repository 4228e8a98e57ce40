"""Typed clients of the gRPC health and reflection services, for the tests.

typeshed's stubs for ``grpc_health`` declare ``HealthStub`` with no RPC attributes
(the generated class sets them in ``__init__``), and those for ``grpc_reflection``
type ``ServerReflectionStub.ServerReflectionInfo`` as ``binascii.Incomplete`` (an
exception class, so calling it is an error).  These helpers return the real stubs,
seen through protocols that name the RPCs with their request and response types:
the calls are type-checked, nothing else changes.
"""

from __future__ import annotations

from typing import Protocol, cast

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc


class HealthCheck(Protocol):
    """The unary RPC of ``grpc.health.v1.Health`` the tests call."""

    @property
    def Check(  # noqa: N802 - the RPC's name
        self,
    ) -> grpc.UnaryUnaryMultiCallable[
        health_pb2.HealthCheckRequest, health_pb2.HealthCheckResponse
    ]: ...


class ServerReflection(Protocol):
    """``grpc.reflection.v1alpha.ServerReflection``: one bidirectional stream."""

    @property
    def ServerReflectionInfo(  # noqa: N802 - the RPC's name
        self,
    ) -> grpc.StreamStreamMultiCallable[
        reflection_pb2.ServerReflectionRequest, reflection_pb2.ServerReflectionResponse
    ]: ...


def health_stub(channel: grpc.Channel) -> HealthCheck:
    """``HealthStub(channel)``, typed (see the module's docstring)."""
    return cast(HealthCheck, health_pb2_grpc.HealthStub(channel))


def reflection_stub(channel: grpc.Channel) -> ServerReflection:
    """``ServerReflectionStub(channel)``, typed (see the module's docstring)."""
    return cast(ServerReflection, reflection_pb2_grpc.ServerReflectionStub(channel))
