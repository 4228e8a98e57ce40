"""What every service answers besides its own RPCs: grpc.health.v1 and reflection."""

from __future__ import annotations

import time
from collections.abc import Callable

import grpc
from grpc_health.v1 import health_pb2
from grpc_reflection.v1alpha import reflection_pb2

from tests.support.typed_grpc import health_stub, reflection_stub

SERVING = health_pb2.HealthCheckResponse.SERVING


def health_status(target: str, service: str = "", timeout: float = 5.0) -> int:
    """The health status ``target`` reports for ``service`` ("" = the server)."""
    with grpc.insecure_channel(target) as channel:
        request = health_pb2.HealthCheckRequest(service=service)
        return int(health_stub(channel).Check(request, timeout=timeout).status)


def wait_serving(target: str, timeout: float, gone: Callable[[], bool]) -> bool:
    """Poll until ``target`` says SERVING (True), or until ``gone()`` (the server
    exited) or ``timeout`` seconds pass (False)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            if health_status(target, timeout=1) == SERVING:
                return True
        except grpc.RpcError:
            pass
        if gone() or time.monotonic() > deadline:
            return False
        time.sleep(0.1)


def reflected_services(target: str, timeout: float = 5.0) -> list[str]:
    """The full names of the services ``target`` lists over server reflection."""
    with grpc.insecure_channel(target) as channel:
        request = reflection_pb2.ServerReflectionRequest(list_services="")
        replies = reflection_stub(channel).ServerReflectionInfo(iter([request]), timeout=timeout)
        return [s.name for reply in replies for s in reply.list_services_response.service]
