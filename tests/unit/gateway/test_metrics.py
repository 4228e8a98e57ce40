"""The status the gateway's grpc_server_handled_total counts a call with."""

from __future__ import annotations

import asyncio

from connectrpc.code import Code
from connectrpc.errors import ConnectError

from services.gateway.metrics import _code_of


def test_a_call_its_client_left_is_cancelled_not_unknown() -> None:
    """A stream closed at a yield (GeneratorExit) or cancelled is CANCELLED: the
    error-rate alert counts UNKNOWN, and a player leaving Watch is no error."""
    assert _code_of(GeneratorExit()) == "CANCELLED"
    assert _code_of(asyncio.CancelledError()) == "CANCELLED"
    assert _code_of(ConnectError(Code.CANCELED, "gone")) == "CANCELLED"
    assert _code_of(ConnectError(Code.NOT_FOUND, "no table")) == "NOT_FOUND"
    assert _code_of(RuntimeError("bug")) == "UNKNOWN"
    assert _code_of(None) == "OK"
