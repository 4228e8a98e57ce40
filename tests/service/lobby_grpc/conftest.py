"""One lobby process per test module (each test makes its own tables and players,
so they do not interfere); after every test the ledger must still balance."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from devroom.launcher import ServiceProcess
from tests.support.lobby import LobbyClient, ledger, lobby_client


@pytest.fixture(scope="module")
def lobby_process() -> Iterator[ServiceProcess]:
    with ServiceProcess("lobby", {"LOBBY_DEFAULT_BALANCE": "100000"}) as process:
        yield process


@pytest.fixture(scope="module")
def module_lobby(lobby_process: ServiceProcess) -> Iterator[LobbyClient]:
    """The lobby as the table (hand protocol) and the operator (the rest) call it."""
    with lobby_client(lobby_process) as lobby:
        yield lobby


@pytest.fixture
def lobby(module_lobby: LobbyClient) -> Iterator[LobbyClient]:
    yield module_lobby
    ledger(module_lobby)
