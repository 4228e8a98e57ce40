"""A request field ``poker_wire`` refuses is INVALID_ARGUMENT in every service.

``poker_wire`` raises its own ``WireError`` (client-side code shares it and must not
import server plumbing); the services report it exactly as they report their own
``InvalidArgumentError``: the same code, the same message, in a unary call's status
and in a batched call's error alike (both go through ``status_of``).
"""

from __future__ import annotations

import grpc
import pytest

from poker_wire import check_count, check_id
from poker_wire.errors import WireError
from service_kit.errors import ErrorCodes, InvalidArgumentError, status_of


def test_a_wire_error_is_invalid_argument_with_its_message() -> None:
    with pytest.raises(WireError) as refused:
        check_count(-1, "count", 0, 52)
    assert status_of(refused.value, {}) == (
        grpc.StatusCode.INVALID_ARGUMENT,
        "count must be 0..52, got -1",
    )
    assert status_of(refused.value, {}) == status_of(
        InvalidArgumentError("count must be 0..52, got -1"), {}
    )


def test_a_service_mapping_cannot_change_a_wire_error() -> None:
    """The wire's refusal wins over a service's broader mapping of ``Exception``."""
    with pytest.raises(WireError) as refused:
        check_id("", "table_id")
    codes: ErrorCodes = {Exception: grpc.StatusCode.FAILED_PRECONDITION}
    assert status_of(refused.value, codes) == (
        grpc.StatusCode.INVALID_ARGUMENT,
        "table_id is required",
    )


def test_a_wire_error_is_not_a_value_error() -> None:
    """Code that catches ``ValueError`` around a parse must not swallow one."""
    assert not issubclass(WireError, ValueError)
