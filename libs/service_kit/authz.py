"""Per-method authorization by the caller's identity, from the protos.

Each gRPC service of the room says in its proto who may call it
(``option (poker.common.v1.access)``, poker/common/v1/access.proto): the player
plane (anyone over TLS; the methods check the player's token themselves) or the
internal plane with the service identities allowed (``callers``).  This
interceptor reads those options once, from the descriptors of the services the
server registers, and checks every call before anything else runs:

* internal method, no certificate of ours (a player's connection on the public
  port, a stranger): UNAUTHENTICATED, saying the method needs a service
  certificate;
* internal method, another identity: PERMISSION_DENIED naming who may call it;
* a service with no ``access`` option: closed (PERMISSION_DENIED), so a new
  service cannot be exposed by forgetting to say who may call it.

Health checking and reflection are open to every connection (probes, tools).
With ``GRPC_PLAINTEXT=1`` (the bench's ``--plaintext``) there are no identities,
so no check is made: that mode exists only to measure what TLS costs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import grpc
from google.protobuf import descriptor_pool

from poker.common.v1 import access_pb2

from .handlers import (
    Behavior,
    Handler,
    WrappingInterceptor,
    behavior_of,
    replace_behavior,
    streams_responses_by_yield,
)
from .identity import bearer_token, caller_identity
from .logs import get_logger
from .ratelimit import RateLimiter, caller_key

OPEN_SERVICES = frozenset(
    {
        "grpc.health.v1.Health",
        "grpc.reflection.v1alpha.ServerReflection",
        "grpc.reflection.v1.ServerReflection",
    }
)


@dataclass(frozen=True, slots=True)
class Access:
    """Who may call one gRPC service."""

    plane: int  # access_pb2.Plane
    callers: frozenset[str]

    @property
    def internal(self) -> bool:
        return self.plane == access_pb2.PLANE_INTERNAL

    @property
    def player(self) -> bool:
        return self.plane == access_pb2.PLANE_PLAYER

    def describe(self) -> str:
        if self.player:
            return "the player plane (anyone over TLS, with their token)"
        if self.internal and self.callers:
            return "only " + ", ".join(sorted(self.callers))
        return "nobody"


CLOSED = Access(access_pb2.PLANE_UNSPECIFIED, frozenset())


def access_of(service_name: str) -> Access:
    """The ``access`` option of a service in the default descriptor pool."""
    service = descriptor_pool.Default().FindServiceByName(service_name)
    options = service.GetOptions()
    if not options.HasExtension(access_pb2.access):
        return CLOSED
    option = options.Extensions[access_pb2.access]
    return Access(option.plane, frozenset(option.callers))


def policies(service_names: Iterable[str]) -> dict[str, Access]:
    """service full name -> Access, for the services a server registers."""
    return {name: access_of(name) for name in service_names}


class AccessInterceptor(WrappingInterceptor):
    """Refuses every call its caller's identity does not allow (see the module),
    and a player's unary calls past the rate limit (``service_kit.ratelimit``)."""

    def __init__(self, access: Mapping[str, Access], limiter: RateLimiter | None = None) -> None:
        self._access = dict(access)
        self._limiter = limiter

    def wrap(self, handler: Handler, method: str) -> Handler:
        service = method.lstrip("/").rpartition("/")[0]
        if service in OPEN_SERVICES:
            return handler
        access = self._access.get(service, CLOSED)
        if access.player:
            if self._limiter is None or handler.request_streaming:
                return handler
            return replace_behavior(handler, self._limited(handler, method, self._limiter))
        return replace_behavior(handler, self._guard(handler, method, access))

    @staticmethod
    def _limited(handler: Handler, method: str, limiter: RateLimiter) -> Behavior:
        """The player's call, unless their bucket is empty (RESOURCE_EXHAUSTED)."""
        status = (
            grpc.StatusCode.RESOURCE_EXHAUSTED,
            f"too many calls to {method}: {limiter.describe()}; retry in a moment",
        )

        def refusal(request: Any, context: Any) -> tuple[grpc.StatusCode, str] | None:
            if caller_identity(context) is not None:
                return None  # the room's own services and staff
            key = caller_key(request, bearer_token(context), context.peer())
            return None if limiter.allow(key) else status

        return _checked_first(handler, refusal)

    @staticmethod
    def _refusal(context: Any, method: str, access: Access) -> tuple[grpc.StatusCode, str] | None:
        """The status refusing this call, or None when its caller may make it."""
        identity = caller_identity(context)
        if access.internal and identity in access.callers:
            return None
        if identity is None:
            return (
                grpc.StatusCode.UNAUTHENTICATED,
                f"{method} is a room-internal method: it needs a service certificate "
                f"(mutual TLS on the service's internal port); allowed: {access.describe()}",
            )
        return (
            grpc.StatusCode.PERMISSION_DENIED,
            f"identity {identity!r} may not call {method}; allowed: {access.describe()}",
        )

    def _guard(self, handler: Handler, method: str, access: Access) -> Behavior:
        log = get_logger()

        def refusal(request: Any, context: Any) -> tuple[grpc.StatusCode, str] | None:
            status = self._refusal(context, method, access)
            if status is not None:
                log.warning("call refused", method=method, code=status[0].name)
            return status

        return _checked_first(handler, refusal)


Refusal = Callable[[Any, Any], "tuple[grpc.StatusCode, str] | None"]


def _checked_first(handler: Handler, refusal: Refusal) -> Behavior:
    """The handler's behaviour, run only when ``refusal(request, context)`` is None;
    else the call ends with the status it gives (a response stream included)."""
    behavior = behavior_of(handler)

    if streams_responses_by_yield(handler):

        async def streaming(request: Any, context: Any) -> Any:
            status = refusal(request, context)
            if status is not None:
                await context.abort(*status)
            async for response in behavior(request, context):
                yield response

        return streaming

    async def unary(request: Any, context: Any) -> Any:
        status = refusal(request, context)
        if status is not None:
            await context.abort(*status)
        return await behavior(request, context)

    return unary
