"""Checks on the lobby over gRPC that every lobby test shares: a refusal's status
and reason, the ledger's invariant, and the client the tests drive the lobby with.

The lobby serves three planes of calls (poker/common/v1/access.proto): the
player plane (``Lobby``), the table's hand protocol (``LobbyHands``, caller
identity ``table``) and the staff's calls (``LobbyOperator``, identity
``operator``).  ``lobby_client`` gives one object with all of their methods,
each made by the identity that legitimately makes it: the hand protocol as the
table, the rest as the operator over mutual TLS on the internal port (the tests
of seating and ledger rules are about the lobby's logic, not its transport).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, cast

import grpc
import pytest

from devroom.launcher import ServiceProcess
from poker.lobby.v1 import lobby_pb2 as pb
from poker.lobby.v1.lobby_pb2_grpc import LobbyHandsStub, LobbyOperatorStub, LobbyStub
from poker_wire.channels import Stubs

if TYPE_CHECKING:

    class LobbyClient(LobbyStub, LobbyHandsStub, LobbyOperatorStub):
        """The lobby's three services on one object (see ``lobby_client``)."""

else:
    LobbyClient = Stubs


def lobby_stubs(staff: grpc.Channel, table: grpc.Channel) -> LobbyClient:
    """The player plane and the operator's calls on ``staff`` (an ``operator``
    channel), the hand protocol on ``table`` (a ``table`` channel)."""
    merged = Stubs(LobbyStub(staff), LobbyOperatorStub(staff), LobbyHandsStub(table))
    return cast(LobbyClient, merged)


@contextmanager
def lobby_client(process: ServiceProcess) -> Iterator[LobbyClient]:
    """A ``LobbyClient`` on ``process``'s internal port: the hand protocol as the
    ``table``, everything else as the ``operator``."""
    with process.channel("operator") as staff, process.channel("table") as table:
        yield lobby_stubs(staff, table)


def refused(call: Callable[[], Any]) -> tuple[grpc.StatusCode, str]:
    """The status code and message of a call that must fail."""
    with pytest.raises(grpc.RpcError) as info:
        call()
    error = info.value
    assert isinstance(error, grpc.Call)
    details = error.details() or ""
    assert details, "every refusal says why"
    return error.code(), details


def ledger(lobby: LobbyOperatorStub) -> pb.LedgerTotals:
    """GetLedgerTotals, checked: granted == balances + at_tables (tournament money
    held counts on the tables side), and the ledger's own sums agree with the
    balances and the stacks."""
    t: pb.LedgerTotals = lobby.GetLedgerTotals(pb.GetLedgerTotalsRequest(), timeout=5)
    assert t.granted == t.balances + t.at_tables, t
    assert (t.ledger_balances, t.ledger_tables) == (t.balances, t.at_tables), t
    return t
