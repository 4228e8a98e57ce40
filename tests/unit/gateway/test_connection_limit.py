"""ConnectionLimit's counting (services/gateway/connections.py); the real door's
refusals are in tests/system/gateway/test_connections.py."""

from __future__ import annotations

import doctest

import structlog

from services.gateway import connections
from services.gateway.connections import ConnectionLimit


def test_the_examples_in_the_module_run_and_a_refusal_is_logged() -> None:
    with structlog.testing.capture_logs() as logs:
        failed, tried = doctest.testmod(connections)
    assert tried >= 4 and failed == 0
    assert [e["limit"] for e in logs if e["log_level"] == "warning"] == [2]


def test_no_cap_admits_everyone_and_counts_them() -> None:
    limit = ConnectionLimit(0)
    assert all(limit.admit("10.0.0.1") for _ in range(1_000))
    assert limit.open == {"10.0.0.1": 1_000}
    for _ in range(1_000):
        limit.release("10.0.0.1")
    assert limit.open == {}  # a host with nothing open is forgotten: memory stays bounded
