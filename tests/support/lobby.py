"""Checks on the lobby over gRPC that every lobby test shares: a refusal's status
and reason, and the ledger's invariant."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import grpc
import pytest

from poker.lobby.v1 import lobby_pb2 as pb
from poker.lobby.v1.lobby_pb2_grpc import LobbyStub


def refused(call: Callable[[], Any]) -> tuple[grpc.StatusCode, str]:
    """The status code and message of a call that must fail."""
    with pytest.raises(grpc.RpcError) as info:
        call()
    error = info.value
    assert isinstance(error, grpc.Call)
    details = error.details() or ""
    assert details, "every refusal says why"
    return error.code(), details


def ledger(lobby: LobbyStub) -> pb.LedgerTotals:
    """GetLedgerTotals, checked: granted == balances + at_tables (tournament money
    held counts on the tables side), and the ledger's own sums agree with the
    balances and the stacks."""
    t: pb.LedgerTotals = lobby.GetLedgerTotals(pb.GetLedgerTotalsRequest(), timeout=5)
    assert t.granted == t.balances + t.at_tables, t
    assert (t.ledger_balances, t.ledger_tables) == (t.balances, t.at_tables), t
    return t
