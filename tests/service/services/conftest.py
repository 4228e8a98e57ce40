"""Fixtures: real services in their own processes, their stubs, and a dealer client
that audits.

Every deck a test opens goes through ``AuditingDealer``: whatever the test does,
the deck is closed at the end and its reveal must verify (commitment and replay),
so "the commitment verifies for every deck opened in the tests" is enforced, not
sampled.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import grpc
import pytest

from poker.betting.v1.betting_pb2_grpc import BettingStub
from poker.dealer.v1 import dealer_pb2, dealer_pb2_grpc
from poker.showdown.v1 import showdown_pb2_grpc
from services.dealer.audit import audit_reveal
from tests.support.lobby import LobbyClient, lobby_client
from tests.support.postgres import PostgresServer

from .lobby_support import assert_invariant
from .process import ServiceProcess


@pytest.fixture(scope="module")
def dealer_process() -> Iterator[ServiceProcess]:
    """A dealer that allows preset decks (as tests and certification start it)."""
    with ServiceProcess("dealer", {"DEALER_ALLOW_PRESET_DECKS": "1"}) as process:
        yield process


@pytest.fixture(scope="module")
def strict_dealer_process() -> Iterator[ServiceProcess]:
    """A dealer with the production default: preset decks refused."""
    with ServiceProcess("dealer") as process:
        yield process


@pytest.fixture(scope="module")
def showdown_process() -> Iterator[ServiceProcess]:
    with ServiceProcess("showdown") as process:
        yield process


class AuditingDealer:
    """A Dealer stub that remembers every deck it opened and audits each reveal."""

    def __init__(self, channel: grpc.Channel) -> None:
        self.stub = dealer_pb2_grpc.DealerStub(channel)
        self.open_decks: set[str] = set()
        self.audited = 0

    def open(self, **fields: Any) -> dealer_pb2.OpenDeckResponse:
        reply: dealer_pb2.OpenDeckResponse = self.stub.OpenDeck(
            dealer_pb2.OpenDeckRequest(**fields), timeout=5
        )
        self.open_decks.add(reply.deck_id)
        return reply

    def close(self, deck_id: str) -> dealer_pb2.CloseDeckResponse:
        reveal: dealer_pb2.CloseDeckResponse = self.stub.CloseDeck(
            dealer_pb2.CloseDeckRequest(deck_id=deck_id), timeout=5
        )
        self.open_decks.discard(deck_id)
        assert audit_reveal(reveal) == [], audit_reveal(reveal)
        self.audited += 1
        return reveal

    def close_all(self) -> None:
        for deck_id in sorted(self.open_decks):
            self.close(deck_id)


def _dealer(process: ServiceProcess) -> Iterator[AuditingDealer]:
    with process.channel("table") as channel:
        dealer = AuditingDealer(channel)
        yield dealer
        dealer.close_all()


@pytest.fixture
def dealer(dealer_process: ServiceProcess) -> Iterator[AuditingDealer]:
    yield from _dealer(dealer_process)


@pytest.fixture
def strict_dealer(strict_dealer_process: ServiceProcess) -> Iterator[AuditingDealer]:
    yield from _dealer(strict_dealer_process)


@pytest.fixture
def showdown(showdown_process: ServiceProcess) -> Iterator[showdown_pb2_grpc.ShowdownStub]:
    with showdown_process.channel("table") as channel:
        yield showdown_pb2_grpc.ShowdownStub(channel)


@pytest.fixture(scope="module")
def betting_process() -> Iterator[ServiceProcess]:
    with ServiceProcess("betting") as process:
        yield process


@pytest.fixture
def betting(betting_process: ServiceProcess) -> Iterator[BettingStub]:
    with betting_process.channel("table") as channel:
        yield BettingStub(channel)


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def lobby_db(request: pytest.FixtureRequest) -> str:
    """Every lobby service test runs on both stores: SQLite in memory (the default)
    and a fresh PostgreSQL database (``LOBBY_DB=postgresql://...``)."""
    if request.param == "sqlite":
        return ":memory:"
    server: PostgresServer = request.getfixturevalue("postgres_server")
    return server.database()


@pytest.fixture(scope="module")
def lobby_process(lobby_db: str) -> Iterator[ServiceProcess]:
    env = {"LOBBY_DEFAULT_BALANCE": "100000", "LOBBY_DB": lobby_db}
    with ServiceProcess("lobby", env) as process:
        yield process


@pytest.fixture
def lobby(lobby_process: ServiceProcess) -> Iterator[LobbyClient]:
    """The lobby as the table (hand protocol) and the operator (the rest) call it."""
    with lobby_client(lobby_process) as stub:
        yield stub
        assert_invariant(stub)
