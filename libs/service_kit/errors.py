"""Errors with a gRPC status, and the interceptor that turns them into statuses.

Servicers raise ``InvalidArgumentError("count must be 0..52, got -1")`` rather than call
``context.abort`` themselves: validation code then stays plain Python that unit
tests can call, and every service maps errors the same way.  Each service also
passes its library's exception types (``poker_rules.InvalidConfigError`` ->
INVALID_ARGUMENT, ...).  Anything else is a bug: it is logged with its traceback
and the client gets INTERNAL with no details (nothing internal leaks).

The interceptor also decodes requests (``handlers.tolerant_deserializer``): a
body that is not a valid request message is INVALID_ARGUMENT "request body is not
a valid <type> message", logged as one warning line without the bytes.  On a
request stream such a message ends the requests as if the client had closed
them, with the call's status set to INVALID_ARGUMENT: the servicer finishes as
on a half-close (every servicer handles that) and nothing reaches it as an
exception, since table streams read their requests on tasks of their own.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from typing import Any

import grpc

from poker_wire.errors import WireError

from .handlers import (
    Behavior,
    Handler,
    Undecodable,
    WrappingInterceptor,
    behavior_of,
    replace_behavior,
    streams_responses_by_yield,
    tolerant_deserializer,
)
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
    """The status a failed call reports: a ``ServiceError``'s own, INVALID_ARGUMENT
    for a request field ``poker_wire`` refused (every service, as for
    ``InvalidArgumentError``), or the code ``codes`` maps the exception's type to;
    None for an unexpected error (a bug)."""
    if isinstance(error, ServiceError):
        return error.code, error.message
    if isinstance(error, WireError):
        return grpc.StatusCode.INVALID_ARGUMENT, error.message
    for kind, code in codes.items():
        if isinstance(error, kind):
            return code, str(error)
    return None


class ErrorInterceptor(WrappingInterceptor):
    """Aborts the call with the status of a ``ServiceError`` or a mapped exception."""

    def __init__(self, codes: ErrorCodes | None = None) -> None:
        self._codes = dict(codes or {})

    def status_for(self, error: Exception) -> tuple[grpc.StatusCode, str] | None:
        """The status to report, or None for an unexpected error."""
        return status_of(error, self._codes)

    def wrap(self, handler: Handler, method: str) -> Handler:
        return replace_behavior(
            handler,
            self._guard(handler, method),
            tolerant_deserializer(handler.request_deserializer),
        )

    async def _abort(
        self, context: Any, error: Exception, method: str, refused: _Refusal | None
    ) -> None:
        if refused is not None and refused.request is not None:
            # The servicer failed because its requests ended early (a Play stream
            # without its Join, ...): report the cause, the undecodable message.
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, refused.request.details)
        status = self.status_for(error)
        if status is None:
            get_logger().exception("unexpected error", method=method)
            await context.abort(grpc.StatusCode.INTERNAL, "internal error")
        else:
            await context.abort(*status)

    def _guard(self, handler: Handler, method: str) -> Behavior:
        behavior = behavior_of(handler)
        passthrough = (grpc.aio.AbortError, grpc.aio.UsageError)
        streaming_in = handler.request_streaming

        async def checked(request: Any, context: Any) -> tuple[Any, _Refusal | None]:
            """The request (stream) the servicer gets, and the stream's refusal;
            an undecodable unary request is refused here."""
            if streaming_in:
                refusal = _Refusal(method)
                return refusal.decoded(request, context), refusal
            if type(request) is Undecodable:
                _warn(method, request)
                await context.abort(grpc.StatusCode.INVALID_ARGUMENT, request.details)
            return request, None

        if streams_responses_by_yield(handler):

            async def stream_behavior(request: Any, context: Any) -> AsyncIterator[Any]:
                request, refusal = await checked(request, context)
                try:
                    async for response in behavior(request, context):
                        yield response
                except passthrough:
                    raise
                except Exception as error:
                    await self._abort(context, error, method, refusal)

            return stream_behavior

        async def unary_behavior(request: Any, context: Any) -> Any:
            request, refusal = await checked(request, context)
            try:
                return await behavior(request, context)
            except passthrough:
                raise
            except Exception as error:
                await self._abort(context, error, method, refusal)

        return unary_behavior


def _warn(method: str, request: Undecodable) -> None:
    """One line, no traceback and no bytes: bad input, not a bug of ours."""
    get_logger().warning(
        "undecodable request", method=method, message_type=request.message_type, size=request.size
    )


class _Refusal:
    """A request stream's first undecodable message, if any."""

    __slots__ = ("method", "request")

    def __init__(self, method: str) -> None:
        self.method = method
        self.request: Undecodable | None = None

    async def decoded(self, requests: AsyncIterator[Any], context: Any) -> AsyncIterator[Any]:
        """``requests`` up to the first undecodable one, which ends them and sets
        the call's status (INVALID_ARGUMENT) for when the servicer returns."""
        async for request in requests:
            if type(request) is Undecodable:
                self.request = request
                _warn(self.method, request)
                context.set_code(grpc.StatusCode.INVALID_ARGUMENT)
                context.set_details(request.details)
                return
            yield request
