"""What every service answers besides its own RPCs: grpc.health.v1 and reflection.

Both are served on a service's internal port, which takes mutual TLS only: open
to any identity of the room, but not to a plaintext or certificate-less caller.
A ``ServiceProcess`` is asked over its own PKI (as the ``operator``); a bare
target with the certificate in ``tls_dir``, by default the operator's of this
process's test PKI (``devroom.launcher.shared_pki``), which every service started
by the tests uses.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import grpc
from grpc_health.v1 import health_pb2
from grpc_reflection.v1alpha import reflection_pb2

from devroom.launcher import ServiceProcess, shared_pki
from poker_wire.channels import service_channel_sync
from tests.support.typed_grpc import health_stub, reflection_stub

SERVING = health_pb2.HealthCheckResponse.SERVING

Target = str | ServiceProcess


def channel_to(target: Target, tls_dir: str | Path | None = None) -> grpc.Channel:
    """A mutual-TLS channel to ``target``'s internal port, as the operator (or as
    the identity whose certificate is in ``tls_dir``)."""
    if isinstance(target, ServiceProcess):
        if tls_dir is None:
            return target.channel("operator")
        target = target.target
    directory = tls_dir if tls_dir is not None else shared_pki().dir("operator")
    return service_channel_sync(target, directory)


def health_status(
    target: Target, service: str = "", timeout: float = 5.0, *, tls_dir: str | Path | None = None
) -> int:
    """The health status ``target`` reports for ``service`` ("" = the server)."""
    with channel_to(target, tls_dir) as channel:
        request = health_pb2.HealthCheckRequest(service=service)
        return int(health_stub(channel).Check(request, timeout=timeout).status)


def wait_serving(
    target: Target,
    timeout: float,
    gone: Callable[[], bool],
    *,
    tls_dir: str | Path | None = None,
) -> bool:
    """Poll until ``target`` says SERVING (True), or until ``gone()`` (the server
    exited) or ``timeout`` seconds pass (False)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            if health_status(target, timeout=1, tls_dir=tls_dir) == SERVING:
                return True
        except grpc.RpcError:
            pass
        if gone() or time.monotonic() > deadline:
            return False
        time.sleep(0.1)


def reflected_services(
    target: Target, timeout: float = 5.0, *, tls_dir: str | Path | None = None
) -> list[str]:
    """The full names of the services ``target`` lists over server reflection."""
    with channel_to(target, tls_dir) as channel:
        request = reflection_pb2.ServerReflectionRequest(list_services="")
        replies = reflection_stub(channel).ServerReflectionInfo(iter([request]), timeout=timeout)
        return [s.name for reply in replies for s in reply.list_services_response.service]
