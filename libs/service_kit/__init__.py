"""service_kit: the plumbing every card-room service shares, written once.

A service is a servicer plus a ``ServiceSpec``; ``run_service`` gives it the rest:
settings from environment variables (``settings``), JSON logs with the hand and
table ids bound (``logs``), the gRPC aio server with health checking, reflection,
Prometheus interceptors and error mapping (``server``, ``health``, ``metrics``,
``errors``), and graceful SIGTERM shutdown.  ``deadlines`` gives clients channels
whose every unary call has a deadline.
"""

# First: gRPC core reads its I/O settings when grpc is first imported (grpc_core).
from . import grpc_core as _grpc_core  # noqa: F401  # isort: skip
from .deadlines import call_timeout, insecure_channel
from .errors import (
    FailedPreconditionError,
    InvalidArgumentError,
    NotFoundError,
    ResourceExhaustedError,
    ServiceError,
)
from .server import ServiceSpec, run_service, serve, servicer_spec
from .settings import ConfigError, ServerSettings

__all__ = [
    "ConfigError",
    "FailedPreconditionError",
    "InvalidArgumentError",
    "NotFoundError",
    "ResourceExhaustedError",
    "ServerSettings",
    "ServiceError",
    "ServiceSpec",
    "call_timeout",
    "insecure_channel",
    "run_service",
    "serve",
    "servicer_spec",
]
