"""One lobby process per test module (each test makes its own tables and players,
so they do not interfere); after every test the ledger must still balance."""

from __future__ import annotations

from collections.abc import Iterator

import grpc
import pytest

from devroom.launcher import ServiceProcess
from poker.lobby.v1.lobby_pb2_grpc import LobbyStub
from tests.support.lobby import ledger


@pytest.fixture(scope="module")
def lobby_process() -> Iterator[ServiceProcess]:
    with ServiceProcess("lobby", {"LOBBY_DEFAULT_BALANCE": "100000"}) as process:
        yield process


@pytest.fixture(scope="module")
def module_lobby(lobby_process: ServiceProcess) -> Iterator[LobbyStub]:
    with grpc.insecure_channel(lobby_process.target) as channel:
        yield LobbyStub(channel)


@pytest.fixture
def lobby(module_lobby: LobbyStub) -> Iterator[LobbyStub]:
    yield module_lobby
    ledger(module_lobby)
