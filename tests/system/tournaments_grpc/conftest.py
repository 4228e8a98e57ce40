"""One lobby process per test module; after every test the ledger must still balance
(tournament buy-ins, fees and prizes included)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.lobby import ledger
from tests.support.tournaments import Lobby, lobby_process


@pytest.fixture(scope="module")
def module_lobby() -> Iterator[Lobby]:
    with lobby_process() as lobby:
        yield lobby


@pytest.fixture
def lobby(module_lobby: Lobby) -> Iterator[Lobby]:
    yield module_lobby
    ledger(module_lobby.lobby)
