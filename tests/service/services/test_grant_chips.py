"""Chips come from the operator (issue 15): RegisterPlayer with an
``initial_balance`` above 0 and GrantChips.

A player registers with the lobby's grant (``initial_balance`` 0 =
LOBBY_DEFAULT_BALANCE); asking for a balance of one's own is PERMISSION_DENIED
unless the caller proves the ``operator`` identity (mutual TLS), and nothing is
created.  GrantChips (``LobbyOperator``, operator only) adds to a player's
balance with a ledger row, so GetLedgerTotals' ``granted`` moves by exactly the
amount and the invariant holds.  Every test runs on both stores (``lobby_db``).
"""

from __future__ import annotations

from collections.abc import Iterator

import grpc
import pytest

from poker.lobby.v1 import lobby_pb2 as pb
from poker.lobby.v1.lobby_pb2_grpc import LobbyOperatorStub, LobbyStub
from poker_wire.channels import player_channel_sync
from tests.support.lobby import LobbyClient

from . import lobby_support as support
from .process import ServiceProcess

DEFAULT = 100_000  # LOBBY_DEFAULT_BALANCE of the lobby_process fixture
MAX_BALANCE = 1_000_000_000  # LOBBY_MAX_BALANCE's default
DENIED = grpc.StatusCode.PERMISSION_DENIED


@pytest.fixture
def public(lobby_process: ServiceProcess) -> Iterator[grpc.Channel]:
    """A player's channel: the lobby's public port, server TLS, no certificate."""
    assert lobby_process.pki is not None
    ca = lobby_process.pki.ca_file
    with player_channel_sync(lobby_process.public_target, ca) as channel:
        yield channel


@pytest.fixture
def as_table(lobby_process: ServiceProcess) -> Iterator[grpc.Channel]:
    """The internal port with a certificate of the room that is not the operator's."""
    with lobby_process.channel("table") as channel:
        yield channel


def _register(stub: LobbyStub, name: str, balance: int) -> pb.RegisterPlayerResponse:
    request = pb.RegisterPlayerRequest(name=name, initial_balance=balance)
    reply: pb.RegisterPlayerResponse = stub.RegisterPlayer(request, timeout=5)
    return reply


def test_a_player_registers_with_the_default_grant_on_the_public_port(
    lobby: LobbyClient, public: grpc.Channel
) -> None:
    before = support.assert_invariant(lobby)
    reply = _register(LobbyStub(public), "plain", 0)
    assert reply.player.balance == DEFAULT and reply.token
    assert support.assert_invariant(lobby).granted == before.granted + DEFAULT


@pytest.mark.parametrize("caller", ["public", "as_table"])
def test_initial_balance_without_the_operator_identity_is_denied_and_creates_nobody(
    lobby: LobbyClient, caller: str, request: pytest.FixtureRequest
) -> None:
    channel: grpc.Channel = request.getfixturevalue(caller)
    before = support.assert_invariant(lobby)
    code = support.code_of(lambda: _register(LobbyStub(channel), "greedy", 5_000))
    assert code == DENIED
    with pytest.raises(grpc.RpcError) as info:
        _register(LobbyStub(channel), "greedy", 5_000)
    assert isinstance(info.value, grpc.Call)
    assert "only an operator" in (info.value.details() or "")
    assert support.assert_invariant(lobby) == before  # no player, no chips


def test_initial_balance_from_the_operator_is_granted(lobby: LobbyClient) -> None:
    """The ``lobby`` fixture's player plane is the operator's channel."""
    before = support.assert_invariant(lobby)
    reply = _register(lobby, "staked", 5_000)
    assert reply.player.balance == 5_000
    player = lobby.GetPlayer(
        pb.GetPlayerRequest(player_id=reply.player.player_id, token=reply.token), timeout=5
    )
    assert (player.balance, player.at_tables) == (5_000, 0)
    after = support.assert_invariant(lobby)
    assert after.granted == before.granted + 5_000
    assert after.balances == before.balances + 5_000


def test_grant_chips_adds_to_the_balance_with_a_ledger_row(lobby: LobbyClient) -> None:
    alice = support.Player(lobby, "alice")
    table = support.create(lobby, support.STUD)
    alice.sit(table.table_id, 2_000)
    before = support.assert_invariant(lobby)
    granted = lobby.GrantChips(pb.GrantChipsRequest(player_id=alice.id, amount=1_234), timeout=5)
    assert (granted.player_id, granted.name) == (alice.id, "alice")
    assert (granted.balance, granted.at_tables) == (DEFAULT - 2_000 + 1_234, 2_000)
    assert alice.get() == granted
    after = support.assert_invariant(lobby)  # the ledger's sums agree: a ledger row
    assert after.granted == before.granted + 1_234
    assert after.balances == before.balances + 1_234
    assert after.at_tables == before.at_tables
    alice.stand(table.table_id)
    assert alice.get().balance == DEFAULT + 1_234


@pytest.mark.parametrize(
    ("amount", "why"),
    [(0, "zero"), (-1, "negative"), (MAX_BALANCE + 1, "above LOBBY_MAX_BALANCE")],
)
def test_grant_chips_refuses_a_bad_amount(lobby: LobbyClient, amount: int, why: str) -> None:
    alice = support.Player(lobby, "alice")
    before = support.assert_invariant(lobby)
    request = pb.GrantChipsRequest(player_id=alice.id, amount=amount)
    with pytest.raises(grpc.RpcError) as info:
        lobby.GrantChips(request, timeout=5)
    assert isinstance(info.value, grpc.Call)
    assert info.value.code() == support.INVALID, why
    assert f"amount must be 1..{MAX_BALANCE}, got {amount}" in (info.value.details() or "")
    assert support.assert_invariant(lobby) == before
    assert alice.get().balance == DEFAULT


def test_grant_chips_to_nobody_is_not_found(lobby: LobbyClient) -> None:
    before = support.assert_invariant(lobby)
    request = pb.GrantChipsRequest(player_id="p-nobody", amount=10)
    assert support.code_of(lambda: lobby.GrantChips(request, timeout=5)) == (
        grpc.StatusCode.NOT_FOUND
    )
    assert support.assert_invariant(lobby) == before


@pytest.mark.parametrize(
    ("caller", "code"),
    [("public", grpc.StatusCode.UNAUTHENTICATED), ("as_table", DENIED)],
)
def test_grant_chips_is_the_operators_alone(
    lobby: LobbyClient, caller: str, code: grpc.StatusCode, request: pytest.FixtureRequest
) -> None:
    """No certificate (the public port): UNAUTHENTICATED; another identity:
    PERMISSION_DENIED; and nothing changes."""
    channel: grpc.Channel = request.getfixturevalue(caller)
    alice = support.Player(lobby, "alice")
    before = support.assert_invariant(lobby)
    grant = pb.GrantChipsRequest(player_id=alice.id, amount=10)
    assert support.code_of(lambda: LobbyOperatorStub(channel).GrantChips(grant, timeout=5)) == code
    assert support.assert_invariant(lobby) == before
    assert alice.get().balance == DEFAULT
