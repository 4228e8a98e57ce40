"""Errors with a gRPC status, and the interceptor that turns them into statuses.

Servicers raise ``InvalidArgumentError("count must be 0..52, got -1")`` rather than call
``context.abort`` themselves: validation code then stays plain Python that unit
tests can call, and every service maps errors the same way.  Each service also
passes its library's exception types (``poker_rules.InvalidConfigError`` ->
INVALID_ARGUMENT, ...).  Anything else is a bug: it is logged with its traceback
and the client gets INTERNAL with no details (nothing internal leaks).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from typing import Any

import grpc

from .handlers import Behavior, Handler, behavior_of, replace_behavior, streams_responses_by_yield
from .logs import get_logger


class ServiceError(Exception):
    """An expected failure of a call, reported to the client with ``code``."""

    code: grpc.StatusCode = grpc.StatusCode.UNKNOWN

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class InvalidArgumentError(ServiceError):
    """The request is malformed: the message says which field and what is allowed."""

    code = grpc.StatusCode.INVALID_ARGUMENT


class NotFoundError(ServiceError):
    """An id that does not exist (or no longer does)."""

    code = grpc.StatusCode.NOT_FOUND


class PermissionDeniedError(ServiceError):
    """The caller is known but may not do this (a wrong secret token)."""

    code = grpc.StatusCode.PERMISSION_DENIED


class FailedPreconditionError(ServiceError):
    """A well-formed request the current state cannot serve."""

    code = grpc.StatusCode.FAILED_PRECONDITION


class ResourceExhaustedError(ServiceError):
    """A limit of the server is reached; retry later."""

    code = grpc.StatusCode.RESOURCE_EXHAUSTED


ErrorCodes = Mapping[type[BaseException], grpc.StatusCode]


def status_of(error: BaseException, codes: ErrorCodes) -> tuple[grpc.StatusCode, str] | None:
    """The status a failed call reports: a ``ServiceError``'s own, or the code
    ``codes`` maps the exception's type to; None for an unexpected error (a bug)."""
    if isinstance(error, ServiceError):
        return error.code, error.message
    for kind, code in codes.items():
        if isinstance(error, kind):
            return code, str(error)
    return None


class ErrorInterceptor(grpc.aio.ServerInterceptor):
    """Aborts the call with the status of a ``ServiceError`` or a mapped exception."""

    def __init__(self, codes: ErrorCodes | None = None) -> None:
        self._codes = dict(codes or {})

    def status_for(self, error: Exception) -> tuple[grpc.StatusCode, str] | None:
        """The status to report, or None for an unexpected error."""
        return status_of(error, self._codes)

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[Handler | None]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> Handler | None:
        handler = await continuation(handler_call_details)
        if handler is None:
            return None
        return replace_behavior(handler, self._guard(handler, handler_call_details.method))

    async def _abort(self, context: Any, error: Exception, method: str) -> None:
        status = self.status_for(error)
        if status is None:
            get_logger().exception("unexpected error", method=method)
            await context.abort(grpc.StatusCode.INTERNAL, "internal error")
        else:
            await context.abort(*status)

    def _guard(self, handler: Handler, method: str) -> Behavior:
        behavior = behavior_of(handler)
        passthrough = (grpc.aio.AbortError, grpc.aio.UsageError)

        if streams_responses_by_yield(handler):

            async def stream_behavior(request: Any, context: Any) -> AsyncIterator[Any]:
                try:
                    async for response in behavior(request, context):
                        yield response
                except passthrough:
                    raise
                except Exception as error:
                    await self._abort(context, error, method)

            return stream_behavior

        async def unary_behavior(request: Any, context: Any) -> Any:
            try:
                return await behavior(request, context)
            except passthrough:
                raise
            except Exception as error:
                await self._abort(context, error, method)

        return unary_behavior
