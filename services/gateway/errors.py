"""Statuses across the door: the internal plane's gRPC status to the client's.

The gateway answers with the status the room gave (an unknown table is
NOT_FOUND whether the lobby or a shard said so) and the room's own message,
which says what was wrong and what is allowed.  Its own refusals
(``service_kit.errors``: a missing credential, a limit) become the same codes.
Anything unexpected is INTERNAL with no details, logged once here.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import grpc
from connectrpc.code import Code
from connectrpc.errors import ConnectError

from poker_wire.broken import upstream_status
from poker_wire.errors import WireError
from service_kit.errors import ServiceError
from service_kit.logs import get_logger

_CODES = {code.name: code for code in Code}
_CODES["CANCELLED"] = Code.CANCELED


def code_of(status: grpc.StatusCode) -> Code:
    """The Connect code of a gRPC status code (the same names, CANCELLED spelt as
    Connect spells it)."""
    return _CODES.get(status.name, Code.UNKNOWN)


def status_name(code: Code) -> str:
    """The gRPC status name of a Connect code (for metrics labels)."""
    return "CANCELLED" if code is Code.CANCELED else code.name


class StatusError(ServiceError):
    """A refusal with a status decided at run time (a stream ended by the room)."""

    def __init__(self, code: grpc.StatusCode, message: str) -> None:
        super().__init__(message)
        self.code = code


def refuse(status: grpc.StatusCode, message: str) -> ConnectError:
    """The gateway's own refusal."""
    return ConnectError(code_of(status), message)


@contextlib.contextmanager
def as_connect_errors(what: str) -> Iterator[None]:
    """Turn what the internal plane or the gateway's own checks raised into the
    client's status; ``what`` names the call in the one log line of a bug."""
    try:
        yield
    except ConnectError:
        raise
    except grpc.aio.AioRpcError as error:
        code, message = upstream_status(error)  # a failed write's INTERNAL: UNAVAILABLE
        if code in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED):
            message = f"the room did not answer ({code.name}); retry in a moment"
        raise ConnectError(code_of(code), message) from None
    except ServiceError as error:
        raise ConnectError(code_of(error.code), error.message) from None
    except WireError as error:
        raise ConnectError(Code.INVALID_ARGUMENT, str(error)) from None
    except Exception:
        get_logger().exception("gateway call failed", call=what)
        raise ConnectError(Code.INTERNAL, "internal error") from None
