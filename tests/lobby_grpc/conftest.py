"""One lobby process per test module (each test makes its own tables and players,
so they do not interfere); after every test the ledger must still balance."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from poker.lobby.v1.lobby_pb2_grpc import LobbyStub

from .client import ledger, lobby_stub


@pytest.fixture(scope="module")
def module_lobby() -> Iterator[LobbyStub]:
    with lobby_stub() as (_, stub):
        yield stub


@pytest.fixture
def lobby(module_lobby: LobbyStub) -> Iterator[LobbyStub]:
    yield module_lobby
    ledger(module_lobby)
